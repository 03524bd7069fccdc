/* onyx-layout-dot.c: one group laid out. Its children (items and subgroup boxes), the
 * edges between them and its ports (where edges enter or leave it) go to dot
 * (onyx-layout-graphviz.c); the boxes and splines read back are cached in the engine
 * under the group's contents and expansion, and on disk under the text of dot's
 * input (onyx-layout-cache.c). */
#include "onyx-layout-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* The size of child `key`; for an open group, its layout too (else NULL). */
static GroupLayout *
child_size (Run *run, const char *key, double *width, double *height)
{
  if (key[0] == 'i')
    {
      const Item *item = &g_array_index (run->engine->items, Item, atoi (key + 2));
      *width = item->width;
      *height = item->height;
      return NULL;
    }
  {
    Group *group = g_hash_table_lookup (run->engine->groups, key + 2);
    GroupLayout *inner = onyx_layout_is_open (run, group) ? onyx_layout_group (run, group) : NULL;
    if (inner != NULL)
      {
        /* No narrower than its header: "network.0 · Linear · 2 nodes" over one column. */
        *width = MAX (inner->width + 2 * GROUP_PADDING, group->open_min_width);
        *height = inner->height + GROUP_PADDING + GROUP_HEADER;
      }
    else
      {
        *width = group->collapsed_width;
        *height = group->collapsed_height;
      }
    return inner;
  }
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
                         g_array_index (result->labels, OnyxRect, e),
                         g_array_index (input->edge_ports, int, 2 * e) >= 0,
                         g_array_index (input->edge_ports, int, 2 * e + 1) >= 0 };
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

/* The boxes of one group's dot input, by key. */
typedef struct {
  GPtrArray *keys;          /* char*, owned */
  GHashTable *key_index;    /* key → index */
  DotInput *input;
} Boxes;

static void
add_box (Boxes *boxes, char *key, double width, double height, BoxRole role, PortCells *cells)
{
  onyx_layout_add_inches (boxes->input->inches, width);
  onyx_layout_add_inches (boxes->input->inches, height);
  g_array_append_val (boxes->input->roles, role);
  g_ptr_array_add (boxes->input->cells, cells);
  g_ptr_array_add (boxes->keys, key);
  g_hash_table_insert (boxes->key_index, key, GUINT_TO_POINTER (boxes->keys->len - 1));
}

/* The index of the box of key `key` (taken), made on first use: a stub `width` wide,
 * or a port. */
static int
extra_box (Boxes *boxes, char *key, double width, double height, BoxRole role)
{
  gpointer index;

  if (g_hash_table_lookup_extended (boxes->key_index, key, NULL, &index))
    {
      g_free (key);
      return GPOINTER_TO_INT (index);
    }
  add_box (boxes, key, width, height, role, NULL);
  return (int) boxes->keys->len - 1;
}

/* The stub standing for `neighbour`, a member of the stack shown. */
static int
member_stub (Boxes *boxes, Group *neighbour, gboolean from)
{
  return extra_box (boxes, onyx_layout_stub_key (neighbour, from), neighbour->stub_width[from], STUB_HEIGHT, BOX_CHILD);
}

/* The stub standing for `source`, which many read far apart. */
static int
fanout_stub (Boxes *boxes, const Item *source)
{
  return extra_box (boxes, g_strconcat (FANOUT_STUB_PREFIX, source->fanout_label, NULL), source->stub_width,
                    STUB_HEIGHT, BOX_CHILD);
}

/* The group's own port where `tensor` enters (`in`) or leaves it. */
static int
port_box (Boxes *boxes, const char *tensor, gboolean in)
{
  return extra_box (boxes, g_strconcat (in ? IN_PORT_PREFIX : OUT_PORT_PREFIX, tensor, NULL), PORT_SIZE, PORT_SIZE,
                    in ? BOX_IN_PORT : BOX_OUT_PORT);
}

/* The cell of box `index` (an open group) where `tensor` leaves it (`in` FALSE) or
 * enters it, or -1 (its box itself: a stack showing another member than the one
 * reading or making it). */
static int
port_cell (const DotInput *input, guint index, const char *tensor, gboolean in)
{
  const PortCells *cells = input->cells->pdata[index];
  return cells != NULL && tensor != NULL ? GPOINTER_TO_INT (g_hash_table_lookup (in ? cells->in : cells->out, tensor)) - 1
                                         : -1;
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

/* One line per pair of boxes (and the ports it ends at): its index among the lines. */
typedef struct {
  guint from, to;
  int from_cell, to_cell;
} Line;

static guint
line_hash (gconstpointer key)
{
  const Line *line = key;
  return ((line->from * 31 + line->to) * 31 + (guint) line->from_cell) * 31 + (guint) line->to_cell;
}

static gboolean
line_equal (gconstpointer a, gconstpointer b)
{
  return memcmp (a, b, sizeof (Line)) == 0;
}

static void
index_item_edges (Run *run)
{
  GArray *edges = run->engine->edges;
  guint n_items = run->engine->items->len, *at;

  run->item_edges_start = g_new0 (guint, n_items + 1);
  run->item_edges = g_new (guint, MAX (2 * edges->len, 1));
  for (guint e = 0; e < edges->len; e++)
    {
      run->item_edges_start[g_array_index (edges, ItemEdge, e).from + 1]++;
      run->item_edges_start[g_array_index (edges, ItemEdge, e).to + 1]++;
    }
  for (guint t = 0; t < n_items; t++)
    run->item_edges_start[t + 1] += run->item_edges_start[t];
  at = g_memdup2 (run->item_edges_start, sizeof (guint) * n_items);
  for (guint e = 0; e < edges->len; e++)
    {
      run->item_edges[at[g_array_index (edges, ItemEdge, e).from]++] = e;
      run->item_edges[at[g_array_index (edges, ItemEdge, e).to]++] = e;
    }
  g_free (at);
}

static void
collect_item_edges (Run *run, Group *group, GArray *found)
{
  for (guint i = 0; i < group->items->len; i++)
    {
      int item = g_array_index (group->items, int, i);
      g_array_append_vals (found, &run->item_edges[run->item_edges_start[item]],
                           run->item_edges_start[item + 1] - run->item_edges_start[item]);
    }
  for (guint i = 0; i < group->groups->len; i++)
    collect_item_edges (run, group->groups->pdata[i], found);
}

static int
compare_uints (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;
  return (x > y) - (x < y);
}

/* The engine's edges with an end in `group` (at any depth), in the engine's order:
 * only those take part in its layout. */
static GArray *
edges_touching (Run *run, Group *group)
{
  GArray *found = g_array_new (FALSE, FALSE, sizeof (guint));
  guint kept = 0;

  if (run->item_edges_start == NULL)
    index_item_edges (run);
  collect_item_edges (run, group, found);
  g_array_sort (found, compare_uints);
  for (guint i = 0; i < found->len; i++)
    if (kept == 0 || g_array_index (found, guint, i) != g_array_index (found, guint, kept - 1))
      g_array_index (found, guint, kept++) = g_array_index (found, guint, i);
  g_array_set_size (found, kept);
  return found;
}

/* Keeps the in-ports of `framed`'s layout right of its title: a box as wide, left of
 * them in their row (the row the frame's edges enter by, under the title). */
static void
keep_title_room (Boxes *boxes, Group *framed)
{
  DotInput *input = boxes->input;
  guint n = onyx_layout_n_boxes (input), room;
  /* Where the title ends, from the frame's left: open_min_width is its header line
   * and 24 points, and it is drawn 8 points in (onyx-render.c). The children start at
   * least GROUP_PADDING in, and a port keeps nodesep (0.25 inch) from the room. */
  double title_end = framed->open_min_width - 24 + 8;
  double width = title_end + 4 - GROUP_PADDING - 0.25 * 72;

  if (width <= 0)
    return;
  for (guint i = 0; i < n; i++)
    if (g_array_index (input->roles, BoxRole, i) == BOX_IN_PORT)
      {
        if (!g_hash_table_contains (boxes->key_index, TITLE_ROOM_KEY))
          add_box (boxes, g_strdup (TITLE_ROOM_KEY), width, PORT_SIZE, BOX_IN_PORT, NULL);
        room = GPOINTER_TO_UINT (g_hash_table_lookup (boxes->key_index, TITLE_ROOM_KEY));
        g_array_append_val (input->orders, room);
        g_array_append_val (input->orders, i);
      }
}

/* Lays `group` out; `as_member`: the member of a folded stack it shows (itself or
 * the group it is shown as), whose edges to and from the other members end at stubs. */
static GroupLayout *
lay_out (Run *run, Group *group, Group *as_member)
{
  g_autoptr (GString) key = g_string_new (NULL);
  g_autoptr (GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) key_index = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) of_subgroup = g_hash_table_new (NULL, NULL);
  g_autoptr (GHashTable) seen_lines = g_hash_table_new_full (line_hash, line_equal, g_free, NULL);
  ChildIndex children = { run, group, key_index, of_subgroup };
  g_autoptr (GPtrArray) carried = g_ptr_array_new (); /* per pair: the ItemEdge it shows */
  g_autoptr (DotResult) result = NULL;
  g_autofree char *disk_key = NULL;
  g_auto (DotInput) input = { g_ptr_array_new_with_free_func (g_free), g_array_new (FALSE, FALSE, sizeof (guint)),
                              g_array_new (FALSE, FALSE, sizeof (guint)), g_array_new (FALSE, FALSE, sizeof (BoxRole)),
                              g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_layout_port_cells_free),
                              g_array_new (FALSE, FALSE, sizeof (int)), g_array_new (FALSE, FALSE, sizeof (gboolean)),
                              g_array_new (FALSE, FALSE, sizeof (guint)), g_array_new (FALSE, FALSE, sizeof (guint)) };
  Boxes boxes = { keys, key_index, &input };
  g_autoptr (GArray) touching = NULL;
  guint n_children, n_ports = 0;
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
  /* add_box appends to `keys`: take the children out first. */
  n_children = keys->len;
  {
    g_autofree char **child_keys = (char **) g_ptr_array_steal (keys, NULL);
    g_ptr_array_set_free_func (keys, g_free);
    for (guint i = 0; i < n_children; i++)
      {
        double width, height;
        GroupLayout *inner = child_size (run, child_keys[i], &width, &height);
        guint at = input.inches->len;
        if (g_cancellable_is_cancelled (run->cancellable))
          {
            for (guint k = i; k < n_children; k++)
              g_free (child_keys[k]);
            return NULL;
          }
        add_box (&boxes, child_keys[i], width, height, BOX_CHILD, NULL);
        if (inner != NULL)
          input.cells->pdata[i] = onyx_layout_port_cells_new (inner, input.inches->pdata[at], input.inches->pdata[at + 1]);
      }
  }
  touching = edges_touching (run, group);
  for (guint k = 0; k < touching->len; k++)
    {
      const ItemEdge *edge = &g_array_index (run->engine->edges, ItemEdge, g_array_index (touching, guint, k));
      const Item *source = &g_array_index (run->engine->items, Item, edge->from);
      int from = child_index (&children, edge->from), to = -1;
      Line line;
      gpointer seen;
      if (source->fanout_label != NULL && edge->to != source->fanout_first &&
          (to = child_index (&children, edge->to)) >= 0 && to != child_index (&children, source->fanout_first))
        {
          /* A reader far from what it reads, which many read: a stub beside it here,
           * or inside the open group holding it. */
          if (opens_inside (run, keys->pdata[to]))
            continue;
          if (from < 0)
            from = fanout_stub (&boxes, source);
        }
      if (to < 0)
        to = child_index (&children, edge->to);
      if (from < 0 && to < 0)
        continue;
      if (from < 0 || to < 0)
        {
          /* From or to another member of the stack: a stub standing for it. */
          Group *neighbour = as_member == NULL ? NULL : onyx_layout_member_around (
            g_array_index (run->engine->items, Item, from < 0 ? edge->from : edge->to).group);
          if (neighbour != NULL && neighbour->stack == as_member->stack && neighbour == as_member)
            continue;
          if (neighbour != NULL && neighbour->stack == as_member->stack)
            {
              if (from < 0)
                from = member_stub (&boxes, neighbour, TRUE);
              else
                to = member_stub (&boxes, neighbour, FALSE);
            }
          /* From or to outside the group: its port. */
          else if (from < 0)
            from = port_box (&boxes, edge->tensor, TRUE);
          else
            to = port_box (&boxes, edge->tensor, FALSE);
        }
      if (from == to)
        continue;
      line = (Line) { (guint) from, (guint) to, port_cell (&input, (guint) from, edge->tensor, FALSE),
                      port_cell (&input, (guint) to, edge->tensor, TRUE) };
      if (g_hash_table_lookup_extended (seen_lines, &line, NULL, &seen))
        {
          /* One line per pair of boxes (and ports): solid when any of its edges is a real input,
           * marked when any passed a folded quantization. */
          const ItemEdge *kept = carried->pdata[GPOINTER_TO_UINT (seen)];
          if (!edge->implicit && (kept->implicit || (!is_marked (run->engine, kept) && is_marked (run->engine, edge))))
            carried->pdata[GPOINTER_TO_UINT (seen)] = (gpointer) edge;
          continue;
        }
      g_hash_table_insert (seen_lines, g_memdup2 (&line, sizeof line), GUINT_TO_POINTER (carried->len));
      g_array_append_vals (input.pairs, &line.from, 2);
      g_array_append_vals (input.edge_ports, &line.from_cell, 2);
      g_ptr_array_add (carried, (gpointer) edge);
    }
  onyx_layout_tie_lines (&input);
  keep_title_room (&boxes, as_member != NULL ? as_member->stack : group);
  /* Each line's label is that of the edge it shows (chosen above); a line from or to
   * the group's own port has none: the line outside, its other piece, has it. */
  for (guint e = 0; e < carried->len; e++)
    {
      BoxRole from_role = g_array_index (input.roles, BoxRole, g_array_index (input.pairs, guint, 2 * e));
      BoxRole to_role = g_array_index (input.roles, BoxRole, g_array_index (input.pairs, guint, 2 * e + 1));
      const EdgeLabel *label = from_role == BOX_CHILD && to_role == BOX_CHILD
                                 ? onyx_layout_edge_label (run->engine, ((const ItemEdge *) carried->pdata[e])->tensor)
                                 : NULL;
      guint size[2] = { label != NULL ? (guint) ceil (label->width) : 0, label != NULL ? (guint) ceil (label->height) : 0 };
      g_array_append_vals (input.label_sizes, size, 2);
    }
  for (guint i = 0; i < input.roles->len; i++)
    n_ports += g_array_index (input.roles, BoxRole, i) != BOX_CHILD;

  if (run->engine->disk_cache != NULL)
    {
      g_autofree char *text = onyx_layout_dot_describe (&input);
      disk_key = onyx_layout_disk_cache_key (text);
      result = onyx_layout_disk_cache_load (run->engine->disk_cache, disk_key, keys->len, carried->len);
      run->n_disk_hits += result != NULL;
    }
  if (result == NULL)
    {
      result = onyx_layout_dot_run (&input);
      run->n_dot_runs++;
      if (disk_key != NULL)
        onyx_layout_disk_cache_store (run->engine->disk_cache, disk_key, result);
    }
  layout = group_layout_new (keys, &input, carried, result);
  run->n_done += keys->len - n_ports;
  if (run->progress != NULL && run->n_total > 0)
    run->progress (MIN (1.0, (double) run->n_done / run->n_total), run->progress_data);
  onyx_layout_memory_cache_insert (run->engine, key->str, layout);
  return hold (run, layout);
}
