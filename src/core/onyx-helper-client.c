/* onyx-helper-client.c: the client of Onyx's helper programs (onyx-onnx.h): jobs sent to them.
 *
 * The helpers, onyx-onnx-helper for libonnx's jobs and onyx-ort-helper for runs and
 * profiles of ONNX Runtime, are started with GSubprocessLauncher on the first job (or
 * ahead of it) and kept: a fresh process for each job spent more time faulting in its
 * memory than libonnx spent inferring (transformer_96: 45 ms a job against 25 ms in a
 * warm process). Each is a program of its own, not a fork of the app: nothing of a
 * multithreaded GTK process is copied, and only typed jobs cross. Jobs go over a
 * socket on its fd 3, one at a time (large inputs and results in memory files passed
 * through it, onyx-helper-wire.c); a helper that crashed is reported as the job's
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
#include "onyx-programs.h"

/* The helper's fd for its end of the socket. */
#define HELPER_FD 3

/* A helper process and its socket. Runs of ONNX Runtime have helpers of their own: a
 * long run neither waits for nor holds up libonnx's jobs (shapes after an edit), and
 * cancelling a run ends its helper only. Two runs may go side by side (Simplify's
 * proof runs the model before while its folding evaluates constants), each in its
 * own helper. */
typedef struct {
  const char *program;  /* the helper program's name */
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

static Worker library_worker = { .program = ONYX_LIBRARY_HELPER, .fd = -1 };
static Worker runtime_workers[2] = {
  { .program = ONYX_RUNTIME_HELPER, .fd = -1 },
  { .program = ONYX_RUNTIME_HELPER, .fd = -1 },
};
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

/* The helper reads the end of its socket and exits. */
static void
release_worker (Worker *worker)
{
  if (worker->fd >= 0)
    close (worker->fd);
  worker->fd = -1;
}

/* Ends the helper's socket and reaps it: the signal that ended it (a crash), or 0. */
static int
stop_worker (Worker *worker)
{
  GSubprocess *process;
  int signal_number = 0;

  release_worker (worker);
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

/* The worker's helper (onyx-programs.h); ONYX_ONNX_HELPER names another, for every
 * worker. */
static char *
helper_path (const Worker *worker)
{
  const char *chosen = g_getenv ("ONYX_ONNX_HELPER");

  if (chosen != NULL && chosen[0] != '\0')
    return g_strdup (chosen);
  return onyx_program_path (ONYX_HELPER_DIR_BUILT, worker->program);
}

static gboolean
start_worker (Worker *worker, GError **error)
{
  GSubprocess *process;
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GError) spawn_error = NULL;
  g_autofree char *path = helper_path (worker);
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
  OnyxHelperRequest request = { (guint64) kind, argument };
  return onyx_helper_send_all (worker->fd, &request, sizeof request) &&
         onyx_helper_send_part (worker->fd, data, len);
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
  /* One released (its socket closed) is reaped before another starts. */
  if (worker->process != NULL && worker->fd < 0)
    stop_worker (worker);
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
  gboolean sent;
  GError *error;    /* the worker could not be started */
};

OnyxOnnxJob *
onyx_onnx_job_start (OnyxOnnxJobKind kind, GBytes *input, gint64 argument)
{
  OnyxOnnxJob *job = g_new0 (OnyxOnnxJob, 1);

  job->worker = take_worker (kind);
  job->kind = kind;
  job->input = g_bytes_ref (input);
  job->argument = argument;
  set_busy (job->worker, TRUE);
  /* Sent at once: a large input goes in a memory file, a small one fits the socket's
   * buffer, so the caller goes on without waiting for the helper to read it (a thread
   * sent it before: on a loaded machine its own wait for a processor held up the
   * helper). */
  if (ensure_worker (job->worker, &job->error))
    job->sent = send_request (job->worker, job->kind, job->input, job->argument);
  return job;
}

/* Whether the job reached the worker: a worker that died idle (killed) fails the
 * send, and another is started and sent the job, once. (One killed in its first
 * moments, while its schemas still load in a thread, keeps its socket open until that
 * thread is gone too: a job sent then fails as a crash, and the next one starts
 * another helper.) */
static gboolean
job_sent (OnyxOnnxJob *job)
{
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

/* Each worker of this process, once its job if any is done. */
static void
each_worker (void (*act) (Worker *worker))
{
  Worker *const *workers = all_workers;

  for (guint i = 0; i < G_N_ELEMENTS (all_workers); i++)
    {
      g_mutex_lock (&workers[i]->lock);
      forget_parents_worker (workers[i]);
      act (workers[i]);
      g_mutex_unlock (&workers[i]->lock);
    }
}

/* (Whatever signal ended it: a program exiting reports no crash.) */
static void
stop_worker_quietly (Worker *worker)
{
  stop_worker (worker);
}

void
onyx_onnx_stop_helpers (void)
{
  each_worker (stop_worker_quietly);
}

void
onyx_onnx_release_helpers (void)
{
  /* Reaped when stopped. */
  each_worker (release_worker);
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
