/* onyx-layout-session.c: laying the graph shown out in a thread (see the header). */
#include "onyx-layout-session.h"

#include <string.h>

#include "onyx-problem-list.h"
#include "onyx-shapes.h"

struct _OnyxLayoutSession {
  GObject parent_instance;

  OnyxCanvas *canvas;             /* NULL once detached */
  GtkRevealer *progress_revealer;
  GtkProgressBar *progress_bar;
  GSettings *settings;

  OnyxDocument *document;
  OnyxLayoutEngine *engine;
  gboolean items_stale;           /* the graph changed since the engine built its items */
  guint relayout_after_change;    /* idle: the edit's layout, once the window chose the graph */
  GPtrArray *expanded;            /* char* scopes opened by the user */
  GPtrArray *collapsed;           /* char* scopes closed by the user */

  /* The layout running, if any (owned by its task): busy while there is one. */
  struct LayoutJob *job;
  gboolean pending;               /* another layout was asked for meanwhile */
  gboolean keep_view;
  int progress_permille;          /* written by the thread, read by a UI timeout */
  guint progress_source;
};

enum { PROP_0, PROP_BUSY, N_PROPS };
static GParamSpec *props[N_PROPS];

enum { SIGNAL_SNAPSHOT_READY, SIGNAL_LAID_OUT, SIGNAL_CANCELLED, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (OnyxLayoutSession, onyx_layout_session, G_TYPE_OBJECT)

/* What the thread works with: everything it reads is its own or frozen. */
typedef struct LayoutJob {
  OnyxDocument *document;         /* frozen until the job is done */
  guint64 revision;
  OnyxLayoutEngine *engine;       /* freed when done if the session has another by then */
  OnyxShapes *shapes;             /* NULL: inferred by the thread, with the validation */
  GPtrArray *validation;          /* onyx_validate_model's, made with the shapes */
  gboolean shapes_made;           /* by the thread */
  gboolean items_stale;
  gboolean fold_constants;
  OnyxExpandMode mode;
  char **expanded;
  char **collapsed;
  gboolean quiet;                 /* cancelled on purpose: nothing to say */
  GCancellable *cancellable;      /* the task's */
  int *progress_permille;
} LayoutJob;

static void
layout_job_free (LayoutJob *job)
{
  g_clear_object (&job->document);
  g_clear_pointer (&job->shapes, onyx_shapes_unref);
  g_clear_pointer (&job->validation, g_ptr_array_unref);
  g_clear_object (&job->cancellable);
  g_strfreev (job->expanded);
  g_strfreev (job->collapsed);
  g_free (job);
}

static void
layout_progress (double fraction, gpointer data)
{
  g_atomic_int_set ((int *) data, (int) (fraction * 1000));
}

static void
layout_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  LayoutJob *job = data;
  g_autoptr (GHashTable) expanded = NULL;
  OnyxLayout *layout;

  if (job->shapes == NULL && job->document != NULL)
    {
      /* The whole-model checks of a step: 10 ms and more on big graphs, off the UI. */
      job->shapes = onyx_shapes_infer (onyx_document_get_proto (job->document), FALSE);
      job->validation = onyx_validate_model (onyx_document_get_proto (job->document));
      job->shapes_made = TRUE;
    }
  if (job->items_stale)
    onyx_layout_engine_graph_changed (job->engine);
  onyx_layout_engine_set_fold_constants (job->engine, job->fold_constants);
  onyx_layout_engine_set_shapes (job->engine, job->shapes);
  expanded = onyx_layout_engine_expansion (job->engine, job->mode, (const char *const *) job->expanded,
                                           (const char *const *) job->collapsed);
  layout = onyx_layout_engine_run (job->engine, expanded, layout_progress, job->progress_permille, cancellable);
  if (layout == NULL)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "cancelled");
  else
    g_task_return_pointer (task, layout, (GDestroyNotify) onyx_layout_free);
}

static gboolean
progress_tick (gpointer data)
{
  OnyxLayoutSession *self = data;

  gtk_progress_bar_set_fraction (self->progress_bar, g_atomic_int_get (&self->progress_permille) / 1000.0);
  /* Small graphs finish before the progress box would just flicker. */
  gtk_revealer_set_reveal_child (self->progress_revealer, TRUE);
  return G_SOURCE_CONTINUE;
}

static void
stop_progress (OnyxLayoutSession *self)
{
  g_clear_handle_id (&self->progress_source, g_source_remove);
  if (self->progress_revealer != NULL)
    gtk_revealer_set_reveal_child (self->progress_revealer, FALSE);
}

/* In a main-loop turn of its own, after the new layout's: each stays short. Shapes
 * of a document changed meanwhile are no longer its own and are not announced. */
static gboolean
announce_snapshot (gpointer data)
{
  OnyxLayoutSession *self = data;

  if (self->document != NULL && onyx_document_peek_shapes (self->document) != NULL)
    g_signal_emit (self, signals[SIGNAL_SNAPSHOT_READY], 0);
  return G_SOURCE_REMOVE;
}

static void
layout_done (GObject *source, GAsyncResult *result, gpointer data)
{
  OnyxLayoutSession *self = ONYX_LAYOUT_SESSION (source);
  LayoutJob *job = g_task_get_task_data (G_TASK (result));
  OnyxLayout *layout = g_task_propagate_pointer (G_TASK (result), NULL);
  gboolean current = job->engine == self->engine && self->canvas != NULL;

  if (job->document != NULL)
    onyx_document_thaw (job->document);
  self->job = NULL;
  stop_progress (self);
  /* Shapes made of a document frozen meanwhile are its current ones, even when the
   * layout itself was cancelled. */
  if (job->shapes_made && onyx_document_offer_shapes (job->document, job->shapes, job->revision))
    {
      onyx_document_offer_validation (job->document, g_steal_pointer (&job->validation), job->revision);
      if (job->document == self->document)
        g_idle_add_full (G_PRIORITY_DEFAULT, announce_snapshot, g_object_ref (self), g_object_unref);
    }
  if (job->engine != self->engine)
    onyx_layout_engine_free (job->engine);
  if (layout != NULL && current)
    {
      onyx_canvas_set_layout (self->canvas, layout, self->keep_view);
      g_signal_emit (self, signals[SIGNAL_LAID_OUT], 0);
    }
  else
    {
      g_clear_pointer (&layout, onyx_layout_free);
      if (current && !self->pending && !job->quiet)
        g_signal_emit (self, signals[SIGNAL_CANCELLED], 0);
    }
  if (self->pending && self->engine != NULL)
    {
      self->pending = FALSE;
      onyx_layout_session_relayout (self, self->keep_view);
    }
  else
    g_object_notify_by_pspec (G_OBJECT (self), props[PROP_BUSY]);
}

static char **
scopes_strv (GPtrArray *scopes)
{
  char **strv = g_new0 (char *, scopes->len + 1);

  for (guint i = 0; i < scopes->len; i++)
    strv[i] = g_strdup (scopes->pdata[i]);
  return strv;
}

void
onyx_layout_session_relayout (OnyxLayoutSession *self, gboolean keep_view)
{
  g_autoptr (GTask) task = NULL;
  LayoutJob *job;

  g_return_if_fail (ONYX_IS_LAYOUT_SESSION (self));
  g_clear_handle_id (&self->relayout_after_change, g_source_remove);
  if (self->engine == NULL || self->canvas == NULL)
    return;
  if (self->job != NULL)
    {
      self->pending = TRUE;
      self->keep_view = self->keep_view && keep_view;
      return;
    }
  job = g_new0 (LayoutJob, 1);
  job->document = self->document != NULL ? g_object_ref (self->document) : NULL;
  job->engine = self->engine;
  if (job->document != NULL)
    {
      OnyxShapes *shapes = onyx_document_peek_shapes (job->document);
      job->shapes = shapes != NULL ? onyx_shapes_ref (shapes) : NULL;
      job->revision = onyx_document_get_revision (job->document);
      onyx_document_freeze (job->document);
    }
  job->items_stale = self->items_stale;
  self->items_stale = FALSE;
  job->fold_constants = g_settings_get_boolean (self->settings, "fold-constants");
  /* The schema's GroupExpansion nicks auto/top-level/all are OnyxExpandMode's order. */
  job->mode = g_settings_get_enum (self->settings, "group-expansion");
  job->expanded = scopes_strv (self->expanded);
  job->collapsed = scopes_strv (self->collapsed);
  job->progress_permille = &self->progress_permille;
  self->progress_permille = 0;
  self->keep_view = keep_view;
  job->cancellable = g_cancellable_new ();
  self->job = job;
  self->progress_source = g_timeout_add (300, progress_tick, self);

  task = g_task_new (self, job->cancellable, layout_done, NULL);
  g_task_set_task_data (task, job, (GDestroyNotify) layout_job_free);
  g_task_set_return_on_cancel (task, FALSE);
  g_task_run_in_thread (task, layout_thread);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_BUSY]);
}

static gboolean
relayout_after_change_cb (gpointer data)
{
  OnyxLayoutSession *self = data;

  self->relayout_after_change = 0;
  onyx_layout_session_relayout (self, TRUE);
  return G_SOURCE_REMOVE;
}

/* Whatever layout comes next builds the engine's items again (the old ones point
 * into the model as it was). It starts from an idle, not here: the graph shown may
 * be gone with the edit (a deleted If's branch, an inlined function), and the thread
 * must not read it before the window, in its own handler, shows another. */
static void
document_changed_cb (OnyxLayoutSession *self, const OnyxChange *change)
{
  if (change == NULL)
    return;  /* saved: the model is the same */
  self->items_stale = TRUE;
  if (self->relayout_after_change == 0 && self->engine != NULL && self->canvas != NULL)
    {
      self->relayout_after_change = g_idle_add_full (G_PRIORITY_HIGH, relayout_after_change_cb, self, NULL);
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_BUSY]);
    }
}

static void
cancel (OnyxLayoutSession *self, gboolean quiet)
{
  self->pending = FALSE;
  if (self->job == NULL)
    return;
  self->job->quiet = self->job->quiet || quiet;
  g_cancellable_cancel (self->job->cancellable);
}

void
onyx_layout_session_cancel (OnyxLayoutSession *self)
{
  g_return_if_fail (ONYX_IS_LAYOUT_SESSION (self));
  cancel (self, FALSE);
}

gboolean
onyx_layout_session_is_busy (OnyxLayoutSession *self)
{
  g_return_val_if_fail (ONYX_IS_LAYOUT_SESSION (self), FALSE);
  return self->job != NULL || self->relayout_after_change != 0;
}

OnyxLayoutEngine *
onyx_layout_session_get_engine (OnyxLayoutSession *self)
{
  g_return_val_if_fail (ONYX_IS_LAYOUT_SESSION (self), NULL);
  /* Due after an edit, its items may point into the model as it was. */
  return onyx_layout_session_is_busy (self) ? NULL : self->engine;
}

void
onyx_layout_session_set_graph (OnyxLayoutSession *self, OnyxDocument *document, OnyxLayoutEngine *engine)
{
  g_return_if_fail (ONYX_IS_LAYOUT_SESSION (self));
  cancel (self, TRUE);
  if (self->relayout_after_change != 0)
    {
      g_clear_handle_id (&self->relayout_after_change, g_source_remove);
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_BUSY]);
    }
  /* A running job frees the engine it reads once it is done. */
  if (self->job == NULL)
    g_clear_pointer (&self->engine, onyx_layout_engine_free);
  self->engine = engine;
  self->items_stale = FALSE;
  if (self->document != document)
    {
      if (self->document != NULL)
        g_signal_handlers_disconnect_by_func (self->document, document_changed_cb, self);
      g_set_object (&self->document, document);
      if (document != NULL)
        g_signal_connect_swapped (document, "changed", G_CALLBACK (document_changed_cb), self);
    }
  g_ptr_array_set_size (self->expanded, 0);
  g_ptr_array_set_size (self->collapsed, 0);
}

/* Takes `path` out of `scopes`; whether it was there. */
static gboolean
remove_scope (GPtrArray *scopes, const char *path)
{
  guint pos;

  if (!g_ptr_array_find_with_equal_func (scopes, path, g_str_equal, &pos))
    return FALSE;
  g_ptr_array_remove_index (scopes, pos);
  return TRUE;
}

void
onyx_layout_session_toggle_group (OnyxLayoutSession *self, const OnyxLayoutNode *group)
{
  GPtrArray *from = group->expanded ? self->expanded : self->collapsed;
  GPtrArray *to = group->expanded ? self->collapsed : self->expanded;

  remove_scope (from, group->scope);
  g_ptr_array_add (to, g_strdup (group->scope));
  onyx_layout_session_relayout (self, TRUE);
}

/* Makes member `path` of a stack the one it shows: the only member opened, its stack
 * not closed. Whether that changed anything. */
static gboolean
open_member (OnyxLayoutSession *self, OnyxLayoutEngine *engine, const char *path)
{
  const char *stack = onyx_layout_engine_stack_of_member (engine, path);
  gboolean changed = FALSE;

  if (stack == NULL)
    return FALSE;
  for (guint i = self->expanded->len; i-- > 0;)
    {
      const char *other = self->expanded->pdata[i];
      const char *twin = onyx_layout_engine_twin_scope (engine, other, path);
      if (twin == NULL || strcmp (twin, other) == 0)
        continue;
      /* Another member closes; a group opened inside it is opened in this one. */
      if (g_strcmp0 (onyx_layout_engine_stack_of_member (engine, other), stack) != 0 &&
          !g_ptr_array_find_with_equal_func (self->expanded, twin, g_str_equal, NULL))
        g_ptr_array_add (self->expanded, g_strdup (twin));
      g_ptr_array_remove_index (self->expanded, i);
      changed = TRUE;
    }
  changed |= remove_scope (self->collapsed, stack);
  if (!g_ptr_array_find_with_equal_func (self->expanded, path, g_str_equal, NULL))
    {
      g_ptr_array_add (self->expanded, g_strdup (path));
      changed = TRUE;
    }
  return changed;
}

void
onyx_layout_session_show_stack_member (OnyxLayoutSession *self, const OnyxLayoutNode *stack, guint index)
{
  OnyxLayoutEngine *engine = onyx_layout_session_get_engine (self);
  const char *member;

  if (engine == NULL || stack->stack_size == 0 ||
      (member = onyx_layout_engine_stack_member (engine, stack->scope, index)) == NULL)
    return;
  /* `stack` belongs to the layout the relayout replaces. */
  if (open_member (self, engine, member))
    onyx_layout_session_relayout (self, TRUE);
}

void
onyx_layout_session_open_scopes_of (OnyxLayoutSession *self, gssize position)
{
  OnyxLayoutEngine *engine = onyx_layout_session_get_engine (self);
  g_autofree char *path = NULL;
  gboolean added = FALSE;

  if (engine == NULL || position < 0)
    return;
  path = g_strdup (onyx_layout_engine_node_scope (engine, (guint) position));
  while (path[0] != '\0')
    {
      char *slash = strrchr (path, '/');
      /* In a stack, the node's member becomes the one it shows. */
      if (open_member (self, engine, path))
        added = TRUE;
      else if (!g_ptr_array_find_with_equal_func (self->expanded, path, g_str_equal, NULL))
        {
          g_ptr_array_add (self->expanded, g_strdup (path));
          added = TRUE;
        }
      if (slash == NULL)
        break;
      *slash = '\0';
    }
  if (added)
    onyx_layout_session_relayout (self, TRUE);
}

void
onyx_layout_session_detach (OnyxLayoutSession *self)
{
  g_return_if_fail (ONYX_IS_LAYOUT_SESSION (self));
  onyx_layout_session_set_graph (self, NULL, NULL);
  g_clear_handle_id (&self->progress_source, g_source_remove);
  g_clear_object (&self->canvas);
  g_clear_object (&self->progress_revealer);
  g_clear_object (&self->progress_bar);
}

static void
onyx_layout_session_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  OnyxLayoutSession *self = ONYX_LAYOUT_SESSION (object);

  switch (prop_id)
    {
    case PROP_BUSY:
      g_value_set_boolean (value, onyx_layout_session_is_busy (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
onyx_layout_session_dispose (GObject *object)
{
  OnyxLayoutSession *self = ONYX_LAYOUT_SESSION (object);

  /* A running task holds the session: nothing reads the engine by now. */
  onyx_layout_session_detach (self);
  G_OBJECT_CLASS (onyx_layout_session_parent_class)->dispose (object);
}

static void
onyx_layout_session_finalize (GObject *object)
{
  OnyxLayoutSession *self = ONYX_LAYOUT_SESSION (object);

  g_clear_object (&self->settings);
  g_ptr_array_unref (self->expanded);
  g_ptr_array_unref (self->collapsed);
  G_OBJECT_CLASS (onyx_layout_session_parent_class)->finalize (object);
}

static void
onyx_layout_session_class_init (OnyxLayoutSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = onyx_layout_session_get_property;
  object_class->dispose = onyx_layout_session_dispose;
  object_class->finalize = onyx_layout_session_finalize;
  props[PROP_BUSY] = g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                                           G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);
  signals[SIGNAL_SNAPSHOT_READY] = g_signal_new ("snapshot-ready", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                               0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_LAID_OUT] = g_signal_new ("laid-out", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                           0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_CANCELLED] = g_signal_new ("cancelled", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                            0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
onyx_layout_session_init (OnyxLayoutSession *self)
{
  self->expanded = g_ptr_array_new_with_free_func (g_free);
  self->collapsed = g_ptr_array_new_with_free_func (g_free);
}

OnyxLayoutSession *
onyx_layout_session_new (OnyxCanvas *canvas, GtkRevealer *progress_revealer, GtkProgressBar *progress_bar,
                         GSettings *settings)
{
  OnyxLayoutSession *self = g_object_new (ONYX_TYPE_LAYOUT_SESSION, NULL);

  self->canvas = g_object_ref (canvas);
  self->progress_revealer = g_object_ref (progress_revealer);
  self->progress_bar = g_object_ref (progress_bar);
  self->settings = g_object_ref (settings);
  return self;
}
