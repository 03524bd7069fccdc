/* onyx-canvas-tooltip.c: what the canvas's tooltip says of the box or edge under the
 * pointer: all that a box lists and may cut (every attribute and weight, whole; a
 * value's whole name and type), an edge's tensor and its whole shape, and what the
 * window adds of the tensor (a run's statistics). */
#include "onyx-canvas-private.h"

#include <glib/gi18n.h>

#include "onyx-types.h"
#include "onyx-text.h"

char *
onyx_canvas_tooltip_text (const OnyxLayout *layout, const OnyxRenderIndex *index, double x, double y,
                          double tolerance, OnyxCanvasTensorNote note, gpointer note_data)
{
  int node = onyx_layout_hit_test (layout, x, y);
  int edge_at = onyx_render_edge_hit_test (layout, index, x, y, tolerance);
  const OnyxLayoutEdge *edge;

  /* Inside an open group an edge says more than the group around it. */
  if (node >= 0 && edge_at >= 0 && g_array_index (layout->nodes, OnyxLayoutNode, node).kind == ONYX_LAYOUT_GROUP)
    node = -1;
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
      if (n->stack_size > 0)
        {
          g_string_append_printf (text, "\n%s", _("Alike groups drawn once: the same operators, wired the same way."));
          if (n->expanded)
            g_string_append_printf (text, "\n%s", _("‹ and › show the one before or after."));
        }
      return g_string_free (text, FALSE);
    }
  if (edge_at < 0)
    return NULL;
  edge = &g_array_index (layout->edges, OnyxLayoutEdge, edge_at);
  if (edge->tensor == NULL)
    return NULL;
  {
    g_autofree char *name = onyx_display_escape (edge->tensor);
    g_autofree char *more = note != NULL ? note (edge->tensor, note_data) : NULL;
    GString *text = g_string_new (name);

    if (edge->shape != NULL)
      g_string_append_printf (text, "\n%s", edge->shape);
    if (more != NULL)
      g_string_append_printf (text, "\n%s", more);
    return g_string_free (text, FALSE);
  }
}
