/* onyx-layout-test-util.h: what the layout tests ask of a layout: run it, find a box,
 * an edge between two boxes, a line of a box, count boxes of a kind. */
#pragma once

#include <glib.h>

#include "onyx-layout.h"

static inline OnyxLayout *
test_lay_out (OnyxLayoutEngine *engine, OnyxExpandMode mode)
{
  g_autoptr (GHashTable) expanded = onyx_layout_engine_expansion (engine, mode, NULL, NULL);
  OnyxLayout *layout = onyx_layout_engine_run (engine, expanded, NULL, NULL, NULL);
  g_assert_nonnull (layout);
  return layout;
}

static inline guint
test_count_kind (const OnyxLayout *layout, OnyxLayoutKind kind)
{
  guint n = 0;
  for (guint i = 0; i < layout->nodes->len; i++)
    n += g_array_index (layout->nodes, OnyxLayoutNode, i).kind == kind;
  return n;
}

/* The box of that kind and title; fails the test when there is none. */
static inline int
test_find_node (const OnyxLayout *layout, OnyxLayoutKind kind, const char *title)
{
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      if (node->kind == kind && g_strcmp0 (node->title, title) == 0)
        return (int) i;
    }
  g_error ("no box %s of kind %d", title, kind);
  return -1;
}

/* The edge between two boxes, or NULL. */
static inline const OnyxLayoutEdge *
test_find_edge (const OnyxLayout *layout, int from, int to)
{
  for (guint e = 0; e < layout->edges->len; e++)
    {
      const OnyxLayoutEdge *edge = &g_array_index (layout->edges, OnyxLayoutEdge, e);
      if (edge->from == from && edge->to == to)
        return edge;
    }
  return NULL;
}

/* Which of the box's lines is `line`, or -1. */
static inline int
test_line_of (const OnyxLayoutNode *node, const char *line)
{
  for (guint i = 0; i < node->lines->len; i++)
    if (g_strcmp0 (node->lines->pdata[i], line) == 0)
      return (int) i;
  return -1;
}

static inline gboolean
test_has_line (const OnyxLayoutNode *node, const char *line)
{
  return test_line_of (node, line) >= 0;
}
