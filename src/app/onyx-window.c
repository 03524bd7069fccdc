/* onyx-window.c: selection, title, state and closing. Actions live
 * in onyx-window-actions.c, opening in -open.c, saving in -save.c, the layout in onyx-layout-session.c,
 * Find in -find.c, drops in -dnd.c. */
#include "onyx-window-private.h"

#include <glib/gi18n.h>

#include "onyx-settings.h"
#include "onyx-edits.h"
#include "onyx-shapes.h"

G_DEFINE_FINAL_TYPE (OnyxWindow, onyx_window, ADW_TYPE_APPLICATION_WINDOW)

gboolean
onyx_window_has_model (OnyxWindow *self)
{
  return self->document != NULL || self->open_cancellable != NULL;
}

enum { PROP_0, PROP_DOCUMENT, N_PROPS };
static GParamSpec *props[N_PROPS];

OnyxDocument *
onyx_window_get_document (OnyxWindow *self)
{
  g_return_val_if_fail (ONYX_IS_WINDOW (self), NULL);
  return self->document;
}

GFile *
onyx_window_get_file (OnyxWindow *self)
{
  g_return_val_if_fail (ONYX_IS_WINDOW (self), NULL);
  return self->file;
}

const char *
onyx_window_get_page (OnyxWindow *self)
{
  g_return_val_if_fail (ONYX_IS_WINDOW (self), NULL);
  return gtk_stack_get_visible_child_name (self->stack);
}

OnyxSelectionKind
onyx_window_get_selection (OnyxWindow *self)
{
  return self->selection;
}

Onnx__NodeProto *
onyx_window_get_selected_node (OnyxWindow *self)
{
  return self->selection == ONYX_SELECTION_NODE ? self->selected_node : NULL;
}

const char *
onyx_window_get_selected_tensor (OnyxWindow *self)
{
  return self->selection == ONYX_SELECTION_TENSOR ? self->selected_tensor : NULL;
}

void
onyx_window_toast (OnyxWindow *self, const char *message, gboolean with_undo)
{
  AdwToast *toast = adw_toast_new (message);

  if (with_undo)
    {
      adw_toast_set_button_label (toast, _("Undo"));
      adw_toast_set_action_name (toast, "win.undo");
    }
  adw_toast_set_timeout (toast, 4);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

void
onyx_window_show_error (OnyxWindow *self, const char *heading, const char *message)
{
  AdwMessageDialog *dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self),
                                                                         heading, message));
  adw_message_dialog_add_response (dialog, "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

void
onyx_window_ask (OnyxWindow *self, AdwMessageDialog *dialog, const char *response, const char *label,
                 GCallback callback)
{
  adw_message_dialog_add_responses (dialog, "cancel", _("_Cancel"), response, label, NULL);
  adw_message_dialog_set_response_appearance (dialog, response, ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (dialog, response);
  adw_message_dialog_set_close_response (dialog, "cancel");
  g_signal_connect (dialog, "response", callback, self);
  gtk_window_present (GTK_WINDOW (dialog));
}

void
onyx_window_update_title (OnyxWindow *self)
{
  g_autofree char *base = NULL, *dir = NULL, *title = NULL;

  if (self->file == NULL)
    {
      adw_window_title_set_title (self->window_title, "Onyx");
      adw_window_title_set_subtitle (self->window_title, NULL);
      gtk_window_set_title (GTK_WINDOW (self), "Onyx");
      return;
    }
  base = g_file_get_basename (self->file);
  dir = g_file_get_parse_name (self->file);
  title = self->document != NULL && onyx_document_is_modified (self->document)
            ? g_strdup_printf ("• %s", base) : g_strdup (base);
  adw_window_title_set_title (self->window_title, title);
  adw_window_title_set_subtitle (self->window_title, dir);
  gtk_window_set_title (GTK_WINDOW (self), title);
}

/* The layout node showing `node` (-1 when it is inside a collapsed group). */
static int
layout_node_for (OnyxWindow *self, OnyxLayoutKind kind, int index)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (self->canvas);

  for (guint i = 0; layout != NULL && i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *n = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      if (n->kind == kind && n->index == index)
        return i;
    }
  return -1;
}

/* The op box showing graph node `pos`: its own, or the box it is folded into as a
 * line (a Constant read once); -1 when neither is in the layout. */
static int
layout_box_of_node (OnyxWindow *self, gssize pos)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (self->canvas);
  int node = layout_node_for (self, ONYX_LAYOUT_OP, pos);

  for (guint i = 0; node < 0 && pos >= 0 && layout != NULL && i < layout->nodes->len; i++)
    {
      const GArray *line_nodes = g_array_index (layout->nodes, OnyxLayoutNode, i).line_nodes;
      for (guint l = 0; l < line_nodes->len; l++)
        if (g_array_index (line_nodes, int, l) == pos)
          node = i;
    }
  return node;
}

static int
layout_edge_for (OnyxWindow *self, const char *tensor)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (self->canvas);

  for (guint i = 0; layout != NULL && i < layout->edges->len; i++)
    if (g_strcmp0 (g_array_index (layout->edges, OnyxLayoutEdge, i).tensor, tensor) == 0)
      return i;
  return -1;
}

static int
value_info_position (Onnx__ValueInfoProto **list, size_t n, const char *name)
{
  for (size_t i = 0; i < n; i++)
    if (g_strcmp0 (list[i]->name, name) == 0)
      return i;
  return -1;
}

void
onyx_window_sync_canvas_selection (OnyxWindow *self)
{
  Onnx__GraphProto *graph;
  int node = -1, edge = -1;

  if (self->document == NULL)
    return;
  graph = onyx_window_get_graph (self);
  if (self->selection == ONYX_SELECTION_NODE)
    {
      gssize pos = onyx_graph_index_node_position (onyx_window_get_graph_index (self),
                                                   self->selected_node);
      node = layout_box_of_node (self, pos);
    }
  else if (self->selection == ONYX_SELECTION_TENSOR)
    {
      int in = value_info_position (graph->input, graph->n_input, self->selected_tensor);
      int out = value_info_position (graph->output, graph->n_output, self->selected_tensor);
      if (in >= 0)
        node = layout_node_for (self, ONYX_LAYOUT_INPUT, in);
      if (node < 0 && out >= 0)
        node = layout_node_for (self, ONYX_LAYOUT_OUTPUT, out);
      OnyxLayoutEngine *engine = onyx_layout_session_get_engine (self->layout);
      for (int i = 0; node < 0 && engine != NULL && onyx_layout_engine_outer_name (engine, i) != NULL; i++)
        if (g_strcmp0 (onyx_layout_engine_outer_name (engine, i), self->selected_tensor) == 0)
          node = layout_node_for (self, ONYX_LAYOUT_OUTER, i);
      if (node < 0)
        edge = layout_edge_for (self, self->selected_tensor);
      if (node < 0 && edge < 0)
        {
          /* A folded Constant's output has no edge: show the box it is a line of. */
          OnyxGraphIndex *index = onyx_window_get_graph_index (self);
          OnyxValue *value = onyx_graph_index_lookup (index, self->selected_tensor);
          if (value != NULL && value->producer != NULL)
            node = layout_box_of_node (self, onyx_graph_index_node_position (index, value->producer));
        }
    }
  onyx_canvas_set_selection (self->canvas, node, edge);
  if (node >= 0 && self->present_selection)
    {
      self->present_selection = FALSE;
      onyx_canvas_present_node (self->canvas, node);
    }
  else if (node >= 0)
    onyx_canvas_reveal_node (self->canvas, node);
}

void
onyx_window_present_selection (OnyxWindow *self)
{
  self->present_selection = TRUE;
  onyx_window_sync_canvas_selection (self);
}

static void
refresh_properties (OnyxWindow *self)
{
  if (self->document == NULL)
    return;
  switch (self->selection)
    {
    case ONYX_SELECTION_NODE:
      onyx_properties_show_node (self->properties, self->document, onyx_window_get_graph (self),
                                 self->selected_node);
      break;
    case ONYX_SELECTION_TENSOR:
      onyx_properties_show_tensor (self->properties, self->document, onyx_window_get_graph (self),
                                   self->selected_tensor);
      break;
    default:
      onyx_properties_show_model (self->properties, self->document, onyx_window_get_graph (self));
    }
  onyx_window_run_selection_changed (self);
}

void
onyx_window_select_model (OnyxWindow *self)
{
  self->present_selection = FALSE;
  self->selection = ONYX_SELECTION_MODEL;
  self->selected_node = NULL;
  g_clear_pointer (&self->selected_tensor, g_free);
  refresh_properties (self);
  onyx_window_sync_canvas_selection (self);
  onyx_window_update_state (self);
}

void
onyx_window_select_node (OnyxWindow *self, Onnx__NodeProto *node)
{
  Onnx__GraphProto *graph;

  g_return_if_fail (self->document != NULL && node != NULL);
  self->present_selection = FALSE;
  /* A node of another graph (a Problems row in a branch): show its graph first. */
  graph = onyx_document_graph_of_node (self->document, node);
  if (graph != NULL && graph != onyx_window_get_graph (self) &&
      onyx_document_contains_node (self->document, node))
    onyx_window_show_graph (self, graph);
  self->selection = ONYX_SELECTION_NODE;
  self->selected_node = node;
  g_clear_pointer (&self->selected_tensor, g_free);
  refresh_properties (self);
  onyx_window_sync_canvas_selection (self);
  /* A node hidden in a collapsed group: open the group, selection follows the layout. */
  if (onyx_canvas_get_selected_node (self->canvas) < 0)
    onyx_layout_session_open_scopes_of (self->layout, onyx_graph_index_node_position (
                                          onyx_window_get_graph_index (self), node));
  onyx_window_update_state (self);
}

void
onyx_window_select_tensor (OnyxWindow *self, const char *name)
{
  self->present_selection = FALSE;
  g_return_if_fail (self->document != NULL && name != NULL);
  self->selection = ONYX_SELECTION_TENSOR;
  self->selected_node = NULL;
  g_free (self->selected_tensor);
  self->selected_tensor = g_strdup (name);
  refresh_properties (self);
  onyx_window_sync_canvas_selection (self);
  /* A tensor hidden in a closed group or another layer of a stack: open the scopes of
   * the node making it (or reading it), selection follows the layout. */
  if (onyx_canvas_get_selected_node (self->canvas) < 0 && layout_edge_for (self, name) < 0)
    {
      OnyxGraphIndex *index = onyx_window_get_graph_index (self);
      OnyxValue *value = onyx_graph_index_lookup (index, name);
      Onnx__NodeProto *near = value == NULL ? NULL
                              : value->producer != NULL ? value->producer
                              : value->uses->len > 0 ? g_array_index (value->uses, OnyxUse, 0).node : NULL;
      if (near != NULL)
        onyx_layout_session_open_scopes_of (self->layout, onyx_graph_index_node_position (index, near));
    }
  onyx_window_update_state (self);
}

/* After edits the selection may point at something that is gone. */
static void
check_selection (OnyxWindow *self)
{
  OnyxGraphIndex *index = onyx_window_get_graph_index (self);

  if (self->selection == ONYX_SELECTION_NODE &&
      onyx_graph_index_node_position (index, self->selected_node) < 0)
    self->selection = ONYX_SELECTION_MODEL;
  else if (self->selection == ONYX_SELECTION_TENSOR &&
           !onyx_graph_index_defines (index, self->selected_tensor) &&
           onyx_graph_index_graph_output (index, self->selected_tensor) == NULL)
    self->selection = ONYX_SELECTION_MODEL;
  if (self->selection == ONYX_SELECTION_MODEL)
    {
      self->selected_node = NULL;
      g_clear_pointer (&self->selected_tensor, g_free);
    }
}

void
onyx_window_update_state (OnyxWindow *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  gboolean doc = self->document != NULL;
  /* A thread reads the document (a save, a diff): no edits, no other save. */
  gboolean frozen = doc && onyx_document_is_frozen (self->document);
  /* The layout worker reads the graph: no edits until it is done. */
  gboolean editable = doc && !onyx_window_is_laying_out (self) && !frozen;
  /* Functions are shown, not edited; graph inputs and outputs are the main graph's. */
  gboolean node = editable && self->selection == ONYX_SELECTION_NODE &&
                  !onyx_window_shows_function (self);
  gboolean main_graph = editable && onyx_window_shows_main_graph (self);
  const char *undo = doc ? onyx_document_get_undo_label (self->document) : NULL;
  const char *redo = doc ? onyx_document_get_redo_label (self->document) : NULL;
  g_autofree char *undo_tip = undo ? g_strdup_printf (_("Undo “%s”"), undo) : g_strdup (_("Undo"));
  g_autofree char *redo_tip = redo ? g_strdup_printf (_("Redo “%s”"), redo) : g_strdup (_("Redo"));

  gtk_widget_action_set_enabled (widget, "win.save", doc && !frozen);
  gtk_widget_action_set_enabled (widget, "win.save-as", doc && !frozen);
  gtk_widget_action_set_enabled (widget, "win.export-view", onyx_canvas_get_layout (self->canvas) != NULL);
  gtk_widget_action_set_enabled (widget, "win.export-graph", onyx_canvas_get_layout (self->canvas) != NULL);
  gtk_widget_action_set_enabled (widget, "win.find", doc);
  gtk_widget_action_set_enabled (widget, "win.compare-with", doc);
  gtk_widget_action_set_enabled (widget, "win.compare-close", onyx_window_compare_is_open (self));
  onyx_window_find_update_state (self, doc);
  onyx_window_problems_update_state (self, doc);
  gtk_widget_action_set_enabled (widget, "win.undo", editable && onyx_document_can_undo (self->document));
  gtk_widget_action_set_enabled (widget, "win.redo", editable && onyx_document_can_redo (self->document));
  gtk_widget_action_set_enabled (widget, "win.cleanup", editable);
  gtk_widget_action_set_enabled (widget, "win.inline-functions",
                                 editable && onyx_document_get_proto (self->document)->n_functions > 0);
  gtk_widget_action_set_enabled (widget, "win.toposort", editable);
  gtk_widget_action_set_enabled (widget, "win.cancel-layout", onyx_window_is_laying_out (self));
  for (const char *const *a = (const char *const[]) { "win.bypass-node", "win.delete-node",
         "win.delete-descendants", "win.rename-node", "win.set-attribute",
         "win.reconnect-input", NULL }; *a; a++)
    gtk_widget_action_set_enabled (widget, *a, node);
  for (const char *const *a = (const char *const[]) { "win.rename-tensor", "win.set-input-dim",
         "win.add-output", "win.remove-output", NULL }; *a; a++)
    gtk_widget_action_set_enabled (widget, *a, main_graph);
  gtk_widget_action_set_enabled (widget, "win.graph-up", doc && !onyx_window_shows_main_graph (self));
  onyx_window_update_repair_state (self, editable, node);
  onyx_window_run_update_state (self, doc);
  onyx_window_generate_update_state (self, doc);
  gtk_widget_set_tooltip_text (self->undo_button, undo_tip);
  gtk_widget_set_tooltip_text (self->redo_button, redo_tip);
  g_menu_remove_all (self->edit_section);
  if (doc)
    {
      /* Menu labels read "_" as a mnemonic; node names are full of them. */
      g_autoptr (GString) undo_label = g_string_new (undo_tip);
      g_autoptr (GString) redo_label = g_string_new (redo_tip);
      g_string_replace (undo_label, "_", "__", 0);
      g_string_replace (redo_label, "_", "__", 0);
      g_menu_append (self->edit_section, undo_label->str, "win.undo");
      g_menu_append (self->edit_section, redo_label->str, "win.redo");
    }
  onyx_window_update_title (self);
}

static gboolean
follow_change_cb (gpointer data)
{
  OnyxWindow *self = data;

  self->follow_change = 0;
  if (self->document == NULL)
    return G_SOURCE_REMOVE;
  onyx_window_problems_refresh (self);
  refresh_properties (self);
  return G_SOURCE_REMOVE;
}

void
onyx_window_settle (OnyxWindow *self)
{
  if (self->follow_change != 0)
    {
      g_clear_handle_id (&self->follow_change, g_source_remove);
      follow_change_cb (self);
    }
}

static void
document_changed_cb (OnyxWindow *self, const OnyxChange *change)
{
  onyx_window_journal_update (self);
  /* Saved (or back to the saved state by undo): the model is the same. */
  if (change == NULL)
    {
      onyx_window_update_state (self);
      return;
    }
  onyx_window_graphs_document_changed (self);
  check_selection (self);
  onyx_window_update_state (self);
  /* The step shows first; what depends on the whole model's problems (the Problems
   * list, the panel) follows in a main-loop turn of its own, after the frame. */
  if (self->follow_change == 0)
    self->follow_change = g_idle_add_full (G_PRIORITY_LOW, follow_change_cb, self, NULL);
}

void
onyx_window_follow_document (OnyxWindow *self)
{
  g_signal_connect_swapped (self->document, "changed", G_CALLBACK (document_changed_cb), self);
}

void
onyx_window_notify_document (OnyxWindow *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_DOCUMENT]);
}

static void
item_activated_cb (OnyxWindow *self, int node, int edge)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (self->canvas);
  OnyxLayoutEngine *engine;
  Onnx__GraphProto *graph;

  if (self->document == NULL || layout == NULL)
    return;
  graph = onyx_window_get_graph (self);
  if (node >= 0)
    {
      const OnyxLayoutNode *n = &g_array_index (layout->nodes, OnyxLayoutNode, node);
      switch (n->kind)
        {
        case ONYX_LAYOUT_OP:
          onyx_window_select_node (self, graph->node[n->index]);
          break;
        case ONYX_LAYOUT_INPUT:
          onyx_window_select_tensor (self, graph->input[n->index]->name);
          break;
        case ONYX_LAYOUT_OUTPUT:
          onyx_window_select_tensor (self, graph->output[n->index]->name);
          break;
        case ONYX_LAYOUT_OUTER:
          /* While a layout runs, its thread has the engine. */
          if ((engine = onyx_layout_session_get_engine (self->layout)) != NULL)
            onyx_window_select_tensor (self, onyx_layout_engine_outer_name (engine, n->index));
          break;
        case ONYX_LAYOUT_GROUP:
          if (!onyx_window_is_laying_out (self))
            onyx_layout_session_toggle_group (self->layout, n);
          break;
        case ONYX_LAYOUT_STUB:
          /* A neighbour of the layer an open stack shows: show that one. */
          if (n->index >= 0 && !onyx_window_is_laying_out (self) && n->parent >= 0)
            onyx_layout_session_show_stack_member (self->layout, &g_array_index (layout->nodes, OnyxLayoutNode, n->parent),
                                                   (guint) n->index);
          /* What many read: what it carries here (the panel says where it comes from). */
          for (guint e = 0; n->index < 0 && e < layout->edges->len; e++)
            if (g_array_index (layout->edges, OnyxLayoutEdge, e).from == node)
              {
                onyx_window_select_tensor (self, g_array_index (layout->edges, OnyxLayoutEdge, e).tensor);
                break;
              }
          break;
        }
    }
  else if (edge >= 0)
    onyx_window_select_tensor (self, g_array_index (layout->edges, OnyxLayoutEdge, edge).tensor);
  else
    onyx_window_select_model (self);
}

/* A click on a folded Constant's line in its reader's box selects the Constant. */
static void
line_activated_cb (OnyxWindow *self, int node, int line)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (self->canvas);
  const OnyxLayoutNode *n;
  int constant;

  if (self->document == NULL || layout == NULL || node < 0 || (guint) node >= layout->nodes->len)
    return;
  n = &g_array_index (layout->nodes, OnyxLayoutNode, node);
  constant = line >= 0 && (guint) line < n->line_nodes->len ? g_array_index (n->line_nodes, int, line) : -1;
  if (constant >= 0 && (gsize) constant < onyx_window_get_graph (self)->n_node)
    onyx_window_select_node (self, onyx_window_get_graph (self)->node[constant]);
  else
    item_activated_cb (self, node, -1);
}

static void
laid_out_cb (OnyxWindow *self)
{
  onyx_window_sync_canvas_selection (self);
  onyx_window_compare_update_tints (self);
  onyx_window_run_update_tints (self);
  onyx_window_problems_update_badges (self);
}

/* Shapes and validation come after an edit, made with its layout: their problems
 * and the types shown follow. */
static void
snapshot_ready_cb (OnyxWindow *self)
{
  onyx_window_problems_snapshot_ready (self);
  /* The model's page shows recorded types only. */
  if (self->selection != ONYX_SELECTION_MODEL)
    refresh_properties (self);
}

static void
layout_cancelled_cb (OnyxWindow *self)
{
  onyx_window_toast (self, _("Layout cancelled"), FALSE);
}

gboolean
onyx_window_is_laying_out (OnyxWindow *self)
{
  return onyx_layout_session_is_busy (self->layout);
}

/* The layout reads the setting on each run. */
static void
fold_constants_changed_cb (OnyxWindow *self)
{
  onyx_layout_session_relayout (self->layout, TRUE);
}

/* ---- Background jobs ---- */

struct _OnyxWindowJob {
  OnyxWindow *window;
  guint activity;
};

OnyxWindowJob *
onyx_window_job_begin (OnyxWindow *self, const char *label)
{
  OnyxWindowJob *job = g_new (OnyxWindowJob, 1);

  job->window = g_object_ref (self);
  job->activity = onyx_activity_begin (self->activity, label);
  return job;
}

void
onyx_window_job_set_progress (OnyxWindowJob *job, double fraction)
{
  onyx_activity_set_progress (job->window->activity, job->activity, fraction);
}

OnyxWindow *
onyx_window_job_end (OnyxWindowJob *job)
{
  OnyxWindow *self = job->window;

  onyx_activity_end (self->activity, job->activity);
  g_free (job);
  return self;
}

OnyxActivity *
onyx_window_get_activity (OnyxWindow *self)
{
  return self->activity;
}

/* ---- Closing ---- */

static void
close_now (OnyxWindow *self)
{
  self->close_confirmed = TRUE;
  gtk_window_close (GTK_WINDOW (self));
}

static gboolean
onyx_window_close_request (GtkWindow *window)
{
  OnyxWindow *self = ONYX_WINDOW (window);
  int width, height;

  if (!self->close_confirmed && self->document != NULL && onyx_document_is_modified (self->document))
    {
      onyx_window_confirm_discard (self, close_now);
      return TRUE;
    }
  gtk_window_get_default_size (window, &width, &height);
  g_settings_set_int (self->settings, "window-width", width);
  g_settings_set_int (self->settings, "window-height", height);
  g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (window));
  onyx_window_close_document (self);
  return GTK_WINDOW_CLASS (onyx_window_parent_class)->close_request (window);
}

/* ---- GObject ---- */

static void
onyx_window_dispose (GObject *object)
{
  OnyxWindow *self = ONYX_WINDOW (object);

  g_clear_handle_id (&self->follow_change, g_source_remove);
  /* A file being opened is dropped when its thread is done. */
  if (self->open_cancellable != NULL)
    g_cancellable_cancel (self->open_cancellable);
  g_clear_object (&self->open_cancellable);
  /* A layout running ends unseen: its task keeps what it reads. */
  if (self->layout != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->layout, self);
      onyx_layout_session_detach (self->layout);
    }
  if (self->document != NULL)
    g_signal_handlers_disconnect_by_data (self->document, self);
  onyx_window_problems_dispose (self);
  onyx_window_run_reset (self);
  onyx_window_graphs_reset (self);
  g_clear_object (&self->document);
  g_clear_object (&self->file);
  g_clear_object (&self->pending_open);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->selected_tensor, g_free);
  onyx_window_compare_dispose (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), ONYX_TYPE_WINDOW);
  /* Last: the panes' teardown above still asks it for the engine. */
  g_clear_object (&self->layout);
  G_OBJECT_CLASS (onyx_window_parent_class)->dispose (object);
}

GObject *
onyx_window_template_child (OnyxWindow *self, const char *id)
{
  GObject *child = gtk_widget_get_template_child (GTK_WIDGET (self), ONYX_TYPE_WINDOW, id);

  g_assert (child != NULL);
  return child;
}

/* The parts' structs (onyx-window-*.c) outlive dispose: handlers it runs may ask them. */
static void
onyx_window_finalize (GObject *object)
{
  OnyxWindow *self = ONYX_WINDOW (object);

  g_clear_object (&self->activity);
  g_free (self->compare);
  g_free (self->problems);
  g_free (self->run);
  g_free (self->find);
  g_free (self->graphs);
  g_free (self->recent);
  G_OBJECT_CLASS (onyx_window_parent_class)->finalize (object);
}

static void
onyx_window_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_DOCUMENT:
      g_value_set_object (value, ONYX_WINDOW (object)->document);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
onyx_window_class_init (OnyxWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = onyx_window_dispose;
  object_class->finalize = onyx_window_finalize;
  object_class->get_property = onyx_window_get_property;
  props[PROP_DOCUMENT] = g_param_spec_object ("document", NULL, NULL, ONYX_TYPE_DOCUMENT,
                                              G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);
  window_class->close_request = onyx_window_close_request;

  g_type_ensure (ONYX_TYPE_CANVAS);
  g_type_ensure (ONYX_TYPE_PROPERTIES);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/onyxviewer/Onyx/onyx-window.ui");
  gtk_widget_class_bind_template_child (widget_class, OnyxWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, OnyxWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, OnyxWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, OnyxWindow, error_page);
  gtk_widget_class_bind_template_child (widget_class, OnyxWindow, canvas);
  gtk_widget_class_bind_template_child (widget_class, OnyxWindow, properties);
  /* The layout session's overlay. */
  gtk_widget_class_bind_template_child_full (widget_class, "progress_revealer", FALSE, 0);
  gtk_widget_class_bind_template_child_full (widget_class, "progress_bar", FALSE, 0);
  gtk_widget_class_bind_template_child_full (widget_class, "activity_spinner", FALSE, 0);
  gtk_widget_class_bind_template_child (widget_class, OnyxWindow, undo_button);
  gtk_widget_class_bind_template_child (widget_class, OnyxWindow, redo_button);
  gtk_widget_class_bind_template_child (widget_class, OnyxWindow, edit_section);

  onyx_window_class_init_actions (widget_class);
  onyx_window_class_init_find (widget_class);
  onyx_window_class_init_recent (widget_class);
  onyx_window_class_init_compare (widget_class);
  onyx_window_class_init_run (widget_class);
  onyx_window_class_init_generate (widget_class);
  onyx_window_class_init_problems (widget_class);
  onyx_window_class_init_graphs (widget_class);
  onyx_window_class_init_stacks (widget_class);
}

static void
onyx_window_init (OnyxWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->settings = onyx_settings_new ();
  self->layout = onyx_layout_session_new (self->canvas,
                                          GTK_REVEALER (onyx_window_template_child (self, "progress_revealer")),
                                          GTK_PROGRESS_BAR (onyx_window_template_child (self, "progress_bar")),
                                          self->settings);
  g_signal_connect_swapped (self->layout, "laid-out", G_CALLBACK (laid_out_cb), self);
  g_signal_connect_swapped (self->layout, "snapshot-ready", G_CALLBACK (snapshot_ready_cb), self);
  g_signal_connect_swapped (self->layout, "cancelled", G_CALLBACK (layout_cancelled_cb), self);
  g_signal_connect_swapped (self->layout, "notify::busy", G_CALLBACK (onyx_window_update_state), self);
  self->activity = onyx_activity_new (GTK_SPINNER (onyx_window_template_child (self, "activity_spinner")));
  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));

  g_signal_connect_swapped (self->canvas, "item-activated", G_CALLBACK (item_activated_cb), self);
  g_signal_connect_swapped (self->canvas, "line-activated", G_CALLBACK (line_activated_cb), self);
  g_signal_connect_swapped (self->canvas, "stack-stepped", G_CALLBACK (onyx_window_step_stack), self);
  g_signal_connect_swapped (self->settings, "changed::fold-constants", G_CALLBACK (fold_constants_changed_cb), self);
  onyx_window_init_find (self);
  gtk_paned_set_position (GTK_PANED (gtk_widget_get_ancestor (GTK_WIDGET (self->canvas), GTK_TYPE_PANED)), 820);
  onyx_window_init_dnd (self);
  onyx_window_init_recent (self);
  onyx_window_init_compare (self);
  onyx_window_init_run (self);
  onyx_window_init_problems (self);
  onyx_window_init_graphs (self);
  onyx_window_update_state (self);
}

OnyxWindow *
onyx_window_new (GtkApplication *application)
{
  return g_object_new (ONYX_TYPE_WINDOW, "application", application, NULL);
}
