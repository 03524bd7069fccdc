/* onyx-graph-view-actions.c: the graph view's actions: links to nodes and tensors
 * (the properties panel's), going into graphs and back up, stepping through a stack
 * of alike layers (the ‹ › buttons of its header, Page Up and Page Down) with the
 * selection following as the same node of the next layer, and cancelling a layout. */
#include "onyx-graph-view-private.h"

#include <glib/gi18n.h>

void
onyx_graph_view_step_stack (OnyxGraphView *self, int stack, int step)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (self->canvas);
  OnyxLayoutEngine *engine = onyx_layout_session_get_engine (self->layout);
  Onnx__NodeProto *selected_node = onyx_view_state_get_selected_node (self->state);
  const OnyxLayoutNode *node;
  int selected = onyx_canvas_get_selected_node (self->canvas), twin = -1, n;
  guint target;

  if (layout == NULL || engine == NULL || onyx_view_state_is_laying_out (self->state) || stack < 0 ||
      (guint) stack >= layout->nodes->len ||
      (node = &g_array_index (layout->nodes, OnyxLayoutNode, stack))->stack_size == 0)
    return;
  n = (int) node->stack_size;
  target = (guint) (((int) node->stack_shown + step % n + n) % n);
  if (selected_node != NULL && selected >= 0 && onyx_layout_is_within (layout, selected, stack) &&
      g_array_index (layout->nodes, OnyxLayoutNode, selected).kind == ONYX_LAYOUT_OP)
    twin = onyx_layout_engine_twin_node (engine, (guint) g_array_index (layout->nodes, OnyxLayoutNode, selected).index,
                                         onyx_layout_engine_stack_member (engine, node->scope, target));
  onyx_layout_session_show_stack_member (self->layout, node, target);
  if (twin >= 0)
    onyx_view_state_select_node (self->state, onyx_view_state_get_graph (self->state)->node[twin]);
}

/* The open stack the keys step: the one around the selection, else the first. */
static int
stack_to_step (OnyxGraphView *self)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (self->canvas);
  int first = -1;

  if (layout == NULL)
    return -1;
  for (int at = onyx_canvas_get_selected_node (self->canvas); at >= 0;
       at = g_array_index (layout->nodes, OnyxLayoutNode, at).parent)
    if (g_array_index (layout->nodes, OnyxLayoutNode, at).stack_size > 0)
      return at;
  for (guint i = 0; first < 0 && i < layout->nodes->len; i++)
    if (g_array_index (layout->nodes, OnyxLayoutNode, i).stack_size > 0 &&
        g_array_index (layout->nodes, OnyxLayoutNode, i).expanded)
      first = (int) i;
  return first;
}

static void
step_stack_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxGraphView *self = data;

  onyx_graph_view_step_stack (self, stack_to_step (self), g_variant_get_int32 (param));
}

static void
select_node_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxGraphView *self = data;
  Onnx__GraphProto *graph = onyx_view_state_get_graph (self->state);
  int pos = g_variant_get_int32 (param);

  if (graph != NULL && pos >= 0 && (size_t) pos < graph->n_node)
    onyx_view_state_select_node (self->state, graph->node[pos]);
}

static void
select_tensor_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxGraphView *self = data;

  if (onyx_view_state_get_document (self->state) != NULL)
    onyx_view_state_select_tensor (self->state, g_variant_get_string (param, NULL));
}

static void
open_graph_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxGraphView *self = data;
  g_autoptr (GError) error = NULL;

  if (onyx_view_state_get_document (self->state) != NULL &&
      !onyx_view_state_show_graph_named (self->state, g_variant_get_string (param, NULL), &error))
    onyx_view_state_toast (self->state, error->message, FALSE);
}

static void
graph_up_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxGraphView *self = data;
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  Onnx__NodeProto *holder;

  if (document == NULL || onyx_view_state_shows_main_graph (self->state))
    return;
  /* Up to the graph around, with the node holding this one selected. */
  holder = onyx_document_graph_owner (document, onyx_view_state_get_graph (self->state));
  onyx_view_state_show_graph (self->state, holder != NULL ? onyx_document_graph_of_node (document, holder)
                                                          : onyx_document_get_proto (document)->graph);
  if (holder != NULL)
    onyx_view_state_select_node (self->state, holder);
}

static void
cancel_layout_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxGraphView *self = data;

  onyx_layout_session_cancel (self->layout);
}

static void
enable (OnyxGraphView *self, const char *name, gboolean enabled)
{
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self->actions), name)),
                               enabled);
}

void
onyx_graph_view_update_actions (OnyxGraphView *self)
{
  gboolean document = self->state != NULL && onyx_view_state_get_document (self->state) != NULL;
  gboolean drawn = document && onyx_canvas_get_layout (self->canvas) != NULL;

  enable (self, "graph-up", document && !onyx_view_state_shows_main_graph (self->state));
  enable (self, "cancel-layout", self->layout != NULL && onyx_layout_session_is_busy (self->layout));
  enable (self, "export-view", drawn);
  enable (self, "export-graph", drawn);
}

void
onyx_graph_view_init_actions (OnyxGraphView *self)
{
  static const GActionEntry entries[] = {
    { .name = "select-node", .parameter_type = "i", .activate = select_node_activated },
    { .name = "select-tensor", .parameter_type = "s", .activate = select_tensor_activated },
    { .name = "open-graph", .parameter_type = "s", .activate = open_graph_activated },
    { .name = "graph-up", .activate = graph_up_activated },
    { .name = "step-stack", .parameter_type = "i", .activate = step_stack_activated },
    { .name = "cancel-layout", .activate = cancel_layout_activated },
  };

  self->actions = g_simple_action_group_new ();
  g_action_map_add_action_entries (G_ACTION_MAP (self->actions), entries, G_N_ELEMENTS (entries), self);
  onyx_graph_view_add_export_actions (self);
}
