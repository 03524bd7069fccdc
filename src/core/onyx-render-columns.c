/* onyx-render-columns.c: a picture far taller than wide cut into columns side by
 * side (onyx-render-file.c says when), each a band of the graph cut where no box or
 * label is, and the columns drawn. */
#include "onyx-render-private.h"

#include <math.h>

/* Between two columns, in layout points; a thin rule runs down its middle. */
#define GUTTER 48.0

typedef struct {
  double top, bottom;
} Span;

static int
compare_spans (gconstpointer a, gconstpointer b)
{
  const Span *x = a, *y = b;
  return x->top < y->top ? -1 : x->top > y->top;
}

/* Where a band may end: the middles of the vertical gaps between the boxes and labels
 * of `area`, in order. */
static GArray *
free_cuts (const OnyxLayout *layout, const OnyxRect *area)
{
  g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (Span));
  GArray *cuts = g_array_new (FALSE, FALSE, sizeof (double));
  double reach;

  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      /* An open group spans its contents: cutting through its frame is fine. */
      if (node->kind != ONYX_LAYOUT_GROUP || !node->expanded)
        g_array_append_vals (spans, &(Span) { node->box.y, node->box.y + node->box.height }, 1);
    }
  for (guint i = 0; i < layout->edges->len; i++)
    {
      const OnyxLayoutEdge *edge = &g_array_index (layout->edges, OnyxLayoutEdge, i);
      if ((edge->label != NULL || edge->mark != NULL) && edge->label_box.width > 0)
        g_array_append_vals (spans, &(Span) { edge->label_box.y, edge->label_box.y + edge->label_box.height }, 1);
    }
  g_array_sort (spans, compare_spans);
  reach = area->y;
  for (guint i = 0; i < spans->len; i++)
    {
      const Span *span = &g_array_index (spans, Span, i);
      if (span->top > reach)
        {
          double middle = (reach + span->top) / 2;
          g_array_append_val (cuts, middle);
        }
      reach = MAX (reach, span->bottom);
    }
  return cuts;
}

/* The free cut nearest `y` after `after`, or NAN. */
static double
nearest_cut (const GArray *cuts, double y, double after)
{
  double best = NAN;

  for (guint i = 0; i < cuts->len; i++)
    {
      double cut = g_array_index (cuts, double, i);
      if (cut > after && (isnan (best) || fabs (cut - y) < fabs (best - y)))
        best = cut;
    }
  return best;
}

GArray *
onyx_render_pieces (const OnyxLayout *layout, const OnyxRect *area, double max_height, double *width,
                    double *height)
{
  GArray *pieces = g_array_new (FALSE, FALSE, sizeof (OnyxRenderPiece));
  g_autoptr (GArray) cuts = NULL;
  guint n_columns;
  double top = area->y;

  *width = area->width;
  *height = area->height;
  if (area->height <= max_height || area->height <= 2 * area->width)
    {
      g_array_append_vals (pieces, &(OnyxRenderPiece) { *area, 0, 0 }, 1);
      return pieces;
    }
  /* About as wide as tall. */
  n_columns = (guint) ceil (sqrt (area->height / (area->width + GUTTER)));
  cuts = free_cuts (layout, area);
  for (guint c = 1; c <= n_columns; c++)
    {
      double bottom = c == n_columns ? area->y + area->height
                                     : nearest_cut (cuts, area->y + c * area->height / n_columns, top);
      OnyxRenderPiece piece;
      if (isnan (bottom) || bottom >= area->y + area->height)
        bottom = area->y + area->height;
      piece.source = (OnyxRect) { area->x, top, area->width, bottom - top };
      piece.x = pieces->len * (area->width + GUTTER);
      piece.y = 0;
      g_array_append_val (pieces, piece);
      top = bottom;
      if (bottom >= area->y + area->height)
        break;
    }
  *width = pieces->len * area->width + (pieces->len - 1) * GUTTER;
  *height = 0;
  for (guint i = 0; i < pieces->len; i++)
    *height = MAX (*height, g_array_index (pieces, OnyxRenderPiece, i).source.height);
  return pieces;
}

void
onyx_render_draw_pieces (cairo_t *cr, const OnyxLayout *layout, const OnyxRenderIndex *index,
                         const GArray *pieces, const OnyxRect *visible, const OnyxRenderOptions *options)
{
  for (guint i = 0; i < pieces->len; i++)
    {
      const OnyxRenderPiece *piece = &g_array_index (pieces, OnyxRenderPiece, i);
      OnyxRect seen = { visible->x - piece->x + piece->source.x, visible->y - piece->y + piece->source.y,
                        visible->width, visible->height };
      double x0 = MAX (seen.x, piece->source.x), y0 = MAX (seen.y, piece->source.y);
      double x1 = MIN (seen.x + seen.width, piece->source.x + piece->source.width);
      double y1 = MIN (seen.y + seen.height, piece->source.y + piece->source.height);

      if (x1 <= x0 || y1 <= y0)
        continue;
      cairo_save (cr);
      if (i > 0)
        {
          /* The rule between this column and the one before. */
          cairo_set_source_rgb (cr, 0.8, 0.8, 0.8);
          cairo_set_line_width (cr, 1);
          cairo_move_to (cr, piece->x - GUTTER / 2, 0);
          cairo_line_to (cr, piece->x - GUTTER / 2, piece->source.height);
          cairo_stroke (cr);
        }
      if (pieces->len > 1)
        {
          cairo_rectangle (cr, piece->x, piece->y, piece->source.width, piece->source.height);
          cairo_clip (cr);
        }
      cairo_translate (cr, piece->x - piece->source.x, piece->y - piece->source.y);
      onyx_render_draw (cr, layout, index, &seen, options);
      cairo_restore (cr);
    }
}
