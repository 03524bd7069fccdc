/* onyx-simplifier.c: Simplify in the app (onyx-simplifier.h). */
#include "onyx-simplifier.h"

#include <glib/gi18n.h>

#include "onyx-simplify.h"
#include "onyx-simplify-dialog.h"

typedef struct _Simplified Simplified;

struct _OnyxSimplifier {
  GSimpleActionGroup parent_instance;

  OnyxViewState *state;
  OnyxJob *job;
  /* What waits for the document to be editable again (the analysis of the step
   * before still reads it): a Simplify made on the copy, to apply; or, after a pass
   * was undone, one to start without it. */
  Simplified *to_apply;
  OnyxSimplifyPasses to_start;
  /* Of the last Simplify shown: the passes it ran, for without::PASS. */
  OnyxSimplifyPasses last_passes;
  OnyxDocument *last_document;
  guint last_n_undo;
};

G_DEFINE_FINAL_TYPE (OnyxSimplifier, onyx_simplifier, G_TYPE_SIMPLE_ACTION_GROUP)

typedef struct {
  OnyxModel *before;            /* the model as it was, read by the job and by Show Changes */
  OnyxSimplifyPasses passes;
} Simplifying;

struct _Simplified {
  OnyxSimplifyReport *report;
  OnyxSimplifyTape *tape;
  OnyxModel *before;
  OnyxSimplifyPasses passes;
  OnyxDocument *document;     /* the one it is for */
};

static void
simplifying_free (Simplifying *simplifying)
{
  g_object_unref (simplifying->before);
  g_free (simplifying);
}

static void
simplified_free (Simplified *simplified)
{
  onyx_simplify_report_free (simplified->report);
  onyx_simplify_tape_free (simplified->tape);
  g_clear_object (&simplified->before);
  g_clear_object (&simplified->document);
  g_free (simplified);
}

/* In the job: a copy simplified and proven, what it asked recorded. */
static gpointer
simplify_copy (OnyxJob *job, gpointer data, GError **error)
{
  Simplifying *simplifying = data;
  g_autoptr (OnyxModel) copy = onyx_model_snapshot (simplifying->before);
  g_autoptr (OnyxDocument) document = onyx_document_new (copy);
  Simplified *simplified = g_new0 (Simplified, 1);
  OnyxSimplifyOptions options = { .passes = simplifying->passes, .prove = TRUE };

  simplified->tape = onyx_simplify_tape_new ();
  simplified->before = g_object_ref (simplifying->before);
  simplified->passes = simplifying->passes;
  options.tape = simplified->tape;
  if (!onyx_edit_simplify (document, &options, &simplified->report, error))
    {
      simplified_free (simplified);
      return NULL;
    }
  return simplified;
}

static void
update_actions (OnyxSimplifier *self)
{
  gboolean editable = onyx_view_state_is_editable (self->state) && self->job == NULL && self->to_apply == NULL &&
                      self->to_start == 0;

  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self), "run")), editable);
  /* A pass of the last Simplify is undone only while it is the last step. */
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self), "without")),
                               editable && self->last_document != NULL &&
                               self->last_document == onyx_view_state_get_document (self->state) &&
                               onyx_document_get_n_undo (self->last_document) == self->last_n_undo);
}

/* The document itself, as the copy went, then the report. */
static void
apply (OnyxSimplifier *self, Simplified *simplified)
{
  OnyxSimplifyOptions replay = { .passes = simplified->report->kept, .tape = simplified->tape, .replay = TRUE };
  OnyxDocument *document = simplified->document;
  g_autoptr (GError) error = NULL;
  guint n_undo = onyx_document_get_n_undo (document);
  gboolean ok = onyx_edit_simplify (document, &replay, NULL, &error);

  self->last_passes = simplified->passes;
  g_clear_object (&self->last_document);
  if (ok)
    self->last_document = g_object_ref (document);
  self->last_n_undo = onyx_document_get_n_undo (document);
  /* No step when nothing changed: the report says so. */
  if (!ok || self->last_n_undo != n_undo)
    onyx_view_state_edit_done (self->state, ok, error);
  if (ok)
    gtk_window_present (GTK_WINDOW (onyx_simplify_dialog_new (self->state, G_ACTION_GROUP (self), simplified->report,
                                                              simplified->before)));
}

static void start (OnyxSimplifier *self, OnyxSimplifyPasses passes);

/* What waited for the document, once it is editable. */
static void
editable_cb (OnyxSimplifier *self)
{
  Simplified *simplified = self->to_apply;
  OnyxSimplifyPasses passes = self->to_start;

  if (onyx_view_state_is_editable (self->state))
    {
      self->to_apply = NULL;
      self->to_start = 0;
      if (simplified != NULL && simplified->document == onyx_view_state_get_document (self->state))
        apply (self, simplified);
      g_clear_pointer (&simplified, simplified_free);
      if (passes != 0)
        start (self, passes);
    }
  update_actions (self);
}

static void
simplify_done (OnyxJob *job, gpointer result, const GError *error, gpointer owner)
{
  OnyxSimplifier *self = owner;

  self->job = NULL;
  if (onyx_job_get_document (job) != onyx_view_state_get_document (self->state))
    {
      update_actions (self);
      return;
    }
  if (result == NULL)
    {
      onyx_view_state_edit_done (self->state, FALSE, error);
      update_actions (self);
      return;
    }
  self->to_apply = onyx_job_take_result (job);
  self->to_apply->document = g_object_ref (onyx_job_get_document (job));
  editable_cb (self);
}

static void
start (OnyxSimplifier *self, OnyxSimplifyPasses passes)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  g_autofree char *label = NULL;
  Simplifying *simplifying;
  OnyxJobSpec spec = { .document = document, .flags = ONYX_JOB_FREEZE, .owner = self, .work = simplify_copy,
                       .data_free = (GDestroyNotify) simplifying_free,
                       .result_free = (GDestroyNotify) simplified_free, .done = simplify_done };

  if (document == NULL || self->job != NULL)
    return;
  simplifying = g_new0 (Simplifying, 1);
  simplifying->before = onyx_model_snapshot (onyx_document_get_model (document));
  simplifying->passes = passes;
  spec.data = simplifying;
  label = g_strdup_printf (_("Simplifying %s"), onyx_model_get_display_name (onyx_document_get_model (document)));
  spec.label = label;
  self->job = onyx_jobs_start (onyx_view_state_get_jobs (self->state), &spec);
  update_actions (self);
}

static void
run_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  start (data, ONYX_SIMPLIFY_ALL);
}

/* The last Simplify undone and made again without one pass. */
static void
without_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxSimplifier *self = data;
  OnyxSimplifyPasses pass;

  if (!onyx_simplify_parse_passes (g_variant_get_string (param, NULL), &pass, NULL) ||
      self->last_document == NULL || !onyx_document_undo (self->last_document))
    return;
  g_clear_object (&self->last_document);
  /* Once the undo's analysis lets the document go. */
  self->to_start = self->last_passes & ~pass;
  editable_cb (self);
}

gboolean
onyx_simplifier_is_running (OnyxSimplifier *self)
{
  return self->job != NULL;
}

static void
onyx_simplifier_dispose (GObject *object)
{
  OnyxSimplifier *self = ONYX_SIMPLIFIER (object);

  if (self->state != NULL)
    onyx_jobs_drop_owner (onyx_view_state_get_jobs (self->state), self);
  self->job = NULL;
  g_clear_pointer (&self->to_apply, simplified_free);
  g_clear_object (&self->last_document);
  g_clear_object (&self->state);
  G_OBJECT_CLASS (onyx_simplifier_parent_class)->dispose (object);
}

static void
onyx_simplifier_class_init (OnyxSimplifierClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = onyx_simplifier_dispose;
}

static void
onyx_simplifier_init (OnyxSimplifier *self)
{
  static const GActionEntry entries[] = {
    { .name = "run", .activate = run_activated },
    { .name = "without", .activate = without_activated, .parameter_type = "s" },
  };

  g_action_map_add_action_entries (G_ACTION_MAP (self), entries, G_N_ELEMENTS (entries), self);
}

OnyxSimplifier *
onyx_simplifier_new (OnyxViewState *state)
{
  OnyxSimplifier *self = g_object_new (ONYX_TYPE_SIMPLIFIER, NULL);

  self->state = g_object_ref (state);
  g_signal_connect_object (state, "notify::editable", G_CALLBACK (editable_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "stepped", G_CALLBACK (update_actions), self, G_CONNECT_SWAPPED);
  update_actions (self);
  return self;
}
