/* Whole-graph passes as undoable edits: cleanup and topological sort. */
#include <string.h>

#include "onyx-edits-private.h"

#include <glib/gi18n-lib.h>

#include "onyx-replay.h"
#include "onyx-graph-index.h"
#include "onyx-validate.h"

#define MAX_SUBGRAPH_DEPTH 64

static void cleanup_graph (OnyxDocument *doc, Onnx__GraphProto *graph, guint depth);

/* Dead nodes and initializers of any graph (the main one or a subgraph), found by
 * walking back from the graph's outputs. Works from the proto, so subgraphs need no
 * index; the main graph's index follows through the recorded removals. */
static void
cleanup_graph (OnyxDocument *doc, Onnx__GraphProto *graph, guint depth)
{
  g_autoptr (GHashTable) producer_of = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) live_names = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) live_nodes = g_hash_table_new (NULL, NULL);
  g_autoptr (GPtrArray) pending = g_ptr_array_new ();

  if (depth > MAX_SUBGRAPH_DEPTH)
    return;
  for (size_t n = 0; n < graph->n_node; n++)
    for (size_t k = 0; k < graph->node[n]->n_output; k++)
      if (graph->node[n]->output[k][0] != '\0')
        g_hash_table_insert (producer_of, graph->node[n]->output[k], graph->node[n]);
  for (size_t i = 0; i < graph->n_output; i++)
    g_ptr_array_add (pending, graph->output[i]->name);
  while (pending->len > 0)
    {
      const char *name = g_ptr_array_steal_index (pending, pending->len - 1);
      Onnx__NodeProto *producer;
      if (name == NULL || name[0] == '\0' || !g_hash_table_add (live_names, (gpointer) name))
        continue;
      producer = g_hash_table_lookup (producer_of, name);
      if (producer != NULL && g_hash_table_add (live_nodes, producer))
        onyx_node_collect_reads (producer, pending);
    }

  for (size_t n = graph->n_node; n-- > 0;)
    if (!g_hash_table_contains (live_nodes, graph->node[n]))
      onyx_document_remove_item (doc, &graph->base, "node", n);
  for (size_t i = graph->n_initializer; i-- > 0;)
    {
      const char *name = graph->initializer[i]->name;
      gboolean also_input = FALSE;
      for (size_t k = 0; k < graph->n_input && !also_input; k++)
        also_input = g_strcmp0 (graph->input[k]->name, name) == 0;
      /* An initializer that is also a graph input is an input with a default: it stays. */
      if (!also_input && !g_hash_table_contains (live_names, name != NULL ? name : ""))
        onyx_document_remove_item (doc, &graph->base, "initializer", i);
    }
  for (size_t n = 0; n < graph->n_node; n++)
    for (size_t a = 0; a < graph->node[n]->n_attribute; a++)
      {
        Onnx__AttributeProto *attr = graph->node[n]->attribute[a];
        if (attr->g != NULL)
          cleanup_graph (doc, attr->g, depth + 1);
        for (size_t g = 0; g < attr->n_graphs; g++)
          cleanup_graph (doc, attr->graphs[g], depth + 1);
      }
}

/* Opset imports that no node uses any more, standard ones (ai.onnx.ml…) included, as
 * `check` reports them. ai.onnx's stays: `check` never reports it, and a later edit
 * (Insert Node, Replace Operator) resolves standard operators through it. */
static void
drop_unused_opsets (OnyxDocument *doc)
{
  Onnx__ModelProto *model = onyx_document_get_proto (doc);
  g_autoptr (GHashTable) used = onyx_model_used_domains (model);

  for (size_t i = model->n_opset_import; i-- > 0;)
    {
      const char *domain = model->opset_import[i]->domain;
      if (!onyx_domain_is_default (domain) && !g_hash_table_contains (used, domain))
        onyx_document_remove_item (doc, &model->base, "opset_import", i);
    }
}

static gboolean
replay_cleanup (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  return onyx_edit_cleanup (doc, error);
}

static const OnyxReplayStep cleanup_step = { "cleanup", 0, replay_cleanup };

gboolean
onyx_edit_cleanup (OnyxDocument *doc, GError **error)
{
  onyx_document_begin_command (doc, _("Clean up"));
  onyx_replay_note (doc, &cleanup_step, NULL);
  cleanup_graph (doc, onyx_edit_main_graph (doc), 0);
  drop_unused_opsets (doc);
  /* When nothing was dead the command is empty, and committing drops it. */
  onyx_document_commit_command (doc);
  return TRUE;
}

/* A min-heap of node positions, so that the sort keeps the file's order wherever
 * dependencies allow. */
static void
heap_push (GArray *heap, guint value)
{
  guint i = heap->len;
  g_array_append_val (heap, value);
  while (i > 0)
    {
      guint parent = (i - 1) / 2;
      guint *items = (guint *) heap->data;
      if (items[parent] <= items[i])
        break;
      guint tmp = items[parent];
      items[parent] = items[i];
      items[i] = tmp;
      i = parent;
    }
}

static guint
heap_pop (GArray *heap)
{
  guint *items = (guint *) heap->data;
  guint top = items[0];
  guint i = 0;

  items[0] = items[heap->len - 1];
  g_array_set_size (heap, heap->len - 1);
  items = (guint *) heap->data;
  for (;;)
    {
      guint left = 2 * i + 1, right = left + 1, smallest = i;
      if (left < heap->len && items[left] < items[smallest])
        smallest = left;
      if (right < heap->len && items[right] < items[smallest])
        smallest = right;
      if (smallest == i)
        break;
      guint tmp = items[smallest];
      items[smallest] = items[i];
      items[i] = tmp;
      i = smallest;
    }
  return top;
}

static gboolean
replay_toposort (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  return onyx_edit_toposort (doc, error);
}

static const OnyxReplayStep toposort_step = { "toposort", 0, replay_toposort };

gboolean
onyx_edit_toposort (OnyxDocument *doc, GError **error)
{
  Onnx__GraphProto *graph = onyx_edit_main_graph (doc);
  OnyxGraphIndex *index = onyx_document_get_index (doc);
  g_autoptr (GHashTable) position_of = g_hash_table_new (NULL, NULL);
  g_autofree guint *pending = g_new0 (guint, MAX (graph->n_node, 1));
  g_autofree Onnx__NodeProto **order = g_new (Onnx__NodeProto *, MAX (graph->n_node, 1));
  g_autoptr (GArray) heap = g_array_new (FALSE, FALSE, sizeof (guint));
  gboolean changed = FALSE;
  guint n_sorted = 0;

  for (size_t n = 0; n < graph->n_node; n++)
    g_hash_table_insert (position_of, graph->node[n], GSIZE_TO_POINTER (n));
  /* pending[n]: reads of node n (index entries, subgraph reads included) of tensors
   * that nodes of this graph produce; each is released once when its producer is
   * placed. */
  for (size_t n = 0; n < graph->n_node; n++)
    for (size_t k = 0; k < graph->node[n]->n_output; k++)
      {
        OnyxValue *value = onyx_graph_index_lookup (index, graph->node[n]->output[k]);
        if (value == NULL || value->producer != graph->node[n])
          continue;
        for (guint u = 0; u < value->uses->len; u++)
          pending[GPOINTER_TO_SIZE (g_hash_table_lookup (position_of,
                                                         g_array_index (value->uses, OnyxUse, u).node))]++;
      }
  for (size_t n = 0; n < graph->n_node; n++)
    if (pending[n] == 0)
      heap_push (heap, (guint) n);
  while (heap->len > 0)
    {
      guint n = heap_pop (heap);
      Onnx__NodeProto *node = graph->node[n];
      changed = changed || n != n_sorted;
      order[n_sorted++] = node;
      for (size_t k = 0; k < node->n_output; k++)
        {
          OnyxValue *value = onyx_graph_index_lookup (index, node->output[k]);
          if (value == NULL || value->producer != node)
            continue;
          for (guint u = 0; u < value->uses->len; u++)
            {
              guint user = GPOINTER_TO_UINT (g_hash_table_lookup (position_of,
                                                                   g_array_index (value->uses, OnyxUse, u).node));
              if (--pending[user] == 0)
                heap_push (heap, user);
            }
        }
    }
  if (n_sorted < graph->n_node)
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_CYCLE,
                           ngettext ("the graph has a cycle through %zu node: it cannot be sorted",
                                     "the graph has a cycle through %zu nodes: it cannot be sorted",
                                     graph->n_node - n_sorted),
                           graph->n_node - n_sorted);
  if (!changed)
    return TRUE;
  onyx_document_begin_command (doc, _("Sort nodes topologically"));
  onyx_replay_note (doc, &toposort_step, NULL);
  onyx_document_set_node_order (doc, graph, order);
  onyx_document_commit_command (doc);
  return TRUE;
}

const OnyxReplayStep *const onyx_cleanup_replay_steps[] = { &cleanup_step, &toposort_step, NULL };
