/* onyx-run-wire.c: a run's request and result as they cross to Onyx's helper and
 * back (onyx-run.h): GVariants, whose typed serialization reads back safely
 * whatever arrives. This file alone writes and reads the format. */
#include "onyx-run.h"

#include <string.h>

#define ARRAY_TYPE "(siaxay)"
#define STATS_TYPE "(siaxtttddddau)"
#define DELTA_TYPE "(ssmsdddt)"
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

static GPtrArray *
arrays_from_value (GVariant *value)
{
  GPtrArray *arrays = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_array_free);
  gsize n = g_variant_n_children (value);
  for (gsize i = 0; i < n; i++)
    {
      g_autoptr (GVariant) child = g_variant_get_child_value (value, i);
      g_ptr_array_add (arrays, array_from_value (child));
    }
  return arrays;
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

gboolean
onyx_run_request_decode (GBytes *bytes, OnyxRunRequest *request)
{
  g_autoptr (GVariant) value = g_variant_ref_sink (g_variant_new_from_bytes (G_VARIANT_TYPE (REQUEST_TYPE), bytes, FALSE));
  g_autoptr (GVariant) inputs = g_variant_get_child_value (value, 5);
  g_autoptr (GVariant) reference = g_variant_get_child_value (value, 6);
  g_autoptr (GVariant) pairs = g_variant_get_child_value (value, 7);
  g_autoptr (GVariant) keep = g_variant_get_child_value (value, 8);
  gboolean has_other;
  gsize n_pairs;
  const char **pair_names = g_variant_get_strv (pairs, &n_pairs);

  memset (request, 0, sizeof *request);
  request->model = child_bytes (value, 0);
  request->base_dir = nonempty_string (value, 1);
  g_variant_get_child (value, 2, "b", &has_other);
  if (has_other)
    request->other_model = child_bytes (value, 3);
  request->other_base_dir = nonempty_string (value, 4);
  request->inputs = arrays_from_value (inputs);
  request->reference = arrays_from_value (reference);
  request->pairs = g_ptr_array_new_with_free_func (g_free);
  for (gsize i = 0; i + 1 < n_pairs; i += 2)
    {
      g_ptr_array_add (request->pairs, g_strdup (pair_names[i]));
      g_ptr_array_add (request->pairs, g_strdup (pair_names[i + 1]));
    }
  g_free (pair_names);
  request->keep = g_variant_dup_strv (keep, NULL);
  g_variant_get_child (value, 9, "b", &request->keep_all);
  g_variant_get_child (value, 10, "d", &request->atol);
  g_variant_get_child (value, 11, "d", &request->rtol);
  return g_bytes_get_size (request->model) > 0;
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

static GPtrArray *
stats_list_from_value (GVariant *value)
{
  GPtrArray *list = g_ptr_array_new_with_free_func (free_stats);
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

      g_variant_get_child (child, 0, "s", &stats->name);
      g_variant_get_child (child, 1, "i", &stats->elem_type);
      stats->dims = g_memdup2 (dim_values, n_dims * sizeof (gint64));
      stats->n_dims = n_dims;
      g_variant_get (child, "(@s@i@axtttdddd@au)", NULL, NULL, NULL, &stats->count, &stats->n_nan,
                     &stats->n_inf, &stats->min, &stats->max, &stats->mean, &stats->std, NULL);
      memcpy (stats->histogram, bins, MIN (n_bins, ONYX_RUN_BINS) * sizeof (guint32));
      g_ptr_array_add (list, stats);
    }
  return list;
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
                             delta->max_abs, delta->max_rel, delta->max_ref, delta->n_exceeding);
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
onyx_run_result_decode (GBytes *bytes)
{
  g_autoptr (GVariant) value = g_variant_ref_sink (g_variant_new_from_bytes (G_VARIANT_TYPE (RESULT_TYPE), bytes, FALSE));
  g_autoptr (GVariant) stats = g_variant_get_child_value (value, 0);
  g_autoptr (GVariant) other_stats = g_variant_get_child_value (value, 1);
  g_autoptr (GVariant) values = g_variant_get_child_value (value, 2);
  g_autoptr (GVariant) deltas = g_variant_get_child_value (value, 3);
  OnyxRunResult *result = g_new0 (OnyxRunResult, 1);
  gsize n_deltas = g_variant_n_children (deltas);

  result->stats = stats_list_from_value (stats);
  result->other_stats = stats_list_from_value (other_stats);
  result->values = arrays_from_value (values);
  result->deltas = g_ptr_array_new_with_free_func (free_delta);
  for (gsize i = 0; i < n_deltas; i++)
    {
      OnyxRunDelta *delta = g_new0 (OnyxRunDelta, 1);
      g_variant_get_child (deltas, i, DELTA_TYPE, &delta->name, &delta->other, &delta->mismatch,
                           &delta->max_abs, &delta->max_rel, &delta->max_ref, &delta->n_exceeding);
      g_ptr_array_add (result->deltas, delta);
    }
  g_variant_get_child (value, 4, "d", &result->seconds);
  g_variant_get_child (value, 5, "s", &result->runtime_version);
  result->first_divergence = -1;
  result->first_nonfinite_node = -1;
  return result;
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
