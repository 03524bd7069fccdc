/* onyx-window-compare.c: "Compare With…". The open model is B, the newer one, and
 * the chosen file is A: the graph on screen is B's, so what B added, changed or
 * renamed is framed in colour on it, and what only A has (removed) is listed. The
 * diff is worked out by an OnyxCompareSession, again after each of B's edits, so the
 * list always says how B now differs from A; this file shows what it announces. */
#include "onyx-window-private.h"

#include <glib/gi18n.h>

#include "onyx-compare-session.h"

/* The comparison's view: what only this file touches. */
struct _OnyxWindowCompare {
  GtkRevealer *revealer;
  OnyxComparePane *pane;
  OnyxCompareSession *session;    /* or NULL */
  guint activity;                 /* the header bar's "Comparing with …" while busy */
};

/* The pane shows once A was read; then it follows every diff. */
static void
diff_ready_cb (OnyxWindow *self)
{
  OnyxCompareSession *session = self->compare->session;

  onyx_compare_pane_set_diff (self->compare->pane, onyx_compare_session_get_diff (session),
                              onyx_compare_session_get_name (session));
  gtk_revealer_set_reveal_child (self->compare->revealer, TRUE);
  /* An edit starts a layout; the frames follow when it is done (layout indices of
   * the old layout would point at other nodes now). */
  if (!onyx_window_is_laying_out (self))
    onyx_window_compare_update_tints (self);
  onyx_window_update_state (self);
}

static void
failed_cb (OnyxWindow *self, const char *message)
{
  onyx_window_compare_stop (self);
  onyx_window_show_error (self, _("Could Not Open the Model"), message);
}

static void
busy_changed_cb (OnyxWindow *self)
{
  OnyxCompareSession *session = self->compare->session;

  onyx_activity_end (onyx_window_get_activity (self), self->compare->activity);
  self->compare->activity = 0;
  if (onyx_compare_session_get_busy (session))
    {
      g_autofree char *label = g_strdup_printf (_("Comparing with %s"), onyx_compare_session_get_name (session));
      self->compare->activity = onyx_activity_begin (onyx_window_get_activity (self), label);
    }
  onyx_window_update_state (self);
}

gboolean
onyx_window_is_comparing (OnyxWindow *self)
{
  return self->compare->session != NULL && onyx_compare_session_get_busy (self->compare->session);
}

gboolean
onyx_window_compare_with (OnyxWindow *self, GFile *file, GError **error)
{
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *name = NULL;

  g_return_val_if_fail (self->document != NULL, FALSE);
  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("Only local files can be opened"));
      return FALSE;
    }
  onyx_window_compare_stop (self);
  name = g_file_get_basename (file);
  /* Read in the session's thread: a model of a few GB takes seconds. */
  self->compare->session = onyx_compare_session_new (self->document, path, name);
  g_signal_connect_swapped (self->compare->session, "diff-ready", G_CALLBACK (diff_ready_cb), self);
  g_signal_connect_swapped (self->compare->session, "failed", G_CALLBACK (failed_cb), self);
  g_signal_connect_swapped (self->compare->session, "notify::busy", G_CALLBACK (busy_changed_cb), self);
  busy_changed_cb (self);
  return TRUE;
}

void
onyx_window_compare_stop (OnyxWindow *self)
{
  if (self->compare->session == NULL)
    return;
  onyx_activity_end (onyx_window_get_activity (self), self->compare->activity);
  self->compare->activity = 0;
  g_signal_handlers_disconnect_by_data (self->compare->session, self);
  onyx_compare_session_stop (self->compare->session);
  g_clear_object (&self->compare->session);
  onyx_compare_pane_set_diff (self->compare->pane, NULL, NULL);
  gtk_revealer_set_reveal_child (self->compare->revealer, FALSE);
  onyx_canvas_set_node_tints (self->canvas, NULL, 0);
  onyx_window_update_state (self);
}

/* A collapsed group shows several changes as one: their kind when all agree,
 * "changed" otherwise. */
static void
merge_change (int *group, int change)
{
  if (*group < 0)
    *group = change;
  else if (*group != change)
    *group = ONYX_DIFF_CHANGED;
}

/* Per node of the graph shown: how it differs, -1 when it does not. A node holding a
 * subgraph with differences inside counts as changed. */
static int *
node_changes (OnyxWindow *self, Onnx__GraphProto *view)
{
  OnyxGraphIndex *index = onyx_window_get_graph_index (self);
  int *change = g_new (int, MAX (view->n_node, 1));

  for (size_t i = 0; i < view->n_node; i++)
    change[i] = -1;
  for (guint e = 0; e < onyx_window_compare_get_diff (self)->entries->len; e++)
    {
      const OnyxDiffEntry *entry = g_ptr_array_index (onyx_window_compare_get_diff (self)->entries, e);
      Onnx__NodeProto *node, *shown;
      gssize pos;

      if (entry->subject != ONYX_DIFF_NODE || entry->index_b < 0 || entry->graph_b == NULL ||
          (size_t) entry->index_b >= entry->graph_b->n_node)
        continue;
      node = entry->graph_b->node[entry->index_b];
      if ((shown = onyx_window_node_in_view (self, node)) == NULL ||
          (pos = onyx_graph_index_node_position (index, shown)) < 0)
        continue;
      merge_change (&change[pos], shown == node ? (int) entry->change : ONYX_DIFF_CHANGED);
    }
  return change;
}

void
onyx_window_compare_update_tints (OnyxWindow *self)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (self->canvas);
  OnyxLayoutEngine *engine = onyx_layout_session_get_engine (self->layout);
  g_autofree int *change = NULL;              /* per layout node, -1 for none */
  g_autofree int *by_node = NULL;             /* per node of the graph shown */
  g_autofree int *box_of = NULL;
  g_autofree GdkRGBA *tints = NULL;
  Onnx__GraphProto *view;
  guint n;

  /* Functions are not compared; a layout on its way brings its own frames. */
  if (onyx_window_compare_get_diff (self) == NULL || layout == NULL || onyx_window_shows_function (self) || engine == NULL)
    return;
  view = onyx_window_get_graph (self);
  by_node = node_changes (self, view);
  n = layout->nodes->len;
  change = g_new (int, n);
  for (guint i = 0; i < n; i++)
    change[i] = -1;
  /* On the box showing each node: its own, its reader's when folded, or the closed
   * group it is in, which shows several changes as one. */
  box_of = onyx_layout_boxes_of_nodes (layout, engine);
  for (guint b = 0; b < view->n_node; b++)
    if (by_node[b] >= 0 && box_of[b] >= 0)
      merge_change (&change[box_of[b]], by_node[b]);

  /* Graph inputs and outputs that changed are boxes of their own. */
  for (guint e = 0; e < onyx_window_compare_get_diff (self)->entries->len; e++)
    {
      const OnyxDiffEntry *entry = g_ptr_array_index (onyx_window_compare_get_diff (self)->entries, e);
      OnyxLayoutKind kind = entry->subject == ONYX_DIFF_GRAPH_INPUT ? ONYX_LAYOUT_INPUT : ONYX_LAYOUT_OUTPUT;

      if ((entry->subject != ONYX_DIFF_GRAPH_INPUT && entry->subject != ONYX_DIFF_GRAPH_OUTPUT) ||
          entry->index_b < 0 || entry->graph_b != view)
        continue;
      for (guint i = 0; i < n; i++)
        {
          const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
          if (node->kind == kind && node->index == entry->index_b)
            change[i] = entry->change;
        }
    }

  tints = g_new0 (GdkRGBA, n);
  for (guint i = 0; i < n; i++)
    if (change[i] >= 0)
      onyx_diff_change_color (change[i], &tints[i]);
  onyx_canvas_set_node_tints (self->canvas, tints, n);
}

static void
entry_activated_cb (OnyxWindow *self, guint index)
{
  Onnx__GraphProto *graph;
  const OnyxDiffEntry *entry;
  size_t b;

  if (onyx_window_compare_get_diff (self) == NULL || self->document == NULL ||
      index >= onyx_window_compare_get_diff (self)->entries->len)
    return;
  entry = g_ptr_array_index (onyx_window_compare_get_diff (self)->entries, index);
  /* In the graph B's entry is in: a row of a branch opens the branch. */
  if (entry->index_b < 0 || (graph = (Onnx__GraphProto *) entry->graph_b) == NULL)
    return;
  if (entry->subject != ONYX_DIFF_NODE && graph != onyx_window_get_graph (self))
    onyx_window_show_graph (self, graph);
  b = (size_t) entry->index_b;
  switch (entry->subject)
    {
    case ONYX_DIFF_NODE:
      if (b < graph->n_node)
        {
          onyx_window_select_node (self, graph->node[b]);
          onyx_canvas_center_node (self->canvas, onyx_canvas_get_selected_node (self->canvas));
        }
      break;
    case ONYX_DIFF_GRAPH_INPUT:
      if (b < graph->n_input)
        onyx_window_select_tensor (self, graph->input[b]->name);
      break;
    case ONYX_DIFF_GRAPH_OUTPUT:
      if (b < graph->n_output)
        onyx_window_select_tensor (self, graph->output[b]->name);
      break;
    case ONYX_DIFF_INITIALIZER:
      if (b < graph->n_initializer)
        onyx_window_select_tensor (self, graph->initializer[b]->name);
      break;
    default:
      break;
    }
}

static void
compare_with_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);
  GtkFileChooserNative *chooser = onyx_window_file_chooser_new (self, _("Compare With Model"), _("C_ompare"),
                                    GTK_FILE_CHOOSER_ACTION_OPEN, onyx_window_compare_with,
                                    _("Could Not Open the Model"));

  onyx_window_add_onnx_filter (GTK_FILE_CHOOSER (chooser));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
compare_close_action (GtkWidget *widget, const char *name, GVariant *param)
{
  onyx_window_compare_stop (ONYX_WINDOW (widget));
}

void
onyx_window_class_init_compare (GtkWidgetClass *widget_class)
{
  g_type_ensure (ONYX_TYPE_COMPARE_PANE);
  gtk_widget_class_bind_template_child_full (widget_class, "compare_revealer", FALSE, 0);
  gtk_widget_class_bind_template_child_full (widget_class, "compare_pane", FALSE, 0);
  gtk_widget_class_install_action (widget_class, "win.compare-with", NULL, compare_with_action);
  gtk_widget_class_install_action (widget_class, "win.compare-close", NULL, compare_close_action);
}

void
onyx_window_init_compare (OnyxWindow *self)
{
  self->compare = g_new0 (OnyxWindowCompare, 1);
  self->compare->revealer = GTK_REVEALER (onyx_window_template_child (self, "compare_revealer"));
  self->compare->pane = ONYX_COMPARE_PANE (onyx_window_template_child (self, "compare_pane"));
  g_signal_connect_swapped (self->compare->pane, "entry-activated", G_CALLBACK (entry_activated_cb), self);
}

/* Leaves the part's struct, freed with the window: what dispose runs later may ask. */
void
onyx_window_compare_dispose (OnyxWindow *self)
{
  /* A diff under way is dropped when its thread is done. */
  if (self->compare->session != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->compare->session, self);
      onyx_compare_session_stop (self->compare->session);
      g_clear_object (&self->compare->session);
    }
}

gboolean
onyx_window_compare_is_open (OnyxWindow *self)
{
  return onyx_window_compare_get_diff (self) != NULL;
}

const OnyxDiff *
onyx_window_compare_get_diff (OnyxWindow *self)
{
  return self->compare->session != NULL ? onyx_compare_session_get_diff (self->compare->session) : NULL;
}
