/* onyx-run-stats.c: statistics of a tensor as it ran, and its difference from a
 * reference (onyx-run.h). Plain arithmetic over arrays, shared by the helper (which
 * has the arrays) and the tests. */
#include "onyx-run.h"

#include <math.h>
#include <string.h>

#include "onyx-tensor-values.h"
#include "onyx-types.h"

/* TensorProto.DataType numbers of onnx.proto. */
enum {
  T_FLOAT = 1, T_UINT8 = 2, T_INT8 = 3, T_UINT16 = 4, T_INT16 = 5, T_INT32 = 6, T_INT64 = 7,
  T_BOOL = 9, T_FLOAT16 = 10, T_DOUBLE = 11, T_UINT32 = 12, T_UINT64 = 13, T_BFLOAT16 = 16,
};

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
    case T_BFLOAT16:
      {
        guint16 bits;
        memcpy (&bits, data + i * 2, 2);
        *value = elem_type == T_FLOAT16 ? onyx_half_to_double (bits) : onyx_bfloat16_to_double (bits);
        return TRUE;
      }
    default:
      return FALSE;
    }
}

gsize
onyx_run_element_size (int elem_type)
{
  return elem_type == T_BFLOAT16 ? 2 : onyx_array_element_size (elem_type);
}

/* Elements the data holds, which a malformed array may make fewer than its dims say. */
static guint64
readable_count (const OnyxArray *array)
{
  guint64 count = onyx_array_count (array);
  gsize size = onyx_run_element_size (array->elem_type);

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

OnyxRunStats *
onyx_run_stats_copy (const OnyxRunStats *stats)
{
  OnyxRunStats *copy = g_memdup2 (stats, sizeof *stats);

  copy->name = g_strdup (stats->name);
  copy->dims = g_memdup2 (stats->dims, stats->n_dims * sizeof *stats->dims);
  return copy;
}

/* "[2×16×63×63]" */
static char *
describe_shape (const OnyxArray *array)
{
  g_autofree char *dims = onyx_dims_to_string (array->dims, array->n_dims);
  return g_strdup_printf ("[%s]", dims);
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
      if (isfinite (vb))
        delta->max_ref = MAX (delta->max_ref, fabs (vb));
      if (isfinite (va) && isfinite (vb))
        {
          delta->sum_sq_ref += vb * vb;
          delta->sum_sq_diff += (va - vb) * (va - vb);
        }
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
