/* onyx-quant-tensors.c: the tensors a model holds quantized, as the slots of the
 * nodes that quantize, dequantize or compute on them say: QuantizeLinear and
 * DequantizeLinear, block-quantized weights (MatMulNBits, GatherBlockQuantized), and
 * every slot S with its S_scale and S_zero_point (QLinearConv, QGemm, ConvInteger…). */
#include "onyx-quant-private.h"

#include <math.h>
#include <string.h>

#include "onyx-schema.h"
#include "onyx-types.h"

/* ONNX's quantization operators, whose slots have kept their names at every opset
 * (the schema table may not know a newer opset's). */
static const struct {
  const char *op;
  const char *inputs;
  const char *outputs;
} standard_slots[] = {
  { "QuantizeLinear", "x y_scale y_zero_point", "y" },
  { "DequantizeLinear", "x x_scale x_zero_point", "y" },
  { "DynamicQuantizeLinear", "x", "y y_scale y_zero_point" },
  { "QLinearConv", "x x_scale x_zero_point w w_scale w_zero_point y_scale y_zero_point B", "y" },
  { "QLinearMatMul", "a a_scale a_zero_point b b_scale b_zero_point y_scale y_zero_point", "y" },
  { "ConvInteger", "x w x_zero_point w_zero_point", "y" },
  { "MatMulInteger", "A B a_zero_point b_zero_point", "Y" },
};

/* The node's slot names (a NULL-terminated array each), from the table above or its
 * schema; FALSE when neither knows the operator. */
static gboolean
slot_names (OnyxQuant *quant, const Onnx__NodeProto *node, GStrv *inputs, GStrv *outputs)
{
  const OnyxSchema *schema;
  guint n_versions;

  for (guint i = 0; i < G_N_ELEMENTS (standard_slots); i++)
    if (onyx_quant_is_op (node, standard_slots[i].op))
      {
        *inputs = g_strsplit (standard_slots[i].inputs, " ", -1);
        *outputs = g_strsplit (standard_slots[i].outputs, " ", -1);
        return TRUE;
      }
  schema = onyx_schema_for_node (node, quant->model->opset_import, quant->model->n_opset_import);
  /* A newer opset than the library knows: its newest schema names the slots. */
  if (schema == NULL && (schema = onyx_schema_history (node->domain, node->op_type, &n_versions)) != NULL)
    schema += n_versions - 1;
  if (schema == NULL)
    return FALSE;
  *inputs = g_new0 (char *, node->n_input + 1);
  *outputs = g_new0 (char *, node->n_output + 1);
  for (size_t k = 0; k < node->n_input; k++)
    (*inputs)[k] = onyx_schema_input_name (schema, (guint) k);
  for (size_t k = 0; k < node->n_output; k++)
    (*outputs)[k] = onyx_schema_output_name (schema, (guint) k);
  /* A NULL past the schema's slots would end the array early: empty names instead. */
  for (size_t k = 0; k < node->n_input; k++)
    if ((*inputs)[k] == NULL)
      (*inputs)[k] = g_strdup ("");
  for (size_t k = 0; k < node->n_output; k++)
    if ((*outputs)[k] == NULL)
      (*outputs)[k] = g_strdup ("");
  return TRUE;
}

static int
find_slot (GStrv names, const char *wanted)
{
  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    if (g_ascii_strcasecmp (names[i], wanted) == 0)
      return (int) i;
  return -1;
}

/* The input slots of the scale and zero point of data slot `name`: S_scale and
 * S_zero_point; a weight's "_quant" or "_experts_weights" dropped first
 * (QEmbedLayerNormalization's word_embedding_quant, QMoE's fc1_experts_weights). */
static void
find_parameters (GStrv inputs, const char *name, int *scale, int *zero_point)
{
  g_autofree char *stem = g_strdup (name);
  const char *suffixes[] = { "_quant", "_experts_weights" };

  *scale = *zero_point = -1;
  for (guint round = 0; round < 2 && *scale < 0 && *zero_point < 0; round++)
    {
      g_autofree char *s = g_strconcat (stem, "_scale", NULL);
      g_autofree char *ss = g_strconcat (stem, "_scales", NULL);
      g_autofree char *z = g_strconcat (stem, "_zero_point", NULL);
      g_autofree char *zs = g_strconcat (stem, "_zero_points", NULL);
      *scale = find_slot (inputs, s) >= 0 ? find_slot (inputs, s) : find_slot (inputs, ss);
      *zero_point = find_slot (inputs, z) >= 0 ? find_slot (inputs, z) : find_slot (inputs, zs);
      for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
        if (g_str_has_suffix (stem, suffixes[i]))
          stem[strlen (stem) - strlen (suffixes[i])] = '\0';
    }
}

/* ---- Quantized tensors ---- */

void
onyx_quant_tensor_free (OnyxQuantTensor *tensor)
{
  g_free (tensor->name);
  g_free (tensor->float_name);
  g_free (tensor->scale_name);
  g_free (tensor->zero_point_name);
  g_free (tensor->scales);
  g_free (tensor->zero_points);
  g_free (tensor);
}

static void
add_name (OnyxQuant *quant, const char *name, OnyxQuantTensor *tensor)
{
  if (name != NULL && name[0] != '\0' && !g_hash_table_contains (quant->by_name, name))
    g_hash_table_insert (quant->by_name, (gpointer) name, tensor);
}

/* The float range the quantized values hold, over every channel. */
static void
compute_range (OnyxQuantTensor *tensor)
{
  double low, high;
  guint64 n = tensor->n_scales;

  if (tensor->scales == NULL || n == 0 || !onyx_quant_type_range (tensor->elem_type, &low, &high))
    return;
  tensor->range_min = INFINITY;
  tensor->range_max = -INFINITY;
  for (guint64 c = 0; c < n; c++)
    {
      double zero = tensor->zero_points != NULL ? tensor->zero_points[c] : 0;
      double a = (low - zero) * tensor->scales[c], b = (high - zero) * tensor->scales[c];
      if (!isfinite (a) || !isfinite (b))
        continue;
      tensor->range_min = MIN (tensor->range_min, MIN (a, b));
      tensor->range_max = MAX (tensor->range_max, MAX (a, b));
    }
  tensor->has_range = tensor->range_min <= tensor->range_max;
}

/* MatMulNBits's zero points: `bits` each, packed low bits first in the bytes of a row
 * per column of the weight (N of them, the row padded to a byte), one per block and
 * so per scale. NULL when their count says another layout. */
static double *
unpack_zero_points (const double *bytes, guint64 n_bytes, guint64 n_scales, guint bits, gint64 n_columns)
{
  guint64 n_blocks, per_row;
  double *zeros;

  if (bits == 0 || 8 % bits != 0 || n_columns <= 0 || n_scales % (guint64) n_columns != 0)
    return NULL;
  n_blocks = n_scales / (guint64) n_columns;
  per_row = (n_blocks * bits + 7) / 8;
  if (per_row * (guint64) n_columns != n_bytes)
    return NULL;
  zeros = g_new (double, n_scales);
  for (guint64 c = 0; c < (guint64) n_columns; c++)
    for (guint64 b = 0; b < n_blocks; b++)
      {
        guint64 bit = b * bits;
        guint byte = (guint) bytes[c * per_row + bit / 8];
        zeros[c * n_blocks + b] = (double) ((byte >> (bit % 8)) & ((1u << bits) - 1));
      }
  return zeros;
}

/* Reads the scale and zero point of a tensor from their slots' constants. */
void
onyx_quant_read_parameters (OnyxQuant *quant, OnyxQuantTensor *tensor)
{
  const Onnx__TensorProto *scale = onyx_quant_constant (quant, tensor->scale_name);
  guint64 n_scales = 0, n_zeros = 0;

  if (scale != NULL && !onyx_dims_n_elements (scale->dims, scale->n_dims, &tensor->n_scales))
    tensor->n_scales = 0;
  tensor->scales = onyx_quant_read_values (quant, tensor->scale_name, &n_scales);
  if (tensor->zero_point_name != NULL)
    {
      tensor->zero_points = onyx_quant_read_values (quant, tensor->zero_point_name, &n_zeros);
      /* Packed zero points (MatMulNBits's two a byte) are one per scale unpacked. */
      if (tensor->zero_points != NULL && n_zeros != n_scales)
        {
          double *unpacked = tensor->bits > 0 && tensor->bits < 8 && tensor->node != NULL
                               ? unpack_zero_points (tensor->zero_points, n_zeros, n_scales, tensor->bits,
                                                     onyx_quant_int_attribute (tensor->node, "N", 0))
                               : NULL;
          g_free (tensor->zero_points);
          tensor->zero_points = unpacked;
        }
    }
  compute_range (tensor);
}

OnyxQuantTensor *
onyx_quant_new_tensor (OnyxQuant *quant, const Onnx__NodeProto *node, const char *name, const char *float_name,
                       int32_t elem_type, const char *scale, const char *zero_point)
{
  OnyxQuantTensor *tensor = g_new0 (OnyxQuantTensor, 1);

  tensor->name = g_strdup (name);
  tensor->float_name = g_strdup (float_name);
  tensor->node = node;
  tensor->elem_type = elem_type;
  tensor->scale_name = g_strdup (scale);
  tensor->zero_point_name = g_strdup (zero_point);
  tensor->axis = -1;
  g_ptr_array_add (quant->tensors, tensor);
  add_name (quant, tensor->name, tensor);
  add_name (quant, tensor->float_name, tensor);
  return tensor;
}

/* Per-axis and blocked quantization: the axis from the front when the rank is known. */
static void
set_axis (OnyxQuant *quant, OnyxQuantTensor *tensor, const char *data, gint64 axis)
{
  g_autofree gint64 *dims = NULL;
  gsize n_dims = 0;
  const Onnx__TensorProto *scale = onyx_quant_constant (quant, tensor->scale_name);

  /* A scalar or single-element scale is per tensor, whatever the axis says. */
  if (scale == NULL || tensor->n_scales <= 1)
    return;
  if (onyx_quant_dims (quant, data, &dims, &n_dims) && axis < 0 && axis >= -(gint64) n_dims)
    axis += (gint64) n_dims;
  tensor->axis = (int) CLAMP (axis, G_MININT, G_MAXINT);
}

/* The type a QuantizeLinear makes: its zero point's, else output_dtype, else uint8. */
int32_t
onyx_quant_quantize_type (OnyxQuant *quant, const Onnx__NodeProto *node)
{
  int32_t type = onyx_quant_stored_type (quant, onyx_node_input (node, 2));
  gint64 output_dtype = onyx_quant_int_attribute (node, "output_dtype", 0);

  if (type != 0)
    return type;
  if (output_dtype != 0)
    return (int32_t) output_dtype;
  type = onyx_quant_stored_type (quant, onyx_node_output (node, 0));
  return type != 0 ? type : ONYX_QT_UINT8;
}

/* The type of a tensor held quantized: as stored, or as the record of what makes it
 * says, or its zero point's. */
static int32_t
quantized_type (OnyxQuant *quant, const char *name, const char *zero_point)
{
  const OnyxQuantTensor *known = name != NULL ? g_hash_table_lookup (quant->by_name, name) : NULL;
  int32_t type = onyx_quant_stored_type (quant, name);

  if (type != 0 && type != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT)
    return type;
  if (known != NULL && g_strcmp0 (known->name, name) == 0)
    return known->elem_type;
  return onyx_quant_stored_type (quant, zero_point);
}

void
onyx_quant_add_reads (OnyxQuant *quant, const Onnx__NodeProto *node, guint index, int scale, int zero_point,
                      const OnyxQuantTensor *tensor)
{
  OnyxQuantRead read = { node, index, 0, tensor };

  if (scale >= 0 && onyx_node_input (node, scale) != NULL)
    {
      read.slot = (guint) scale;
      g_ptr_array_add (quant->scale_reads, g_memdup2 (&read, sizeof read));
    }
  if (zero_point >= 0 && onyx_node_input (node, zero_point) != NULL)
    {
      read.slot = (guint) zero_point;
      g_ptr_array_add (quant->zero_point_reads, g_memdup2 (&read, sizeof read));
    }
}

void
onyx_quant_record_linear (OnyxQuant *quant, OnyxQuantNode *record, gboolean dequantize)
{
  const Onnx__NodeProto *node = record->node;
  const char *data = dequantize ? onyx_node_input (node, 0) : onyx_node_output (node, 0);
  const char *other = dequantize ? onyx_node_output (node, 0) : onyx_node_input (node, 0);
  int32_t type = dequantize ? quantized_type (quant, data, onyx_node_input (node, 2))
                            : onyx_quant_quantize_type (quant, node);
  OnyxQuantTensor *tensor = onyx_quant_new_tensor (quant, node, data, other, type, onyx_node_input (node, 1),
                                                   onyx_node_input (node, 2));

  onyx_quant_read_parameters (quant, tensor);
  tensor->block_size = onyx_quant_int_attribute (node, "block_size", 0);
  set_axis (quant, tensor, onyx_node_input (node, 0), onyx_quant_int_attribute (node, "axis", 1));
  onyx_quant_add_reads (quant, node, record->index, 1, 2, tensor);
  if (dequantize)
    record->input_types[0] = type;
  else
    record->output_types[0] = type;
}

/* MatMulNBits, MatMulBnb4, GatherBlockQuantized: a weight of `bits` bits a value in
 * blocks, two or more packed in a byte, with a scale per block. */
void
onyx_quant_record_blocks (OnyxQuant *quant, OnyxQuantNode *record)
{
  const Onnx__NodeProto *node = record->node;
  gboolean gather = onyx_quant_is_op (node, "GatherBlockQuantized");
  gboolean bnb4 = onyx_quant_is_op (node, "MatMulBnb4");
  guint data = gather ? 0 : 1, scale = 2, zero = 3;
  guint bits = bnb4 ? 4 : (guint) onyx_quant_int_attribute (node, "bits", 4);
  int32_t stored = onyx_quant_stored_type (quant, onyx_node_input (node, data));
  OnyxQuantTensor *tensor;

  if (onyx_node_input (node, data) == NULL || onyx_quant_is_op (node, "QMoE") || onyx_quant_is_op (node, "MatMulFpQ4"))
    return;
  tensor = onyx_quant_new_tensor (quant, node, onyx_node_input (node, data), NULL, stored,
                                  onyx_node_input (node, scale),
                                  bnb4 ? NULL : onyx_node_input (node, zero));
  /* Typed int4 (GatherBlockQuantized's T1 may be) says its own bits; a uint8 holds packed ones. */
  if (stored == ONYX_QT_UINT8 || stored == 0)
    {
      tensor->bits = bits;
      tensor->elem_type = bits == 4 ? ONYX_QT_UINT4 : bits == 2 ? ONYX_QT_UINT2 : ONYX_QT_UINT8;
    }
  tensor->block_size = onyx_quant_int_attribute (node, "block_size", gather ? 128 : 64);
  onyx_quant_read_parameters (quant, tensor);
  /* Without zero points, unsigned values are centred on the middle of their range;
   * packed ones are unpacked (onyx_quant_read_parameters), else no range. */
  if (tensor->zero_point_name == NULL && tensor->scales != NULL && tensor->bits > 0 && !bnb4)
    {
      tensor->zero_points = g_new (double, tensor->n_scales);
      for (guint64 i = 0; i < tensor->n_scales; i++)
        tensor->zero_points[i] = (double) (1u << (tensor->bits - 1));
      compute_range (tensor);
    }
  else if (tensor->zero_point_name != NULL && tensor->zero_points == NULL)
    tensor->has_range = FALSE;
  tensor->axis = gather ? (int) onyx_quant_int_attribute (node, "quantize_axis", 1) : 1;
  onyx_quant_add_reads (quant, node, record->index, (int) scale, bnb4 ? -1 : (int) zero, tensor);
  record->input_types[data] = tensor->elem_type;
}

/* An operator with quantized slots (QLinearConv, QGemm, ConvInteger…): each data slot
 * S with S_scale or S_zero_point holds a quantized tensor; the first to say so of a
 * tensor gives its record. */
void
onyx_quant_record_slots (OnyxQuant *quant, OnyxQuantNode *record)
{
  const Onnx__NodeProto *node = record->node;
  g_auto (GStrv) inputs = NULL, outputs = NULL;

  if (!slot_names (quant, node, &inputs, &outputs))
    return;
  for (guint side = 0; side < 2; side++)
    {
      GStrv names = side == 0 ? inputs : outputs;
      for (guint k = 0; names[k] != NULL; k++)
        {
          /* The schema's slots: the node may have fewer. */
          const char *tensor_name = side == 0 ? onyx_node_input (node, k)
                                    : k < node->n_output ? node->output[k] : NULL;
          OnyxQuantTensor *tensor;
          int scale, zero;
          int32_t type;

          if (tensor_name == NULL || tensor_name[0] == '\0' || onyx_slot_names_quantization (names[k]))
            continue;
          find_parameters (inputs, names[k], &scale, &zero);
          if (scale < 0 && zero < 0)
            continue;
          type = quantized_type (quant, tensor_name, zero >= 0 ? onyx_node_input (node, zero) : NULL);
          tensor = g_hash_table_lookup (quant->by_name, tensor_name);
          if (tensor == NULL)
            {
              tensor = onyx_quant_new_tensor (quant, node, tensor_name, NULL, type,
                                              scale >= 0 ? onyx_node_input (node, scale) : NULL,
                                              zero >= 0 ? onyx_node_input (node, zero) : NULL);
              onyx_quant_read_parameters (quant, tensor);
              /* A weight's scales per channel: a Conv's output channels, a MatMul's columns. */
              if (side == 0 && (onyx_quant_is_op (node, "QLinearConv") || onyx_quant_is_op (node, "ConvInteger")))
                set_axis (quant, tensor, tensor_name, 0);
              else if (side == 0 && onyx_quant_is_op (node, "QLinearMatMul"))
                set_axis (quant, tensor, tensor_name, -1);
            }
          onyx_quant_add_reads (quant, node, record->index, scale, zero, tensor);
          if (side == 0)
            record->input_types[k] = type;
          else
            record->output_types[k] = type;
        }
    }
  /* An integer operator's result is int32, scaled back after it. */
  if (onyx_quant_is_integer_op (node) && node->n_output > 0)
    record->output_types[0] = ONYX_QT_INT32;
}

/* Whether a slot of the node has its scale or zero point beside it (a norm's
 * "key_norm_scale" has no "key_norm" slot: not quantization). */
gboolean
onyx_quant_has_quantized_slot (OnyxQuant *quant, const Onnx__NodeProto *node)
{
  g_auto (GStrv) inputs = NULL, outputs = NULL;
  int scale, zero;

  if (!slot_names (quant, node, &inputs, &outputs))
    return FALSE;
  for (guint side = 0; side < 2; side++)
    for (GStrv names = side == 0 ? inputs : outputs; *names != NULL; names++)
      {
        if (onyx_slot_names_quantization (*names) || (*names)[0] == '\0')
          continue;
        find_parameters (inputs, *names, &scale, &zero);
        if (scale >= 0 || zero >= 0)
          return TRUE;
      }
  return FALSE;
}

