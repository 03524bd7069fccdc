/* onyx-run-profile-wire.c: a profile's request and answer as they cross to Onyx's
 * helper and back (onyx-run-profile-private.h). GVariants, as a run's are
 * (onyx-run-wire.c, which writes and reads the run request inside): their typed
 * serialization reads back safely whatever arrives, and the readers then check
 * that what the values say is something Onyx would have sent. */
#include "onyx-run-profile-private.h"

#include <gio/gio.h>
#include <string.h>

/* The run request's bytes, warm-up runs, runs, threads, optimization level. */
#define REQUEST_TYPE "(ayuuuu)"
/* The trace, the optimized model, the runtime's version. */
#define ANSWER_TYPE "(ayays)"

static GVariant *
bytes_value (GBytes *bytes)
{
  if (bytes == NULL)
    return g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, NULL, 0, 1);
  return g_variant_new_from_bytes (G_VARIANT_TYPE_BYTESTRING, bytes, TRUE);
}

static GBytes *
child_bytes (GVariant *value, gsize index)
{
  g_autoptr (GVariant) child = g_variant_get_child_value (value, index);
  return g_variant_get_data_as_bytes (child);
}

static gboolean
refuse (GError **error, const char *what)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "the profile's %s", what);
  return FALSE;
}

GBytes *
onyx_profile_request_encode (const OnyxProfileRequest *request)
{
  g_autoptr (GVariant) value = g_variant_ref_sink (g_variant_new (
    "(@ayuuuu)", bytes_value (request->run_request), request->options.warmup, request->options.runs,
    request->options.threads, (guint32) request->options.opt_level));
  return g_variant_get_data_as_bytes (value);
}

gboolean
onyx_profile_request_decode (GBytes *bytes, OnyxProfileRequest *request, GError **error)
{
  g_autoptr (GVariant) value = g_variant_ref_sink (g_variant_new_from_bytes (G_VARIANT_TYPE (REQUEST_TYPE), bytes, FALSE));
  guint32 level;

  memset (request, 0, sizeof *request);
  request->run_request = child_bytes (value, 0);
  g_variant_get_child (value, 1, "u", &request->options.warmup);
  g_variant_get_child (value, 2, "u", &request->options.runs);
  g_variant_get_child (value, 3, "u", &request->options.threads);
  g_variant_get_child (value, 4, "u", &level);
  request->options.opt_level = (OnyxProfileOptLevel) level;
  if (g_bytes_get_size (request->run_request) == 0)
    refuse (error, "request holds no run request");
  else if (request->options.runs == 0 || request->options.runs > ONYX_PROFILE_MAX_RUNS ||
           request->options.warmup > ONYX_PROFILE_MAX_RUNS)
    refuse (error, "request asks for runs no profile has");
  else if (request->options.threads > ONYX_PROFILE_MAX_THREADS)
    refuse (error, "request asks for more threads than a profile takes");
  else if (level > ONYX_PROFILE_OPT_ALL)
    refuse (error, "request asks for an optimization level ONNX Runtime does not have");
  else
    return TRUE;
  onyx_profile_request_clear (request);
  return FALSE;
}

void
onyx_profile_request_clear (OnyxProfileRequest *request)
{
  g_clear_pointer (&request->run_request, g_bytes_unref);
}

GBytes *
onyx_profile_answer_encode (const OnyxProfileAnswer *answer)
{
  g_autoptr (GVariant) value = g_variant_ref_sink (g_variant_new (
    "(@ay@ays)", bytes_value (answer->trace), bytes_value (answer->optimized),
    answer->runtime_version != NULL ? answer->runtime_version : ""));
  return g_variant_get_data_as_bytes (value);
}

gboolean
onyx_profile_answer_decode (GBytes *bytes, OnyxProfileAnswer *answer, GError **error)
{
  g_autoptr (GVariant) value = g_variant_ref_sink (g_variant_new_from_bytes (G_VARIANT_TYPE (ANSWER_TYPE), bytes, FALSE));

  memset (answer, 0, sizeof *answer);
  answer->trace = child_bytes (value, 0);
  answer->optimized = child_bytes (value, 1);
  g_variant_get_child (value, 2, "s", &answer->runtime_version);
  /* The trace is read, and the model unpacked, by their own checked readers. */
  if (g_bytes_get_size (answer->trace) == 0)
    refuse (error, "answer holds no trace");
  else if (g_bytes_get_size (answer->optimized) == 0)
    refuse (error, "answer holds no optimized model");
  else
    return TRUE;
  onyx_profile_answer_clear (answer);
  return FALSE;
}

void
onyx_profile_answer_clear (OnyxProfileAnswer *answer)
{
  g_clear_pointer (&answer->trace, g_bytes_unref);
  g_clear_pointer (&answer->optimized, g_bytes_unref);
  g_clear_pointer (&answer->runtime_version, g_free);
}
