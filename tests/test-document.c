/* test-document.c: what each step of an OnyxDocument says it touched (OnyxChange):
 * the nodes of a node edit, the same for its undo and redo; the whole model for edits
 * of graph lists, order and opsets; the main-graph node holding an edited subgraph;
 * nothing at all for a save or a refused edit. */
#include <glib/gstdio.h>

#include "onyx-document-private.h"
#include "onyx-edits.h"
#include "onyx-steps.h"
#include "onyx-test-util.h"

typedef struct {
  guint n_signals;
  gboolean saved;          /* the last signal had no change */
  gboolean whole_model;
  GPtrArray *nodes;        /* a copy of the last change's nodes */
  Onnx__GraphProto *graph;
} Seen;

static void
changed_cb (OnyxDocument *doc, const OnyxChange *change, Seen *seen)
{
  seen->n_signals++;
  seen->saved = change == NULL;
  g_clear_pointer (&seen->nodes, g_ptr_array_unref);
  if (change == NULL)
    return;
  seen->whole_model = change->whole_model;
  seen->graph = change->graph;
  seen->nodes = g_ptr_array_copy (change->nodes, NULL, NULL);
}

static void
watch (OnyxDocument *doc, Seen *seen)
{
  memset (seen, 0, sizeof *seen);
  g_signal_connect (doc, "changed", G_CALLBACK (changed_cb), seen);
}

static void
unwatch (OnyxDocument *doc, Seen *seen)
{
  g_signal_handlers_disconnect_by_data (doc, seen);
  g_clear_pointer (&seen->nodes, g_ptr_array_unref);
}

static Onnx__NodeProto *
node (OnyxDocument *doc, const char *name)
{
  Onnx__NodeProto *found = onyx_graph_index_node_by_name (onyx_document_get_index (doc), name);
  g_assert_nonnull (found);
  return found;
}

/* One signal since the last look, touching exactly `expected` (NULL-terminated). */
static void
assert_nodes (OnyxDocument *doc, Seen *seen, guint n_signals, ...)
{
  va_list args;
  guint n = 0;

  g_assert_cmpuint (seen->n_signals, ==, n_signals);
  g_assert_false (seen->saved);
  g_assert_false (seen->whole_model);
  g_assert_true (seen->graph == onyx_document_get_proto (doc)->graph);
  va_start (args, n_signals);
  for (Onnx__NodeProto *expected = va_arg (args, Onnx__NodeProto *); expected != NULL;
       expected = va_arg (args, Onnx__NodeProto *), n++)
    g_assert_true (g_ptr_array_find (seen->nodes, expected, NULL));
  va_end (args);
  g_assert_cmpuint (seen->nodes->len, ==, n);
}

static void
assert_whole (Seen *seen, guint n_signals)
{
  g_assert_cmpuint (seen->n_signals, ==, n_signals);
  g_assert_false (seen->saved);
  g_assert_true (seen->whole_model);
}

/* Node edits name their nodes, for do, undo and redo alike. */
static void
test_node_edits (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("model_foo.onnx");
  g_autoptr (GError) error = NULL;
  Onnx__NodeProto *foo = node (doc, "/FooOp");
  Onnx__NodeProto *producer = NULL, *consumer = NULL;
  Onnx__GraphProto *graph = onyx_document_get_proto (doc)->graph;
  Seen seen;

  watch (doc, &seen);
  g_assert_true (onyx_edit_set_attribute (doc, foo, "onyx_test", "3", &error));
  assert_nodes (doc, &seen, 1, foo, NULL);
  g_assert_true (onyx_document_undo (doc));
  assert_nodes (doc, &seen, 2, foo, NULL);
  g_assert_true (onyx_document_redo (doc));
  assert_nodes (doc, &seen, 3, foo, NULL);

  /* Bypass: FooOp goes, and the node writing its input now writes its output (the
   * graph output's name stays) or its readers read the input. */
  for (size_t i = 0; i < graph->n_node; i++)
    {
      if (graph->node[i] == foo)
        continue;
      for (size_t k = 0; k < graph->node[i]->n_output; k++)
        if (g_strcmp0 (graph->node[i]->output[k], foo->input[0]) == 0)
          producer = graph->node[i];
      for (size_t k = 0; k < graph->node[i]->n_input; k++)
        if (g_strcmp0 (graph->node[i]->input[k], foo->output[0]) == 0)
          consumer = graph->node[i];
    }
  g_assert_nonnull (producer);
  g_assert_true (onyx_edit_bypass_node (doc, foo, 0, &error));
  g_assert_cmpuint (seen.n_signals, ==, 4);
  g_assert_false (seen.whole_model);
  g_assert_true (g_ptr_array_find (seen.nodes, foo, NULL));
  g_assert_true (g_ptr_array_find (seen.nodes, producer, NULL) ||
                 (consumer != NULL && g_ptr_array_find (seen.nodes, consumer, NULL)));
  g_assert_true (onyx_document_undo (doc));
  g_assert_cmpuint (seen.n_signals, ==, 5);
  g_assert_true (g_ptr_array_find (seen.nodes, foo, NULL));

  g_assert_true (onyx_edit_delete_node (doc, foo, &error));
  assert_nodes (doc, &seen, 6, foo, NULL);
  g_assert_true (onyx_document_undo (doc));
  assert_nodes (doc, &seen, 7, foo, NULL);
  g_assert_true (onyx_edit_set_node_name (doc, foo, "renamed", &error));
  assert_nodes (doc, &seen, 8, foo, NULL);
  unwatch (doc, &seen);
}

/* An input slot added (an optional input given) is a node edit; undo takes the slot
 * away and the use with it, redo gives both back. */
static void
test_add_node_input (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("model_foo.onnx");
  OnyxGraphIndex *index = onyx_document_get_index (doc);
  Onnx__NodeProto *foo = node (doc, "/FooOp");
  Onnx__GraphProto *graph = onyx_document_get_proto (doc)->graph;
  g_autofree char *extra = g_strdup (graph->input[0]->name);
  size_t n_input = foo->n_input;
  guint n_uses = onyx_graph_index_n_uses (index, extra);
  Seen seen;

  watch (doc, &seen);
  onyx_document_begin_command (doc, "add input");
  onyx_document_set_node_input (doc, foo, (guint) n_input, extra);
  onyx_document_commit_command (doc);
  assert_nodes (doc, &seen, 1, foo, NULL);
  g_assert_cmpuint (foo->n_input, ==, n_input + 1);
  g_assert_cmpstr (foo->input[n_input], ==, extra);
  g_assert_cmpuint (onyx_graph_index_n_uses (index, extra), ==, n_uses + 1);

  g_assert_true (onyx_document_undo (doc));
  assert_nodes (doc, &seen, 2, foo, NULL);
  g_assert_cmpuint (foo->n_input, ==, n_input);
  g_assert_cmpuint (onyx_graph_index_n_uses (index, extra), ==, n_uses);

  g_assert_true (onyx_document_redo (doc));
  assert_nodes (doc, &seen, 3, foo, NULL);
  g_assert_cmpuint (foo->n_input, ==, n_input + 1);
  g_assert_cmpstr (foo->input[n_input], ==, extra);
  g_assert_cmpuint (onyx_graph_index_n_uses (index, extra), ==, n_uses + 1);
  unwatch (doc, &seen);
}

/* Graph lists, order and opsets change the whole model. */
static void
test_whole_model_edits (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("model.onnx");
  g_autoptr (GError) error = NULL;
  Onnx__GraphProto *graph = onyx_document_get_proto (doc)->graph;
  g_autofree char *input = g_strdup (graph->input[0]->name);
  g_autofree char *inner = g_strdup (graph->node[0]->output[0]);
  Seen seen;

  watch (doc, &seen);
  g_assert_true (onyx_edit_add_output (doc, inner, &error));
  assert_whole (&seen, 1);
  g_assert_true (onyx_document_undo (doc));
  assert_whole (&seen, 2);
  g_assert_true (onyx_edit_rename_tensor (doc, input, "renamed_input", &error));
  assert_whole (&seen, 3);
  g_assert_true (onyx_edit_set_input_dim (doc, "renamed_input", 0, "batch", &error));
  assert_whole (&seen, 4);
  g_assert_true (onyx_edit_delete_descendants (doc, graph->node[graph->n_node - 1], &error));
  assert_whole (&seen, 5);
  g_assert_true (onyx_edit_cleanup (doc, &error));
  assert_whole (&seen, 6);
  unwatch (doc, &seen);
}

/* A tensor renamed where only nodes read it is a node edit. */
static void
test_rename_inner_tensor (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("model.onnx");
  g_autoptr (GError) error = NULL;
  Onnx__GraphProto *graph = onyx_document_get_proto (doc)->graph;
  Onnx__NodeProto *first = graph->node[0];
  g_autofree char *inner = g_strdup (first->output[0]);
  g_autoptr (GPtrArray) readers = g_ptr_array_new ();
  gboolean in_value_info = FALSE;
  Seen seen;

  for (size_t i = 0; i < graph->n_value_info; i++)
    in_value_info |= g_strcmp0 (graph->value_info[i]->name, inner) == 0;
  for (size_t i = 0; i < graph->n_node; i++)
    for (size_t k = 0; k < graph->node[i]->n_input; k++)
      if (g_strcmp0 (graph->node[i]->input[k], inner) == 0)
        g_ptr_array_add (readers, graph->node[i]);
  g_assert_cmpuint (readers->len, >, 0);
  watch (doc, &seen);
  g_assert_true (onyx_edit_rename_tensor (doc, inner, "inner_renamed", &error));
  g_assert_cmpuint (seen.n_signals, ==, 1);
  /* value_info carries the name too, which is a graph list. */
  g_assert_cmpint (seen.whole_model, ==, in_value_info);
  g_assert_true (g_ptr_array_find (seen.nodes, first, NULL));
  for (guint i = 0; i < readers->len; i++)
    g_assert_true (g_ptr_array_find (seen.nodes, readers->pdata[i], NULL));
  unwatch (doc, &seen);
}

/* x → A (Identity) → a; If (cond) whose branches read `a` from outside → out. */
static Onnx__AttributeProto *
branch (const char *attribute, const char *output)
{
  Onnx__AttributeProto *attr = g_new0 (Onnx__AttributeProto, 1);
  Onnx__GraphProto *body = g_new0 (Onnx__GraphProto, 1);
  const int64_t dims[] = { 4 };

  onnx__attribute_proto__init (attr);
  onnx__graph_proto__init (body);
  attr->name = g_strdup (attribute);
  attr->has_type = TRUE;
  attr->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
  attr->g = body;
  body->name = g_strdup (attribute);
  TEST_APPEND (body->node, body->n_node, test_node ("Identity", output, "a", NULL, output, NULL));
  TEST_APPEND (body->output, body->n_output, test_value_info (output, 1, dims));
  return attr;
}

static OnyxDocument *
open_if_model (void)
{
  Onnx__ModelProto *proto = test_model_new ();
  Onnx__GraphProto *graph = proto->graph;
  const int64_t dims[] = { 4 };
  Onnx__ValueInfoProto *cond = test_value_info ("cond", 0, dims);
  Onnx__NodeProto *if_node = test_node ("If", "If_0", "cond", NULL, "out", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = NULL;

  cond->type->tensor_type->elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__BOOL;
  TEST_APPEND (graph->input, graph->n_input, test_value_info ("x", 1, dims));
  TEST_APPEND (graph->input, graph->n_input, cond);
  TEST_APPEND (graph->output, graph->n_output, test_value_info ("out", 1, dims));
  TEST_APPEND (graph->node, graph->n_node, test_node ("Identity", "A", "x", NULL, "a", NULL));
  TEST_APPEND (if_node->attribute, if_node->n_attribute, branch ("then_branch", "t"));
  TEST_APPEND (if_node->attribute, if_node->n_attribute, branch ("else_branch", "e"));
  TEST_APPEND (graph->node, graph->n_node, if_node);
  model = test_model_load (proto, &error);
  g_assert_no_error (error);
  return onyx_document_new (model);
}

/* Bypassing A rewires the branches' reads: told as the If node, not the whole model. */
static void
test_subgraph_reads (void)
{
  g_autoptr (OnyxDocument) doc = open_if_model ();
  g_autoptr (GError) error = NULL;
  Onnx__NodeProto *a = node (doc, "A");
  Onnx__NodeProto *if_node = node (doc, "If_0");
  Seen seen;

  watch (doc, &seen);
  g_assert_true (onyx_edit_bypass_node (doc, a, 0, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (if_node->attribute[0]->g->node[0]->input[0], ==, "x");
  assert_nodes (doc, &seen, 1, a, if_node, NULL);
  g_assert_true (onyx_document_undo (doc));
  assert_nodes (doc, &seen, 2, a, if_node, NULL);
  /* Cleanup walks subgraphs without the index: the whole model. */
  g_assert_true (onyx_edit_cleanup (doc, &error));
  g_assert_cmpuint (seen.n_signals, ==, 2);  /* nothing to clean up: no step */
  unwatch (doc, &seen);
}

/* Saving says only that the modified state changed; a refused edit says nothing;
 * a group of steps is one change with all their nodes. */
static void
test_save_refusal_group (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("model.onnx");
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("onyx-test-document-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "saved.onnx", NULL);
  Onnx__GraphProto *graph = onyx_document_get_proto (doc)->graph;
  Onnx__NodeProto *first = graph->node[0], *second = graph->node[1];
  Seen seen;

  watch (doc, &seen);
  g_assert_false (onyx_edit_reconnect (doc, first, 0, "no_such_tensor", &error));
  g_assert_nonnull (error);
  g_assert_cmpuint (seen.n_signals, ==, 0);

  onyx_document_begin_group (doc, "two edits");
  g_assert_true (onyx_edit_set_node_name (doc, first, "one", NULL));
  g_assert_true (onyx_edit_set_node_name (doc, second, "two", NULL));
  g_assert_cmpuint (seen.n_signals, ==, 0);
  onyx_document_end_group (doc);
  assert_nodes (doc, &seen, 1, first, second, NULL);

  g_assert_true (onyx_document_save (doc, path, NULL));
  g_assert_cmpuint (seen.n_signals, ==, 2);
  g_assert_true (seen.saved);
  unwatch (doc, &seen);
  g_unlink (path);
  g_rmdir (dir);
}

/* *error: the save's error, or G_IO_ERROR_EXISTS standing for "saved". */
static void
saved_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  GError **error = data;

  if (onyx_document_save_finish (ONYX_DOCUMENT (source), result, error))
    *error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_EXISTS, "saved");
  else
    g_assert_nonnull (*error);
}

typedef struct {
  guint calls;
  guint64 done, total;
  gboolean after_callback;
  GError **saved;
} Progress;

static void
progress_cb (guint64 done, guint64 total, gpointer data)
{
  Progress *progress = data;

  g_assert_true (g_main_context_is_owner (g_main_context_default ()));
  g_assert_cmpuint (done, >, progress->done);
  progress->calls++;
  progress->done = done;
  progress->total = total;
  progress->after_callback |= *progress->saved != NULL;
}

/* Saved into another folder, a model with external data says how much of it is
 * copied, on the caller's thread and before the save's callback, up to all of it. */
static void
test_save_async_progress (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("model.onnx");
  g_autoptr (OnyxModel) external = NULL;
  g_autoptr (OnyxDocument) doc = NULL;
  g_autoptr (GError) error = NULL, done = NULL;
  g_autofree char *root = g_dir_make_tmp ("onyx-test-document-XXXXXX", NULL);
  g_autofree char *here = g_build_filename (root, "here", NULL);
  g_autofree char *there = g_build_filename (root, "there", NULL);
  g_autofree char *path = g_build_filename (here, "big.onnx", NULL);
  g_autofree char *data = g_build_filename (here, "big.onnx.data", NULL);
  g_autofree char *moved = g_build_filename (there, "big.onnx", NULL);
  g_autofree char *moved_data = g_build_filename (there, "big.onnx.data", NULL);
  Progress progress = { .saved = &done };
  GStatBuf st;

  /* A lowered limit puts model.onnx's weights in big.onnx.data. */
  g_assert_cmpint (g_mkdir (here, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (there, 0755), ==, 0);
  onyx_model_set_proto_limit (1024);
  g_assert_true (onyx_model_save (model, path, &error));
  onyx_model_set_proto_limit (0);
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (data, &st), ==, 0);
  external = onyx_model_new_from_file (path, &error);
  g_assert_no_error (error);
  doc = onyx_document_new (external);
  onyx_document_save_async (doc, moved, progress_cb, &progress, saved_cb, &done);
  while (done == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (done, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_assert_cmpuint (progress.calls, >=, 1);
  g_assert_false (progress.after_callback);
  g_assert_cmpuint (progress.total, ==, (guint64) st.st_size);
  g_assert_cmpuint (progress.done, ==, progress.total);
  g_assert_true (g_file_test (moved_data, G_FILE_TEST_IS_REGULAR));
  g_unlink (moved_data);
  g_unlink (moved);
  g_unlink (data);
  g_unlink (path);
  g_rmdir (there);
  g_rmdir (here);
  g_rmdir (root);
}

/* A save in a thread writes what the plain save writes (dead value_info left out),
 * keeps the document frozen meanwhile, and marks it saved when finished. */
static void
test_save_async (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("model.onnx");
  g_autoptr (GError) error = NULL, done = NULL;
  g_autofree char *dir = g_dir_make_tmp ("onyx-test-document-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "async.onnx", NULL);
  g_autofree char *written = NULL;
  g_autoptr (GBytes) expected = NULL;
  gsize len;
  Onnx__GraphProto *graph = onyx_document_get_proto (doc)->graph;
  guint n_value_info = graph->n_value_info;

  g_assert_true (onyx_edit_set_node_name (doc, graph->node[0], "renamed", &error));
  g_assert_true (onyx_document_is_modified (doc));
  expected = onyx_document_serialize (doc);
  onyx_document_save_async (doc, path, NULL, NULL, saved_cb, &done);
  g_assert_true (onyx_document_is_frozen (doc));
  while (done == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (done, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_assert_false (onyx_document_is_frozen (doc));
  g_assert_false (onyx_document_is_modified (doc));
  g_assert_cmpuint (graph->n_value_info, ==, n_value_info);
  g_assert_true (g_file_get_contents (path, &written, &len, NULL));
  g_assert_cmpmem (written, len, g_bytes_get_data (expected, NULL), g_bytes_get_size (expected));
  /* Editable again. */
  g_assert_true (onyx_document_undo (doc));
  g_assert_true (onyx_document_is_modified (doc));

  /* A file that cannot be written: the error, nothing marked, editable. */
  g_clear_error (&done);
  onyx_document_save_async (doc, "/nonexistent-folder/x.onnx", NULL, NULL, saved_cb, &done);
  while (done == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (g_error_matches (done, G_IO_ERROR, G_IO_ERROR_EXISTS));
  g_assert_true (onyx_document_is_modified (doc));
  g_assert_false (onyx_document_is_frozen (doc));
  g_unlink (path);
  g_rmdir (dir);
}

static void
count_notify (GObject *object, GParamSpec *pspec, GHashTable *counts)
{
  const char *name = g_param_spec_get_name (pspec);

  g_hash_table_insert (counts, (gpointer) name,
                       GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (counts, name)) + 1));
}

static guint
notified (GHashTable *counts, const char *name)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (counts, name));
}

/* The document says what moved through properties, and "changed" carries a typed
 * OnyxChange: a step, its undo, a save and a thread's freeze each notify what they
 * change, and the properties read what the accessors say. */
static void
test_properties_and_typed_change (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("model.onnx");
  g_autoptr (GHashTable) counts = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GError) error = NULL;
  g_autofree char *undo_label = NULL;
  GSignalQuery query;
  gboolean can_undo, modified, frozen;
  guint64 revision;

  g_signal_query (g_signal_lookup ("changed", ONYX_TYPE_DOCUMENT), &query);
  g_assert_cmpuint (query.n_params, ==, 1);
  g_assert_true ((query.param_types[0] & ~G_SIGNAL_TYPE_STATIC_SCOPE) == ONYX_TYPE_CHANGE);
  g_assert_true (G_TYPE_IS_BOXED (ONYX_TYPE_CHANGE));

  g_signal_connect (doc, "notify", G_CALLBACK (count_notify), counts);
  g_object_get (doc, "can-undo", &can_undo, "modified", &modified, "revision", &revision, NULL);
  g_assert_false (can_undo);
  g_assert_false (modified);

  g_assert_true (onyx_step_apply (doc, "set-name", "#1=first_relu", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (notified (counts, "can-undo"), ==, 1);
  g_assert_cmpuint (notified (counts, "undo-label"), ==, 1);
  g_assert_cmpuint (notified (counts, "modified"), ==, 1);
  g_assert_cmpuint (notified (counts, "revision"), ==, 1);
  g_object_get (doc, "can-undo", &can_undo, "modified", &modified, "undo-label", &undo_label, NULL);
  g_assert_true (can_undo);
  g_assert_true (modified);
  g_assert_cmpstr (undo_label, ==, onyx_document_get_undo_label (doc));
  g_object_get (doc, "revision", &revision, NULL);
  g_assert_cmpuint (revision, ==, onyx_document_get_revision (doc));

  g_assert_true (onyx_document_undo (doc));
  g_assert_cmpuint (notified (counts, "can-redo"), ==, 2);
  g_object_get (doc, "modified", &modified, NULL);
  g_assert_false (modified);

  /* Only the first freeze and the last thaw move "frozen". */
  onyx_document_freeze (doc);
  onyx_document_freeze (doc);
  g_object_get (doc, "frozen", &frozen, NULL);
  g_assert_true (frozen);
  onyx_document_thaw (doc);
  g_assert_cmpuint (notified (counts, "frozen"), ==, 1);
  onyx_document_thaw (doc);
  g_assert_cmpuint (notified (counts, "frozen"), ==, 2);
  g_object_get (doc, "frozen", &frozen, NULL);
  g_assert_false (frozen);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/document/change/node-edits", test_node_edits);
  g_test_add_func ("/document/change/add-node-input", test_add_node_input);
  g_test_add_func ("/document/properties", test_properties_and_typed_change);
  g_test_add_func ("/document/change/whole-model", test_whole_model_edits);
  g_test_add_func ("/document/change/rename-inner-tensor", test_rename_inner_tensor);
  g_test_add_func ("/document/change/subgraph-reads", test_subgraph_reads);
  g_test_add_func ("/document/change/save-refusal-group", test_save_refusal_group);
  g_test_add_func ("/document/save-async", test_save_async);
  g_test_add_func ("/document/save-async-progress", test_save_async_progress);
  return g_test_run ();
}
