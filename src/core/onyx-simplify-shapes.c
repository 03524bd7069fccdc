/* Simplify's shape folding: what ONNX's shape inference knows of a tensor's dims
 * becomes a constant, even where other dims stay symbolic. A Shape or Size whose
 * dims are all known numbers, and a Gather or Slice picking only known dims out of
 * a Shape (TorchScript's Shape → Gather → Unsqueeze → Concat → Reshape), become
 * int64 initializers named as their outputs; constant folding, which runs next,
 * takes the rest of the chain. A symbolic dim (a batch N) is never frozen: the
 * Shape reading it stays, only the picks of known dims fold. */
#include "onyx-simplify-private.h"

#include <glib/gi18n-lib.h>

/* Shape's start and end (opset 15), and Slice's starts and ends, as Shape's
 * documentation clamps an axis: negative counts from the back, then into [0, n]. */
static gint64
clamp_axis (gint64 axis, gint64 n)
{
  if (axis < 0)
    axis += n;
  return CLAMP (axis, 0, n);
}

/* The dims a Shape node gives (start and end applied), -1 for each dim inference
 * knows no number of; NULL when the rank of its input is unknown. */
static GArray *
shape_node_dims (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const Onnx__NodeProto *shape)
{
  g_autoptr (GArray) dims = NULL;
  GArray *picked;
  gint64 rank, start, end;

  if (shape->n_input < 1 || !onyx_simplify_tensor_shape (ctx, graph, shape->input[0], NULL, &dims, NULL))
    return NULL;
  rank = dims->len;
  start = clamp_axis (onyx_simplify_attribute_int (shape, "start", 0), rank);
  end = clamp_axis (onyx_simplify_attribute_int (shape, "end", rank), rank);
  picked = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (gint64 i = start; i < end; i++)
    g_array_append_val (picked, g_array_index (dims, gint64, i));
  return picked;
}

/* The dims of the Shape node that makes `name` in `graph`, or NULL. */
static GArray *
dims_from_shape (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const char *name)
{
  Onnx__NodeProto *producer = onyx_simplify_producer (ctx, graph, name);

  if (producer == NULL || !onyx_simplify_is_op (producer, "Shape") || producer->n_output < 1 ||
      g_strcmp0 (producer->output[0], name) != 0)
    return NULL;
  return shape_node_dims (ctx, graph, producer);
}

static gboolean
all_known (const GArray *dims)
{
  for (guint i = 0; i < dims->len; i++)
    if (g_array_index (dims, gint64, i) < 0)
      return FALSE;
  return TRUE;
}

/* An int64 array of `values` shaped `dims` (n_dims 0: a scalar). */
static OnyxArray *
int64_array (const GArray *values, const gint64 *dims, gsize n_dims)
{
  g_autoptr (GBytes) data = g_bytes_new (values->data, values->len * sizeof (gint64));

  return onyx_array_new (NULL, ONNX__TENSOR_PROTO__DATA_TYPE__INT64, dims, n_dims, data);
}

static OnyxArray *
vector_of (const GArray *values)
{
  gint64 length = values->len;

  return int64_array (values, &length, 1);
}

static OnyxArray *
shape_value (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const Onnx__NodeProto *node)
{
  g_autoptr (GArray) dims = shape_node_dims (ctx, graph, node);

  return dims != NULL && all_known (dims) ? vector_of (dims) : NULL;
}

static OnyxArray *
size_value (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const Onnx__NodeProto *node)
{
  g_autoptr (GArray) dims = NULL;
  g_autoptr (GArray) product = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 n = 1;

  if (node->n_input < 1 || !onyx_simplify_tensor_shape (ctx, graph, node->input[0], NULL, &dims, NULL) ||
      !all_known (dims))
    return NULL;
  for (guint i = 0; i < dims->len; i++)
    {
      gint64 dim = g_array_index (dims, gint64, i);
      if (dim != 0 && n > G_MAXINT64 / dim)
        return NULL;
      n *= dim;
    }
  g_array_append_val (product, n);
  return int64_array (product, NULL, 0);
}

/* Gather of a Shape with constant indices (any rank, negative ones from the back):
 * shaped as the indices. */
static OnyxArray *
gather_value (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const Onnx__NodeProto *node)
{
  g_autoptr (GArray) dims = NULL, indices = NULL, picked = NULL;
  g_autoptr (OnyxArray) indices_value = NULL;
  gint64 axis = onyx_simplify_attribute_int (node, "axis", 0);

  /* A Shape's output has one axis. */
  if (node->n_input < 2 || (axis != 0 && axis != -1) ||
      (dims = dims_from_shape (ctx, graph, node->input[0])) == NULL)
    return NULL;
  indices_value = onyx_simplify_constant_value (ctx, graph, node->input[1], 1 << 16, NULL);
  if ((indices = onyx_simplify_array_ints (indices_value)) == NULL)
    return NULL;
  picked = g_array_sized_new (FALSE, FALSE, sizeof (gint64), indices->len);
  for (guint i = 0; i < indices->len; i++)
    {
      gint64 index = g_array_index (indices, gint64, i);
      if (index < 0)
        index += dims->len;
      if (index < 0 || index >= (gint64) dims->len || g_array_index (dims, gint64, index) < 0)
        return NULL;
      g_array_append_val (picked, g_array_index (dims, gint64, index));
    }
  return int64_array (picked, indices_value->dims, indices_value->n_dims);
}

/* The one number of a Slice's list: FALSE when it is not one constant number (a
 * Shape's output has one axis to slice), or when it is not given and has no
 * `fallback` (starts and ends have none: such a node is broken and stays). */
static gboolean
slice_operand (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const Onnx__NodeProto *node,
               const char *attribute, guint input, const gint64 *fallback, gint64 *value)
{
  g_autoptr (GArray) ints = NULL;

  if (!onyx_simplify_ints_argument (ctx, graph, node, attribute, 10, input, &ints))
    return FALSE;
  if (ints == NULL && fallback != NULL)
    *value = *fallback;
  else if (ints != NULL && ints->len == 1)
    *value = g_array_index (ints, gint64, 0);
  else
    return FALSE;
  return TRUE;
}

/* Slice of a Shape with constant starts, ends, axes and steps (attributes before
 * opset 10), clamped as Slice's documentation says and ONNX Runtime does. */
static OnyxArray *
slice_value (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const Onnx__NodeProto *node)
{
  g_autoptr (GArray) dims = NULL;
  g_autoptr (GArray) picked = g_array_new (FALSE, FALSE, sizeof (gint64));
  const gint64 first_axis = 0, one_step = 1;
  gint64 start, end, axis, step, n;

  if (node->n_input < 1 || (dims = dims_from_shape (ctx, graph, node->input[0])) == NULL)
    return NULL;
  n = dims->len;
  if (!slice_operand (ctx, graph, node, "starts", 1, NULL, &start) ||
      !slice_operand (ctx, graph, node, "ends", 2, NULL, &end) ||
      !slice_operand (ctx, graph, node, "axes", 3, &first_axis, &axis) || (axis != 0 && axis != -1) ||
      !slice_operand (ctx, graph, node, "steps", 4, &one_step, &step) || step == 0)
    return NULL;
  /* Backwards to INT_MAX: ONNX's clamping ends before the last dim, ONNX Runtime
   * reads it as "to the first": the node stays rather than pick one. */
  if (step < 0 && (end == G_MAXINT32 || end == G_MAXINT64))
    return NULL;
  if (step > 0)
    {
      start = clamp_axis (start, n);
      end = clamp_axis (end, n);
    }
  else
    {
      /* Backwards, the start can be at most the last element and the end one before the first. */
      start = CLAMP (start < 0 ? start + n : start, 0, n - 1);
      end = CLAMP (end < 0 ? end + n : end, -1, n - 1);
    }
  for (gint64 i = start; step > 0 ? i < end : i > end; i += step)
    {
      if (g_array_index (dims, gint64, i) < 0)
        return NULL;
      g_array_append_val (picked, g_array_index (dims, gint64, i));
      /* A step past the end of int64 ends the slice. */
      if ((step > 0 && i > G_MAXINT64 - step) || (step < 0 && i < G_MININT64 - step))
        break;
    }
  return vector_of (picked);
}

typedef OnyxArray *(*ShapeFolder) (OnyxSimplifyContext *, Onnx__GraphProto *, const Onnx__NodeProto *);

static const struct {
  const char *op_type;
  ShapeFolder fold;
} folders[] = {
  { "Shape", shape_value },
  { "Size", size_value },
  { "Gather", gather_value },
  { "Slice", slice_value },
};

static ShapeFolder
folder_of (const Onnx__NodeProto *node)
{
  for (guint i = 0; i < G_N_ELEMENTS (folders); i++)
    if (onyx_simplify_is_op (node, folders[i].op_type))
      return folders[i].fold;
  return NULL;
}

static guint
shapes_run (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, G_GNUC_UNUSED GError **error)
{
  g_autoptr (GPtrArray) candidates = g_ptr_array_new ();
  guint n_folded = 0;

  /* A graph output keeps a node making it, as constant folding leaves it. */
  for (size_t n = 0; n < graph->n_node; n++)
    {
      Onnx__NodeProto *node = graph->node[n];
      if (folder_of (node) != NULL && node->n_output == 1 && node->output[0][0] != '\0' &&
          !onyx_simplify_is_output (graph, node->output[0]))
        g_ptr_array_add (candidates, node);
    }
  for (guint i = 0; i < candidates->len; i++)
    {
      Onnx__NodeProto *node = candidates->pdata[i];
      g_autoptr (OnyxArray) value = folder_of (node) (ctx, graph, node);
      if (value == NULL)
        continue;
      onyx_simplify_output_to_initializer (ctx, graph, node, 0, value);
      n_folded++;
    }
  return n_folded + onyx_simplify_reshape_targets (ctx, graph);
}

const OnyxSimplifyPass onyx_simplify_shapes_pass = {
  .name = "shapes",
  .title = N_("Shape folding"),
  .flag = ONYX_SIMPLIFY_SHAPES,
  .run = shapes_run,
};
