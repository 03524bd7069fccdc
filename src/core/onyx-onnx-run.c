/* onyx-onnx-run.c: libonnx's work in a child process (onyx-onnx.h). */
#include "onyx-onnx.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "onyx-error.h"

/* What the child sends back: a length and bytes for the result (G_MAXUINT64: none),
 * then for the text. */
static gboolean
write_all (int fd, const void *data, gsize len)
{
  const guint8 *p = data;
  while (len > 0)
    {
      ssize_t n = write (fd, p, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      p += n, len -= (gsize) n;
    }
  return TRUE;
}

static gboolean
write_part (int fd, const void *data, guint64 len)
{
  return write_all (fd, &len, sizeof len) && (len == G_MAXUINT64 || write_all (fd, data, len));
}

G_GNUC_NORETURN static void
run_child (int fd, OnyxOnnxWork work, GBytes *input, gpointer data)
{
  static const int deadly[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
  char *text = NULL;
  GBytes *result;
  gsize size = 0;
  const void *bytes = NULL;
  gboolean ok;

  /* A crash of libonnx ends the child quietly; the parent reports it. */
  for (guint i = 0; i < G_N_ELEMENTS (deadly); i++)
    signal (deadly[i], SIG_DFL);
  result = work (input, data, &text);
  if (result != NULL)
    bytes = g_bytes_get_data (result, &size);
  ok = write_part (fd, bytes, result != NULL ? size : G_MAXUINT64) &&
       write_part (fd, text, text != NULL ? strlen (text) : G_MAXUINT64);
  /* _exit runs no clean-up: what the child made is freed here (leak checkers follow it). */
  g_clear_pointer (&result, g_bytes_unref);
  g_free (text);
  _exit (ok ? 0 : 1);
}

/* Splits what the child sent; FALSE when it is not whole. */
static gboolean
read_part (const guint8 **p, const guint8 *end, GBytes *all, GBytes **part)
{
  guint64 len;
  if ((gsize) (end - *p) < sizeof len)
    return FALSE;
  memcpy (&len, *p, sizeof len);
  *p += sizeof len;
  if (len == G_MAXUINT64)
    {
      *part = NULL;
      return TRUE;
    }
  if (len > (guint64) (end - *p))
    return FALSE;
  *part = g_bytes_new_from_bytes (all, (gsize) (*p - (const guint8 *) g_bytes_get_data (all, NULL)), len);
  *p += len;
  return TRUE;
}

GBytes *
onyx_onnx_run_isolated (OnyxOnnxWork work, GBytes *input, gpointer data, char **text, GError **error)
{
  g_autoptr (GByteArray) received = NULL;
  g_autoptr (GBytes) all = NULL, result = NULL, message = NULL;
  const guint8 *p, *end;
  int fds[2], status = 0;
  guint8 buffer[65536];
  pid_t pid;

  *text = NULL;
  onyx_onnx_prepare ();
  if (pipe (fds) != 0 || (pid = fork ()) < 0)
    {
      g_set_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_IO, "cannot start ONNX's library: %s",
                   g_strerror (errno));
      return NULL;
    }
  if (pid == 0)
    {
      close (fds[0]);
      run_child (fds[1], work, input, data);
    }
  close (fds[1]);
  received = g_byte_array_new ();
  for (;;)
    {
      ssize_t n = read (fds[0], buffer, sizeof buffer);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      g_byte_array_append (received, buffer, (guint) n);
    }
  close (fds[0]);
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  all = g_byte_array_free_to_bytes (g_steal_pointer (&received));
  /* A child that died sent nothing, or not all. */
  p = g_bytes_get_size (all) > 0 ? g_bytes_get_data (all, NULL) : NULL;
  end = p != NULL ? p + g_bytes_get_size (all) : NULL;
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0 || p == NULL ||
      !read_part (&p, end, all, &result) || !read_part (&p, end, all, &message))
    {
      g_set_error_literal (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_MALFORMED,
                           "ONNX's library (libonnx) crashed on this model");
      return NULL;
    }
  if (message != NULL)
    *text = g_strndup (g_bytes_get_data (message, NULL), g_bytes_get_size (message));
  return g_steal_pointer (&result);
}
