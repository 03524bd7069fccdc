/* onyx-run-wire.c: a run's request and result as they cross to Onyx's helper and
 * back (onyx-run.h): GVariants, whose typed serialization reads back safely
 * whatever arrives. This file alone writes and reads the format.
 *
 * GVariant only makes the bytes safe to read, as values of the right types: the
 * readers then check that what those values say agrees (an array's dims with its
 * bytes, a tensor's counts with its dims), since the app and the helper index
 * memory by them. */
#include "onyx-run.h"

#include <gio/gio.h>
#include <stdarg.h>
#include <string.h>

#include "onyx-text.h"
#include "onyx-types.h"

#define ARRAY_TYPE "(siaxay)"
#define STATS_TYPE "(siaxtttddddau)"
#define DELTA_TYPE "(ssmsdddtdd)"
#define REQUEST_TYPE "(aysbaysa" ARRAY_TYPE "a" ARRAY_TYPE "asasbdd)"
#define RESULT_TYPE "(a" STATS_TYPE "a" STATS_TYPE "a" ARRAY_TYPE "a" DELTA_TYPE "ds)"

static GVariant *
bytes_value (GBytes *bytes)
{
  if (bytes == NULL)
    return g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, NULL, 0, 1);
  return g_variant_new_from_bytes (G_VARIANT_TYPE_BYTESTRING, bytes, TRUE);
}

static GVariant *
array_value (const OnyxArray *array)
{
  return g_variant_new ("(si@ax@ay)", array->name != NULL ? array->name : "", array->elem_type,
                        g_variant_new_fixed_array (G_VARIANT_TYPE_INT64, array->dims, array->n_dims,
                                                   sizeof (gint64)),
                        bytes_value (array->data));
}

static GVariant *
arrays_value (GPtrArray *arrays)
{
  GVariantBuilder builder;
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a" ARRAY_TYPE));
  for (guint i = 0; arrays != NULL && i < arrays->len; i++)
    g_variant_builder_add_value (&builder, array_value (arrays->pdata[i]));
  return g_variant_builder_end (&builder);
}

static gboolean
wire_fail (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

static gboolean
wire_fail (GError **error, const char *format, ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, text);
  return FALSE;
}

/* "input 2 ('x')", for messages: which item of which list. */
static char *
item_label (const char *list, gsize index, const char *name)
{
  g_autofree char *shown = onyx_display_escape (name != NULL ? name : "");
  return g_strdup_printf ("%s %" G_GSIZE_FORMAT " ('%s')", list, index + 1, shown);
}

/* Whether the array holds what its element type and dims say. */
static gboolean
check_array (const OnyxArray *array, const char *list, gsize index, GError **error)
{
  gsize size = onyx_run_element_size (array->elem_type);
  guint64 count = onyx_array_count (array);
  g_autofree char *label = item_label (list, index, array->name);
  g_autofree char *dims = onyx_dims_to_string (array->dims, array->n_dims);

  if (size == 0)
    return wire_fail (error, "%s has element type %d, which no run has", label, array->elem_type);
  if (count == G_MAXUINT64 || count > G_MAXSIZE / size)
    return wire_fail (error, "%s has dims [%s], which no array in memory has", label, dims);
  if (count * size != g_bytes_get_size (array->data))
    return wire_fail (error, "%s has %" G_GSIZE_FORMAT " bytes of data where its dims [%s] of %"
                      G_GSIZE_FORMAT "-byte elements need %" G_GUINT64_FORMAT,
                      label, g_bytes_get_size (array->data), dims, size, count * size);
  return TRUE;
}

static OnyxArray *
array_from_value (GVariant *value)
{
  g_autoptr (GVariant) dims = g_variant_get_child_value (value, 2);
  g_autoptr (GVariant) data = g_variant_get_child_value (value, 3);
  g_autoptr (GBytes) bytes = g_variant_get_data_as_bytes (data);
  const char *name;
  gint32 elem_type;
  gsize n_dims;
  const gint64 *dim_values = g_variant_get_fixed_array (dims, &n_dims, sizeof (gint64));

  g_variant_get_child (value, 0, "&s", &name);
  g_variant_get_child (value, 1, "i", &elem_type);
  return onyx_array_new (name[0] != '\0' ? name : NULL, elem_type, dim_values, n_dims, bytes);
}

/* NULL when an array is not whole; list names the arrays in messages. */
static GPtrArray *
arrays_from_value (GVariant *value, const char *list, GError **error)
{
  g_autoptr (GPtrArray) arrays = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_array_free);
  gsize n = g_variant_n_children (value);

  for (gsize i = 0; i < n; i++)
    {
      g_autoptr (GVariant) child = g_variant_get_child_value (value, i);
      OnyxArray *array = array_from_value (child);

      g_ptr_array_add (arrays, array);
      if (!check_array (array, list, i, error))
        return NULL;
    }
  return g_steal_pointer (&arrays);
}

static GVariant *
strings_value (const char *const *strings, gssize n)
{
  return g_variant_new_strv (strings != NULL ? strings : (const char *const[]) { NULL }, strings != NULL ? n : 0);
}

GBytes *
onyx_run_request_encode (const OnyxRunRequest *request)
{
  g_autoptr (GVariant) value = g_variant_ref_sink (g_variant_new (
    "(@aysb@ay@s@a" ARRAY_TYPE "@a" ARRAY_TYPE "@as@asbdd)",
    bytes_value (request->model), request->base_dir != NULL ? request->base_dir : "",
    request->other_model != NULL, bytes_value (request->other_model),
    g_variant_new_string (request->other_base_dir != NULL ? request->other_base_dir : ""),
    arrays_value (request->inputs), arrays_value (request->reference),
    strings_value (request->pairs != NULL ? (const char *const *) request->pairs->pdata : NULL,
                   request->pairs != NULL ? (gssize) request->pairs->len : 0),
    strings_value ((const char *const *) request->keep, -1), request->keep_all,
    request->atol, request->rtol));
  return g_variant_get_data_as_bytes (value);
}

static char *
nonempty_string (GVariant *value, gsize index)
{
  const char *text;
  g_variant_get_child (value, index, "&s", &text);
  return text[0] != '\0' ? g_strdup (text) : NULL;
}

static GBytes *
child_bytes (GVariant *value, gsize index)
{
  g_autoptr (GVariant) child = g_variant_get_child_value (value, index);
  return g_variant_get_data_as_bytes (child);
}

/* Fills the request in, value by value; FALSE at the first that does not agree. */
static gboolean
read_request (GVariant *value, OnyxRunRequest *request, GError **error)
{
  g_autoptr (GVariant) inputs = g_variant_get_child_value (value, 5);
  g_autoptr (GVariant) reference = g_variant_get_child_value (value, 6);
  g_autoptr (GVariant) pairs = g_variant_get_child_value (value, 7);
  g_autoptr (GVariant) keep = g_variant_get_child_value (value, 8);
  g_autofree const char **pair_names = NULL;
  gboolean has_other;
  gsize n_pairs;

  request->model = child_bytes (value, 0);
  request->base_dir = nonempty_string (value, 1);
  g_variant_get_child (value, 2, "b", &has_other);
  if (has_other)
    request->other_model = child_bytes (value, 3);
  request->other_base_dir = nonempty_string (value, 4);
  if (g_bytes_get_size (request->model) == 0)
    return wire_fail (error, "the request holds no model");
  if (request->other_model != NULL && g_bytes_get_size (request->other_model) == 0)
    return wire_fail (error, "the request holds no model to compare with");
  if ((request->inputs = arrays_from_value (inputs, "input", error)) == NULL ||
      (request->reference = arrays_from_value (reference, "reference array", error)) == NULL)
    return FALSE;
  /* Names in pairs: a name left over has no counterpart to be compared with. */
  pair_names = g_variant_get_strv (pairs, &n_pairs);
  if (n_pairs % 2 != 0)
    return wire_fail (error, "the request pairs %" G_GSIZE_FORMAT " names, an odd number", n_pairs);
  request->pairs = g_ptr_array_new_full ((guint) n_pairs, g_free);
  for (gsize i = 0; i < n_pairs; i++)
    g_ptr_array_add (request->pairs, g_strdup (pair_names[i]));
  request->keep = g_variant_dup_strv (keep, NULL);
  g_variant_get_child (value, 9, "b", &request->keep_all);
  g_variant_get_child (value, 10, "d", &request->atol);
  g_variant_get_child (value, 11, "d", &request->rtol);
  return TRUE;
}

gboolean
onyx_run_request_decode (GBytes *bytes, OnyxRunRequest *request, GError **error)
{
  g_autoptr (GVariant) value = g_variant_ref_sink (g_variant_new_from_bytes (G_VARIANT_TYPE (REQUEST_TYPE), bytes, FALSE));

  memset (request, 0, sizeof *request);
  if (read_request (value, request, error))
    return TRUE;
  onyx_run_request_clear (request);
  return FALSE;
}

void
onyx_run_request_clear (OnyxRunRequest *request)
{
  g_clear_pointer (&request->model, g_bytes_unref);
  g_clear_pointer (&request->base_dir, g_free);
  g_clear_pointer (&request->other_model, g_bytes_unref);
  g_clear_pointer (&request->other_base_dir, g_free);
  g_clear_pointer (&request->inputs, g_ptr_array_unref);
  g_clear_pointer (&request->reference, g_ptr_array_unref);
  g_clear_pointer (&request->pairs, g_ptr_array_unref);
  g_clear_pointer (&request->keep, g_strfreev);
}

static GVariant *
stats_list_value (GPtrArray *list)
{
  GVariantBuilder builder;
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a" STATS_TYPE));
  for (guint i = 0; list != NULL && i < list->len; i++)
    {
      const OnyxRunStats *stats = list->pdata[i];
      g_variant_builder_add (&builder, "(si@axtttdddd@au)", stats->name, stats->elem_type,
                             g_variant_new_fixed_array (G_VARIANT_TYPE_INT64, stats->dims, stats->n_dims,
                                                        sizeof (gint64)),
                             stats->count, stats->n_nan, stats->n_inf, stats->min, stats->max, stats->mean,
                             stats->std,
                             g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, stats->histogram,
                                                        ONYX_RUN_BINS, sizeof (guint32)));
    }
  return g_variant_builder_end (&builder);
}

static void
free_stats (gpointer data)
{
  onyx_run_stats_clear (data);
  g_free (data);
}

static void
free_delta (gpointer data)
{
  OnyxRunDelta *delta = data;
  g_free (delta->name);
  g_free (delta->other);
  g_free (delta->mismatch);
  g_free (delta);
}

/* Whether the statistics agree with their tensor: a run's element type, as many
 * values as the dims hold, no more NaN, Inf and histogram entries than values. */
static gboolean
check_stats (const OnyxRunStats *stats, gsize n_bins, const char *list, gsize index, GError **error)
{
  g_autofree char *label = item_label (list, index, stats->name);
  guint64 count = onyx_array_dims_count (stats->dims, stats->n_dims);
  guint64 binned = 0;

  if (onyx_run_element_size (stats->elem_type) == 0)
    return wire_fail (error, "%s has element type %d, which no run has", label, stats->elem_type);
  if (count == G_MAXUINT64 || stats->count != count)
    {
      g_autofree char *dims = onyx_dims_to_string (stats->dims, stats->n_dims);
      if (count == G_MAXUINT64)
        return wire_fail (error, "%s has dims [%s], which no tensor has", label, dims);
      return wire_fail (error, "%s counts %" G_GUINT64_FORMAT " values where its dims [%s] hold %"
                        G_GUINT64_FORMAT, label, stats->count, dims, count);
    }
  if (n_bins != ONYX_RUN_BINS)
    return wire_fail (error, "%s has %" G_GSIZE_FORMAT " histogram bins, not %d", label, n_bins, ONYX_RUN_BINS);
  for (guint i = 0; i < ONYX_RUN_BINS; i++)
    binned += stats->histogram[i];
  if (stats->n_nan > count || stats->n_inf > count - stats->n_nan ||
      binned > count - stats->n_nan - stats->n_inf)
    return wire_fail (error, "%s counts more NaN, Inf and binned values than its %" G_GUINT64_FORMAT,
                      label, count);
  return TRUE;
}

static GPtrArray *
stats_list_from_value (GVariant *value, const char *list, GError **error)
{
  g_autoptr (GPtrArray) stats_list = g_ptr_array_new_with_free_func (free_stats);
  gsize n = g_variant_n_children (value);

  for (gsize i = 0; i < n; i++)
    {
      g_autoptr (GVariant) child = g_variant_get_child_value (value, i);
      g_autoptr (GVariant) dims = g_variant_get_child_value (child, 2);
      g_autoptr (GVariant) histogram = g_variant_get_child_value (child, 10);
      OnyxRunStats *stats = g_new0 (OnyxRunStats, 1);
      gsize n_dims, n_bins;
      const gint64 *dim_values = g_variant_get_fixed_array (dims, &n_dims, sizeof (gint64));
      const guint32 *bins = g_variant_get_fixed_array (histogram, &n_bins, sizeof (guint32));

      g_ptr_array_add (stats_list, stats);
      g_variant_get_child (child, 0, "s", &stats->name);
      g_variant_get_child (child, 1, "i", &stats->elem_type);
      stats->dims = g_memdup2 (dim_values, n_dims * sizeof (gint64));
      stats->n_dims = n_dims;
      g_variant_get (child, "(@s@i@axtttdddd@au)", NULL, NULL, NULL, &stats->count, &stats->n_nan,
                     &stats->n_inf, &stats->min, &stats->max, &stats->mean, &stats->std, NULL);
      /* An empty histogram is no array at all (bins NULL), and check_stats refuses
       * any other count than ONYX_RUN_BINS. */
      if (n_bins == ONYX_RUN_BINS)
        memcpy (stats->histogram, bins, sizeof stats->histogram);
      if (!check_stats (stats, n_bins, list, i, error))
        return NULL;
    }
  return g_steal_pointer (&stats_list);
}

GBytes *
onyx_run_result_encode (const OnyxRunResult *result)
{
  GVariantBuilder deltas;
  g_autoptr (GVariant) value = NULL;

  g_variant_builder_init (&deltas, G_VARIANT_TYPE ("a" DELTA_TYPE));
  for (guint i = 0; result->deltas != NULL && i < result->deltas->len; i++)
    {
      const OnyxRunDelta *delta = result->deltas->pdata[i];
      g_variant_builder_add (&deltas, DELTA_TYPE, delta->name, delta->other, delta->mismatch,
                             delta->max_abs, delta->max_rel, delta->max_ref, delta->n_exceeding,
                             delta->sum_sq_ref, delta->sum_sq_diff);
    }
  value = g_variant_ref_sink (g_variant_new ("(@a" STATS_TYPE "@a" STATS_TYPE "@a" ARRAY_TYPE "@a" DELTA_TYPE "ds)",
                                             stats_list_value (result->stats),
                                             stats_list_value (result->other_stats),
                                             arrays_value (result->values), g_variant_builder_end (&deltas),
                                             result->seconds,
                                             result->runtime_version != NULL ? result->runtime_version : ""));
  return g_variant_get_data_as_bytes (value);
}

OnyxRunResult *
onyx_run_result_decode (GBytes *bytes, GError **error)
{
  g_autoptr (GVariant) value = g_variant_ref_sink (g_variant_new_from_bytes (G_VARIANT_TYPE (RESULT_TYPE), bytes, FALSE));
  g_autoptr (GVariant) stats = g_variant_get_child_value (value, 0);
  g_autoptr (GVariant) other_stats = g_variant_get_child_value (value, 1);
  g_autoptr (GVariant) values = g_variant_get_child_value (value, 2);
  g_autoptr (GVariant) deltas = g_variant_get_child_value (value, 3);
  g_autoptr (OnyxRunResult) result = g_new0 (OnyxRunResult, 1);
  gsize n_deltas = g_variant_n_children (deltas);

  result->first_divergence = -1;
  if ((result->stats = stats_list_from_value (stats, "tensor", error)) == NULL ||
      (result->other_stats = stats_list_from_value (other_stats, "tensor of the other model", error)) == NULL ||
      (result->values = arrays_from_value (values, "value", error)) == NULL)
    return NULL;
  result->deltas = g_ptr_array_new_with_free_func (free_delta);
  for (gsize i = 0; i < n_deltas; i++)
    {
      OnyxRunDelta *delta = g_new0 (OnyxRunDelta, 1);
      g_variant_get_child (deltas, i, DELTA_TYPE, &delta->name, &delta->other, &delta->mismatch,
                           &delta->max_abs, &delta->max_rel, &delta->max_ref, &delta->n_exceeding,
                           &delta->sum_sq_ref, &delta->sum_sq_diff);
      g_ptr_array_add (result->deltas, delta);
    }
  g_variant_get_child (value, 4, "d", &result->seconds);
  g_variant_get_child (value, 5, "s", &result->runtime_version);
  result->first_divergence = -1;
  result->first_nonfinite_node = -1;
  return g_steal_pointer (&result);
}

void
onyx_run_result_free (OnyxRunResult *result)
{
  if (result == NULL)
    return;
  g_clear_pointer (&result->stats, g_ptr_array_unref);
  g_clear_pointer (&result->other_stats, g_ptr_array_unref);
  g_clear_pointer (&result->values, g_ptr_array_unref);
  g_clear_pointer (&result->deltas, g_ptr_array_unref);
  g_clear_pointer (&result->first_nonfinite, free_stats);
  g_free (result->runtime_version);
  g_free (result);
}

/* For the helper, which builds results itself. */
GPtrArray *
onyx_run_stats_list_new (void)
{
  return g_ptr_array_new_with_free_func (free_stats);
}

GPtrArray *
onyx_run_delta_list_new (void)
{
  return g_ptr_array_new_with_free_func (free_delta);
}
