#include "onyx-infer.h"

#include <string.h>

#include "onyx-attribute.h"
#include "onyx-validate.h"

#define MAX_DEPTH 256

/* Output has the element type and shape of input 0. */
static const char *const same_shape_ops[] = {
  "Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "BatchNormalization", "Ceil", "Celu",
  "Clip", "Cos", "Cosh", "Dropout", "Elu", "Erf", "Exp", "Floor", "Gelu", "HardSigmoid", "HardSwish",
  "Hardmax", "Identity", "InstanceNormalization", "LayerNormalization", "LeakyRelu", "Log",
  "LogSoftmax", "LpNormalization", "Mish", "Neg", "PRelu", "Reciprocal", "Relu", "Round", "Selu",
  "Shrink", "Sigmoid", "Sign", "Sin", "Sinh", "Softmax", "Softplus", "Softsign", "Sqrt", "Tan", "Tanh",
  "ThresholdedRelu", "Cast", "Not", "IsNaN", "IsInf", NULL
};
/* Output keeps the rank and the batch dim of input 0; the other dims change. */
static const char *const same_rank_ops[] = {
  "AveragePool", "Conv", "ConvTranspose", "GlobalAveragePool", "GlobalLpPool", "GlobalMaxPool",
  "LpPool", "MaxPool", "Pad", "Resize", "Upsample", "DepthToSpace", "SpaceToDepth", NULL
};
static const char *const int64_ops[] = { "Shape", "Size", "NonZero", "ArgMax", "ArgMin", NULL };
static const char *const bool_ops[] = {
  "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Not", "And", "Or", "Xor", "IsNaN",
  "IsInf", NULL
};

static Onnx__TypeProto *infer (OnyxDocument *doc, const char *name, guint depth);

static Onnx__TypeProto *
tensor_type_new (int32_t elem_type)
{
  Onnx__TypeProto *type = malloc (sizeof *type);
  Onnx__TypeProto__Tensor *tensor_type = malloc (sizeof *tensor_type);

  onnx__type_proto__init (type);
  onnx__type_proto__tensor__init (tensor_type);
  type->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  type->tensor_type = tensor_type;
  tensor_type->has_elem_type = TRUE;
  tensor_type->elem_type = elem_type;
  return type;
}

/* A shape of `rank` dims; values are copied from `source` for dims < keep. */
static Onnx__TensorShapeProto *
shape_new (size_t rank, const Onnx__TensorShapeProto *source, size_t keep)
{
  Onnx__TensorShapeProto *shape = malloc (sizeof *shape);

  onnx__tensor_shape_proto__init (shape);
  shape->n_dim = rank;
  shape->dim = malloc (MAX (rank, 1) * sizeof *shape->dim);
  for (size_t d = 0; d < rank; d++)
    {
      if (source != NULL && d < keep && d < source->n_dim)
        {
          shape->dim[d] = (Onnx__TensorShapeProto__Dimension *) onyx_proto_copy (&source->dim[d]->base);
          continue;
        }
      shape->dim[d] = malloc (sizeof **shape->dim);
      onnx__tensor_shape_proto__dimension__init (shape->dim[d]);
    }
  return shape;
}

static const Onnx__TypeProto *
recorded_type (OnyxDocument *doc, const char *name)
{
  OnyxGraphIndex *index = onyx_document_get_index (doc);
  Onnx__GraphProto *graph = onyx_graph_index_get_graph (index);
  Onnx__ValueInfoProto *info = NULL;

  for (size_t i = 0; i < graph->n_value_info && info == NULL; i++)
    if (g_strcmp0 (graph->value_info[i]->name, name) == 0)
      info = graph->value_info[i];
  if (info == NULL)
    info = onyx_graph_index_graph_input (index, name);
  if (info == NULL)
    info = onyx_graph_index_graph_output (index, name);
  return info != NULL ? info->type : NULL;
}

static Onnx__TypeProto *
from_initializer (const Onnx__TensorProto *initializer)
{
  Onnx__TypeProto *type = tensor_type_new (initializer->data_type);
  Onnx__TensorShapeProto *shape = shape_new (initializer->n_dims, NULL, 0);

  for (size_t d = 0; d < initializer->n_dims; d++)
    {
      shape->dim[d]->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
      shape->dim[d]->dim_value = initializer->dims[d];
    }
  type->tensor_type->shape = shape;
  return type;
}

static Onnx__TypeProto *
from_producer (OnyxDocument *doc, const Onnx__NodeProto *node, guint output, guint depth)
{
  Onnx__TypeProto *input_type;
  Onnx__TypeProto *type;
  const Onnx__TensorShapeProto *shape;
  gboolean same_shape, same_rank;

  /* Only the first output of these operators follows the rules below. */
  if (!onyx_domain_is_default (node->domain) || output != 0 || node->op_type == NULL)
    return NULL;
  if (g_strv_contains (int64_ops, node->op_type))
    return tensor_type_new (ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
  same_shape = g_strv_contains (same_shape_ops, node->op_type);
  same_rank = g_strv_contains (same_rank_ops, node->op_type);
  if (node->n_input == 0)
    return NULL;
  input_type = infer (doc, node->input[0], depth + 1);
  if (input_type == NULL || input_type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
    {
      if (input_type != NULL)
        protobuf_c_message_free_unpacked (&input_type->base, NULL);
      return NULL;
    }
  type = tensor_type_new (input_type->tensor_type->elem_type);
  if (g_strv_contains (bool_ops, node->op_type))
    type->tensor_type->elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__BOOL;
  else if (strcmp (node->op_type, "Cast") == 0)
    {
      Onnx__AttributeProto *to = onyx_node_find_attribute (node, "to", NULL);
      if (to == NULL || !to->has_i)
        {
          protobuf_c_message_free_unpacked (&input_type->base, NULL);
          protobuf_c_message_free_unpacked (&type->base, NULL);
          return NULL;
        }
      type->tensor_type->elem_type = (int32_t) to->i;
    }
  shape = input_type->tensor_type->shape;
  if (shape != NULL && same_shape)
    type->tensor_type->shape = shape_new (shape->n_dim, shape, shape->n_dim);
  else if (shape != NULL && same_rank)
    type->tensor_type->shape = shape_new (shape->n_dim, shape, 1);
  protobuf_c_message_free_unpacked (&input_type->base, NULL);
  return type;
}

static Onnx__TypeProto *
infer (OnyxDocument *doc, const char *name, guint depth)
{
  OnyxGraphIndex *index = onyx_document_get_index (doc);
  const Onnx__TypeProto *recorded = recorded_type (doc, name);
  Onnx__TensorProto *initializer = onyx_graph_index_initializer (index, name);
  OnyxValue *value = onyx_graph_index_lookup (index, name);

  if (depth > MAX_DEPTH)
    return NULL;
  if (recorded != NULL)
    return (Onnx__TypeProto *) onyx_proto_copy (&recorded->base);
  if (initializer != NULL)
    return from_initializer (initializer);
  if (value != NULL && value->producer != NULL)
    return from_producer (doc, value->producer, value->producer_output, depth);
  return NULL;
}

Onnx__TypeProto *
onyx_infer_tensor_type (OnyxDocument *doc, const char *name)
{
  return infer (doc, name, 0);
}
