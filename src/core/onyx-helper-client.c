/* onyx-helper-client.c: the client of Onyx's helper program (onyx-onnx.h): libonnx's jobs sent to it.
 *
 * The helper, onyx-onnx-helper, is started with GSubprocessLauncher on the first job
 * (or ahead of it) and kept: a fresh process for each job spent more time faulting in
 * its memory than libonnx spent inferring (transformer_96: 45 ms a job against 25 ms
 * in a warm process). It is a program of its own, not a fork of the app: nothing of
 * a multithreaded GTK process is copied, and only typed jobs cross. Jobs go over a
 * socket on its fd 3, one at a time; a helper that crashed is reported as the job's
 * internal error and replaced on the next job. */
#include "onyx-onnx-private.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include "onyx-error.h"
#include "onyx-memory.h"

/* What a job sends: its kind, its argument and the input; what comes back: a length
 * and bytes for the result (G_MAXUINT64: none), then for the text. */
typedef struct {
  guint64 kind;
  gint64 argument;
  guint64 input_len;
} Request;

/* The helper's fd for its end of the socket. */
#define HELPER_FD 3

/* A helper process and its socket. Runs of ONNX Runtime have helpers of their own: a
 * long run neither waits for nor holds up libonnx's jobs (shapes after an edit), and
 * cancelling a run ends its helper only. Two runs may go side by side (Simplify's
 * proof runs the model before while its folding evaluates constants), each in its
 * own helper. */
typedef struct {
  GMutex lock;          /* held from a job's start to its finish */
  GSubprocess *process; /* NULL: none running */
  pid_t owner;          /* the process that started it: a fork of ours has none */
  /* The process's id while it runs, 0 else: what a signal handler may end. */
  volatile sig_atomic_t pid;
  int fd;
  /* Under cancel_lock: the job running, and whether it was cancelled. */
  gboolean busy;
  gboolean cancelled;
} Worker;

static Worker library_worker = { .fd = -1 };
static Worker runtime_workers[2] = { { .fd = -1 }, { .fd = -1 } };
static Worker *const all_workers[] = { &library_worker, &runtime_workers[0], &runtime_workers[1] };
static GMutex cancel_lock;

/* A worker for a job of this kind, its lock held: a run takes a free runtime worker,
 * or waits for the first. */
static Worker *
take_worker (OnyxOnnxJobKind kind)
{
  if (kind != ONYX_ONNX_JOB_RUN && kind != ONYX_ONNX_JOB_PROFILE)
    {
      g_mutex_lock (&library_worker.lock);
      return &library_worker;
    }
  for (guint i = 0; i < G_N_ELEMENTS (runtime_workers); i++)
    if (g_mutex_trylock (&runtime_workers[i].lock))
      return &runtime_workers[i];
  g_mutex_lock (&runtime_workers[0].lock);
  return &runtime_workers[0];
}

const char *
onyx_onnx_job_describe (OnyxOnnxJobKind kind)
{
  switch (kind)
    {
    /* Translators: what Onyx's helper was doing, in "cancelled while %s" and
     * "Onyx's helper … crashed while %s". */
    case ONYX_ONNX_JOB_INFER_SHAPES: return _("inferring shapes");
    case ONYX_ONNX_JOB_CHECK: return _("checking the model");
    case ONYX_ONNX_JOB_CONVERT: return _("converting the opset");
    case ONYX_ONNX_JOB_RUN: return _("running the model with ONNX Runtime");
    case ONYX_ONNX_JOB_PROFILE: return _("profiling the model with ONNX Runtime");
    case ONYX_ONNX_JOB_ECHO: return "echoing";
    case ONYX_ONNX_JOB_CRASH: return "crashing on purpose";
    case ONYX_ONNX_JOB_SLEEP: return "sleeping";
    }
  return "an unknown job";
}

/* Moves all len bytes through fd, either way: FALSE when the other end is gone.
 * read() is recv() on the socket, and it reads a file too: the fuzzer of what crosses
 * (tests/fuzz/fuzz-wire.c) feeds one. */
static gboolean
transfer_all (int fd, void *data, gsize len, gboolean sending)
{
  guint8 *p = data;
  while (len > 0)
    {
      ssize_t n = sending ? send (fd, p, len, MSG_NOSIGNAL) : read (fd, p, len);
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

/* What is allocated for a stated length at first: the buffer then grows with what
 * arrives, so that a length that lies costs the bytes sent, not the bytes claimed. */
#define RECEIVE_FIRST_ALLOCATION (1 << 16)

/* The len bytes that come next; NULL when fd ends first or memory runs out. */
static GBytes *
receive_bytes (int fd, guint64 len)
{
  gsize capacity = (gsize) MIN (len, RECEIVE_FIRST_ALLOCATION), got = 0;
  guint8 *data;

  if (len > G_MAXSIZE / 2 || (data = g_try_malloc (MAX (capacity, 1))) == NULL)
    return NULL;
  while (got < len)
    {
      if (got == capacity)
        {
          guint8 *grown;

          capacity = (gsize) MIN (len, (guint64) capacity * 2);
          if ((grown = g_try_realloc (data, capacity)) == NULL)
            break;
          data = grown;
        }
      if (!receive_all (fd, data + got, capacity - got))
        break;
      got = capacity;
    }
  if (got < len)
    {
      g_free (data);
      return NULL;
    }
  return g_bytes_new_take (data, (gsize) len);
}

/* FALSE when the worker is gone; *part is NULL for "none". */
static gboolean
receive_part (int fd, GBytes **part)
{
  guint64 len;

  *part = NULL;
  if (!receive_all (fd, &len, sizeof len))
    return FALSE;
  if (len == G_MAXUINT64)
    return TRUE;
  *part = receive_bytes (fd, len);
  return *part != NULL;
}

gboolean
onyx_onnx_receive_answer (int fd, GBytes **result, char **text)
{
  g_autoptr (GBytes) message = NULL;
  g_autofree char *until_nul = NULL;

  *text = NULL;
  if (!receive_part (fd, result) || !receive_part (fd, &message))
    {
      g_clear_pointer (result, g_bytes_unref);
      return FALSE;
    }
  if (message == NULL)
    return TRUE;
  /* The text ends up in messages and labels: valid UTF-8, whatever came. */
  until_nul = g_strndup (g_bytes_get_data (message, NULL), g_bytes_get_size (message));
  *text = g_utf8_make_valid (until_nul, -1);
  return TRUE;
}

gboolean
onyx_onnx_receive_job (int fd, guint64 *kind, gint64 *argument, GBytes **input)
{
  Request request;

  *input = NULL;
  if (!receive_all (fd, &request, sizeof request))
    return FALSE;
  *kind = request.kind;
  *argument = request.argument;
  *input = receive_bytes (fd, request.input_len);
  return *input != NULL;
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
  guint64 kind;
  gint64 argument;
  GBytes *input;

  /* A crash of libonnx ends the helper quietly; the app reports it. */
  for (guint i = 0; i < G_N_ELEMENTS (deadly); i++)
    signal (deadly[i], SIG_DFL);
  /* Keep what the jobs allocate mapped: the next job finds it faulted in. */
  onyx_memory_keep_freed ();
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
      ok = send_part (fd, bytes, result != NULL ? size : G_MAXUINT64) &&
           send_part (fd, text, text != NULL ? strlen (text) : G_MAXUINT64);
      g_clear_pointer (&result, g_bytes_unref);
      g_bytes_unref (input);
      g_free (text);
      if (!ok)
        return 1;
    }
  /* The app closed its end, or is gone. */
  return 0;
}

/* Ends the helper's socket and reaps it: the signal that ended it (a crash), or 0. */
static int
stop_worker (Worker *worker)
{
  GSubprocess *process;
  int signal_number = 0;

  if (worker->fd >= 0)
    close (worker->fd);
  worker->fd = -1;
  g_mutex_lock (&cancel_lock);
  process = g_steal_pointer (&worker->process);
  g_mutex_unlock (&cancel_lock);
  /* It ends on the closed socket (or has crashed, or was cancelled): reap it. */
  if (process != NULL && g_subprocess_wait (process, NULL, NULL) && g_subprocess_get_if_signaled (process))
    signal_number = g_subprocess_get_term_sig (process);
  worker->pid = 0;
  g_clear_object (&process);
  return signal_number;
}

/* The helper next to this program: the build folder's when this program runs from
 * the build folder (tests, bench, `_build/src/app/onyx`), else the installed one;
 * ONYX_ONNX_HELPER names another. */
static char *
helper_path (void)
{
  const char *chosen = g_getenv ("ONYX_ONNX_HELPER");
  g_autofree char *self = NULL;

  if (chosen != NULL && chosen[0] != '\0')
    return g_strdup (chosen);
  self = g_file_read_link ("/proc/self/exe", NULL);
  if (self != NULL && g_str_has_prefix (self, ONYX_BUILD_ROOT "/"))
    return g_strdup (ONYX_HELPER_BUILT);
  return g_strdup (ONYX_HELPER_INSTALLED);
}

static gboolean
start_worker (Worker *worker, GError **error)
{
  GSubprocess *process;
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GError) spawn_error = NULL;
  g_autofree char *path = helper_path ();
  int fds[2];

  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    {
      g_set_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_INTERNAL, _("cannot start ONNX's library: %s"),
                   g_strerror (errno));
      return FALSE;
    }
  /* Inheriting descriptors lets GLib spawn with posix_spawn (a vfork) rather than
   * fork: a fork makes every page of the app copy-on-write, and the UI thread then
   * faults on each page it writes for frames on end (15 ms and more on a big model).
   * Our descriptors are close-on-exec; the helper closes any other it finds. */
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_INHERIT_FDS);
  g_subprocess_launcher_take_fd (launcher, fds[1], HELPER_FD);
  process = g_subprocess_launcher_spawn (launcher, &spawn_error, path, NULL);
  if (process == NULL)
    {
      close (fds[0]);
      g_set_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_INTERNAL,
                   _("cannot start Onyx's helper for ONNX's library (%s): %s"), path, spawn_error->message);
      return FALSE;
    }
  g_mutex_lock (&cancel_lock);
  worker->process = process;
  g_mutex_unlock (&cancel_lock);
  worker->owner = getpid ();
  worker->pid = (sig_atomic_t) g_ascii_strtoll (g_subprocess_get_identifier (process), NULL, 10);
  worker->fd = fds[0];
  return TRUE;
}

static gboolean
send_request (Worker *worker, OnyxOnnxJobKind kind, GBytes *input, gint64 argument)
{
  gsize len;
  const void *data = g_bytes_get_data (input, &len);
  Request request = { (guint64) kind, argument, len };
  return send_all (worker->fd, &request, sizeof request) && send_all (worker->fd, data, len);
}

/* Called with the lock held. */
static void
forget_parents_worker (Worker *worker)
{
  if (worker->process != NULL && worker->owner != getpid ())
    {
      /* This process is a fork: the helper and its socket are the parent's. */
      worker->process = NULL;
      worker->pid = 0;
      worker->fd = -1;
    }
}

/* Called with the lock held: a worker of this process runs. */
static gboolean
ensure_worker (Worker *worker, GError **error)
{
  forget_parents_worker (worker);
  return worker->process != NULL || start_worker (worker, error);
}

void
onyx_onnx_start_worker (void)
{
  g_mutex_lock (&library_worker.lock);
  ensure_worker (&library_worker, NULL);  /* if it cannot start, the first job says why */
  g_mutex_unlock (&library_worker.lock);
}

void
onyx_onnx_cancel (OnyxOnnxJobKind kind)
{
  g_mutex_lock (&cancel_lock);
  for (guint i = 0; i < G_N_ELEMENTS (all_workers); i++)
    {
      Worker *worker = all_workers[i];
      gboolean runtime = worker != &library_worker;
      gboolean runtime_kind = kind == ONYX_ONNX_JOB_RUN || kind == ONYX_ONNX_JOB_PROFILE;
      if (runtime_kind == runtime && worker->busy && worker->process != NULL)
        {
          worker->cancelled = TRUE;
          g_subprocess_force_exit (worker->process);
        }
    }
  g_mutex_unlock (&cancel_lock);
}

static void
set_busy (Worker *worker, gboolean busy)
{
  g_mutex_lock (&cancel_lock);
  worker->busy = busy;
  worker->cancelled = FALSE;
  g_mutex_unlock (&cancel_lock);
}

struct _OnyxOnnxJob {
  Worker *worker;
  OnyxOnnxJobKind kind;
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
  job->sent = send_request (job->worker, job->kind, job->input, job->argument);
  return NULL;
}

OnyxOnnxJob *
onyx_onnx_job_start (OnyxOnnxJobKind kind, GBytes *input, gint64 argument)
{
  OnyxOnnxJob *job = g_new0 (OnyxOnnxJob, 1);

  job->worker = take_worker (kind);
  job->kind = kind;
  job->input = g_bytes_ref (input);
  job->argument = argument;
  set_busy (job->worker, TRUE);
  /* The helper takes a megabyte in socket-buffer steps: the caller need not wait for
   * that. */
  if (ensure_worker (job->worker, &job->error) &&
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
  if (!job->sent && job->error == NULL && !job->worker->cancelled)
    {
      stop_worker (job->worker);
      job->sent = start_worker (job->worker, &job->error) &&
                  send_request (job->worker, job->kind, job->input, job->argument);
    }
  g_clear_pointer (&job->input, g_bytes_unref);
  return job->sent;
}

GBytes *
onyx_onnx_job_finish (OnyxOnnxJob *job, char **text, GError **error)
{
  g_autoptr (GBytes) result = NULL;
  g_autofree char *message = NULL;
  Worker *worker = job->worker;
  gboolean sent = job_sent (job);
  gboolean ok = sent && onyx_onnx_receive_answer (worker->fd, &result, &message);
  gboolean cancelled;
  int signal_number;

  *text = NULL;
  g_mutex_lock (&cancel_lock);
  cancelled = worker->cancelled;
  g_mutex_unlock (&cancel_lock);
  if (!ok || cancelled)
    {
      g_clear_pointer (&result, g_bytes_unref);
      signal_number = stop_worker (worker);
      set_busy (worker, FALSE);
      g_mutex_unlock (&worker->lock);
      if (job->error != NULL)
        g_propagate_error (error, job->error);
      else if (cancelled)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("cancelled while %s"),
                     onyx_onnx_job_describe (job->kind));
      else if (signal_number == SIGFPE)
        /* Integer division by zero, in a runtime's kernel: the data's doing more
         * often than a bug. */
        g_set_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_INTERNAL,
                     _("Onyx's helper crashed on an arithmetic fault (SIGFPE) while %s: most often an "
                       "integer division by zero (Div, Mod) on the inputs given; try other inputs"),
                     onyx_onnx_job_describe (job->kind));
      else
        g_set_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_INTERNAL,
                     _("Onyx's helper for ONNX's library crashed while %s: an internal error of "
                       "Onyx, libonnx or ONNX Runtime, not a fault of the file"),
                     onyx_onnx_job_describe (job->kind));
      g_free (job);
      return NULL;
    }
  set_busy (worker, FALSE);
  g_mutex_unlock (&worker->lock);
  g_free (job);
  *text = g_steal_pointer (&message);
  return g_steal_pointer (&result);
}

void
onyx_onnx_stop_helpers (void)
{
  Worker *const *workers = all_workers;

  for (guint i = 0; i < G_N_ELEMENTS (all_workers); i++)
    {
      /* (Waits for a job still running to finish.) */
      g_mutex_lock (&workers[i]->lock);
      forget_parents_worker (workers[i]);
      stop_worker (workers[i]);
      g_mutex_unlock (&workers[i]->lock);
    }
}

/* Sleeps a millisecond: async-signal-safe. */
static void
nap (void)
{
  struct timespec millisecond = { 0, 1000000 };
  nanosleep (&millisecond, NULL);
}

void
onyx_onnx_kill_helpers_from_signal (void)
{
  Worker *const *workers = all_workers;
  int saved_errno = errno;

  for (guint i = 0; i < G_N_ELEMENTS (all_workers); i++)
    {
      pid_t pid = (pid_t) workers[i]->pid;
      siginfo_t info;

      if (pid <= 0 || workers[i]->owner != getpid ())
        continue;
      kill (pid, SIGKILL);
      /* Until it has ended, without reaping it: GLib's child watch does (it waits on
       * that child, and warns when another waitpid took it first). */
      while (waitid (P_PID, (id_t) pid, &info, WEXITED | WNOWAIT) < 0 && errno == EINTR)
        ;
      for (guint tries = 0; tries < 1000 && kill (pid, 0) == 0; tries++)
        nap ();
      /* GLib had no chance (its thread waits on a lock this signal interrupted):
       * reaped here, so that no zombie outlives the program. */
      if (kill (pid, 0) == 0)
        waitpid (pid, NULL, WNOHANG);
    }
  errno = saved_errno;
}

GBytes *
onyx_onnx_run_isolated (OnyxOnnxJobKind kind, GBytes *input, gint64 argument, char **text, GError **error)
{
  return onyx_onnx_job_finish (onyx_onnx_job_start (kind, input, argument), text, error);
}
