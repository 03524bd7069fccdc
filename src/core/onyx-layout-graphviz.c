/* onyx-layout-graphviz.c: dot run on one group's input (what onyx-layout-dot.c
 * gathers: boxes, lines, ports), under the process-wide Graphviz lock, and the text
 * of that input that keys the disk cache. The ports of an open group are cells of an
 * HTML label on its box, where its parent's lines end; lines through ports weigh
 * nothing in where boxes go, edges not drawn tie the boxes instead. */
#include "onyx-layout-private.h"

#include <graphviz/gvc.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

extern gvplugin_library_t gvplugin_dot_layout_LTX_library;
extern gvplugin_library_t gvplugin_core_LTX_library;

static const lt_symlist_t builtin_plugins[] = {
  { "gvplugin_dot_layout_LTX_library", &gvplugin_dot_layout_LTX_library },
  { "gvplugin_core_LTX_library", &gvplugin_core_LTX_library },
  { 0, 0 },
};

static GMutex gvc_lock;
static GVC_t *gvc;

typedef struct {
  const char *name, *value;
} Setting;

static const Setting graph_settings[] = {
  { "rankdir", "TB" }, { "nodesep", "0.25" }, { "ranksep", "0.35" },
};
/* Big levels: fewer crossing-minimisation and network-simplex passes. */
#define BIG_LEVEL_NODES 150
static const Setting big_level_settings[] = {
  { "mclimit", "0.3" }, { "nslimit", "2" }, { "nslimit1", "2" },
};
static const Setting node_settings[] = {
  { "shape", "box" }, { "fixedsize", "true" }, { "label", "" }, { "width", "1" }, { "height", "0.5" },
};

/* dot places boxes so that their edges run straight: a line to a port far from its
 * box's centre shifts the box sideways, and a chain of groups (96 layers, each left
 * at its right and entered at its left) would become a staircase thousands of points
 * wide. So a line through a port weighs nothing (in where boxes go, and in their
 * ranks), and an edge not drawn ties its boxes' centres instead, as the line would
 * without ports. A box joined to no other (a graph input read in one group) cannot
 * pass a shift on: its lines keep their weight, and it goes where they run straight. */
#define TIED_LINE_WEIGHT "0"
/* Every other edge's weight: four times that of an edge keeping an order (the room
 * kept for a group's title, onyx-layout-dot.c), which then yields where it is at odds
 * with them. */
#define LINE_WEIGHT "4"
#define ORDER_WEIGHT "1"

/* An edge label dot makes room for: a fixed-size empty HTML table (what <…> holds in a
 * DOT file), sized in whole points. Given the text, dot would size it by its own
 * estimates of a font. */
static char *
label_html (guint width, guint height)
{
  return g_strdup_printf ("<TABLE FIXEDSIZE=\"TRUE\" WIDTH=\"%u\" HEIGHT=\"%u\" BORDER=\"0\" "
                          "CELLBORDER=\"0\" CELLPADDING=\"0\" CELLSPACING=\"0\"><TR><TD></TD></TR></TABLE>",
                          width, height);
}

void
onyx_layout_add_inches (GPtrArray *inches, double points)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  /* Rounded up: a box a hair narrower than its measured text would cut the text. */
  g_ptr_array_add (inches, g_strdup (g_ascii_formatd (buf, sizeof buf, "%.3f", ceil (points / 72.0 * 1000 - 1e-6) / 1000)));
}

guint
onyx_layout_n_boxes (const DotInput *input)
{
  return input->inches->len / 2;
}

/* Whether the group has ports: its rows of ports are rank sets, which dot's first
 * ranking (Graphviz 2.43) lays out with edges it never frees, a few hundred bytes a
 * run; its newer ranking, chosen by newrank, frees them. */
static gboolean
has_ports (const DotInput *input)
{
  for (guint i = 0; i < input->roles->len; i++)
    if (g_array_index (input->roles, BoxRole, i) != BOX_CHILD)
      return TRUE;
  return FALSE;
}

static gboolean
is_big_level (const DotInput *input)
{
  guint n_children = 0;
  for (guint i = 0; i < input->roles->len; i++)
    n_children += g_array_index (input->roles, BoxRole, i) == BOX_CHILD;
  return n_children > BIG_LEVEL_NODES;
}

void
onyx_layout_port_cells_free (PortCells *cells)
{
  if (cells == NULL)
    return;
  g_array_unref (cells->in_x);
  g_array_unref (cells->out_x);
  g_hash_table_unref (cells->in);
  g_hash_table_unref (cells->out);
  g_free (cells);
}

/* Whole points of a size given to dot in inches: a label as big as the box. */
static guint
whole_points (const char *inches)
{
  return (guint) floor (g_ascii_strtod (inches, NULL) * 72.0 + 1e-6);
}

/* Sorts one row of cells, keeps them apart and inside the box, and indexes them. */
static void
place_cells (GArray *lefts, GPtrArray *tensors, guint width, GArray *row, GHashTable *index)
{
  g_autofree guint *order = g_new (guint, MAX (lefts->len, 1));
  guint at = 0;

  for (guint i = 0; i < lefts->len; i++)
    order[i] = i;
  /* Few ports: a plain insertion sort by place. */
  for (guint i = 1; i < lefts->len; i++)
    for (guint j = i; j > 0 && g_array_index (lefts, double, order[j]) < g_array_index (lefts, double, order[j - 1]); j--)
      {
        guint swap = order[j];
        order[j] = order[j - 1];
        order[j - 1] = swap;
      }
  for (guint i = 0; i < lefts->len; i++)
    {
      double wanted = round (g_array_index (lefts, double, order[i]));
      guint left = (guint) CLAMP (wanted, (double) at, MAX ((double) width - PORT_SIZE, (double) at));
      g_array_append_val (row, left);
      g_hash_table_insert (index, tensors->pdata[order[i]], GUINT_TO_POINTER (row->len));
      at = left + (guint) PORT_SIZE;
    }
}

PortCells *
onyx_layout_port_cells_new (GroupLayout *inner, const char *width_inches, const char *height_inches)
{
  PortCells *cells = g_new0 (PortCells, 1);
  double node_width = g_ascii_strtod (width_inches, NULL) * 72.0;
  g_autoptr (GArray) in_lefts = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) out_lefts = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GPtrArray) in_tensors = g_ptr_array_new ();
  g_autoptr (GPtrArray) out_tensors = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer key, value;
  double offset;

  cells->width = whole_points (width_inches);
  cells->height = whole_points (height_inches);
  cells->in_x = g_array_new (FALSE, FALSE, sizeof (guint));
  cells->out_x = g_array_new (FALSE, FALSE, sizeof (guint));
  /* Keys stay owned by `inner`, which the run holds. */
  cells->in = g_hash_table_new (g_str_hash, g_str_equal);
  cells->out = g_hash_table_new (g_str_hash, g_str_equal);
  /* The label is centred on the box: its left is half the rounding in. */
  offset = onyx_layout_inner_offset (node_width, inner->width) - (node_width - cells->width) / 2;
  g_hash_table_iter_init (&iter, inner->child_boxes);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const OnyxRect *box = value;
      gboolean in = g_str_has_prefix (key, IN_PORT_PREFIX);
      double left = offset + box->x + box->width / 2 - PORT_SIZE / 2;
      if (!in && !g_str_has_prefix (key, OUT_PORT_PREFIX))
        continue;
      g_array_append_val (in ? in_lefts : out_lefts, left);
      g_ptr_array_add (in ? in_tensors : out_tensors, (char *) key + strlen (IN_PORT_PREFIX));
    }
  place_cells (in_lefts, in_tensors, cells->width, cells->in_x, cells->in);
  place_cells (out_lefts, out_tensors, cells->width, cells->out_x, cells->out);
  return cells;
}

#define HTML_TABLE "<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLPADDING=\"0\" CELLSPACING=\"0\">"

static void
append_cell (GString *out, const char *port, guint index, guint width, guint height)
{
  g_string_append (out, "<TD");
  if (port != NULL)
    g_string_append_printf (out, " PORT=\"%s%u\"", port, index);
  g_string_append_printf (out, " FIXEDSIZE=\"TRUE\" WIDTH=\"%u\" HEIGHT=\"%u\"></TD>", width, height);
}

/* A row of the label one point high: its port cells ("i0"…) between spacers. */
static void
append_port_row (GString *out, const GArray *lefts, const char *port, guint width)
{
  guint at = 0;

  g_string_append (out, "<TR><TD>" HTML_TABLE "<TR>");
  for (guint i = 0; i < lefts->len; i++)
    {
      guint left = g_array_index (lefts, guint, i);
      if (left > at)
        append_cell (out, NULL, 0, left - at, 1);
      append_cell (out, port, i, (guint) PORT_SIZE, 1);
      at = left + (guint) PORT_SIZE;
    }
  if (width > at)
    append_cell (out, NULL, 0, width - at, 1);
  g_string_append (out, "</TR></TABLE></TD></TR>");
}

/* The HTML label of an open group's box: in-port cells on its top row, out-port cells
 * on its bottom row, spacer rows between (a size in HTML is at most 65535 points). */
static char *
ports_html (const PortCells *cells)
{
  GString *out = g_string_new (HTML_TABLE);

  append_port_row (out, cells->in_x, "i", cells->width);
  for (guint left = cells->height > 2 ? cells->height - 2 : 0; left > 0;)
    {
      guint rows = MIN (left, 60000);
      g_string_append (out, "<TR>");
      append_cell (out, NULL, 0, cells->width, rows);
      g_string_append (out, "</TR>");
      left -= rows;
    }
  append_port_row (out, cells->out_x, "o", cells->width);
  g_string_append (out, "</TABLE>");
  return g_string_free (out, FALSE);
}

char *
onyx_layout_dot_describe (const DotInput *input)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (graph_settings); i++)
    g_string_append_printf (out, "graph %s=%s\n", graph_settings[i].name, graph_settings[i].value);
  for (guint i = 0; is_big_level (input) && i < G_N_ELEMENTS (big_level_settings); i++)
    g_string_append_printf (out, "graph %s=%s\n", big_level_settings[i].name, big_level_settings[i].value);
  if (has_ports (input))
    g_string_append (out, "graph newrank=true\n");
  for (guint i = 0; i < G_N_ELEMENTS (node_settings); i++)
    g_string_append_printf (out, "node %s=%s\n", node_settings[i].name, node_settings[i].value);
  g_string_append (out, "edge weight=" LINE_WEIGHT "\n");
  g_string_append_printf (out, "boxes %u\n", onyx_layout_n_boxes (input));
  for (guint i = 0; i < onyx_layout_n_boxes (input); i++)
    {
      const PortCells *cells = input->cells->pdata[i];
      BoxRole role = g_array_index (input->roles, BoxRole, i);
      g_string_append_printf (out, "%s %s", (char *) input->inches->pdata[2 * i],
                              (char *) input->inches->pdata[2 * i + 1]);
      if (role != BOX_CHILD)
        g_string_append (out, role == BOX_IN_PORT ? " port in" : " port out");
      if (cells != NULL)
        {
          g_string_append_printf (out, " cells %u %u in", cells->width, cells->height);
          for (guint k = 0; k < cells->in_x->len; k++)
            g_string_append_printf (out, " %u", g_array_index (cells->in_x, guint, k));
          g_string_append (out, " out");
          for (guint k = 0; k < cells->out_x->len; k++)
            g_string_append_printf (out, " %u", g_array_index (cells->out_x, guint, k));
        }
      g_string_append_c (out, '\n');
    }
  g_string_append_printf (out, "edges %u\n", input->pairs->len / 2);
  for (guint e = 0; e + 1 < input->pairs->len; e += 2)
    {
      int from_cell = g_array_index (input->edge_ports, int, e), to_cell = g_array_index (input->edge_ports, int, e + 1);
      g_string_append_printf (out, "%u %u label %u %u", g_array_index (input->pairs, guint, e),
                              g_array_index (input->pairs, guint, e + 1), g_array_index (input->label_sizes, guint, e),
                              g_array_index (input->label_sizes, guint, e + 1));
      if (from_cell >= 0 || to_cell >= 0)
        g_string_append_printf (out, " cells %d %d", from_cell, to_cell);
      if (g_array_index (input->tied, gboolean, e / 2))
        g_string_append (out, " tied");
      g_string_append_c (out, '\n');
    }
  if (input->ties->len > 0)
    g_string_append_printf (out, "ties %u, tied lines weigh %s\n", input->ties->len / 2, TIED_LINE_WEIGHT);
  for (guint t = 0; t + 1 < input->ties->len; t += 2)
    g_string_append_printf (out, "%u %u\n", g_array_index (input->ties, guint, t), g_array_index (input->ties, guint, t + 1));
  if (input->orders->len > 0)
    g_string_append_printf (out, "orders %u\n", input->orders->len / 2);
  for (guint t = 0; t + 1 < input->orders->len; t += 2)
    g_string_append_printf (out, "%u %u\n", g_array_index (input->orders, guint, t),
                            g_array_index (input->orders, guint, t + 1));
  return g_string_free (out, FALSE);
}

DotResult *
onyx_layout_dot_run (const DotInput *input)
{
  guint n = onyx_layout_n_boxes (input), n_edges = input->pairs->len / 2;
  DotResult *result = onyx_layout_dot_result_new (n);
  g_autofree Agnode_t **agnodes = g_new0 (Agnode_t *, MAX (n, 1));
  g_autofree Agedge_t **agedges = g_new0 (Agedge_t *, MAX (n_edges, 1));
  g_autofree char *saved_locale = NULL;
  Agraph_t *graph;
  boxf bb;

  g_mutex_lock (&gvc_lock);
  /* dot prints and parses numbers: keep the C decimal point whatever the locale. */
  saved_locale = g_strdup (setlocale (LC_NUMERIC, NULL));
  setlocale (LC_NUMERIC, "C");
  if (gvc == NULL)
    gvc = gvContextPlugins (builtin_plugins, 0);
  graph = agopen ((char *) "g", Agdirected, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (graph_settings); i++)
    agattr (graph, AGRAPH, (char *) graph_settings[i].name, (char *) graph_settings[i].value);
  for (guint i = 0; is_big_level (input) && i < G_N_ELEMENTS (big_level_settings); i++)
    agattr (graph, AGRAPH, (char *) big_level_settings[i].name, (char *) big_level_settings[i].value);
  for (guint i = 0; i < G_N_ELEMENTS (node_settings); i++)
    agattr (graph, AGNODE, (char *) node_settings[i].name, (char *) node_settings[i].value);
  agattr (graph, AGEDGE, (char *) "weight", (char *) LINE_WEIGHT);
  if (has_ports (input))
    agattr (graph, AGRAPH, (char *) "newrank", (char *) "true");
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *id = g_strdup_printf ("n%u", i);
      const PortCells *cells = input->cells->pdata[i];
      BoxRole role = g_array_index (input->roles, BoxRole, i);
      agnodes[i] = agnode (graph, id, 1);
      agsafeset (agnodes[i], (char *) "width", input->inches->pdata[2 * i], "");
      agsafeset (agnodes[i], (char *) "height", input->inches->pdata[2 * i + 1], "");
      if (cells != NULL)
        {
          g_autofree char *html = ports_html (cells);
          char *label = agstrdup_html (graph, html);
          agsafeset (agnodes[i], (char *) "label", label, "");
          agstrfree (graph, label);
        }
      if (role != BOX_CHILD)
        {
          /* The group's ports: its top row, or its bottom row. */
          Agraph_t *row = agsubg (graph, role == BOX_IN_PORT ? (char *) "in_ports" : (char *) "out_ports", 1);
          agsafeset (row, (char *) "rank", role == BOX_IN_PORT ? (char *) "min" : (char *) "max", "");
          agsubnode (row, agnodes[i], 1);
        }
    }
  for (guint e = 0; e < n_edges; e++)
    {
      guint label_width = g_array_index (input->label_sizes, guint, 2 * e);
      int from_cell = g_array_index (input->edge_ports, int, 2 * e), to_cell = g_array_index (input->edge_ports, int, 2 * e + 1);
      agedges[e] = agedge (graph, agnodes[g_array_index (input->pairs, guint, 2 * e)],
                           agnodes[g_array_index (input->pairs, guint, 2 * e + 1)], NULL, 1);
      if (g_array_index (input->tied, gboolean, e))
        agsafeset (agedges[e], (char *) "weight", (char *) TIED_LINE_WEIGHT, LINE_WEIGHT);
      if (from_cell >= 0)
        {
          g_autofree char *port = g_strdup_printf ("o%d:s", from_cell);
          agsafeset (agedges[e], (char *) "tailport", port, "");
        }
      if (to_cell >= 0)
        {
          g_autofree char *port = g_strdup_printf ("i%d:n", to_cell);
          agsafeset (agedges[e], (char *) "headport", port, "");
        }
      if (label_width > 0)
        {
          g_autofree char *html = label_html (label_width, g_array_index (input->label_sizes, guint, 2 * e + 1));
          /* agstrdup_html marks the string as an HTML label. */
          char *label = agstrdup_html (graph, html);
          agsafeset (agedges[e], (char *) "label", label, "");
          agstrfree (graph, label);
        }
    }
  for (guint t = 0; t + 1 < input->ties->len; t += 2)
    {
      Agedge_t *tie = agedge (graph, agnodes[g_array_index (input->ties, guint, t)],
                              agnodes[g_array_index (input->ties, guint, t + 1)], NULL, 1);
      agsafeset (tie, (char *) "style", (char *) "invis", "");
    }
  for (guint t = 0; t + 1 < input->orders->len; t += 2)
    {
      Agedge_t *order = agedge (graph, agnodes[g_array_index (input->orders, guint, t)],
                                agnodes[g_array_index (input->orders, guint, t + 1)], NULL, 1);
      /* (dot keeps no order of flat edges weighing nothing.) */
      agsafeset (order, (char *) "style", (char *) "invis", "");
      agsafeset (order, (char *) "weight", (char *) ORDER_WEIGHT, LINE_WEIGHT);
    }
  gvLayout (gvc, graph, "dot");

  bb = GD_bb (graph);
  result->width = bb.UR.x - bb.LL.x;
  result->height = bb.UR.y - bb.LL.y;
  for (guint i = 0; i < n; i++)
    {
      OnyxRect box;
      /* dot keeps sizes in inches: 106 points come back as 105.99999…, and text
       * measured at 86 points would no longer fit. */
      box.width = round (ND_width (agnodes[i]) * 72.0 * 100) / 100;
      box.height = round (ND_height (agnodes[i]) * 72.0 * 100) / 100;
      box.x = ND_coord (agnodes[i]).x - bb.LL.x - box.width / 2;
      box.y = bb.UR.y - ND_coord (agnodes[i]).y - box.height / 2;
      g_array_append_val (result->boxes, box);
    }
  for (guint e = 0; e < n_edges; e++)
    {
      GArray *points = g_array_new (FALSE, FALSE, sizeof (double));
      splines *spl = ED_spl (agedges[e]);
      if (spl != NULL && spl->size > 0)
        {
          bezier *curve = &spl->list[0];
          for (int p = 0; p < curve->size; p++)
            {
              double x = curve->list[p].x - bb.LL.x, y = bb.UR.y - curve->list[p].y;
              g_array_append_val (points, x);
              g_array_append_val (points, y);
            }
          if (curve->eflag)
            {
              /* The curve stops short of the arrow tip: end it at the tip. */
              double x = curve->ep.x - bb.LL.x, y = bb.UR.y - curve->ep.y;
              double lx = g_array_index (points, double, points->len - 2);
              double ly = g_array_index (points, double, points->len - 1);
              double c1x = lx + (x - lx) / 3, c1y = ly + (y - ly) / 3;
              double c2x = lx + 2 * (x - lx) / 3, c2y = ly + 2 * (y - ly) / 3;
              g_array_append_val (points, c1x);
              g_array_append_val (points, c1y);
              g_array_append_val (points, c2x);
              g_array_append_val (points, c2y);
              g_array_append_val (points, x);
              g_array_append_val (points, y);
            }
        }
      g_ptr_array_add (result->splines, points);
      {
        textlabel_t *label = ED_label (agedges[e]);
        OnyxRect box = { 0, 0, -1, -1 };
        if (label != NULL && label->set)
          {
            box.width = g_array_index (input->label_sizes, guint, 2 * e);
            box.height = g_array_index (input->label_sizes, guint, 2 * e + 1);
            box.x = label->pos.x - bb.LL.x - box.width / 2;
            box.y = bb.UR.y - label->pos.y - box.height / 2;
          }
        g_array_append_val (result->labels, box);
      }
    }
  gvFreeLayout (gvc, graph);
  agclose (graph);
  setlocale (LC_NUMERIC, saved_locale);
  g_mutex_unlock (&gvc_lock);
  return result;
}

void
onyx_layout_tie_lines (DotInput *input)
{
  guint n_lines = input->pairs->len / 2;
  g_autofree guint *n_neighbours = g_new0 (guint, MAX (onyx_layout_n_boxes (input), 1));
  g_autoptr (GHashTable) joined = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autofree gint64 *pair_ids = g_new (gint64, MAX (n_lines, 1));

  for (guint e = 0; e < n_lines; e++)
    {
      guint from = g_array_index (input->pairs, guint, 2 * e), to = g_array_index (input->pairs, guint, 2 * e + 1);
      pair_ids[e] = (gint64) MIN (from, to) << 32 | MAX (from, to);
      if (g_hash_table_add (joined, &pair_ids[e]))
        {
          n_neighbours[from]++;
          n_neighbours[to]++;
        }
    }
  g_hash_table_remove_all (joined);
  g_array_set_size (input->tied, n_lines);
  for (guint e = 0; e < n_lines; e++)
    {
      guint from = g_array_index (input->pairs, guint, 2 * e), to = g_array_index (input->pairs, guint, 2 * e + 1);
      gboolean tied = (g_array_index (input->edge_ports, int, 2 * e) >= 0 ||
                       g_array_index (input->edge_ports, int, 2 * e + 1) >= 0) &&
                      n_neighbours[from] > 1 && n_neighbours[to] > 1;
      g_array_index (input->tied, gboolean, e) = tied;
      if (tied && g_hash_table_add (joined, &pair_ids[e]))
        {
          g_array_append_val (input->ties, from);
          g_array_append_val (input->ties, to);
        }
    }
}

void
onyx_layout_dot_input_clear (DotInput *input)
{
  g_ptr_array_unref (input->inches);
  g_array_unref (input->pairs);
  g_array_unref (input->label_sizes);
  g_array_unref (input->roles);
  g_ptr_array_unref (input->cells);
  g_array_unref (input->edge_ports);
  g_array_unref (input->tied);
  g_array_unref (input->ties);
  g_array_unref (input->orders);
}
