/* onyx-graph-view.c: the graph shown, laid out and drawn (onyx-graph-view.h): what
 * it follows of the view state, and what a click on the canvas selects. */
#include "onyx-graph-view-private.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "onyx-frame-share.h"
#include "onyx-render.h"

G_DEFINE_FINAL_TYPE (OnyxGraphView, onyx_graph_view, ADW_TYPE_BIN)

/* A small graph lays out before a progress bar would only flicker. */
#define PROGRESS_DELAY_MS 300

/* The layout node showing item `index` of `kind` (-1 when it is inside a closed
 * group). */
static int
layout_node_for (const OnyxLayout *layout, OnyxLayoutKind kind, int index)
{
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
layout_box_of_node (const OnyxLayout *layout, gssize pos)
{
  int node = layout_node_for (layout, ONYX_LAYOUT_OP, pos);

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
layout_edge_for (const OnyxLayout *layout, const char *tensor)
{
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

/* The box (or else the edge) showing the selected tensor. */
static void
tensor_box (OnyxGraphView *self, const char *tensor, int *node, int *edge)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (self->canvas);
  Onnx__GraphProto *graph = onyx_view_state_get_graph (self->state);
  OnyxLayoutEngine *engine = onyx_layout_session_get_engine (self->layout);
  int in = value_info_position (graph->input, graph->n_input, tensor);
  int out = value_info_position (graph->output, graph->n_output, tensor);

  *node = in >= 0 ? layout_node_for (layout, ONYX_LAYOUT_INPUT, in) : -1;
  *edge = -1;
  if (*node < 0 && out >= 0)
    *node = layout_node_for (layout, ONYX_LAYOUT_OUTPUT, out);
  for (int i = 0; *node < 0 && engine != NULL && onyx_layout_engine_outer_name (engine, i) != NULL; i++)
    if (g_strcmp0 (onyx_layout_engine_outer_name (engine, i), tensor) == 0)
      *node = layout_node_for (layout, ONYX_LAYOUT_OUTER, i);
  if (*node < 0)
    *edge = layout_edge_for (layout, tensor);
  if (*node < 0 && *edge < 0)
    {
      /* A folded Constant's output has no edge: show the box it is a line of. */
      OnyxGraphIndex *index = onyx_view_state_get_graph_index (self->state);
      OnyxValue *value = onyx_graph_index_lookup (index, tensor);
      if (value != NULL && value->producer != NULL)
        *node = layout_box_of_node (layout, onyx_graph_index_node_position (index, value->producer));
    }
}

/* The canvas shows the state's selection, brought into view as asked. */
static void
sync_selection (OnyxGraphView *self)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (self->canvas);
  int node = -1, edge = -1;

  if (onyx_view_state_get_document (self->state) == NULL)
    return;
  switch (onyx_view_state_get_selection (self->state))
    {
    case ONYX_SELECTION_NODE:
      {
        gssize pos = onyx_graph_index_node_position (onyx_view_state_get_graph_index (self->state),
                                                     onyx_view_state_get_selected_node (self->state));
        node = layout_box_of_node (layout, pos);
        /* A folded QuantizeLinear → DequantizeLinear pair: the mark on its edge. */
        if (node < 0 && pos >= 0 && layout != NULL)
          edge = onyx_layout_mark_edge_of_node (layout, (int) pos);
      }
      break;
    case ONYX_SELECTION_TENSOR:
      tensor_box (self, onyx_view_state_get_selected_tensor (self->state), &node, &edge);
      break;
    default:
      break;
    }
  onyx_canvas_set_selection (self->canvas, node, edge);
  if (node < 0)
    return;
  switch (self->reveal)
    {
    case ONYX_REVEAL_READABLE:
      onyx_canvas_present_node (self->canvas, node);
      break;
    case ONYX_REVEAL_CENTER:
      onyx_canvas_center_node (self->canvas, node);
      break;
    default:
      onyx_canvas_reveal_node (self->canvas, node);
    }
  self->reveal = -1;
}

/* A node hidden in a closed group or another layer of a stack, or a tensor made or
 * read there: its groups open, and the selection follows the layout. */
static void
open_hidden_selection (OnyxGraphView *self)
{
  OnyxGraphIndex *index = onyx_view_state_get_graph_index (self->state);
  Onnx__NodeProto *near = onyx_view_state_get_selected_node (self->state);
  const char *tensor = onyx_view_state_get_selected_tensor (self->state);

  if (onyx_canvas_get_selected_node (self->canvas) >= 0 ||
      (tensor != NULL && layout_edge_for (onyx_canvas_get_layout (self->canvas), tensor) >= 0))
    return;
  if (tensor != NULL)
    {
      OnyxValue *value = onyx_graph_index_lookup (index, tensor);
      near = value == NULL ? NULL
             : value->producer != NULL ? value->producer
             : value->uses->len > 0 ? g_array_index (value->uses, OnyxUse, 0).node : NULL;
    }
  if (near != NULL)
    onyx_layout_session_open_scopes_of (self->layout, onyx_graph_index_node_position (index, near));
}

static void
selection_changed_cb (OnyxGraphView *self)
{
  self->reveal = -1;
  sync_selection (self);
  open_hidden_selection (self);
}

static void
reveal_cb (OnyxGraphView *self, int how)
{
  self->reveal = how;
  sync_selection (self);
}

/* ---- The graph shown, laid out ---- */

/* A running layout of the old engine is cancelled quietly (another graph is shown);
 * it reads on until it notices, so a function's view stays with the old engine's list. */
static void
graph_shown_cb (OnyxGraphView *self)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  Onnx__GraphProto *graph = onyx_view_state_get_graph (self->state);
  OnyxGraphList *functions = onyx_view_state_get_function_list (self->state);
  g_autoptr (OnyxGraphList) graphs = NULL;
  const OnyxGraphEntry *entry = NULL;
  gboolean new_document = document != self->shown_document;
  OnyxLayoutEngine *engine;

  onyx_graph_view_update_actions (self);
  /* A rename of the holder notifies the same graph: nothing to lay out again. */
  if (document != NULL && self->shown_document == document && self->shown_graph == graph)
    return;
  self->shown_document = document;
  self->shown_graph = graph;
  if (document == NULL)
    {
      onyx_layout_session_set_graph (self->layout, NULL, NULL);
      onyx_view_state_set_layout (self->state, NULL, NULL);
      onyx_canvas_set_layout (self->canvas, NULL, FALSE);
      return;
    }
  if (new_document)
    gtk_widget_grab_focus (GTK_WIDGET (self->canvas));
  engine = onyx_view_state_take_engine (self->state);
  if (engine == NULL && !onyx_view_state_shows_main_graph (self->state))
    {
      graphs = functions != NULL ? onyx_graph_list_ref (functions)
                                 : onyx_graph_list_new (onyx_document_get_proto (document));
      entry = onyx_graph_list_lookup (graphs, graph);
    }
  if (engine == NULL)
    engine = entry != NULL ? onyx_layout_engine_new_for_entry (graphs, entry) : onyx_layout_engine_new (graph);
  onyx_layout_session_set_graph (self->layout, document, engine);
  onyx_layout_session_relayout (self->layout, FALSE);
}

static void
stepped_cb (OnyxGraphView *self, const OnyxChange *change)
{
  /* Laid out again once the step is analysed: its shapes label the edges. */
  if (change != NULL)
    onyx_layout_session_graph_changed (self->layout);
}

static void
analysed_cb (OnyxGraphView *self)
{
  onyx_layout_session_relayout (self->layout, TRUE);
}

/* Until the last layout made is shown: the window is busy laying out. */
static void
update_laying_out (OnyxGraphView *self)
{
  onyx_view_state_set_laying_out (self->state,
                                  onyx_layout_session_is_busy (self->layout) || self->layout_waiting != NULL);
}

static void
show_waiting_layout (gpointer view, gpointer unused)
{
  OnyxGraphView *self = view;
  OnyxLayout *layout = g_steal_pointer (&self->layout_waiting);

  /* Shown already by an earlier call, or its window closed meanwhile. */
  if (layout == NULL)
    return;
  onyx_canvas_set_layout (self->canvas, layout, self->waiting_keeps_view);
  update_laying_out (self);
  onyx_view_state_set_layout (self->state, layout, onyx_layout_session_get_engine (self->layout));
  sync_selection (self);
  onyx_graph_view_update_actions (self);
}

/* Drawn after the frame that lays out a new page of the panel, if one does (a graph's
 * first drawing and that page in one frame took 30 ms and more). A layout made while
 * one waits replaces it; the view stays only if both kept it. */
static void
laid_out_cb (OnyxGraphView *self, OnyxLayout *layout, gboolean keep_view)
{
  gboolean waiting = self->layout_waiting != NULL;

  if (waiting)
    {
      keep_view = keep_view && self->waiting_keeps_view;
      onyx_layout_free (self->layout_waiting);
    }
  self->layout_waiting = layout;
  self->waiting_keeps_view = keep_view;
  if (!waiting)
    onyx_frame_share_after (GTK_WIDGET (self), show_waiting_layout, g_object_ref (self), g_object_unref);
}

static void
layout_cancelled_cb (OnyxGraphView *self)
{
  onyx_view_state_toast (self->state, _("Layout cancelled"), FALSE);
}

static gboolean
progress_tick (gpointer data)
{
  OnyxGraphView *self = data;

  gtk_progress_bar_set_fraction (self->progress_bar, onyx_layout_session_get_progress (self->layout));
  gtk_revealer_set_reveal_child (self->progress_revealer, TRUE);
  return G_SOURCE_CONTINUE;
}

static void
busy_changed_cb (OnyxGraphView *self)
{
  gboolean busy = onyx_layout_session_is_busy (self->layout);

  if (busy && self->progress_source == 0)
    self->progress_source = g_timeout_add (PROGRESS_DELAY_MS, progress_tick, self);
  else if (!busy)
    {
      g_clear_handle_id (&self->progress_source, g_source_remove);
      gtk_revealer_set_reveal_child (self->progress_revealer, FALSE);
    }
  /* Done, the layout's showing says so; cancelled, it is said here. */
  update_laying_out (self);
  onyx_graph_view_update_actions (self);
}

/* The layout reads the setting on each run. */
static void
fold_constants_changed_cb (OnyxGraphView *self)
{
  onyx_layout_session_relayout (self->layout, TRUE);
}

static void
tints_changed_cb (OnyxGraphView *self)
{
  guint n;
  const GdkRGBA *tints = onyx_view_state_get_tints (self->state, &n);

  onyx_canvas_set_node_tints (self->canvas, tints, n);
}

static void
badges_changed_cb (OnyxGraphView *self)
{
  guint n;
  const guint8 *badges = onyx_view_state_get_badges (self->state, &n);

  onyx_canvas_set_node_badges (self->canvas, badges, n);
}

static void
notes_changed_cb (OnyxGraphView *self)
{
  guint n;
  const char *const *notes = onyx_view_state_get_box_notes (self->state, &n);

  onyx_canvas_set_node_notes (self->canvas, notes, n);
}

static char *
tensor_note (const char *tensor, gpointer data)
{
  OnyxGraphView *self = data;

  return onyx_view_state_note_tensor (self->state, tensor);
}

/* ---- Clicks ---- */

static void
item_activated_cb (OnyxGraphView *self, int node, int edge)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (self->canvas);
  Onnx__GraphProto *graph = onyx_view_state_get_graph (self->state);
  OnyxLayoutEngine *engine;

  if (graph == NULL || layout == NULL)
    return;
  if (node >= 0)
    {
      const OnyxLayoutNode *n = &g_array_index (layout->nodes, OnyxLayoutNode, node);
      gboolean laying_out = onyx_view_state_is_laying_out (self->state);
      switch (n->kind)
        {
        case ONYX_LAYOUT_OP:
          onyx_view_state_select_node (self->state, graph->node[n->index]);
          break;
        case ONYX_LAYOUT_INPUT:
          onyx_view_state_select_tensor (self->state, graph->input[n->index]->name);
          break;
        case ONYX_LAYOUT_OUTPUT:
          onyx_view_state_select_tensor (self->state, graph->output[n->index]->name);
          break;
        case ONYX_LAYOUT_OUTER:
          /* While a layout runs, its thread has the engine. */
          if ((engine = onyx_layout_session_get_engine (self->layout)) != NULL)
            onyx_view_state_select_tensor (self->state, onyx_layout_engine_outer_name (engine, n->index));
          break;
        case ONYX_LAYOUT_GROUP:
          if (!laying_out)
            onyx_layout_session_toggle_group (self->layout, n);
          break;
        case ONYX_LAYOUT_STUB:
          /* A neighbour of the layer an open stack shows: show that one. */
          if (n->index >= 0 && !laying_out && n->parent >= 0)
            onyx_layout_session_show_stack_member (self->layout,
                                                   &g_array_index (layout->nodes, OnyxLayoutNode, n->parent),
                                                   (guint) n->index);
          /* What many read: what it carries here (the panel says where it comes from). */
          for (guint e = 0; n->index < 0 && e < layout->edges->len; e++)
            if (g_array_index (layout->edges, OnyxLayoutEdge, e).from == node)
              {
                onyx_view_state_select_tensor (self->state, g_array_index (layout->edges, OnyxLayoutEdge, e).tensor);
                break;
              }
          break;
        }
    }
  else if (edge >= 0)
    onyx_view_state_select_tensor (self->state, g_array_index (layout->edges, OnyxLayoutEdge, edge).tensor);
  else
    onyx_view_state_select_model (self->state);
}

/* A click on a folded Constant's line in its reader's box selects the Constant. */
static void
line_activated_cb (OnyxGraphView *self, int node, int line)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (self->canvas);
  Onnx__GraphProto *graph = onyx_view_state_get_graph (self->state);
  const OnyxLayoutNode *n;
  int constant;

  if (graph == NULL || layout == NULL || node < 0 || (guint) node >= layout->nodes->len)
    return;
  n = &g_array_index (layout->nodes, OnyxLayoutNode, node);
  constant = line >= 0 && (guint) line < n->line_nodes->len ? g_array_index (n->line_nodes, int, line) : -1;
  if (constant >= 0 && (gsize) constant < graph->n_node)
    onyx_view_state_select_node (self->state, graph->node[constant]);
  else
    item_activated_cb (self, node, -1);
}

/* A click on an edge's quantization mark selects the QuantizeLinear it stands for. */
static void
mark_activated_cb (OnyxGraphView *self, int edge)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (self->canvas);
  Onnx__GraphProto *graph = onyx_view_state_get_graph (self->state);
  const OnyxLayoutEdge *e;
  int node;

  if (graph == NULL || layout == NULL || edge < 0 || (guint) edge >= layout->edges->len)
    return;
  e = &g_array_index (layout->edges, OnyxLayoutEdge, edge);
  node = e->mark_nodes != NULL && e->mark_nodes->len > 0 ? g_array_index (e->mark_nodes, int, 0) : -1;
  if (node >= 0 && (gsize) node < graph->n_node)
    onyx_view_state_select_node (self->state, graph->node[node]);
}

/* A double click on a node holding graphs opens the first. */
static void
item_opened_cb (OnyxGraphView *self, int index)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (self->canvas);
  Onnx__GraphProto *graph = onyx_view_state_get_graph (self->state);
  const OnyxLayoutNode *node;

  if (graph == NULL || layout == NULL || index < 0 || (guint) index >= layout->nodes->len)
    return;
  node = &g_array_index (layout->nodes, OnyxLayoutNode, index);
  if (node->kind == ONYX_LAYOUT_OP && (size_t) node->index < graph->n_node)
    onyx_view_state_open_node (self->state, graph->node[node->index]);
}

/* ---- The part ---- */

/* The drawing's fonts loaded while the window waits for a file (once a process). */
static gboolean
warm_up_cb (gpointer unused)
{
  onyx_render_warm_up ();
  return G_SOURCE_REMOVE;
}

void
onyx_graph_view_set_state (OnyxGraphView *self, OnyxViewState *state)
{
  static gboolean warmed_up;

  g_return_if_fail (self->state == NULL);
  if (!warmed_up)
    g_idle_add_full (G_PRIORITY_LOW, warm_up_cb, NULL, NULL);
  warmed_up = TRUE;
  self->state = g_object_ref (state);
  self->layout = onyx_layout_session_new (onyx_view_state_get_jobs (state), onyx_view_state_get_settings (state));
  g_signal_connect_swapped (self->layout, "laid-out", G_CALLBACK (laid_out_cb), self);
  g_signal_connect_swapped (self->layout, "cancelled", G_CALLBACK (layout_cancelled_cb), self);
  g_signal_connect_swapped (self->layout, "notify::busy", G_CALLBACK (busy_changed_cb), self);
  g_signal_connect_object (state, "notify::document", G_CALLBACK (graph_shown_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "notify::graph", G_CALLBACK (graph_shown_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "notify::selection", G_CALLBACK (selection_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "notify::editable", G_CALLBACK (onyx_graph_view_update_actions), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "stepped", G_CALLBACK (stepped_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "analysed", G_CALLBACK (analysed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "reveal", G_CALLBACK (reveal_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "focus-graph", G_CALLBACK (gtk_widget_grab_focus), self->canvas,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "tints-changed", G_CALLBACK (tints_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "badges-changed", G_CALLBACK (badges_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "notes-changed", G_CALLBACK (notes_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (onyx_view_state_get_settings (state), "changed::fold-constants",
                           G_CALLBACK (fold_constants_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (onyx_view_state_get_settings (state), "changed::fold-quant",
                           G_CALLBACK (fold_constants_changed_cb), self, G_CONNECT_SWAPPED);
  onyx_canvas_set_tensor_note (self->canvas, tensor_note, self);
  onyx_graph_view_update_actions (self);
}

GActionGroup *
onyx_graph_view_get_actions (OnyxGraphView *self)
{
  return G_ACTION_GROUP (self->actions);
}

static void
onyx_graph_view_dispose (GObject *object)
{
  OnyxGraphView *self = ONYX_GRAPH_VIEW (object);

  g_clear_handle_id (&self->progress_source, g_source_remove);
  g_clear_pointer (&self->layout_waiting, onyx_layout_free);
  if (self->layout != NULL)
    {
      /* A layout running ends unseen: its job keeps what it reads. */
      g_signal_handlers_disconnect_by_data (self->layout, self);
      onyx_layout_session_set_graph (self->layout, NULL, NULL);
      onyx_jobs_drop_owner (onyx_view_state_get_jobs (self->state), self->layout);
      g_clear_object (&self->layout);
    }
  if (self->state != NULL)
    onyx_view_state_set_layout (self->state, NULL, NULL);
  g_clear_object (&self->state);
  g_clear_object (&self->actions);
  gtk_widget_dispose_template (GTK_WIDGET (self), ONYX_TYPE_GRAPH_VIEW);
  G_OBJECT_CLASS (onyx_graph_view_parent_class)->dispose (object);
}

static void
onyx_graph_view_class_init (OnyxGraphViewClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = onyx_graph_view_dispose;
  g_type_ensure (ONYX_TYPE_CANVAS);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/onyxviewer/Onyx/onyx-graph-view.ui");
  gtk_widget_class_bind_template_child (widget_class, OnyxGraphView, canvas);
  gtk_widget_class_bind_template_child (widget_class, OnyxGraphView, progress_revealer);
  gtk_widget_class_bind_template_child (widget_class, OnyxGraphView, progress_bar);
}

static void
onyx_graph_view_init (OnyxGraphView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->reveal = -1;
  g_signal_connect_swapped (self->canvas, "item-activated", G_CALLBACK (item_activated_cb), self);
  g_signal_connect_swapped (self->canvas, "line-activated", G_CALLBACK (line_activated_cb), self);
  g_signal_connect_swapped (self->canvas, "mark-activated", G_CALLBACK (mark_activated_cb), self);
  g_signal_connect_swapped (self->canvas, "item-opened", G_CALLBACK (item_opened_cb), self);
  g_signal_connect_swapped (self->canvas, "stack-stepped", G_CALLBACK (onyx_graph_view_step_stack), self);
  onyx_graph_view_init_actions (self);
}
