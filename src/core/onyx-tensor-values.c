#include "onyx-tensor-values.h"

#include <glib/gi18n-lib.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onyx-external.h"
#include "onyx-model.h"
#include "onyx-types.h"
#include "onyx-text.h"

enum {
  T_FLOAT = 1, T_UINT8, T_INT8, T_UINT16, T_INT16, T_INT32, T_INT64, T_STRING, T_BOOL,
  T_FLOAT16, T_DOUBLE, T_UINT32, T_UINT64, T_COMPLEX64, T_COMPLEX128, T_BFLOAT16,
  T_UINT4 = 21, T_INT4 = 22,
};

void
onyx_tensor_values_free (OnyxTensorValues *values)
{
  if (values == NULL)
    return;
  g_free (values->values);
  if (values->strings != NULL)
    g_ptr_array_unref (values->strings);
  g_free (values);
}

static gboolean
values_fail (GError **error, const Onnx__TensorProto *tensor, const char *format, ...)
  G_GNUC_PRINTF (3, 4);

static gboolean
values_fail (GError **error, const Onnx__TensorProto *tensor, const char *format, ...)
{
  g_autofree char *name = onyx_display_escape (tensor->name);
  g_autofree char *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_TENSOR_DATA, "tensor '%s': %s", name, what);
  return FALSE;
}

/* "it holds 1 value" and "its dims claim 4 elements", each with its count's plural,
 * as "HELD but CLAIMED". (The counts go in as text: xgettext cannot read
 * G_GUINT64_FORMAT.) */
static gboolean
count_fail (GError **error, const Onnx__TensorProto *tensor, const char *held, const char *claimed)
{
  /* Translators: "it holds 3 values but its dims claim 4 elements". */
  return values_fail (error, tensor, _("%s but %s"), held, claimed);
}

/* A count as text for the messages above, which take it as %s. */
static char *
count_text (guint64 n)
{
  return g_strdup_printf ("%" G_GUINT64_FORMAT, n);
}

double
onyx_half_to_double (guint16 bits)
{
  int sign = bits >> 15, exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  double value;

  if (exponent == 0)
    value = ldexp (mantissa, -24);
  else if (exponent == 31)
    value = mantissa != 0 ? NAN : INFINITY;
  else
    value = ldexp (mantissa + 1024, exponent - 25);
  return sign ? -value : value;
}

guint16
onyx_double_to_half (double value)
{
  guint16 sign = signbit (value) ? 0x8000 : 0;
  double magnitude = fabs (value), fraction;
  int exponent;
  guint32 mantissa;

  if (isnan (value))
    return sign | 0x7e00;
  /* Halfway between the largest half (65504) and 65536 rounds to the even: infinity. */
  if (magnitude >= 65520.0)
    return sign | 0x7c00;
  /* Subnormals are multiples of 2^-24 (1024 of them is the smallest normal's bits). */
  if (magnitude < 0x1p-14)
    return sign | (guint16) nearbyint (magnitude * 0x1p24);
  fraction = frexp (magnitude, &exponent);  /* magnitude = fraction × 2^exponent, fraction in [0.5, 1) */
  mantissa = (guint32) nearbyint (fraction * 2048);
  if (mantissa == 2048)
    {
      mantissa = 1024;
      exponent++;
    }
  return sign | (guint16) ((exponent + 14) << 10) | (guint16) (mantissa - 1024);
}

double
onyx_bfloat16_to_double (guint16 bits)
{
  guint32 wide = (guint32) bits << 16;
  float value;
  memcpy (&value, &wide, sizeof value);
  return value;
}

/* Element i of little-endian raw data. */
static double
raw_element (const guint8 *raw, int32_t type, guint64 i)
{
  guint16 u16;
  guint32 u32;
  guint64 u64;
  float f;
  double d;

  switch (type)
    {
    case T_UINT8: return raw[i];
    case T_INT8: return (gint8) raw[i];
    case T_BOOL: return raw[i] != 0;
    case T_UINT4: return (raw[i / 2] >> (4 * (i % 2))) & 0xf;
    case T_INT4:
      {
        int nibble = (raw[i / 2] >> (4 * (i % 2))) & 0xf;
        return nibble >= 8 ? nibble - 16 : nibble;
      }
    case T_UINT16: case T_INT16: case T_FLOAT16: case T_BFLOAT16:
      memcpy (&u16, raw + 2 * i, 2);
      u16 = GUINT16_FROM_LE (u16);
      if (type == T_FLOAT16)
        return onyx_half_to_double (u16);
      if (type == T_BFLOAT16)
        return onyx_bfloat16_to_double (u16);
      return type == T_INT16 ? (double) (gint16) u16 : (double) u16;
    case T_INT32: case T_UINT32: case T_FLOAT: case T_COMPLEX64:
      memcpy (&u32, raw + 4 * i, 4);
      u32 = GUINT32_FROM_LE (u32);
      if (type == T_FLOAT || type == T_COMPLEX64)
        {
          memcpy (&f, &u32, 4);
          return f;
        }
      return type == T_INT32 ? (double) (gint32) u32 : (double) u32;
    case T_INT64: case T_UINT64: case T_DOUBLE: case T_COMPLEX128:
    default:
      memcpy (&u64, raw + 8 * i, 8);
      u64 = GUINT64_FROM_LE (u64);
      if (type == T_DOUBLE || type == T_COMPLEX128)
        {
          memcpy (&d, &u64, 8);
          return d;
        }
      return type == T_INT64 ? (double) (gint64) u64 : (double) u64;
    }
}

static gboolean
type_is_decodable (int32_t type)
{
  return (type >= T_FLOAT && type <= T_BFLOAT16 && type != T_STRING) || type == T_UINT4 ||
         type == T_INT4;
}

/* Element i of the typed repeated fields (int32_data carries the small types, and
 * float16/bfloat16 as their bits). */
static double
typed_element (const Onnx__TensorProto *tensor, guint64 i)
{
  switch (tensor->data_type)
    {
    case T_FLOAT: case T_COMPLEX64: return tensor->float_data[i];
    case T_DOUBLE: case T_COMPLEX128: return tensor->double_data[i];
    case T_INT64: return (double) tensor->int64_data[i];
    case T_UINT32: case T_UINT64: return (double) tensor->uint64_data[i];
    case T_FLOAT16: return onyx_half_to_double ((guint16) tensor->int32_data[i]);
    case T_BFLOAT16: return onyx_bfloat16_to_double ((guint16) tensor->int32_data[i]);
    default: return tensor->int32_data[i];
    }
}

static size_t
typed_count (const Onnx__TensorProto *tensor)
{
  switch (tensor->data_type)
    {
    case T_FLOAT: case T_COMPLEX64: return tensor->n_float_data;
    case T_DOUBLE: case T_COMPLEX128: return tensor->n_double_data;
    case T_INT64: return tensor->n_int64_data;
    case T_UINT32: case T_UINT64: return tensor->n_uint64_data;
    default: return tensor->n_int32_data;
    }
}

static void
compute_stats (OnyxTensorValues *values)
{
  double sum = 0;
  guint64 n_finite = 0;

  values->min = INFINITY;
  values->max = -INFINITY;
  for (guint64 i = 0; i < values->n_values; i++)
    {
      double v = values->values[i];
      if (!isfinite (v))
        continue;
      values->min = MIN (values->min, v);
      values->max = MAX (values->max, v);
      sum += v;
      n_finite++;
    }
  values->has_stats = n_finite > 0;
  values->mean = n_finite > 0 ? sum / (double) n_finite : NAN;
}

OnyxTensorValues *
onyx_tensor_values_read (const Onnx__TensorProto *tensor, const char *base_dir, guint64 limit,
                         GError **error)
{
  g_autoptr (OnyxTensorValues) values = g_new0 (OnyxTensorValues, 1);
  g_autoptr (GBytes) external = NULL;
  guint64 per_element, wanted;
  const guint8 *raw = NULL;
  gsize raw_len = 0;

  values->data_type = tensor->data_type;
  if (!onyx_dims_n_elements (tensor->dims, tensor->n_dims, &values->n_elements))
    return values_fail (error, tensor, "its dims are negative or their product overflows"), NULL;

  if (tensor->data_type == T_STRING)
    {
      if (tensor->n_string_data < values->n_elements)
        {
          g_autofree char *n_held = count_text (tensor->n_string_data);
          g_autofree char *n_claimed = count_text (values->n_elements);
          g_autofree char *held = g_strdup_printf (ngettext ("it holds %s string", "it holds %s strings",
                                                             tensor->n_string_data), n_held);
          g_autofree char *claimed = g_strdup_printf (ngettext ("its dims claim %s string", "its dims claim %s strings",
                                                                values->n_elements), n_claimed);
          return count_fail (error, tensor, held, claimed), NULL;
        }
      values->strings = g_ptr_array_new_with_free_func (g_free);
      values->n_values = MIN (values->n_elements, limit);
      for (guint64 i = 0; i < values->n_values; i++)
        {
          g_autofree char *text = g_strndup ((const char *) tensor->string_data[i].data,
                                             tensor->string_data[i].len);
          g_ptr_array_add (values->strings, onyx_display_escape (text));
        }
      return g_steal_pointer (&values);
    }
  if (!type_is_decodable (tensor->data_type))
    return values_fail (error, tensor, "values of %s tensors cannot be shown",
                        onyx_elem_type_name (tensor->data_type)), NULL;

  per_element = (tensor->data_type == T_COMPLEX64 || tensor->data_type == T_COMPLEX128) ? 2 : 1;
  wanted = MIN (values->n_elements, limit);

  if (onyx_tensor_is_external (tensor))
    {
      external = onyx_external_read (tensor, base_dir, error);
      if (external == NULL)
        return NULL;
      raw = g_bytes_get_data (external, &raw_len);
    }
  else if (tensor->has_raw_data)
    {
      raw = tensor->raw_data.data;
      raw_len = tensor->raw_data.len;
    }

  if (tensor->has_raw_data || external != NULL)
    {
      guint64 needed;
      if (!onyx_tensor_n_bytes (tensor, &needed))
        return values_fail (error, tensor, "its size overflows"), NULL;
      if (raw_len < needed)
        {
          g_autofree char *n_held = count_text (raw_len);
          g_autofree char *n_needed = count_text (needed);
          g_autofree char *held = g_strdup_printf (ngettext ("it has %s byte of data", "it has %s bytes of data",
                                                             raw_len), n_held);
          g_autofree char *needs = g_strdup_printf (ngettext ("its dims need %s byte", "its dims need %s bytes",
                                                              needed), n_needed);
          return count_fail (error, tensor, held, needs), NULL;
        }
      values->n_values = wanted * per_element;
      values->values = g_new (double, MAX (values->n_values, 1));
      for (guint64 i = 0; i < values->n_values; i++)
        values->values[i] = raw_element (raw, tensor->data_type, i);
    }
  else
    {
      size_t available = typed_count (tensor);
      if (values->n_elements > G_MAXUINT64 / per_element ||
          available < values->n_elements * per_element)
        {
          g_autofree char *n_held = count_text (available);
          g_autofree char *n_claimed = count_text (values->n_elements);
          g_autofree char *held = g_strdup_printf (ngettext ("it holds %s value", "it holds %s values", available),
                                                   n_held);
          g_autofree char *claimed = g_strdup_printf (ngettext ("its dims claim %s element", "its dims claim %s elements",
                                                                values->n_elements), n_claimed);
          return count_fail (error, tensor, held, claimed), NULL;
        }
      values->n_values = wanted * per_element;
      values->values = g_new (double, MAX (values->n_values, 1));
      for (guint64 i = 0; i < values->n_values; i++)
        values->values[i] = typed_element (tensor, i);
    }
  compute_stats (values);
  return g_steal_pointer (&values);
}

char *
onyx_tensor_values_format (const OnyxTensorValues *values, guint max_shown)
{
  GString *out = g_string_new ("[");
  guint64 shown = MIN (values->n_values, max_shown);

  for (guint64 i = 0; i < shown; i++)
    {
      if (i > 0)
        g_string_append (out, ", ");
      if (values->strings != NULL)
        g_string_append_printf (out, "\"%s\"", (const char *) values->strings->pdata[i]);
      else
        {
          char buf[G_ASCII_DTOSTR_BUF_SIZE];
          double v = values->values[i];
          if (isfinite (v) && v == floor (v) && fabs (v) < 1e15)
            g_string_append_printf (out, "%.0f", v);
          else
            g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.6g", v));
        }
    }
  guint64 per_element = (values->data_type == T_COMPLEX64 || values->data_type == T_COMPLEX128) ? 2 : 1;
  if (shown < values->n_values || values->n_values / per_element < values->n_elements)
    g_string_append (out, shown > 0 ? ", …" : "…");
  g_string_append_c (out, ']');
  return g_string_free (out, FALSE);
}

/* The typed field's element i as the array's bytes (little-endian, as raw_data). */
static void
store_typed_element (const Onnx__TensorProto *tensor, guint64 i, guint8 *at, gsize size)
{
  switch (tensor->data_type)
    {
    case T_FLOAT: case T_COMPLEX64: memcpy (at, &tensor->float_data[i], size); break;
    case T_DOUBLE: case T_COMPLEX128: memcpy (at, &tensor->double_data[i], size); break;
    case T_INT64: memcpy (at, &tensor->int64_data[i], size); break;
    case T_UINT32:
      {
        guint32 value = (guint32) tensor->uint64_data[i];
        memcpy (at, &value, size);
        break;
      }
    case T_UINT64: memcpy (at, &tensor->uint64_data[i], size); break;
    default:
      {
        /* int32_data holds the small types widened: their low bytes are the value. */
        gint32 value = tensor->int32_data[i];
        memcpy (at, &value, size);
        break;
      }
    }
}

OnyxArray *
onyx_tensor_read_array (const Onnx__TensorProto *tensor, const char *base_dir, GError **error)
{
  gsize size = onyx_array_element_size (tensor->data_type);
  g_autoptr (GBytes) data = NULL;
  guint64 n_elements, n_bytes;

  if (size == 0)
    return values_fail (error, tensor, "%s tensors cannot be computed with",
                        onyx_elem_type_name (tensor->data_type)), NULL;
  if (!onyx_dims_n_elements (tensor->dims, tensor->n_dims, &n_elements) || n_elements > G_MAXSIZE / size)
    return values_fail (error, tensor, "its dims are negative or their product overflows"), NULL;
  n_bytes = n_elements * size;
  if (onyx_tensor_is_external (tensor) || tensor->has_raw_data)
    {
      g_autoptr (GBytes) whole = onyx_tensor_is_external (tensor)
                                   ? onyx_external_read (tensor, base_dir, error)
                                   : g_bytes_new_static (tensor->raw_data.data, tensor->raw_data.len);
      if (whole == NULL)
        return NULL;
      if (g_bytes_get_size (whole) < n_bytes)
        return values_fail (error, tensor,
                            "it has %" G_GSIZE_FORMAT " bytes of data but its dims need %" G_GUINT64_FORMAT,
                            g_bytes_get_size (whole), n_bytes), NULL;
      /* A copy: raw_data may live in a mapping the model lets go of, or in a message
       * an edit frees. */
      data = g_bytes_new (g_bytes_get_data (whole, NULL), n_bytes);
    }
  else
    {
      guint64 per_element = (tensor->data_type == T_COMPLEX64 || tensor->data_type == T_COMPLEX128) ? 2 : 1;
      guint8 *bytes;
      if (typed_count (tensor) < n_elements * per_element)
        return values_fail (error, tensor, "it holds %zu values but its dims claim %" G_GUINT64_FORMAT " elements",
                            typed_count (tensor), n_elements), NULL;
      bytes = g_malloc (MAX (n_bytes, 1));
      for (guint64 i = 0; i < n_elements * per_element; i++)
        store_typed_element (tensor, i, bytes + i * (size / per_element), size / per_element);
      data = g_bytes_new_take (bytes, n_bytes);
    }
  return onyx_array_new (tensor->name, tensor->data_type, tensor->dims, tensor->n_dims, data);
}

Onnx__TensorProto *
onyx_tensor_new_from_array (const OnyxArray *array, const char *name)
{
  Onnx__TensorProto *tensor = malloc (sizeof *tensor);
  gsize len;
  const guint8 *data = g_bytes_get_data (array->data, &len);

  onnx__tensor_proto__init (tensor);
  tensor->name = strdup (name != NULL ? name : "");
  tensor->has_data_type = TRUE;
  tensor->data_type = array->elem_type;
  tensor->n_dims = array->n_dims;
  tensor->dims = malloc (MAX (array->n_dims, 1) * sizeof *tensor->dims);
  if (array->n_dims > 0) /* a scalar's dims may be NULL, which memcpy must not see */
    memcpy (tensor->dims, array->dims, array->n_dims * sizeof *tensor->dims);
  tensor->has_raw_data = TRUE;
  tensor->raw_data.len = len;
  tensor->raw_data.data = malloc (MAX (len, 1));
  if (len > 0)
    memcpy (tensor->raw_data.data, data, len);
  return tensor;
}
