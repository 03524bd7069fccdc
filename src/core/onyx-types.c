#include "onyx-types.h"
#include "onyx-text.h"

#include <string.h>

typedef struct {
  const char *name;
  guint bits;
} ElemType;

/* Indexed by TensorProto.DataType. Codes past BFLOAT16 come from ONNX releases newer
 * than Debian's onnx.proto; models in the wild use them. */
static const ElemType elem_types[] = {
  [0] = { "undefined", 0 },
  [1] = { "float32", 32 },
  [2] = { "uint8", 8 },
  [3] = { "int8", 8 },
  [4] = { "uint16", 16 },
  [5] = { "int16", 16 },
  [6] = { "int32", 32 },
  [7] = { "int64", 64 },
  [8] = { "string", 0 },
  [9] = { "boolean", 8 },
  [10] = { "float16", 16 },
  [11] = { "float64", 64 },
  [12] = { "uint32", 32 },
  [13] = { "uint64", 64 },
  [14] = { "complex64", 64 },
  [15] = { "complex128", 128 },
  [16] = { "bfloat16", 16 },
  [17] = { "float8e4m3fn", 8 },
  [18] = { "float8e4m3fnuz", 8 },
  [19] = { "float8e5m2", 8 },
  [20] = { "float8e5m2fnuz", 8 },
  [21] = { "uint4", 4 },
  [22] = { "int4", 4 },
  [23] = { "float4e2m1", 4 },
  [24] = { "float8e8m0", 8 },
  [25] = { "uint2", 2 },
  [26] = { "int2", 2 },
};

G_LOCK_DEFINE_STATIC (proto_names);

const char *
onyx_elem_type_proto_name (int32_t data_type)
{
  static GHashTable *names;
  const ProtobufCEnumValue *value =
      protobuf_c_enum_descriptor_get_value (&onnx__tensor_proto__data_type__descriptor, data_type);
  char *lower;

  if (value == NULL || data_type <= 0)
    return NULL;
  G_LOCK (proto_names);
  if (names == NULL)
    names = g_hash_table_new (NULL, NULL);
  lower = g_hash_table_lookup (names, GINT_TO_POINTER (data_type));
  if (lower == NULL)
    {
      lower = g_ascii_strdown (value->name, -1);
      g_hash_table_insert (names, GINT_TO_POINTER (data_type), lower);
    }
  G_UNLOCK (proto_names);
  return lower;
}

const char *
onyx_elem_type_name (int32_t data_type)
{
  static GPrivate buffer_key = G_PRIVATE_INIT (g_free);
  char *buffer;

  if (data_type >= 0 && (gsize) data_type < G_N_ELEMENTS (elem_types))
    return elem_types[data_type].name;
  if (onyx_elem_type_proto_name (data_type) != NULL)
    return onyx_elem_type_proto_name (data_type);
  buffer = g_private_get (&buffer_key);
  if (buffer == NULL)
    {
      buffer = g_malloc (32);
      g_private_set (&buffer_key, buffer);
    }
  g_snprintf (buffer, 32, "type %d", data_type);
  return buffer;
}

guint
onyx_elem_type_bits (int32_t data_type)
{
  if (data_type >= 0 && (gsize) data_type < G_N_ELEMENTS (elem_types))
    return elem_types[data_type].bits;
  return 0;
}

gboolean
onyx_dims_n_elements (const int64_t *dims, size_t n_dims, guint64 *n_elements)
{
  guint64 product = 1;

  for (size_t i = 0; i < n_dims; i++)
    {
      if (dims[i] < 0)
        return FALSE;
      if (dims[i] != 0 && product > G_MAXUINT64 / (guint64) dims[i])
        return FALSE;
      product *= (guint64) dims[i];
    }
  *n_elements = product;
  return TRUE;
}

gboolean
onyx_tensor_n_bytes (const Onnx__TensorProto *tensor, guint64 *n_bytes)
{
  guint64 n_elements, bits;

  if (tensor->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__STRING)
    {
      guint64 total = 0;
      for (size_t i = 0; i < tensor->n_string_data; i++)
        total += tensor->string_data[i].len;
      *n_bytes = total;
      return TRUE;
    }
  bits = onyx_elem_type_bits (tensor->data_type);
  if (bits == 0 || !onyx_dims_n_elements (tensor->dims, tensor->n_dims, &n_elements))
    return FALSE;
  if (n_elements > G_MAXUINT64 / bits)
    return FALSE;
  *n_bytes = (n_elements * bits + 7) / 8;
  return TRUE;
}

/* ONNX's shape inference names the dims it cannot tell "unk__54": a placeholder, not a
 * name anyone gave, so it shows as an unknown dim does. */
static gboolean
is_placeholder (const char *param)
{
  const char *digits = g_str_has_prefix (param, "unk__") ? param + 5 : NULL;
  return digits != NULL && digits[0] != '\0' && strspn (digits, "0123456789") == strlen (digits);
}

#define BRIEF_DIM_CHARS 12
#define BRIEF_DIM_TAIL 6

char *
onyx_dim_param_brief (const char *param)
{
  const char *dot = strrchr (param, '.');
  g_autofree char *shown = NULL;

  if (is_placeholder (param))
    return g_strdup ("?");
  if (dot != NULL && dot[1] != '\0')
    {
      const char *last = dot + 1;
      /* "p2o.DynamicDimension.0": the number alone would read as a dim of 0. */
      if (strspn (last, "0123456789") == strlen (last) && dot > param)
        {
          const char *before = dot;
          while (before > param && before[-1] != '.')
            before--;
          shown = before < dot && g_ascii_isalpha (*before)
                    ? g_strdup_printf ("%c%s", g_ascii_toupper (*before), last) : g_strdup (last);
        }
      else
        shown = g_strdup (last);
    }
  else
    shown = g_strdup (param);
  {
    /* Cut in the middle: the start says what it is, the end tells apart
     * "FooOpoutput_dim_1" and "FooOpoutput_dim_2". */
    g_autofree char *escaped = onyx_display_escape (shown);
    glong length = g_utf8_strlen (escaped, -1);
    const char *tail;
    if (length <= BRIEF_DIM_CHARS)
      return g_steal_pointer (&escaped);
    tail = g_utf8_offset_to_pointer (escaped, length - BRIEF_DIM_TAIL);
    return g_strdup_printf ("%.*s…%s", (int) (g_utf8_offset_to_pointer (escaped, BRIEF_DIM_CHARS - 1 - BRIEF_DIM_TAIL) - escaped),
                            escaped, tail);
  }
}

static void
append_dim (GString *out, const Onnx__TensorShapeProto__Dimension *dim, gboolean brief)
{
  if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
    g_string_append_printf (out, "%" G_GINT64_FORMAT, dim->dim_value);
  else if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
           dim->dim_param != NULL && dim->dim_param[0] != '\0' && !is_placeholder (dim->dim_param))
    {
      char *shown = brief ? onyx_dim_param_brief (dim->dim_param) : onyx_display_escape (dim->dim_param);
      g_string_append (out, shown);
      g_free (shown);
    }
  else
    g_string_append_c (out, '?');
}

static char *
shape_to_string (const Onnx__TensorShapeProto *shape, gboolean brief)
{
  GString *out = g_string_new (NULL);

  for (size_t i = 0; shape != NULL && i < shape->n_dim; i++)
    {
      if (i > 0)
        g_string_append (out, "×");
      append_dim (out, shape->dim[i], brief);
    }
  return g_string_free (out, FALSE);
}

char *
onyx_shape_to_string (const Onnx__TensorShapeProto *shape)
{
  return shape_to_string (shape, FALSE);
}

char *
onyx_shape_to_brief_string (const Onnx__TensorShapeProto *shape)
{
  return shape_to_string (shape, TRUE);
}

char *
onyx_dims_to_string (const int64_t *dims, size_t n_dims)
{
  GString *out = g_string_new (NULL);

  for (size_t i = 0; i < n_dims; i++)
    g_string_append_printf (out, "%s%" G_GINT64_FORMAT, i > 0 ? "×" : "", dims[i]);
  return g_string_free (out, FALSE);
}

static void
append_tensor_type (GString *out, int32_t elem_type, gboolean has_elem_type,
                    const Onnx__TensorShapeProto *shape, gboolean brief)
{
  g_string_append (out, has_elem_type ? onyx_elem_type_name (elem_type) : "?");
  if (shape != NULL)
    {
      char *dims = shape_to_string (shape, brief);
      g_string_append_printf (out, "[%s]", dims);
      g_free (dims);
    }
}

static void
append_type (GString *out, const Onnx__TypeProto *type, guint depth, gboolean brief)
{
  /* Types nest (sequence of map of …); the loader bounds nesting, this bounds output. */
  if (type == NULL || depth > 16)
    {
      g_string_append_c (out, '?');
      return;
    }
  switch (type->value_case)
    {
    case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
      append_tensor_type (out, type->tensor_type->elem_type, type->tensor_type->has_elem_type,
                          type->tensor_type->shape, brief);
      break;
    case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
      g_string_append (out, "sparse ");
      append_tensor_type (out, type->sparse_tensor_type->elem_type,
                          type->sparse_tensor_type->has_elem_type, type->sparse_tensor_type->shape, brief);
      break;
    case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
      g_string_append (out, "sequence(");
      append_type (out, type->sequence_type->elem_type, depth + 1, brief);
      g_string_append_c (out, ')');
      break;
    case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
      g_string_append (out, "optional(");
      append_type (out, type->optional_type->elem_type, depth + 1, brief);
      g_string_append_c (out, ')');
      break;
    case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
      g_string_append_printf (out, "map(%s, ", type->map_type->has_key_type
                                                 ? onyx_elem_type_name (type->map_type->key_type)
                                                 : "?");
      append_type (out, type->map_type->value_type, depth + 1, brief);
      g_string_append_c (out, ')');
      break;
    case ONNX__TYPE_PROTO__VALUE__NOT_SET:
    default:
      g_string_append_c (out, '?');
      break;
    }
}

char *
onyx_type_to_string (const Onnx__TypeProto *type)
{
  GString *out = g_string_new (NULL);
  append_type (out, type, 0, FALSE);
  return g_string_free (out, FALSE);
}

char *
onyx_type_to_brief_string (const Onnx__TypeProto *type)
{
  GString *out = g_string_new (NULL);
  append_type (out, type, 0, TRUE);
  return g_string_free (out, FALSE);
}
