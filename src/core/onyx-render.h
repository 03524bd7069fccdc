/* onyx-render.h: drawing a laid-out graph with cairo and pango, onto any surface:
 * the app's canvas, or PNG, SVG and PDF files.
 *
 * Only what intersects the visible rectangle is drawn (a grid index finds it), and
 * text is left out below a readable zoom, so a frame costs what is on screen. */
#pragma once

#include <cairo.h>

#include "onyx-category.h"
#include "onyx-layout.h"

G_BEGIN_DECLS

typedef struct _OnyxRenderIndex OnyxRenderIndex;

OnyxRenderIndex *onyx_render_index_new  (const OnyxLayout *layout);
void             onyx_render_index_free (OnyxRenderIndex  *index);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxRenderIndex, onyx_render_index_free)

typedef struct {
  double scale;      /* device units per layout point: 1 is 100 % */
  int selected;      /* layout node index, or -1 */
  int hovered;       /* layout node index, or -1 */
  int selected_edge; /* layout edge index, or -1 */
  gboolean dark;
  const GHashTable *highlighted; /* layout node indices (GINT_TO_POINTER), or NULL */
} OnyxRenderOptions;

void onyx_render_options_init (OnyxRenderOptions *options);

/* Draws what of `layout` lies in `visible` (layout coordinates). `cr` must already map
 * layout coordinates to the device (scaled by options->scale and translated). */
void onyx_render_draw (cairo_t                 *cr,
                       const OnyxLayout        *layout,
                       const OnyxRenderIndex   *index,
                       const OnyxRect          *visible,
                       const OnyxRenderOptions *options);

/* Lays out and draws, off screen, a sample of the texts the drawing shows in each of
 * its fonts: the first frame that shows a graph then finds this thread's fonts loaded
 * and their glyphs made (10 ms of a first frame's 30). For an idle moment before a
 * model is shown, on the thread that draws. */
void onyx_render_warm_up (void);

/* Whether drawing at `scale` is the overview: boxes and straight lines of solid
 * colours on whole device pixels, no text, no antialiasing. */
gboolean onyx_render_is_coarse (double scale);

/* The area a view caches around `visible`: a quarter of the view more on each side,
 * so that small pans redraw nothing. */
void onyx_render_cache_area (const OnyxRect *visible,
                             OnyxRect       *area);

/* `area` (layout coordinates) drawn at options->scale × `device_scale` pixels per
 * point onto a new transparent ARGB32 image surface, from the device pixel at
 * round (area->x × options->scale × device_scale) and likewise for y: what the
 * canvas caches of an overview, to copy instead of redrawing. */
cairo_surface_t *onyx_render_picture (const OnyxLayout       *layout,
                                      const OnyxRenderIndex   *index,
                                      const OnyxRect          *area,
                                      const OnyxRenderOptions *options,
                                      double                   device_scale);

/* Whether onyx_render_to_file writes files of that name: .png, .svg or .pdf. */
gboolean onyx_render_file_format_known (const char *path);
/* The whole layout at `scale` into a .png, .svg or .pdf file (by its extension).
 * A graph over twice as tall as wide and taller than image viewers open (16,000 px,
 * or 14,400 pt a PDF page) is drawn in columns in PNG and PDF; large PNGs are scaled
 * down to stay within cairo's 32,767-pixel limit. */
gboolean onyx_render_to_file (const OnyxLayout *layout,
                              const char       *path,
                              double            scale,
                              GError          **error);
/* The same, with the graph `layout` was made of: in SVG files each op box is titled with
 * its node's name, which browsers show over it. */
gboolean onyx_render_graph_to_file (const OnyxLayout       *layout,
                                    const Onnx__GraphProto *graph,
                                    const char             *path,
                                    double                  scale,
                                    GError                **error);

/* The scale onyx_render_graph_to_file draws `path` at for `scale` (less for a PNG
 * over 32,000 pixels a side), the image's size in pixels (points for SVG and PDF) and
 * its columns (a tall graph's PNG or PDF shows it in several, side by side); the
 * out-arguments are nullable. */
double onyx_render_file_scale (const OnyxLayout *layout,
                               const char       *path,
                               double            scale,
                               int              *width,
                               int              *height,
                               guint            *n_columns);

/* How many texts of the whole layout drawn at `scale` into an image file are cut short
 * ("float32[N×3×…") to fit their box: as many as at 100 % (a long attribute value
 * in a box of capped width), at any scale. */
guint onyx_render_count_cut_texts (const OnyxLayout *layout,
                                   double            scale);

/* What of `layout` lies in `area` (layout coordinates) at `scale`, as the canvas
 * shows it, into a .png, .svg or .pdf file: the exported view of the app. */
gboolean onyx_render_area_to_file (const OnyxLayout *layout,
                                   const OnyxRect   *area,
                                   double            scale,
                                   const char       *path,
                                   GError          **error);

/* The box around an edge's control points (which holds its curve) and its label;
 * width -1 if none. */
void     onyx_render_edge_bounds   (const OnyxLayoutEdge  *edge,
                                    OnyxRect              *box);

/* The layout edge under a point (within `tolerance` points of its curve), or -1. */
int      onyx_render_edge_hit_test (const OnyxLayout      *layout,
                                    const OnyxRenderIndex *index,
                                    double                 x,
                                    double                 y,
                                    double                 tolerance);

/* The layout edge whose mark (OnyxLayoutEdge.mark_box) is under a point, or -1. */
int      onyx_render_mark_hit_test (const OnyxLayout      *layout,
                                    const OnyxRenderIndex *index,
                                    double                 x,
                                    double                 y);

/* The line of op box `node` (an index in its lines) under a point, as drawn, or -1 (not an
 * op, or not on a line). */
int      onyx_render_line_hit_test (const OnyxLayout      *layout,
                                    int                    node,
                                    double                 x,
                                    double                 y);

G_END_DECLS
