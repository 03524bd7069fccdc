/* onyx-canvas-tooltip.c: what the canvas's tooltip says of the box or edge under the
 * pointer: all that a box lists and may cut (every attribute and weight, whole; a
 * value's whole name and type), an edge's tensor and its whole shape. */
#include "onyx-canvas-private.h"

#include "onyx-types.h"

char *
onyx_canvas_tooltip_text (const OnyxLayout *layout, const OnyxRenderIndex *index, double x, double y,
                          double tolerance)
{
  int node = onyx_layout_hit_test (layout, x, y);
  int edge_at;
  const OnyxLayoutEdge *edge;

  if (node >= 0)
    {
      const OnyxLayoutNode *n = &g_array_index (layout->nodes, OnyxLayoutNode, node);
      GString *text;
      /* A value box's details start with its name, which its title may cut. */
      if (n->kind != ONYX_LAYOUT_OP && n->details != NULL)
        return g_strdup (n->details);
      text = g_string_new (n->title);
      if (n->subtitle != NULL)
        g_string_append_printf (text, " · %s", n->subtitle);
      if (n->details != NULL)
        g_string_append_printf (text, "\n%s", n->details);
      return g_string_free (text, FALSE);
    }
  edge_at = onyx_render_edge_hit_test (layout, index, x, y, tolerance);
  if (edge_at < 0)
    return NULL;
  edge = &g_array_index (layout->edges, OnyxLayoutEdge, edge_at);
  if (edge->tensor == NULL)
    return NULL;
  {
    g_autofree char *name = onyx_display_escape (edge->tensor);
    return edge->shape != NULL ? g_strdup_printf ("%s\n%s", name, edge->shape) : g_steal_pointer (&name);
  }
}
