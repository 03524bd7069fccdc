/* onyx-layout-stacks.c: repeated blocks.
 *
 * A decoder LLM is 32 copies of one layer ("/model/layers.0/…" … "/model/layers.31/…");
 * drawn one by one they make a picture nobody reads. Consecutive sibling groups whose
 * names differ only in a number counting up by one, and whose contents have the same
 * structure (the same items by kind and operator, in the same scopes, wired the same
 * way inside), are drawn as one stack box: "layers.0–31 · 32 × 11 nodes". Opened, the
 * stack shows one member at its real size (the first, or the one whose scope is open:
 * stepping changes which), and the groups inside it are open when the same group of
 * any member is. A member that differs breaks the run and is drawn on its own. When
 * every member is open (Expand All), the stack unfolds and each member is drawn. */
#include "onyx-layout-private.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "onyx-types.h"
#include "onyx-text.h"

/* Fewer repeats than this read fine drawn out. */
#define MIN_STACK_MEMBERS 3

/* The last run of digits in a scope's last component: "layers.12" → "layers.", 12, "". */
typedef struct {
  const char *component;
  gsize prefix_len, digits_end;
  guint64 number;
} Numbered;

static gboolean
numbered_of (const Group *group, Numbered *out)
{
  const char *component = onyx_layout_group_component (group);
  gsize end = strlen (component), start;

  while (end > 0 && !g_ascii_isdigit (component[end - 1]))
    end--;
  if (end == 0)
    return FALSE;
  start = end;
  while (start > 0 && g_ascii_isdigit (component[start - 1]))
    start--;
  /* Numbers of at most 9 digits: an index, not a hash. */
  if (end - start > 9 || (end - start > 1 && component[start] == '0'))
    return FALSE;
  out->component = component;
  out->prefix_len = start;
  out->digits_end = end;
  out->number = g_ascii_strtoull (component + start, NULL, 10);
  return TRUE;
}

/* `b` follows `a` in a run: the same text around a number one higher. */
static gboolean
follows (const Numbered *a, const Numbered *b)
{
  return a->prefix_len == b->prefix_len && strncmp (a->component, b->component, a->prefix_len) == 0 &&
         strcmp (a->component + a->digits_end, b->component + b->digits_end) == 0 && b->number == a->number + 1;
}

/* The edges into (`by_reader`) or out of each item, as offsets into one array: item
 * t's are engine->edges[edges[start[t]]] … [edges[start[t + 1] - 1]]. */
static void
index_edges (OnyxLayoutEngine *engine, gboolean by_reader, guint **start, guint **edges)
{
  guint n_items = engine->items->len, n_edges = engine->edges->len;
  g_autofree guint *fill = g_new0 (guint, n_items + 1);

  *start = g_new0 (guint, n_items + 1);
  *edges = g_new (guint, MAX (n_edges, 1));
  for (guint e = 0; e < n_edges; e++)
    {
      const ItemEdge *edge = &g_array_index (engine->edges, ItemEdge, e);
      (*start)[(by_reader ? edge->to : edge->from) + 1]++;
    }
  for (guint i = 0; i < n_items; i++)
    (*start)[i + 1] += (*start)[i];
  for (guint e = 0; e < n_edges; e++)
    {
      const ItemEdge *edge = &g_array_index (engine->edges, ItemEdge, e);
      int t = by_reader ? edge->to : edge->from;
      (*edges)[(*start)[t] + fill[t]++] = e;
    }
}

/* Incoming edges by item, and where each item is in the member being described. */
typedef struct {
  guint *start, *edges;     /* as index_edges makes them, by reader */
  int *position;            /* per item: its position in the member described, or -1 */
} EdgeIndex;

static void
edge_index_init (EdgeIndex *index, OnyxLayoutEngine *engine)
{
  index_edges (engine, TRUE, &index->start, &index->edges);
  index->position = g_new (int, MAX (engine->items->len, 1));
  for (guint i = 0; i < engine->items->len; i++)
    index->position[i] = -1;
}

static void
edge_index_clear (EdgeIndex *index)
{
  g_free (index->start);
  g_free (index->edges);
  g_free (index->position);
}

const char *
onyx_layout_group_component (const Group *group)
{
  const char *slash = strrchr (group->path, '/');
  return slash != NULL ? slash + 1 : group->path;
}

/* The path of `group` (below member `from`) as seen from member `to`: dynamo's module
 * paths repeat the member's name in each scope below it ("model.layers.5" holds
 * "model.layers.5.self_attn"), TorchScript's names do not ("layers.5/attn"). */
static char *
path_in_member (const Group *group, const Group *from, const Group *to)
{
  g_autofree char *rel = g_strdup (group->path + strlen (from->path));
  g_auto (GStrv) parts = g_strsplit (rel, onyx_layout_group_component (from), -1);
  g_autofree char *moved = g_strjoinv (onyx_layout_group_component (to), parts);

  return g_strconcat (to->path, moved, NULL);
}

static void
collect_items (Group *group, GArray *items)
{
  g_array_append_vals (items, group->items->data, group->items->len);
  for (guint i = 0; i < group->groups->len; i++)
    collect_items (group->groups->pdata[i], items);
}

/* What a member is made of, as text: its groups by path below it, its items by kind
 * and operator in order, and for each the positions its edges come from (-1 from
 * outside). Two members are alike when their texts are equal. */
static char *
describe_member (OnyxLayoutEngine *engine, EdgeIndex *index, Group *member)
{
  g_autoptr (GArray) items = g_array_new (FALSE, FALSE, sizeof (int));
  GString *out = g_string_new (NULL);
  gsize root_len = strlen (member->path);
  const char *name = onyx_layout_group_component (member);

  collect_items (member, items);
  for (guint i = 0; i < items->len; i++)
    index->position[g_array_index (items, int, i)] = (int) i;
  for (guint i = 0; i < items->len; i++)
    {
      int t = g_array_index (items, int, i);
      const Item *item = &g_array_index (engine->items, Item, t);
      const char *scope = strlen (item->scope) >= root_len ? item->scope + root_len : "";
      g_auto (GStrv) parts = g_strsplit (scope, name, -1);
      g_autofree char *unnumbered = g_strjoinv ("#", parts);

      g_string_append_printf (out, "%d %s ", (int) item->kind, unnumbered);
      if (item->kind == ONYX_LAYOUT_OP)
        {
          const Onnx__NodeProto *node = engine->graph->node[item->index];
          g_string_append_printf (out, "%s:%s", node->domain != NULL ? node->domain : "",
                                  node->op_type != NULL ? node->op_type : "");
        }
      for (guint k = index->start[t]; k < index->start[t + 1]; k++)
        {
          const ItemEdge *edge = &g_array_index (engine->edges, ItemEdge, index->edges[k]);
          g_string_append_printf (out, " %d%s", index->position[edge->from], edge->implicit ? "i" : "");
        }
      g_string_append_c (out, '\n');
    }
  for (guint i = 0; i < items->len; i++)
    index->position[g_array_index (items, int, i)] = -1;
  return g_string_free (out, FALSE);
}

/* Marks the groups of member `position` at the place of `of_first` in the first
 * member, and every group below them, with their twins. */
static void
mark_twins (OnyxLayoutEngine *engine, Group *stack, Group *of_first)
{
  GPtrArray *twins;

  if (of_first == stack->members->pdata[0])
    twins = g_ptr_array_ref (stack->members);
  else
    {
      twins = g_ptr_array_new ();
      for (guint m = 0; m < stack->members->len; m++)
        {
          g_autofree char *path = path_in_member (of_first, stack->members->pdata[0], stack->members->pdata[m]);
          Group *twin = g_hash_table_lookup (engine->groups, path);
          /* Alike members have the same scopes below them: never missing. */
          g_ptr_array_add (twins, twin != NULL ? twin : stack->members->pdata[m]);
        }
    }
  for (guint m = 0; m < twins->len; m++)
    {
      Group *twin = twins->pdata[m];
      twin->stack = stack;
      twin->member_index = m;
      if (twin->twins == NULL)
        twin->twins = g_ptr_array_ref (twins);
    }
  g_ptr_array_unref (twins);
  for (guint i = 0; i < of_first->groups->len; i++)
    mark_twins (engine, stack, of_first->groups->pdata[i]);
}

/* Makes the stack of `members` (consecutive numbers, alike), children of `parent`. */
static gboolean
make_stack (OnyxLayoutEngine *engine, Group *parent, Group *const *members, guint n)
{
  Group *head = members[0], *stack;
  Numbered a, b;
  g_autofree char *range = NULL, *escaped_component = NULL, *escaped_range = NULL, *path = NULL;

  numbered_of (head, &a);
  numbered_of (members[n - 1], &b);
  range = g_strdup_printf ("%.*s%" G_GUINT64_FORMAT "–%" G_GUINT64_FORMAT "%s", (int) a.prefix_len, a.component,
                           a.number, b.number, a.component + a.digits_end);
  path = parent->path[0] != '\0' ? g_strdup_printf ("%s/%s", parent->path, range) : g_strdup (range);
  if (g_hash_table_contains (engine->groups, path))
    return FALSE;
  stack = g_new0 (Group, 1);
  stack->path = g_steal_pointer (&path);
  /* A module's group says its class after the name ("layers.0 · LlamaDecoderLayer"). */
  escaped_component = onyx_display_escape (a.component);
  escaped_range = onyx_display_escape (range);
  stack->name = onyx_layout_cut_title (g_strconcat (
      escaped_range, g_str_has_prefix (head->name, escaped_component) ? head->name + strlen (escaped_component) : "",
      NULL));
  stack->parent = parent;
  stack->groups = g_ptr_array_new ();
  stack->items = g_array_new (FALSE, FALSE, sizeof (int));
  stack->members = g_ptr_array_new ();
  for (guint m = 0; m < n; m++)
    g_ptr_array_add (stack->members, members[m]);
  stack->stack_id = (int) engine->stacks->len;
  g_ptr_array_add (engine->stacks, stack);
  g_hash_table_insert (engine->groups, stack->path, stack);
  mark_twins (engine, stack, head);
  return TRUE;
}

typedef struct {
  Numbered numbered;
  Group *group;
} Candidate;

/* By the text around the number, then the number. */
static int
compare_candidates (gconstpointer pa, gconstpointer pb)
{
  const Candidate *a = pa, *b = pb;
  int by_prefix = strncmp (a->numbered.component, b->numbered.component, MIN (a->numbered.prefix_len, b->numbered.prefix_len));
  int by_suffix;

  if (by_prefix != 0 || a->numbered.prefix_len != b->numbered.prefix_len)
    return by_prefix != 0 ? by_prefix : a->numbered.prefix_len < b->numbered.prefix_len ? -1 : 1;
  by_suffix = strcmp (a->numbered.component + a->numbered.digits_end, b->numbered.component + b->numbered.digits_end);
  if (by_suffix != 0)
    return by_suffix;
  return a->numbered.number < b->numbered.number ? -1 : a->numbered.number > b->numbered.number;
}

/* Within runs of consecutive numbers, the stretches of alike members become stacks. */
static void
stack_alike (OnyxLayoutEngine *engine, EdgeIndex *index, Group *parent, Group *const *run, guint n, GHashTable *stacked)
{
  g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  guint start = 0;

  if (n < MIN_STACK_MEMBERS)
    return;
  for (guint m = 0; m < n; m++)
    g_ptr_array_add (texts, describe_member (engine, index, run[m]));
  for (guint m = 1; m <= n; m++)
    {
      if (m < n && strcmp (texts->pdata[m], texts->pdata[start]) == 0)
        continue;
      if (m - start >= MIN_STACK_MEMBERS && make_stack (engine, parent, run + start, m - start))
        for (guint k = start; k < m; k++)
          g_hash_table_add (stacked, run[k]);
      start = m;
    }
}

/* Siblings are numbered in the order their first node comes in the file, which need
 * not be their numbers' (a TorchScript export may list layer 95's constants first):
 * runs are found by number. */
static void
find_in (OnyxLayoutEngine *engine, EdgeIndex *index, Group *group)
{
  g_autoptr (GArray) candidates = g_array_new (FALSE, FALSE, sizeof (Candidate));
  g_autoptr (GHashTable) stacked = g_hash_table_new (NULL, NULL);
  g_autoptr (GPtrArray) run = g_ptr_array_new ();

  for (guint i = 0; i < group->groups->len; i++)
    {
      Candidate candidate = { { 0 }, group->groups->pdata[i] };
      if (candidate.group->n_items_total >= 2 && numbered_of (candidate.group, &candidate.numbered))
        g_array_append_val (candidates, candidate);
    }
  g_array_sort (candidates, compare_candidates);
  for (guint i = 0; i < candidates->len; i++)
    {
      const Candidate *at = &g_array_index (candidates, Candidate, i);
      if (run->len > 0 && !follows (&g_array_index (candidates, Candidate, i - 1).numbered, &at->numbered))
        {
          stack_alike (engine, index, group, (Group *const *) run->pdata, run->len, stacked);
          g_ptr_array_set_size (run, 0);
        }
      g_ptr_array_add (run, at->group);
    }
  if (run->len > 0)
    stack_alike (engine, index, group, (Group *const *) run->pdata, run->len, stacked);
  /* No stack inside a member: the member shown is drawn as it is. */
  for (guint i = 0; i < group->groups->len; i++)
    if (!g_hash_table_contains (stacked, group->groups->pdata[i]))
      find_in (engine, index, group->groups->pdata[i]);
}

void
onyx_layout_find_stacks (OnyxLayoutEngine *engine)
{
  EdgeIndex index;

  engine->stacks = g_ptr_array_new ();
  edge_index_init (&index, engine);
  find_in (engine, &index, engine->root);
  edge_index_clear (&index);
  onyx_layout_count_stacks (engine);
}

void
onyx_layout_count_stacks (OnyxLayoutEngine *engine)
{
  for (guint s = 0; engine->stacks != NULL && s < engine->stacks->len; s++)
    {
      Group *stack = engine->stacks->pdata[s];
      stack->n_items_total = stack->n_nodes_total = 0;
      stack->hash = g_str_hash (stack->path);
      for (guint m = 0; m < stack->members->len; m++)
        {
          const Group *member = stack->members->pdata[m];
          stack->n_items_total += member->n_items_total;
          stack->n_nodes_total += member->n_nodes_total;
          stack->hash = stack->hash * 31 + member->hash;
        }
    }
}

char *
onyx_layout_group_count_text (Group *group)
{
  g_autofree char *each = NULL;

  if (group->members == NULL)
    return onyx_layout_count_text (group->n_nodes_total);
  each = onyx_layout_count_text (((Group *) group->members->pdata[0])->n_nodes_total);
  /* TRANSLATORS: a stack of repeated layers: "32 × 11 nodes" */
  return g_strdup_printf (_("%u × %s"), group->members->len, each);
}

void
onyx_layout_run_stacks_init (Run *run)
{
  GPtrArray *stacks = run->engine->stacks;

  run->stack_shown = g_new0 (Group *, MAX (stacks->len, 1));
  for (guint s = 0; s < stacks->len; s++)
    {
      Group *stack = stacks->pdata[s];
      guint n_open = 0;
      for (guint m = 0; m < stack->members->len; m++)
        if (g_hash_table_contains (run->expanded, ((Group *) stack->members->pdata[m])->path))
          {
            if (n_open++ == 0)
              run->stack_shown[s] = stack->members->pdata[m];
          }
      if (n_open == stack->members->len)
        run->stack_shown[s] = NULL;
      else if (n_open == 0)
        run->stack_shown[s] = stack->members->pdata[0];
    }
}

Group *
onyx_layout_stack_shown (Run *run, Group *stack)
{
  return run == NULL ? stack->members->pdata[0] : run->stack_shown[stack->stack_id];
}

Group *
onyx_layout_stack_drawn (Run *run, Group *stack)
{
  Group *shown = onyx_layout_stack_shown (run, stack);
  return shown != NULL ? shown : stack->members->pdata[0];
}

gboolean
onyx_layout_is_folded_member (Run *run, Group *group)
{
  return onyx_layout_is_member (group) && onyx_layout_stack_shown (run, group->stack) != NULL;
}

char *
onyx_layout_stub_title (Group *member, gboolean from)
{
  g_autofree char *name = onyx_display_escape (onyx_layout_group_component (member));

  /* TRANSLATORS: a box beside the layer shown: the one after it, reading its output */
  return from ? onyx_layout_fanout_title (name) : g_strdup_printf (_("to %s"), name);
}

char *
onyx_layout_fanout_title (const char *label)
{
  /* TRANSLATORS: a box beside a node, standing for what it reads from far away */
  return g_strdup_printf (_("from %s"), label);
}

char *
onyx_layout_stub_key (Group *member, gboolean from)
{
  return g_strdup_printf ("s:%c%u", from ? '<' : '>', member->member_index);
}

gboolean
onyx_layout_parse_stub_key (const char *key, guint *member_index, gboolean *from)
{
  if (!g_str_has_prefix (key, "s:") || (key[2] != '<' && key[2] != '>'))
    return FALSE;
  *from = key[2] == '<';
  *member_index = (guint) g_ascii_strtoull (key + 3, NULL, 10);
  return TRUE;
}

/* The box `item` is drawn in: its group, or the group around that for a group that
 * holds nothing else (drawn as the item), and so on up. */
static Group *
group_drawn_around (Item *item)
{
  Group *group = item->group;

  while (group->parent != NULL && group->items->len + group->groups->len <= 1)
    group = group->parent;
  return group;
}

void
onyx_layout_find_fanouts (OnyxLayoutEngine *engine)
{
  g_autoptr (GHashTable) reader_groups = g_hash_table_new (NULL, NULL);
  g_autofree guint *start = NULL, *by_source = NULL;

  index_edges (engine, FALSE, &start, &by_source);
  for (guint t = 0; t < engine->items->len; t++)
    {
      Item *source = &g_array_index (engine->items, Item, t);
      Group *named;
      int first = -1;
      if (start[t + 1] - start[t] < FANOUT_MIN_GROUPS)
        continue;
      g_hash_table_remove_all (reader_groups);
      for (guint k = start[t]; k < start[t + 1]; k++)
        {
          const ItemEdge *edge = &g_array_index (engine->edges, ItemEdge, by_source[k]);
          Group *group = g_array_index (engine->items, Item, edge->to).group;
          if (group != source->group)
            g_hash_table_add (reader_groups, group);
          if (first < 0 || edge->to < first)
            first = edge->to;
        }
      if (g_hash_table_size (reader_groups) < FANOUT_MIN_GROUPS)
        continue;
      source->fanout_first = first;
      named = group_drawn_around (source);
      source->fanout_label = named->parent != NULL ? onyx_display_escape (onyx_layout_group_component (named))
                                                   : g_strdup (source->title);
      for (guint k = start[t]; k < start[t + 1]; k++)
        {
          Item *reader = &g_array_index (engine->items, Item, g_array_index (engine->edges, ItemEdge, by_source[k]).to);
          if (reader != &g_array_index (engine->items, Item, first))
            reader->hash = reader->hash * 31 + g_str_hash (source->fanout_label);
        }
    }
}

/* Public lookups, for the app's stepping through a stack. */

static Group *
stack_at (OnyxLayoutEngine *engine, const char *path)
{
  Group *group = path != NULL && engine->groups != NULL ? g_hash_table_lookup (engine->groups, path) : NULL;
  return group != NULL && group->members != NULL ? group : NULL;
}

guint
onyx_layout_engine_stack_size (OnyxLayoutEngine *engine, const char *stack_path)
{
  Group *stack = stack_at (engine, stack_path);
  return stack != NULL ? stack->members->len : 0;
}

const char *
onyx_layout_engine_stack_member (OnyxLayoutEngine *engine, const char *stack_path, guint index)
{
  Group *stack = stack_at (engine, stack_path);
  return stack != NULL && index < stack->members->len ? ((Group *) stack->members->pdata[index])->path : NULL;
}

Group *
onyx_layout_member_around (Group *group)
{
  for (; group != NULL; group = group->parent)
    if (onyx_layout_is_member (group))
      return group;
  return NULL;
}

/* Where item `item` comes in member `member` (in describe_member's order), or -1. */
static int
position_in (Group *member, int item)
{
  g_autoptr (GArray) items = g_array_new (FALSE, FALSE, sizeof (int));

  collect_items (member, items);
  for (guint i = 0; i < items->len; i++)
    if (g_array_index (items, int, i) == item)
      return (int) i;
  return -1;
}

int
onyx_layout_engine_twin_node (OnyxLayoutEngine *engine, guint node, const char *member_path)
{
  Group *target = member_path != NULL ? g_hash_table_lookup (engine->groups, member_path) : NULL;
  g_autoptr (GArray) items = g_array_new (FALSE, FALSE, sizeof (int));
  const Item *item;
  Group *member;
  int position;

  if (target == NULL || node >= engine->n_item_of_node || engine->folded_into[node] >= 0)
    return -1;
  item = &g_array_index (engine->items, Item, engine->item_of_node[node]);
  member = onyx_layout_member_around (item->group);
  if (member == NULL || member->stack != target->stack || !onyx_layout_is_member (target) ||
      (position = position_in (member, engine->item_of_node[node])) < 0)
    return -1;
  /* Alike members list their items alike. */
  collect_items (target, items);
  if ((guint) position >= items->len)
    return -1;
  item = &g_array_index (engine->items, Item, g_array_index (items, int, position));
  return item->kind == ONYX_LAYOUT_OP ? item->index : -1;
}

const char *
onyx_layout_engine_twin_scope (OnyxLayoutEngine *engine, const char *scope, const char *member_path)
{
  Group *group = scope != NULL && engine->groups != NULL ? g_hash_table_lookup (engine->groups, scope) : NULL;
  Group *target = member_path != NULL && engine->groups != NULL ? g_hash_table_lookup (engine->groups, member_path) : NULL;

  if (group == NULL || target == NULL || group->twins == NULL || group->stack != target->stack ||
      !onyx_layout_is_member (target))
    return NULL;
  return ((Group *) group->twins->pdata[target->member_index])->path;
}

const char *
onyx_layout_engine_stack_of_member (OnyxLayoutEngine *engine, const char *path)
{
  Group *group = path != NULL && engine->groups != NULL ? g_hash_table_lookup (engine->groups, path) : NULL;
  return group != NULL && onyx_layout_is_member (group) ? group->stack->path : NULL;
}

char *
onyx_layout_group_header (const char *title, const char *count, const char *shown)
{
  if (shown == NULL)
    return g_strdup_printf ("%s · %s", title, count);
  /* TRANSLATORS: an open stack of repeated layers and the one it shows:
   * "layers.0–31 · 32 × 11 nodes · showing layers.5" */
  return g_strdup_printf (_("%s · %s · showing %s"), title, count, shown);
}

int
onyx_layout_stack_button_at (const OnyxLayoutNode *node, double x, double y)
{
  double right = node->box.x + node->box.width - 4;

  if (node->kind != ONYX_LAYOUT_GROUP || node->stack_size == 0 || !node->expanded || y < node->box.y ||
      y > node->box.y + GROUP_HEADER || x > right || x < right - ONYX_LAYOUT_STACK_BUTTONS_WIDTH + 4)
    return 0;
  return x < right - (ONYX_LAYOUT_STACK_BUTTONS_WIDTH - 4) / 2 ? -1 : 1;
}
