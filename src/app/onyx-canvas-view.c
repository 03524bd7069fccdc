/* onyx-canvas-view.c: where the canvas looks when a graph opens or is fitted; plain
 * geometry over the layout, apart from the widget. */
#include "onyx-canvas-private.h"

#define FIT_MAX_SCALE 1.5
/* A graph that fits at ONYX_CANVAS_READABLE_SCALE or more is shown whole when it opens, a bigger
 * one at 100 %. */
#define VIEW_MARGIN 20.0      /* widget pixels around a fitted graph, above the inputs */

static double
fit_scale (const OnyxLayout *layout, int width, int height)
{
  const OnyxRect *b = &layout->bounds;

  return CLAMP (MIN ((width - 2 * VIEW_MARGIN) / MAX (b->width, 1.0),
                     (height - 2 * VIEW_MARGIN) / MAX (b->height, 1.0)),
                ONYX_CANVAS_MIN_SCALE, FIT_MAX_SCALE);
}

void
onyx_canvas_view_fit (const OnyxLayout *layout, int width, int height, double *scale, double *ox, double *oy)
{
  const OnyxRect *b = &layout->bounds;

  *scale = fit_scale (layout, width, height);
  *ox = b->x + b->width / 2 - width / 2.0 / *scale;
  *oy = b->y + b->height / 2 - height / 2.0 / *scale;
}

/* Grows `acc` (empty while its width is negative) to hold `r`. */
static void
rect_add (OnyxRect *acc, const OnyxRect *r)
{
  double x1 = r->x + r->width, y1 = r->y + r->height;

  if (acc->width >= 0)
    {
      x1 = MAX (x1, acc->x + acc->width), y1 = MAX (y1, acc->y + acc->height);
      acc->x = MIN (acc->x, r->x), acc->y = MIN (acc->y, r->y);
    }
  else
    acc->x = r->x, acc->y = r->y;
  acc->width = x1 - acc->x, acc->height = y1 - acc->y;
}

/* Where a graph starts: its input boxes (and a subgraph's outer names); without
 * any, the boxes level with the topmost one. Expanded groups are frames, not boxes. */
static void
first_view_anchor (const OnyxLayout *layout, OnyxRect *anchor)
{
  const OnyxRect *top = NULL;
  gboolean has_inputs;

  *anchor = (OnyxRect) { 0, 0, -1, -1 };
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *n = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      if (n->kind == ONYX_LAYOUT_INPUT || n->kind == ONYX_LAYOUT_OUTER)
        rect_add (anchor, &n->box);
      else if (!(n->kind == ONYX_LAYOUT_GROUP && n->expanded) && (top == NULL || n->box.y < top->y))
        top = &n->box;
    }
  has_inputs = anchor->width >= 0;
  for (guint i = 0; !has_inputs && top != NULL && i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *n = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      if (!(n->kind == ONYX_LAYOUT_GROUP && n->expanded) && n->box.y < top->y + top->height)
        rect_add (anchor, &n->box);
    }
  if (anchor->width < 0)
    *anchor = layout->bounds;
}

/* A graph too big to read whole starts at its inputs, at 100 %, centred on them, or
 * from their left edge when they are wider than the view. As in Netron's scrolled
 * view, a graph wider than the view fills it: inputs near one side of a wide graph
 * do not leave half the view empty. */
void
onyx_canvas_view_first (const OnyxLayout *layout, int width, int height, double *scale, double *ox, double *oy)
{
  const OnyxRect *b = &layout->bounds;
  OnyxRect anchor;
  double margin, view_width;

  if (fit_scale (layout, width, height) >= ONYX_CANVAS_READABLE_SCALE)
    {
      onyx_canvas_view_fit (layout, width, height, scale, ox, oy);
      return;
    }
  *scale = 1.0;
  margin = VIEW_MARGIN / *scale;
  view_width = width / *scale;
  first_view_anchor (layout, &anchor);
  if (anchor.width + 2 * margin <= view_width)
    *ox = anchor.x + anchor.width / 2 - view_width / 2;
  else
    *ox = anchor.x - margin;
  /* Never moves the inputs' left edge out: when they are wider than the view they
   * start at most `margin` right of the layout's left edge. */
  if (b->width + 2 * margin > view_width)
    *ox = CLAMP (*ox, b->x - margin, b->x + b->width + margin - view_width);
  *oy = anchor.y - margin;
}
