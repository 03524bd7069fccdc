/* Simplify's no-ops: nodes that compute nothing (Identity, Dropout in inference, a
 * Cast to the type its input has, a Reshape to the shape it had, a Pad of nothing,
 * an Add of zeros…) are bypassed, their input taking over their output; pairs that
 * undo each other (a Transpose and its inverse, Unsqueeze then Squeeze, a lossless
 * Cast and back) go together; two Transposes in a row become one, and a Reshape
 * reads past the Reshape before it.
 *
 * What a node computes is judged from its constant arguments in the form its opset
 * gives them (attributes before Squeeze 13, Pad 11, Slice 10, Dropout 12; inputs
 * after) and from ONNX's inference, never from a guess: an unknown dim is not the
 * same as any other. */
#include <string.h>

#include "onyx-simplify-private.h"

#include <glib/gi18n-lib.h>

#include "onyx-schema.h"

typedef struct {
  OnyxSimplifyContext *ctx;
  Onnx__GraphProto *graph;
  gint64 opset;
} Noops;

/* ---- Shared steps ---- */

static gboolean
is_read (Noops *self, const char *name)
{
  return name[0] != '\0' && (onyx_simplify_n_uses (self->ctx, self->graph, name) > 0 ||
                             onyx_simplify_is_output (self->graph, name));
}

/* Whether only the first output of `node` is read (Dropout's mask is not). */
static gboolean
only_first_output_read (Noops *self, const Onnx__NodeProto *node)
{
  for (size_t k = 1; k < node->n_output; k++)
    if (is_read (self, node->output[k]))
      return FALSE;
  return TRUE;
}

/* `node`'s first output holds what `source` holds: its readers read `source`. */
static guint
bypass (Noops *self, Onnx__NodeProto *node, const char *source)
{
  if (source == NULL || source[0] == '\0' || !only_first_output_read (self, node))
    return 0;
  return onyx_simplify_bypass (self->ctx, self->graph, node, 0, source) ? 1 : 0;
}

/* Removes `node` once nothing reads it (the first of a pair, the second reading past it). */
static void
remove_if_unread (Noops *self, Onnx__NodeProto *node)
{
  for (size_t k = 0; k < node->n_output; k++)
    if (is_read (self, node->output[k]))
      return;
  onyx_simplify_remove_node (self->ctx, node);
}

/* How many times `node` reads `name`. */
static guint
n_reads (const Onnx__NodeProto *node, const char *name)
{
  guint n = 0;

  for (size_t k = 0; k < node->n_input; k++)
    n += strcmp (node->input[k], name) == 0;
  return n;
}

/* `node` computes what `source` holds, through `first` (the producer of its input,
 * which reads `source`): both go when `first` has no other reader. When `node`
 * makes a graph output, whose name must stay, `source`'s producer has to write it:
 * only when `first` was all that read `source`. */
static guint
bypass_pair (Noops *self, Onnx__NodeProto *node, Onnx__NodeProto *first, const char *source)
{
  OnyxSimplifyContext *ctx = self->ctx;
  Onnx__GraphProto *graph = self->graph;
  gboolean first_goes = onyx_simplify_n_uses (ctx, graph, first->output[0]) == 1 &&
                        !onyx_simplify_is_output (graph, first->output[0]) && only_first_output_read (self, first);

  if (!only_first_output_read (self, node))
    return 0;
  if (onyx_simplify_is_output (graph, node->output[0]))
    {
      if (!first_goes || onyx_simplify_producer (ctx, graph, source) == NULL ||
          onyx_simplify_is_output (graph, source) ||
          onyx_simplify_n_uses (ctx, graph, source) != n_reads (first, source))
        return 0;
      /* `node` becomes the only reader of `source`, which onyx_simplify_bypass needs
       * to hand the name over; it goes at once. */
      onyx_simplify_set_input (ctx, node, 0, source);
      onyx_simplify_remove_node (ctx, first);
      return onyx_simplify_bypass (ctx, graph, node, 0, source) ? 1 : 0;
    }
  if (!onyx_simplify_bypass (ctx, graph, node, 0, source))
    return 0;
  if (first_goes)
    onyx_simplify_remove_node (ctx, first);
  return 1;
}

/* `node` reads `source` instead of `first`'s output, which goes when it has no other
 * reader. */
static guint
read_past (Noops *self, Onnx__NodeProto *node, Onnx__NodeProto *first, const char *source)
{
  onyx_simplify_set_input (self->ctx, node, 0, source);
  remove_if_unread (self, first);
  return 1;
}

/* The `op_type` node whose first output `node` reads first, when it has an input,
 * or NULL. */
static Onnx__NodeProto *
producer_op (Noops *self, const Onnx__NodeProto *node, const char *op_type)
{
  Onnx__NodeProto *producer = onyx_simplify_producer (self->ctx, self->graph, node->input[0]);

  return producer != NULL && onyx_simplify_is_op (producer, op_type) && producer->n_input > 0 &&
             producer->input[0][0] != '\0' && producer->n_output > 0 &&
             strcmp (producer->output[0], node->input[0]) == 0
           ? producer
           : NULL;
}

/* The node's output has the type and shape of its first input. */
static gboolean
keeps_shape (Noops *self, const Onnx__NodeProto *node)
{
  return onyx_simplify_same_type (self->ctx, self->graph, node->input[0], node->output[0]);
}

/* ---- Axes ---- */

static gint
compare_int64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

/* Axes made non-negative for `rank` (unknown: -1, when none is negative), sorted;
 * FALSE when one is out of range or given twice. */
static gboolean
normalize_axes (GArray *axes, gint rank)
{
  for (guint i = 0; i < axes->len; i++)
    {
      gint64 *axis = &g_array_index (axes, gint64, i);
      if (*axis < 0)
        {
          if (rank < 0)
            return FALSE;
          *axis += rank;
        }
      if (*axis < 0 || (rank >= 0 && *axis >= rank))
        return FALSE;
    }
  g_array_sort (axes, compare_int64);
  for (guint i = 1; i < axes->len; i++)
    if (g_array_index (axes, gint64, i) == g_array_index (axes, gint64, i - 1))
      return FALSE;
  return TRUE;
}

static gboolean
same_ints (const GArray *a, const GArray *b)
{
  return a->len == b->len && memcmp (a->data, b->data, a->len * sizeof (gint64)) == 0;
}

/* Squeeze's and Unsqueeze's axes: an attribute until opset 13, an input from it. */
static gboolean
axes_of (Noops *self, const Onnx__NodeProto *node, GArray **axes)
{
  return onyx_simplify_ints_argument (self->ctx, self->graph, node, "axes", 13, 1, axes);
}

/* ---- The operators ---- */

static guint
identity_run (Noops *self, Onnx__NodeProto *node)
{
  return bypass (self, node, node->input[0]);
}

/* Dropout drops nothing in inference: before opset 7 only with is_test set; from 12
 * unless training_mode is given and not a constant false. Its mask must be unread. */
static guint
dropout_run (Noops *self, Onnx__NodeProto *node)
{
  if (self->opset < 7 && onyx_simplify_attribute_int (node, "is_test", 0) == 0)
    return 0;
  if (self->opset >= 12 && node->n_input > 2 && node->input[2][0] != '\0' &&
      !onyx_simplify_constant_all (self->ctx, self->graph, node->input[2], 0))
    return 0;
  return bypass (self, node, node->input[0]);
}

/* Whether every value of element type `from` survives a cast to `to` and back. */
static gboolean
casts_back_exactly (int from, int to)
{
  enum {
    FLOAT = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, DOUBLE = ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE,
    FLOAT16 = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16, BFLOAT16 = ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16,
    INT8 = ONNX__TENSOR_PROTO__DATA_TYPE__INT8, INT16 = ONNX__TENSOR_PROTO__DATA_TYPE__INT16,
    INT32 = ONNX__TENSOR_PROTO__DATA_TYPE__INT32, INT64 = ONNX__TENSOR_PROTO__DATA_TYPE__INT64,
    UINT8 = ONNX__TENSOR_PROTO__DATA_TYPE__UINT8, UINT16 = ONNX__TENSOR_PROTO__DATA_TYPE__UINT16,
    UINT32 = ONNX__TENSOR_PROTO__DATA_TYPE__UINT32, UINT64 = ONNX__TENSOR_PROTO__DATA_TYPE__UINT64,
    BOOL = ONNX__TENSOR_PROTO__DATA_TYPE__BOOL,
  };
  /* Each type, then the types holding all its values (integers within the
   * significand of the floating types). */
  static const int widenings[][8] = {
    { FLOAT16, FLOAT, DOUBLE },
    { BFLOAT16, FLOAT, DOUBLE },
    { FLOAT, DOUBLE },
    { INT8, INT16, INT32, INT64, FLOAT16, FLOAT, DOUBLE },
    { INT16, INT32, INT64, FLOAT, DOUBLE },
    { INT32, INT64, DOUBLE },
    { UINT8, UINT16, UINT32, UINT64, INT16, INT32, INT64, FLOAT },
    { UINT16, UINT32, UINT64, INT32, INT64, FLOAT, DOUBLE },
    { UINT32, UINT64, INT64, DOUBLE },
    { BOOL, UINT8, INT8, INT32, INT64, FLOAT, DOUBLE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (widenings); i++)
    if (widenings[i][0] == from)
      for (guint k = 1; k < G_N_ELEMENTS (widenings[i]) && widenings[i][k] != 0; k++)
        if (widenings[i][k] == to)
          return TRUE;
  return FALSE;
}

/* Cast's target (an int from opset 6; a name before), or 0. */
static int
cast_target (const Onnx__NodeProto *node)
{
  const Onnx__AttributeProto *to = onyx_simplify_attribute (node, "to");

  return to != NULL && (to->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT || to->has_i) ? (int) to->i : 0;
}

static guint
cast_run (Noops *self, Onnx__NodeProto *node)
{
  int to = cast_target (node);
  Onnx__NodeProto *first = producer_op (self, node, "Cast");
  int from;

  if (to == 0)
    return 0;
  if (onyx_simplify_elem_type (self->ctx, self->graph, node->input[0]) == to)
    return bypass (self, node, node->input[0]);
  /* Cast to a wider type and back. */
  if (first == NULL || cast_target (first) == 0)
    return 0;
  from = onyx_simplify_elem_type (self->ctx, self->graph, first->input[0]);
  if (from != to || !casts_back_exactly (from, cast_target (first)))
    return 0;
  return bypass_pair (self, node, first, first->input[0]);
}

/* What only reshapes its input (its data in the same order). */
static Onnx__NodeProto *
reshaping_producer (Noops *self, const Onnx__NodeProto *node)
{
  static const char *const reshaping[] = { "Reshape", "Flatten", "Squeeze", "Unsqueeze" };

  for (guint i = 0; i < G_N_ELEMENTS (reshaping); i++)
    {
      Onnx__NodeProto *producer = producer_op (self, node, reshaping[i]);
      if (producer != NULL)
        return producer;
    }
  return NULL;
}

static guint
reshape_run (Noops *self, Onnx__NodeProto *node)
{
  g_autoptr (GArray) shape = NULL;
  Onnx__NodeProto *first;

  if (keeps_shape (self, node))
    return bypass (self, node, node->input[0]);
  /* A shape of numbers and -1 says everything: what the input was reshaped to
   * before does not matter (0 copies a dim of the input, unless allowzero). */
  first = reshaping_producer (self, node);
  if (first == NULL || node->n_input < 2 ||
      (shape = onyx_simplify_constant_ints (self->ctx, self->graph, node->input[1])) == NULL)
    return 0;
  for (guint i = 0; i < shape->len; i++)
    if (g_array_index (shape, gint64, i) == 0 && onyx_simplify_attribute_int (node, "allowzero", 0) == 0)
      return 0;
  return read_past (self, node, first, first->input[0]);
}

static guint
expand_run (Noops *self, Onnx__NodeProto *node)
{
  return keeps_shape (self, node) ? bypass (self, node, node->input[0]) : 0;
}

static guint
flatten_run (Noops *self, Onnx__NodeProto *node)
{
  gint rank = onyx_simplify_rank (self->ctx, self->graph, node->input[0]);
  gint64 axis = onyx_simplify_attribute_int (node, "axis", 1);

  /* A matrix flattened at axis 1 stays as it is, whatever its dims. */
  if (rank == 2 && (axis == 1 || axis == -1))
    return bypass (self, node, node->input[0]);
  return keeps_shape (self, node) ? bypass (self, node, node->input[0]) : 0;
}

static guint
squeeze_run (Noops *self, Onnx__NodeProto *node)
{
  g_autoptr (GArray) axes = NULL, unsqueezed = NULL;
  Onnx__NodeProto *first;
  gint rank;

  if (keeps_shape (self, node))
    return bypass (self, node, node->input[0]);
  /* Unsqueeze then Squeeze of the same axes (of the unsqueezed tensor). */
  first = producer_op (self, node, "Unsqueeze");
  if (first == NULL || !axes_of (self, node, &axes) || axes == NULL || axes->len == 0 ||
      !axes_of (self, first, &unsqueezed) || unsqueezed == NULL)
    return 0;
  rank = onyx_simplify_rank (self->ctx, self->graph, node->input[0]);
  if (!normalize_axes (axes, rank) || !normalize_axes (unsqueezed, rank) || !same_ints (axes, unsqueezed))
    return 0;
  return bypass_pair (self, node, first, first->input[0]);
}

/* Squeeze then Unsqueeze of the same axes, the squeezed dims known to be 1. */
static guint
unsqueeze_after_squeeze (Noops *self, Onnx__NodeProto *node, GArray *axes)
{
  Onnx__NodeProto *first = producer_op (self, node, "Squeeze");
  g_autoptr (GArray) squeezed = NULL, dims = NULL;

  if (first == NULL || !axes_of (self, first, &squeezed) ||
      !onyx_simplify_tensor_shape (self->ctx, self->graph, first->input[0], NULL, &dims, NULL))
    return 0;
  if (squeezed == NULL)
    {
      /* Every dim of 1 goes: all dims must be known. */
      squeezed = g_array_new (FALSE, FALSE, sizeof (gint64));
      for (guint i = 0; i < dims->len; i++)
        {
          gint64 dim = g_array_index (dims, gint64, i), axis = i;
          if (dim < 0)
            return 0;
          if (dim == 1)
            g_array_append_val (squeezed, axis);
        }
    }
  if (squeezed->len == 0 || !normalize_axes (squeezed, (gint) dims->len) ||
      !normalize_axes (axes, (gint) dims->len) || !same_ints (axes, squeezed))
    return 0;
  for (guint i = 0; i < squeezed->len; i++)
    if (g_array_index (dims, gint64, g_array_index (squeezed, gint64, i)) != 1)
      return 0;
  return bypass_pair (self, node, first, first->input[0]);
}

static guint
unsqueeze_run (Noops *self, Onnx__NodeProto *node)
{
  g_autoptr (GArray) axes = NULL;

  if (!axes_of (self, node, &axes) || axes == NULL)
    return 0;
  if (axes->len == 0)
    return bypass (self, node, node->input[0]);
  return unsqueeze_after_squeeze (self, node, axes);
}

/* A Transpose's perm, the reversed dims when it has none (of `rank`, when known);
 * NULL when neither is known or it is no permutation. */
static GArray *
perm_of (const Onnx__NodeProto *node, gint rank)
{
  const Onnx__AttributeProto *attr = onyx_simplify_attribute (node, "perm");
  GArray *perm = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autofree gboolean *seen = NULL;

  if (attr != NULL)
    g_array_append_vals (perm, attr->ints, (guint) attr->n_ints);
  else
    for (gint64 i = rank - 1; i >= 0; i--)
      g_array_append_val (perm, i);
  if (attr == NULL && rank < 0)
    {
      g_array_unref (perm);
      return NULL;
    }
  seen = g_new0 (gboolean, MAX (perm->len, 1));
  for (guint i = 0; i < perm->len; i++)
    {
      gint64 axis = g_array_index (perm, gint64, i);
      if (axis < 0 || axis >= perm->len || seen[axis])
        {
          g_array_unref (perm);
          return NULL;
        }
      seen[axis] = TRUE;
    }
  return perm;
}

static gboolean
is_identity_perm (const GArray *perm)
{
  for (guint i = 0; i < perm->len; i++)
    if (g_array_index (perm, gint64, i) != i)
      return FALSE;
  return TRUE;
}

/* The rank a Transpose works at: its perm's length, else its input's. */
static gint
transpose_rank (Noops *self, const Onnx__NodeProto *node)
{
  const Onnx__AttributeProto *attr = onyx_simplify_attribute (node, "perm");

  return attr != NULL ? (gint) attr->n_ints : onyx_simplify_rank (self->ctx, self->graph, node->input[0]);
}

static guint
transpose_run (Noops *self, Onnx__NodeProto *node)
{
  Onnx__NodeProto *first = producer_op (self, node, "Transpose");
  gint rank = transpose_rank (self, node);
  g_autoptr (GArray) perm = NULL, first_perm = NULL, composed = NULL;

  if (rank < 0 && first != NULL)
    rank = transpose_rank (self, first);
  perm = perm_of (node, rank);
  if (perm != NULL && is_identity_perm (perm))
    return bypass (self, node, node->input[0]);
  if (first == NULL || perm == NULL || (first_perm = perm_of (first, (gint) perm->len)) == NULL ||
      first_perm->len != perm->len)
    return 0;
  /* Output dim i is the first's dim perm[i], which is its input's first_perm[perm[i]]. */
  composed = g_array_sized_new (FALSE, FALSE, sizeof (gint64), perm->len);
  for (guint i = 0; i < perm->len; i++)
    g_array_append_val (composed, g_array_index (first_perm, gint64, g_array_index (perm, gint64, i)));
  if (is_identity_perm (composed))
    return bypass_pair (self, node, first, first->input[0]);
  onyx_simplify_set_ints_attribute (self->ctx, node, "perm", &g_array_index (composed, gint64, 0), composed->len);
  return read_past (self, node, first, first->input[0]);
}

static gboolean
all_zero (const GArray *values)
{
  for (guint i = 0; i < values->len; i++)
    if (g_array_index (values, gint64, i) != 0)
      return FALSE;
  return TRUE;
}

/* Pad of nothing, in any mode: `paddings` in opset 1, `pads` until 11, an input from it. */
static guint
pad_run (Noops *self, Onnx__NodeProto *node)
{
  g_autoptr (GArray) pads = NULL;

  if (!onyx_simplify_ints_argument (self->ctx, self->graph, node, self->opset < 2 ? "paddings" : "pads", 11, 1,
                                    &pads) ||
      pads == NULL || !all_zero (pads))
    return 0;
  return bypass (self, node, node->input[0]);
}

/* Concat of one input, Split into one output. */
static guint
single_run (Noops *self, Onnx__NodeProto *node)
{
  if ((onyx_simplify_is_op (node, "Concat") && node->n_input != 1) || node->n_output != 1)
    return 0;
  return bypass (self, node, node->input[0]);
}

/* Slice from 0 to the end (INT64_MAX, or at least the dim) by steps of 1; its
 * arguments are attributes until opset 10. */
static guint
slice_run (Noops *self, Onnx__NodeProto *node)
{
  g_autoptr (GArray) starts = NULL, ends = NULL, axes = NULL, steps = NULL, dims = NULL;
  gint rank;

  if (!onyx_simplify_ints_argument (self->ctx, self->graph, node, "starts", 10, 1, &starts) ||
      !onyx_simplify_ints_argument (self->ctx, self->graph, node, "ends", 10, 2, &ends) ||
      !onyx_simplify_ints_argument (self->ctx, self->graph, node, "axes", 10, 3, &axes) ||
      !onyx_simplify_ints_argument (self->ctx, self->graph, node, "steps", 10, 4, &steps) ||
      starts == NULL || ends == NULL || starts->len != ends->len || starts->len == 0 ||
      (axes != NULL && axes->len != starts->len) || (steps != NULL && steps->len != starts->len))
    return 0;
  rank = onyx_simplify_tensor_shape (self->ctx, self->graph, node->input[0], NULL, &dims, NULL) ? (gint) dims->len
                                                                                                 : -1;
  for (guint i = 0; i < starts->len; i++)
    {
      gint64 end = g_array_index (ends, gint64, i);
      gint64 axis = axes != NULL ? g_array_index (axes, gint64, i) : i;
      if (g_array_index (starts, gint64, i) != 0 || (steps != NULL && g_array_index (steps, gint64, i) != 1))
        return 0;
      if (end == G_MAXINT64)
        continue;
      axis += axis < 0 ? rank : 0;
      if (rank < 0 || axis < 0 || axis >= rank || g_array_index (dims, gint64, axis) < 0 ||
          end < g_array_index (dims, gint64, axis))
        return 0;
    }
  return bypass (self, node, node->input[0]);
}

/* x + 0, x - 0, x · 1, x / 1 (either side for + and ·), when no broadcast makes the
 * result larger or of another type than x. */
static guint
arithmetic_run (Noops *self, Onnx__NodeProto *node)
{
  gboolean adds = onyx_simplify_is_op (node, "Add") || onyx_simplify_is_op (node, "Sub");
  gboolean commutes = onyx_simplify_is_op (node, "Add") || onyx_simplify_is_op (node, "Mul");
  double neutral = adds ? 0 : 1;
  /* The constant on the right, or on either side when the operator commutes. */
  static const guint constant_sides[] = { 1, 0 };

  if (node->n_input != 2)
    return 0;
  for (guint i = 0; i < (commutes ? 2 : 1); i++)
    {
      const char *constant = node->input[constant_sides[i]], *operand = node->input[1 - constant_sides[i]];
      if (onyx_simplify_is_constant (self->ctx, self->graph, constant) &&
          onyx_simplify_same_type (self->ctx, self->graph, operand, node->output[0]) &&
          onyx_simplify_constant_all (self->ctx, self->graph, constant, neutral))
        return bypass (self, node, operand);
    }
  return 0;
}

typedef guint (*NoopRule) (Noops *self, Onnx__NodeProto *node);

static const struct {
  const char *op_type;
  NoopRule run;
} rules[] = {
  { "Identity", identity_run },
  { "Dropout", dropout_run },
  { "Cast", cast_run },
  { "Reshape", reshape_run },
  { "Expand", expand_run },
  { "Flatten", flatten_run },
  { "Squeeze", squeeze_run },
  { "Unsqueeze", unsqueeze_run },
  { "Transpose", transpose_run },
  { "Pad", pad_run },
  { "Concat", single_run },
  { "Split", single_run },
  { "Slice", slice_run },
  { "Add", arithmetic_run },
  { "Sub", arithmetic_run },
  { "Mul", arithmetic_run },
  { "Div", arithmetic_run },
};

static NoopRule
rule_for (const Onnx__NodeProto *node)
{
  if (node->n_input == 0 || node->input[0][0] == '\0' || node->n_output == 0 || node->output[0][0] == '\0')
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (rules); i++)
    if (onyx_simplify_is_op (node, rules[i].op_type))
      return rules[i].run;
  return NULL;
}

static guint
noops_run (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, GError **error)
{
  Onnx__ModelProto *model = onyx_document_get_proto (ctx->doc);
  /* Every operator the pass knows is ai.onnx's. */
  Noops self = { ctx, graph, onyx_opset_version (model->opset_import, model->n_opset_import, "") };
  g_autoptr (GPtrArray) candidates = g_ptr_array_new ();
  guint n_changes = 0;

  for (size_t n = 0; n < graph->n_node; n++)
    if (rule_for (graph->node[n]) != NULL)
      g_ptr_array_add (candidates, graph->node[n]);
  for (guint i = 0; i < candidates->len; i++)
    {
      Onnx__NodeProto *node = candidates->pdata[i];
      /* A pair's first node goes with the second. */
      if (onyx_document_contains_node (ctx->doc, node))
        n_changes += rule_for (node) (&self, node);
    }
  return n_changes;
}

const OnyxSimplifyPass onyx_simplify_noops_pass = {
  .name = "noops",
  .title = N_("No-ops"),
  .flag = ONYX_SIMPLIFY_NOOPS,
  .run = noops_run,
};
