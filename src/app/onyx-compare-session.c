/* onyx-compare-session.c: the diff of A and B, worked out in threads. */
#include "onyx-compare-session.h"


struct _OnyxCompareSession {
  GObject parent_instance;
  OnyxDocument *document;         /* B; NULL once stopped */
  OnyxModel *model;               /* A, once read */
  char *path;                     /* A's path, until it is read */
  char *name;
  OnyxDiff *diff;
  GCancellable *cancellable;      /* the diff being worked out */
};

G_DEFINE_FINAL_TYPE (OnyxCompareSession, onyx_compare_session, G_TYPE_OBJECT)

enum { DIFF_READY, FAILED, N_SIGNALS };
static guint signals[N_SIGNALS];

enum { PROP_0, PROP_BUSY, PROP_NAME, N_PROPS };
static GParamSpec *props[N_PROPS];

/* What a thread reads: B frozen until it is done. The first one reads A as well. */
typedef struct {
  OnyxModel *a;                   /* NULL: read from a_path first */
  char *a_path;
  OnyxDocument *b;
  OnyxDiff *diff;
} DiffJob;

static void
diff_job_free (DiffJob *job)
{
  g_clear_object (&job->a);
  g_free (job->a_path);
  g_object_unref (job->b);
  g_clear_pointer (&job->diff, onyx_diff_free);
  g_free (job);
}

static void
diff_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  DiffJob *job = data;
  GError *error = NULL;

  if (job->a == NULL && (job->a = onyx_model_new_from_file (job->a_path, &error)) == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  job->diff = onyx_diff_model_files (job->a, onyx_document_get_model (job->b), onyx_document_get_proto (job->b));
  g_task_return_boolean (task, TRUE);
}

static void
diff_done (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (OnyxCompareSession) self = data;
  DiffJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  gboolean ok = g_task_propagate_boolean (G_TASK (result), &error);

  onyx_document_thaw (job->b);
  /* Stopped meanwhile, or a newer diff was started. */
  if (g_task_get_cancellable (G_TASK (result)) != self->cancellable)
    return;
  g_clear_object (&self->cancellable);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_BUSY]);
  if (!ok)
    {
      onyx_compare_session_stop (self);
      g_signal_emit (self, signals[FAILED], 0, error->message);
      return;
    }
  if (self->model == NULL)
    {
      self->model = g_object_ref (job->a);
      g_clear_pointer (&self->path, g_free);
    }
  g_clear_pointer (&self->diff, onyx_diff_free);
  self->diff = g_steal_pointer (&job->diff);
  g_signal_emit (self, signals[DIFF_READY], 0);
}

static void
start_diff (OnyxCompareSession *self)
{
  g_autoptr (GTask) task = NULL;
  DiffJob *job = g_new0 (DiffJob, 1);
  gboolean was_busy = self->cancellable != NULL;

  job->a = self->model != NULL ? g_object_ref (self->model) : NULL;
  job->a_path = g_strdup (self->path);
  job->b = g_object_ref (self->document);
  onyx_document_freeze (self->document);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  task = g_task_new (NULL, self->cancellable, diff_done, g_object_ref (self));
  g_task_set_task_data (task, job, (GDestroyNotify) diff_job_free);
  g_task_run_in_thread (task, diff_thread);
  if (!was_busy)
    g_object_notify_by_pspec (G_OBJECT (self), props[PROP_BUSY]);
}

static void
document_changed_cb (OnyxCompareSession *self, const OnyxChange *change)
{
  /* Only saved: B is what it was. */
  if (change == NULL && self->diff != NULL)
    return;
  start_diff (self);
}

OnyxCompareSession *
onyx_compare_session_new (OnyxDocument *document, const char *path, const char *name)
{
  OnyxCompareSession *self = g_object_new (ONYX_TYPE_COMPARE_SESSION, NULL);

  self->document = g_object_ref (document);
  self->path = g_strdup (path);
  self->name = g_strdup (name);
  g_signal_connect_swapped (document, "changed", G_CALLBACK (document_changed_cb), self);
  start_diff (self);
  return self;
}

void
onyx_compare_session_stop (OnyxCompareSession *self)
{
  g_return_if_fail (ONYX_IS_COMPARE_SESSION (self));
  if (self->document != NULL)
    g_signal_handlers_disconnect_by_data (self->document, self);
  g_clear_object (&self->document);
  if (self->cancellable != NULL)
    {
      g_clear_object (&self->cancellable);
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
  return self->cancellable != NULL;
}

static void
onyx_compare_session_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  OnyxCompareSession *self = ONYX_COMPARE_SESSION (object);

  switch (prop_id)
    {
    case PROP_BUSY: g_value_set_boolean (value, self->cancellable != NULL); break;
    case PROP_NAME: g_value_set_string (value, self->name); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
onyx_compare_session_dispose (GObject *object)
{
  OnyxCompareSession *self = ONYX_COMPARE_SESSION (object);

  if (self->document != NULL)
    g_signal_handlers_disconnect_by_data (self->document, self);
  g_clear_object (&self->document);
  g_clear_object (&self->cancellable);
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
