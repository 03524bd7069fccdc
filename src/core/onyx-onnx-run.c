/* onyx-onnx-run.c: libonnx's work in a worker process (onyx-onnx.h).
 *
 * The worker is a fork of this process, made on the first job and kept: a fresh
 * child for each job spent more time faulting in its memory than libonnx spent
 * inferring (transformer_96: 45 ms a job against 25 ms in a warm process). Jobs go
 * over a socket, one at a time; a worker that crashed is reported as the job's error
 * and replaced on the next job. */
#include "onyx-onnx.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "onyx-error.h"
#include "onyx-memory.h"

/* What a job sends: the work, its argument and the input; what comes back: a length
 * and bytes for the result (G_MAXUINT64: none), then for the text. */
typedef struct {
  guint64 work;
  gint64 argument;
  guint64 input_len;
} Request;

static GMutex worker_lock;    /* held from a job's start to its finish */
static pid_t worker_pid;      /* 0: none running */
static pid_t worker_owner;    /* the process that started it: a fork of ours has none */
static int worker_fd = -1;

/* Moves all len bytes through fd, either way: FALSE when the other end is gone. */
static gboolean
transfer_all (int fd, void *data, gsize len, gboolean sending)
{
  guint8 *p = data;
  while (len > 0)
    {
      ssize_t n = sending ? send (fd, p, len, MSG_NOSIGNAL) : recv (fd, p, len, 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      p += n, len -= (gsize) n;
    }
  return TRUE;
}

static gboolean
send_all (int fd, const void *data, gsize len)
{
  return transfer_all (fd, (void *) data, len, TRUE);
}

static gboolean
receive_all (int fd, void *data, gsize len)
{
  return transfer_all (fd, data, len, FALSE);
}

static gboolean
send_part (int fd, const void *data, guint64 len)
{
  return send_all (fd, &len, sizeof len) && (len == G_MAXUINT64 || send_all (fd, data, len));
}

/* FALSE when the worker is gone; *part is NULL for "none". */
static gboolean
receive_part (int fd, GBytes **part)
{
  guint64 len;
  guint8 *data;

  *part = NULL;
  if (!receive_all (fd, &len, sizeof len))
    return FALSE;
  if (len == G_MAXUINT64)
    return TRUE;
  if (len > G_MAXSIZE / 2 || (data = g_try_malloc (MAX (len, 1))) == NULL)
    return FALSE;
  if (!receive_all (fd, data, len))
    {
      g_free (data);
      return FALSE;
    }
  *part = g_bytes_new_take (data, len);
  return TRUE;
}

G_GNUC_NORETURN static void
serve (int fd)
{
  static const int deadly[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
  Request request;

  /* A crash of libonnx ends the worker quietly; the parent reports it. */
  for (guint i = 0; i < G_N_ELEMENTS (deadly); i++)
    signal (deadly[i], SIG_DFL);
  /* The parent may be gone without closing its end (killed): go with it. */
  prctl (PR_SET_PDEATHSIG, SIGKILL);
  /* Keep what the jobs allocate mapped: the next job finds it faulted in (already
   * so when the parent called this, but a library's caller may not have). */
  onyx_memory_keep_freed ();
  while (receive_all (fd, &request, sizeof request))
    {
      OnyxOnnxWork work = (OnyxOnnxWork) (guintptr) request.work;
      guint8 *data = request.input_len <= G_MAXSIZE / 2 ? g_try_malloc (MAX (request.input_len, 1)) : NULL;
      GBytes *input, *result;
      char *text = NULL;
      gsize size = 0;
      const void *bytes = NULL;
      gboolean ok;

      if (data == NULL || !receive_all (fd, data, request.input_len))
        _exit (1);
      input = g_bytes_new_take (data, request.input_len);
      result = work (input, request.argument, &text);
      if (result != NULL)
        bytes = g_bytes_get_data (result, &size);
      ok = send_part (fd, bytes, result != NULL ? size : G_MAXUINT64) &&
           send_part (fd, text, text != NULL ? strlen (text) : G_MAXUINT64);
      g_clear_pointer (&result, g_bytes_unref);
      g_bytes_unref (input);
      g_free (text);
      if (!ok)
        _exit (1);
    }
  /* The parent closed its end: _exit, which runs none of the parent's clean-up. */
  _exit (0);
}

static void
stop_worker (void)
{
  if (worker_fd >= 0)
    close (worker_fd);
  worker_fd = -1;
  if (worker_pid > 0)
    while (waitpid (worker_pid, NULL, 0) < 0 && errno == EINTR)
      ;
  worker_pid = 0;
}

static gboolean
start_worker (GError **error)
{
  int fds[2];
  pid_t pid;

  onyx_onnx_prepare ();
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    goto fail;
  if ((pid = fork ()) < 0)
    {
      close (fds[0]);
      close (fds[1]);
      goto fail;
    }
  if (pid == 0)
    {
      close (fds[0]);
      serve (fds[1]);
    }
  close (fds[1]);
  worker_pid = pid;
  worker_owner = getpid ();
  worker_fd = fds[0];
  return TRUE;

fail:
  g_set_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_IO, "cannot start ONNX's library: %s",
               g_strerror (errno));
  return FALSE;
}

static gboolean
send_request (OnyxOnnxWork work, GBytes *input, gint64 argument)
{
  gsize len;
  const void *data = g_bytes_get_data (input, &len);
  Request request = { (guint64) (guintptr) work, argument, len };
  return send_all (worker_fd, &request, sizeof request) && send_all (worker_fd, data, len);
}

/* Called with the lock held. */
static void
forget_parents_worker (void)
{
  if (worker_pid != 0 && worker_owner != getpid ())
    {
      /* This process is a fork: the worker and its socket are the parent's. */
      worker_pid = 0;
      worker_fd = -1;
    }
}

/* Called with the lock held: a worker of this process runs. */
static gboolean
ensure_worker (GError **error)
{
  forget_parents_worker ();
  return worker_pid != 0 || start_worker (error);
}

void
onyx_onnx_start_worker (void)
{
  g_mutex_lock (&worker_lock);
  ensure_worker (NULL);  /* if it cannot start, the first job says why */
  g_mutex_unlock (&worker_lock);
}

struct _OnyxOnnxJob {
  OnyxOnnxWork work;
  GBytes *input;
  gint64 argument;
  GThread *sender;  /* sends the request while the caller goes on */
  gboolean sent;
  GError *error;    /* the worker could not be started */
};

static gpointer
send_job (gpointer data)
{
  OnyxOnnxJob *job = data;
  job->sent = send_request (job->work, job->input, job->argument);
  return NULL;
}

OnyxOnnxJob *
onyx_onnx_job_start (OnyxOnnxWork work, GBytes *input, gint64 argument)
{
  OnyxOnnxJob *job = g_new0 (OnyxOnnxJob, 1);

  job->work = work;
  job->input = g_bytes_ref (input);
  job->argument = argument;
  g_mutex_lock (&worker_lock);
  /* The worker takes a megabyte in socket-buffer steps: the caller need not wait for
   * that. (The worker is forked here, never by the sender: a worker's parent-death
   * signal follows the thread that forked it.) */
  if (ensure_worker (&job->error) &&
      (job->sender = g_thread_try_new ("onyx-onnx-send", send_job, job, NULL)) == NULL)
    send_job (job);  /* no thread to be had: the caller sends */
  return job;
}

/* Whether the job reached the worker: a worker that died idle (killed) fails the
 * send, and another is started and sent the job, once. */
static gboolean
job_sent (OnyxOnnxJob *job)
{
  if (job->sender != NULL)
    g_thread_join (job->sender);
  job->sender = NULL;
  if (!job->sent && job->error == NULL)
    {
      stop_worker ();
      job->sent = start_worker (&job->error) && send_request (job->work, job->input, job->argument);
    }
  g_clear_pointer (&job->input, g_bytes_unref);
  return job->sent;
}

GBytes *
onyx_onnx_job_finish (OnyxOnnxJob *job, char **text, GError **error)
{
  g_autoptr (GBytes) result = NULL, message = NULL;
  gboolean sent = job_sent (job);
  gboolean ok = sent && receive_part (worker_fd, &result) && receive_part (worker_fd, &message);

  *text = NULL;
  if (!ok)
    {
      if (sent)
        stop_worker ();
      g_mutex_unlock (&worker_lock);
      if (job->error != NULL)
        g_propagate_error (error, job->error);
      else
        g_set_error_literal (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_MALFORMED,
                             "ONNX's library (libonnx) crashed on this model");
      g_free (job);
      return NULL;
    }
  g_mutex_unlock (&worker_lock);
  g_free (job);
  if (message != NULL)
    *text = g_strndup (g_bytes_get_data (message, NULL), g_bytes_get_size (message));
  return g_steal_pointer (&result);
}

GBytes *
onyx_onnx_run_isolated (OnyxOnnxWork work, GBytes *input, gint64 argument, char **text, GError **error)
{
  return onyx_onnx_job_finish (onyx_onnx_job_start (work, input, argument), text, error);
}
