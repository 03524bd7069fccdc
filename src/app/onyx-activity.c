/* onyx-activity.c: background jobs of a window and the header bar's spinner. */
#include "onyx-activity.h"

#include <glib/gi18n.h>

#define DEFAULT_DELAY_MS 500

typedef struct {
  guint id;
  char *label;
  gint64 started;       /* monotonic, µs */
  int percent;          /* -1 while unknown */
} Job;

struct _OnyxActivity {
  GObject parent_instance;
  GtkSpinner *spinner;
  GArray *jobs;         /* Job, oldest first */
  guint next_id;
  guint delay_ms;
  guint timeout;        /* fires when the oldest job reaches the delay */
  gboolean busy;
  char *label;
};

G_DEFINE_FINAL_TYPE (OnyxActivity, onyx_activity, G_TYPE_OBJECT)

enum { PROP_0, PROP_BUSY, PROP_LABEL, N_PROPS };
static GParamSpec *props[N_PROPS];

static void
job_clear (Job *job)
{
  g_free (job->label);
}

static void update (OnyxActivity *self);

static gboolean
delay_reached_cb (gpointer data)
{
  OnyxActivity *self = data;

  self->timeout = 0;
  update (self);
  return G_SOURCE_REMOVE;
}

/* Busy when the oldest job has run for the delay (otherwise a timeout for when it
 * will), and then until the last job ends: a spinner that went when its first job
 * ended while a younger one still runs would only flicker. */
static void
update (OnyxActivity *self)
{
  g_autoptr (GString) label = g_string_new (NULL);
  gboolean busy = FALSE;

  g_clear_handle_id (&self->timeout, g_source_remove);
  if (self->jobs->len > 0)
    {
      const Job *oldest = &g_array_index (self->jobs, Job, 0);
      gint64 ran_ms = (g_get_monotonic_time () - oldest->started) / 1000;

      busy = self->busy || ran_ms >= self->delay_ms;
      if (!busy)
        self->timeout = g_timeout_add ((guint) (self->delay_ms - ran_ms), delay_reached_cb, self);
      for (guint i = 0; i < self->jobs->len; i++)
        {
          const Job *job = &g_array_index (self->jobs, Job, i);
          if (i > 0)
            g_string_append_c (label, '\n');
          if (job->percent >= 0)
            /* TRANSLATORS: a background job and how far it is: "Saving model.onnx: 45 %" */
            g_string_append_printf (label, _("%s: %d %%"), job->label, job->percent);
          else
            g_string_append (label, job->label);
        }
    }
  if (g_strcmp0 (self->label, self->jobs->len > 0 ? label->str : NULL) != 0)
    {
      g_free (self->label);
      self->label = self->jobs->len > 0 ? g_strdup (label->str) : NULL;
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->spinner), self->label);
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_LABEL]);
    }
  if (busy != self->busy)
    {
      self->busy = busy;
      gtk_widget_set_visible (GTK_WIDGET (self->spinner), busy);
      gtk_spinner_set_spinning (self->spinner, busy);
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_BUSY]);
    }
}

guint
onyx_activity_begin (OnyxActivity *self, const char *label)
{
  Job job = { 0 };

  g_return_val_if_fail (ONYX_IS_ACTIVITY (self) && label != NULL, 0);
  job.id = ++self->next_id;
  job.label = g_strdup (label);
  job.started = g_get_monotonic_time ();
  job.percent = -1;
  g_array_append_val (self->jobs, job);
  update (self);
  return job.id;
}

/* Where the job `id` is in the list; FALSE when it is not (0, or it ended). */
static gboolean
find_job (OnyxActivity *self, guint id, guint *index)
{
  for (guint i = 0; id != 0 && i < self->jobs->len; i++)
    if (g_array_index (self->jobs, Job, i).id == id)
      {
        *index = i;
        return TRUE;
      }
  return FALSE;
}

void
onyx_activity_set_progress (OnyxActivity *self, guint id, double fraction)
{
  guint i;

  g_return_if_fail (ONYX_IS_ACTIVITY (self));
  if (!find_job (self, id, &i))
    return;
  g_array_index (self->jobs, Job, i).percent = (int) (CLAMP (fraction, 0, 1) * 100);
  update (self);
}

void
onyx_activity_end (OnyxActivity *self, guint id)
{
  guint i;

  g_return_if_fail (ONYX_IS_ACTIVITY (self));
  if (!find_job (self, id, &i))
    return;
  g_array_remove_index (self->jobs, i);
  update (self);
}

gboolean
onyx_activity_get_busy (OnyxActivity *self)
{
  g_return_val_if_fail (ONYX_IS_ACTIVITY (self), FALSE);
  return self->busy;
}

const char *
onyx_activity_get_label (OnyxActivity *self)
{
  g_return_val_if_fail (ONYX_IS_ACTIVITY (self), NULL);
  return self->label;
}

void
onyx_activity_set_delay (OnyxActivity *self, guint delay_ms)
{
  g_return_if_fail (ONYX_IS_ACTIVITY (self));
  self->delay_ms = delay_ms;
  update (self);
}

static void
onyx_activity_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  OnyxActivity *self = ONYX_ACTIVITY (object);

  switch (prop_id)
    {
    case PROP_BUSY: g_value_set_boolean (value, self->busy); break;
    case PROP_LABEL: g_value_set_string (value, self->label); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
onyx_activity_finalize (GObject *object)
{
  OnyxActivity *self = ONYX_ACTIVITY (object);

  g_clear_handle_id (&self->timeout, g_source_remove);
  g_array_unref (self->jobs);
  g_clear_object (&self->spinner);
  g_free (self->label);
  G_OBJECT_CLASS (onyx_activity_parent_class)->finalize (object);
}

static void
onyx_activity_class_init (OnyxActivityClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = onyx_activity_get_property;
  object_class->finalize = onyx_activity_finalize;
  props[PROP_BUSY] = g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                                           G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  props[PROP_LABEL] = g_param_spec_string ("label", NULL, NULL, NULL,
                                           G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);
}

static void
onyx_activity_init (OnyxActivity *self)
{
  self->jobs = g_array_new (FALSE, TRUE, sizeof (Job));
  g_array_set_clear_func (self->jobs, (GDestroyNotify) job_clear);
  self->delay_ms = DEFAULT_DELAY_MS;
}

OnyxActivity *
onyx_activity_new (GtkSpinner *spinner)
{
  OnyxActivity *self = g_object_new (ONYX_TYPE_ACTIVITY, NULL);

  g_return_val_if_fail (GTK_IS_SPINNER (spinner), self);
  self->spinner = g_object_ref (spinner);
  gtk_widget_set_visible (GTK_WIDGET (spinner), FALSE);
  return self;
}
