/* onyx-layout-dot.c: one group laid out. Its children (items and subgroup boxes) and
 * the edges between them go to dot, under the process-wide Graphviz lock; the boxes
 * and splines read back are cached in the engine under the group's contents and
 * expansion. */
#include "onyx-layout-private.h"

#include <graphviz/gvc.h>
#include <locale.h>
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

void
onyx_layout_group_layout_free (GroupLayout *layout)
{
  g_hash_table_unref (layout->child_boxes);
  for (guint i = 0; i < layout->edges->len; i++)
    {
      LevelEdge *edge = &g_array_index (layout->edges, LevelEdge, i);
      g_free (edge->from_key);
      g_free (edge->to_key);
      g_free (edge->tensor);
      g_array_unref (edge->points);
    }
  g_array_unref (layout->edges);
  g_free (layout);
}

/* The key of the box that stands for `item` among the children of `group`, or NULL
 * when the item is outside the group. */
static char *
child_key (Run *run, Group *group, int item)
{
  const char *scope = g_array_index (run->engine->items, Item, item).scope;
  gsize len = strlen (group->path);
  const char *rest;
  Group *child;

  if (len > 0 && (!g_str_has_prefix (scope, group->path) || (scope[len] != '/' && scope[len] != '\0')))
    return NULL;
  rest = scope + len + (len > 0 && scope[len] == '/' ? 1 : 0);
  if (rest[0] == '\0')
    return g_strdup_printf ("i:%d", item);
  {
    const char *slash = strchr (rest, '/');
    g_autofree char *first = slash != NULL ? g_strndup (rest, slash - rest) : g_strdup (rest);
    g_autofree char *path = len > 0 ? g_strdup_printf ("%s/%s", group->path, first) : g_strdup (first);
    child = g_hash_table_lookup (run->engine->groups, path);
  }
  /* A chain of single-child groups is shown as its last group (or its only item). */
  return onyx_layout_subgroup_key (child);
}

static void
child_size (Run *run, const char *key, double *width, double *height)
{
  if (key[0] == 'i')
    {
      const Item *item = &g_array_index (run->engine->items, Item, atoi (key + 2));
      *width = item->width;
      *height = item->height;
      return;
    }
  {
    Group *group = g_hash_table_lookup (run->engine->groups, key + 2);
    if (onyx_layout_is_open (run, group))
      {
        GroupLayout *inner = onyx_layout_group (run, group);
        *width = inner != NULL ? inner->width + 2 * GROUP_PADDING : group->collapsed_width;
        *height = inner != NULL ? inner->height + GROUP_PADDING + GROUP_HEADER : group->collapsed_height;
      }
    else
      {
        *width = group->collapsed_width;
        *height = group->collapsed_height;
      }
  }
}

static void
set_inches (Agnode_t *node, const char *attribute, double points)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  agsafeset (node, (char *) attribute, g_ascii_formatd (buf, sizeof buf, "%.3f", points / 72.0), "");
}

/* Runs dot on the children of `group` and returns their boxes and the edges between
 * them, relative to the group's content origin. NULL when cancelled. */
static GroupLayout *
dot_layout (Run *run, Group *group, GPtrArray *keys, GHashTable *sizes, GArray *pairs, GPtrArray *carried)
{
  GroupLayout *layout = g_new0 (GroupLayout, 1);
  g_autoptr (GHashTable) agnodes = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree Agedge_t **agedges = g_new0 (Agedge_t *, MAX (pairs->len / 2, 1));
  g_autofree char *saved_locale = NULL;
  Agraph_t *graph;
  boxf bb;

  layout->child_boxes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  layout->edges = g_array_new (FALSE, FALSE, sizeof (LevelEdge));

  g_mutex_lock (&gvc_lock);
  /* dot prints and parses numbers: keep the C decimal point whatever the locale. */
  saved_locale = g_strdup (setlocale (LC_NUMERIC, NULL));
  setlocale (LC_NUMERIC, "C");
  if (gvc == NULL)
    gvc = gvContextPlugins (builtin_plugins, 0);
  graph = agopen ((char *) "g", Agdirected, NULL);
  agattr (graph, AGRAPH, (char *) "rankdir", (char *) "TB");
  agattr (graph, AGRAPH, (char *) "nodesep", (char *) "0.25");
  agattr (graph, AGRAPH, (char *) "ranksep", (char *) "0.35");
  if (keys->len > 150)
    {
      /* Big levels: fewer crossing-minimisation and network-simplex passes. */
      agattr (graph, AGRAPH, (char *) "mclimit", (char *) "0.3");
      agattr (graph, AGRAPH, (char *) "nslimit", (char *) "2");
      agattr (graph, AGRAPH, (char *) "nslimit1", (char *) "2");
    }
  agattr (graph, AGNODE, (char *) "shape", (char *) "box");
  agattr (graph, AGNODE, (char *) "fixedsize", (char *) "true");
  agattr (graph, AGNODE, (char *) "label", (char *) "");
  agattr (graph, AGNODE, (char *) "width", (char *) "1");
  agattr (graph, AGNODE, (char *) "height", (char *) "0.5");
  for (guint i = 0; i < keys->len; i++)
    {
      double *size = g_hash_table_lookup (sizes, keys->pdata[i]);
      g_autofree char *id = g_strdup_printf ("n%u", i);
      Agnode_t *node = agnode (graph, id, 1);
      set_inches (node, "width", size[0]);
      set_inches (node, "height", size[1]);
      g_hash_table_insert (agnodes, keys->pdata[i], node);
    }
  for (guint e = 0; e < pairs->len / 2; e++)
    agedges[e] = agedge (graph, g_hash_table_lookup (agnodes, keys->pdata[g_array_index (pairs, guint, 2 * e)]),
                         g_hash_table_lookup (agnodes, keys->pdata[g_array_index (pairs, guint, 2 * e + 1)]),
                         NULL, 1);
  gvLayout (gvc, graph, "dot");
  run->n_dot_runs++;

  bb = GD_bb (graph);
  layout->width = bb.UR.x - bb.LL.x;
  layout->height = bb.UR.y - bb.LL.y;
  for (guint i = 0; i < keys->len; i++)
    {
      Agnode_t *node = g_hash_table_lookup (agnodes, keys->pdata[i]);
      OnyxRect *box = g_new (OnyxRect, 1);
      box->width = ND_width (node) * 72.0;
      box->height = ND_height (node) * 72.0;
      box->x = ND_coord (node).x - bb.LL.x - box->width / 2;
      box->y = bb.UR.y - ND_coord (node).y - box->height / 2;
      g_hash_table_insert (layout->child_boxes, g_strdup (keys->pdata[i]), box);
    }
  for (guint e = 0; e < pairs->len / 2; e++)
    {
      const ItemEdge *item_edge = carried->pdata[e];
      LevelEdge edge = { g_strdup (keys->pdata[g_array_index (pairs, guint, 2 * e)]),
                         g_strdup (keys->pdata[g_array_index (pairs, guint, 2 * e + 1)]),
                         g_strdup (item_edge->tensor), g_array_new (FALSE, FALSE, sizeof (double)),
                         item_edge->implicit };
      splines *spl = ED_spl (agedges[e]);
      if (spl != NULL && spl->size > 0)
        {
          bezier *curve = &spl->list[0];
          for (int p = 0; p < curve->size; p++)
            {
              double x = curve->list[p].x - bb.LL.x, y = bb.UR.y - curve->list[p].y;
              g_array_append_val (edge.points, x);
              g_array_append_val (edge.points, y);
            }
          if (curve->eflag)
            {
              /* The curve stops short of the arrow tip: end it at the tip. */
              double x = curve->ep.x - bb.LL.x, y = bb.UR.y - curve->ep.y;
              double lx = g_array_index (edge.points, double, edge.points->len - 2);
              double ly = g_array_index (edge.points, double, edge.points->len - 1);
              double c1x = lx + (x - lx) / 3, c1y = ly + (y - ly) / 3;
              double c2x = lx + 2 * (x - lx) / 3, c2y = ly + 2 * (y - ly) / 3;
              g_array_append_val (edge.points, c1x);
              g_array_append_val (edge.points, c1y);
              g_array_append_val (edge.points, c2x);
              g_array_append_val (edge.points, c2y);
              g_array_append_val (edge.points, x);
              g_array_append_val (edge.points, y);
            }
        }
      g_array_append_val (layout->edges, edge);
    }
  gvFreeLayout (gvc, graph);
  agclose (graph);
  setlocale (LC_NUMERIC, saved_locale);
  g_mutex_unlock (&gvc_lock);
  return layout;
}

GroupLayout *
onyx_layout_group (Run *run, Group *group)
{
  g_autoptr (GString) key = g_string_new (NULL);
  g_autoptr (GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) sizes = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_autoptr (GHashTable) key_index = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) seen_pairs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GArray) pairs = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GPtrArray) carried = g_ptr_array_new (); /* per pair: the ItemEdge it shows */
  GroupLayout *layout;

  /* Folding changes the items, and so the hash, already; the flag keeps the two
   * cached layouts of a group apart even if their hashes met. */
  g_string_append_printf (key, "%s|%08x|%c|", group->path, group->hash, run->engine->fold_constants ? 'f' : 'u');
  onyx_layout_expansion_signature (run, group, key);
  g_mutex_lock (&run->engine->cache_lock);
  layout = g_hash_table_lookup (run->engine->cache, key->str);
  g_mutex_unlock (&run->engine->cache_lock);
  if (layout != NULL)
    return layout;
  if (g_cancellable_is_cancelled (run->cancellable))
    return NULL;

  /* Children: the group's own items, then its subgroups. */
  for (guint i = 0; i < group->items->len; i++)
    g_ptr_array_add (keys, g_strdup_printf ("i:%d", g_array_index (group->items, int, i)));
  for (guint i = 0; i < group->groups->len; i++)
    g_ptr_array_add (keys, onyx_layout_subgroup_key (group->groups->pdata[i]));
  for (guint i = 0; i < keys->len; i++)
    {
      double *size = g_new (double, 2);
      child_size (run, keys->pdata[i], &size[0], &size[1]);
      if (g_cancellable_is_cancelled (run->cancellable))
        {
          g_free (size);
          return NULL;
        }
      g_hash_table_insert (sizes, keys->pdata[i], size);
      g_hash_table_insert (key_index, keys->pdata[i], GUINT_TO_POINTER (i));
    }
  for (guint e = 0; e < run->engine->edges->len; e++)
    {
      const ItemEdge *edge = &g_array_index (run->engine->edges, ItemEdge, e);
      g_autofree char *from = child_key (run, group, edge->from);
      g_autofree char *to = child_key (run, group, edge->to);
      g_autofree char *pair = NULL;
      gpointer a, b, seen;
      if (from == NULL || to == NULL || strcmp (from, to) == 0 ||
          !g_hash_table_lookup_extended (key_index, from, NULL, &a) ||
          !g_hash_table_lookup_extended (key_index, to, NULL, &b))
        continue;
      pair = g_strdup_printf ("%s>%s", from, to);
      if (g_hash_table_lookup_extended (seen_pairs, pair, NULL, &seen))
        {
          /* One line per pair of boxes: solid when any of its edges is a real input. */
          if (!edge->implicit && ((const ItemEdge *) carried->pdata[GPOINTER_TO_UINT (seen)])->implicit)
            carried->pdata[GPOINTER_TO_UINT (seen)] = (gpointer) edge;
          continue;
        }
      g_hash_table_insert (seen_pairs, g_steal_pointer (&pair), GUINT_TO_POINTER (carried->len));
      guint ia = GPOINTER_TO_UINT (a), ib = GPOINTER_TO_UINT (b);
      g_array_append_val (pairs, ia);
      g_array_append_val (pairs, ib);
      g_ptr_array_add (carried, (gpointer) edge);
    }

  layout = dot_layout (run, group, keys, sizes, pairs, carried);
  run->n_done += keys->len;
  if (run->progress != NULL && run->n_total > 0)
    run->progress (MIN (1.0, (double) run->n_done / run->n_total), run->progress_data);
  g_mutex_lock (&run->engine->cache_lock);
  g_hash_table_replace (run->engine->cache, g_strdup (key->str), layout);
  g_mutex_unlock (&run->engine->cache_lock);
  return layout;
}
