/* onyx-run-stats.c: statistics of a tensor as it ran, and its difference from a
 * reference (onyx-run.h). Plain arithmetic over arrays, shared by the helper (which
 * has the arrays) and the tests. */
#include "onyx-run.h"

#include <math.h>
#include <string.h>

/* TensorProto.DataType numbers of onnx.proto. */
enum {
  T_FLOAT = 1, T_UINT8 = 2, T_INT8 = 3, T_UINT16 = 4, T_INT16 = 5, T_INT32 = 6, T_INT64 = 7,
  T_BOOL = 9, T_FLOAT16 = 10, T_DOUBLE = 11, T_UINT32 = 12, T_UINT64 = 13, T_BFLOAT16 = 16,
};

static double
half_to_double (guint16 h)
{
  int exponent = (h >> 10) & 0x1f;
  int mantissa = h & 0x3ff;
  double sign = (h & 0x8000) ? -1.0 : 1.0;

  if (exponent == 0)
    return sign * ldexp (mantissa, -24);
  if (exponent == 31)
    return mantissa != 0 ? NAN : sign * INFINITY;
  return sign * ldexp (mantissa + 1024, exponent - 25);
}

/* Element i of data as a double; FALSE for element types without numbers. */
static gboolean
element_as_double (int elem_type, const guint8 *data, guint64 i, double *value)
{
  switch (elem_type)
    {
#define READ(ctype) do { ctype v; memcpy (&v, data + i * sizeof v, sizeof v); *value = (double) v; } while (0)
    case T_FLOAT: READ (float); return TRUE;
    case T_DOUBLE: READ (double); return TRUE;
    case T_UINT8: READ (guint8); return TRUE;
    case T_INT8: READ (gint8); return TRUE;
    case T_UINT16: READ (guint16); return TRUE;
    case T_INT16: READ (gint16); return TRUE;
    case T_INT32: READ (gint32); return TRUE;
    case T_INT64: READ (gint64); return TRUE;
    case T_UINT32: READ (guint32); return TRUE;
    case T_UINT64: READ (guint64); return TRUE;
    case T_BOOL: *value = data[i] != 0; return TRUE;
#undef READ
    case T_FLOAT16:
      {
        guint16 h;
        memcpy (&h, data + i * 2, 2);
        *value = half_to_double (h);
        return TRUE;
      }
    case T_BFLOAT16:
      {
        guint16 h;
        guint32 bits;
        float f;
        memcpy (&h, data + i * 2, 2);
        bits = (guint32) h << 16;
        memcpy (&f, &bits, 4);
        *value = f;
        return TRUE;
      }
    default:
      return FALSE;
    }
}

/* Elements the data holds, which a malformed array may make fewer than its dims say. */
static guint64
readable_count (const OnyxArray *array)
{
  guint64 count = onyx_array_count (array);
  gsize size = array->elem_type == T_BFLOAT16 ? 2 : onyx_array_element_size (array->elem_type);

  if (count == G_MAXUINT64 || size == 0 || array->data == NULL)
    return 0;
  return MIN (count, g_bytes_get_size (array->data) / size);
}

void
onyx_run_stats_compute (const OnyxArray *array, OnyxRunStats *stats)
{
  const guint8 *data = array->data != NULL ? g_bytes_get_data (array->data, NULL) : NULL;
  guint64 n = readable_count (array), n_finite = 0;
  double sum = 0, value, min = INFINITY, max = -INFINITY, mean, spread = 0;

  memset (stats, 0, sizeof *stats);
  stats->name = g_strdup (array->name);
  stats->elem_type = array->elem_type;
  stats->dims = g_memdup2 (array->dims, array->n_dims * sizeof *array->dims);
  stats->n_dims = array->n_dims;
  stats->count = onyx_array_count (array);
  stats->min = stats->max = stats->mean = stats->std = NAN;
  if (n == 0 || !element_as_double (array->elem_type, data, 0, &value))
    return;
  /* Two passes (mean, then spread and histogram): a one-pass variance loses the
   * digits that tell two close runs apart. */
  for (guint64 i = 0; i < n; i++)
    {
      element_as_double (array->elem_type, data, i, &value);
      if (isnan (value))
        stats->n_nan++;
      else if (isinf (value))
        stats->n_inf++;
      else
        {
          sum += value;
          min = MIN (min, value);
          max = MAX (max, value);
          n_finite++;
        }
    }
  if (n_finite == 0)
    return;
  mean = sum / (double) n_finite;
  for (guint64 i = 0; i < n; i++)
    {
      element_as_double (array->elem_type, data, i, &value);
      if (!isfinite (value))
        continue;
      spread += (value - mean) * (value - mean);
      guint bin = max > min ? (guint) ((value - min) / (max - min) * ONYX_RUN_BINS) : 0;
      stats->histogram[MIN (bin, ONYX_RUN_BINS - 1)]++;
    }
  stats->min = min;
  stats->max = max;
  stats->mean = mean;
  stats->std = sqrt (spread / (double) n_finite);
}

void
onyx_run_stats_clear (OnyxRunStats *stats)
{
  g_clear_pointer (&stats->name, g_free);
  g_clear_pointer (&stats->dims, g_free);
}

static char *
describe_shape (const OnyxArray *array)
{
  GString *text = g_string_new ("[");
  for (gsize i = 0; i < array->n_dims; i++)
    g_string_append_printf (text, "%s%" G_GINT64_FORMAT, i > 0 ? "×" : "", array->dims[i]);
  g_string_append_c (text, ']');
  return g_string_free (text, FALSE);
}

void
onyx_run_delta_compute (const OnyxArray *a, const OnyxArray *b, double atol, double rtol,
                        OnyxRunDelta *delta)
{
  const guint8 *data_a = a->data != NULL ? g_bytes_get_data (a->data, NULL) : NULL;
  const guint8 *data_b = b->data != NULL ? g_bytes_get_data (b->data, NULL) : NULL;
  guint64 n = readable_count (a);
  double va, vb;

  memset (delta, 0, sizeof *delta);
  delta->name = g_strdup (a->name);
  delta->other = g_strdup (b->name);
  if (a->n_dims != b->n_dims ||
      (a->n_dims > 0 && memcmp (a->dims, b->dims, a->n_dims * sizeof *a->dims) != 0) ||
      n != readable_count (b) || n != onyx_array_count (a))
    {
      g_autofree char *shape_a = describe_shape (a), *shape_b = describe_shape (b);
      delta->mismatch = g_strdup_printf ("shape %s against %s", shape_a, shape_b);
      return;
    }
  if (n > 0 && (!element_as_double (a->elem_type, data_a, 0, &va) ||
                !element_as_double (b->elem_type, data_b, 0, &vb)))
    {
      delta->mismatch = g_strdup ("values that are not numbers");
      return;
    }
  for (guint64 i = 0; i < n; i++)
    {
      double diff;
      element_as_double (a->elem_type, data_a, i, &va);
      element_as_double (b->elem_type, data_b, i, &vb);
      if (isnan (va) && isnan (vb))
        continue;
      if (va == vb)  /* infinities of one sign too */
        continue;
      diff = fabs (va - vb);
      if (isnan (diff))
        diff = INFINITY;
      delta->max_abs = MAX (delta->max_abs, diff);
      if (vb != 0)
        delta->max_rel = MAX (delta->max_rel, diff / fabs (vb));
      if (!(diff <= atol + rtol * fabs (vb)))
        delta->n_exceeding++;
    }
}
