/* onyx-window-stacks.c: stepping through a stack of alike layers — the ‹ › buttons of
 * its header, Page Up and Page Down — with the selection following: a node selected
 * in the layer shown stays selected as the same node of the next one. */
#include "onyx-window-private.h"

void
onyx_window_step_stack (OnyxWindow *self, int stack, int step)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (self->canvas);
  OnyxLayoutEngine *engine = onyx_layout_session_get_engine (self->layout);
  const OnyxLayoutNode *node;
  int selected = onyx_canvas_get_selected_node (self->canvas), twin = -1, n;
  guint target;

  if (layout == NULL || engine == NULL || onyx_window_is_laying_out (self) || stack < 0 ||
      (guint) stack >= layout->nodes->len || (node = &g_array_index (layout->nodes, OnyxLayoutNode, stack))->stack_size == 0)
    return;
  n = (int) node->stack_size;
  target = (guint) (((int) node->stack_shown + step % n + n) % n);
  if (self->selection == ONYX_SELECTION_NODE && selected >= 0 && onyx_layout_is_within (layout, selected, stack) &&
      g_array_index (layout->nodes, OnyxLayoutNode, selected).kind == ONYX_LAYOUT_OP)
    twin = onyx_layout_engine_twin_node (engine, (guint) g_array_index (layout->nodes, OnyxLayoutNode, selected).index,
                                         onyx_layout_engine_stack_member (engine, node->scope, target));
  onyx_layout_session_show_stack_member (self->layout, node, target);
  if (twin >= 0)
    onyx_window_select_node (self, onyx_window_get_graph (self)->node[twin]);
}

/* The open stack the keys step: the one around the selection, else the first. */
static int
stack_to_step (OnyxWindow *self)
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
step_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);

  onyx_window_step_stack (self, stack_to_step (self), g_variant_get_int32 (param));
}

void
onyx_window_class_init_stacks (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.step-stack", "i", step_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Up, 0, "win.step-stack", "i", -1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Down, 0, "win.step-stack", "i", 1);
}
