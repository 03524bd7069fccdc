/* onyx-test-util.h: builders for small hand-made ONNX models in tests.
 *
 * Everything is allocated with malloc-compatible GLib allocators so that
 * protobuf_c_message_free_unpacked() can free what these build. */
#pragma once

#include <glib.h>
#include <stdarg.h>
#include <string.h>

#include "onyx-document.h"
#include "onyx-graph-index.h"
#include "onyx-model.h"
#include "onyx-steps.h"

static inline char **
test_strv_from_va (const char *first, va_list args, size_t *n)
{
  GPtrArray *items = g_ptr_array_new ();
  for (const char *s = first; s != NULL; s = va_arg (args, const char *))
    g_ptr_array_add (items, g_strdup (s));
  *n = items->len;
  return (char **) g_ptr_array_free (items, FALSE);
}

/* test_node ("Relu", "relu_0", "x", NULL, "y", NULL): inputs, then outputs, each
 * NULL-terminated. Domain "" (ai.onnx). */
static inline Onnx__NodeProto *
test_node (const char *op_type, const char *name, ...)
{
  Onnx__NodeProto *node = g_new0 (Onnx__NodeProto, 1);
  va_list args;
  const char *first;

  onnx__node_proto__init (node);
  node->op_type = g_strdup (op_type);
  node->name = g_strdup (name);
  node->domain = g_strdup ("");
  va_start (args, name);
  first = va_arg (args, const char *);
  node->input = test_strv_from_va (first, args, &node->n_input);
  first = va_arg (args, const char *);
  node->output = test_strv_from_va (first, args, &node->n_output);
  va_end (args);
  return node;
}

/* A float tensor value_info with the given dims; a dim < 0 means symbolic "N". */
static inline Onnx__ValueInfoProto *
test_value_info (const char *name, int n_dims, const int64_t *dims)
{
  Onnx__ValueInfoProto *info = g_new0 (Onnx__ValueInfoProto, 1);
  Onnx__TypeProto *type = g_new0 (Onnx__TypeProto, 1);
  Onnx__TypeProto__Tensor *tensor = g_new0 (Onnx__TypeProto__Tensor, 1);
  Onnx__TensorShapeProto *shape = g_new0 (Onnx__TensorShapeProto, 1);

  onnx__value_info_proto__init (info);
  onnx__type_proto__init (type);
  onnx__type_proto__tensor__init (tensor);
  onnx__tensor_shape_proto__init (shape);
  info->name = g_strdup (name);
  info->type = type;
  type->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  type->tensor_type = tensor;
  tensor->has_elem_type = TRUE;
  tensor->elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  tensor->shape = shape;
  shape->n_dim = (size_t) n_dims;
  shape->dim = g_new0 (Onnx__TensorShapeProto__Dimension *, MAX (n_dims, 1));
  for (int i = 0; i < n_dims; i++)
    {
      Onnx__TensorShapeProto__Dimension *dim = g_new0 (Onnx__TensorShapeProto__Dimension, 1);
      onnx__tensor_shape_proto__dimension__init (dim);
      if (dims[i] < 0)
        {
          dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
          dim->dim_param = g_strdup ("N");
        }
      else
        {
          dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
          dim->dim_value = dims[i];
        }
      shape->dim[i] = dim;
    }
  return info;
}

/* A float initializer of the given dims, values 0, 1, 2, … stored in raw_data. */
static inline Onnx__TensorProto *
test_initializer (const char *name, int n_dims, const int64_t *dims)
{
  Onnx__TensorProto *tensor = g_new0 (Onnx__TensorProto, 1);
  guint64 n = 1;

  onnx__tensor_proto__init (tensor);
  tensor->name = g_strdup (name);
  tensor->has_data_type = TRUE;
  tensor->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  tensor->n_dims = (size_t) n_dims;
  tensor->dims = g_new0 (int64_t, MAX (n_dims, 1));
  for (int i = 0; i < n_dims; i++)
    n *= (guint64) (tensor->dims[i] = dims[i]);
  tensor->has_raw_data = TRUE;
  tensor->raw_data.len = n * sizeof (float);
  tensor->raw_data.data = g_malloc0 (MAX (tensor->raw_data.len, 1));
  for (guint64 i = 0; i < n; i++)
    ((float *) tensor->raw_data.data)[i] = (float) i;
  return tensor;
}

/* An empty model: IR 8, opset ai.onnx 13, graph "g". */
static inline Onnx__ModelProto *
test_model_new (void)
{
  Onnx__ModelProto *model = g_new0 (Onnx__ModelProto, 1);
  Onnx__GraphProto *graph = g_new0 (Onnx__GraphProto, 1);
  Onnx__OperatorSetIdProto *opset = g_new0 (Onnx__OperatorSetIdProto, 1);

  onnx__model_proto__init (model);
  onnx__graph_proto__init (graph);
  onnx__operator_set_id_proto__init (opset);
  model->has_ir_version = TRUE;
  model->ir_version = 8;
  model->producer_name = g_strdup ("onyx-tests");
  opset->domain = g_strdup ("");
  opset->has_version = TRUE;
  opset->version = 13;
  model->n_opset_import = 1;
  model->opset_import = g_new0 (Onnx__OperatorSetIdProto *, 1);
  model->opset_import[0] = opset;
  graph->name = g_strdup ("g");
  model->graph = graph;
  return model;
}

/* ---- An index kept up to date by edits equals one built from scratch ---- */

static inline int
test_compare_uses (gconstpointer a, gconstpointer b)
{
  const OnyxUse *x = a, *y = b;
  if (x->node != y->node)
    return x->node < y->node ? -1 : 1;
  return x->input < y->input ? -1 : x->input > y->input;
}

static inline void
test_check_value (gpointer key, gpointer value, gpointer user_data)
{
  OnyxGraphIndex *live_index = user_data;
  OnyxValue *fresh = value;
  OnyxValue *live = onyx_graph_index_lookup (live_index, key);
  g_autoptr (GArray) a = NULL;
  g_autoptr (GArray) b = NULL;

  g_assert_nonnull (live);
  g_assert_true (live->producer == fresh->producer);
  if (fresh->producer != NULL)
    g_assert_cmpuint (live->producer_output, ==, fresh->producer_output);
  g_assert_cmpuint (live->uses->len, ==, fresh->uses->len);
  a = g_array_copy (live->uses);
  b = g_array_copy (fresh->uses);
  g_array_sort (a, test_compare_uses);
  g_array_sort (b, test_compare_uses);
  for (guint i = 0; i < a->len; i++)
    {
      g_assert_true (g_array_index (a, OnyxUse, i).node == g_array_index (b, OnyxUse, i).node);
      g_assert_cmpuint (g_array_index (a, OnyxUse, i).input, ==, g_array_index (b, OnyxUse, i).input);
    }
}

static inline void
test_assert_index_fresh (OnyxGraphIndex *live, Onnx__GraphProto *graph)
{
  g_autoptr (OnyxGraphIndex) fresh = onyx_graph_index_new (graph);

  onyx_graph_index_foreach (fresh, test_check_value, live);
  g_assert_cmpuint (onyx_graph_index_get_n_values (live), ==, onyx_graph_index_get_n_values (fresh));
  for (size_t i = 0; i < graph->n_node; i++)
    g_assert_true (onyx_graph_index_has_node (live, graph->node[i]));
}

#define TEST_APPEND(array, count, item)                                              \
  G_STMT_START                                                                       \
  {                                                                                  \
    (array) = g_realloc ((array), sizeof *(array) * ((count) + 1));                  \
    (array)[(count)++] = (item);                                                     \
  }                                                                                  \
  G_STMT_END

static inline GBytes *
test_model_pack (Onnx__ModelProto *model)
{
  gsize len = protobuf_c_message_get_packed_size (&model->base);
  guint8 *data = g_malloc (MAX (len, 1));
  protobuf_c_message_pack (&model->base, data);
  return g_bytes_new_take (data, len);
}

/* Packs and frees the hand-built model, then loads it back through the core. */
static inline OnyxModel *
test_model_load (Onnx__ModelProto *model, GError **error)
{
  g_autoptr (GBytes) bytes = test_model_pack (model);
  protobuf_c_message_free_unpacked (&model->base, NULL);
  return onyx_model_new_from_data (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                   "test.onnx", NULL, error);
}

static inline GBytes *
test_read_file (const char *path)
{
  char *contents;
  gsize len;
  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  return g_bytes_new_take (contents, len);
}

static inline guint
test_count_dir_entries (const char *dir)
{
  GDir *handle = g_dir_open (dir, 0, NULL);
  guint n = 0;
  g_assert_nonnull (handle);
  while (g_dir_read_name (handle) != NULL)
    n++;
  g_dir_close (handle);
  return n;
}

/* The walkthrough's models in tests/data, which the tests run over. */
static const char *const test_walkthrough_models[] = {
  "model.onnx", "model_scripted.onnx", "model_foo.onnx",
};

static inline char *
test_data_path (const char *name)
{
  const char *dir = g_getenv ("ONYX_TEST_DATA");
  g_assert_nonnull (dir);
  return g_build_filename (dir, name, NULL);
}

/* A model of tests/data, loaded through the core. */
static inline OnyxModel *
test_load_data (const char *name)
{
  g_autofree char *path = test_data_path (name);
  g_autoptr (GError) error = NULL;
  OnyxModel *model = onyx_model_new_from_file (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (model);
  return model;
}

static inline OnyxDocument *
test_open_document (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = onyx_model_new_from_file (path, &error);

  g_assert_no_error (error);
  return onyx_document_new (model);
}

/* A document of a model of tests/data. */
static inline OnyxDocument *
test_open_data (const char *name)
{
  g_autofree char *path = test_data_path (name);
  return test_open_document (path);
}

static inline void
test_collect_models_below (const char *dir, GPtrArray *paths)
{
  GDir *handle = g_dir_open (dir, 0, NULL);
  const char *name;

  while (handle != NULL && (name = g_dir_read_name (handle)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        test_collect_models_below (path, paths);
      else if (g_str_equal (name, "model.onnx"))
        g_ptr_array_add (paths, g_steal_pointer (&path));
    }
  if (handle != NULL)
    g_dir_close (handle);
}

static inline int
test_compare_paths (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The model.onnx files of Debian's libonnx-testdata corpus ($ONYX_TESTDATA_DIR
 * overrides where), sorted so that every Nth of them is the same sample each run.
 * Empty when the corpus is not installed. */
static inline GPtrArray *
test_testdata_models (void)
{
  const char *dir = g_getenv ("ONYX_TESTDATA_DIR");
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);

  test_collect_models_below (dir != NULL ? dir : "/usr/share/libonnx-testdata/data", paths);
  g_ptr_array_sort (paths, test_compare_paths);
  return paths;
}

/* Every .onnx file of tests/data, then every `step`th model of the corpus that
 * loads: `check` runs on each, given its path and the model loaded from it. Returns
 * how many it ran on. */
typedef void (*TestModelCheck) (const char *path, OnyxModel *model, gpointer user_data);

static inline guint
test_on_data_and_corpus (guint step, TestModelCheck check, gpointer user_data)
{
  g_autofree char *data_dir = test_data_path ("");
  g_autoptr (GDir) dir = g_dir_open (data_dir, 0, NULL);
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) corpus = test_testdata_models ();
  const char *name;
  guint n_data, n = 0;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (name, ".onnx"))
      g_ptr_array_add (paths, g_build_filename (data_dir, name, NULL));
  n_data = paths->len;
  for (guint i = 0; i < corpus->len; i += step)
    g_ptr_array_add (paths, g_strdup (corpus->pdata[i]));
  for (guint i = 0; i < paths->len; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (OnyxModel) model = onyx_model_new_from_file (paths->pdata[i], &error);
      if (i < n_data)
        g_assert_no_error (error);
      if (model == NULL)
        continue;
      check (paths->pdata[i], model, user_data);
      n++;
    }
  /* Every test model, and nearly all of the corpus, loads. */
  g_assert_cmpuint (n_data, >=, 7);
  g_assert_cmpuint (n, >=, n_data + corpus->len / (2 * step));
  return n;
}

/* ---- random edits, as onyx-steps.h steps ---- */

/* Where a random edit draws its choices from: a number below `bound` (0 when bound is
 * 0). A GRand in the tests (test_pick_from_rand), the fuzzer's input in fuzz-edit. */
typedef guint (*TestPick) (gpointer source, guint bound);

static inline guint
test_pick_from_rand (gpointer rand, guint bound)
{
  return bound > 0 ? (guint) g_rand_int_range (rand, 0, (gint32) bound) : 0;
}

typedef enum {
  TEST_EDITS_ANY,          /* any step of onyx_steps_list (), on any node or tensor */
  /* delete, bypass, reconnect, set-attr or set-name of one node, reconnecting only to a
   * tensor defined before it, so that the graph stays sorted */
  TEST_EDITS_ON_ONE_NODE,
} TestEditMix;

typedef struct {
  const char *step;        /* a step of onyx-steps.h */
  char *argument;          /* NULL for the steps without one */
  Onnx__NodeProto *node;   /* the node it names, or NULL */
  gboolean may_dangle;     /* it may leave readers without input */
  gboolean may_unsort;     /* it may leave the nodes out of topological order */
  GError *error;           /* why the step was refused, or NULL */
  gboolean applied;        /* it changed the document: one more undo step */
} TestEdit;

static inline void
test_edit_clear (TestEdit *edit)
{
  g_clear_pointer (&edit->argument, g_free);
  g_clear_error (&edit->error);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (TestEdit, test_edit_clear)

/* Mostly a tensor a node reads or writes, now and then a graph input. */
static inline const char *
test_pick_tensor (Onnx__GraphProto *graph, TestPick pick, gpointer source)
{
  Onnx__NodeProto *node;

  if (graph->n_node == 0 || pick (source, 8) == 0)
    return graph->n_input > 0 ? graph->input[pick (source, (guint) graph->n_input)]->name : "none";
  node = graph->node[pick (source, (guint) graph->n_node)];
  if (node->n_input > 0 && pick (source, 2) == 0)
    return node->input[pick (source, (guint) node->n_input)];
  return node->n_output > 0 ? node->output[0] : "none";
}

/* A graph input or an output of a node before `position`; NULL when there is none. */
static inline const char *
test_pick_earlier_tensor (Onnx__GraphProto *graph, guint position, TestPick pick, gpointer source)
{
  guint n = (guint) graph->n_input + position;
  guint chosen;

  if (n == 0)
    return NULL;
  chosen = pick (source, n);
  if (chosen < graph->n_input)
    return graph->input[chosen]->name;
  chosen -= (guint) graph->n_input;
  return graph->node[chosen]->n_output > 0 ? graph->node[chosen]->output[0] : NULL;
}

static inline const char *
test_pick_graph_input (Onnx__GraphProto *graph, TestPick pick, gpointer source)
{
  return graph->n_input > 0 ? graph->input[pick (source, (guint) graph->n_input)]->name : "none";
}

/* An attribute assignment "#N.NAME=VALUE": a new attribute or the node's first one, set
 * to a value of any type, or to one that does not parse. */
static inline char *
test_pick_attribute (Onnx__NodeProto *node, guint position, TestPick pick, gpointer source,
                     guint serial)
{
  static const char *const names[] = { "onyx_test", "axis", "strides", "group" };
  static const char *const values[] = { "0.5", "text", "[1, 2]", "[1.5]", "[\"a\", \"b\"]", "[", "" };
  guint which_name = pick (source, G_N_ELEMENTS (names) + 1);
  guint which_value = pick (source, G_N_ELEMENTS (values) + 2);
  const char *name = which_name < G_N_ELEMENTS (names) ? names[which_name]
                     : node != NULL && node->n_attribute > 0 ? node->attribute[0]->name
                     : names[0];

  /* The serial makes each assignment change something; the tab must survive journals. */
  if (which_value == G_N_ELEMENTS (values))
    return g_strdup_printf ("#%u.%s=%u", position, name, serial);
  if (which_value > G_N_ELEMENTS (values))
    return g_strdup_printf ("#%u.%s=\"a\tb %u\"", position, name, serial);
  return g_strdup_printf ("#%u.%s=%s", position, name, values[which_value]);
}

/* The argument of `step` about node #position (which may be one past the end). Choices
 * are drawn one statement at a time: C leaves the order of arguments open. */
static inline char *
test_pick_argument (const char *step, Onnx__GraphProto *graph, guint position, TestEditMix mix,
                    TestPick pick, gpointer source, guint serial)
{
  Onnx__NodeProto *node = position < graph->n_node ? graph->node[position] : NULL;
  guint n_inputs = node != NULL ? (guint) node->n_input : 0;
  guint input_index = 0;
  const char *tensor;

  /* Any input of the node, and now and then one past its last. */
  if (mix == TEST_EDITS_ANY)
    input_index = pick (source, 4) == 0 ? n_inputs : pick (source, MAX (n_inputs, 1));

  if (onyx_step_find (step)->argument == NULL)
    return NULL;
  if (g_str_equal (step, "bypass"))
    return input_index == 0 ? g_strdup_printf ("#%u", position)
                            : g_strdup_printf ("#%u:%u", position, input_index);
  if (g_str_equal (step, "bypass-op"))
    {
      if (node == NULL || node->op_type == NULL || pick (source, 4) == 0)
        return g_strdup ("devtech::FooOp");
      if (node->domain == NULL || node->domain[0] == '\0')
        return g_strdup (node->op_type);
      return g_strdup_printf ("%s::%s", node->domain, node->op_type);
    }
  if (g_str_equal (step, "reconnect"))
    {
      /* Any tensor may make a cycle, which must be refused. */
      if (mix == TEST_EDITS_ANY && pick (source, 2) == 0)
        tensor = test_pick_tensor (graph, pick, source);
      else
        tensor = test_pick_earlier_tensor (graph, position, pick, source);
      return g_strdup_printf ("#%u:%u=%s", position, input_index, tensor != NULL ? tensor : "none");
    }
  if (g_str_equal (step, "rename"))
    {
      gboolean odd = pick (source, 2);
      tensor = test_pick_tensor (graph, pick, source);
      /* Names with tabs and newlines must survive journals too. */
      return g_strdup_printf ("%s=%s%u", tensor, odd ? "odd\tname\n" : "renamed_", serial);
    }
  if (g_str_equal (step, "add-output"))
    return g_strdup (test_pick_tensor (graph, pick, source));
  if (g_str_equal (step, "remove-output"))
    return g_strdup (graph->n_output > 0 ? graph->output[pick (source, (guint) graph->n_output)]->name
                                          : "none");
  if (g_str_equal (step, "remove-input"))
    return g_strdup (test_pick_graph_input (graph, pick, source));
  if (g_str_equal (step, "set-attr"))
    return test_pick_attribute (node, position, pick, source, serial);
  if (g_str_equal (step, "set-name"))
    return g_strdup_printf ("#%u=%s%u", position, pick (source, 2) ? "node_" : "#node ", serial);
  if (g_str_equal (step, "set-dim"))
    {
      static const char *const dims[] = { "batch", "2", "N", "?" };
      guint axis = pick (source, 5);
      const char *dim = dims[pick (source, G_N_ELEMENTS (dims))];
      return g_strdup_printf ("%s:%u=%s", test_pick_graph_input (graph, pick, source), axis, dim);
    }
  if (g_str_equal (step, "replace"))
    {
      /* Unknown operators and wrong input counts must be refused. */
      static const char *const ops[] = { "Identity", "Relu", "Add", "devtech::FooOp", "Nope" };
      return g_strdup_printf ("#%u=%s", position, ops[pick (source, G_N_ELEMENTS (ops))]);
    }
  if (g_str_equal (step, "insert"))
    {
      static const char *const ops[] = { "Identity", "Relu", "Add", "devtech::FooOp", "Nope" };
      const char *op = ops[pick (source, G_N_ELEMENTS (ops))];
      tensor = test_pick_tensor (graph, pick, source);
      /* Add reads the tensor twice. */
      return g_str_equal (op, "Add") ? g_strdup_printf ("%s=Add:%s", tensor, tensor)
                                     : g_strdup_printf ("%s=%s", tensor, op);
    }
  return g_strdup_printf ("#%u", position);
}

/* Draws one edit of the mix and applies it with onyx_step_apply; .applied says whether
 * it changed the document. Free with test_edit_clear (g_auto (TestEdit) does). */
static inline TestEdit
test_random_edit (OnyxDocument *doc, TestEditMix mix, TestPick pick, gpointer source, guint serial)
{
  static const char *const one_node_steps[] = {
    "delete", "bypass", "reconnect", "set-attr", "set-name",
  };
  static const char *const dangling_steps[] = { "delete", "delete-ancestors", "remove-input", NULL };
  Onnx__GraphProto *graph = onyx_document_get_proto (doc)->graph;
  const OnyxStepInfo *steps = onyx_steps_list ();
  guint n_steps = 0;
  guint n_undo = onyx_document_get_n_undo (doc);
  guint position;
  TestEdit edit = { NULL, NULL, NULL, FALSE, FALSE, NULL, FALSE };

  while (steps[n_steps].name != NULL)
    n_steps++;
  edit.step = mix == TEST_EDITS_ANY ? steps[pick (source, n_steps)].name
                                    : one_node_steps[pick (source, G_N_ELEMENTS (one_node_steps))];
  position = pick (source, MAX ((guint) graph->n_node, 1));
  /* Now and then a node past the end, which must be refused. */
  if (mix == TEST_EDITS_ANY && pick (source, 8) == 0)
    position = (guint) graph->n_node;
  edit.node = position < graph->n_node ? graph->node[position] : NULL;
  edit.argument = test_pick_argument (edit.step, graph, position, mix, pick, source, serial);
  edit.may_dangle = g_strv_contains (dangling_steps, edit.step);
  /* A node reading a later tensor that does not depend on it comes before its input. */
  edit.may_unsort = g_str_equal (edit.step, "reconnect");
  if (!onyx_step_apply (doc, edit.step, edit.argument, &edit.error))
    {
      /* A refused step says why. */
      g_assert_nonnull (edit.error);
    }
  edit.applied = edit.error == NULL && onyx_document_get_n_undo (doc) > n_undo;
  return edit;
}

/* A check of a model under a random sequence of edits; returns how many of the edits
 * applied, which is how many it checked. */
typedef guint (*TestEditCheck) (const char *path, guint32 seed, guint n_edits);

/* The check on each walkthrough model with seeds 1 to 20; returns how many edits
 * applied in all. Every model must take some of them. */
static inline guint
test_on_walkthrough_seeds (TestEditCheck check, guint n_edits)
{
  guint n_applied = 0;

  for (guint i = 0; i < G_N_ELEMENTS (test_walkthrough_models); i++)
    {
      const char *name = test_walkthrough_models[i];
      guint n_applied_here = 0;
      for (guint32 seed = 1; seed <= 20; seed++)
        {
          g_autofree char *path = test_data_path (name);
          n_applied_here += check (path, seed, n_edits);
        }
      g_test_message ("%s: %u of %u random edits applied", name, n_applied_here, 20 * n_edits);
      g_assert_cmpuint (n_applied_here, >, 0);
      n_applied += n_applied_here;
    }
  return n_applied;
}

/* The check on every `step`th libonnx-testdata model (Loop, If and Scan ones where
 * they fall); returns on how many of them it checked edits (some edits applied). */
static inline guint
test_on_testdata_sample (TestEditCheck check, guint step, guint n_edits)
{
  g_autoptr (GPtrArray) paths = test_testdata_models ();
  guint n_checked = 0;
  guint n_sampled = 0;

  g_assert_cmpuint (paths->len, >, 100);
  for (guint i = 0; i < paths->len; i += step, n_sampled++)
    n_checked += check (paths->pdata[i], i, n_edits) > 0;
  g_test_message ("edits applied on %u of %u sampled models", n_checked, n_sampled);
  return n_checked;
}
