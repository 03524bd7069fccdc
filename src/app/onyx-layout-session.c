/* onyx-layout-session.c: laying the graph shown out in a job (see the header). */
#include "onyx-layout-session.h"

#include <string.h>

#include "onyx-shapes.h"

struct _OnyxLayoutSession {
  GObject parent_instance;

  OnyxJobs *jobs;
  GSettings *settings;

  OnyxDocument *document;
  OnyxLayoutEngine *engine;
  gboolean items_stale;           /* the graph changed since the engine built its items */
  GPtrArray *expanded;            /* char* scopes opened by the user */
  GPtrArray *collapsed;           /* char* scopes closed by the user */

  /* The layout running, if any: busy while there is one. */
  OnyxJob *job;
  struct LayoutWork *work;        /* its work (the job frees it) */
  gboolean pending;               /* another layout was asked for meanwhile */
  gboolean keep_view;
};

enum { PROP_0, PROP_BUSY, N_PROPS };
static GParamSpec *props[N_PROPS];

enum { SIGNAL_LAID_OUT, SIGNAL_CANCELLED, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (OnyxLayoutSession, onyx_layout_session, G_TYPE_OBJECT)

/* What the job works with: everything it reads is its own or frozen. */
typedef struct LayoutWork {
  OnyxLayoutEngine *engine;
  gboolean owns_engine;           /* the session let go of it meanwhile: freed with the work */
  OnyxShapes *shapes;             /* of the document's current revision, or NULL */
  gboolean items_stale;
  gboolean fold_constants;
  gboolean fold_quant;
  OnyxExpandMode mode;
  char **expanded;
  char **collapsed;
  gboolean quiet;                 /* cancelled on purpose: nothing to say */
} LayoutWork;

static void
layout_work_free (LayoutWork *work)
{
  if (work->owns_engine)
    onyx_layout_engine_free (work->engine);
  g_clear_pointer (&work->shapes, onyx_shapes_unref);
  g_strfreev (work->expanded);
  g_strfreev (work->collapsed);
  g_free (work);
}

static void
layout_progress (double fraction, gpointer job)
{
  onyx_job_set_progress (job, fraction);
}

static gpointer
lay_out (OnyxJob *job, gpointer data, GError **error)
{
  LayoutWork *work = data;
  g_autoptr (GHashTable) expanded = NULL;
  OnyxLayout *layout;

  if (work->items_stale)
    onyx_layout_engine_graph_changed (work->engine);
  onyx_layout_engine_set_fold_constants (work->engine, work->fold_constants);
  onyx_layout_engine_set_fold_quant (work->engine, work->fold_quant);
  onyx_layout_engine_set_shapes (work->engine, work->shapes);
  expanded = onyx_layout_engine_expansion (work->engine, work->mode, (const char *const *) work->expanded,
                                           (const char *const *) work->collapsed);
  layout = onyx_layout_engine_run (work->engine, expanded, layout_progress, job, onyx_job_get_cancellable (job));
  if (layout == NULL)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "cancelled");
  return layout;
}

static void
laid_out (OnyxJob *job, gpointer result, const GError *error, gpointer owner)
{
  OnyxLayoutSession *self = owner;
  LayoutWork *work = self->work;
  gboolean current = !work->owns_engine;

  self->job = NULL;
  self->work = NULL;
  if (result != NULL && current)
    g_signal_emit (self, signals[SIGNAL_LAID_OUT], 0, onyx_job_take_result (job), self->keep_view);
  else if (current && !self->pending && !work->quiet)
    g_signal_emit (self, signals[SIGNAL_CANCELLED], 0);
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
  OnyxJobSpec spec = { .document = self->document, .flags = ONYX_JOB_FREEZE, .owner = self, .work = lay_out,
                       .data_free = (GDestroyNotify) layout_work_free,
                       .result_free = (GDestroyNotify) onyx_layout_free, .done = laid_out };
  LayoutWork *work;

  g_return_if_fail (ONYX_IS_LAYOUT_SESSION (self));
  if (self->engine == NULL)
    return;
  if (self->job != NULL)
    {
      self->pending = TRUE;
      self->keep_view = self->keep_view && keep_view;
      return;
    }
  work = g_new0 (LayoutWork, 1);
  work->engine = self->engine;
  if (self->document != NULL)
    {
      OnyxShapes *shapes = onyx_document_peek_shapes (self->document);
      work->shapes = shapes != NULL ? onyx_shapes_ref (shapes) : NULL;
    }
  work->items_stale = self->items_stale;
  self->items_stale = FALSE;
  work->fold_constants = g_settings_get_boolean (self->settings, "fold-constants");
  work->fold_quant = g_settings_get_boolean (self->settings, "fold-quant");
  /* The schema's GroupExpansion nicks auto/top-level/all are OnyxExpandMode's order. */
  work->mode = g_settings_get_enum (self->settings, "group-expansion");
  work->expanded = scopes_strv (self->expanded);
  work->collapsed = scopes_strv (self->collapsed);
  self->keep_view = keep_view;
  spec.data = self->work = work;
  self->job = onyx_jobs_start (self->jobs, &spec);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_BUSY]);
}

void
onyx_layout_session_graph_changed (OnyxLayoutSession *self)
{
  self->items_stale = TRUE;
}

static void
cancel (OnyxLayoutSession *self, gboolean quiet)
{
  self->pending = FALSE;
  if (self->job == NULL)
    return;
  self->work->quiet = self->work->quiet || quiet;
  onyx_job_cancel (self->job);
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
  return self->job != NULL;
}

double
onyx_layout_session_get_progress (OnyxLayoutSession *self)
{
  return self->job != NULL ? onyx_job_get_progress (self->job) : 0;
}

OnyxLayoutEngine *
onyx_layout_session_get_engine (OnyxLayoutSession *self)
{
  g_return_val_if_fail (ONYX_IS_LAYOUT_SESSION (self), NULL);
  /* While a layout runs, its thread changes the engine. */
  return onyx_layout_session_is_busy (self) ? NULL : self->engine;
}

void
onyx_layout_session_set_graph (OnyxLayoutSession *self, OnyxDocument *document, OnyxLayoutEngine *engine)
{
  g_return_if_fail (ONYX_IS_LAYOUT_SESSION (self));
  cancel (self, TRUE);
  /* A running job frees the engine it reads once it is done. */
  if (self->job != NULL)
    self->work->owns_engine = TRUE;
  else
    g_clear_pointer (&self->engine, onyx_layout_engine_free);
  self->engine = engine;
  self->items_stale = FALSE;
  g_set_object (&self->document, document);
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

  /* A running job holds the session: nothing reads the engine by now. */
  onyx_layout_session_set_graph (self, NULL, NULL);
  G_OBJECT_CLASS (onyx_layout_session_parent_class)->dispose (object);
}

static void
onyx_layout_session_finalize (GObject *object)
{
  OnyxLayoutSession *self = ONYX_LAYOUT_SESSION (object);

  g_clear_object (&self->settings);
  g_clear_object (&self->jobs);
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
  signals[SIGNAL_LAID_OUT] = g_signal_new ("laid-out", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                           0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_POINTER, G_TYPE_BOOLEAN);
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
onyx_layout_session_new (OnyxJobs *jobs, GSettings *settings)
{
  OnyxLayoutSession *self = g_object_new (ONYX_TYPE_LAYOUT_SESSION, NULL);

  self->jobs = g_object_ref (jobs);
  self->settings = g_object_ref (settings);
  return self;
}
