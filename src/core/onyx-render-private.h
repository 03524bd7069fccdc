/* onyx-render-private.h: what the cairo drawing (onyx-render.c) shares with the file
 * writers that draw the same picture without it (onyx-render-svg.c) or in strips
 * (onyx-render-png.c). */
#pragma once

#include <stdio.h>

#include "onyx-render.h"

G_BEGIN_DECLS

/* Below this zoom text is unreadable: boxes only. */
#define MIN_TEXT_SCALE 0.35
/* Below this zoom a box is a few pixels: plain rectangles and straight edges, each
 * kind filled as one path, so that a whole 13,000-node graph still draws in a frame. */
#define MIN_DETAIL_SCALE 0.2
#define RADIUS 5.0
/* An op box's coloured band, as tall as HEADER_HEIGHT of onyx-layout-items.c; a box
 * that tall is all header. */
#define HEADER_HEIGHT 22.0
/* An op box's text rows: where the first starts below the box's top, and their pitch. */
#define TEXT_TOP 25.0
#define LINE_PITCH 15.0
/* The fonts of titles and of the smaller rows, as onyx-layout-items.c measures them. */
#define FONT_BOLD "Sans Bold 9"
#define FONT_SMALL "Sans 8"
/* An edge label's text starts this far into its box (LABEL_PAD of onyx-layout-items.c
 * is twice it). */
#define EDGE_LABEL_INSET 2.0
/* An edge's mark (a folded quantization) is a tag: its corners, and where its text
 * starts below its top. */
#define MARK_RADIUS 3.0
#define MARK_TEXT_TOP 0.5
/* Where the tag of an edge's mark is drawn: its mark_box, inset as the label's text. */
void onyx_render_mark_tag (const OnyxLayoutEdge *edge,
                           OnyxRect             *tag);
/* Dashes of open groups, of names from outside a subgraph and of implicit reads. */
static const double dashes[] = { 4, 3 };

typedef struct {
  double r, g, b;
} Colour;

extern const Colour onyx_render_category_colours[ONYX_CATEGORY_CUSTOM + 1];

typedef struct {
  Colour fg, body, line, muted, outer_body;
  Colour open_group;   /* fills of group boxes, translucent */
  double open_group_alpha;
  Colour closed_group;
  double closed_group_alpha;
  Colour mark;         /* the tag of a quantization folded onto an edge */
} OnyxRenderPalette;

const OnyxRenderPalette *onyx_render_palette (gboolean dark);

/* Where an op box's lines start: below its title and subtitle. */
double onyx_render_first_line_y (const OnyxLayoutNode *node);

/* A group box's cards, back to front: a closed stack's three, offset down and right
 * (its text goes on the last); the box alone otherwise. Returns how many. */
guint  onyx_render_group_cards   (const OnyxLayoutNode *node,
                                  OnyxRect              cards[3]);
/* An open group's header line: name and count, and the member a stack shows. */
char  *onyx_render_group_header  (const OnyxLayoutNode *node);
/* Where the glyph of an open stack's step button starts: ‹ (`step` -1) or › (1), in
 * the ONYX_LAYOUT_STACK_BUTTONS_WIDTH at its header's right end. */
double onyx_render_stack_button_x (const OnyxLayoutNode *node,
                                   int                   step);

/* The detailed drawing of what meets `area` as SVG into `out`, `width`×`height` (in pt)
 * on the page; text as <text>, not as glyph outlines. `graph` (or NULL) names op boxes. */
gboolean       onyx_render_svg_write (const OnyxLayout        *layout,
                                      const Onnx__GraphProto  *graph,
                                      const OnyxRect          *area,
                                      double                   width,
                                      double                   height,
                                      gboolean                 text,
                                      FILE                    *out);

/* A part of the layout and where it goes in a picture (layout points): a tall graph's
 * file shows it in columns side by side, each a band of it. */
typedef struct {
  OnyxRect source;
  double x, y;
} OnyxRenderPiece;

/* The pieces a picture of `area` is made of: `area` itself, or when it is taller
 * than `max_height` and over twice as tall as wide, bands of it cut where no box or
 * label is, as many columns as make the picture about square (whatever the scale it
 * is drawn at). The picture's size is set (layout points). */
GArray *onyx_render_pieces      (const OnyxLayout        *layout,
                                 const OnyxRect          *area,
                                 double                   max_height,
                                 double                  *width,
                                 double                  *height);
/* Draws what of the pieces lies in `visible` (picture coordinates); `cr` maps
 * picture coordinates to the device. */
void    onyx_render_draw_pieces (cairo_t                 *cr,
                                 const OnyxLayout        *layout,
                                 const OnyxRenderIndex   *index,
                                 const GArray            *pieces,
                                 const OnyxRect          *visible,
                                 const OnyxRenderOptions *options);

/* The pieces, a picture `picture_width` × `picture_height` points, at `scale` drawn
 * with `options`, as a PNG into `out`, a strip of rows at a time: the same pixels as
 * one image surface of the whole, without holding it. */
cairo_status_t onyx_render_png_write (const OnyxLayout        *layout,
                                      const GArray            *pieces,
                                      double                   picture_width,
                                      double                   picture_height,
                                      double                   scale,
                                      const OnyxRenderOptions *options,
                                      FILE                    *out);

/* The arrowhead at an edge's end (tip, then the two back corners), along its last
 * segment; FALSE when there is none to draw. */
gboolean onyx_render_arrowhead (const GArray *pts, double head[6]);

G_END_DECLS
