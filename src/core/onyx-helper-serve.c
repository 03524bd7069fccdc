/* onyx-helper-serve.c: the helper's side of onyx-helper-client.c (onyx-onnx.h): jobs
 * read from the socket, run, and their results sent back. Only the helper program
 * calls it; apart from the client, so that a program sending jobs (onyx-cli) does not
 * link libonnx, protobuf and libstdc++, which cost it their load at every start. */
#include "onyx-onnx-private.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "onyx-error.h"
#include "onyx-memory.h"

static gpointer
prepare_schemas (gpointer data)
{
  onyx_onnx_prepare ();
  return NULL;
}

/* A job, in the helper. */
static GBytes *
run_job (OnyxOnnxJobKind kind, GBytes *input, gint64 argument, OnyxOnnxJobFunc run, char **text)
{
  g_autoptr (GError) error = NULL;
  GBytes *result = NULL;

  switch (kind)
    {
    case ONYX_ONNX_JOB_INFER_SHAPES:
      result = onyx_onnx_infer_shapes (input, argument != 0, text, &error);
      break;
    case ONYX_ONNX_JOB_CHECK:
      result = onyx_onnx_check_model (input, text) ? g_bytes_new (NULL, 0) : NULL;
      break;
    case ONYX_ONNX_JOB_CONVERT:
      result = onyx_onnx_convert_version (input, (int) argument, &error);
      if (error != NULL)
        {
          *text = g_strdup_printf ("%c%s", g_error_matches (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_LIBRARY)
                                             ? ONYX_ONNX_TEXT_LIBRARY : ONYX_ONNX_TEXT_ONYX, error->message);
          return result;
        }
      break;
    case ONYX_ONNX_JOB_RUN:
    case ONYX_ONNX_JOB_PROFILE:
      if (run != NULL)
        return run (kind, input, text);
      *text = g_strdup (_("this helper was built without ONNX Runtime"));
      break;
    case ONYX_ONNX_JOB_ECHO:
      *text = g_strdup_printf ("%" G_GINT64_FORMAT, argument);
      result = g_bytes_ref (input);
      break;
    case ONYX_ONNX_JOB_CRASH:
      abort ();
    case ONYX_ONNX_JOB_SLEEP:
      g_usleep ((gulong) CLAMP (argument, 0, 60000) * 1000);
      result = g_bytes_new (NULL, 0);
      break;
    default:
      *text = g_strdup_printf ("onyx-onnx-helper: no job %d", (int) kind);
    }
  if (error != NULL)
    {
      g_free (*text);
      *text = g_strdup (error->message);
    }
  return result;
}

int
onyx_onnx_helper_serve (int fd, OnyxOnnxJobFunc run)
{
  static const int deadly[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
  GThread *preparing;
  guint64 kind;
  gint64 argument;
  GBytes *input;

  /* A crash of libonnx ends the helper quietly; the app reports it. */
  for (guint i = 0; i < G_N_ELEMENTS (deadly); i++)
    signal (deadly[i], SIG_DFL);
  /* Keep what the jobs allocate mapped: the next job finds it faulted in. */
  onyx_memory_keep_freed ();
  /* The operator schemas load (14 ms of CPU time) while the first job's model comes
   * in and is parsed; the job waits for them where it needs them. */
  if ((preparing = g_thread_try_new ("onyx-schemas", prepare_schemas, NULL, NULL)) != NULL)
    g_thread_unref (preparing);
  else
    onyx_onnx_prepare ();
  while (onyx_onnx_receive_job (fd, &kind, &argument, &input))
    {
      GBytes *result;
      char *text = NULL;
      gsize size = 0;
      const void *bytes = NULL;
      gboolean ok;

      result = run_job ((OnyxOnnxJobKind) kind, input, argument, run, &text);
      if (result != NULL)
        bytes = g_bytes_get_data (result, &size);
      ok = onyx_helper_send_part (fd, bytes, result != NULL ? size : G_MAXUINT64) &&
           onyx_helper_send_part (fd, text, text != NULL ? strlen (text) : G_MAXUINT64);
      g_clear_pointer (&result, g_bytes_unref);
      g_bytes_unref (input);
      g_free (text);
      if (!ok)
        return 1;
    }
  /* The app closed its end, or is gone (or sent what is not a request). */
  return 0;
}
