/* onyx-layout.c: the absolute layout, composed from the group layouts (each open
 * group's children placed inside its box), and the public run entry. The stages it
 * builds on are described in onyx-layout-private.h. */
#include "onyx-layout-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>
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

/* A line of a group's layout, placed: where it ends at a port, a piece of an edge
 * that the pieces beyond the port continue. */
typedef struct {
  const LevelEdge *level;
  int from, to;             /* layout nodes; -1 at a port of the group it is in */
  int group;                /* the open group it is in (its layout node), -1 at the top */
  double ox, oy;            /* where that group's children are */
  gboolean label_taken;     /* an edge through it shows its label */
  gboolean reached;         /* an edge runs through it */
} Piece;

typedef struct {
  GArray *pieces;           /* Piece */
  GHashTable *from_in_port; /* "node tensor" → GArray of piece indices: those in the open
                             * group `node` from its in-port of `tensor` */
  GHashTable *from_out_port;/* "node tensor" → those leaving the open group `node` at its
                             * out-port of `tensor` (in the group around it) */
} Pieces;

static void
add_piece_at (GHashTable *index, int node, const char *tensor, guint piece)
{
  char *key = g_strdup_printf ("%d %s", node, tensor);
  GArray *list = g_hash_table_lookup (index, key);

  if (list == NULL)
    {
      list = g_array_new (FALSE, FALSE, sizeof (guint));
      g_hash_table_insert (index, key, list);
    }
  else
    g_free (key);
  g_array_append_val (list, piece);
}

static const GArray *
pieces_at (GHashTable *index, int node, const char *tensor)
{
  g_autofree char *key = g_strdup_printf ("%d %s", node, tensor);
  return g_hash_table_lookup (index, key);
}

static void
compose (Run *run, OnyxLayout *out, Pieces *pieces, Group *group, double ox, double oy, int parent)
{
  GroupLayout *layout = onyx_layout_group (run, group);
  g_autoptr (GHashTable) node_of_key = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter iter;
  gpointer key;
  g_autoptr (GPtrArray) sorted = g_ptr_array_new ();

  /* Keys in a stable order so that layouts compare equal run to run. */
  g_hash_table_iter_init (&iter, layout->child_boxes);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (((const char *) key)[0] != OWN_KEY_PREFIX)
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
              GroupLayout *inner = onyx_layout_group (run, sub);
              double inner_width = inner != NULL ? inner->width : box->width;
              g_array_index (out->nodes, OnyxLayoutNode, self).expanded = TRUE;
              compose (run, out, pieces, sub, ox + box->x + onyx_layout_inner_offset (box->width, inner_width),
                       oy + box->y + GROUP_HEADER, self);
            }
        }
    }
  for (guint e = 0; e < layout->edges->len; e++)
    {
      const LevelEdge *level = &g_array_index (layout->edges, LevelEdge, e);
      Piece piece = { level, GPOINTER_TO_INT (g_hash_table_lookup (node_of_key, level->from_key)) - 1,
                      GPOINTER_TO_INT (g_hash_table_lookup (node_of_key, level->to_key)) - 1, parent, ox, oy,
                      FALSE, FALSE };
      guint index = pieces->pieces->len;

      g_array_append_val (pieces->pieces, piece);
      if (level->tensor == NULL)
        continue;
      if (g_str_has_prefix (level->from_key, IN_PORT_PREFIX))
        add_piece_at (pieces->from_in_port, parent, level->tensor, index);
      else if (level->from_port && piece.from >= 0)
        add_piece_at (pieces->from_out_port, piece.from, level->tensor, index);
    }
}

/* Appends a straight cubic piece from the spline's end to (x, y). */
static void
extend_spline (GArray *points, double x, double y)
{
  double ex = g_array_index (points, double, points->len - 2), ey = g_array_index (points, double, points->len - 1);
  double add[6] = { ex + (x - ex) / 3, ey + (y - ey) / 3, ex + 2 * (x - ex) / 3, ey + 2 * (y - ey) / 3, x, y };

  g_array_append_vals (points, add, 6);
}

/* Appends the piece's spline to `points`, joined to their end by a straight line: from
 * a group's side to its port's box, across its header or its padding, where no box is. */
static void
append_piece (GArray *points, const Piece *piece)
{
  const GArray *own = piece->level->points;
  guint first = 0;

  if (own->len < 2)
    return;
  if (points->len >= 2)
    {
      double x = piece->ox + g_array_index (own, double, 0), y = piece->oy + g_array_index (own, double, 1);
      double ex = g_array_index (points, double, points->len - 2), ey = g_array_index (points, double, points->len - 1);
      if (fabs (x - ex) > 0.01 || fabs (y - ey) > 0.01)
        extend_spline (points, x, y);
      first = 2;
    }
  for (guint p = first; p + 1 < own->len; p += 2)
    {
      double xy[2] = { piece->ox + g_array_index (own, double, p), piece->oy + g_array_index (own, double, p + 1) };
      g_array_append_vals (points, xy, 2);
    }
}

/* The edge of the pieces joined in `points`, from layout node `from` to the end of
 * piece `last`; labelled by piece `labelled` unless an edge before it took its label. */
static void
add_edge (Run *run, OnyxLayout *out, Pieces *pieces, GArray *points, int from, guint last, int labelled)
{
  const Piece *end = &g_array_index (pieces->pieces, Piece, last);
  OnyxLayoutEdge edge = { from, end->to >= 0 ? end->to : end->group, g_strdup (end->level->tensor), NULL, NULL,
                          { 0, 0, -1, -1 }, g_array_copy (points), end->level->implicit,
                          NULL, { 0, 0, -1, -1 }, NULL };

  if (labelled >= 0)
    {
      Piece *piece = &g_array_index (pieces->pieces, Piece, labelled);
      const EdgeLabel *label = onyx_layout_edge_label (run->engine, piece->level->tensor);
      /* The group's layout was made with this label's room: the cache key holds it.
       * Edges sharing the piece draw it once; each says its shape (a tooltip). */
      if (label != NULL)
        edge.shape = g_strdup (label->shape);
      if (label != NULL && !piece->label_taken)
        {
          piece->label_taken = TRUE;
          edge.label = label->text[0] != '\0' ? g_strdup (label->text) : NULL;
          edge.label_box = (OnyxRect) { piece->ox + piece->level->label.x, piece->oy + piece->level->label.y,
                                        piece->level->label.width, piece->level->label.height };
          if (label->mark != NULL)
            {
              edge.mark = g_strdup (label->mark->text);
              edge.mark_nodes = g_array_copy (label->mark->nodes);
              edge.mark_box = (OnyxRect) { edge.label_box.x, edge.label_box.y + (edge.label != NULL ? LABEL_HEIGHT : 0),
                                           label->mark_width, MARK_HEIGHT };
            }
        }
    }
  g_array_append_val (out->edges, edge);
}

/* Draws the edges through piece `index`, whose pieces before it are joined in `points`
 * (from layout node `from`): on through the ports it reaches, to every box beyond. */
static void
follow (Run *run, OnyxLayout *out, Pieces *pieces, guint index, GArray *points, int from, int labelled)
{
  Piece *piece = &g_array_index (pieces->pieces, Piece, index);
  g_autoptr (GArray) joined = g_array_copy (points);
  const GArray *next = NULL;

  piece->reached = TRUE;
  append_piece (joined, piece);
  if (piece->level->label.width >= 0)
    labelled = (int) index;
  if (piece->level->tensor != NULL && piece->level->to_port && piece->to >= 0)
    next = pieces_at (pieces->from_in_port, piece->to, piece->level->tensor);
  else if (piece->level->tensor != NULL && piece->to < 0 && piece->group >= 0)
    next = pieces_at (pieces->from_out_port, piece->group, piece->level->tensor);
  if (next == NULL)
    {
      add_edge (run, out, pieces, joined, from, index, labelled);
      return;
    }
  for (guint i = 0; i < next->len; i++)
    follow (run, out, pieces, g_array_index (next, guint, i), joined, from, labelled);
}

/* The layout's edges, each from a box to a box: the pieces joined at the ports. */
static void
join_pieces (Run *run, OnyxLayout *out, Pieces *pieces)
{
  g_autoptr (GArray) none = g_array_new (FALSE, FALSE, sizeof (double));

  for (guint i = 0; i < pieces->pieces->len; i++)
    {
      const Piece *piece = &g_array_index (pieces->pieces, Piece, i);
      if (piece->from >= 0 && !piece->level->from_port)
        follow (run, out, pieces, i, none, piece->from, -1);
    }
  /* A piece no box's edge reaches (a port its group's parent has no line to) is drawn
   * from its group's side. */
  for (guint i = 0; i < pieces->pieces->len; i++)
    {
      const Piece *piece = &g_array_index (pieces->pieces, Piece, i);
      if (!piece->reached)
        follow (run, out, pieces, i, none, piece->from >= 0 ? piece->from : piece->group, -1);
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

/* The layout of `root` (the top group) in a run; NULL when cancelled. */
static OnyxLayout *
lay_out_run (Run *run, Group *root)
{
  GroupLayout *top = onyx_layout_group (run, root);
  OnyxLayout *layout;
  Pieces pieces;

  if (top == NULL)
    return NULL;
  layout = g_new0 (OnyxLayout, 1);
  layout->nodes = g_array_new (FALSE, TRUE, sizeof (OnyxLayoutNode));
  layout->edges = g_array_new (FALSE, TRUE, sizeof (OnyxLayoutEdge));
  g_array_set_clear_func (layout->nodes, (GDestroyNotify) clear_layout_node);
  g_array_set_clear_func (layout->edges, (GDestroyNotify) clear_layout_edge);
  pieces = (Pieces) { g_array_new (FALSE, FALSE, sizeof (Piece)),
                      g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_array_unref),
                      g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_array_unref) };
  compose (run, layout, &pieces, root, 0, 0, -1);
  join_pieces (run, layout, &pieces);
  g_array_unref (pieces.pieces);
  g_hash_table_unref (pieces.from_in_port);
  g_hash_table_unref (pieces.from_out_port);
  if (g_cancellable_is_cancelled (run->cancellable))
    {
      onyx_layout_free (layout);
      return NULL;
    }
  layout->bounds = (OnyxRect) { 0, 0, top->width, top->height };
  layout->n_dot_runs = run->n_dot_runs;
  layout->n_disk_hits = run->n_disk_hits;
  return layout;
}

OnyxLayout *
onyx_layout_engine_run (OnyxLayoutEngine *engine, GHashTable *expanded, OnyxLayoutProgress progress,
                        gpointer progress_data, GCancellable *cancellable)
{
  g_autoptr (GPtrArray) held = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_layout_group_layout_unref);
  Run run = { engine, expanded, cancellable, progress, progress_data, 0, 0, 0, 0, held, NULL, NULL, NULL };
  Group *root = onyx_layout_effective_group (engine->root);
  OnyxLayout *layout;

  onyx_layout_run_stacks_init (&run);
  run.n_total = count_work (&run, root);
  layout = lay_out_run (&run, root);
  g_free (run.stack_shown);
  g_free (run.item_edges_start);
  g_free (run.item_edges);
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
