/* onyx-compare-session.c: the diff of A and B, worked out in jobs. */
#include "onyx-compare-session.h"

#include <glib/gi18n.h>


struct _OnyxCompareSession {
  GObject parent_instance;
  OnyxJobs *jobs;
  OnyxDocument *document;         /* B; NULL once stopped */
  OnyxModel *model;               /* A, once read */
  char *path;                     /* A's path, until it is read */
  char *name;
  OnyxDiff *diff;
  OnyxJob *job;                   /* the diff being worked out */
  struct DiffWork *work;          /* its work (the job frees it) */
};

G_DEFINE_FINAL_TYPE (OnyxCompareSession, onyx_compare_session, G_TYPE_OBJECT)

enum { DIFF_READY, FAILED, N_SIGNALS };
static guint signals[N_SIGNALS];

enum { PROP_0, PROP_BUSY, PROP_NAME, N_PROPS };
static GParamSpec *props[N_PROPS];

/* What a job reads: B frozen until it is done. The first one reads A as well. */
typedef struct DiffWork {
  OnyxModel *a;                   /* NULL: read from a_path first */
  char *a_path;
  OnyxDocument *b;
} DiffWork;

static void
diff_work_free (DiffWork *work)
{
  g_clear_object (&work->a);
  g_free (work->a_path);
  g_object_unref (work->b);
  g_free (work);
}

static gpointer
diff (OnyxJob *job, gpointer data, GError **error)
{
  DiffWork *work = data;

  if (work->a == NULL && (work->a = onyx_model_new_from_file (work->a_path, error)) == NULL)
    return NULL;
  return onyx_diff_model_files (work->a, onyx_document_get_model (work->b), onyx_document_get_proto (work->b));
}

static void
diff_done (OnyxJob *job, gpointer result, const GError *error, gpointer owner)
{
  OnyxCompareSession *self = owner;
  DiffWork *work = self->work;

  /* Stopped meanwhile, or a newer diff was started: dropped, never here. */
  self->job = NULL;
  self->work = NULL;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_BUSY]);
  if (error != NULL)
    {
      g_autofree char *message = g_strdup (error->message);
      onyx_compare_session_stop (self);
      g_signal_emit (self, signals[FAILED], 0, message);
      return;
    }
  if (self->model == NULL)
    {
      self->model = g_object_ref (work->a);
      g_clear_pointer (&self->path, g_free);
    }
  g_clear_pointer (&self->diff, onyx_diff_free);
  self->diff = onyx_job_take_result (job);
  g_signal_emit (self, signals[DIFF_READY], 0);
}

static void
start_diff (OnyxCompareSession *self)
{
  g_autofree char *label = g_strdup_printf (_("Comparing with %s"), self->name);
  OnyxJobSpec spec = { .label = label, .document = self->document, .flags = ONYX_JOB_FREEZE, .owner = self,
                       .work = diff, .data_free = (GDestroyNotify) diff_work_free,
                       .result_free = (GDestroyNotify) onyx_diff_free, .done = diff_done };
  DiffWork *work = g_new0 (DiffWork, 1);
  gboolean was_busy = self->job != NULL;

  work->a = self->model != NULL ? g_object_ref (self->model) : NULL;
  work->a_path = g_strdup (self->path);
  work->b = g_object_ref (self->document);
  spec.data = work;
  if (self->job != NULL)
    onyx_job_drop (self->job);
  self->work = work;
  self->job = onyx_jobs_start (self->jobs, &spec);
  if (!was_busy)
    g_object_notify_by_pspec (G_OBJECT (self), props[PROP_BUSY]);
}

void
onyx_compare_session_update (OnyxCompareSession *self)
{
  g_return_if_fail (ONYX_IS_COMPARE_SESSION (self));
  if (self->document != NULL)
    start_diff (self);
}

static OnyxCompareSession *
session_new (OnyxJobs *jobs, OnyxDocument *document, const char *path, OnyxModel *model, const char *name)
{
  OnyxCompareSession *self = g_object_new (ONYX_TYPE_COMPARE_SESSION, NULL);

  self->jobs = g_object_ref (jobs);
  self->document = g_object_ref (document);
  self->path = g_strdup (path);
  self->model = model != NULL ? g_object_ref (model) : NULL;
  self->name = g_strdup (name);
  start_diff (self);
  return self;
}

OnyxCompareSession *
onyx_compare_session_new (OnyxJobs *jobs, OnyxDocument *document, const char *path, const char *name)
{
  return session_new (jobs, document, path, NULL, name);
}

OnyxCompareSession *
onyx_compare_session_new_for_model (OnyxJobs *jobs, OnyxDocument *document, OnyxModel *model, const char *name)
{
  return session_new (jobs, document, NULL, model, name);
}

void
onyx_compare_session_stop (OnyxCompareSession *self)
{
  g_return_if_fail (ONYX_IS_COMPARE_SESSION (self));
  g_clear_object (&self->document);
  if (self->job != NULL)
    {
      onyx_job_drop (g_steal_pointer (&self->job));
      self->work = NULL;
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_BUSY]);
    }
}
const OnyxDiff *
onyx_compare_session_get_diff (OnyxCompareSession *self)
{
  g_return_val_if_fail (ONYX_IS_COMPARE_SESSION (self), NULL);
  return self->diff;
}

const char *
onyx_compare_session_get_name (OnyxCompareSession *self)
{
  g_return_val_if_fail (ONYX_IS_COMPARE_SESSION (self), NULL);
  return self->name;
}

gboolean
onyx_compare_session_get_busy (OnyxCompareSession *self)
{
  g_return_val_if_fail (ONYX_IS_COMPARE_SESSION (self), FALSE);
  return self->job != NULL;
}

static void
onyx_compare_session_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  OnyxCompareSession *self = ONYX_COMPARE_SESSION (object);

  switch (prop_id)
    {
    case PROP_BUSY: g_value_set_boolean (value, self->job != NULL); break;
    case PROP_NAME: g_value_set_string (value, self->name); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
onyx_compare_session_dispose (GObject *object)
{
  OnyxCompareSession *self = ONYX_COMPARE_SESSION (object);

  onyx_compare_session_stop (self);
  G_OBJECT_CLASS (onyx_compare_session_parent_class)->dispose (object);
}

static void
onyx_compare_session_finalize (GObject *object)
{
  OnyxCompareSession *self = ONYX_COMPARE_SESSION (object);

  g_clear_object (&self->model);
  g_free (self->path);
  g_free (self->name);
  g_clear_pointer (&self->diff, onyx_diff_free);
  g_clear_object (&self->jobs);
  G_OBJECT_CLASS (onyx_compare_session_parent_class)->finalize (object);
}

static void
onyx_compare_session_class_init (OnyxCompareSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = onyx_compare_session_get_property;
  object_class->dispose = onyx_compare_session_dispose;
  object_class->finalize = onyx_compare_session_finalize;
  props[PROP_BUSY] = g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                                           G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  props[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL,
                                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);
  signals[DIFF_READY] = g_signal_new ("diff-ready", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                      0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[FAILED] = g_signal_new ("failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
onyx_compare_session_init (OnyxCompareSession *self)
{
}
