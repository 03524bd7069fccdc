/* onyx-jobs.c: the window's background work (onyx-jobs.h). */
#include "onyx-jobs.h"

#include <glib/gi18n.h>

#define DEFAULT_DELAY_MS 500
/* How often the label follows the jobs' progress while a labelled one runs. */
#define PROGRESS_TICK_MS 200

struct _OnyxJob {
  OnyxJobs *jobs;
  OnyxJobSpec spec;              /* label owned */
  guint64 revision;
  GCancellable *cancellable;
  gint64 started;                /* monotonic, µs */
  int permille;                  /* progress, -1 while unknown; written by the work */
  gboolean dropped;
  gboolean frozen;
  gpointer result;               /* at the end, until freed or taken */
};

struct _OnyxJobs {
  GObject parent_instance;
  GPtrArray *running;            /* OnyxJob*, oldest first */
  guint delay_ms;
  guint delay_timeout;           /* fires when the oldest labelled job reaches the delay */
  guint progress_timeout;
  gboolean busy;
  char *label;
};

G_DEFINE_FINAL_TYPE (OnyxJobs, onyx_jobs, G_TYPE_OBJECT)

enum { PROP_0, PROP_BUSY, PROP_LABEL, PROP_RUNNING, N_PROPS };
static GParamSpec *props[N_PROPS];

static void update (OnyxJobs *self);

static gboolean
delay_reached_cb (gpointer data)
{
  OnyxJobs *self = data;

  self->delay_timeout = 0;
  update (self);
  return G_SOURCE_REMOVE;
}

static gboolean
progress_tick_cb (gpointer data)
{
  update (data);
  return G_SOURCE_CONTINUE;
}

/* The labelled jobs, one a line: "Saving model.onnx: 45 %". */
static char *
running_label (OnyxJobs *self, const OnyxJob **oldest)
{
  g_autoptr (GString) label = g_string_new (NULL);

  *oldest = NULL;
  for (guint i = 0; i < self->running->len; i++)
    {
      const OnyxJob *job = self->running->pdata[i];
      int permille = g_atomic_int_get (&job->permille);
      if (job->spec.label == NULL || job->dropped)
        continue;
      if (*oldest == NULL)
        *oldest = job;
      if (label->len > 0)
        g_string_append_c (label, '\n');
      if (permille >= 0)
        /* TRANSLATORS: a background job and how far it is: "Saving model.onnx: 45 %" */
        g_string_append_printf (label, _("%s: %d %%"), job->spec.label, permille / 10);
      else
        g_string_append (label, job->spec.label);
    }
  return label->len > 0 ? g_string_free (g_steal_pointer (&label), FALSE) : NULL;
}

/* Busy when the oldest labelled job has run for the delay (otherwise a timeout for
 * when it will), and then until the last one ends: a spinner that went when its
 * first job ended while a younger one still runs would only flicker. */
static void
update (OnyxJobs *self)
{
  const OnyxJob *oldest;
  g_autofree char *label = running_label (self, &oldest);
  gboolean busy = FALSE;

  g_clear_handle_id (&self->delay_timeout, g_source_remove);
  if (oldest != NULL)
    {
      gint64 ran_ms = (g_get_monotonic_time () - oldest->started) / 1000;
      busy = self->busy || ran_ms >= self->delay_ms;
      if (!busy)
        self->delay_timeout = g_timeout_add ((guint) (self->delay_ms - ran_ms), delay_reached_cb, self);
      if (self->progress_timeout == 0)
        self->progress_timeout = g_timeout_add (PROGRESS_TICK_MS, progress_tick_cb, self);
    }
  else
    g_clear_handle_id (&self->progress_timeout, g_source_remove);
  if (g_strcmp0 (self->label, label) != 0)
    {
      g_free (self->label);
      self->label = g_steal_pointer (&label);
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_LABEL]);
    }
  if (busy != self->busy)
    {
      self->busy = busy;
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_BUSY]);
    }
}

static void
job_free (OnyxJob *job)
{
  /* The owner first: its last reference may go here, and its dispose may still
   * cancel this job and read its data (a dropped job's owner was never told it ended). */
  g_clear_object (&job->spec.owner);
  if (job->result != NULL && job->spec.result_free != NULL)
    job->spec.result_free (job->result);
  if (job->spec.data_free != NULL)
    job->spec.data_free (job->spec.data);
  g_clear_object (&job->spec.document);
  g_free ((char *) job->spec.label);
  g_clear_object (&job->cancellable);
  g_object_unref (job->jobs);
  g_free (job);
}

static void
work_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  OnyxJob *job = data;
  GError *error = NULL;
  gpointer result = job->spec.work (job, job->spec.data, &error);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    /* A job cancelled meanwhile is not given the result (GTask checks its
     * cancellable): the task frees it then. */
    g_task_return_pointer (task, result, job->spec.result_free);
}

static void
work_done (GObject *source, GAsyncResult *async, gpointer data)
{
  OnyxJob *job = data;
  OnyxJobs *self = job->jobs;
  g_autoptr (GError) error = NULL;

  job->result = g_task_propagate_pointer (G_TASK (async), &error);
  if (job->frozen)
    onyx_document_thaw (job->spec.document);
  g_ptr_array_remove (self->running, job);
  if (!job->dropped && job->spec.done != NULL)
    job->spec.done (job, job->result, error, job->spec.owner);
  update (self);
  if (self->running->len == 0)
    g_object_notify_by_pspec (G_OBJECT (self), props[PROP_RUNNING]);
  job_free (job);
}

OnyxJob *
onyx_jobs_start (OnyxJobs *self, const OnyxJobSpec *spec)
{
  g_autoptr (GTask) task = NULL;
  OnyxJob *job;

  g_return_val_if_fail (ONYX_IS_JOBS (self) && spec->work != NULL, NULL);
  job = g_new0 (OnyxJob, 1);
  job->jobs = g_object_ref (self);
  job->spec = *spec;
  job->spec.label = g_strdup (spec->label);
  if (spec->owner != NULL)
    g_object_ref (spec->owner);
  if (spec->document != NULL)
    {
      g_object_ref (spec->document);
      job->revision = onyx_document_get_revision (spec->document);
      if (spec->flags & ONYX_JOB_FREEZE)
        {
          onyx_document_freeze (spec->document);
          job->frozen = TRUE;
        }
    }
  job->cancellable = g_cancellable_new ();
  job->started = g_get_monotonic_time ();
  job->permille = -1;
  g_ptr_array_add (self->running, job);
  task = g_task_new (NULL, job->cancellable, work_done, job);
  g_task_set_task_data (task, job, NULL);
  /* The end comes when the work is done, whatever was asked meanwhile: it holds
   * what the work reads, and a frozen document thaws only then. */
  g_task_set_return_on_cancel (task, FALSE);
  g_task_run_in_thread (task, work_thread);
  if (self->running->len == 1)
    g_object_notify_by_pspec (G_OBJECT (self), props[PROP_RUNNING]);
  update (self);
  return job;
}

void
onyx_jobs_drop_owner (OnyxJobs *self, gpointer owner)
{
  g_return_if_fail (ONYX_IS_JOBS (self));
  for (guint i = 0; i < self->running->len; i++)
    {
      OnyxJob *job = self->running->pdata[i];
      if (job->spec.owner == owner)
        onyx_job_drop (job);
    }
}

gboolean
onyx_jobs_get_busy (OnyxJobs *self)
{
  g_return_val_if_fail (ONYX_IS_JOBS (self), FALSE);
  return self->busy;
}

const char *
onyx_jobs_get_label (OnyxJobs *self)
{
  g_return_val_if_fail (ONYX_IS_JOBS (self), NULL);
  return self->label;
}

gboolean
onyx_jobs_is_running (OnyxJobs *self)
{
  g_return_val_if_fail (ONYX_IS_JOBS (self), FALSE);
  return self->running->len > 0;
}

void
onyx_jobs_set_delay (OnyxJobs *self, guint delay_ms)
{
  g_return_if_fail (ONYX_IS_JOBS (self));
  self->delay_ms = delay_ms;
  update (self);
}

void
onyx_job_set_progress (OnyxJob *job, double fraction)
{
  g_atomic_int_set (&job->permille, (int) (CLAMP (fraction, 0, 1) * 1000));
}

double
onyx_job_get_progress (OnyxJob *job)
{
  int permille = g_atomic_int_get (&job->permille);
  return permille < 0 ? 0 : permille / 1000.0;
}

GCancellable *
onyx_job_get_cancellable (OnyxJob *job)
{
  return job->cancellable;
}

void
onyx_job_cancel (OnyxJob *job)
{
  g_cancellable_cancel (job->cancellable);
}

void
onyx_job_drop (OnyxJob *job)
{
  job->dropped = TRUE;
  g_cancellable_cancel (job->cancellable);
  update (job->jobs);
}

guint64
onyx_job_get_revision (OnyxJob *job)
{
  return job->revision;
}

OnyxDocument *
onyx_job_get_document (OnyxJob *job)
{
  return job->spec.document;
}

gpointer
onyx_job_get_data (OnyxJob *job)
{
  return job->spec.data;
}

gboolean
onyx_job_is_current (OnyxJob *job)
{
  return job->spec.document == NULL || onyx_document_get_revision (job->spec.document) == job->revision;
}

gpointer
onyx_job_take_result (OnyxJob *job)
{
  return g_steal_pointer (&job->result);
}

static void
onyx_jobs_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  OnyxJobs *self = ONYX_JOBS (object);

  switch (prop_id)
    {
    case PROP_BUSY: g_value_set_boolean (value, self->busy); break;
    case PROP_LABEL: g_value_set_string (value, self->label); break;
    case PROP_RUNNING: g_value_set_boolean (value, self->running->len > 0); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
onyx_jobs_finalize (GObject *object)
{
  OnyxJobs *self = ONYX_JOBS (object);

  /* Each running job holds the runner: none is left here. */
  g_clear_handle_id (&self->delay_timeout, g_source_remove);
  g_clear_handle_id (&self->progress_timeout, g_source_remove);
  g_ptr_array_unref (self->running);
  g_free (self->label);
  G_OBJECT_CLASS (onyx_jobs_parent_class)->finalize (object);
}

static void
onyx_jobs_class_init (OnyxJobsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = onyx_jobs_get_property;
  object_class->finalize = onyx_jobs_finalize;
  props[PROP_BUSY] = g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                                           G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  props[PROP_LABEL] = g_param_spec_string ("label", NULL, NULL, NULL,
                                           G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  props[PROP_RUNNING] = g_param_spec_boolean ("running", NULL, NULL, FALSE,
                                              G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);
}

static void
onyx_jobs_init (OnyxJobs *self)
{
  self->running = g_ptr_array_new ();
  self->delay_ms = DEFAULT_DELAY_MS;
}

OnyxJobs *
onyx_jobs_new (void)
{
  return g_object_new (ONYX_TYPE_JOBS, NULL);
}
