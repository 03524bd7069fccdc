/* onyx-layout-dot.c: one group laid out. Its children (items and subgroup boxes) and
 * the edges between them go to dot, under the process-wide Graphviz lock; the boxes
 * and splines read back are cached in the engine under the group's contents and
 * expansion, and on disk under the text of dot's input (onyx-layout-cache.c). */
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
  /* A chain of single-child groups is shown as its last group (or its only item); a
   * folded stack's member as the stack. */
  return onyx_layout_subgroup_key (run, child);
}

/* Which of the children of `group` stands for each item: the index of its key, or -1
 * (outside the group). Items filed under one subgroup share their box, so child_key
 * runs once per scope group, not once per edge. */
typedef struct {
  Run *run;
  Group *group;
  GHashTable *key_index;    /* child key → index */
  GHashTable *of_subgroup;  /* an item's Group → index, for items not directly in `group` */
} ChildIndex;

static int
child_index (ChildIndex *children, int item)
{
  Group *filed_under = g_array_index (children->run->engine->items, Item, item).group;
  g_autofree char *key = NULL;
  gpointer index;
  int found;

  if (filed_under != children->group && g_hash_table_lookup_extended (children->of_subgroup, filed_under, NULL, &index))
    return GPOINTER_TO_INT (index);
  key = child_key (children->run, children->group, item);
  found = key != NULL && g_hash_table_lookup_extended (children->key_index, key, NULL, &index) ? GPOINTER_TO_INT (index) : -1;
  if (filed_under != children->group)
    g_hash_table_insert (children->of_subgroup, filed_under, GINT_TO_POINTER (found));
  return found;
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
        /* No narrower than its header: "network.0 · Linear · 2 nodes" over one column. */
        *width = inner != NULL ? MAX (inner->width + 2 * GROUP_PADDING, group->open_min_width)
                               : group->collapsed_width;
        *height = inner != NULL ? inner->height + GROUP_PADDING + GROUP_HEADER : group->collapsed_height;
      }
    else
      {
        *width = group->collapsed_width;
        *height = group->collapsed_height;
      }
  }
}

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

/* What dot is given for one group: boxes by position, edges as position pairs with
 * the room their labels take. */
typedef struct {
  GPtrArray *inches;        /* char*: width, height of each box, as dot reads them */
  GArray *pairs;            /* guint from, to per edge */
  GArray *label_sizes;      /* guint width, height per edge, in points; 0, 0 for no label */
} DotInput;

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

static void
add_inches (GPtrArray *inches, double points)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  /* Rounded up: a box a hair narrower than its measured text would cut the text. */
  g_ptr_array_add (inches, g_strdup (g_ascii_formatd (buf, sizeof buf, "%.3f", ceil (points / 72.0 * 1000 - 1e-6) / 1000)));
}

static guint
n_boxes (const DotInput *input)
{
  return input->inches->len / 2;
}

static gboolean
is_big_level (const DotInput *input)
{
  return n_boxes (input) > BIG_LEVEL_NODES;
}

/* The canonical text of all that dot is given: the disk cache's key. */
static char *
describe (const DotInput *input)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (graph_settings); i++)
    g_string_append_printf (out, "graph %s=%s\n", graph_settings[i].name, graph_settings[i].value);
  for (guint i = 0; is_big_level (input) && i < G_N_ELEMENTS (big_level_settings); i++)
    g_string_append_printf (out, "graph %s=%s\n", big_level_settings[i].name, big_level_settings[i].value);
  for (guint i = 0; i < G_N_ELEMENTS (node_settings); i++)
    g_string_append_printf (out, "node %s=%s\n", node_settings[i].name, node_settings[i].value);
  g_string_append_printf (out, "boxes %u\n", n_boxes (input));
  for (guint i = 0; i < n_boxes (input); i++)
    g_string_append_printf (out, "%s %s\n", (char *) input->inches->pdata[2 * i],
                            (char *) input->inches->pdata[2 * i + 1]);
  g_string_append_printf (out, "edges %u\n", input->pairs->len / 2);
  for (guint e = 0; e + 1 < input->pairs->len; e += 2)
    g_string_append_printf (out, "%u %u label %u %u\n", g_array_index (input->pairs, guint, e),
                            g_array_index (input->pairs, guint, e + 1), g_array_index (input->label_sizes, guint, e),
                            g_array_index (input->label_sizes, guint, e + 1));
  return g_string_free (out, FALSE);
}

/* Runs dot on one group's input and returns the boxes and splines, relative to the
 * group's content origin. */
static DotResult *
dot_layout (Run *run, const DotInput *input)
{
  guint n = n_boxes (input), n_edges = input->pairs->len / 2;
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
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *id = g_strdup_printf ("n%u", i);
      agnodes[i] = agnode (graph, id, 1);
      agsafeset (agnodes[i], (char *) "width", input->inches->pdata[2 * i], "");
      agsafeset (agnodes[i], (char *) "height", input->inches->pdata[2 * i + 1], "");
    }
  for (guint e = 0; e < n_edges; e++)
    {
      guint label_width = g_array_index (input->label_sizes, guint, 2 * e);
      agedges[e] = agedge (graph, agnodes[g_array_index (input->pairs, guint, 2 * e)],
                           agnodes[g_array_index (input->pairs, guint, 2 * e + 1)], NULL, 1);
      if (label_width > 0)
        {
          g_autofree char *html = label_html (label_width, g_array_index (input->label_sizes, guint, 2 * e + 1));
          /* agstrdup_html marks the string as an HTML label. */
          char *label = agstrdup_html (graph, html);
          agsafeset (agedges[e], (char *) "label", label, "");
          agstrfree (graph, label);
        }
    }
  gvLayout (gvc, graph, "dot");
  run->n_dot_runs++;

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

/* The group layout of dot's result: boxes under the children's keys, edges joining
 * keys and carrying the tensors of `carried` (one ItemEdge per pair). */
static GroupLayout *
group_layout_new (GPtrArray *keys, const DotInput *input, GPtrArray *carried, const DotResult *result)
{
  GroupLayout *layout = onyx_layout_group_layout_new ();

  layout->width = result->width;
  layout->height = result->height;
  layout->bytes = sizeof *layout;
  for (guint i = 0; i < keys->len; i++)
    {
      /* Besides the box and its key: the hash table's share. */
      layout->bytes += sizeof (OnyxRect) + strlen (keys->pdata[i]) + 1 + 4 * sizeof (gpointer);
      g_hash_table_insert (layout->child_boxes, g_strdup (keys->pdata[i]),
                           g_memdup2 (&g_array_index (result->boxes, OnyxRect, i), sizeof (OnyxRect)));
    }
  for (guint e = 0; e < carried->len; e++)
    {
      const ItemEdge *item_edge = carried->pdata[e];
      GArray *points = result->splines->pdata[e];
      LevelEdge edge = { g_strdup (keys->pdata[g_array_index (input->pairs, guint, 2 * e)]),
                         g_strdup (keys->pdata[g_array_index (input->pairs, guint, 2 * e + 1)]),
                         g_strdup (item_edge->tensor), g_array_copy (points), item_edge->implicit,
                         g_array_index (result->labels, OnyxRect, e) };
      layout->bytes += sizeof edge + strlen (edge.from_key) + strlen (edge.to_key) +
                       (edge.tensor != NULL ? strlen (edge.tensor) : 0) + points->len * sizeof (double) + 64;
      g_array_append_val (layout->edges, edge);
    }
  return layout;
}

/* Keeps `layout` (a reference the run now owns) alive until the run ends. */
static GroupLayout *
hold (Run *run, GroupLayout *layout)
{
  g_ptr_array_add (run->held, layout);
  return layout;
}

/* The child index of the stub of key `key` (taken), `width` wide: made on first use. */
static int
stub_child (GPtrArray *keys, GPtrArray *inches, GHashTable *key_index, char *key, double width)
{
  gpointer index;

  if (g_hash_table_lookup_extended (key_index, key, NULL, &index))
    {
      g_free (key);
      return GPOINTER_TO_INT (index);
    }
  add_inches (inches, width);
  add_inches (inches, STUB_HEIGHT);
  g_ptr_array_add (keys, key);
  g_hash_table_insert (key_index, key, GUINT_TO_POINTER (keys->len - 1));
  return (int) keys->len - 1;
}

/* The stub standing for `neighbour`, a member of the stack shown. */
static int
member_stub (GPtrArray *keys, GPtrArray *inches, GHashTable *key_index, Group *neighbour, gboolean from)
{
  return stub_child (keys, inches, key_index, onyx_layout_stub_key (neighbour, from), neighbour->stub_width[from]);
}

/* The stub standing for `source`, which many read far apart. */
static int
fanout_stub (GPtrArray *keys, GPtrArray *inches, GHashTable *key_index, const Item *source)
{
  return stub_child (keys, inches, key_index, g_strconcat (FANOUT_STUB_PREFIX, source->fanout_label, NULL),
                     source->stub_width);
}

/* Whether child `key` is an open group, which lays its own contents out. */
static gboolean
opens_inside (Run *run, const char *key)
{
  Group *group = key[0] == 'g' ? g_hash_table_lookup (run->engine->groups, key + 2) : NULL;
  return group != NULL && onyx_layout_is_open (run, group);
}

static GroupLayout *lay_out (Run *run, Group *group, Group *as_member);

static gboolean
is_marked (OnyxLayoutEngine *engine, const ItemEdge *edge)
{
  return edge->tensor != NULL && g_hash_table_contains (engine->marks, edge->tensor);
}

GroupLayout *
onyx_layout_group (Run *run, Group *group)
{
  /* An open stack shows its member, with stubs for its neighbours. */
  if (group->members != NULL)
    {
      Group *shown = onyx_layout_stack_drawn (run, group);
      return lay_out (run, onyx_layout_effective_group (shown), shown);
    }
  return lay_out (run, group, NULL);
}

/* Lays `group` out; `as_member`: the member of a folded stack it shows (itself or
 * the group it is shown as), whose edges to and from the other members end at stubs. */
static GroupLayout *
lay_out (Run *run, Group *group, Group *as_member)
{
  g_autoptr (GString) key = g_string_new (NULL);
  g_autoptr (GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) inches = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) key_index = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) of_subgroup = g_hash_table_new (NULL, NULL);
  g_autoptr (GHashTable) seen_pairs = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autofree gint64 *pair_ids = g_new (gint64, MAX (run->engine->edges->len, 1));
  ChildIndex children = { run, group, key_index, of_subgroup };
  g_autoptr (GArray) pairs = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) label_sizes = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GPtrArray) carried = g_ptr_array_new (); /* per pair: the ItemEdge it shows */
  g_autoptr (DotResult) result = NULL;
  g_autofree char *disk_key = NULL;
  DotInput input = { inches, pairs, label_sizes };
  GroupLayout *layout;

  /* Folding changes the items, and so the hash, already; the flags keep the cached
   * layouts of a group apart even if their hashes met. */
  g_string_append_printf (key, "%s|%08x|%c%c|%s", group->path, group->hash, run->engine->fold_constants ? 'f' : 'u',
                          run->engine->fold_quant ? 'q' : 'u', as_member != NULL ? "member|" : "");
  onyx_layout_expansion_signature (run, group, key);
  /* Children: the group's own items, then its subgroups. */
  for (guint i = 0; i < group->items->len; i++)
    g_ptr_array_add (keys, g_strdup_printf ("i:%d", g_array_index (group->items, int, i)));
  layout = onyx_layout_memory_cache_lookup (run->engine, key->str);
  if (layout != NULL)
    {
      GroupLayout *renumbered;
      guint found = 0;
      while (found < keys->len && g_hash_table_contains (layout->child_boxes, keys->pdata[found]))
        found++;
      if (found == keys->len)
        return hold (run, layout);
      /* The same contents, renumbered by an edit before them. */
      renumbered = onyx_layout_group_layout_renumbered (layout, keys);
      onyx_layout_group_layout_unref (layout);
      if (renumbered != NULL)
        {
          onyx_layout_memory_cache_insert (run->engine, key->str, renumbered);
          return hold (run, renumbered);
        }
    }
  if (g_cancellable_is_cancelled (run->cancellable))
    return NULL;

  {
    g_autoptr (GPtrArray) visible = onyx_layout_visible_subgroups (run, group);
    for (guint i = 0; i < visible->len; i++)
      g_ptr_array_add (keys, onyx_layout_subgroup_key (run, visible->pdata[i]));
  }
  for (guint i = 0; i < keys->len; i++)
    {
      double width, height;
      child_size (run, keys->pdata[i], &width, &height);
      if (g_cancellable_is_cancelled (run->cancellable))
        return NULL;
      add_inches (inches, width);
      add_inches (inches, height);
      g_hash_table_insert (key_index, keys->pdata[i], GUINT_TO_POINTER (i));
    }
  for (guint e = 0; e < run->engine->edges->len; e++)
    {
      const ItemEdge *edge = &g_array_index (run->engine->edges, ItemEdge, e);
      const Item *source = &g_array_index (run->engine->items, Item, edge->from);
      int from = child_index (&children, edge->from), to = -1;
      gint64 *pair = &pair_ids[carried->len];
      gpointer seen;
      if (source->fanout_label != NULL && edge->to != source->fanout_first &&
          (to = child_index (&children, edge->to)) >= 0 && to != child_index (&children, source->fanout_first))
        {
          /* A reader far from what it reads, which many read: a stub beside it here,
           * or inside the open group holding it. */
          if (opens_inside (run, keys->pdata[to]))
            continue;
          if (from < 0)
            from = fanout_stub (keys, inches, key_index, source);
        }
      if (from < 0 && as_member == NULL)
        continue;
      if (to < 0)
        to = child_index (&children, edge->to);
      if (as_member != NULL && (from < 0) != (to < 0))
        {
          /* From or to another member of the stack: a stub standing for it. */
          Group *neighbour = onyx_layout_member_around (
            g_array_index (run->engine->items, Item, from < 0 ? edge->from : edge->to).group);
          if (neighbour == NULL || neighbour->stack != as_member->stack || neighbour == as_member)
            continue;
          if (from < 0)
            from = member_stub (keys, inches, key_index, neighbour, TRUE);
          else
            to = member_stub (keys, inches, key_index, neighbour, FALSE);
        }
      if (from < 0 || to < 0 || from == to)
        continue;
      *pair = (gint64) from << 32 | (guint) to;
      if (g_hash_table_lookup_extended (seen_pairs, pair, NULL, &seen))
        {
          /* One line per pair of boxes: solid when any of its edges is a real input,
           * marked when any passed a folded quantization. */
          const ItemEdge *kept = carried->pdata[GPOINTER_TO_UINT (seen)];
          if (!edge->implicit && (kept->implicit || (!is_marked (run->engine, kept) && is_marked (run->engine, edge))))
            carried->pdata[GPOINTER_TO_UINT (seen)] = (gpointer) edge;
          continue;
        }
      g_hash_table_insert (seen_pairs, pair, GUINT_TO_POINTER (carried->len));
      guint ia = (guint) from, ib = (guint) to;
      g_array_append_val (pairs, ia);
      g_array_append_val (pairs, ib);
      g_ptr_array_add (carried, (gpointer) edge);
    }
  /* Each line's label is that of the edge it shows (chosen above). */
  for (guint e = 0; e < carried->len; e++)
    {
      const EdgeLabel *label = onyx_layout_edge_label (run->engine, ((const ItemEdge *) carried->pdata[e])->tensor);
      guint size[2] = { label != NULL ? (guint) ceil (label->width) : 0, label != NULL ? (guint) ceil (label->height) : 0 };
      g_array_append_vals (label_sizes, size, 2);
    }

  if (run->engine->disk_cache != NULL)
    {
      g_autofree char *text = describe (&input);
      disk_key = onyx_layout_disk_cache_key (text);
      result = onyx_layout_disk_cache_load (run->engine->disk_cache, disk_key, keys->len, carried->len);
      run->n_disk_hits += result != NULL;
    }
  if (result == NULL)
    {
      result = dot_layout (run, &input);
      if (disk_key != NULL)
        onyx_layout_disk_cache_store (run->engine->disk_cache, disk_key, result);
    }
  layout = group_layout_new (keys, &input, carried, result);
  run->n_done += keys->len;
  if (run->progress != NULL && run->n_total > 0)
    run->progress (MIN (1.0, (double) run->n_done / run->n_total), run->progress_data);
  onyx_layout_memory_cache_insert (run->engine, key->str, layout);
  return hold (run, layout);
}
