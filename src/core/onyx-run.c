/* onyx-run.c: the caller's side of running a model (onyx-run.h): the inputs, the
 * copy of the model that captures every tensor, the job for the helper, and what
 * the comparison means for the graph. ONNX Runtime itself is in the helper
 * (src/helper/onyx-ort.c). */
#include "onyx-run.h"

#include <glib/gi18n-lib.h>

#include <math.h>
#include <string.h>

#include "onyx-diff.h"
#include "onyx-error.h"
#include "onyx-extract.h"
#include "onyx-onnx.h"
#include "onyx-run-private.h"
#include "onyx-tensor-values.h"
#include "onyx-types.h"

gboolean
onyx_run_available (const char **reason)
{
#ifdef ONYX_HAVE_ONNXRUNTIME
  if (reason != NULL)
    *reason = NULL;
  return TRUE;
#else
  if (reason != NULL)
    *reason = _("this Onyx was built without ONNX Runtime (see the README, \"Running models\")");
  return FALSE;
#endif
}

/* ---- Inputs ---- */

static const Onnx__TypeProto__Tensor *
tensor_type (const Onnx__ValueInfoProto *info)
{
  return info->type != NULL && info->type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE
           ? info->type->tensor_type : NULL;
}

static void
store_element (guint8 *at, int elem_type, double value)
{
  switch (elem_type)
    {
#define WRITE(ctype) do { ctype v = (ctype) value; memcpy (at, &v, sizeof v); } while (0)
    case 1: WRITE (float); break;
    case 11: WRITE (double); break;
    case 2: WRITE (guint8); break;
    case 3: WRITE (gint8); break;
    case 4: WRITE (guint16); break;
    case 5: WRITE (gint16); break;
    case 6: WRITE (gint32); break;
    case 7: WRITE (gint64); break;
    case 12: WRITE (guint32); break;
    case 13: WRITE (guint64); break;
#undef WRITE
    case 9: *at = value != 0; break;
    case 10:
      {
        guint16 half = onyx_double_to_half (value);
        memcpy (at, &half, 2);
        break;
      }
    default: break;
    }
}

static gboolean
is_floating (int elem_type)
{
  return elem_type == 1 || elem_type == 10 || elem_type == 11;
}

/* Whether the dim is fixed in the model, or given by name or as INPUT:AXIS in `dims`
 * (its size in *size then). */
static gboolean
dim_known (const Onnx__ValueInfoProto *info, gsize axis, GHashTable *dims, gint64 *size)
{
  const Onnx__TensorShapeProto__Dimension *dim = onyx_run_input_shape (info)->dim[axis];
  g_autofree char *by_axis = g_strdup_printf ("%s:%zu", info->name, axis);
  gpointer chosen = NULL;

  if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && dim->dim_value >= 0)
    *size = dim->dim_value;
  else if (g_hash_table_lookup_extended (dims, by_axis, NULL, &chosen) ||
           (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
            g_hash_table_lookup_extended (dims, dim->dim_param, NULL, &chosen)))
    *size = GPOINTER_TO_INT (chosen);
  else
    return FALSE;
  return TRUE;
}

/* A picture: 4-D floats that are no token ids, mask or cache. */
static gboolean
is_image (const Onnx__ValueInfoProto *info, const OnyxInputPlan *plan)
{
  const Onnx__TypeProto__Tensor *type = tensor_type (info);

  return type != NULL && type->shape != NULL && type->shape->n_dim == 4 && is_floating (type->elem_type) &&
         (plan == NULL || plan->role == ONYX_INPUT_PLAIN);
}

GPtrArray *
onyx_run_image_dims (OnyxModel *model)
{
  g_autoptr (GPtrArray) inputs = onyx_run_runtime_inputs (onyx_model_get_proto (model)->graph);
  g_autoptr (GPtrArray) plans = onyx_run_plan_inputs (model);
  GPtrArray *keys = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < inputs->len; i++)
    {
      const Onnx__ValueInfoProto *info = inputs->pdata[i];
      if (!is_image (info, onyx_run_plan_find (plans, info->name)))
        continue;
      for (gsize axis = 2; axis < 4; axis++)
        {
          const Onnx__TensorShapeProto__Dimension *dim = onyx_run_input_shape (info)->dim[axis];
          g_autofree char *key = NULL;
          gboolean seen = FALSE;
          if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && dim->dim_value >= 0)
            continue;
          key = dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && dim->dim_param[0] != '\0'
                  ? g_strdup (dim->dim_param) : g_strdup_printf ("%s:%zu", info->name, axis);
          for (guint k = 0; k < keys->len && !seen; k++)
            seen = g_str_equal (keys->pdata[k], key);
          if (!seen)
            g_ptr_array_add (keys, g_steal_pointer (&key));
        }
    }
  return keys;
}

/* A value for element `i` of an input as its plan wants it (random fill only: zeros
 * and ones are what they say). */
static double
planned_value (const OnyxInputPlan *plan, const OnyxRunInputs *how, GRand *random, guint64 i,
               gint64 last_dim, int past, gboolean floating)
{
  double value;

  if (how->fill == ONYX_RUN_FILL_ZEROS || how->fill == ONYX_RUN_FILL_ONES)
    return how->fill == ONYX_RUN_FILL_ONES ? 1 : 0;
  switch (plan != NULL ? plan->role : ONYX_INPUT_PLAIN)
    {
    case ONYX_INPUT_TOKEN_IDS:
      return g_rand_int_range (random, 0, (gint32) MIN (plan->vocabulary, G_MAXINT32));
    case ONYX_INPUT_MASK:
      return 1;
    case ONYX_INPUT_POSITIONS:
      return past + (double) (i % (guint64) MAX (last_dim, 1));
    case ONYX_INPUT_INDEX:
      return g_rand_int_range (random, 0, 4);
    default:
      value = g_rand_double_range (random, how->low, how->high);
      return floating ? value : floor (value);
    }
}

static OnyxArray *
make_input (const Onnx__ValueInfoProto *info, const OnyxRunInputs *how, GHashTable *dims_chosen,
            const OnyxInputPlan *plan, int past, GRand *random, GError **error)
{
  const Onnx__TypeProto__Tensor *type = tensor_type (info);
  const Onnx__TensorShapeProto *shape = type != NULL ? type->shape : NULL;
  gsize size = type != NULL ? onyx_array_element_size (type->elem_type) : 0;
  g_autofree gint64 *dims = NULL;
  gsize n_dims = shape != NULL ? shape->n_dim : 0;
  g_autoptr (GBytes) bytes = NULL;
  guint64 count = 1;
  guint8 *data;

  if (type == NULL)
    {
      g_autofree char *kind = onyx_type_to_string (info->type);
      g_set_error (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_INPUT,
                   _("input '%s' is %s, not a tensor: Onyx runs models whose inputs are tensors"), info->name, kind);
      return NULL;
    }
  if (size == 0)
    {
      g_set_error (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_INPUT,
                   _("input '%s' is %s, which Onyx cannot make or read values for"), info->name,
                   onyx_elem_type_name (type->elem_type));
      return NULL;
    }
  dims = g_new0 (gint64, MAX (n_dims, 1));
  /* An image whose height and width are free: a 1×1 picture means nothing. */
  if (is_image (info, plan) &&
      (!dim_known (info, 2, dims_chosen, &dims[2]) || !dim_known (info, 3, dims_chosen, &dims[3])))
    {
      g_set_error (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_IMAGE_SIZE,
                   _("input '%s' looks like an image whose height and width are not fixed: give them "
                     "(Run Settings, or --dim %s:2=HEIGHT --dim %s:3=WIDTH)"),
                   info->name, info->name, info->name);
      return NULL;
    }
  for (gsize i = 0; i < n_dims; i++)
    {
      if (!dim_known (info, i, dims_chosen, &dims[i]))
        dims[i] = 1;
      if (dims[i] > 0 && count > (G_MAXSIZE / size) / (guint64) dims[i])
        {
          g_set_error (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_INPUT, _("input '%s' would be too large to make"),
                       info->name);
          return NULL;
        }
      count *= (guint64) dims[i];
    }
  data = g_malloc0 (MAX (count * size, 1));
  for (guint64 i = 0; i < count; i++)
    store_element (data + i * size, type->elem_type,
                   planned_value (plan, how, random, i, n_dims > 0 ? dims[n_dims - 1] : 1, past,
                                  is_floating (type->elem_type)));
  bytes = g_bytes_new_take (data, count * size);
  return onyx_array_new (info->name, type->elem_type, dims, n_dims, bytes);
}

/* Every name of how->dims is a symbolic dim of the inputs or INPUT:AXIS of one;
 * else an error listing the names there are. */
static gboolean
check_dim_names (OnyxModel *model, GPtrArray *inputs, GHashTable *dims, GError **error)
{
  g_autoptr (GPtrArray) params = onyx_run_input_dim_params (onyx_model_get_proto (model)->graph);
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, dims);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      const char *name = key, *colon = strrchr (name, ':');
      gboolean known = FALSE;
      g_autoptr (GString) listed = g_string_new (NULL);

      for (guint i = 0; i < params->len && !known; i++)
        known = g_strcmp0 (params->pdata[i], name) == 0;
      for (guint i = 0; i < inputs->len && !known && colon != NULL; i++)
        {
          const Onnx__ValueInfoProto *info = inputs->pdata[i];
          const Onnx__TensorShapeProto *shape = onyx_run_input_shape (info);
          char *end;
          guint64 axis = g_ascii_strtoull (colon + 1, &end, 10);
          known = shape != NULL && *end == '\0' && end != colon + 1 && axis < shape->n_dim &&
                  strlen (info->name) == (gsize) (colon - name) && strncmp (info->name, name, colon - name) == 0;
        }
      if (known)
        continue;
      for (guint i = 0; i < params->len; i++)
        g_string_append_printf (listed, "%s%s", i > 0 ? ", " : "", (char *) params->pdata[i]);
      g_set_error (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_INPUT,
                   _("'%s' is no dimension of the inputs of %s (named ones: %s; any one as INPUT:AXIS)"), name,
                   onyx_model_get_display_name (model), params->len > 0 ? listed->str : _("none"));
      return FALSE;
    }
  return TRUE;
}

/* A given array fits the input when its element type is the input's and its dims
 * are the input's fixed ones (symbolic dims take any size). */
static gboolean
check_given (const Onnx__ValueInfoProto *info, const OnyxArray *array, GError **error)
{
  const Onnx__TypeProto__Tensor *type = tensor_type (info);
  const Onnx__TensorShapeProto *shape = type != NULL ? type->shape : NULL;

  if (type != NULL && type->elem_type != 0 && type->elem_type != array->elem_type)
    {
      g_set_error (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_INPUT,
                   _("input '%s' takes %s, but its array holds %s"), info->name,
                   onyx_elem_type_name (type->elem_type), onyx_elem_type_name (array->elem_type));
      return FALSE;
    }
  if (shape == NULL)
    return TRUE;
  if (shape->n_dim != array->n_dims)
    {
      g_set_error (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_INPUT,
                   g_dngettext (GETTEXT_PACKAGE, "input '%s' has %zu dimension, but its array has %zu",
                                "input '%s' has %zu dimensions, but its array has %zu", shape->n_dim),
                   info->name, shape->n_dim, array->n_dims);
      return FALSE;
    }
  for (gsize i = 0; i < shape->n_dim; i++)
    if (shape->dim[i]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
        shape->dim[i]->dim_value != array->dims[i])
      {
        g_set_error (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_INPUT,
                     _("input '%s' has %lld in dimension %zu, but its array has %lld"),
                     info->name, (long long) shape->dim[i]->dim_value, i, (long long) array->dims[i]);
        return FALSE;
      }
  return TRUE;
}

static OnyxArray *
copy_array (const OnyxArray *array)
{
  return onyx_array_new (array->name, array->elem_type, array->dims, array->n_dims, array->data);
}

GPtrArray *
onyx_run_prepare_inputs (OnyxModel *model, GPtrArray *given, const OnyxRunInputs *how, GError **error)
{
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  g_autoptr (GPtrArray) inputs = onyx_run_runtime_inputs (graph);
  g_autoptr (GPtrArray) arrays = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_array_free);
  g_autoptr (GRand) random = g_rand_new_with_seed ((guint32) (how->seed ^ (how->seed >> 32)));
  g_autoptr (GPtrArray) plans = onyx_run_plan_inputs (model);
  g_autoptr (GHashTable) dims = onyx_run_copy_dims (how->dims);
  int past;

  if (how->dims != NULL && !check_dim_names (model, inputs, how->dims, error))
    return NULL;
  past = onyx_run_plan_dims (plans, model, dims);

  for (guint i = 0; given != NULL && i < given->len; i++)
    {
      const OnyxArray *array = given->pdata[i];
      gboolean known = FALSE;
      for (guint k = 0; k < inputs->len && !known; k++)
        known = g_strcmp0 (((Onnx__ValueInfoProto *) inputs->pdata[k])->name, array->name) == 0;
      if (!known)
        {
          g_autoptr (GString) names = g_string_new (NULL);
          for (guint k = 0; k < inputs->len; k++)
            g_string_append_printf (names, "%s'%s'", k > 0 ? ", " : "",
                                    ((Onnx__ValueInfoProto *) inputs->pdata[k])->name);
          g_set_error (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_INPUT, _("'%s' is not an input of %s (its inputs: %s)"),
                       array->name != NULL ? array->name : "", onyx_model_get_display_name (model),
                       inputs->len > 0 ? names->str : _("none"));
          return NULL;
        }
    }
  for (guint i = 0; i < inputs->len; i++)
    {
      const Onnx__ValueInfoProto *info = inputs->pdata[i];
      OnyxArray *array = onyx_array_find (given, info->name);

      if (array != NULL && !check_given (info, array, error))
        return NULL;
      if (array == NULL && how->fill == ONYX_RUN_FILL_NONE)
        {
          g_set_error (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_INPUT,
                       _("no array for input '%s': give one, or let Onyx make them (--random SEED)"),
                       info->name);
          return NULL;
        }
      array = array != NULL ? copy_array (array)
                            : make_input (info, how, dims, onyx_run_plan_find (plans, info->name), past, random, error);
      if (array == NULL)
        return NULL;
      g_ptr_array_add (arrays, array);
    }
  return g_steal_pointer (&arrays);
}

void
onyx_run_keep_graph_inputs (OnyxModel *model, GPtrArray *arrays)
{
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;

  for (guint i = arrays->len; i-- > 0;)
    {
      const char *name = ((OnyxArray *) arrays->pdata[i])->name;
      gboolean input = FALSE;
      for (size_t k = 0; k < graph->n_input && !input; k++)
        input = g_strcmp0 (graph->input[k]->name, name) == 0;
      if (!input)
        g_ptr_array_remove_index (arrays, i);
    }
}

/* ---- The model as run ---- */

static void
add_name (GPtrArray *names, GHashTable *seen, const char *name)
{
  if (name != NULL && name[0] != '\0' && g_hash_table_add (seen, (gpointer) name))
    g_ptr_array_add (names, (gpointer) name);
}

/* The model whose graph outputs are every tensor of the main graph its nodes make,
 * in the nodes' order (then graph outputs no node makes), cut by extract so that the types of the
 * new outputs come along where known. */
static GBytes *
capturing_model (OnyxModel *model, gboolean all, GError **error)
{
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  g_autoptr (GPtrArray) inputs = onyx_run_runtime_inputs (graph);
  g_autoptr (GPtrArray) outputs = g_ptr_array_new ();
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (OnyxModel) capturing = NULL;

  if (!all)
    return onyx_model_serialize (model);
  for (size_t i = 0; i < graph->n_node; i++)
    for (size_t k = 0; k < graph->node[i]->n_output; k++)
      add_name (outputs, seen, graph->node[i]->output[k]);
  for (size_t i = 0; i < graph->n_output; i++)
    add_name (outputs, seen, graph->output[i]->name);
  g_ptr_array_add (outputs, NULL);
  for (guint i = 0; i < inputs->len; i++)
    inputs->pdata[i] = ((Onnx__ValueInfoProto *) inputs->pdata[i])->name;
  g_ptr_array_add (inputs, NULL);
  capturing = onyx_model_extract (model, (const char *const *) inputs->pdata,
                                  (const char *const *) outputs->pdata, error);
  return capturing != NULL ? onyx_model_serialize (capturing) : NULL;
}

static void
add_pair (GPtrArray *pairs, GHashTable *paired, const char *name, const char *other)
{
  if (name == NULL || name[0] == '\0' || other == NULL || other[0] == '\0' || !g_hash_table_add (paired, (gpointer) name))
    return;
  g_ptr_array_add (pairs, g_strdup (name));
  g_ptr_array_add (pairs, g_strdup (other));
}

/* Tensors of A matched with their counterparts: the pairs asked for first; with
 * another model, then the graph outputs both have (the same tensor, whichever node
 * makes it: Simplify hands a graph output's name to the node before the one it
 * removes), then the outputs of the nodes the diff matches (by name, then by
 * structure: a renamed export still pairs), slot by slot; then, as with reference
 * arrays, tensors of the same name. */
static GPtrArray *
pairs_of (OnyxModel *model, OnyxModel *other, GPtrArray *reference, const char *const *asked)
{
  GPtrArray *pairs = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) other_names = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) paired = g_hash_table_new (g_str_hash, g_str_equal);
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;

  for (guint i = 0; asked != NULL && asked[i] != NULL && asked[i + 1] != NULL; i += 2)
    add_pair (pairs, paired, asked[i], asked[i + 1]);
  if (other != NULL)
    {
      const Onnx__GraphProto *other_graph = onyx_model_get_proto (other)->graph;
      g_autoptr (OnyxDiff) diff = onyx_diff_models (onyx_model_get_proto (model), onyx_model_get_proto (other));

      for (size_t i = 0; i < graph->n_output; i++)
        for (size_t j = 0; j < other_graph->n_output; j++)
          if (g_strcmp0 (graph->output[i]->name, other_graph->output[j]->name) == 0)
            add_pair (pairs, paired, graph->output[i]->name, other_graph->output[j]->name);
      for (size_t i = 0; i < graph->n_node && i < diff->n_nodes_a; i++)
        {
          int j = diff->node_a_to_b[i];
          for (size_t k = 0; j >= 0 && k < graph->node[i]->n_output && k < other_graph->node[j]->n_output; k++)
            add_pair (pairs, paired, graph->node[i]->output[k], other_graph->node[j]->output[k]);
        }
      for (size_t i = 0; i < other_graph->n_node; i++)
        for (size_t k = 0; k < other_graph->node[i]->n_output; k++)
          g_hash_table_add (other_names, other_graph->node[i]->output[k]);
    }
  for (guint i = 0; reference != NULL && i < reference->len; i++)
    g_hash_table_add (other_names, ((OnyxArray *) reference->pdata[i])->name);
  for (size_t i = 0; i < graph->n_node; i++)
    for (size_t k = 0; k < graph->node[i]->n_output; k++)
      if (g_hash_table_contains (other_names, graph->node[i]->output[k]))
        add_pair (pairs, paired, graph->node[i]->output[k], graph->node[i]->output[k]);
  return pairs;
}

static const OnyxRunDelta *
find_delta (GHashTable *deltas, const char *name)
{
  return name != NULL ? g_hash_table_lookup (deltas, name) : NULL;
}

gboolean
onyx_run_delta_exceeds (const OnyxRunDelta *delta)
{
  return delta != NULL && (delta->mismatch != NULL || delta->n_exceeding > 0);
}

gboolean
onyx_run_delta_diverges (const OnyxRunDelta *delta, double atol, double scale_rtol)
{
  return delta != NULL && (delta->mismatch != NULL || !(delta->max_abs <= atol + scale_rtol * delta->max_ref));
}

guint
onyx_run_result_n_outputs_exceeding (const OnyxRunResult *result, OnyxModel *model)
{
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  guint n = 0;

  for (guint i = 0; result->deltas != NULL && i < result->deltas->len; i++)
    {
      const OnyxRunDelta *delta = result->deltas->pdata[i];
      for (size_t o = 0; o < graph->n_output; o++)
        if (g_strcmp0 (graph->output[o]->name, delta->name) == 0)
          n += onyx_run_delta_exceeds (delta);
    }
  return n;
}

guint
onyx_run_result_n_exceeding (const OnyxRunResult *result)
{
  guint n = 0;

  for (guint i = 0; result->deltas != NULL && i < result->deltas->len; i++)
    n += onyx_run_delta_exceeds (result->deltas->pdata[i]);
  return n;
}

/* Whether a tensor parts from its counterpart as `options` judge it. */
static gboolean
parts (const OnyxRunDelta *delta, const OnyxRunOptions *options)
{
  return options->strict ? onyx_run_delta_exceeds (delta)
                         : onyx_run_delta_diverges (delta, options->atol, options->scale_rtol);
}

/* The first node, in the graph's order (which ONNX asks to be topological), whose
 * output parts while none of its inputs do: where the two runs part. */
static void
find_first_divergence (OnyxModel *model, OnyxRunResult *result, const OnyxRunOptions *options)
{
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  g_autoptr (GHashTable) deltas = g_hash_table_new (g_str_hash, g_str_equal);

  result->first_divergence = -1;
  for (guint i = 0; i < result->deltas->len; i++)
    g_hash_table_insert (deltas, ((OnyxRunDelta *) result->deltas->pdata[i])->name, result->deltas->pdata[i]);
  for (size_t i = 0; i < graph->n_node; i++)
    {
      const Onnx__NodeProto *node = graph->node[i];
      const OnyxRunDelta *exceeding = NULL;
      gboolean inputs_agree = TRUE;

      for (size_t k = 0; k < node->n_output && exceeding == NULL; k++)
        if (parts (find_delta (deltas, node->output[k]), options))
          exceeding = find_delta (deltas, node->output[k]);
      for (size_t k = 0; k < node->n_input && inputs_agree; k++)
        inputs_agree = !parts (find_delta (deltas, node->input[k]), options);
      if (exceeding != NULL && inputs_agree)
        {
          result->first_divergence = (int) i;
          result->first_divergence_delta = exceeding;
          return;
        }
    }
}

static int
node_index (const Onnx__GraphProto *graph, const char *name)
{
  for (size_t i = 0; i < graph->n_node; i++)
    if (g_strcmp0 (graph->node[i]->name, name) == 0)
      return (int) i;
  return -1;
}

/* The part of the model that computes the node's outputs. */
static OnyxModel *
model_until (OnyxModel *model, const char *node_name, GError **error)
{
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  int index = node_index (graph, node_name);
  g_autoptr (GPtrArray) inputs = onyx_run_runtime_inputs (graph);
  g_autoptr (GPtrArray) outputs = g_ptr_array_new ();

  if (index < 0)
    {
      g_set_error (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_INPUT, _("%s has no node named '%s'"),
                   onyx_model_get_display_name (model), node_name);
      return NULL;
    }
  for (size_t k = 0; k < graph->node[index]->n_output; k++)
    if (graph->node[index]->output[k][0] != '\0')
      g_ptr_array_add (outputs, graph->node[index]->output[k]);
  g_ptr_array_add (outputs, NULL);
  for (guint i = 0; i < inputs->len; i++)
    inputs->pdata[i] = ((Onnx__ValueInfoProto *) inputs->pdata[i])->name;
  g_ptr_array_add (inputs, NULL);
  return onyx_model_extract (model, (const char *const *) inputs->pdata, (const char *const *) outputs->pdata,
                             error);
}

/* One run in the helper, as `options` say. */
static OnyxRunResult *
run_in_helper (OnyxModel *model, GPtrArray *inputs, const OnyxRunOptions *options, GError **error)
{
  OnyxRunRequest request = { 0 };
  g_autoptr (GBytes) request_bytes = NULL, result_bytes = NULL;
  g_autofree char *text = NULL;
  g_autoptr (GError) unreadable = NULL;
  OnyxRunResult *result;
  g_autoptr (OnyxModel) part = options->until_node != NULL ? model_until (model, options->until_node, error)
                                                           : g_object_ref (model);
  g_autoptr (OnyxModel) probed = NULL;
  g_autoptr (GHashTable) probes = NULL;

  if (part == NULL)
    return NULL;
  if (options->dequantize != NULL && options->dequantize[0] != NULL && options->compare_model != NULL)
    {
      probes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      probed = onyx_run_add_dequantizers (part, options->dequantize, probes);
    }
  request.model = capturing_model (probed != NULL ? probed : part, options->all, error);
  if (request.model == NULL)
    return NULL;
  if (options->compare_model != NULL &&
      (request.other_model = capturing_model (options->compare_model, options->all, error)) == NULL)
    {
      onyx_run_request_clear (&request);
      return NULL;
    }
  request.base_dir = g_strdup (onyx_model_get_base_dir (model));
  if (options->compare_model != NULL)
    request.other_base_dir = g_strdup (onyx_model_get_base_dir (options->compare_model));
  request.inputs = g_ptr_array_ref (inputs);
  request.reference = options->reference != NULL ? g_ptr_array_ref (options->reference) : NULL;
  request.pairs = pairs_of (model, options->compare_model, options->reference, options->pairs);
  if (probes != NULL)
    onyx_run_pairs_use_probes (request.pairs, probes);
  request.keep = g_strdupv ((char **) options->keep);
  request.keep_all = options->keep_all;
  request.atol = options->atol;
  request.rtol = options->rtol;
  request_bytes = onyx_run_request_encode (&request);
  onyx_run_request_clear (&request);

  result_bytes = onyx_onnx_run_isolated (ONYX_ONNX_JOB_RUN, request_bytes, 0, &text, error);
  if (result_bytes == NULL)
    {
      if (text != NULL)
        {
          g_autofree char *message = onyx_run_refusal_message (model, text, inputs, options);
          g_clear_error (error);
          g_set_error_literal (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_REFUSED, message);
        }
      return NULL;
    }
  result = onyx_run_result_decode (result_bytes, &unreadable);
  if (result != NULL && probes != NULL)
    onyx_run_result_name_probes (result, probes);
  if (result == NULL)
    g_set_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_INTERNAL,
                 _("Onyx's helper answered the run with a result Onyx cannot read (%s): an internal "
                   "error of Onyx, not a fault of the model"), unreadable->message);
  return result;
}

/* Where NaN or Inf first appear. Outputs alone do not say which node made them: the
 * model runs again capturing every tensor, as --all does; when that run fails or
 * finds none (ONNX Runtime optimizes the two copies apart), the output is named. */
static void
trace_nonfinite (OnyxModel *model, GPtrArray *inputs, const OnyxRunOptions *options, OnyxRunResult *result)
{
  OnyxRunOptions every = { .all = TRUE, .until_node = options->until_node, .atol = options->atol,
                           .rtol = options->rtol, .scale_rtol = options->scale_rtol };
  g_autoptr (OnyxRunResult) traced = NULL;

  if (onyx_run_find_first_nonfinite (model, result->stats, options->all, result) ||
      result->first_nonfinite == NULL || options->all || options->untraced)
    return;
  traced = run_in_helper (model, inputs, &every, NULL);
  if (traced != NULL)
    onyx_run_find_first_nonfinite (model, traced->stats, TRUE, result);
}

OnyxRunResult *
onyx_run_model (OnyxModel *model, GPtrArray *inputs, const OnyxRunOptions *options, GError **error)
{
  const char *reason;
  OnyxRunResult *result;

  if (!onyx_run_available (&reason))
    {
      g_set_error (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_UNAVAILABLE, _("cannot run models: %s"), reason);
      return NULL;
    }
  if ((result = run_in_helper (model, inputs, options, error)) == NULL)
    return NULL;
  find_first_divergence (model, result, options);
  trace_nonfinite (model, inputs, options, result);
  return result;
}
