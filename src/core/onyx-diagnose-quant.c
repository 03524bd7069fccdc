/* onyx-diagnose-quant.c: the checks of a model's quantization (onyx-quant.h), each
 * finding once: a scale that is 0, negative, NaN, infinite or subnormal; a zero point
 * outside its type's range or of another type than the output; a QuantizeLinear and
 * the DequantizeLinear after it that disagree; a per-axis or blocked scale that does
 * not fit its tensor; a float operator left between quantized ones. (A
 * DequantizeLinear nothing uses is the dead-node finding's, onyx_diagnose_add_dead.)
 * Values are those of constants: a scale fed as a graph input is not judged. */
#include "onyx-diagnose-private.h"
#include "onyx-quant-private.h"

#include <glib/gi18n-lib.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "onyx-attribute.h"
#include "onyx-text.h"
#include "onyx-types.h"

typedef struct {
  OnyxQuant *quant;
  OnyxCheckedGraph g;
  GPtrArray *out;
  OnyxQuantChecks *checks;
} Checking;

static char *
label_of (const Onnx__NodeProto *node, guint index)
{
  return onyx_node_label (node, (int) index);
}

/* "1e-40", "0.02": a value in a message. */
static char *
number_text (double value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup (g_ascii_formatd (buffer, sizeof buffer, "%.4g", value));
}

/* A count or index in a message (xgettext cannot read G_GINT64_FORMAT in a format). */
static char *
int_text (gint64 value)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT, value);
}

/* " at 3 of its 64 values (first at index 5)" for a tensor of several values; "" for one. */
static char *
where_text (guint64 n_bad, guint64 n, guint64 first)
{
  g_autofree char *bad = g_strdup_printf ("%" G_GUINT64_FORMAT, n_bad);
  g_autofree char *all = g_strdup_printf ("%" G_GUINT64_FORMAT, n);
  g_autofree char *at = g_strdup_printf ("%" G_GUINT64_FORMAT, first);

  if (n <= 1)
    return g_strdup ("");
  /* Translators: " at 3 of its 64 values (the first at index 5)". */
  return g_strdup_printf (ngettext (" at %s of its %s values (the first at index %s)",
                                    " at %s of its %s values (the first at index %s)", n_bad), bad, all, at);
}

/* ---- Scales ---- */

/* The smallest normal magnitude of a scale's type; 0 for types without subnormals. */
static double
smallest_normal (int32_t type)
{
  switch (type)
    {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
    case ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16: return FLT_MIN;
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16: return 6.103515625e-05;
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: return DBL_MIN;
    default: return 0;
    }
}

typedef enum { BAD_NAN, BAD_INF, BAD_ZERO, BAD_NEGATIVE, BAD_SUBNORMAL, N_BAD } Bad;

static Bad
judge_scale (double value, double normal)
{
  if (isnan (value))
    return BAD_NAN;
  if (isinf (value))
    return BAD_INF;
  if (value == 0)
    return BAD_ZERO;
  if (value < 0)
    return BAD_NEGATIVE;
  if (value < normal)
    return BAD_SUBNORMAL;
  return N_BAD;
}

static void
check_scale (Checking *c, const OnyxQuantRead *read)
{
  const char *name = read->node->input[read->slot];
  const Onnx__TensorProto *constant = onyx_quant_constant (c->quant, name);
  guint64 n = 0, n_bad[N_BAD] = { 0 }, first[N_BAD] = { 0 };
  g_autofree double *read_now = NULL;
  const double *values = NULL;
  g_autofree char *label = NULL, *shown = NULL, *where = NULL, *value = NULL;
  double normal;
  Bad worst = N_BAD;

  /* The tensor's record holds them already (an LLM's block scales are millions). */
  if (read->tensor != NULL && read->tensor->scales != NULL && g_strcmp0 (read->tensor->scale_name, name) == 0)
    values = read->tensor->scales, n = read->tensor->n_scales;
  else
    values = read_now = onyx_quant_read_values (c->quant, name, &n);
  if (values == NULL)
    return;
  c->checks->scales++;
  normal = smallest_normal (constant->data_type);
  for (guint64 i = 0; i < n; i++)
    {
      Bad bad = judge_scale (values[i], normal);
      if (bad == N_BAD)
        continue;
      if (n_bad[bad]++ == 0)
        first[bad] = i;
      worst = MIN (worst, bad);
    }
  if (worst == N_BAD)
    return;
  label = label_of (read->node, read->index);
  shown = onyx_display_escape (name);
  where = where_text (n_bad[worst], n, first[worst]);
  value = number_text (values[first[worst]]);
  switch (worst)
    {
    case BAD_NAN:
    case BAD_INF:
      onyx_diagnose_add (c->out, &c->g, ONYX_PROBLEM_QUANT_SCALE, ONYX_PROBLEM_ERROR, read->node, (int) read->index,
                         name, _("%s: scale '%s' is %s%s: every value quantized or dequantized with it is lost; "
                                 "calibrate the model again"),
                         label, shown, worst == BAD_NAN ? "NaN" : _("infinite"), where);
      break;
    case BAD_ZERO:
      onyx_diagnose_add (c->out, &c->g, ONYX_PROBLEM_QUANT_SCALE, ONYX_PROBLEM_ERROR, read->node, (int) read->index,
                         name, _("%s: scale '%s' is 0%s: quantizing divides by it, dequantizing makes every "
                                 "value 0; calibrate again"),
                         label, shown, where);
      break;
    case BAD_NEGATIVE:
      onyx_diagnose_add (c->out, &c->g, ONYX_PROBLEM_QUANT_SCALE, ONYX_PROBLEM_WARNING, read->node, (int) read->index,
                         name, _("%s: scale '%s' is negative (%s)%s: values come back with their sign flipped; "
                                 "scales are positive"),
                         label, shown, value, where);
      break;
    case BAD_SUBNORMAL:
    default:
      onyx_diagnose_add (c->out, &c->g, ONYX_PROBLEM_QUANT_SCALE, ONYX_PROBLEM_WARNING, read->node, (int) read->index,
                         name, _("%s: scale '%s' is subnormal (%s)%s: hardware that flushes it to 0 divides by 0; "
                                 "calibrate again, or leave that tensor in float"),
                         label, shown, value, where);
      break;
    }
}

/* ---- Zero points ---- */

static gboolean
is_integer_type (int32_t type)
{
  double low, high;
  /* (int32 is a bias's, whose every value is in range.) */
  return type != ONNX__TENSOR_PROTO__DATA_TYPE__INT32 && onyx_quant_type_range (type, &low, &high) &&
         low == floor (low) && high < 1e6;
}

static void
check_zero_point (Checking *c, const OnyxQuantRead *read)
{
  const char *name = read->node->input[read->slot];
  const Onnx__TensorProto *constant = onyx_quant_constant (c->quant, name);
  gint64 output_dtype = 0;
  guint64 n = 0, n_out = 0, first = 0;
  g_autofree double *values = NULL;
  g_autofree char *label = NULL, *shown = NULL;
  double low, high;

  if (constant == NULL)
    return;
  c->checks->zero_points++;
  label = label_of (read->node, read->index);
  shown = onyx_display_escape (name);
  /* QuantizeLinear's zero point says the type it makes: output_dtype may not say another. */
  if (onyx_quant_is_op (read->node, "QuantizeLinear") &&
      onyx_node_find_attribute (read->node, "output_dtype", NULL) != NULL &&
      (output_dtype = onyx_node_find_attribute (read->node, "output_dtype", NULL)->i) != 0 &&
      output_dtype != constant->data_type)
    {
      g_autofree char *zero_type = g_strdup (onyx_elem_type_name (constant->data_type));
      onyx_diagnose_add (c->out, &c->g, ONYX_PROBLEM_QUANT_ZERO_POINT, ONYX_PROBLEM_ERROR, read->node,
                         (int) read->index, name,
                         _("%s: zero point '%s' is %s, but output_dtype says the output is %s: the zero point's "
                           "type is the output's; make them one"),
                         label, shown, zero_type, onyx_elem_type_name ((int32_t) output_dtype));
      return;
    }
  if (!is_integer_type (constant->data_type) || !onyx_quant_type_range (constant->data_type, &low, &high) ||
      (values = onyx_quant_read_values (c->quant, name, &n)) == NULL)
    return;
  for (guint64 i = 0; i < n; i++)
    if (!(values[i] >= low && values[i] <= high) && n_out++ == 0)
      first = i;
  if (n_out > 0)
    {
      g_autofree char *where = where_text (n_out, n, first);
      g_autofree char *value = number_text (values[first]);
      g_autofree char *lowest = number_text (low), *highest = number_text (high);
      onyx_diagnose_add (c->out, &c->g, ONYX_PROBLEM_QUANT_ZERO_POINT, ONYX_PROBLEM_ERROR, read->node,
                         (int) read->index, name,
                         _("%s: zero point '%s' is %s%s, outside what %s holds (%s to %s): runtimes wrap it or "
                           "refuse the model"),
                         label, shown, value, where, onyx_elem_type_name (constant->data_type), lowest, highest);
    }
}

/* ---- QuantizeLinear → DequantizeLinear ---- */

/* Whether two parameter slots hold the same values: the same tensor, or constants
 * equal value for value (an absent zero point is 0). -1 when that cannot be told. */
static int
same_values (OnyxQuant *quant, const char *a, const char *b, double *first_a, double *first_b)
{
  guint64 n_a = 1, n_b = 1;
  g_autofree double *va = a != NULL ? onyx_quant_read_values (quant, a, &n_a) : g_new0 (double, 1);
  g_autofree double *vb = b != NULL ? onyx_quant_read_values (quant, b, &n_b) : g_new0 (double, 1);

  if (g_strcmp0 (a, b) == 0)
    return 1;
  if (va == NULL || vb == NULL)
    return -1;
  /* One value against several of it counts as different: the granularity differs. */
  for (guint64 i = 0; i < MAX (n_a, n_b); i++)
    if (n_a != n_b || va[i] != vb[i])
      {
        *first_a = va[MIN (i, n_a - 1)];
        *first_b = vb[MIN (i, n_b - 1)];
        return 0;
      }
  return 1;
}

static gint64
axis_of (const Onnx__NodeProto *node)
{
  const Onnx__AttributeProto *axis = onyx_node_find_attribute (node, "axis", NULL);
  return axis != NULL ? axis->i : 1;
}

static void
check_pair (Checking *c, const Onnx__NodeProto *quantizer, const Onnx__NodeProto *dequantizer, guint index)
{
  const char *q_zero = onyx_node_input (quantizer, 2), *d_zero = onyx_node_input (dequantizer, 2);
  double qa = 0, da = 0, qz = 0, dz = 0;
  int scales = quantizer->n_input > 1 && dequantizer->n_input > 1
                 ? same_values (c->quant, quantizer->input[1], dequantizer->input[1], &qa, &da) : -1;
  int zeros = same_values (c->quant, q_zero, d_zero, &qz, &dz);
  const OnyxQuantTensor *q = onyx_quant_lookup_tensor (c->quant, onyx_node_output (quantizer, 0));
  gboolean axes_differ = q != NULL && q->n_scales > 1 && axis_of (quantizer) != axis_of (dequantizer);
  g_autofree char *label = NULL, *other = NULL, *what = NULL, *mine = NULL, *theirs = NULL;

  if (scales < 0 || zeros < 0)
    return;
  c->checks->pairs++;
  if (scales && zeros && !axes_differ)
    return;
  label = label_of (dequantizer, index);
  other = onyx_display_escape (quantizer->name != NULL && quantizer->name[0] != '\0' ? quantizer->name
                                                                                      : quantizer->op_type);
  if (!scales)
    what = g_strdup (_("scale")), mine = number_text (da), theirs = number_text (qa);
  else if (!zeros)
    what = g_strdup (_("zero point")), mine = number_text (dz), theirs = number_text (qz);
  else
    what = g_strdup (_("axis")), mine = g_strdup_printf ("%" G_GINT64_FORMAT, axis_of (dequantizer)),
    theirs = g_strdup_printf ("%" G_GINT64_FORMAT, axis_of (quantizer));
  onyx_diagnose_add (c->out, &c->g, ONYX_PROBLEM_QUANT_PAIR, ONYX_PROBLEM_WARNING, dequantizer, (int) index,
                     dequantizer->input[0],
                     _("%s dequantizes with another %s than %s quantized with (%s against %s): values come back "
                       "changed, and the pair cannot be fused; give it the QuantizeLinear's scale and zero point"),
                     label, what, other, mine, theirs);
}

/* ---- Axes and shapes of scales ---- */

static void
add_axis_problem (Checking *c, const Onnx__NodeProto *node, guint index, const char *tensor, const char *format,
                  ...) G_GNUC_PRINTF (5, 6);

static void
add_axis_problem (Checking *c, const Onnx__NodeProto *node, guint index, const char *tensor, const char *format, ...)
{
  g_autofree char *label = label_of (node, index);
  g_autofree char *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  onyx_diagnose_add (c->out, &c->g, ONYX_PROBLEM_QUANT_AXIS, ONYX_PROBLEM_ERROR, node, (int) index, tensor, "%s: %s",
                     label, what);
}

/* QuantizeLinear and DequantizeLinear: the axis within the rank, one scale per
 * channel along it, or blocks that cover it; a zero point of the scale's shape. */
static void
check_linear_axis (Checking *c, const Onnx__NodeProto *node, guint index)
{
  const char *data = node->n_input > 0 ? node->input[0] : NULL;
  const char *scale_name = node->n_input > 1 ? node->input[1] : NULL;
  const Onnx__TensorProto *scale = onyx_quant_constant (c->quant, scale_name);
  const Onnx__TensorProto *zero = node->n_input > 2 ? onyx_quant_constant (c->quant, node->input[2]) : NULL;
  const Onnx__AttributeProto *block = onyx_node_find_attribute (node, "block_size", NULL);
  gint64 block_size = block != NULL ? block->i : 0, axis = axis_of (node);
  g_autofree gint64 *dims = NULL;
  g_autofree char *shown = NULL;
  gsize rank = 0;
  guint64 n_scales = 1;

  if (scale == NULL || !onyx_dims_n_elements (scale->dims, scale->n_dims, &n_scales) ||
      (n_scales <= 1 && block_size <= 0) || !onyx_quant_dims (c->quant, data, &dims, &rank))
    return;
  c->checks->axes++;
  shown = onyx_display_escape (data);
  if (axis < -(gint64) rank || axis >= (gint64) rank)
    {
      g_autofree char *axis_text = int_text (axis);
      add_axis_problem (c, node, index, data,
                        ngettext ("axis %s is outside the %zu dim of '%s': per-axis scales need an axis of the "
                                  "tensor",
                                  "axis %s is outside the %zu dims of '%s': per-axis scales need an axis of the "
                                  "tensor", rank),
                        axis_text, rank, shown);
      return;
    }
  if (axis < 0)
    axis += (gint64) rank;
  if (block_size <= 0 && dims[axis] >= 0 && (scale->n_dims != 1 || (guint64) dims[axis] != n_scales))
    {
      g_autofree char *count = int_text ((gint64) n_scales), *channels = int_text (dims[axis]);
      g_autofree char *axis_text = int_text (axis), *scale_shown = onyx_display_escape (scale_name);
      add_axis_problem (c, node, index, scale_name,
                        _("'%s' has %s scales, but '%s' has %s channels along axis %s: per-axis quantization takes "
                          "one scale per channel"),
                        scale_shown, count, shown, channels, axis_text);
    }
  else if (block_size > 0)
    {
      gboolean fits = scale->n_dims == rank;
      for (gsize d = 0; fits && d < rank; d++)
        if (dims[d] >= 0)
          fits = (gint64) d == axis ? scale->dims[d] == (dims[d] + block_size - 1) / block_size
                                    : scale->dims[d] == dims[d];
      if (!fits)
        {
          g_autofree char *scale_shape = onyx_dims_to_string (scale->dims, scale->n_dims);
          g_autofree char *data_shape = onyx_dims_to_string (dims, rank);
          g_autofree char *block_text = int_text (block_size), *axis_text = int_text (axis);
          g_autofree char *scale_shown = onyx_display_escape (scale_name);
          add_axis_problem (c, node, index, scale_name,
                            _("the scales '%s' are [%s], which blocks of %s along axis %s of '%s' ([%s]) do not "
                              "make: a blocked scale has the tensor's shape, its axis divided by the block size"),
                            scale_shown, scale_shape, block_text, axis_text, shown, data_shape);
        }
    }
  else if (zero != NULL && (zero->n_dims != scale->n_dims ||
                            memcmp (zero->dims, scale->dims, scale->n_dims * sizeof (gint64)) != 0))
    {
      g_autofree char *zero_shown = onyx_display_escape (node->input[2]);
      g_autofree char *scale_shown = onyx_display_escape (scale_name);
      add_axis_problem (c, node, index, node->input[2],
                        _("zero point '%s' does not have the shape of scale '%s': each scale takes its zero point"),
                        zero_shown, scale_shown);
    }
}

/* A weight's per-channel scales in QLinearConv (output channels) and QLinearMatMul
 * (columns): one, or one per channel. */
static void
check_weight_scales (Checking *c, const Onnx__NodeProto *node, guint index, guint weight, guint scale_slot, int axis)
{
  const char *scale_name = node->n_input > scale_slot ? node->input[scale_slot] : NULL;
  const Onnx__TensorProto *scale = onyx_quant_constant (c->quant, scale_name);
  g_autofree gint64 *dims = NULL;
  gsize rank = 0;
  guint64 n_scales = 1;
  gint64 channels;

  if (scale == NULL || !onyx_dims_n_elements (scale->dims, scale->n_dims, &n_scales) ||
      !onyx_quant_dims (c->quant, node->input[weight], &dims, &rank) || rank == 0)
    return;
  c->checks->axes++;
  channels = dims[axis < 0 ? (gint64) rank + axis : axis];
  if (n_scales != 1 && channels >= 0 && n_scales != (guint64) channels)
    {
      g_autofree char *shown = onyx_display_escape (node->input[weight]);
      g_autofree char *scale_shown = onyx_display_escape (scale_name);
      g_autofree char *count = int_text ((gint64) n_scales), *channels_text = int_text (channels);
      add_axis_problem (c, node, index, scale_name,
                        _("'%s' has %s scales, but weight '%s' has %s channels: one scale, or one per channel"),
                        scale_shown, count, shown, channels_text);
    }
}

/* MatMulNBits: a scale for each block of each of the N rows. */
static void
check_block_scales (Checking *c, const OnyxQuantTensor *tensor, guint index)
{
  const Onnx__NodeProto *node = tensor->node;
  const Onnx__AttributeProto *k = onyx_node_find_attribute (node, "K", NULL);
  const Onnx__AttributeProto *n = onyx_node_find_attribute (node, "N", NULL);
  gint64 blocks;

  if (!onyx_quant_is_op (node, "MatMulNBits") || k == NULL || n == NULL || k->i <= 0 || n->i <= 0 ||
      tensor->block_size <= 0 || onyx_quant_constant (c->quant, tensor->scale_name) == NULL)
    return;
  c->checks->axes++;
  blocks = n->i * ((k->i + tensor->block_size - 1) / tensor->block_size);
  if (tensor->n_scales != (guint64) blocks)
    {
      g_autofree char *scale_shown = onyx_display_escape (tensor->scale_name);
      g_autofree char *count = int_text ((gint64) tensor->n_scales), *rows = int_text (n->i), *depth = int_text (k->i);
      g_autofree char *block_text = int_text (tensor->block_size), *wanted = int_text (blocks);
      add_axis_problem (c, node, index, tensor->scale_name,
                        _("'%s' has %s scales, but N = %s rows of K = %s in blocks of %s take %s: a scale per block "
                          "of each row"),
                        scale_shown, count, rows, depth, block_text, wanted);
    }
}

/* ---- Float operators between quantized ones ---- */

static gboolean
dequantizes_activation (OnyxQuant *quant, const char *name)
{
  Onnx__NodeProto *producer = onyx_quant_producer (quant, name);
  return producer != NULL && onyx_quant_is_op (producer, "DequantizeLinear") &&
         onyx_quant_constant (quant, onyx_node_input (producer, 0)) == NULL;
}

static gboolean
is_dequantized (OnyxQuant *quant, const char *name)
{
  Onnx__NodeProto *producer = onyx_quant_producer (quant, name);
  return producer != NULL && onyx_quant_is_op (producer, "DequantizeLinear");
}

static void
check_float_op (Checking *c, const OnyxQuantNode *record)
{
  const Onnx__NodeProto *node = record->node;
  guint n_slots;
  int weight;
  const guint8 *slots = onyx_quant_data_slots (node, &n_slots, &weight);
  int dequantized = -1, left = -1;
  gboolean requantized = FALSE;
  const OnyxSchema *schema;

  if (record->role != ONYX_QUANT_FLOAT || slots == NULL)
    return;
  c->checks->float_ops++;
  for (guint i = 0; i < n_slots; i++)
    {
      const char *input = slots[i] < node->n_input ? node->input[slots[i]] : "";
      if (input[0] == '\0')
        continue;
      if (dequantized < 0 && dequantizes_activation (c->quant, input))
        dequantized = slots[i];
      else if (left < 0 && !is_dequantized (c->quant, input))
        left = slots[i];
    }
  for (size_t k = 0; k < node->n_output && !requantized; k++)
    requantized = onyx_quant_requantizer (c->quant, node->output[k]) != NULL;
  if (dequantized < 0 || left < 0 || !requantized)
    return;
  schema = onyx_schema_for_node (node, c->quant->model->opset_import, c->quant->model->n_opset_import);
  {
    g_autofree char *label = label_of (node, record->index);
    g_autofree char *slot = schema != NULL ? onyx_schema_input_name (schema, (guint) left) : NULL;
    g_autofree char *quantized_slot = schema != NULL ? onyx_schema_input_name (schema, (guint) dequantized) : NULL;
    g_autofree char *input = onyx_display_escape (node->input[left]);
    onyx_diagnose_add (c->out, &c->g, ONYX_PROBLEM_QUANT_FLOAT_OP, ONYX_PROBLEM_WARNING, node, (int) record->index,
                       node->input[left],
                       _("%s runs in float between quantized operators: its input %s ('%s') is not dequantized, "
                         "though %s is and its output is quantized again; quantize '%s' too, so that %s runs on "
                         "integers"),
                       label, slot != NULL ? slot : "", input, quantized_slot != NULL ? quantized_slot : "", input,
                       node->op_type);
  }
}

/* ---- All of them ---- */

void
onyx_diagnose_quant (const Onnx__ModelProto *model, const char *base_dir, GPtrArray *out, OnyxQuantChecks *checks)
{
  g_autoptr (OnyxQuant) quant = NULL;

  if (checks != NULL)
    memset (checks, 0, sizeof *checks);
  if (model->graph == NULL || !onyx_quant_graph_may_be_quantized (model->graph))
    return;
  quant = onyx_quant_new (model, base_dir);
  onyx_diagnose_quant_of (quant, out, checks);
}

void
onyx_diagnose_quant_of (OnyxQuant *quant, GPtrArray *out, OnyxQuantChecks *checks)
{
  const Onnx__ModelProto *model = quant->model;
  OnyxQuantChecks scratch = { 0 };
  g_autoptr (GHashTable) judged = NULL;
  Checking c;

  if (checks == NULL)
    checks = &scratch;
  memset (checks, 0, sizeof *checks);
  if (model->graph == NULL)
    return;
  c = (Checking) { quant, { "main graph", model->opset_import, model->n_opset_import, NULL, NULL, NULL, model->graph },
                   out, checks };
  judged = g_hash_table_new (g_str_hash, g_str_equal);
  /* A scale or zero point shared by several nodes is judged, and told, once. */
  for (guint i = 0; i < quant->scale_reads->len; i++)
    {
      const OnyxQuantRead *read = quant->scale_reads->pdata[i];
      if (g_hash_table_add (judged, read->node->input[read->slot]))
        check_scale (&c, read);
    }
  for (guint i = 0; i < quant->zero_point_reads->len; i++)
    {
      const OnyxQuantRead *read = quant->zero_point_reads->pdata[i];
      if (g_hash_table_add (judged, read->node->input[read->slot]))
        check_zero_point (&c, read);
    }
  for (size_t i = 0; i < model->graph->n_node; i++)
    {
      const OnyxQuantNode *record = onyx_quant_lookup_node (quant, model->graph->node[i]);
      const Onnx__NodeProto *node = record->node;
      if (onyx_quant_is_op (node, "DequantizeLinear"))
        {
          Onnx__NodeProto *quantizer = onyx_quant_producer (quant, node->n_input > 0 ? node->input[0] : NULL);
          checks->dequantizers++;
          if (quantizer != NULL && onyx_quant_is_op (quantizer, "QuantizeLinear"))
            check_pair (&c, quantizer, node, (guint) i);
        }
      if (onyx_quant_is_op (node, "QuantizeLinear") || onyx_quant_is_op (node, "DequantizeLinear"))
        check_linear_axis (&c, node, (guint) i);
      else if (onyx_quant_is_op (node, "QLinearConv"))
        check_weight_scales (&c, node, (guint) i, 3, 4, 0);
      else if (onyx_quant_is_op (node, "QLinearMatMul"))
        check_weight_scales (&c, node, (guint) i, 3, 4, -1);
      check_float_op (&c, record);
    }
  for (guint i = 0; i < quant->tensors->len; i++)
    {
      const OnyxQuantTensor *tensor = quant->tensors->pdata[i];
      const OnyxQuantNode *record = onyx_quant_lookup_node (quant, tensor->node);
      check_block_scales (&c, tensor, record->index);
    }
  checks->unread = onyx_quant_get_unread (quant, &checks->unread_values);
}
