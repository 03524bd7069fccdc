/* onyx-canvas.h: the widget that shows a laid-out graph (drawn by the core's
 * renderer) and lets people pan, zoom, hover and click it. */
#pragma once

#include <gtk/gtk.h>

#include "onyx-layout.h"

G_BEGIN_DECLS

#define ONYX_TYPE_CANVAS (onyx_canvas_get_type ())
G_DECLARE_FINAL_TYPE (OnyxCanvas, onyx_canvas, ONYX, CANVAS, GtkWidget)

/* Signal "item-activated" (int node, int edge): a click on a layout node or edge
 * (both -1 for the background). The canvas does not change its selection itself.
 * Signal "item-opened" (int node): a double click on a layout node.
 * Signal "line-activated" (int node, int line): a click on a line of layout node
 * `node` that stands for a graph node of its own (line_nodes[line] >= 0, a folded
 * Constant), instead of "item-activated". */

GtkWidget        *onyx_canvas_new            (void);
/* Takes ownership of `layout` (may be NULL). With `keep_view` the zoom and position
 * stay (after an edit); otherwise it opens at onyx_canvas_show_first_view(). */
void              onyx_canvas_set_layout     (OnyxCanvas *self,
                                              OnyxLayout *layout,
                                              gboolean    keep_view);
const OnyxLayout *onyx_canvas_get_layout     (OnyxCanvas *self);
void              onyx_canvas_set_selection  (OnyxCanvas *self,
                                              int         node,
                                              int         edge);
int               onyx_canvas_get_selected_node (OnyxCanvas *self);
int               onyx_canvas_get_selected_edge (OnyxCanvas *self);
/* A coloured frame around layout nodes (a comparison's differences): `tints` has one
 * colour per layout node, alpha 0 for none; NULL removes them. Drawn over the cached
 * graph; a new layout drops them. */
void              onyx_canvas_set_node_tints (OnyxCanvas    *self,
                                              const GdkRGBA *tints,
                                              guint          n_tints);
/* Whether layout node `node` is tinted, and in which colour (`tint` may be NULL). */
gboolean          onyx_canvas_get_node_tint  (OnyxCanvas *self,
                                              int         node,
                                              GdkRGBA    *tint);
/* Problem markers: a small dot at a layout node's top right corner. `badges` has one
 * OnyxCanvasBadge per layout node; NULL removes them. Drawn over the cached graph;
 * a new layout drops them. */
typedef enum {
  ONYX_CANVAS_BADGE_NONE,
  ONYX_CANVAS_BADGE_INFO,
  ONYX_CANVAS_BADGE_WARNING,
  ONYX_CANVAS_BADGE_ERROR,
} OnyxCanvasBadge;
void              onyx_canvas_set_node_badges (OnyxCanvas   *self,
                                               const guint8 *badges,
                                               guint         n_badges);
OnyxCanvasBadge   onyx_canvas_get_node_badge  (OnyxCanvas   *self,
                                               int           node);
/* Short texts beside boxes (a profile's share, "12 %"): one per layout node, NULL
 * entries for none; NULL removes them. Drawn over the cached graph; a new layout
 * drops them. */
void              onyx_canvas_set_node_notes  (OnyxCanvas         *self,
                                               const char *const  *notes,
                                               guint               n_notes);
const char       *onyx_canvas_get_node_note   (OnyxCanvas         *self,
                                               int                 node);
/* More to say of a tensor in an edge's tooltip (a run's statistics): a new string,
 * or NULL for nothing. NULL: no note. */
typedef char *(*OnyxCanvasTensorNote) (const char *tensor, gpointer user_data);
void              onyx_canvas_set_tensor_note (OnyxCanvas           *self,
                                               OnyxCanvasTensorNote  note,
                                               gpointer              user_data);
/* Scrolls so that the layout node is in view (centred when it was not), keeping
 * the zoom. */
void              onyx_canvas_reveal_node    (OnyxCanvas *self,
                                              int         node);
/* The layout node in view and readable: at a zoom too small to read (an overview,
 * Fit of a big graph) zoomed to 100 % and centred on it, else as _reveal_node. */
void              onyx_canvas_present_node   (OnyxCanvas *self,
                                              int         node);
/* Scrolls the layout node to the centre of the view, keeping the zoom. */
void              onyx_canvas_center_node    (OnyxCanvas *self,
                                              int         node);
double            onyx_canvas_get_scale      (OnyxCanvas *self);
/* The part of the layout in view, in layout coordinates. */
void              onyx_canvas_get_visible_area (OnyxCanvas *self,
                                                OnyxRect   *area);
/* The whole graph, centred (key 0). */
void              onyx_canvas_zoom_fit       (OnyxCanvas *self);
/* The view a graph opens at (key Home): fitted when that is readable, else at 100 %
 * with its inputs at the top, centred on them or from their left edge. */
void              onyx_canvas_show_first_view (OnyxCanvas *self);

G_END_DECLS
