/* onyx-view-state.c: what a window shows, and the order after an edit
 * (onyx-view-state.h). */
#include "onyx-view-state.h"

#include <glib/gi18n.h>

#include "onyx-analysis.h"
#include "onyx-dialogs.h"
#include "onyx-settings.h"

struct _OnyxViewState {
  GObject parent_instance;

  GtkWindow *window;              /* weak */
  GSettings *settings;
  OnyxJobs *jobs;

  OnyxDocument *document;
  GFile *file;
  const char *page;
  char *error;
  OnyxProblemList *problems;
  OnyxLayoutEngine *prepared_engine; /* made with the document, until the graph view takes it */

  Onnx__GraphProto *shown;        /* NULL for the main graph */
  OnyxGraphList *function_graphs; /* holds the view of the function shown, or NULL */
  OnyxGraphIndex *function_index; /* of the function shown, or NULL */

  OnyxSelectionKind selection;
  Onnx__NodeProto *selected_node;
  char *selected_tensor;

  const OnyxLayout *layout;
  OnyxLayoutEngine *engine;
  gboolean laying_out;            /* the graph view makes a layout */
  gboolean layout_due;            /* a step was made: its layout follows its analysis */
  gboolean editable;
  OnyxDecorations decorations;    /* of the layout's boxes */
  OnyxRunInputs run_inputs;
  OnyxProfiles profiles;
  OnyxTensorNoteFunc tensor_note;
  gpointer tensor_note_data;

  OnyxJob *analysis;              /* the step's analysis under way */
  guint settle;                   /* idle: "settled" after the step's frame */
};

G_DEFINE_FINAL_TYPE (OnyxViewState, onyx_view_state, G_TYPE_OBJECT)

enum { PROP_0, PROP_DOCUMENT, PROP_FILE, PROP_PAGE, PROP_GRAPH, PROP_SELECTION, PROP_LAYING_OUT, PROP_EDITABLE,
       N_PROPS };
static GParamSpec *props[N_PROPS];

enum { SIGNAL_STEPPED, SIGNAL_ANALYSED, SIGNAL_LAID_OUT, SIGNAL_SETTLED, SIGNAL_REVEAL, SIGNAL_FOCUS_GRAPH,
       SIGNAL_TINTS_CHANGED,
       SIGNAL_BADGES_CHANGED, SIGNAL_NOTES_CHANGED, SIGNAL_PROFILE_CHANGED, SIGNAL_TOAST, SIGNAL_OPEN_ELSEWHERE,
       SIGNAL_COMPARE_WITH, N_SIGNALS };
static guint signals[N_SIGNALS];

GtkWindow *
onyx_view_state_get_window (OnyxViewState *self)
{
  return self->window;
}

GSettings *
onyx_view_state_get_settings (OnyxViewState *self)
{
  return self->settings;
}

OnyxJobs *
onyx_view_state_get_jobs (OnyxViewState *self)
{
  return self->jobs;
}

static void
update_editable (OnyxViewState *self)
{
  gboolean editable = self->document != NULL && !onyx_document_is_frozen (self->document) &&
                      !onyx_view_state_is_laying_out (self);

  if (editable == self->editable)
    return;
  self->editable = editable;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_EDITABLE]);
}

gboolean
onyx_view_state_is_editable (OnyxViewState *self)
{
  return self->editable;
}

/* ---- The model ---- */

OnyxDocument *
onyx_view_state_get_document (OnyxViewState *self)
{
  return self->document;
}

GFile *
onyx_view_state_get_file (OnyxViewState *self)
{
  return self->file;
}

const char *
onyx_view_state_get_page (OnyxViewState *self)
{
  return self->page;
}

const char *
onyx_view_state_get_error (OnyxViewState *self)
{
  return self->error;
}

OnyxProblemList *
onyx_view_state_get_problems (OnyxViewState *self)
{
  return self->problems;
}

OnyxLayoutEngine *
onyx_view_state_take_engine (OnyxViewState *self)
{
  return g_steal_pointer (&self->prepared_engine);
}

static void
set_page (OnyxViewState *self, const char *page)
{
  if (g_strcmp0 (self->page, page) == 0)
    return;
  self->page = page;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_PAGE]);
}

static void
forget_graph (OnyxViewState *self)
{
  self->shown = NULL;
  g_clear_pointer (&self->function_index, onyx_graph_index_free);
  g_clear_pointer (&self->function_graphs, onyx_graph_list_unref);
}

static void
forget_selection (OnyxViewState *self)
{
  self->selection = ONYX_SELECTION_MODEL;
  self->selected_node = NULL;
  g_clear_pointer (&self->selected_tensor, g_free);
}

static void document_changed_cb (OnyxViewState *self, const OnyxChange *change);

static void
reset_run_inputs (OnyxViewState *self)
{
  g_clear_pointer (&self->run_inputs.dims, g_hash_table_unref);
  self->run_inputs = (OnyxRunInputs) { .fill = ONYX_RUN_FILL_RANDOM, .seed = 0, .low = 0, .high = 1 };
}

/* The document goes, with all that was shown of it. */
static void
drop_document (OnyxViewState *self)
{
  g_clear_handle_id (&self->settle, g_source_remove);
  if (self->analysis != NULL)
    onyx_job_drop (g_steal_pointer (&self->analysis));
  g_clear_pointer (&self->prepared_engine, onyx_layout_engine_free);
  forget_graph (self);
  forget_selection (self);
  self->layout_due = FALSE;
  if (self->document == NULL)
    return;
  g_signal_handlers_disconnect_by_data (self->document, self);
  g_clear_pointer (&self->problems, onyx_problem_list_free);
  g_clear_object (&self->document);
  reset_run_inputs (self);
  if (onyx_profiles_clear (&self->profiles))
    g_signal_emit (self, signals[SIGNAL_PROFILE_CHANGED], 0);
  /* Nothing is editable from here on, whatever the parts hear next. */
  update_editable (self);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_DOCUMENT]);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_GRAPH]);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_SELECTION]);
}

static void
set_file (OnyxViewState *self, GFile *file)
{
  if (g_set_object (&self->file, file))
    g_object_notify_by_pspec (G_OBJECT (self), props[PROP_FILE]);
}

void
onyx_view_state_set_opening (OnyxViewState *self, GFile *file)
{
  drop_document (self);
  g_clear_pointer (&self->error, g_free);
  set_file (self, file);
  set_page (self, "opening");
  update_editable (self);
}

void
onyx_view_state_set_failed (OnyxViewState *self, const char *message)
{
  drop_document (self);
  g_free (self->error);
  self->error = g_strdup (message);
  set_file (self, NULL);
  set_page (self, "error");
  update_editable (self);
}

void
onyx_view_state_clear (OnyxViewState *self)
{
  drop_document (self);
  g_clear_pointer (&self->error, g_free);
  set_file (self, NULL);
  set_page (self, "empty");
  update_editable (self);
}

static gboolean settle_cb (gpointer data);

static void
schedule_settle (OnyxViewState *self, int priority)
{
  if (self->settle == 0)
    self->settle = g_idle_add_full (priority, settle_cb, self, NULL);
}

static void
frozen_changed_cb (OnyxViewState *self)
{
  update_editable (self);
}

void
onyx_view_state_set_document (OnyxViewState *self, OnyxDocument *document, OnyxProblemList *problems,
                              OnyxLayoutEngine *engine)
{
  g_return_if_fail (ONYX_IS_DOCUMENT (document));
  drop_document (self);
  self->document = g_object_ref (document);
  self->problems = problems != NULL ? problems : onyx_problem_list_new (document);
  /* Shapes and validation of each step come from its analysis (below). */
  onyx_problem_list_set_whole_model_later (self->problems, TRUE);
  self->prepared_engine = engine;
  g_signal_connect_swapped (document, "changed", G_CALLBACK (document_changed_cb), self);
  g_signal_connect_swapped (document, "notify::frozen", G_CALLBACK (frozen_changed_cb), self);
  set_page (self, "model");
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_DOCUMENT]);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_GRAPH]);
  update_editable (self);
  /* The Problems list and the model's panel (20 ms and more on a big model) come in
   * a main-loop turn of their own, after the first layout's thread started and
   * after input. */
  schedule_settle (self, G_PRIORITY_DEFAULT_IDLE);
}

void
onyx_view_state_set_file (OnyxViewState *self, GFile *file)
{
  set_file (self, file);
}

/* ---- The graph shown ---- */

Onnx__GraphProto *
onyx_view_state_get_graph (OnyxViewState *self)
{
  if (self->document == NULL)
    return NULL;
  return self->shown != NULL ? self->shown : onyx_document_get_proto (self->document)->graph;
}

gboolean
onyx_view_state_shows_main_graph (OnyxViewState *self)
{
  return self->shown == NULL;
}

gboolean
onyx_view_state_shows_function (OnyxViewState *self)
{
  return self->document != NULL && self->shown != NULL &&
         onyx_document_graph_owner (self->document, self->shown) == NULL &&
         self->shown != onyx_document_get_proto (self->document)->graph;
}

OnyxGraphList *
onyx_view_state_get_function_list (OnyxViewState *self)
{
  return self->function_graphs;
}

OnyxGraphIndex *
onyx_view_state_get_graph_index (OnyxViewState *self)
{
  if (self->document == NULL)
    return NULL;
  /* A function's view is not a graph of the document, and is never edited. */
  if (onyx_view_state_shows_function (self))
    {
      if (self->function_index == NULL)
        self->function_index = onyx_graph_index_new (self->shown);
      return self->function_index;
    }
  return onyx_document_get_graph_index (self->document, onyx_view_state_get_graph (self));
}

Onnx__NodeProto *
onyx_view_state_node_in_view (OnyxViewState *self, const Onnx__NodeProto *node)
{
  Onnx__GraphProto *view = onyx_view_state_get_graph (self);

  for (guint depth = 0; node != NULL && depth < 64; depth++)
    {
      Onnx__GraphProto *graph = onyx_document_graph_of_node (self->document, node);
      if (graph == NULL)
        return NULL;
      if (graph == view)
        return (Onnx__NodeProto *) node;
      node = onyx_document_graph_owner (self->document, graph);
    }
  return NULL;
}

/* `functions` (taken, may be NULL): the list holding a function's view. */
static void
show_graph_from (OnyxViewState *self, Onnx__GraphProto *graph, OnyxGraphList *functions)
{
  if (graph == onyx_document_get_proto (self->document)->graph)
    graph = NULL;
  if (graph == self->shown)
    {
      g_clear_pointer (&functions, onyx_graph_list_unref);
      return;
    }
  forget_graph (self);
  self->shown = graph;
  self->function_graphs = functions;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_GRAPH]);
  onyx_view_state_select_model (self);
}

void
onyx_view_state_show_graph (OnyxViewState *self, Onnx__GraphProto *graph)
{
  g_return_if_fail (self->document != NULL);
  show_graph_from (self, graph, NULL);
}

gboolean
onyx_view_state_show_graph_named (OnyxViewState *self, const char *name, GError **error)
{
  g_autoptr (OnyxGraphList) graphs = NULL;
  const OnyxGraphEntry *entry;

  g_return_val_if_fail (self->document != NULL, FALSE);
  graphs = onyx_graph_list_new (onyx_document_get_proto (self->document));
  if ((entry = onyx_graph_list_find (graphs, name, error)) == NULL)
    return FALSE;
  /* A function's view belongs to the list: it is kept while the function shows. */
  show_graph_from (self, entry->graph, entry->function != NULL ? g_steal_pointer (&graphs) : NULL);
  return TRUE;
}

gboolean
onyx_view_state_open_node (OnyxViewState *self, Onnx__NodeProto *node)
{
  g_autoptr (OnyxGraphList) graphs = onyx_graph_list_new (onyx_document_get_proto (self->document));
  g_autoptr (GPtrArray) children = onyx_graph_list_children (graphs, node);
  const OnyxGraphEntry *entry;

  if (children->len == 0)
    return FALSE;
  entry = children->pdata[0];
  show_graph_from (self, entry->graph, entry->function != NULL ? g_steal_pointer (&graphs) : NULL);
  return TRUE;
}

static gboolean
function_in_model (OnyxViewState *self)
{
  Onnx__ModelProto *model = onyx_document_get_proto (self->document);
  const OnyxGraphEntry *entry = self->function_graphs != NULL
    ? onyx_graph_list_lookup (self->function_graphs, self->shown) : NULL;

  for (size_t f = 0; entry != NULL && f < model->n_functions; f++)
    if (model->functions[f] == entry->function)
      return TRUE;
  return FALSE;
}

/* After a step: back to the main graph when the one shown went (its holder was
 * deleted, Inline Functions removed the function). */
static void
check_graph (OnyxViewState *self)
{
  Onnx__NodeProto *holder;
  gboolean gone;

  if (self->shown == NULL)
    return;
  if (onyx_view_state_shows_function (self))
    gone = !function_in_model (self);
  else
    {
      holder = onyx_document_graph_owner (self->document, self->shown);
      gone = holder == NULL || !onyx_document_contains_node (self->document, holder);
    }
  if (gone)
    {
      onyx_view_state_show_graph (self, onyx_document_get_proto (self->document)->graph);
      onyx_view_state_toast (self, _("The graph shown is no longer in the model"), FALSE);
    }
  else
    /* Holders are named after nodes: a rename shows in the path. */
    g_object_notify_by_pspec (G_OBJECT (self), props[PROP_GRAPH]);
}

/* ---- The selection ---- */

OnyxSelectionKind
onyx_view_state_get_selection (OnyxViewState *self)
{
  return self->selection;
}

Onnx__NodeProto *
onyx_view_state_get_selected_node (OnyxViewState *self)
{
  return self->selection == ONYX_SELECTION_NODE ? self->selected_node : NULL;
}

const char *
onyx_view_state_get_selected_tensor (OnyxViewState *self)
{
  return self->selection == ONYX_SELECTION_TENSOR ? self->selected_tensor : NULL;
}

void
onyx_view_state_select_model (OnyxViewState *self)
{
  forget_selection (self);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_SELECTION]);
}

void
onyx_view_state_select_node (OnyxViewState *self, Onnx__NodeProto *node)
{
  Onnx__GraphProto *graph;

  g_return_if_fail (self->document != NULL && node != NULL);
  /* A node of another graph (a Problems row in a branch): show its graph first. */
  graph = onyx_document_graph_of_node (self->document, node);
  if (graph != NULL && graph != onyx_view_state_get_graph (self) && onyx_document_contains_node (self->document, node))
    onyx_view_state_show_graph (self, graph);
  forget_selection (self);
  self->selection = ONYX_SELECTION_NODE;
  self->selected_node = node;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_SELECTION]);
}

void
onyx_view_state_select_tensor (OnyxViewState *self, const char *name)
{
  char *copy;

  g_return_if_fail (self->document != NULL && name != NULL);
  /* `name` may be the selected tensor's own string. */
  copy = g_strdup (name);
  forget_selection (self);
  self->selection = ONYX_SELECTION_TENSOR;
  self->selected_tensor = copy;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_SELECTION]);
}

void
onyx_view_state_reveal (OnyxViewState *self, OnyxReveal how)
{
  g_signal_emit (self, signals[SIGNAL_REVEAL], 0, how);
}

void
onyx_view_state_focus_graph (OnyxViewState *self)
{
  g_signal_emit (self, signals[SIGNAL_FOCUS_GRAPH], 0);
}

/* After a step the selection may point at something that is gone. */
static void
check_selection (OnyxViewState *self)
{
  OnyxGraphIndex *index = onyx_view_state_get_graph_index (self);

  if ((self->selection == ONYX_SELECTION_NODE &&
       onyx_graph_index_node_position (index, self->selected_node) < 0) ||
      (self->selection == ONYX_SELECTION_TENSOR && !onyx_graph_index_defines (index, self->selected_tensor) &&
       onyx_graph_index_graph_output (index, self->selected_tensor) == NULL))
    onyx_view_state_select_model (self);
}

/* ---- What the canvas shows ---- */

void
onyx_view_state_set_layout (OnyxViewState *self, const OnyxLayout *layout, OnyxLayoutEngine *engine)
{
  self->layout = layout;
  self->engine = engine;
  /* What was drawn on the boxes of the layout before is of other boxes. */
  onyx_decorations_clear (&self->decorations);
  if (layout != NULL)
    g_signal_emit (self, signals[SIGNAL_LAID_OUT], 0);
}

const OnyxLayout *
onyx_view_state_get_layout (OnyxViewState *self)
{
  return self->layout;
}

OnyxLayoutEngine *
onyx_view_state_get_engine (OnyxViewState *self)
{
  /* Due after a step, its items may point into the model as it was. */
  return onyx_view_state_is_laying_out (self) ? NULL : self->engine;
}

void
onyx_view_state_set_laying_out (OnyxViewState *self, gboolean laying_out)
{
  gboolean was = onyx_view_state_is_laying_out (self);

  self->laying_out = laying_out;
  /* A layout that ended (done or cancelled) ends the wait for the step's. */
  if (!laying_out)
    self->layout_due = FALSE;
  if (was != onyx_view_state_is_laying_out (self))
    g_object_notify_by_pspec (G_OBJECT (self), props[PROP_LAYING_OUT]);
  update_editable (self);
}

gboolean
onyx_view_state_is_laying_out (OnyxViewState *self)
{
  return self->laying_out || self->layout_due;
}

void
onyx_view_state_set_tints (OnyxViewState *self, OnyxTintLayer layer, const GdkRGBA *tints, guint n_tints)
{
  onyx_decorations_set_tints (&self->decorations, layer, tints, n_tints);
  g_signal_emit (self, signals[SIGNAL_TINTS_CHANGED], 0);
}

const GdkRGBA *
onyx_view_state_get_tints (OnyxViewState *self, guint *n_tints)
{
  return onyx_decorations_get_tints (&self->decorations, n_tints);
}

void
onyx_view_state_set_badges (OnyxViewState *self, const guint8 *badges, guint n_badges)
{
  onyx_decorations_set_badges (&self->decorations, badges, n_badges);
  g_signal_emit (self, signals[SIGNAL_BADGES_CHANGED], 0);
}

const guint8 *
onyx_view_state_get_badges (OnyxViewState *self, guint *n_badges)
{
  return onyx_decorations_get_badges (&self->decorations, n_badges);
}

void
onyx_view_state_set_box_notes (OnyxViewState *self, const char *const *notes, guint n_notes)
{
  onyx_decorations_set_notes (&self->decorations, notes, n_notes);
  g_signal_emit (self, signals[SIGNAL_NOTES_CHANGED], 0);
}

const char *const *
onyx_view_state_get_box_notes (OnyxViewState *self, guint *n_notes)
{
  return onyx_decorations_get_notes (&self->decorations, n_notes);
}

void
onyx_view_state_set_tensor_note (OnyxViewState *self, OnyxTensorNoteFunc note, gpointer data)
{
  self->tensor_note = note;
  self->tensor_note_data = data;
}

char *
onyx_view_state_note_tensor (OnyxViewState *self, const char *tensor)
{
  return self->tensor_note != NULL ? self->tensor_note (tensor, self->tensor_note_data) : NULL;
}

/* ---- The order after an edit ---- */

static gpointer
analyse (OnyxJob *job, gpointer document, GError **error)
{
  return onyx_analysis_run (document);
}

static void
analysed (OnyxJob *job, gpointer result, const GError *error, gpointer owner)
{
  OnyxViewState *self = owner;
  OnyxAnalysis *analysis = result;

  self->analysis = NULL;
  /* The document stayed frozen while it was analysed: the analysis is of it now. */
  if (analysis == NULL || !onyx_analysis_offer (analysis, self->document))
    return;
  onyx_problem_list_update_whole_model (self->problems);
  g_signal_emit (self, signals[SIGNAL_ANALYSED], 0);
}

gboolean
onyx_view_state_is_analysing (OnyxViewState *self)
{
  return self->analysis != NULL;
}

static gboolean
settle_cb (gpointer data)
{
  OnyxViewState *self = data;

  self->settle = 0;
  if (self->document != NULL)
    g_signal_emit (self, signals[SIGNAL_SETTLED], 0);
  return G_SOURCE_REMOVE;
}

void
onyx_view_state_settle (OnyxViewState *self)
{
  if (self->settle != 0)
    {
      g_clear_handle_id (&self->settle, g_source_remove);
      settle_cb (self);
    }
}

static void
document_changed_cb (OnyxViewState *self, const OnyxChange *change)
{
  OnyxJobSpec spec = { .document = self->document, .flags = ONYX_JOB_FREEZE, .owner = self, .work = analyse,
                       .data = self->document, .result_free = (GDestroyNotify) onyx_analysis_free,
                       .done = analysed };

  /* Saved (or back to the saved state by undo): the model is the same. */
  if (change == NULL)
    {
      g_signal_emit (self, signals[SIGNAL_STEPPED], 0, NULL);
      return;
    }
  self->layout_due = TRUE;
  /* Edits wait while the document is frozen: no step comes before this one's
   * analysis is done. Started first: the parts that hear of the step know it is
   * under way. */
  g_return_if_fail (self->analysis == NULL);
  self->analysis = onyx_jobs_start (self->jobs, &spec);
  check_graph (self);
  check_selection (self);
  g_signal_emit (self, signals[SIGNAL_STEPPED], 0, change);
  /* The step shows first; what depends on the whole model's problems (the Problems
   * list, the panel) follows in a main-loop turn of its own, after the frame. */
  schedule_settle (self, G_PRIORITY_LOW);
  update_editable (self);
}

/* ---- What was measured ---- */

const OnyxRunInputs *
onyx_view_state_get_run_inputs (OnyxViewState *self)
{
  return &self->run_inputs;
}

void
onyx_view_state_set_run_inputs (OnyxViewState *self, const OnyxRunInputs *inputs)
{
  GHashTable *dims = inputs->dims != NULL ? g_hash_table_ref (inputs->dims) : NULL;

  g_clear_pointer (&self->run_inputs.dims, g_hash_table_unref);
  self->run_inputs = *inputs;
  self->run_inputs.dims = dims;
}

void
onyx_view_state_set_profile (OnyxViewState *self, OnyxProfile *profile, guint64 revision)
{
  onyx_profiles_set (&self->profiles, profile, revision);
  g_signal_emit (self, signals[SIGNAL_PROFILE_CHANGED], 0);
}

const OnyxProfile *
onyx_view_state_get_profile (OnyxViewState *self, guint64 *revision)
{
  if (revision != NULL)
    *revision = self->profiles.revision;
  return self->profiles.profile;
}

const OnyxProfile *
onyx_view_state_get_shown_profile (OnyxViewState *self)
{
  return onyx_profiles_shown (&self->profiles);
}

const OnyxProfile *
onyx_view_state_get_previous_profile (OnyxViewState *self)
{
  return onyx_profiles_previous_shown (&self->profiles);
}

void
onyx_view_state_show_decoding_step (OnyxViewState *self, gboolean shown)
{
  if (self->profiles.step_shown == shown)
    return;
  self->profiles.step_shown = shown;
  g_signal_emit (self, signals[SIGNAL_PROFILE_CHANGED], 0);
}

gboolean
onyx_view_state_shows_decoding_step (OnyxViewState *self)
{
  return onyx_profiles_shown (&self->profiles) != self->profiles.profile;
}

gboolean
onyx_view_state_profile_is_current (OnyxViewState *self)
{
  return self->profiles.profile != NULL && self->document != NULL &&
         onyx_document_get_revision (self->document) == self->profiles.revision;
}

/* ---- Messages ---- */

void
onyx_view_state_toast (OnyxViewState *self, const char *message, gboolean with_undo)
{
  g_signal_emit (self, signals[SIGNAL_TOAST], 0, message, with_undo);
}

void
onyx_view_state_open_elsewhere (OnyxViewState *self, GFile *file)
{
  g_signal_emit (self, signals[SIGNAL_OPEN_ELSEWHERE], 0, file);
}

void
onyx_view_state_compare_with (OnyxViewState *self, OnyxModel *model, const char *name)
{
  g_signal_emit (self, signals[SIGNAL_COMPARE_WITH], 0, model, name);
}

void
onyx_view_state_edit_done (OnyxViewState *self, gboolean ok, const GError *error)
{
  if (ok)
    /* The step's own name, "Bypass node FooOp_0", says what happened. */
    onyx_view_state_toast (self, onyx_document_get_undo_label (self->document), TRUE);
  else
    onyx_show_error (self->window, _("Could Not Edit the Model"), error->message);
}

/* ---- GObject ---- */

static void
onyx_view_state_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  OnyxViewState *self = ONYX_VIEW_STATE (object);

  switch (prop_id)
    {
    case PROP_DOCUMENT: g_value_set_object (value, self->document); break;
    case PROP_FILE: g_value_set_object (value, self->file); break;
    case PROP_PAGE: g_value_set_string (value, self->page); break;
    case PROP_GRAPH: g_value_set_pointer (value, onyx_view_state_get_graph (self)); break;
    case PROP_SELECTION: g_value_set_int (value, self->selection); break;
    case PROP_LAYING_OUT: g_value_set_boolean (value, onyx_view_state_is_laying_out (self)); break;
    case PROP_EDITABLE: g_value_set_boolean (value, self->editable); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
onyx_view_state_dispose (GObject *object)
{
  OnyxViewState *self = ONYX_VIEW_STATE (object);

  if (self->jobs != NULL)
    onyx_jobs_drop_owner (self->jobs, self);
  self->analysis = NULL;
  drop_document (self);
  G_OBJECT_CLASS (onyx_view_state_parent_class)->dispose (object);
}

static void
onyx_view_state_finalize (GObject *object)
{
  OnyxViewState *self = ONYX_VIEW_STATE (object);

  onyx_decorations_clear (&self->decorations);
  reset_run_inputs (self);
  onyx_profiles_clear (&self->profiles);
  g_clear_weak_pointer (&self->window);
  g_clear_object (&self->file);
  g_clear_object (&self->settings);
  g_clear_object (&self->jobs);
  g_free (self->error);
  G_OBJECT_CLASS (onyx_view_state_parent_class)->finalize (object);
}

static void
onyx_view_state_class_init (OnyxViewStateClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  GType type = G_TYPE_FROM_CLASS (klass);

  object_class->get_property = onyx_view_state_get_property;
  object_class->dispose = onyx_view_state_dispose;
  object_class->finalize = onyx_view_state_finalize;
  props[PROP_DOCUMENT] = g_param_spec_object ("document", NULL, NULL, ONYX_TYPE_DOCUMENT, flags);
  props[PROP_FILE] = g_param_spec_object ("file", NULL, NULL, G_TYPE_FILE, flags);
  props[PROP_PAGE] = g_param_spec_string ("page", NULL, NULL, "empty", flags);
  props[PROP_GRAPH] = g_param_spec_pointer ("graph", NULL, NULL, flags);
  props[PROP_SELECTION] = g_param_spec_int ("selection", NULL, NULL, ONYX_SELECTION_MODEL, ONYX_SELECTION_TENSOR,
                                            ONYX_SELECTION_MODEL, flags);
  props[PROP_LAYING_OUT] = g_param_spec_boolean ("laying-out", NULL, NULL, FALSE, flags);
  props[PROP_EDITABLE] = g_param_spec_boolean ("editable", NULL, NULL, FALSE, flags);
  g_object_class_install_properties (object_class, N_PROPS, props);
  signals[SIGNAL_STEPPED] = g_signal_new ("stepped", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 1, G_TYPE_POINTER);
  signals[SIGNAL_ANALYSED] = g_signal_new ("analysed", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                           G_TYPE_NONE, 0);
  signals[SIGNAL_LAID_OUT] = g_signal_new ("laid-out", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                           G_TYPE_NONE, 0);
  signals[SIGNAL_SETTLED] = g_signal_new ("settled", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 0);
  signals[SIGNAL_REVEAL] = g_signal_new ("reveal", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                         G_TYPE_NONE, 1, G_TYPE_INT);
  signals[SIGNAL_FOCUS_GRAPH] = g_signal_new ("focus-graph", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                              G_TYPE_NONE, 0);
  signals[SIGNAL_TINTS_CHANGED] = g_signal_new ("tints-changed", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                G_TYPE_NONE, 0);
  signals[SIGNAL_BADGES_CHANGED] = g_signal_new ("badges-changed", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                 G_TYPE_NONE, 0);
  signals[SIGNAL_NOTES_CHANGED] = g_signal_new ("notes-changed", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                G_TYPE_NONE, 0);
  signals[SIGNAL_PROFILE_CHANGED] = g_signal_new ("profile-changed", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                  G_TYPE_NONE, 0);
  signals[SIGNAL_TOAST] = g_signal_new ("toast", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                        G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_BOOLEAN);
  signals[SIGNAL_OPEN_ELSEWHERE] = g_signal_new ("open-elsewhere", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                 G_TYPE_NONE, 1, G_TYPE_FILE);
  signals[SIGNAL_COMPARE_WITH] = g_signal_new ("compare-with", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                               G_TYPE_NONE, 2, ONYX_TYPE_MODEL, G_TYPE_STRING);
}

static void
onyx_view_state_init (OnyxViewState *self)
{
  self->page = "empty";
  self->settings = onyx_settings_new ();
  self->jobs = onyx_jobs_new ();
  reset_run_inputs (self);
}

OnyxViewState *
onyx_view_state_new (GtkWindow *window)
{
  OnyxViewState *self = g_object_new (ONYX_TYPE_VIEW_STATE, NULL);

  g_set_weak_pointer (&self->window, window);
  return self;
}
