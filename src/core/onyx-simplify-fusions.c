/* Simplify's fusions, what ONNX Runtime's basic level fuses, kept in standard ONNX:
 * an inference BatchNormalization into the Conv, ConvTranspose or Gemm before it, an
 * Add of a constant into a Conv's bias, a Mul of a constant into a Conv's or a
 * MatMul's weight. Each is a scale and a shift per output channel of the node before,
 * which its weight (scaled) and its bias (scaled and shifted) take: computed in
 * double, stored in the weight's own type. That node keeps its name; the
 * BatchNormalization, Add or Mul goes. */
#include <math.h>
#include <string.h>

#include "onyx-simplify-private.h"

#include <glib/gi18n-lib.h>

#include "onyx-schema.h"
#include "onyx-tensor-values.h"

/* Weights are read whole, as doubles, to be fused: past this (a 4096 × 4096 float
 * matrix) they stay as they are, so that a fusion holds a few times this at most
 * (the copy read, its doubles, the result). */
#define LARGEST_WEIGHT (G_GUINT64_CONSTANT (64) << 20)

#define WEIGHT_INPUT 1
#define BIAS_INPUT 2

typedef enum {
  TARGET_CONV           = 1 << 0,
  TARGET_CONV_TRANSPOSE = 1 << 1,
  TARGET_GEMM           = 1 << 2,
  TARGET_MATMUL         = 1 << 3,
} TargetKind;

/* The node a scale and a shift fold into, and where its output channels are. */
typedef struct {
  Onnx__NodeProto *node;
  TargetKind kind;
  OnyxArray *weight;        /* W of a Conv, B of a Gemm or MatMul */
  double *weights;
  OnyxArray *bias;          /* B of a Conv, C of a Gemm; NULL when absent */
  double *biases;
  gint64 n_channels;        /* M of a Conv, N of a Gemm or MatMul */
  gint64 output_rank;       /* -1 while unknown (a MatMul's) */
  gint64 channel_axis;      /* of the output */
  gint64 group;             /* of a ConvTranspose */
  gboolean trans_b;         /* of a Gemm */
  double beta;              /* of a Gemm */
} Target;

/* What the follower does per output channel: y × scale + shift (NULL: × 1, + 0). */
typedef struct {
  double *scale;
  double *shift;
} Affine;

static void
target_clear (Target *target)
{
  g_clear_pointer (&target->weight, onyx_array_free);
  g_clear_pointer (&target->bias, onyx_array_free);
  g_clear_pointer (&target->weights, g_free);
  g_clear_pointer (&target->biases, g_free);
}

static void
affine_clear (Affine *affine)
{
  g_clear_pointer (&affine->scale, g_free);
  g_clear_pointer (&affine->shift, g_free);
}

static double
attribute_float (const Onnx__NodeProto *node, const char *name, double fallback)
{
  const Onnx__AttributeProto *attr = onyx_simplify_attribute (node, name);
  return attr != NULL ? attr->f : fallback;
}

static TargetKind
target_kind (const Onnx__NodeProto *node)
{
  return onyx_simplify_is_op (node, "Conv")            ? TARGET_CONV
         : onyx_simplify_is_op (node, "ConvTranspose") ? TARGET_CONV_TRANSPOSE
         : onyx_simplify_is_op (node, "Gemm")          ? TARGET_GEMM
         : onyx_simplify_is_op (node, "MatMul")        ? TARGET_MATMUL
                                                       : 0;
}

/* A constant initializer's floating-point values, NULL when it is none or too big. */
static OnyxArray *
read_initializer (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const char *name, double **values)
{
  Onnx__TensorProto *tensor = onyx_simplify_initializer (ctx, graph, name);
  OnyxArray *array;
  guint64 n_bytes;

  if (tensor == NULL || !onyx_tensor_n_bytes (tensor, &n_bytes) || n_bytes > LARGEST_WEIGHT ||
      (array = onyx_tensor_read_array (tensor, ctx->base_dir, NULL)) == NULL)
    return NULL;
  if ((*values = onyx_simplify_float_values (array)) == NULL)
    g_clear_pointer (&array, onyx_array_free);
  return array;
}

/* Whether a constant of these dims, lined up with the target's output from axis
 * `first` (G_MININT64: at its end, as numpy broadcasts), holds one value or one per
 * output channel without widening the output: *per_channel says which. */
static gboolean
lines_up_per_channel (const Target *target, const OnyxArray *constant, gint64 first, gboolean *per_channel)
{
  gint64 rank = target->output_rank, n_dims = (gint64) constant->n_dims;

  *per_channel = FALSE;
  if (first == G_MININT64)
    first = rank - n_dims;
  if (rank < 0 || first < 0 || first + n_dims > rank)
    return FALSE;
  for (gint64 i = 0; i < n_dims; i++)
    {
      if (constant->dims[i] == 1)
        continue;
      if (first + i != target->channel_axis || constant->dims[i] != target->n_channels)
        return FALSE;
      *per_channel = TRUE;
    }
  return TRUE;
}

/* The node before the follower, when it is of a kind in `accepted` with constant
 * weights of a floating-point type, and where its channels are. */
static gboolean
target_read (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, Onnx__NodeProto *node, TargetKind accepted,
             gint64 opset, Target *target)
{
  const gint64 *dims;
  gsize n_dims;
  gboolean per_channel;

  target->node = node;
  target->kind = target_kind (node);
  if (!(target->kind & accepted) || node->n_output != 1 || node->n_input < 2 ||
      (target->weight = read_initializer (ctx, graph, node->input[WEIGHT_INPUT], &target->weights)) == NULL)
    return FALSE;
  if (target->kind != TARGET_MATMUL && node->n_input > BIAS_INPUT && node->input[BIAS_INPUT][0] != '\0' &&
      ((target->bias = read_initializer (ctx, graph, node->input[BIAS_INPUT], &target->biases)) == NULL ||
       target->bias->elem_type != target->weight->elem_type))
    return FALSE;
  dims = target->weight->dims;
  n_dims = target->weight->n_dims;
  target->channel_axis = 1;
  switch (target->kind)
    {
    case TARGET_CONV:
      target->n_channels = n_dims >= 3 ? dims[0] : 0;
      target->output_rank = (gint64) n_dims;
      break;
    case TARGET_CONV_TRANSPOSE:
      /* W is [C, M / group, k…]: M = W's second dim × group. */
      target->group = onyx_simplify_attribute_int (node, "group", 1);
      target->n_channels = n_dims >= 3 && target->group > 0 && dims[0] % target->group == 0
                             ? dims[1] * target->group : 0;
      target->output_rank = (gint64) n_dims;
      break;
    case TARGET_GEMM:
      /* Before opset 7 a C of fewer dims than the output needs broadcast=1. */
      if (opset < 7 && onyx_simplify_attribute_int (node, "broadcast", 0) != 1)
        return FALSE;
      target->trans_b = onyx_simplify_attribute_int (node, "transB", 0) != 0;
      target->beta = attribute_float (node, "beta", 1.0);
      target->n_channels = n_dims == 2 && target->beta != 0 ? dims[target->trans_b ? 0 : 1] : 0;
      target->output_rank = 2;
      break;
    case TARGET_MATMUL:
      target->n_channels = n_dims == 2 ? dims[1] : 0;
      target->output_rank = -1;
      break;
    }
  if (target->n_channels <= 0)
    return FALSE;
  if (target->bias == NULL)
    return TRUE;
  /* A Conv's bias is [M]; a Gemm's C fuses when it is the same for every row. */
  if (target->kind == TARGET_GEMM)
    return lines_up_per_channel (target, target->bias, G_MININT64, &per_channel);
  return target->bias->n_dims == 1 && target->bias->dims[0] == target->n_channels;
}

/* The output channel of element `i` of the weight's `count`. */
static gint64
weight_channel (const Target *target, guint64 count, guint64 i)
{
  const gint64 *dims = target->weight->dims;

  switch (target->kind)
    {
    case TARGET_CONV:
      /* [M, C / group, k…] */
      return (gint64) (i / (count / (guint64) dims[0]));
    case TARGET_CONV_TRANSPOSE:
      {
        /* [C, M / group, k…]: W[c, j] makes channel g × (M / group) + j, c in group g. */
        guint64 inner = count / (guint64) (dims[0] * dims[1]);
        guint64 c = i / ((guint64) dims[1] * inner), j = (i / inner) % (guint64) dims[1];
        return (gint64) ((c / (guint64) (dims[0] / target->group)) * (guint64) dims[1] + j);
      }
    case TARGET_GEMM:
      /* [K, N], or [N, K] with transB */
      return target->trans_b ? (gint64) (i / (guint64) dims[1]) : (gint64) (i % (guint64) dims[1]);
    case TARGET_MATMUL:
      return (gint64) (i % (guint64) dims[1]);
    }
  g_return_val_if_reached (0);
}

/* An inference BatchNormalization's scale and shift: s / √(var + ε) and
 * B − mean × s / √(var + ε). */
static gboolean
affine_of_batch_norm (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const Onnx__NodeProto *norm,
                      const Target *target, Affine *affine)
{
  g_autoptr (OnyxArray) scale = NULL, bias = NULL, mean = NULL, var = NULL;
  g_autofree double *scales = NULL, *biases = NULL, *means = NULL, *vars = NULL;
  OnyxArray **arrays[] = { &scale, &bias, &mean, &var };
  double **values[] = { &scales, &biases, &means, &vars };
  double epsilon = attribute_float (norm, "epsilon", 1e-5);
  gint64 m = target->n_channels;

  for (guint i = 0; i < G_N_ELEMENTS (arrays); i++)
    {
      *arrays[i] = onyx_simplify_constant_value (ctx, graph, norm->input[i + 1], LARGEST_WEIGHT, NULL);
      if (*arrays[i] == NULL || (*arrays[i])->n_dims != 1 || (*arrays[i])->dims[0] != m ||
          (*values[i] = onyx_simplify_float_values (*arrays[i])) == NULL)
        return FALSE;
    }
  affine->scale = g_new (double, m);
  affine->shift = g_new (double, m);
  for (gint64 c = 0; c < m; c++)
    {
      double factor = scales[c] / sqrt (vars[c] + epsilon);
      if (!isfinite (factor) || !isfinite (biases[c] - means[c] * factor))
        return FALSE;
      affine->scale[c] = factor;
      affine->shift[c] = biases[c] - means[c] * factor;
    }
  return TRUE;
}

/* Whether the follower may fold into the node before it, as far as it alone says
 * (before any weight is read): an inference BatchNormalization of constant
 * statistics, an Add or Mul of a constant that broadcasts. */
static gboolean
follower_folds (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const Onnx__NodeProto *follower,
                guint data_input, gint64 opset)
{
  if (onyx_simplify_is_op (follower, "BatchNormalization"))
    {
      /* Training computes the batch's statistics: before opset 7 unless is_test, from
       * 7 to 13 when it has more outputs than Y, from 14 with training_mode. Before 9
       * a spatial of 0 normalizes per element. */
      if ((opset < 7 && onyx_simplify_attribute_int (follower, "is_test", 0) == 0) ||
          (opset < 9 && onyx_simplify_attribute_int (follower, "spatial", 1) != 1) ||
          onyx_simplify_attribute_int (follower, "training_mode", 0) != 0 || follower->n_input != 5)
        return FALSE;
      for (size_t k = 1; k < follower->n_output; k++)
        if (follower->output[k][0] != '\0')
          return FALSE;
      for (guint k = 1; k < 5; k++)
        if (!onyx_simplify_is_constant (ctx, graph, follower->input[k]))
          return FALSE;
      return TRUE;
    }
  /* Before opset 7 only the second input broadcasts, and only with broadcast=1. */
  if (opset < 7 && (data_input != 0 || onyx_simplify_attribute_int (follower, "broadcast", 0) != 1))
    return FALSE;
  return follower->n_input == 2 && follower->n_output == 1 &&
         onyx_simplify_is_constant (ctx, graph, follower->input[1 - data_input]);
}

/* The rank of a MatMul's output as far as a constant of `constant_rank` dims lining
 * up with its end needs it (G_MAXSIZE: exactly), -1 when unknown. */
static gint64
matmul_output_rank (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const Target *target, gsize constant_rank)
{
  g_autoptr (GArray) dims = NULL;

  /* A constant of one dim at most lines up with the last axis, whatever the rank. */
  if (constant_rank <= 1)
    return 1;
  if (!onyx_simplify_tensor_shape (ctx, graph, target->node->input[0], NULL, &dims, NULL))
    return -1;
  /* A vector times a matrix is a vector. */
  return dims->len >= 2 ? (gint64) dims->len : 1;
}

/* An Add's shift or a Mul's scale, from its constant input: one value, or one per
 * output channel. */
static gboolean
affine_of_constant (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const Onnx__NodeProto *follower,
                    guint data_input, gint64 opset, Target *target, Affine *affine)
{
  /* Before opset 7 the constant lines up at `axis` when there is one. */
  const Onnx__AttributeProto *axis = opset < 7 ? onyx_simplify_attribute (follower, "axis") : NULL;
  g_autoptr (OnyxArray) constant = NULL;
  g_autofree double *values = NULL;
  gint64 first = G_MININT64;
  gboolean per_channel;
  double *per;

  constant = onyx_simplify_constant_value (ctx, graph, follower->input[1 - data_input], LARGEST_WEIGHT, NULL);
  if (constant == NULL || constant->elem_type != target->weight->elem_type ||
      (values = onyx_simplify_float_values (constant)) == NULL)
    return FALSE;
  if (target->kind == TARGET_MATMUL)
    {
      target->output_rank = matmul_output_rank (ctx, graph, target, axis != NULL ? G_MAXSIZE : constant->n_dims);
      target->channel_axis = target->output_rank - 1;
    }
  if (axis != NULL)
    first = axis->i < 0 ? axis->i + target->output_rank : axis->i;
  if (!lines_up_per_channel (target, constant, first, &per_channel))
    return FALSE;
  per = g_new (double, target->n_channels);
  for (gint64 c = 0; c < target->n_channels; c++)
    per[c] = values[per_channel ? c : 0];
  if (onyx_simplify_is_op (follower, "Add"))
    affine->shift = per;
  else
    affine->scale = per;
  for (gint64 c = 0; c < target->n_channels; c++)
    if (!isfinite (per[c]))
      return FALSE;
  return TRUE;
}

/* The target's bias after the affine, as its kind takes it: [M] for a Conv, [N] (or
 * [1, N] when C was) for a Gemm, whose C is multiplied by beta. */
static OnyxArray *
fused_bias (const Target *target, const Affine *affine, const char *name)
{
  g_autofree double *values = g_new (double, target->n_channels);
  gboolean shared = target->bias != NULL && onyx_array_count (target->bias) == 1;
  gint64 dims[2] = { 1, target->n_channels };
  gsize n_dims = target->kind == TARGET_GEMM && target->bias != NULL && target->bias->n_dims == 2 ? 2 : 1;

  for (gint64 c = 0; c < target->n_channels; c++)
    {
      double value = target->biases != NULL ? target->biases[shared ? 0 : c] : 0;
      if (affine->scale != NULL)
        value *= affine->scale[c];
      if (affine->shift != NULL)
        value += target->kind == TARGET_GEMM ? affine->shift[c] / target->beta : affine->shift[c];
      values[c] = value;
    }
  return onyx_simplify_float_array (name, target->weight->elem_type, dims + 2 - n_dims, n_dims, values);
}

/* The follower's affine into the target: its weight scaled, its bias scaled and
 * shifted (made when absent), the follower bypassed. FALSE when nothing changed. */
static gboolean
apply (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, Onnx__NodeProto *follower, Target *target,
       const Affine *affine)
{
  Onnx__NodeProto *node = target->node;
  g_autoptr (OnyxArray) weight = NULL, bias = NULL;
  g_autofree char *weight_base = NULL, *bias_base = NULL;
  guint64 count = onyx_array_count (target->weight);

  /* A shift alone leaves the weight as it is. */
  if (affine->scale != NULL)
    {
      for (guint64 i = 0; i < count; i++)
        {
          target->weights[i] *= affine->scale[weight_channel (target, count, i)];
          if (!isfinite (target->weights[i]))
            return FALSE;
        }
      weight = onyx_simplify_float_array (NULL, target->weight->elem_type, target->weight->dims,
                                          target->weight->n_dims, target->weights);
    }
  if (affine->shift != NULL || (affine->scale != NULL && target->bias != NULL))
    bias = fused_bias (target, affine, NULL);
  if (!onyx_simplify_bypass (ctx, graph, follower, 0, node->output[0]))
    return FALSE;
  if (weight != NULL)
    {
      weight_base = g_strdup_printf ("%s_fused", node->input[WEIGHT_INPUT]);
      onyx_simplify_set_constant_input (ctx, graph, node, WEIGHT_INPUT, weight, weight_base);
    }
  if (bias != NULL)
    {
      const char *current = node->n_input > BIAS_INPUT ? node->input[BIAS_INPUT] : "";
      bias_base = current[0] != '\0' ? g_strdup_printf ("%s_fused", current)
                                     : g_strdup_printf ("%s_bias", node->name != NULL && node->name[0] != '\0'
                                                                     ? node->name : node->output[0]);
      onyx_simplify_set_constant_input (ctx, graph, node, BIAS_INPUT, bias, bias_base);
    }
  return TRUE;
}

/* Folds `follower` into the node before it when it can. */
static gboolean
fuse (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, Onnx__NodeProto *follower, gint64 opset)
{
  gboolean norm = onyx_simplify_is_op (follower, "BatchNormalization");
  gboolean add = onyx_simplify_is_op (follower, "Add");
  TargetKind accepted = norm ? TARGET_CONV | TARGET_CONV_TRANSPOSE | TARGET_GEMM
                        : add ? TARGET_CONV
                              : TARGET_CONV | TARGET_MATMUL;
  /* Add and Mul commute from opset 7 (before it only the second input broadcasts). */
  guint n_data_inputs = norm || opset < 7 ? 1 : MIN (follower->n_input, 2);

  for (guint data = 0; data < n_data_inputs && follower->n_input > 0; data++)
    {
      const char *input = follower->input[data];
      Onnx__NodeProto *producer = onyx_simplify_producer (ctx, graph, input);
      Target target = { 0 };
      Affine affine = { 0 };
      gboolean fused;

      /* The node's output must go to the follower alone. */
      if (producer == NULL || !(target_kind (producer) & accepted) || producer->n_output != 1 ||
          g_strcmp0 (producer->output[0], input) != 0 || onyx_simplify_n_uses (ctx, graph, input) != 1 ||
          onyx_simplify_is_output (graph, input) || !follower_folds (ctx, graph, follower, data, opset))
        continue;
      fused = target_read (ctx, graph, producer, accepted, opset, &target) &&
              (norm ? affine_of_batch_norm (ctx, graph, follower, &target, &affine)
                    : affine_of_constant (ctx, graph, follower, data, opset, &target, &affine)) &&
              apply (ctx, graph, follower, &target, &affine);
      target_clear (&target);
      affine_clear (&affine);
      if (fused)
        return TRUE;
    }
  return FALSE;
}

static guint
fusions_run (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, GError **error)
{
  Onnx__ModelProto *model = onyx_document_get_proto (ctx->doc);
  gint64 opset = onyx_opset_version (model->opset_import, model->n_opset_import, "");
  g_autoptr (GPtrArray) followers = g_ptr_array_new ();
  guint n_fused = 0;

  for (size_t n = 0; n < graph->n_node; n++)
    if (onyx_simplify_is_op (graph->node[n], "BatchNormalization") || onyx_simplify_is_op (graph->node[n], "Add") ||
        onyx_simplify_is_op (graph->node[n], "Mul"))
      g_ptr_array_add (followers, graph->node[n]);
  /* In graph order, so that a chain (Conv, Mul, Add) folds in one go: each follower
   * finds the Conv that the one before it was folded into. */
  for (guint i = 0; i < followers->len; i++)
    n_fused += fuse (ctx, graph, followers->pdata[i], opset);
  return n_fused;
}

const OnyxSimplifyPass onyx_simplify_fusions_pass = {
  .name = "fusions",
  .title = N_("Fusions"),
  .flag = ONYX_SIMPLIFY_FUSIONS,
  .run = fusions_run,
};
