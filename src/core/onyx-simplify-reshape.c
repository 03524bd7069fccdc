/* Part of Simplify's shape folding: a Reshape's target made of its input's own dims.
 *
 * Exporters build a Reshape's target shape out of the dims of the tensor reshaped
 * (TorchScript's `x.view (x.size (0), 128, x.size (2))`: Shape → Gather → Unsqueeze,
 * Concat with constants). Where a dim is taken at the position it lands in, the
 * target can say 0, "this dim of the input", as Reshape reads it (without
 * allowzero); one part known only at run time can say -1, "what the others leave".
 * The target becomes a constant, the chain building it goes with Clean Up, and a
 * symbolic batch stays symbolic. ONNX Runtime's basic optimizer does the same
 * (its ReshapeFusion). */
#include "onyx-simplify-private.h"

#include "onyx-tensor-values.h"

/* What one part of the Concat stands for: elements appended to `target`, each a
 * number, 0 (the input's dim at that place), or -1 (unknown, one element). FALSE
 * when the part cannot be said at all. */
static gboolean
append_part (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const char *part, const char *input,
             GArray *target, guint *n_unknown, guint *n_computed)
{
  g_autoptr (GArray) values = onyx_simplify_constant_ints (ctx, graph, part);
  Onnx__NodeProto *unsqueeze, *gather, *shape;
  g_autoptr (GArray) index = NULL;
  gint64 position = target->len, unknown = -1, same = 0;

  if (values != NULL)
    {
      for (guint i = 0; i < values->len; i++)
        *n_unknown += g_array_index (values, gint64, i) == -1;
      g_array_append_vals (target, values->data, values->len);
      return *n_unknown <= 1;
    }
  ++*n_computed;
  /* One element, computed: Unsqueeze of a scalar (an Unsqueeze's output here is a
   * part of a shape, which has one axis). */
  unsqueeze = onyx_simplify_producer (ctx, graph, part);
  if (unsqueeze == NULL || !onyx_simplify_is_op (unsqueeze, "Unsqueeze") || unsqueeze->n_input < 1)
    return FALSE;
  gather = onyx_simplify_producer (ctx, graph, unsqueeze->input[0]);
  /* Gather (Shape (input), i) with i this position: the input's own dim. */
  if (gather != NULL && onyx_simplify_is_op (gather, "Gather") && gather->n_input == 2 &&
      onyx_simplify_attribute_int (gather, "axis", 0) == 0 &&
      (shape = onyx_simplify_producer (ctx, graph, gather->input[0])) != NULL &&
      onyx_simplify_is_op (shape, "Shape") && shape->n_input == 1 && g_strcmp0 (shape->input[0], input) == 0 &&
      onyx_simplify_attribute (shape, "start") == NULL && onyx_simplify_attribute (shape, "end") == NULL &&
      (index = onyx_simplify_constant_ints (ctx, graph, gather->input[1])) != NULL && index->len == 1 &&
      g_array_index (index, gint64, 0) == position)
    {
      g_array_append_val (target, same);
      return TRUE;
    }
  if (++*n_unknown > 1)
    return FALSE;
  g_array_append_val (target, unknown);
  return TRUE;
}

/* The constant target of `reshape`, or NULL when its target is not such a Concat. */
static OnyxArray *
constant_target (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const Onnx__NodeProto *reshape)
{
  Onnx__NodeProto *concat;
  g_autoptr (GArray) target = g_array_new (FALSE, FALSE, sizeof (gint64));
  guint n_unknown = 0, n_computed = 0;
  gint64 n;
  g_autoptr (GBytes) data = NULL;

  /* Before opset 5 the target is an attribute; with allowzero a 0 is a 0. */
  if (reshape->n_input != 2 || onyx_simplify_attribute_int (reshape, "allowzero", 0) != 0)
    return NULL;
  concat = onyx_simplify_producer (ctx, graph, reshape->input[1]);
  if (concat == NULL || !onyx_simplify_is_op (concat, "Concat") || onyx_simplify_attribute_int (concat, "axis", 1) != 0)
    return NULL;
  for (size_t i = 0; i < concat->n_input; i++)
    if (!append_part (ctx, graph, concat->input[i], reshape->input[0], target, &n_unknown, &n_computed))
      return NULL;
  /* A target of constants alone is constant folding's. */
  if (n_computed == 0)
    return NULL;
  n = target->len;
  data = g_bytes_new_take (g_array_free (g_steal_pointer (&target), FALSE), n * sizeof (gint64));
  return onyx_array_new (NULL, ONNX__TENSOR_PROTO__DATA_TYPE__INT64, &n, 1, data);
}

guint
onyx_simplify_reshape_targets (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph)
{
  g_autoptr (GPtrArray) reshapes = g_ptr_array_new ();
  guint n_changed = 0;

  for (size_t n = 0; n < graph->n_node; n++)
    if (onyx_simplify_is_op (graph->node[n], "Reshape"))
      g_ptr_array_add (reshapes, graph->node[n]);
  for (guint i = 0; i < reshapes->len; i++)
    {
      Onnx__NodeProto *reshape = reshapes->pdata[i];
      g_autoptr (OnyxArray) target = constant_target (ctx, graph, reshape);
      g_autofree char *name = NULL;
      if (target == NULL)
        continue;
      name = onyx_simplify_unique_name (ctx, reshape->input[1]);
      onyx_simplify_add_initializer (ctx, graph, onyx_tensor_new_from_array (target, name));
      onyx_simplify_set_input (ctx, reshape, 1, name);
      n_changed++;
    }
  return n_changed;
}
