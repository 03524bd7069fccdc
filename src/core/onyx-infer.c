#include "onyx-infer.h"

#include <string.h>

#include "onyx-attribute.h"
#include "onyx-schema.h"
#include "onyx-validate.h"

#define MAX_DEPTH 256

/* Output 0 has the shape of input 0 (element types come from the schemas). */
static const char *const same_shape_ops[] = {
  "Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "BatchNormalization", "Ceil", "Celu",
  "Clip", "Cos", "Cosh", "Dropout", "Elu", "Erf", "Exp", "Floor", "Gelu", "HardSigmoid", "HardSwish",
  "Hardmax", "Identity", "InstanceNormalization", "LayerNormalization", "LeakyRelu", "Log",
  "LogSoftmax", "LpNormalization", "Mish", "Neg", "PRelu", "Reciprocal", "Relu", "Round", "Selu",
  "Shrink", "Sigmoid", "Sign", "Sin", "Sinh", "Softmax", "Softplus", "Softsign", "Sqrt", "Tan", "Tanh",
  "ThresholdedRelu", "Cast", "Not", "IsNaN", "IsInf", NULL
};
/* Output 0 keeps the rank and the batch dim of input 0; the other dims change. */
static const char *const same_rank_ops[] = {
  "AveragePool", "Conv", "ConvTranspose", "GlobalAveragePool", "GlobalLpPool", "GlobalMaxPool",
  "LpPool", "MaxPool", "Pad", "Resize", "Upsample", "DepthToSpace", "SpaceToDepth", "TopK", NULL
};
/* Multidirectional (numpy) broadcasting of all inputs. */
static const char *const broadcast_ops[] = {
  "Add", "Sub", "Mul", "Div", "Pow", "Mod", "BitShift", "Equal", "Less", "Greater", "LessOrEqual",
  "GreaterOrEqual", "And", "Or", "Xor", "Where", "Max", "Min", "Sum", "Mean", NULL
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

static int32_t
known_elem_type (OnyxDocument *doc, const char *name, guint depth)
{
  Onnx__TypeProto *type = infer (doc, name, depth);
  int32_t elem_type = 0;

  if (type != NULL && type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
      type->tensor_type->has_elem_type)
    elem_type = type->tensor_type->elem_type;
  if (type != NULL)
    protobuf_c_message_free_unpacked (&type->base, NULL);
  return elem_type;
}

/* The element type of a node's output as its operator's schema types it: a fixed
 * type, a constraint that allows one type (Shape's int64), or the constraint of an
 * input whose type is known (Add's T). 0 when that says nothing. */
static int32_t
schema_elem_type (OnyxDocument *doc, const Onnx__NodeProto *node, guint output, guint depth)
{
  const Onnx__ModelProto *model = onyx_document_get_proto (doc);
  const OnyxSchema *schema = onyx_schema_for_node (node, model->opset_import, model->n_opset_import);
  const OnyxSchemaParam *param = schema != NULL ? onyx_schema_output (schema, output) : NULL;
  const OnyxSchemaTypeConstraint *constraint;

  if (param == NULL)
    return 0;
  constraint = onyx_schema_find_constraint (schema, param->type_str);
  if (constraint == NULL)
    return onyx_elem_type_from_schema_string (param->type_str);
  if (constraint->n_types == 1)
    return onyx_elem_type_from_schema_string (onyx_schema_type_string (constraint->types[0]));
  for (size_t k = 0; k < node->n_input; k++)
    {
      const OnyxSchemaParam *input = onyx_schema_input (schema, (guint) k);
      int32_t elem_type;

      if (input == NULL || node->input[k] == NULL || node->input[k][0] == '\0' ||
          g_strcmp0 (input->type_str, param->type_str) != 0)
        continue;
      elem_type = known_elem_type (doc, node->input[k], depth + 1);
      if (elem_type != 0)
        return elem_type;
    }
  return 0;
}

static Onnx__TensorShapeProto *
input_shape (OnyxDocument *doc, const Onnx__NodeProto *node, size_t k, guint depth)
{
  Onnx__TypeProto *type;
  Onnx__TensorShapeProto *shape = NULL;

  if (k >= node->n_input || node->input[k] == NULL || node->input[k][0] == '\0')
    return NULL;
  type = infer (doc, node->input[k], depth + 1);
  if (type != NULL && type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
      type->tensor_type->shape != NULL)
    shape = (Onnx__TensorShapeProto *) onyx_proto_copy (&type->tensor_type->shape->base);
  if (type != NULL)
    protobuf_c_message_free_unpacked (&type->base, NULL);
  return shape;
}

/* One dim of a broadcast: a value > 1 wins over 1 and names; a name over 1; two
 * different values > 1 or two different names leave the dim unknown. */
static void
broadcast_dim (Onnx__TensorShapeProto__Dimension *into, const Onnx__TensorShapeProto__Dimension *dim,
               gboolean *first)
{
  gboolean into_one = into->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && into->dim_value == 1;
  gboolean dim_one = dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && dim->dim_value == 1;
  gboolean same = into->value_case == dim->value_case;

  if (same && dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
    same = into->dim_value == dim->dim_value;
  else if (same && dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
    same = g_strcmp0 (into->dim_param, dim->dim_param) == 0;

  if (!*first && (same || dim_one))
    return;
  /* dim_value and dim_param share a union. */
  if (into->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
    free (into->dim_param);
  into->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE__NOT_SET;
  if (!*first && !into_one)
    return; /* two different sizes or names: unknown */
  into->value_case = dim->value_case;
  if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
    into->dim_value = dim->dim_value;
  else if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
    into->dim_param = strdup (dim->dim_param != NULL ? dim->dim_param : "");
  *first = FALSE;
}

static Onnx__TensorShapeProto *
broadcast_shape (OnyxDocument *doc, const Onnx__NodeProto *node, guint depth)
{
  GPtrArray *shapes = g_ptr_array_new ();
  Onnx__TensorShapeProto *result = NULL;
  size_t rank = 0;

  for (size_t k = 0; k < node->n_input; k++)
    {
      Onnx__TensorShapeProto *shape = input_shape (doc, node, k, depth);
      if (shape == NULL)
        break;
      rank = MAX (rank, shape->n_dim);
      g_ptr_array_add (shapes, shape);
    }
  if (shapes->len == node->n_input && shapes->len > 0)
    {
      result = shape_new (rank, NULL, 0);
      for (size_t d = 0; d < rank; d++)
        {
          gboolean first = TRUE;
          for (guint k = 0; k < shapes->len; k++)
            {
              const Onnx__TensorShapeProto *shape = shapes->pdata[k];
              /* Aligned from the right; missing leading dims count as 1. */
              if (d + shape->n_dim >= rank)
                broadcast_dim (result->dim[d], shape->dim[d + shape->n_dim - rank], &first);
            }
        }
    }
  for (guint k = 0; k < shapes->len; k++)
    protobuf_c_message_free_unpacked (shapes->pdata[k], NULL);
  g_ptr_array_free (shapes, TRUE);
  return result;
}

/* The shape of a standard node's output where the rules are simple; NULL otherwise. */
static Onnx__TensorShapeProto *
infer_shape (OnyxDocument *doc, const Onnx__NodeProto *node, guint output, guint depth)
{
  Onnx__TensorShapeProto *shape, *result = NULL;

  if (g_strv_contains (broadcast_ops, node->op_type))
    return output == 0 ? broadcast_shape (doc, node, depth) : NULL;
  if (strcmp (node->op_type, "Size") == 0)
    return shape_new (0, NULL, 0);
  if (output != 0 && strcmp (node->op_type, "TopK") != 0)
    return NULL;
  shape = input_shape (doc, node, 0, depth);
  if (strcmp (node->op_type, "Shape") == 0)
    {
      /* 1-D, as long as the input's rank unless start/end (opset 15) cut it. */
      result = shape_new (1, NULL, 0);
      if (shape != NULL && node->n_attribute == 0)
        {
          result->dim[0]->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
          result->dim[0]->dim_value = (int64_t) shape->n_dim;
        }
    }
  else if (shape != NULL && g_strv_contains (same_shape_ops, node->op_type))
    result = shape_new (shape->n_dim, shape, shape->n_dim);
  else if (shape != NULL && g_strv_contains (same_rank_ops, node->op_type))
    result = shape_new (shape->n_dim, shape, 1);
  if (shape != NULL)
    protobuf_c_message_free_unpacked (&shape->base, NULL);
  return result;
}

static Onnx__TypeProto *
from_producer (OnyxDocument *doc, const Onnx__NodeProto *node, guint output, guint depth)
{
  Onnx__TypeProto *type;
  int32_t elem_type = 0;

  if (node->op_type == NULL)
    return NULL;
  if (onyx_domain_is_default (node->domain) && strcmp (node->op_type, "Cast") == 0)
    {
      /* Cast's output type is its attribute's, which the schema cannot say. */
      Onnx__AttributeProto *to = onyx_node_find_attribute (node, "to", NULL);
      if (to != NULL && to->has_i)
        elem_type = (int32_t) to->i;
    }
  else
    elem_type = schema_elem_type (doc, node, output, depth);
  if (elem_type == 0)
    return NULL;
  type = tensor_type_new (elem_type);

  if (onyx_domain_is_default (node->domain))
    type->tensor_type->shape = infer_shape (doc, node, output, depth);
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
