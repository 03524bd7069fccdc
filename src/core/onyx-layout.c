/* onyx-layout.c: the absolute layout, composed from the group layouts (each open
 * group's children placed inside its box), and the public run entry. The stages it
 * builds on are described in onyx-layout-private.h. */
#include "onyx-layout-private.h"

#include <glib/gi18n-lib.h>
#include <stdlib.h>
#include <string.h>

#include "onyx-graph-index.h"
#include "onyx-types.h"
#include "onyx-text.h"

static gpointer
copy_string (gconstpointer text, gpointer user_data)
{
  return g_strdup (text);
}

static void
fill_stub (OnyxLayoutNode *node, int index, char *title, char *details)
{
  node->kind = ONYX_LAYOUT_STUB;
  node->index = index;
  node->title = title;
  node->details = details;
  node->lines = g_ptr_array_new_with_free_func (g_free);
  node->line_nodes = g_array_new (FALSE, FALSE, sizeof (int));
  node->category = ONYX_CATEGORY_DEFAULT;
}

/* A stub of the open stack `stack`: its neighbour, whose title it shows. */
static void
fill_member_stub (OnyxLayoutNode *node, Group *stack, guint member_index, gboolean from)
{
  Group *member = stack->members->pdata[MIN (member_index, stack->members->len - 1)];
  const char *name = onyx_layout_group_component (member);

  /* TRANSLATORS: the tooltip of a box beside the layer shown, naming its neighbour */
  fill_stub (node, (int) member->member_index, onyx_layout_stub_title (member, from),
             g_strdup_printf (from ? _("Made by %s, drawn the same: click to show it")
                                   : _("Read by %s, drawn the same: click to show it"), name));
}

/* A stub of what many read far apart: `label` names where it comes from. */
static void
fill_fanout_stub (OnyxLayoutNode *node, const char *label)
{
  fill_stub (node, -1, onyx_layout_fanout_title (label),
             /* TRANSLATORS: the tooltip of such a box */
             g_strdup_printf (_("Made in %s and read in many places: drawn beside each reader instead of "
                                "an edge across the graph. Click to select what it carries."), label));
}

/* The node of child `key` of `group` (the group composed, a stack for its stubs). */
static void
fill_node (Run *run, Group *group, OnyxLayoutNode *node, const char *key)
{
  OnyxLayoutEngine *engine = run->engine;
  guint member_index;
  gboolean from;

  if (group->members != NULL && onyx_layout_parse_stub_key (key, &member_index, &from))
    {
      fill_member_stub (node, group, member_index, from);
      return;
    }
  if (g_str_has_prefix (key, FANOUT_STUB_PREFIX))
    {
      fill_fanout_stub (node, key + strlen (FANOUT_STUB_PREFIX));
      return;
    }

  if (key[0] == 'i')
    {
      const Item *item = &g_array_index (engine->items, Item, atoi (key + 2));
      node->kind = item->kind;
      node->index = item->index;
      node->title = g_strdup (item->title);
      node->subtitle = g_strdup (item->subtitle);
      node->lines = g_ptr_array_copy (item->lines, copy_string, NULL);
      g_ptr_array_set_free_func (node->lines, g_free);
      node->line_nodes = g_array_copy (item->line_nodes);
      node->details = g_strdup (item->details);
      node->category = item->category;
    }
  else
    {
      Group *group = g_hash_table_lookup (engine->groups, key + 2);
      node->kind = ONYX_LAYOUT_GROUP;
      node->index = -1;
      node->scope = g_strdup (group->path);
      node->title = g_strdup (group->name);
      node->subtitle = onyx_layout_group_count_text (group);
      if (group->members != NULL)
        {
          Group *shown = onyx_layout_stack_drawn (run, group);
          node->stack_size = group->members->len;
          node->stack_shown = shown->member_index;
          node->stack_label = onyx_display_escape (onyx_layout_group_component (shown));
        }
      node->lines = g_ptr_array_new_with_free_func (g_free);
      node->line_nodes = g_array_new (FALSE, FALSE, sizeof (int));
      node->category = ONYX_CATEGORY_DEFAULT;
    }
}

static int
compare_keys (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static void
compose (Run *run, OnyxLayout *out, Group *group, double ox, double oy, int parent)
{
  GroupLayout *layout = onyx_layout_group (run, group);
  g_autoptr (GHashTable) node_of_key = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter iter;
  gpointer key;
  g_autoptr (GPtrArray) sorted = g_ptr_array_new ();

  /* Keys in a stable order so that layouts compare equal run to run. */
  g_hash_table_iter_init (&iter, layout->child_boxes);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (sorted, key);
  g_ptr_array_sort (sorted, compare_keys);
  for (guint i = 0; i < sorted->len; i++)
    {
      const char *child = sorted->pdata[i];
      const OnyxRect *box = g_hash_table_lookup (layout->child_boxes, child);
      OnyxLayoutNode node = { 0 };

      fill_node (run, group, &node, child);
      node.parent = parent;
      node.box = (OnyxRect) { ox + box->x, oy + box->y, box->width, box->height };
      g_array_append_val (out->nodes, node);
      g_hash_table_insert (node_of_key, (gpointer) child, GINT_TO_POINTER (out->nodes->len));
      if (child[0] == 'g')
        {
          Group *sub = g_hash_table_lookup (run->engine->groups, child + 2);
          if (onyx_layout_is_open (run, sub))
            {
              int self = (int) out->nodes->len - 1;
              g_array_index (out->nodes, OnyxLayoutNode, self).expanded = TRUE;
              /* Centred: a box widened for its title is wider than its children. */
              GroupLayout *inner = onyx_layout_group (run, sub);
              double inner_width = inner != NULL ? inner->width : box->width;
              compose (run, out, sub, ox + box->x + MAX ((box->width - inner_width) / 2, GROUP_PADDING),
                       oy + box->y + GROUP_HEADER, self);
            }
        }
    }
  for (guint e = 0; e < layout->edges->len; e++)
    {
      const LevelEdge *level = &g_array_index (layout->edges, LevelEdge, e);
      OnyxLayoutEdge edge = { GPOINTER_TO_INT (g_hash_table_lookup (node_of_key, level->from_key)) - 1,
                              GPOINTER_TO_INT (g_hash_table_lookup (node_of_key, level->to_key)) - 1,
                              g_strdup (level->tensor), NULL, NULL, { 0, 0, -1, -1 },
                              g_array_new (FALSE, FALSE, sizeof (double)), level->implicit,
                              NULL, { 0, 0, -1, -1 }, NULL };
      const EdgeLabel *label = onyx_layout_edge_label (run->engine, level->tensor);
      /* The group's layout was made with this label's room: the cache key holds it. */
      if (label != NULL && level->label.width >= 0)
        {
          edge.label = label->text[0] != '\0' ? g_strdup (label->text) : NULL;
          edge.shape = g_strdup (label->shape);
          edge.label_box = (OnyxRect) { ox + level->label.x, oy + level->label.y, level->label.width,
                                        level->label.height };
          if (label->mark != NULL)
            {
              edge.mark = g_strdup (label->mark->text);
              edge.mark_nodes = g_array_copy (label->mark->nodes);
              edge.mark_box = (OnyxRect) { edge.label_box.x, edge.label_box.y + (edge.label != NULL ? LABEL_HEIGHT : 0),
                                           label->mark_width, MARK_HEIGHT };
            }
        }
      for (guint p = 0; p + 1 < level->points->len; p += 2)
        {
          double x = ox + g_array_index (level->points, double, p);
          double y = oy + g_array_index (level->points, double, p + 1);
          g_array_append_val (edge.points, x);
          g_array_append_val (edge.points, y);
        }
      g_array_append_val (out->edges, edge);
    }
}

static void
clear_layout_node (OnyxLayoutNode *node)
{
  g_free (node->scope);
  g_free (node->title);
  g_free (node->subtitle);
  g_free (node->details);
  g_free (node->stack_label);
  if (node->lines != NULL)
    g_ptr_array_unref (node->lines);
  if (node->line_nodes != NULL)
    g_array_unref (node->line_nodes);
}

static void
clear_layout_edge (OnyxLayoutEdge *edge)
{
  g_free (edge->tensor);
  g_free (edge->label);
  g_free (edge->shape);
  g_array_unref (edge->points);
  g_free (edge->mark);
  if (edge->mark_nodes != NULL)
    g_array_unref (edge->mark_nodes);
}

OnyxLayout *
onyx_layout_share (const OnyxLayout *layout)
{
  OnyxLayout *shared = g_new (OnyxLayout, 1);

  *shared = *layout;
  g_array_ref (shared->nodes);
  g_array_ref (shared->edges);
  return shared;
}

void
onyx_layout_free (OnyxLayout *layout)
{
  if (layout == NULL)
    return;
  g_array_unref (layout->nodes);
  g_array_unref (layout->edges);
  g_free (layout);
}

static guint
count_work (Run *run, Group *group)
{
  guint n = onyx_layout_n_children (run, group);
  g_autoptr (GPtrArray) visible = onyx_layout_visible_subgroups (run, group);
  for (guint i = 0; i < visible->len; i++)
    if (onyx_layout_is_open (run, visible->pdata[i]))
      n += count_work (run, visible->pdata[i]);
  return n;
}

gboolean
onyx_layout_is_within (const OnyxLayout *layout, int node, int group)
{
  for (int at = node; at >= 0; at = g_array_index (layout->nodes, OnyxLayoutNode, at).parent)
    if (at == group)
      return TRUE;
  return FALSE;
}

/* Appends (at_end) or prepends a straight cubic piece joining `point` to the spline. */
static void
extend_spline (GArray *points, double x, double y, gboolean at_end)
{
  double ex, ey, piece[6];
  guint n = points->len;

  if (n < 2)
    return;
  ex = g_array_index (points, double, at_end ? n - 2 : 0);
  ey = g_array_index (points, double, at_end ? n - 1 : 1);
  if (at_end)
    {
      double add[6] = { ex + (x - ex) / 3, ey + (y - ey) / 3, ex + 2 * (x - ex) / 3,
                        ey + 2 * (y - ey) / 3, x, y };
      g_array_append_vals (points, add, 6);
      return;
    }
  piece[0] = x;
  piece[1] = y;
  piece[2] = x + (ex - x) / 3;
  piece[3] = y + (ey - y) / 3;
  piece[4] = x + 2 * (ex - x) / 3;
  piece[5] = y + 2 * (ey - y) / 3;
  g_array_prepend_vals (points, piece, 6);
}

int *
onyx_layout_boxes_of_nodes (const OnyxLayout *layout, OnyxLayoutEngine *engine)
{
  guint n = (guint) engine->graph->n_node;
  int *box = g_new (int, MAX (n, 1));
  g_autoptr (GHashTable) closed = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < n; i++)
    box[i] = -1;
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      if (node->kind == ONYX_LAYOUT_OP && node->index >= 0 && (guint) node->index < n)
        box[node->index] = (int) i;
      else if (node->kind == ONYX_LAYOUT_GROUP && node->stack_size > 0)
        {
          /* A stack's box stands for its members but the nodes it shows. */
          for (guint m = 0; m < node->stack_size; m++)
            g_hash_table_insert (closed, (gpointer) onyx_layout_engine_stack_member (engine, node->scope, m),
                                 GINT_TO_POINTER (i + 1));
        }
      else if (node->kind == ONYX_LAYOUT_GROUP && !node->expanded && node->scope != NULL)
        g_hash_table_insert (closed, node->scope, GINT_TO_POINTER (i + 1));
    }
  for (guint i = 0; i < n; i++)
    {
      int reader = box[i] < 0 ? onyx_layout_engine_folded_into (engine, i) : -1;
      g_autofree char *scope = NULL;
      char *slash;
      gpointer found;

      if (box[i] >= 0)
        continue;
      /* A folded node is in the box showing it (whose own box was set above). */
      if (reader >= 0 && (guint) reader < n && box[reader] >= 0)
        {
          box[i] = box[reader];
          continue;
        }
      if (g_hash_table_size (closed) == 0)
        continue;
      scope = g_strdup (onyx_layout_engine_node_scope (engine, i));
      for (;;)
        {
          if ((found = g_hash_table_lookup (closed, scope)) != NULL)
            {
              box[i] = GPOINTER_TO_INT (found) - 1;
              break;
            }
          if ((slash = strrchr (scope, '/')) == NULL)
            break;
          *slash = '\0';
        }
    }
  return box;
}

/* The nodes reading one tensor, in node order: a chain through an array, so that a
 * graph's reads cost no array each. */
typedef struct {
  int node;
  int next;               /* the next reader's entry, or -1 */
  int last;               /* in the tensor's first entry: its last one */
} Reader;

/* Adds `node` to the readers of `name` (`first_reader`: name → its first entry + 1). */
static void
add_reader (GHashTable *first_reader, GArray *readers, const char *name, int node)
{
  int first = GPOINTER_TO_INT (g_hash_table_lookup (first_reader, name)) - 1;
  Reader reader = { node, -1, (int) readers->len };

  if (first < 0)
    g_hash_table_insert (first_reader, (gpointer) name, GINT_TO_POINTER (readers->len + 1));
  else
    {
      Reader *head = &g_array_index (readers, Reader, first);
      g_array_index (readers, Reader, head->last).next = (int) readers->len;
      head->last = (int) readers->len;
    }
  g_array_append_val (readers, reader);
}

/* An edge of an open group's box is drawn on to the node inside that makes the
 * tensor (or the topmost one that reads it), as a reader follows the data. */
static void
reach_inner_nodes (OnyxLayoutEngine *engine, OnyxLayout *layout)
{
  const Onnx__GraphProto *graph = engine->graph;
  g_autoptr (GHashTable) producer = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) first_reader = g_hash_table_new (g_str_hash, g_str_equal); /* tensor → entry + 1 */
  g_autoptr (GArray) readers = g_array_new (FALSE, FALSE, sizeof (Reader));
  g_autoptr (GPtrArray) reads = g_ptr_array_new ();
  g_autofree int *box_of = NULL;
  gboolean any_open = FALSE;

  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      any_open |= node->kind == ONYX_LAYOUT_GROUP && node->expanded;
    }
  if (!any_open)
    return;
  box_of = onyx_layout_boxes_of_nodes (layout, engine);
  for (size_t n = 0; n < graph->n_node; n++)
    {
      for (size_t k = 0; k < graph->node[n]->n_output; k++)
        if (graph->node[n]->output[k] != NULL && graph->node[n]->output[k][0] != '\0')
          g_hash_table_insert (producer, graph->node[n]->output[k], GSIZE_TO_POINTER (n + 1));
      g_ptr_array_set_size (reads, 0);
      onyx_node_collect_reads (graph->node[n], reads);
      for (guint r = 0; r < reads->len; r++)
        {
          const QuantMark *mark = g_hash_table_lookup (engine->marks, reads->pdata[r]);
          add_reader (first_reader, readers, reads->pdata[r], (int) n);
          /* Reading a folded quantization of a tensor (its mark's) is reading the tensor:
           * one line from an open group may stand for both. */
          for (guint depth = 0; mark != NULL && depth < graph->n_node; depth++)
            {
              add_reader (first_reader, readers, mark->source, (int) n);
              mark = g_hash_table_lookup (engine->marks, mark->source);
            }
        }
    }

  for (guint e = 0; e < layout->edges->len; e++)
    {
      OnyxLayoutEdge *edge = &g_array_index (layout->edges, OnyxLayoutEdge, e);
      const OnyxLayoutNode *from, *to;
      int first;

      if (edge->tensor == NULL || edge->from < 0 || edge->to < 0)
        continue;
      from = &g_array_index (layout->nodes, OnyxLayoutNode, edge->from);
      if (from->kind == ONYX_LAYOUT_GROUP && from->expanded)
        {
          int made = GPOINTER_TO_INT (g_hash_table_lookup (producer, edge->tensor)) - 1;
          int box = made >= 0 && (size_t) made < graph->n_node ? box_of[made] : -1;
          if (box >= 0 && box != edge->from && onyx_layout_is_within (layout, box, edge->from))
            {
              const OnyxRect *r = &g_array_index (layout->nodes, OnyxLayoutNode, box).box;
              extend_spline (edge->points, r->x + r->width / 2, r->y + r->height, FALSE);
              edge->from = box;
            }
        }
      to = &g_array_index (layout->nodes, OnyxLayoutNode, edge->to);
      if (to->kind == ONYX_LAYOUT_GROUP && to->expanded &&
          (first = GPOINTER_TO_INT (g_hash_table_lookup (first_reader, edge->tensor)) - 1) >= 0)
        {
          int best = -1;
          for (int r = first; r >= 0; r = g_array_index (readers, Reader, r).next)
            {
              int read = g_array_index (readers, Reader, r).node;
              int box = (size_t) read < graph->n_node ? box_of[read] : -1;
              if (box >= 0 && box != edge->to && onyx_layout_is_within (layout, box, edge->to) &&
                  (best < 0 || g_array_index (layout->nodes, OnyxLayoutNode, box).box.y <
                                 g_array_index (layout->nodes, OnyxLayoutNode, best).box.y))
                best = box;
            }
          if (best >= 0)
            {
              const OnyxRect *r = &g_array_index (layout->nodes, OnyxLayoutNode, best).box;
              extend_spline (edge->points, r->x + r->width / 2, r->y, TRUE);
              edge->to = best;
            }
        }
    }
}

OnyxLayout *
onyx_layout_engine_run (OnyxLayoutEngine *engine, GHashTable *expanded, OnyxLayoutProgress progress,
                        gpointer progress_data, GCancellable *cancellable)
{
  g_autoptr (GPtrArray) held = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_layout_group_layout_unref);
  Run run = { engine, expanded, cancellable, progress, progress_data, 0, 0, 0, 0, held, NULL };
  Group *root = onyx_layout_effective_group (engine->root);
  GroupLayout *top;
  OnyxLayout *layout;
  g_autofree Group **stack_shown = NULL;

  onyx_layout_run_stacks_init (&run);
  stack_shown = run.stack_shown;

  run.n_total = count_work (&run, root);
  if ((top = onyx_layout_group (&run, root)) == NULL)
    return NULL;
  layout = g_new0 (OnyxLayout, 1);
  layout->nodes = g_array_new (FALSE, TRUE, sizeof (OnyxLayoutNode));
  layout->edges = g_array_new (FALSE, TRUE, sizeof (OnyxLayoutEdge));
  g_array_set_clear_func (layout->nodes, (GDestroyNotify) clear_layout_node);
  g_array_set_clear_func (layout->edges, (GDestroyNotify) clear_layout_edge);
  compose (&run, layout, root, 0, 0, -1);
  if (g_cancellable_is_cancelled (cancellable))
    {
      onyx_layout_free (layout);
      return NULL;
    }
  layout->bounds = (OnyxRect) { 0, 0, top->width, top->height };
  reach_inner_nodes (engine, layout);
  layout->n_dot_runs = run.n_dot_runs;
  layout->n_disk_hits = run.n_disk_hits;
  return layout;
}

int
onyx_layout_mark_edge_of_node (const OnyxLayout *layout, int node)
{
  for (guint e = 0; node >= 0 && e < layout->edges->len; e++)
    {
      const GArray *nodes = g_array_index (layout->edges, OnyxLayoutEdge, e).mark_nodes;
      for (guint i = 0; nodes != NULL && i < nodes->len; i++)
        if (g_array_index (nodes, int, i) == node)
          return (int) e;
    }
  return -1;
}

int
onyx_layout_hit_test (const OnyxLayout *layout, double x, double y)
{
  /* Children come after their group: the last hit is the innermost. */
  for (guint i = layout->nodes->len; i-- > 0;)
    {
      const OnyxRect *box = &g_array_index (layout->nodes, OnyxLayoutNode, i).box;
      if (x >= box->x && x <= box->x + box->width && y >= box->y && y <= box->y + box->height)
        return (int) i;
    }
  return -1;
}

char *
onyx_layout_flat_dot (const Onnx__GraphProto *graph)
{
  GString *out = g_string_new ("digraph g {\n  node [shape=box];\n");
  g_autoptr (GHashTable) producer = g_hash_table_new (g_str_hash, g_str_equal);

  for (size_t n = 0; n < graph->n_node; n++)
    {
      g_autofree char *label = g_strescape (graph->node[n]->op_type != NULL ? graph->node[n]->op_type : "", NULL);
      g_string_append_printf (out, "  n%zu [label=\"%s\"];\n", n, label);
      for (size_t k = 0; k < graph->node[n]->n_output; k++)
        g_hash_table_insert (producer, graph->node[n]->output[k], GSIZE_TO_POINTER (n + 1));
    }
  for (size_t n = 0; n < graph->n_node; n++)
    for (size_t k = 0; k < graph->node[n]->n_input; k++)
      {
        gsize from = GPOINTER_TO_SIZE (g_hash_table_lookup (producer, graph->node[n]->input[k]));
        if (from > 0)
          g_string_append_printf (out, "  n%zu -> n%zu;\n", from - 1, n);
      }
  g_string_append (out, "}\n");
  return g_string_free (out, FALSE);
}
