/* onyx-canvas-private.h: what the canvas's files share. */
#pragma once

#include <gtk/gtk.h>

#include "onyx-canvas.h"
#include "onyx-render.h"

G_BEGIN_DECLS

#define ONYX_CANVAS_MIN_SCALE 0.01
/* Labels are Sans 8 and 9 pt (about 11 and 12 px) at 100 %: at 0.8 the smaller ones
 * are still about 9 px, below that they stop being readable. */
#define ONYX_CANVAS_READABLE_SCALE 0.8

/* The whole graph, centred, in a `width` × `height` widget: the scale and the layout
 * point at the widget's top-left corner. */
void           onyx_canvas_view_fit     (const OnyxLayout *layout,
                                         int               width,
                                         int               height,
                                         double           *scale,
                                         double           *ox,
                                         double           *oy);
/* Netron's first view: the whole graph when it is readable so, else its inputs at
 * 100 %. */
void           onyx_canvas_view_first   (const OnyxLayout *layout,
                                         int               width,
                                         int               height,
                                         double           *scale,
                                         double           *ox,
                                         double           *oy);

/* The graph layer of `area` (layout coordinates) at options->scale, in layout
 * coordinates × options->scale. An overview is a texture, drawn once and copied
 * each frame; a readable zoom is recorded cairo drawing. */
GskRenderNode *onyx_canvas_render_cache (const OnyxLayout       *layout,
                                         const OnyxRenderIndex   *index,
                                         const OnyxRect          *area,
                                         const OnyxRenderOptions *options,
                                         int                      scale_factor);

/* The tooltip of what lies at x, y (layout coordinates; edges within `tolerance`),
 * or NULL for nothing; an edge's ends with `note`'s words on its tensor, if any. */
char          *onyx_canvas_tooltip_text (const OnyxLayout       *layout,
                                         const OnyxRenderIndex  *index,
                                         double                  x,
                                         double                  y,
                                         double                  tolerance,
                                         OnyxCanvasTensorNote    note,
                                         gpointer                note_data);

/* onyx-canvas-notes.c: a PangoLayout per layout node (NULL where `notes` has none),
 * laid out for `widget`; and those in `visible` drawn beside their boxes. */
GPtrArray     *onyx_canvas_notes_new    (GtkWidget               *widget,
                                         const char *const       *notes,
                                         guint                    n_notes);
void           onyx_canvas_notes_append (GPtrArray               *notes,
                                         const OnyxLayout        *layout,
                                         GtkSnapshot             *snapshot,
                                         const OnyxRect          *visible,
                                         double                   scale,
                                         double                   ox,
                                         double                   oy,
                                         gboolean                 dark);

G_END_DECLS
