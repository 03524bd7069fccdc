/* onyx-quant.c: a model's quantization read from its main graph: which tensors are
 * held quantized and how, which nodes run quantized and in what types, the summary.
 * The tensors are onyx-quant-tensors.c's, the summary and texts
 * onyx-quant-summary.c's, the checks onyx-diagnose-quant.c's, the accuracy per layer
 * onyx-quant-accuracy.c's. */
#include "onyx-quant-private.h"

#include <math.h>
#include <string.h>

#include "onyx-attribute.h"
#include "onyx-domain.h"
#include "onyx-schema.h"
#include "onyx-tensor-values.h"
#include "onyx-types.h"

const char *
onyx_quant_role_name (OnyxQuantRole role)
{
  switch (role)
    {
    case ONYX_QUANT_QUANTIZE: return "quantize";
    case ONYX_QUANT_DEQUANTIZE: return "dequantize";
    case ONYX_QUANT_QDQ: return "QDQ";
    case ONYX_QUANT_QOPERATOR: return "QOperator";
    case ONYX_QUANT_DYNAMIC: return "dynamic";
    case ONYX_QUANT_WEIGHT_ONLY: return "weight-only";
    case ONYX_QUANT_FLOAT:
    default: return "float";
    }
}

gboolean
onyx_quant_type_range (int32_t elem_type, double *low, double *high)
{
  double max;

  switch (elem_type)
    {
    case ONYX_QT_UINT8: *low = 0, *high = 255; return TRUE;
    case ONYX_QT_INT8: *low = -128, *high = 127; return TRUE;
    case ONYX_QT_UINT16: *low = 0, *high = 65535; return TRUE;
    case ONYX_QT_INT16: *low = -32768, *high = 32767; return TRUE;
    case ONYX_QT_INT32: *low = -2147483648.0, *high = 2147483647.0; return TRUE;
    case ONYX_QT_UINT4: *low = 0, *high = 15; return TRUE;
    case ONYX_QT_INT4: *low = -8, *high = 7; return TRUE;
    case ONYX_QT_UINT2: *low = 0, *high = 3; return TRUE;
    case ONYX_QT_INT2: *low = -2, *high = 1; return TRUE;
    case ONYX_QT_FLOAT8E4M3FN: max = 448; break;
    case ONYX_QT_FLOAT8E4M3FNUZ: max = 240; break;
    case ONYX_QT_FLOAT8E5M2: case ONYX_QT_FLOAT8E5M2FNUZ: max = 57344; break;
    case ONYX_QT_FLOAT4E2M1: max = 6; break;
    default: return FALSE;
    }
  *low = -max, *high = max;
  return TRUE;
}

gboolean
onyx_quant_is_op (const Onnx__NodeProto *node, const char *op)
{
  return g_strcmp0 (node->op_type, op) == 0 &&
         (onyx_domain_is_default (node->domain) || g_strcmp0 (node->domain, "com.microsoft") == 0);
}

static gboolean
is_any_op (const Onnx__NodeProto *node, const char *const *ops)
{
  for (guint i = 0; ops[i] != NULL; i++)
    if (onyx_quant_is_op (node, ops[i]))
      return TRUE;
  return FALSE;
}

static const char *const quantizers[] = { "QuantizeLinear", "DynamicQuantizeLinear", "QuantizeBFP",
                                          "QuantizeWithOrder", NULL };
static const char *const dequantizers[] = { "DequantizeLinear", "DequantizeBFP", "DequantizeWithOrder", NULL };
static const char *const weight_only_ops[] = { "MatMulNBits", "MatMulBnb4", "MatMulFpQ4", "GatherBlockQuantized",
                                               "QMoE", NULL };
/* Integer arithmetic whose result is scaled back after (ConvInteger's int32) or inside. */
static const char *const integer_ops[] = { "ConvInteger", "MatMulInteger", "MatMulInteger16", "MulInteger",
                                           "ReduceSumInteger", NULL };
static const char *const dynamic_ops[] = { "DynamicQuantizeMatMul", "MatMulIntegerToFloat", "DynamicQuantizeLSTM",
                                           NULL };

/* The operators ONNX Runtime runs quantized (as QLinear*, integer or QDQ kernels),
 * with the slots whose values it then takes quantized and the slot of a weight. */
typedef struct {
  const char *op;
  guint8 n_slots;              /* 0: every input */
  guint8 slots[3];
  gint8 weight;
} Quantizable;

static const Quantizable quantizable_ops[] = {
  { "Add", 2, { 0, 1 }, -1 },
  { "Attention", 2, { 0, 1 }, 1 },
  { "AveragePool", 1, { 0 }, -1 },
  { "Concat", 0, { 0 }, -1 },
  { "Conv", 3, { 0, 1, 2 }, 1 },
  { "ConvTranspose", 3, { 0, 1, 2 }, 1 },
  { "Gather", 1, { 0 }, 0 },
  { "Gemm", 3, { 0, 1, 2 }, 1 },
  { "GlobalAveragePool", 1, { 0 }, -1 },
  { "LeakyRelu", 1, { 0 }, -1 },
  { "MatMul", 2, { 0, 1 }, 1 },
  { "MaxPool", 1, { 0 }, -1 },
  { "Mul", 2, { 0, 1 }, -1 },
  { "ReduceMean", 1, { 0 }, -1 },
  { "Resize", 1, { 0 }, -1 },
  { "Sigmoid", 1, { 0 }, -1 },
  { "Softmax", 1, { 0 }, -1 },
  { "Where", 2, { 1, 2 }, -1 },
};

const guint8 *
onyx_quant_data_slots (const Onnx__NodeProto *node, guint *n_slots, int *weight)
{
  static const guint8 every[256] = {
#define S4(n) n, n + 1, n + 2, n + 3
#define S16(n) S4 (n), S4 (n + 4), S4 (n + 8), S4 (n + 12)
    S16 (0), S16 (16), S16 (32), S16 (48), S16 (64), S16 (80), S16 (96), S16 (112),
    S16 (128), S16 (144), S16 (160), S16 (176), S16 (192), S16 (208), S16 (224), S16 (240),
#undef S16
#undef S4
  };

  for (guint i = 0; i < G_N_ELEMENTS (quantizable_ops); i++)
    {
      const Quantizable *q = &quantizable_ops[i];
      /* Attention is ONNX Runtime's (QAttention); the rest ONNX's. */
      gboolean domain_fits = strcmp (q->op, "Attention") == 0 ? g_strcmp0 (node->domain, "com.microsoft") == 0
                                                              : onyx_domain_is_default (node->domain);
      if (!domain_fits || g_strcmp0 (node->op_type, q->op) != 0)
        continue;
      *weight = q->weight;
      if (q->n_slots == 0)
        {
          *n_slots = (guint) MIN (node->n_input, G_N_ELEMENTS (every));
          return every;
        }
      *n_slots = q->n_slots;
      return q->slots;
    }
  *n_slots = 0;
  *weight = -1;
  return NULL;
}

/* ---- The graph's tensors ---- */

const Onnx__TensorProto *
onyx_quant_constant (OnyxQuant *quant, const char *name)
{
  return name != NULL ? g_hash_table_lookup (quant->constants, name) : NULL;
}

Onnx__NodeProto *
onyx_quant_producer (OnyxQuant *quant, const char *name)
{
  OnyxValue *value = name != NULL && name[0] != '\0' ? onyx_graph_index_lookup (quant->index, name) : NULL;
  return value != NULL ? value->producer : NULL;
}

GArray *
onyx_quant_readers (OnyxQuant *quant, const char *name)
{
  OnyxValue *value = name != NULL && name[0] != '\0' ? onyx_graph_index_lookup (quant->index, name) : NULL;
  return value != NULL ? value->uses : NULL;
}

gboolean
onyx_quant_dims (OnyxQuant *quant, const char *name, gint64 **dims, gsize *n_dims)
{
  const Onnx__TensorProto *constant = onyx_quant_constant (quant, name);
  const Onnx__TypeProto *type = name != NULL ? g_hash_table_lookup (quant->declared, name) : NULL;
  const Onnx__TensorShapeProto *shape;

  if (constant != NULL)
    {
      *dims = g_memdup2 (constant->dims, constant->n_dims * sizeof (gint64));
      *n_dims = constant->n_dims;
      return TRUE;
    }
  if (type == NULL || type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
      (shape = type->tensor_type->shape) == NULL)
    return FALSE;
  *dims = g_new (gint64, MAX (shape->n_dim, 1));
  *n_dims = shape->n_dim;
  for (size_t d = 0; d < shape->n_dim; d++)
    (*dims)[d] = shape->dim[d]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE
                   ? shape->dim[d]->dim_value : -1;
  return TRUE;
}

double *
onyx_quant_read_values (OnyxQuant *quant, const char *name, guint64 *n_values)
{
  const Onnx__TensorProto *tensor = onyx_quant_constant (quant, name);
  g_autoptr (OnyxTensorValues) values = NULL;
  guint64 n;

  if (tensor == NULL || !onyx_dims_n_elements (tensor->dims, tensor->n_dims, &n))
    return NULL;
  if (n > ONYX_QUANT_VALUE_BUDGET - MIN (quant->values_read, ONYX_QUANT_VALUE_BUDGET))
    {
      g_hash_table_insert (quant->unread, (gpointer) name, GSIZE_TO_POINTER ((gsize) MIN (n, G_MAXSIZE)));
      return NULL;
    }
  if ((values = onyx_tensor_values_read (tensor, quant->base_dir, n, NULL)) == NULL || values->values == NULL ||
      values->n_values != n)
    return NULL;
  quant->values_read += n;
  *n_values = n;
  return g_steal_pointer (&values->values);
}

/* The element type of a tensor as stored: a constant's, or declared, or 0. */
int32_t
onyx_quant_stored_type (OnyxQuant *quant, const char *name)
{
  const Onnx__TensorProto *constant = onyx_quant_constant (quant, name);
  const Onnx__TypeProto *type = name != NULL ? g_hash_table_lookup (quant->declared, name) : NULL;

  if (constant != NULL)
    return constant->data_type;
  if (type != NULL && type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && type->tensor_type->has_elem_type)
    return type->tensor_type->elem_type;
  return 0;
}

gint64
onyx_quant_int_attribute (const Onnx__NodeProto *node, const char *name, gint64 fallback)
{
  const Onnx__AttributeProto *attribute = onyx_node_find_attribute (node, name, NULL);
  return attribute != NULL ? attribute->i : fallback;
}

/* The only reader of a tensor, or NULL. */
static Onnx__NodeProto *
only_reader (OnyxQuant *quant, const char *name)
{
  GArray *readers = onyx_quant_readers (quant, name);
  return readers != NULL && readers->len == 1 ? g_array_index (readers, OnyxUse, 0).node : NULL;
}

Onnx__NodeProto *
onyx_quant_requantizer (OnyxQuant *quant, const char *name)
{
  GArray *readers = onyx_quant_readers (quant, name);
  Onnx__NodeProto *activation = only_reader (quant, name);

  /* A Relu or Clip between, which the quantized range does the work of. */
  if (activation != NULL && (onyx_quant_is_op (activation, "Relu") || onyx_quant_is_op (activation, "Clip")) &&
      onyx_graph_index_graph_output (quant->index, name) == NULL)
    readers = onyx_quant_readers (quant, onyx_node_output (activation, 0));
  for (guint u = 0; readers != NULL && u < readers->len; u++)
    {
      const OnyxUse *use = &g_array_index (readers, OnyxUse, u);
      if (use->input == 0 && onyx_quant_is_op (use->node, "QuantizeLinear"))
        return use->node;
    }
  return NULL;
}

/* ---- Slots ---- */

gboolean
onyx_quant_is_integer_op (const Onnx__NodeProto *node)
{
  return is_any_op (node, integer_ops);
}

/* ---- Roles ---- */

static OnyxQuantNode *
record_of (OnyxQuant *quant, const Onnx__NodeProto *node)
{
  return node != NULL ? g_hash_table_lookup (quant->node_records, node) : NULL;
}

static OnyxQuantRole
role_of (OnyxQuant *quant, const char *name)
{
  OnyxQuantNode *producer = record_of (quant, onyx_quant_producer (quant, name));
  return producer != NULL ? producer->role : ONYX_QUANT_FLOAT;
}

/* The Cast, Mul by the scales and Add of the bias after an integer operator
 * (quantize_dynamic's ConvInteger → Cast → Mul → Add). */
static gboolean
scales_back (OnyxQuant *quant, const Onnx__NodeProto *node)
{
  const char *first = onyx_node_input (node, 0), *second = onyx_node_input (node, 1);
  Onnx__NodeProto *producer = onyx_quant_producer (quant, first);

  if (onyx_quant_is_op (node, "Cast"))
    return producer != NULL && is_any_op (producer, integer_ops);
  if (onyx_quant_is_op (node, "Mul") || onyx_quant_is_op (node, "Add"))
    return producer != NULL && role_of (quant, first) == ONYX_QUANT_DEQUANTIZE &&
           !onyx_quant_is_op (producer, "DequantizeLinear") && second != NULL &&
           (onyx_quant_is_op (node, "Mul") || onyx_quant_constant (quant, second) != NULL);
  return FALSE;
}

/* A float operator reading dequantized tensors: QDQ when it reads all its data slots
 * so (or, without a quantized form, its first slot and its output is quantized again),
 * weight-only when only its weight is. */
static OnyxQuantRole
qdq_role (OnyxQuant *quant, OnyxQuantNode *record)
{
  const Onnx__NodeProto *node = record->node;
  guint n_slots, n_read = 0, n_dequantized = 0;
  int weight;
  const guint8 *slots = onyx_quant_data_slots (node, &n_slots, &weight);
  gboolean weight_dequantized = FALSE, requantized = FALSE;

  for (size_t k = 0; k < node->n_input; k++)
    {
      Onnx__NodeProto *producer = onyx_quant_producer (quant, onyx_node_input (node, (guint) k));
      OnyxQuantNode *from = record_of (quant, producer);
      if (from != NULL && from->role == ONYX_QUANT_DEQUANTIZE && is_any_op (producer, dequantizers))
        record->input_types[k] = from->input_types[0];
    }
  for (size_t k = 0; k < node->n_output; k++)
    {
      Onnx__NodeProto *quantizer = onyx_quant_requantizer (quant, node->output[k]);
      if (quantizer != NULL)
        {
          record->output_types[k] = onyx_quant_quantize_type (quant, quantizer);
          requantized = TRUE;
        }
    }
  if (slots == NULL)
    {
      OnyxQuantNode *before = record_of (quant, onyx_quant_producer (quant, onyx_node_input (node, 0)));
      if (!requantized || node->n_input == 0)
        return ONYX_QUANT_FLOAT;
      if (record->input_types[0] != 0)
        return ONYX_QUANT_QDQ;
      /* A Relu or Clip after a quantized operator, done by its output's range. */
      if ((onyx_quant_is_op (node, "Relu") || onyx_quant_is_op (node, "Clip")) && before != NULL &&
          before->role >= ONYX_QUANT_QDQ)
        {
          record->input_types[0] = record->output_types[0];
          return ONYX_QUANT_QDQ;
        }
      return ONYX_QUANT_FLOAT;
    }
  for (guint i = 0; i < n_slots; i++)
    {
      if (onyx_node_input (node, slots[i]) == NULL)
        continue;
      n_read++;
      if (record->input_types[slots[i]] != 0)
        {
          n_dequantized++;
          weight_dequantized |= slots[i] == weight;
        }
    }
  if (n_read > 0 && n_dequantized == n_read)
    return ONYX_QUANT_QDQ;
  if (weight_dequantized && n_dequantized == 1)
    return ONYX_QUANT_WEIGHT_ONLY;
  return ONYX_QUANT_FLOAT;
}

static void
classify (OnyxQuant *quant, OnyxQuantNode *record)
{
  const Onnx__NodeProto *node = record->node;

  /* A node that makes nothing quantizes nothing (the checker says what is wrong). */
  if (node->n_output == 0 || node->output[0][0] == '\0')
    return;
  if (onyx_quant_is_op (node, "QuantizeLinear") || onyx_quant_is_op (node, "DequantizeLinear"))
    {
      record->role = onyx_quant_is_op (node, "QuantizeLinear") ? ONYX_QUANT_QUANTIZE : ONYX_QUANT_DEQUANTIZE;
      onyx_quant_record_linear (quant, record, record->role == ONYX_QUANT_DEQUANTIZE);
    }
  else if (onyx_quant_is_op (node, "DynamicQuantizeLinear"))
    {
      OnyxQuantTensor *tensor = onyx_quant_new_tensor (quant, node, node->output[0], onyx_node_input (node, 0),
                                                       ONYX_QT_UINT8,
                                                       node->n_output > 1 ? node->output[1] : NULL,
                                                       node->n_output > 2 ? node->output[2] : NULL);
      tensor->dynamic = TRUE;
      record->role = ONYX_QUANT_QUANTIZE;
      record->output_types[0] = ONYX_QT_UINT8;
    }
  else if (is_any_op (node, quantizers) || is_any_op (node, dequantizers))
    record->role = is_any_op (node, quantizers) ? ONYX_QUANT_QUANTIZE : ONYX_QUANT_DEQUANTIZE;
  else if (is_any_op (node, weight_only_ops))
    {
      record->role = ONYX_QUANT_WEIGHT_ONLY;
      onyx_quant_record_blocks (quant, record);
    }
  else if (is_any_op (node, integer_ops) || is_any_op (node, dynamic_ops))
    {
      record->role = ONYX_QUANT_DYNAMIC;
      onyx_quant_record_slots (quant, record);
    }
  else if (scales_back (quant, node))
    {
      record->role = ONYX_QUANT_DEQUANTIZE;
      if (onyx_quant_is_op (node, "Cast"))
        record->input_types[0] = ONYX_QT_INT32;
    }
  else if (onyx_quant_has_quantized_slot (quant, node))
    {
      record->role = ONYX_QUANT_QOPERATOR;
      onyx_quant_record_slots (quant, record);
    }
  else
    record->role = qdq_role (quant, record);
}

/* The weight of the integer operator whose result a dequantizing Mul scales back
 * (ConvInteger → Cast → Mul): its record, or NULL. */
static OnyxQuantTensor *
integer_weight (OnyxQuant *quant, const Onnx__NodeProto *mul)
{
  Onnx__NodeProto *cast = onyx_quant_producer (quant, onyx_node_input (mul, 0));
  Onnx__NodeProto *integer = cast != NULL ? onyx_quant_producer (quant, onyx_node_input (cast, 0)) : NULL;
  const char *weight = integer != NULL && is_any_op (integer, integer_ops) ? onyx_node_input (integer, 1) : NULL;
  OnyxQuantTensor *tensor = weight != NULL ? g_hash_table_lookup (quant->by_name, weight) : NULL;

  return tensor != NULL && g_strcmp0 (tensor->name, weight) == 0 && tensor->scale_name == NULL ? tensor : NULL;
}

/* quantize_dynamic multiplies the activation's scale by the weight's in a Mul of its
 * own, read by the Mul that scales the integer result back: part of the dequantizing,
 * and the constant it multiplies by is the weight's scale. */
static void
mark_scale_products (OnyxQuant *quant)
{
  for (size_t i = 0; i < quant->graph->n_node; i++)
    {
      OnyxQuantNode *record = &quant->nodes[i];
      OnyxQuantNode *product;
      OnyxQuantTensor *weight;
      if (record->role != ONYX_QUANT_DEQUANTIZE || !onyx_quant_is_op (record->node, "Mul"))
        continue;
      product = record_of (quant, onyx_quant_producer (quant, onyx_node_input (record->node, 1)));
      if (product == NULL || product->role != ONYX_QUANT_FLOAT || !onyx_quant_is_op (product->node, "Mul") ||
          role_of (quant, onyx_node_input (product->node, 0)) != ONYX_QUANT_QUANTIZE)
        continue;
      product->role = ONYX_QUANT_DEQUANTIZE;
      if ((weight = integer_weight (quant, record->node)) != NULL &&
          onyx_quant_constant (quant, onyx_node_input (product->node, 1)) != NULL)
        {
          weight->scale_name = g_strdup (onyx_node_input (product->node, 1));
          g_clear_pointer (&weight->zero_points, g_free);
          onyx_quant_read_parameters (quant, weight);
          onyx_quant_add_reads (quant, product->node, product->index, 1, -1, weight);
        }
    }
}

/* ---- The whole ---- */

static void
collect_constants (OnyxQuant *quant)
{
  const Onnx__GraphProto *graph = quant->graph;

  for (size_t i = 0; i < graph->n_initializer; i++)
    if (graph->initializer[i]->name != NULL)
      g_hash_table_insert (quant->constants, graph->initializer[i]->name, graph->initializer[i]);
  for (size_t i = 0; i < graph->n_node; i++)
    {
      const Onnx__NodeProto *node = graph->node[i];
      const Onnx__AttributeProto *value;
      if (onyx_quant_is_op (node, "Constant") && node->n_output == 1 &&
          (value = onyx_node_find_attribute (node, "value", NULL)) != NULL && value->t != NULL)
        g_hash_table_insert (quant->constants, node->output[0], value->t);
    }
  for (guint list = 0; list < 3; list++)
    {
      Onnx__ValueInfoProto **infos = list == 0 ? graph->input : list == 1 ? graph->output : graph->value_info;
      size_t n = list == 0 ? graph->n_input : list == 1 ? graph->n_output : graph->n_value_info;
      for (size_t i = 0; i < n; i++)
        if (infos[i]->name != NULL && infos[i]->type != NULL)
          g_hash_table_insert (quant->declared, infos[i]->name, infos[i]->type);
    }
}

OnyxQuant *
onyx_quant_new (const Onnx__ModelProto *model, const char *base_dir)
{
  OnyxQuant *quant = g_new0 (OnyxQuant, 1);
  static const Onnx__GraphProto empty = ONNX__GRAPH_PROTO__INIT;

  quant->model = model;
  quant->graph = model->graph != NULL ? model->graph : &empty;
  quant->base_dir = g_strdup (base_dir);
  /* The index only reads the graph. */
  quant->index = onyx_graph_index_new ((Onnx__GraphProto *) quant->graph);
  quant->constants = g_hash_table_new (g_str_hash, g_str_equal);
  quant->declared = g_hash_table_new (g_str_hash, g_str_equal);
  quant->node_records = g_hash_table_new (NULL, NULL);
  quant->tensors = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_quant_tensor_free);
  quant->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  quant->scale_reads = g_ptr_array_new_with_free_func (g_free);
  quant->zero_point_reads = g_ptr_array_new_with_free_func (g_free);
  quant->unread = g_hash_table_new (g_str_hash, g_str_equal);
  quant->n_nodes = quant->graph->n_node;
  quant->nodes = g_new0 (OnyxQuantNode, MAX (quant->n_nodes, 1));
  collect_constants (quant);
  for (size_t i = 0; i < quant->graph->n_node; i++)
    {
      OnyxQuantNode *record = &quant->nodes[i];
      guint n_slots;
      int weight;
      record->node = quant->graph->node[i];
      record->index = (guint) i;
      record->input_types = g_new0 (int32_t, MAX (record->node->n_input, 1));
      record->output_types = g_new0 (int32_t, MAX (record->node->n_output, 1));
      record->has_quantized_form = onyx_quant_data_slots (record->node, &n_slots, &weight) != NULL;
      g_hash_table_insert (quant->node_records, (gpointer) record->node, record);
    }
  /* In the graph's order, so that what a node reads is known before it. */
  for (size_t i = 0; i < quant->graph->n_node; i++)
    classify (quant, &quant->nodes[i]);
  mark_scale_products (quant);
  quant->quantized = FALSE;
  for (size_t i = 0; i < quant->graph->n_node && !quant->quantized; i++)
    quant->quantized = quant->nodes[i].role != ONYX_QUANT_FLOAT;
  return quant;
}

OnyxQuant *
onyx_quant_new_if_any (const Onnx__ModelProto *model, const char *base_dir)
{
  if (model->graph == NULL || !onyx_quant_graph_may_be_quantized (model->graph))
    return NULL;
  return onyx_quant_new (model, base_dir);
}

gboolean
onyx_quant_offer (OnyxDocument *document, OnyxQuant *quant, guint64 revision)
{
  /* A graph with nothing quantized is said so once per revision too. */
  if (quant == NULL)
    return onyx_document_keep_derived (document, "quantization-none", revision, GINT_TO_POINTER (1), NULL);
  return onyx_document_keep_derived (document, "quantization", revision, quant, (GDestroyNotify) onyx_quant_free);
}

gboolean
onyx_quant_is_pending (OnyxDocument *document)
{
  return onyx_document_get_derived (document, "quantization") == NULL &&
         onyx_document_get_derived (document, "quantization-none") == NULL;
}

OnyxQuant *
onyx_quant_peek_document (OnyxDocument *document)
{
  return onyx_document_get_derived (document, "quantization");
}

OnyxQuant *
onyx_quant_of_document (OnyxDocument *document)
{
  OnyxQuant *quant = onyx_quant_peek_document (document);

  if (quant != NULL || onyx_document_get_derived (document, "quantization-none") != NULL)
    return quant;
  quant = onyx_quant_new_if_any (onyx_document_get_proto (document),
                                 onyx_model_get_base_dir (onyx_document_get_model (document)));
  onyx_quant_offer (document, quant, onyx_document_get_revision (document));
  return quant;
}

guint
onyx_quant_get_unread (OnyxQuant *quant, guint64 *n_values)
{
  GHashTableIter iter;
  gpointer count;

  *n_values = 0;
  g_hash_table_iter_init (&iter, quant->unread);
  while (g_hash_table_iter_next (&iter, NULL, &count))
    *n_values += GPOINTER_TO_SIZE (count);
  return g_hash_table_size (quant->unread);
}

void
onyx_quant_free (OnyxQuant *quant)
{
  if (quant == NULL)
    return;
  for (size_t i = 0; i < quant->n_nodes; i++)
    {
      g_free (quant->nodes[i].input_types);
      g_free (quant->nodes[i].output_types);
    }
  g_free (quant->nodes);
  g_clear_pointer (&quant->summary.quantized_ops, g_ptr_array_unref);
  g_clear_pointer (&quant->summary.float_ops, g_ptr_array_unref);
  g_clear_pointer (&quant->summary.types, g_array_unref);
  g_hash_table_unref (quant->node_records);
  g_hash_table_unref (quant->unread);
  g_hash_table_unref (quant->by_name);
  g_ptr_array_unref (quant->tensors);
  g_ptr_array_unref (quant->scale_reads);
  g_ptr_array_unref (quant->zero_point_reads);
  g_hash_table_unref (quant->constants);
  g_hash_table_unref (quant->declared);
  onyx_graph_index_free (quant->index);
  g_free (quant->base_dir);
  g_free (quant);
}

gboolean
onyx_quant_is_quantized (OnyxQuant *quant)
{
  return quant->quantized;
}

const OnyxQuantTensor *
onyx_quant_lookup_tensor (OnyxQuant *quant, const char *name)
{
  return name != NULL ? g_hash_table_lookup (quant->by_name, name) : NULL;
}

GPtrArray *
onyx_quant_get_tensors (OnyxQuant *quant)
{
  return quant->tensors;
}

const OnyxQuantNode *
onyx_quant_lookup_node (OnyxQuant *quant, const Onnx__NodeProto *node)
{
  return record_of (quant, node);
}

const OnyxQuantSummary *
onyx_quant_get_summary_from (OnyxQuant *quant, const OnyxSummary *counted)
{
  /* Made when first asked: the checks do without it. */
  if (quant->summary.quantized_ops == NULL)
    onyx_quant_summarize (quant, counted);
  return &quant->summary;
}

const OnyxQuantSummary *
onyx_quant_get_summary (OnyxQuant *quant)
{
  return onyx_quant_get_summary_from (quant, NULL);
}

/* The operators that make a graph worth analysing, as a set: the question is asked of
 * every node of the graph after every edit, on the UI thread. */
static GHashTable *
telling_ops (void)
{
  static GHashTable *ops;

  if (g_once_init_enter (&ops))
    {
      const char *const *lists[] = { quantizers, dequantizers, weight_only_ops, integer_ops, dynamic_ops };
      GHashTable *set = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
        for (guint i = 0; lists[l][i] != NULL; i++)
          g_hash_table_add (set, (gpointer) lists[l][i]);
      g_hash_table_add (set, (gpointer) "QLinearConv");
      g_hash_table_add (set, (gpointer) "QLinearMatMul");
      g_once_init_leave (&ops, set);
    }
  return ops;
}

gboolean
onyx_quant_graph_may_be_quantized (const Onnx__GraphProto *graph)
{
  GHashTable *ops = telling_ops ();

  for (size_t i = 0; graph != NULL && i < graph->n_node; i++)
    {
      const Onnx__NodeProto *node = graph->node[i];
      if (node->op_type == NULL)
        continue;
      /* Any op of the lists (in its domain, as onyx_quant_is_op says), or an op of
       * ONNX Runtime's starting with Q (QGemm, QAttention…). */
      if ((g_hash_table_contains (ops, node->op_type) &&
           (onyx_domain_is_default (node->domain) || g_strcmp0 (node->domain, "com.microsoft") == 0)) ||
          (node->op_type[0] == 'Q' && !onyx_domain_is_default (node->domain)))
        return TRUE;
    }
  return FALSE;
}

