/* onyx-layout-check.h: what a laid-out graph's edges run through, for the tests.
 *
 * An edge's points (OnyxLayoutEdge.points) are cubic Bézier pieces; each is cut into
 * short segments, as the curve is drawn, and each segment is checked against every
 * box: an edge crosses a box when one of its segments passes through the box shrunk by
 * CHECK_TOLERANCE (a curve leaving its own box, or grazing a neighbour's border, does
 * not count). The boxes are those that are not an end of the edge: op and value
 * boxes, closed groups and stubs, and open groups holding neither of its ends (an
 * edge may cross the frame of a group it enters or leaves). One crossing is one pair
 * of an edge and a box, however many of its segments pass through the box. */
#pragma once

#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "onyx-layout.h"

/* Points: a curve passing this close to a box's border does not cross it. */
#define CHECK_TOLERANCE 2.0
/* Segments each cubic piece is cut into. */
#define CHECK_PIECE_STEPS 16

typedef struct {
  guint edges;            /* edges checked */
  guint segments;         /* segments of their curves checked */
  guint boxes;            /* crossings of op and value boxes, closed groups and stubs */
  guint groups;           /* crossings of open groups holding neither end */
} TestCrossings;

/* Whether the segment (x0, y0)–(x1, y1) passes through `box` shrunk by CHECK_TOLERANCE
 * (Liang–Barsky clipping). */
static inline gboolean
test_segment_crosses (double x0, double y0, double x1, double y1, const OnyxRect *box)
{
  double left = box->x + CHECK_TOLERANCE, right = box->x + box->width - CHECK_TOLERANCE;
  double top = box->y + CHECK_TOLERANCE, bottom = box->y + box->height - CHECK_TOLERANCE;
  double dx = x1 - x0, dy = y1 - y0, enter = 0, leave = 1;
  double p[4] = { -dx, dx, -dy, dy }, q[4] = { x0 - left, right - x0, y0 - top, bottom - y0 };

  if (left >= right || top >= bottom)
    return FALSE;
  for (int i = 0; i < 4; i++)
    {
      if (p[i] == 0)
        {
          if (q[i] < 0)
            return FALSE;
          continue;
        }
      double t = q[i] / p[i];
      if (p[i] < 0)
        enter = MAX (enter, t);
      else
        leave = MIN (leave, t);
      if (enter > leave)
        return FALSE;
    }
  return TRUE;
}

/* The point at `t` of the cubic piece starting at point `first` of `points`. */
static inline void
test_cubic_point (const GArray *points, guint first, double t, double *x, double *y)
{
  const double *p = &g_array_index (points, double, 2 * first);
  double u = 1 - t, a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, d = t * t * t;

  *x = a * p[0] + b * p[2] + c * p[4] + d * p[6];
  *y = a * p[1] + b * p[3] + c * p[5] + d * p[7];
}

/* Whether box `node` counts against `edge`: not one of its ends, nor an open group
 * around one of them. */
static inline gboolean
test_box_in_the_way (const OnyxLayout *layout, const OnyxLayoutEdge *edge, int node)
{
  const OnyxLayoutNode *box = &g_array_index (layout->nodes, OnyxLayoutNode, node);

  if (node == edge->from || node == edge->to)
    return FALSE;
  if (box->kind == ONYX_LAYOUT_GROUP && box->expanded)
    return !onyx_layout_is_within (layout, edge->from, node) && !onyx_layout_is_within (layout, edge->to, node);
  return TRUE;
}

/* The boxes by where they lie: a grid of CHECK_CELL-point cells, each listing the
 * nodes whose box meets it, so that a segment is checked against its neighbours only. */
#define CHECK_CELL 128.0

typedef struct {
  guint columns, rows;
  GArray **cells;         /* int node indices, per cell; NULL when none */
} TestBoxGrid;

static inline guint
test_grid_cell (double v, guint n)
{
  return (guint) CLAMP (floor (v / CHECK_CELL), 0, (double) n - 1);
}

static inline void
test_box_grid_init (TestBoxGrid *grid, const OnyxLayout *layout)
{
  grid->columns = (guint) ceil (MAX (layout->bounds.width, 1) / CHECK_CELL);
  grid->rows = (guint) ceil (MAX (layout->bounds.height, 1) / CHECK_CELL);
  grid->cells = g_new0 (GArray *, (gsize) grid->columns * grid->rows);
  for (guint n = 0; n < layout->nodes->len; n++)
    {
      const OnyxRect *box = &g_array_index (layout->nodes, OnyxLayoutNode, n).box;
      int node = (int) n;
      for (guint row = test_grid_cell (box->y, grid->rows); row <= test_grid_cell (box->y + box->height, grid->rows); row++)
        for (guint column = test_grid_cell (box->x, grid->columns);
             column <= test_grid_cell (box->x + box->width, grid->columns); column++)
          {
            GArray **cell = &grid->cells[(gsize) row * grid->columns + column];
            if (*cell == NULL)
              *cell = g_array_new (FALSE, FALSE, sizeof (int));
            g_array_append_val (*cell, node);
          }
    }
}

static inline void
test_box_grid_clear (TestBoxGrid *grid)
{
  for (gsize i = 0; i < (gsize) grid->columns * grid->rows; i++)
    if (grid->cells[i] != NULL)
      g_array_unref (grid->cells[i]);
  g_free (grid->cells);
}

/* Notes node `n` crossed by segment (x0, y0)–(x1, y1) of `edge`, once per edge. */
static inline void
test_check_segment (const OnyxLayout *layout, const OnyxLayoutEdge *edge, int n, const double segment[4],
                    gboolean *crossed, TestCrossings *counts, FILE *report, const char *what)
{
  const OnyxLayoutNode *box = &g_array_index (layout->nodes, OnyxLayoutNode, n);
  gboolean group = box->kind == ONYX_LAYOUT_GROUP && box->expanded;

  if (crossed[n] || !test_segment_crosses (segment[0], segment[1], segment[2], segment[3], &box->box) ||
      !test_box_in_the_way (layout, edge, n))
    return;
  crossed[n] = TRUE;
  if (group)
    counts->groups++;
  else
    counts->boxes++;
  if (report != NULL)
    fprintf (report, "%s: %s → %s (%s) crosses %s%s\n", what,
             g_array_index (layout->nodes, OnyxLayoutNode, edge->from).title,
             g_array_index (layout->nodes, OnyxLayoutNode, edge->to).title,
             edge->tensor != NULL ? edge->tensor : "", group ? "the group " : "", box->title);
}

/* Adds the crossings of `layout` to `counts`; with `report` set, prints each one there
 * (`what`: the model or graph). */
static inline void
test_count_crossings (const OnyxLayout *layout, TestCrossings *counts, FILE *report, const char *what)
{
  TestBoxGrid grid;
  g_autofree gboolean *crossed = g_new0 (gboolean, MAX (layout->nodes->len, 1));

  test_box_grid_init (&grid, layout);
  for (guint e = 0; e < layout->edges->len; e++)
    {
      const OnyxLayoutEdge *edge = &g_array_index (layout->edges, OnyxLayoutEdge, e);
      guint n_points = edge->points->len / 2;

      memset (crossed, 0, sizeof (gboolean) * layout->nodes->len);
      counts->edges++;
      for (guint first = 0; first + 3 < n_points; first += 3)
        for (guint step = 0; step < CHECK_PIECE_STEPS; step++)
          {
            double segment[4];
            test_cubic_point (edge->points, first, (double) step / CHECK_PIECE_STEPS, &segment[0], &segment[1]);
            test_cubic_point (edge->points, first, (double) (step + 1) / CHECK_PIECE_STEPS, &segment[2], &segment[3]);
            counts->segments++;
            for (guint row = test_grid_cell (MIN (segment[1], segment[3]), grid.rows);
                 row <= test_grid_cell (MAX (segment[1], segment[3]), grid.rows); row++)
              for (guint column = test_grid_cell (MIN (segment[0], segment[2]), grid.columns);
                   column <= test_grid_cell (MAX (segment[0], segment[2]), grid.columns); column++)
                {
                  GArray *cell = grid.cells[(gsize) row * grid.columns + column];
                  for (guint i = 0; cell != NULL && i < cell->len; i++)
                    test_check_segment (layout, edge, g_array_index (cell, int, i), segment, crossed, counts,
                                        report, what);
                }
          }
    }
  test_box_grid_clear (&grid);
}
