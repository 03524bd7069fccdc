#include "onyx-render-private.h"

#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>

/* Grid cell of the spatial index, in layout points. */
#define CELL 256.0

/* Colour slots of the coarse drawing: groups, then one per category. */
#define COARSE_GROUPS 0
#define N_COARSE_SLOTS (1 + ONYX_CATEGORY_CUSTOM + 1)

struct _OnyxRenderIndex {
  double x0, y0;
  int columns, rows;
  GArray **cells;      /* per cell: int entries, nodes as i, edges as -(i + 1) */
  guint *stamps;       /* per node and edge, to report each once per query */
  guint n_nodes;
  guint stamp;
  /* The coarse drawing's input, flat: at an overview most of the graph is on screen,
   * and scanning these beats a grid query that chases every node and edge. */
  GArray *coarse_boxes[N_COARSE_SLOTS]; /* OnyxRect, in layout order */
  GArray *coarse_edges;                 /* OnyxRect: first point, last point - first */
};

const Colour onyx_render_category_colours[] = {
  [ONYX_CATEGORY_DEFAULT] = { 0.35, 0.35, 0.35 },
  [ONYX_CATEGORY_CONV] = { 0.20, 0.33, 0.53 },
  [ONYX_CATEGORY_ACTIVATION] = { 0.44, 0.16, 0.13 },
  [ONYX_CATEGORY_POOL] = { 0.20, 0.33, 0.20 },
  [ONYX_CATEGORY_NORMALIZATION] = { 0.20, 0.33, 0.27 },
  [ONYX_CATEGORY_SHAPE] = { 0.42, 0.31, 0.28 },
  [ONYX_CATEGORY_TENSOR] = { 0.30, 0.30, 0.30 },
  [ONYX_CATEGORY_CONTROL] = { 0.38, 0.31, 0.51 },
  [ONYX_CATEGORY_CUSTOM] = { 0.77, 0.38, 0.00 },
};

const OnyxRenderPalette *
onyx_render_palette (gboolean dark)
{
  static const OnyxRenderPalette light_palette = {
    { 0.10, 0.10, 0.12 }, { 1, 1, 1 }, { 0.42, 0.42, 0.46 }, { 0.38, 0.38, 0.42 }, { 0.92, 0.92, 0.94 },
    { 0.5, 0.55, 0.65 }, 0.07, { 0.45, 0.52, 0.65 }, 0.22, { 0.99, 0.93, 0.80 } };
  static const OnyxRenderPalette dark_palette = {
    { 0.92, 0.92, 0.92 }, { 0.22, 0.22, 0.24 }, { 0.62, 0.62, 0.66 }, { 0.70, 0.70, 0.72 }, { 0.16, 0.16, 0.18 },
    { 0.5, 0.55, 0.65 }, 0.16, { 0.45, 0.52, 0.65 }, 0.45, { 0.36, 0.29, 0.14 } };

  return dark ? &dark_palette : &light_palette;
}

void
onyx_render_options_init (OnyxRenderOptions *options)
{
  memset (options, 0, sizeof *options);
  options->scale = 1.0;
  options->selected = -1;
  options->hovered = -1;
  options->selected_edge = -1;
}

void
onyx_render_edge_bounds (const OnyxLayoutEdge *edge, OnyxRect *box)
{
  double x0 = G_MAXDOUBLE, y0 = G_MAXDOUBLE, x1 = -G_MAXDOUBLE, y1 = -G_MAXDOUBLE;

  for (guint p = 0; p + 1 < edge->points->len; p += 2)
    {
      double x = g_array_index (edge->points, double, p), y = g_array_index (edge->points, double, p + 1);
      x0 = MIN (x0, x), y0 = MIN (y0, y), x1 = MAX (x1, x), y1 = MAX (y1, y);
    }
  if (edge->points->len >= 2 && edge->label_box.width >= 0)
    {
      const OnyxRect *label = &edge->label_box;
      x0 = MIN (x0, label->x), y0 = MIN (y0, label->y);
      x1 = MAX (x1, label->x + label->width), y1 = MAX (y1, label->y + label->height);
    }
  *box = edge->points->len >= 2 ? (OnyxRect) { x0, y0, x1 - x0, y1 - y0 } : (OnyxRect) { 0, 0, -1, -1 };
}

static void
index_insert (OnyxRenderIndex *index, const OnyxRect *box, int entry)
{
  int c0, c1, r0, r1;

  if (box->width < 0)
    return;
  c0 = CLAMP ((int) floor ((box->x - index->x0) / CELL), 0, index->columns - 1);
  c1 = CLAMP ((int) floor ((box->x + box->width - index->x0) / CELL), 0, index->columns - 1);
  r0 = CLAMP ((int) floor ((box->y - index->y0) / CELL), 0, index->rows - 1);
  r1 = CLAMP ((int) floor ((box->y + box->height - index->y0) / CELL), 0, index->rows - 1);
  for (int r = r0; r <= r1; r++)
    for (int c = c0; c <= c1; c++)
      {
        GArray **cell = &index->cells[r * index->columns + c];
        if (*cell == NULL)
          *cell = g_array_new (FALSE, FALSE, sizeof (int));
        g_array_append_val (*cell, entry);
      }
}

OnyxRenderIndex *
onyx_render_index_new (const OnyxLayout *layout)
{
  OnyxRenderIndex *index = g_new0 (OnyxRenderIndex, 1);

  index->x0 = layout->bounds.x - CELL;
  index->y0 = layout->bounds.y - CELL;
  index->columns = (int) ceil ((layout->bounds.width + 2 * CELL) / CELL) + 1;
  index->rows = (int) ceil ((layout->bounds.height + 2 * CELL) / CELL) + 1;
  index->cells = g_new0 (GArray *, (gsize) index->columns * index->rows);
  index->n_nodes = layout->nodes->len;
  index->stamps = g_new0 (guint, layout->nodes->len + layout->edges->len + 1);
  for (guint slot = 0; slot < N_COARSE_SLOTS; slot++)
    index->coarse_boxes[slot] = g_array_new (FALSE, FALSE, sizeof (OnyxRect));
  index->coarse_edges = g_array_new (FALSE, FALSE, sizeof (OnyxRect));
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      guint slot = node->kind == ONYX_LAYOUT_GROUP ? COARSE_GROUPS : 1 + MIN ((guint) node->category, N_COARSE_SLOTS - 2);
      index_insert (index, &node->box, (int) i);
      if (node->kind == ONYX_LAYOUT_GROUP)
        {
          /* Zoomed out too, a closed stack is a card on two more. */
          OnyxRect cards[3];
          g_array_append_vals (index->coarse_boxes[slot], cards, onyx_render_group_cards (node, cards));
        }
      else
        g_array_append_val (index->coarse_boxes[slot], node->box);
    }
  for (guint i = 0; i < layout->edges->len; i++)
    {
      const GArray *pts = g_array_index (layout->edges, OnyxLayoutEdge, i).points;
      OnyxRect box;
      onyx_render_edge_bounds (&g_array_index (layout->edges, OnyxLayoutEdge, i), &box);
      index_insert (index, &box, -(int) i - 1);
      if (pts->len >= 4)
        {
          double x = g_array_index (pts, double, 0), y = g_array_index (pts, double, 1);
          OnyxRect segment = { x, y, g_array_index (pts, double, pts->len - 2) - x,
                               g_array_index (pts, double, pts->len - 1) - y };
          g_array_append_val (index->coarse_edges, segment);
        }
    }
  return index;
}

void
onyx_render_index_free (OnyxRenderIndex *index)
{
  if (index == NULL)
    return;
  for (int i = 0; i < index->columns * index->rows; i++)
    if (index->cells[i] != NULL)
      g_array_unref (index->cells[i]);
  g_free (index->cells);
  g_free (index->stamps);
  for (guint slot = 0; slot < N_COARSE_SLOTS; slot++)
    g_array_unref (index->coarse_boxes[slot]);
  g_array_unref (index->coarse_edges);
  g_free (index);
}

/* Node and edge entries whose cells meet `visible`, each once, sorted. */
static GArray *
index_query (const OnyxRenderIndex *const_index, const OnyxRect *visible)
{
  /* The stamps are scratch space: queries do not change what the index holds. */
  OnyxRenderIndex *index = (OnyxRenderIndex *) const_index;
  GArray *found = g_array_new (FALSE, FALSE, sizeof (int));
  int c0 = CLAMP ((int) floor ((visible->x - index->x0) / CELL), 0, index->columns - 1);
  int c1 = CLAMP ((int) floor ((visible->x + visible->width - index->x0) / CELL), 0, index->columns - 1);
  int r0 = CLAMP ((int) floor ((visible->y - index->y0) / CELL), 0, index->rows - 1);
  int r1 = CLAMP ((int) floor ((visible->y + visible->height - index->y0) / CELL), 0, index->rows - 1);

  index->stamp++;
  for (int r = r0; r <= r1; r++)
    for (int c = c0; c <= c1; c++)
      {
        GArray *cell = index->cells[r * index->columns + c];
        for (guint i = 0; cell != NULL && i < cell->len; i++)
          {
            int entry = g_array_index (cell, int, i);
            guint slot = entry >= 0 ? (guint) entry : index->n_nodes + (guint) (-entry - 1);
            if (index->stamps[slot] == index->stamp)
              continue;
            index->stamps[slot] = index->stamp;
            g_array_append_val (found, entry);
          }
      }
  return found;
}

static int
compare_ints (gconstpointer a, gconstpointer b)
{
  int x = *(const int *) a, y = *(const int *) b;
  return x < y ? -1 : x > y;
}

static void
rounded_rect (cairo_t *cr, const OnyxRect *box, double radius)
{
  double r = MIN (radius, MIN (box->width, box->height) / 2);
  cairo_new_sub_path (cr);
  cairo_arc (cr, box->x + box->width - r, box->y + r, r, -G_PI / 2, 0);
  cairo_arc (cr, box->x + box->width - r, box->y + box->height - r, r, 0, G_PI / 2);
  cairo_arc (cr, box->x + r, box->y + box->height - r, r, G_PI / 2, G_PI);
  cairo_arc (cr, box->x + r, box->y + r, r, G_PI, 3 * G_PI / 2);
  cairo_close_path (cr);
}

typedef struct {
  cairo_t *cr;
  PangoLayout *pango;
  PangoFontDescription *bold, *small;
  const OnyxRenderOptions *options;
  gboolean text;
  Colour fg, body, line, muted, outer_body;
  const OnyxRenderPalette *palette;
  guint n_cut;                 /* texts ellipsized to fit */
} Painter;

static void
draw_text (Painter *p, PangoFontDescription *font, const char *text, double x, double y, double max_width)
{
  pango_layout_set_font_description (p->pango, font);
  pango_layout_set_text (p->pango, text, -1);
  pango_layout_set_width (p->pango, (int) (max_width * PANGO_SCALE));
  pango_layout_set_ellipsize (p->pango, PANGO_ELLIPSIZE_END);
  cairo_move_to (p->cr, x, y);
  pango_cairo_show_layout (p->cr, p->pango);
  p->n_cut += pango_layout_is_ellipsized (p->pango);
}

static void
outline_state (Painter *p, int index)
{
  cairo_t *cr = p->cr;
  if (index == p->options->selected)
    {
      cairo_set_source_rgb (cr, 0.21, 0.52, 0.89);
      cairo_set_line_width (cr, 3);
    }
  else if (index == p->options->hovered ||
           (p->options->highlighted != NULL &&
            g_hash_table_contains ((GHashTable *) p->options->highlighted, GINT_TO_POINTER (index))))
    {
      cairo_set_source_rgb (cr, 0.47, 0.68, 0.93);
      cairo_set_line_width (cr, 2.5);
    }
  else
    {
      cairo_set_source_rgb (cr, p->line.r, p->line.g, p->line.b);
      cairo_set_line_width (cr, 1);
    }
  cairo_stroke (cr);
}

/* Sets the path and source of a group's fill; a stack's cards hide those behind. */
static void
fill_group_box (Painter *p, const OnyxLayoutNode *node, const OnyxRect *box)
{
  rounded_rect (p->cr, box, RADIUS * 1.5);
  if (node->stack_size > 0 && !node->expanded)
    {
      cairo_set_source_rgb (p->cr, p->body.r, p->body.g, p->body.b);
      cairo_fill_preserve (p->cr);
    }
  if (node->expanded)
    cairo_set_source_rgba (p->cr, p->palette->open_group.r, p->palette->open_group.g, p->palette->open_group.b,
                           p->palette->open_group_alpha);
  else
    cairo_set_source_rgba (p->cr, p->palette->closed_group.r, p->palette->closed_group.g,
                           p->palette->closed_group.b, p->palette->closed_group_alpha);
}

guint
onyx_render_group_cards (const OnyxLayoutNode *node, OnyxRect cards[3])
{
  if (node->stack_size == 0 || node->expanded)
    {
      cards[0] = node->box;
      return 1;
    }
  for (guint card = 0; card < 3; card++)
    cards[card] = (OnyxRect) { node->box.x + (2 - card) * ONYX_LAYOUT_STACK_CARD_OFFSET,
                               node->box.y + (2 - card) * ONYX_LAYOUT_STACK_CARD_OFFSET,
                               node->box.width - 2 * ONYX_LAYOUT_STACK_CARD_OFFSET,
                               node->box.height - 2 * ONYX_LAYOUT_STACK_CARD_OFFSET };
  return 3;
}

char *
onyx_render_group_header (const OnyxLayoutNode *node)
{
  return onyx_layout_group_header (node->title, node->subtitle, node->stack_size > 0 ? node->stack_label : NULL);
}

double
onyx_render_stack_button_x (const OnyxLayoutNode *node, int step)
{
  double right = node->box.x + node->box.width - 4;
  return step < 0 ? right - ONYX_LAYOUT_STACK_BUTTONS_WIDTH + 14 : right - ONYX_LAYOUT_STACK_BUTTONS_WIDTH / 2 + 10;
}

static void
draw_group (Painter *p, const OnyxLayoutNode *node, int index)
{
  cairo_t *cr = p->cr;
  OnyxRect cards[3], front;
  guint n_cards = onyx_render_group_cards (node, cards);
  g_autofree char *header = NULL;

  /* A closed stack: the cards behind the front one. */
  for (guint card = 0; card + 1 < n_cards; card++)
    {
      fill_group_box (p, node, &cards[card]);
      cairo_fill_preserve (cr);
      cairo_set_source_rgb (cr, p->line.r, p->line.g, p->line.b);
      cairo_set_line_width (cr, 1);
      cairo_stroke (cr);
    }
  front = cards[n_cards - 1];
  fill_group_box (p, node, &front);
  cairo_fill_preserve (cr);
  if (node->expanded)
    cairo_set_dash (cr, dashes, G_N_ELEMENTS (dashes), 0);
  outline_state (p, index);
  cairo_set_dash (cr, NULL, 0, 0);
  if (!p->text)
    return;
  cairo_set_source_rgb (cr, p->fg.r, p->fg.g, p->fg.b);
  if (node->expanded)
    {
      /* Open groups: name and count on the header line above their contents; an
       * open stack, which member it shows and its step buttons. */
      double buttons = node->stack_size > 0 ? ONYX_LAYOUT_STACK_BUTTONS_WIDTH : 0;
      header = onyx_render_group_header (node);
      draw_text (p, p->bold, header, node->box.x + 8, node->box.y + 4, node->box.width - 16 - buttons);
      if (buttons > 0)
        {
          draw_text (p, p->bold, "‹", onyx_render_stack_button_x (node, -1), node->box.y + 4, 12);
          draw_text (p, p->bold, "›", onyx_render_stack_button_x (node, 1), node->box.y + 4, 12);
        }
      return;
    }
  draw_text (p, p->bold, node->title, front.x + 8, front.y + 4, front.width - 16);
  cairo_set_source_rgb (cr, p->muted.r, p->muted.g, p->muted.b);
  draw_text (p, p->small, node->subtitle, front.x + 8, front.y + 22, front.width - 16);
}

static void
draw_value (Painter *p, const OnyxLayoutNode *node, int index)
{
  cairo_t *cr = p->cr;

  /* A name from outside the subgraph, or a neighbour of the layer a stack shows: only
   * a stand-in, greyed and dashed. */
  gboolean outer = node->kind == ONYX_LAYOUT_OUTER || node->kind == ONYX_LAYOUT_STUB;
  const Colour *body = outer ? &p->outer_body : &p->body;

  rounded_rect (cr, &node->box, node->box.height / 2);
  cairo_set_source_rgb (cr, body->r, body->g, body->b);
  cairo_fill_preserve (cr);
  if (outer)
    cairo_set_dash (cr, dashes, G_N_ELEMENTS (dashes), 0);
  outline_state (p, index);
  cairo_set_dash (cr, NULL, 0, 0);
  if (!p->text)
    return;
  cairo_set_source_rgb (cr, p->fg.r, p->fg.g, p->fg.b);
  draw_text (p, p->bold, node->title, node->box.x + 10, node->box.y + 4, node->box.width - 20);
  cairo_set_source_rgb (cr, p->muted.r, p->muted.g, p->muted.b);
  if (node->subtitle != NULL)
    draw_text (p, p->small, node->subtitle, node->box.x + 10, node->box.y + 20, node->box.width - 20);
}

double
onyx_render_first_line_y (const OnyxLayoutNode *node)
{
  return node->box.y + TEXT_TOP + (node->subtitle != NULL ? LINE_PITCH : 0);
}

static void
draw_op (Painter *p, const OnyxLayoutNode *node, int index)
{
  cairo_t *cr = p->cr;
  const Colour *header = &onyx_render_category_colours[node->category];
  OnyxRect head = { node->box.x, node->box.y, node->box.width, HEADER_HEIGHT };

  /* No body under a header-only box: its edge would show through the header's. */
  if (node->box.height > HEADER_HEIGHT)
    {
      rounded_rect (cr, &node->box, RADIUS);
      cairo_set_source_rgb (cr, p->body.r, p->body.g, p->body.b);
      cairo_fill (cr);
    }
  /* Header band: the op type, coloured by category. */
  cairo_save (cr);
  rounded_rect (cr, &node->box, RADIUS);
  cairo_clip (cr);
  cairo_rectangle (cr, head.x, head.y, head.width, MIN (head.height, node->box.height));
  cairo_set_source_rgb (cr, header->r, header->g, header->b);
  cairo_fill (cr);
  cairo_restore (cr);
  rounded_rect (cr, &node->box, RADIUS);
  outline_state (p, index);
  if (!p->text)
    return;
  cairo_set_source_rgb (cr, 1, 1, 1);
  draw_text (p, p->bold, node->title, node->box.x + 8, node->box.y + 4, node->box.width - 16);
  cairo_set_source_rgb (cr, p->muted.r, p->muted.g, p->muted.b);
  if (node->subtitle != NULL)
    draw_text (p, p->small, node->subtitle, node->box.x + 8, node->box.y + TEXT_TOP, node->box.width - 16);
  cairo_set_source_rgb (cr, p->fg.r, p->fg.g, p->fg.b);
  for (guint i = 0; i < node->lines->len; i++)
    draw_text (p, p->small, node->lines->pdata[i], node->box.x + 8,
               onyx_render_first_line_y (node) + i * LINE_PITCH, node->box.width - 16);
}

gboolean
onyx_render_arrowhead (const GArray *pts, double head[6])
{
  guint n = pts->len / 2;
  double ex, ey, dx, dy, len;

  if (n < 2)
    return FALSE;
  ex = g_array_index (pts, double, 2 * (n - 1));
  ey = g_array_index (pts, double, 2 * (n - 1) + 1);
  dx = ex - g_array_index (pts, double, 2 * (n - 2));
  dy = ey - g_array_index (pts, double, 2 * (n - 2) + 1);
  len = hypot (dx, dy);
  if (len <= 0)
    return FALSE;
  dx /= len, dy /= len;
  head[0] = ex, head[1] = ey;
  head[2] = ex - 7 * dx + 3.5 * dy, head[3] = ey - 7 * dy - 3.5 * dx;
  head[4] = ex - 7 * dx - 3.5 * dy, head[5] = ey - 7 * dy + 3.5 * dx;
  return TRUE;
}

static void
draw_edge (Painter *p, const OnyxLayoutEdge *edge, int index)
{
  cairo_t *cr = p->cr;
  const GArray *pts = edge->points;
  guint n = pts->len / 2;
  double head[6];
  gboolean selected = index == p->options->selected_edge;

  if (n < 2)
    return;
  cairo_move_to (cr, g_array_index (pts, double, 0), g_array_index (pts, double, 1));
  for (guint i = 1; i + 2 < n; i += 3)
    cairo_curve_to (cr, g_array_index (pts, double, 2 * i), g_array_index (pts, double, 2 * i + 1),
                    g_array_index (pts, double, 2 * i + 2), g_array_index (pts, double, 2 * i + 3),
                    g_array_index (pts, double, 2 * i + 4), g_array_index (pts, double, 2 * i + 5));
  if (selected)
    cairo_set_source_rgb (cr, 0.21, 0.52, 0.89);
  else
    cairo_set_source_rgb (cr, p->line.r, p->line.g, p->line.b);
  cairo_set_line_width (cr, selected ? 2.5 : 1.1);
  if (edge->implicit)
    cairo_set_dash (cr, dashes, G_N_ELEMENTS (dashes), 0);
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);

  if (onyx_render_arrowhead (pts, head))
    {
      cairo_move_to (cr, head[0], head[1]);
      cairo_line_to (cr, head[2], head[3]);
      cairo_line_to (cr, head[4], head[5]);
      cairo_close_path (cr);
      cairo_fill (cr);
    }
  if (p->text && edge->label != NULL && edge->label_box.width >= 0)
    {
      cairo_set_source_rgb (cr, p->muted.r, p->muted.g, p->muted.b);
      draw_text (p, p->small, edge->label, edge->label_box.x + EDGE_LABEL_INSET, edge->label_box.y,
                 edge->label_box.width - EDGE_LABEL_INSET);
    }
  if (p->text && edge->mark != NULL && edge->mark_box.width >= 0)
    {
      /* A folded quantization: a tinted tag under the shape. */
      OnyxRect tag;
      onyx_render_mark_tag (edge, &tag);
      rounded_rect (cr, &tag, MARK_RADIUS);
      cairo_set_source_rgb (cr, p->palette->mark.r, p->palette->mark.g, p->palette->mark.b);
      cairo_fill_preserve (cr);
      cairo_set_source_rgb (cr, p->line.r, p->line.g, p->line.b);
      cairo_set_line_width (cr, 0.8);
      cairo_stroke (cr);
      cairo_set_source_rgb (cr, p->fg.r, p->fg.g, p->fg.b);
      draw_text (p, p->small, edge->mark, tag.x + ONYX_LAYOUT_MARK_PAD, tag.y + MARK_TEXT_TOP,
                 tag.width - ONYX_LAYOUT_MARK_PAD);
    }
}

void
onyx_render_mark_tag (const OnyxLayoutEdge *edge, OnyxRect *tag)
{
  /* Inset from the label's own edges, as the shape's text is. */
  *tag = (OnyxRect) { edge->mark_box.x + EDGE_LABEL_INSET, edge->mark_box.y + 1, edge->mark_box.width,
                      edge->mark_box.height - 2 };
}

static guint draw_detailed (cairo_t *cr, const OnyxLayout *layout, GArray *entries,
                                       const OnyxRenderOptions *options);

/* The device pixels a layout rectangle covers, rounded to whole pixels but at least
 * one each way: at an overview a box is a pixel or less, and cairo's boxes fast path
 * takes pixel-aligned rectangles only. */
static void
device_pixels (const cairo_matrix_t *to_device, const OnyxRect *r, OnyxRect *pixels)
{
  double x0 = r->x, y0 = r->y, x1 = r->x + r->width, y1 = r->y + r->height;

  cairo_matrix_transform_point (to_device, &x0, &y0);
  cairo_matrix_transform_point (to_device, &x1, &y1);
  pixels->x = round (MIN (x0, x1));
  pixels->y = round (MIN (y0, y1));
  pixels->width = MAX (round (MAX (x0, x1)) - pixels->x, 1);
  pixels->height = MAX (round (MAX (y0, y1)) - pixels->y, 1);
}

static gboolean
rects_meet (const OnyxRect *a, const OnyxRect *b)
{
  return a->x <= b->x + b->width && b->x <= a->x + a->width &&
         a->y <= b->y + b->height && b->y <= a->y + a->height;
}

/* Adds the pixels of the boxes in `boxes` that meet `visible` to the current path (in
 * device space), each once: neighbours in a column often land on the same pixels. */
static void
path_pixel_boxes (cairo_t *cr, const cairo_matrix_t *to_device, const GArray *boxes, const OnyxRect *visible)
{
  OnyxRect last = { 0, 0, -1, -1 };

  for (guint i = 0; i < boxes->len; i++)
    {
      const OnyxRect *box = &g_array_index (boxes, OnyxRect, i);
      OnyxRect pixels;
      if (!rects_meet (box, visible))
        continue;
      device_pixels (to_device, box, &pixels);
      if (memcmp (&pixels, &last, sizeof pixels) == 0)
        continue;
      last = pixels;
      cairo_rectangle (cr, pixels.x, pixels.y, pixels.width, pixels.height);
    }
}

/* Edges as straight lines from their first to their last point, one pixel wide:
 * vertical and horizontal ones (most, in a top-down layout seen whole) as pixel
 * rectangles into the current path, the others as segments (x0, y0, x1, y1) into
 * `slanted`, which cost a stroke. */
static void
path_pixel_edges (cairo_t *cr, const cairo_matrix_t *to_device, const GArray *edges,
                  const OnyxRect *visible, GArray *slanted)
{
  double last[4] = { 0, 0, -1, -1 };

  for (guint i = 0; i < edges->len; i++)
    {
      const OnyxRect *e = &g_array_index (edges, OnyxRect, i);
      OnyxRect box = { MIN (e->x, e->x + e->width), MIN (e->y, e->y + e->height), fabs (e->width), fabs (e->height) };
      double p[4] = { e->x, e->y, e->x + e->width, e->y + e->height };
      if (!rects_meet (&box, visible))
        continue;
      cairo_matrix_transform_point (to_device, &p[0], &p[1]);
      cairo_matrix_transform_point (to_device, &p[2], &p[3]);
      /* Through pixel centres, so that a one-pixel line covers whole pixels. */
      for (guint k = 0; k < 4; k++)
        p[k] = floor (p[k]) + 0.5;
      if (memcmp (p, last, sizeof p) == 0)
        continue;
      memcpy (last, p, sizeof p);
      if (p[0] == p[2] || p[1] == p[3])
        cairo_rectangle (cr, MIN (p[0], p[2]) - 0.5, MIN (p[1], p[3]) - 0.5, fabs (p[2] - p[0]) + 1,
                         fabs (p[3] - p[1]) + 1);
      else
        g_array_append_vals (slanted, p, 4);
    }
}

static void
draw_coarse (cairo_t *cr, const OnyxLayout *layout, const OnyxRenderIndex *index, const OnyxRect *visible,
             const OnyxRenderOptions *options)
{
  g_autoptr (GArray) slanted = g_array_new (FALSE, FALSE, sizeof (double));
  cairo_matrix_t to_device;

  /* Groups, then edges, then nodes by category: one fill or stroke each, in device
   * pixels and without antialiasing (boxes of a few pixels gain nothing from it,
   * and it costs most). */
  cairo_save (cr);
  cairo_get_matrix (cr, &to_device);
  cairo_identity_matrix (cr);
  cairo_new_path (cr);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  cairo_set_source_rgba (cr, 0.45, 0.52, 0.65, options->dark ? 0.3 : 0.15);
  path_pixel_boxes (cr, &to_device, index->coarse_boxes[COARSE_GROUPS], visible);
  cairo_fill (cr);
  cairo_set_source_rgb (cr, 0.5, 0.5, 0.55);
  path_pixel_edges (cr, &to_device, index->coarse_edges, visible, slanted);
  cairo_fill (cr);
  for (guint i = 0; i + 3 < slanted->len; i += 4)
    {
      cairo_move_to (cr, g_array_index (slanted, double, i), g_array_index (slanted, double, i + 1));
      cairo_line_to (cr, g_array_index (slanted, double, i + 2), g_array_index (slanted, double, i + 3));
    }
  cairo_set_line_width (cr, 1.0);
  cairo_stroke (cr);
  for (guint slot = 1; slot < N_COARSE_SLOTS; slot++)
    {
      const Colour *colour = &onyx_render_category_colours[slot - 1];
      path_pixel_boxes (cr, &to_device, index->coarse_boxes[slot], visible);
      cairo_set_source_rgb (cr, colour->r, colour->g, colour->b);
      cairo_fill (cr);
    }
  cairo_restore (cr);
  /* Selection and hover still show. */
  for (guint k = 0; k < 2; k++)
    {
      int selected = k == 0 ? options->selected : options->hovered;
      if (selected < 0 || (guint) selected >= layout->nodes->len)
        continue;
      const OnyxRect *box = &g_array_index (layout->nodes, OnyxLayoutNode, selected).box;
      cairo_rectangle (cr, box->x, box->y, box->width, box->height);
      cairo_set_source_rgb (cr, 0.21, 0.52, 0.89);
      cairo_set_line_width (cr, 3.0 / options->scale);
      cairo_stroke (cr);
    }
}

void
onyx_render_draw (cairo_t *cr, const OnyxLayout *layout, const OnyxRenderIndex *index,
                  const OnyxRect *visible, const OnyxRenderOptions *options)
{
  g_autoptr (GArray) entries = NULL;

  if (onyx_render_is_coarse (options->scale))
    {
      draw_coarse (cr, layout, index, visible, options);
      return;
    }
  entries = index_query (index, visible);
  draw_detailed (cr, layout, entries, options);
}

gboolean
onyx_render_is_coarse (double scale)
{
  return scale < MIN_DETAIL_SCALE;
}

void
onyx_render_cache_area (const OnyxRect *visible, OnyxRect *area)
{
  area->x = visible->x - visible->width / 4;
  area->y = visible->y - visible->height / 4;
  area->width = visible->width * 1.5;
  area->height = visible->height * 1.5;
}

cairo_surface_t *
onyx_render_picture (const OnyxLayout *layout, const OnyxRenderIndex *index, const OnyxRect *area,
                     const OnyxRenderOptions *options, double device_scale)
{
  double pixels_per_point = options->scale * device_scale;
  double x = round (area->x * pixels_per_point), y = round (area->y * pixels_per_point);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32,
                                                         (int) ceil (area->width * pixels_per_point),
                                                         (int) ceil (area->height * pixels_per_point));
  cairo_t *cr = cairo_create (surface);

  cairo_translate (cr, -x, -y);
  cairo_scale (cr, pixels_per_point, pixels_per_point);
  onyx_render_draw (cr, layout, index, area, options);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  return surface;
}

void
onyx_render_warm_up (void)
{
  static const char *const fonts[] = { FONT_BOLD, FONT_SMALL };
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 8, 8);
  cairo_t *cr = cairo_create (surface);
  PangoLayout *pango = pango_cairo_create_layout (cr);

  onyx_layout_text_context_setup (pango_layout_get_context (pango));
  pango_layout_context_changed (pango);
  /* What operators, attributes and shapes are written with. */
  pango_layout_set_text (pango, "ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz 0123456789 "
                                "[](){}<>=+-*/_.,:;'\"#%&|?!@ ×–…·→↔", -1);
  for (guint f = 0; f < G_N_ELEMENTS (fonts); f++)
    {
      PangoFontDescription *font = pango_font_description_from_string (fonts[f]);
      pango_layout_set_font_description (pango, font);
      pango_font_description_free (font);
      pango_cairo_show_layout (cr, pango);
    }
  g_object_unref (pango);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

/* Returns how many texts were cut short to fit. */
static guint
draw_detailed (cairo_t *cr, const OnyxLayout *layout, GArray *entries,
                           const OnyxRenderOptions *options)
{
  Painter p = { cr, pango_cairo_create_layout (cr), pango_font_description_from_string (FONT_BOLD),
                pango_font_description_from_string (FONT_SMALL), options, options->scale >= MIN_TEXT_SCALE };
  const OnyxRenderPalette *palette = onyx_render_palette (options->dark);

  onyx_layout_text_context_setup (pango_layout_get_context (p.pango));
  pango_layout_context_changed (p.pango);
  p.fg = palette->fg, p.body = palette->body, p.line = palette->line, p.muted = palette->muted;
  p.outer_body = palette->outer_body, p.palette = palette;

  g_array_sort (entries, compare_ints);
  /* Order: edges (negative entries, sorted first), then nodes from outer to inner
   * groups (the layout lists a group before its contents); groups under edges. */
  for (guint pass = 0; pass < 3; pass++)
    for (guint i = 0; i < entries->len; i++)
      {
        int entry = g_array_index (entries, int, i);
        if (entry < 0)
          {
            if (pass == 1)
              draw_edge (&p, &g_array_index (layout->edges, OnyxLayoutEdge, -entry - 1), -entry - 1);
            continue;
          }
        const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, entry);
        if (node->kind == ONYX_LAYOUT_GROUP)
          {
            if (pass == 0)
              draw_group (&p, node, entry);
          }
        else if (pass == 2)
          {
            if (node->kind == ONYX_LAYOUT_OP)
              draw_op (&p, node, entry);
            else
              draw_value (&p, node, entry);
          }
      }
  pango_font_description_free (p.bold);
  pango_font_description_free (p.small);
  g_object_unref (p.pango);
  return p.n_cut;
}

int
onyx_render_edge_hit_test (const OnyxLayout *layout, const OnyxRenderIndex *index, double x, double y,
                           double tolerance)
{
  OnyxRect around = { x - tolerance, y - tolerance, 2 * tolerance, 2 * tolerance };
  g_autoptr (GArray) entries = index_query (index, &around);
  int best = -1;
  double best_distance = tolerance;

  for (guint i = 0; i < entries->len; i++)
    {
      int entry = g_array_index (entries, int, i);
      const GArray *pts;
      if (entry >= 0)
        continue;
      pts = g_array_index (layout->edges, OnyxLayoutEdge, -entry - 1).points;
      /* Distance to the control polygon, sampled: close enough for picking. */
      for (guint p = 0; p + 3 < pts->len; p += 2)
        {
          double ax = g_array_index (pts, double, p), ay = g_array_index (pts, double, p + 1);
          double bx = g_array_index (pts, double, p + 2), by = g_array_index (pts, double, p + 3);
          double vx = bx - ax, vy = by - ay, len2 = vx * vx + vy * vy;
          double t = len2 > 0 ? CLAMP (((x - ax) * vx + (y - ay) * vy) / len2, 0, 1) : 0;
          double d = hypot (ax + t * vx - x, ay + t * vy - y);
          if (d <= best_distance)
            best_distance = d, best = -entry - 1;
        }
    }
  return best;
}

int
onyx_render_mark_hit_test (const OnyxLayout *layout, const OnyxRenderIndex *index, double x, double y)
{
  OnyxRect around = { x, y, 0, 0 };
  g_autoptr (GArray) entries = index_query (index, &around);

  for (guint i = 0; i < entries->len; i++)
    {
      int entry = g_array_index (entries, int, i);
      const OnyxLayoutEdge *edge;
      if (entry >= 0)
        continue;
      edge = &g_array_index (layout->edges, OnyxLayoutEdge, -entry - 1);
      if (edge->mark != NULL && edge->mark_box.width >= 0 && x >= edge->mark_box.x &&
          x <= edge->mark_box.x + edge->mark_box.width && y >= edge->mark_box.y &&
          y <= edge->mark_box.y + edge->mark_box.height)
        return -entry - 1;
    }
  return -1;
}

int
onyx_render_line_hit_test (const OnyxLayout *layout, int node, double x, double y)
{
  const OnyxLayoutNode *n;
  double row;

  if (node < 0 || (guint) node >= layout->nodes->len)
    return -1;
  n = &g_array_index (layout->nodes, OnyxLayoutNode, node);
  if (n->kind != ONYX_LAYOUT_OP || x < n->box.x || x > n->box.x + n->box.width)
    return -1;
  row = floor ((y - onyx_render_first_line_y (n)) / LINE_PITCH);
  return row >= 0 && row < n->lines->len ? (int) row : -1;
}

guint
onyx_render_count_cut_texts (const OnyxLayout *layout, double scale)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create (surface);
  g_autoptr (OnyxRenderIndex) index = onyx_render_index_new (layout);
  g_autoptr (GArray) entries = index_query (index, &layout->bounds);
  OnyxRenderOptions options;
  guint n_cut;

  onyx_render_options_init (&options);
  options.scale = MAX (scale, MIN_TEXT_SCALE);
  cairo_scale (cr, scale, scale);
  cairo_translate (cr, -layout->bounds.x, -layout->bounds.y);
  n_cut = draw_detailed (cr, layout, entries, &options);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  return n_cut;
}

