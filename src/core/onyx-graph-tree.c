#include "onyx-graph-tree.h"

/* As onyx-graph-index.c: the loader refuses deeper message nesting long before. */
#define MAX_DEPTH 64

struct _OnyxGraphTree {
  Onnx__GraphProto *main_graph;
  GHashTable *graph_of;   /* Onnx__NodeProto* → Onnx__GraphProto* */
  GHashTable *owner_of;   /* Onnx__GraphProto* (subgraph) → Onnx__NodeProto* */
  GHashTable *indexes;    /* Onnx__GraphProto* → OnyxGraphIndex* (owned) */
  /* Node names: most are carried by one node, which `named` holds (no array per name:
   * 13k of them took a tenth of a large model's indexing); a name several carry is
   * in `shared` too, with all of them. */
  GHashTable *named;      /* node name (owned) → Onnx__NodeProto*, one of those with it */
  GHashTable *shared;     /* node name (owned) → GPtrArray of the nodes with it, 2 or more */
  /* Holders out of their indexes for a batch of changes to a subgraph: still in
   * their graphs (NULL when no batch runs). */
  GHashTable *set_aside;
};

/* One holder taken out of an index, to be put back. */
typedef struct {
  OnyxGraphIndex *index;
  Onnx__NodeProto *node;
} Taken;

static void add_graph_nodes (OnyxGraphTree *tree, Onnx__GraphProto *graph, guint depth);

static void
name_node (OnyxGraphTree *tree, Onnx__NodeProto *node, const char *name)
{
  Onnx__NodeProto *first;
  GPtrArray *nodes;

  if (name == NULL || name[0] == '\0')
    return;
  if ((first = g_hash_table_lookup (tree->named, name)) == NULL)
    {
      g_hash_table_insert (tree->named, g_strdup (name), node);
      return;
    }
  if ((nodes = g_hash_table_lookup (tree->shared, name)) == NULL)
    {
      nodes = g_ptr_array_new ();
      g_ptr_array_add (nodes, first);
      g_hash_table_insert (tree->shared, g_strdup (name), nodes);
    }
  g_ptr_array_add (nodes, node);
}

static void
unname_node (OnyxGraphTree *tree, Onnx__NodeProto *node, const char *name)
{
  GPtrArray *nodes;

  if (name == NULL)
    return;
  if ((nodes = g_hash_table_lookup (tree->shared, name)) == NULL)
    {
      if (g_hash_table_lookup (tree->named, name) == node)
        g_hash_table_remove (tree->named, name);
      return;
    }
  if (!g_ptr_array_remove_fast (nodes, node))
    return;
  /* Whichever is left stands for the name. */
  g_hash_table_insert (tree->named, g_strdup (name), nodes->pdata[0]);
  if (nodes->len == 1)
    g_hash_table_remove (tree->shared, name);
}

/* The node and the nodes of its subgraphs, at any depth. */
static void
foreach_nested (Onnx__NodeProto *node, guint depth, void (*func) (OnyxGraphTree *, Onnx__NodeProto *),
                OnyxGraphTree *tree)
{
  func (tree, node);
  if (depth >= MAX_DEPTH)
    return;
  for (size_t a = 0; a < node->n_attribute; a++)
    {
      Onnx__AttributeProto *attr = node->attribute[a];
      for (size_t g = 0; g < (attr->g != NULL ? 1 : attr->n_graphs); g++)
        {
          Onnx__GraphProto *graph = attr->g != NULL ? attr->g : attr->graphs[g];
          for (size_t n = 0; n < graph->n_node; n++)
            foreach_nested (graph->node[n], depth + 1, func, tree);
        }
    }
}

static void
unname_one (OnyxGraphTree *tree, Onnx__NodeProto *node)
{
  unname_node (tree, node, node->name);
}

static void
add_node (OnyxGraphTree *tree, Onnx__NodeProto *node, Onnx__GraphProto *graph, guint depth)
{
  g_hash_table_insert (tree->graph_of, node, graph);
  name_node (tree, node, node->name);
  if (depth >= MAX_DEPTH)
    return;
  for (size_t a = 0; a < node->n_attribute; a++)
    {
      Onnx__AttributeProto *attr = node->attribute[a];
      if (attr->g != NULL)
        {
          g_hash_table_insert (tree->owner_of, attr->g, node);
          add_graph_nodes (tree, attr->g, depth + 1);
        }
      for (size_t g = 0; g < attr->n_graphs; g++)
        {
          g_hash_table_insert (tree->owner_of, attr->graphs[g], node);
          add_graph_nodes (tree, attr->graphs[g], depth + 1);
        }
    }
}

static void
add_graph_nodes (OnyxGraphTree *tree, Onnx__GraphProto *graph, guint depth)
{
  for (size_t n = 0; n < graph->n_node; n++)
    add_node (tree, graph->node[n], graph, depth);
}

OnyxGraphTree *
onyx_graph_tree_new (Onnx__GraphProto *main_graph)
{
  OnyxGraphTree *tree = g_new0 (OnyxGraphTree, 1);

  tree->main_graph = main_graph;
  tree->graph_of = g_hash_table_new (NULL, NULL);
  tree->owner_of = g_hash_table_new (NULL, NULL);
  tree->indexes = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) onyx_graph_index_free);
  tree->named = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  tree->shared = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
  add_graph_nodes (tree, main_graph, 0);
  g_hash_table_insert (tree->indexes, main_graph, onyx_graph_index_new (main_graph));
  return tree;
}

void
onyx_graph_tree_free (OnyxGraphTree *tree)
{
  if (tree == NULL)
    return;
  g_hash_table_unref (tree->graph_of);
  g_hash_table_unref (tree->owner_of);
  g_hash_table_unref (tree->indexes);
  g_hash_table_unref (tree->named);
  g_hash_table_unref (tree->shared);
  g_clear_pointer (&tree->set_aside, g_hash_table_unref);
  g_free (tree);
}

Onnx__GraphProto *
onyx_graph_tree_main_graph (OnyxGraphTree *tree)
{
  return tree->main_graph;
}

OnyxGraphIndex *
onyx_graph_tree_index_if_any (OnyxGraphTree *tree, Onnx__GraphProto *graph)
{
  return g_hash_table_lookup (tree->indexes, graph);
}

OnyxGraphIndex *
onyx_graph_tree_index (OnyxGraphTree *tree, Onnx__GraphProto *graph)
{
  OnyxGraphIndex *index = g_hash_table_lookup (tree->indexes, graph);

  if (index == NULL)
    {
      index = onyx_graph_index_new (graph);
      g_hash_table_insert (tree->indexes, graph, index);
    }
  return index;
}

Onnx__GraphProto *
onyx_graph_tree_graph_of (OnyxGraphTree *tree, const Onnx__NodeProto *node)
{
  return g_hash_table_lookup (tree->graph_of, node);
}

Onnx__NodeProto *
onyx_graph_tree_owner (OnyxGraphTree *tree, const Onnx__GraphProto *graph)
{
  return g_hash_table_lookup (tree->owner_of, graph);
}

/* An index knows at once; a graph without one is walked. (Holders leave their
 * index only while one primitive change is applied, or for a batch of them, when
 * they are set aside.) */
static gboolean
is_in_graph (OnyxGraphTree *tree, Onnx__NodeProto *node, Onnx__GraphProto *graph)
{
  OnyxGraphIndex *index = g_hash_table_lookup (tree->indexes, graph);

  if (index != NULL)
    return onyx_graph_index_has_node (index, node) ||
           (tree->set_aside != NULL && g_hash_table_contains (tree->set_aside, node));
  for (size_t i = 0; i < graph->n_node; i++)
    if (graph->node[i] == node)
      return TRUE;
  return FALSE;
}

Onnx__NodeProto *
onyx_graph_tree_main_ancestor (OnyxGraphTree *tree, Onnx__NodeProto *node)
{
  for (guint depth = 0; node != NULL && depth <= MAX_DEPTH; depth++)
    {
      Onnx__GraphProto *graph = onyx_graph_tree_graph_of (tree, node);
      if (graph == NULL || !is_in_graph (tree, node, graph))
        return NULL;
      if (graph == tree->main_graph)
        return node;
      node = onyx_graph_tree_owner (tree, graph);
    }
  return NULL;
}

static gboolean
holds (Onnx__ValueInfoProto **infos, size_t n, const ProtobufCMessage *message)
{
  for (size_t i = 0; i < n; i++)
    if (&infos[i]->base == message)
      return TRUE;
  return FALSE;
}

static gboolean
graph_holds (const Onnx__GraphProto *graph, const ProtobufCMessage *message)
{
  for (size_t i = 0; i < graph->n_initializer; i++)
    if (&graph->initializer[i]->base == message)
      return TRUE;
  return holds (graph->input, graph->n_input, message) ||
         holds (graph->output, graph->n_output, message) ||
         holds (graph->value_info, graph->n_value_info, message);
}

Onnx__GraphProto *
onyx_graph_tree_graph_of_message (OnyxGraphTree *tree, const ProtobufCMessage *message)
{
  GHashTableIter iter;
  gpointer graph;

  if (graph_holds (tree->main_graph, message))
    return tree->main_graph;
  g_hash_table_iter_init (&iter, tree->owner_of);
  while (g_hash_table_iter_next (&iter, &graph, NULL))
    if (graph_holds (graph, message))
      return graph;
  return NULL;
}

void
onyx_graph_tree_add_node (OnyxGraphTree *tree, Onnx__NodeProto *node, Onnx__GraphProto *graph)
{
  add_node (tree, node, graph, 0);
}

void
onyx_graph_tree_remove_node (OnyxGraphTree *tree, Onnx__NodeProto *node)
{
  foreach_nested (node, 0, unname_one, tree);
}

void
onyx_graph_tree_node_renamed (OnyxGraphTree *tree, Onnx__NodeProto *node, const char *old_name)
{
  unname_node (tree, node, old_name);
  name_node (tree, node, node->name);
}

Onnx__NodeProto *
onyx_graph_tree_node_named (OnyxGraphTree *tree, const char *name, guint *n_named)
{
  GPtrArray *nodes = name != NULL ? g_hash_table_lookup (tree->shared, name) : NULL;
  Onnx__NodeProto *node = name != NULL && nodes == NULL ? g_hash_table_lookup (tree->named, name) : NULL;

  if (n_named != NULL)
    *n_named = nodes != NULL ? nodes->len : node != NULL;
  return node;
}

GPtrArray *
onyx_graph_tree_unindex_holders (OnyxGraphTree *tree, Onnx__GraphProto *graph)
{
  GPtrArray *taken = NULL;

  for (guint depth = 0; graph != tree->main_graph && depth <= MAX_DEPTH; depth++)
    {
      Onnx__NodeProto *holder = onyx_graph_tree_owner (tree, graph);
      Onnx__GraphProto *around = holder != NULL ? onyx_graph_tree_graph_of (tree, holder) : NULL;
      OnyxGraphIndex *index;

      if (around == NULL)
        break;
      index = g_hash_table_lookup (tree->indexes, around);
      /* An edit may have taken the holder out itself, meaning to put it back. */
      if (index != NULL && onyx_graph_index_has_node (index, holder))
        {
          Taken *one = g_new (Taken, 1);
          one->index = index;
          one->node = holder;
          onyx_graph_index_remove_node (index, holder);
          if (taken == NULL)
            taken = g_ptr_array_new_with_free_func (g_free);
          g_ptr_array_add (taken, one);
        }
      graph = around;
    }
  return taken;
}

GPtrArray *
onyx_graph_tree_begin_batch (OnyxGraphTree *tree, Onnx__GraphProto *graph)
{
  GPtrArray *taken = onyx_graph_tree_unindex_holders (tree, graph);

  g_return_val_if_fail (tree->set_aside == NULL, taken);
  tree->set_aside = g_hash_table_new (NULL, NULL);
  for (guint i = 0; taken != NULL && i < taken->len; i++)
    g_hash_table_add (tree->set_aside, ((Taken *) taken->pdata[i])->node);
  return taken;
}

void
onyx_graph_tree_end_batch (OnyxGraphTree *tree, GPtrArray *taken)
{
  g_clear_pointer (&tree->set_aside, g_hash_table_unref);
  onyx_graph_tree_reindex (tree, taken);
}

void
onyx_graph_tree_reindex (OnyxGraphTree *tree, GPtrArray *taken)
{
  if (taken == NULL)
    return;
  /* Innermost first, as they were taken: each reads the state below it. */
  for (guint i = 0; i < taken->len; i++)
    {
      Taken *one = taken->pdata[i];
      onyx_graph_index_add_node (one->index, one->node);
    }
  g_ptr_array_unref (taken);
}

void
onyx_graph_tree_lineage (OnyxGraphTree *tree, Onnx__GraphProto *graph, GPtrArray *graphs)
{
  for (guint depth = 0; graph != NULL && depth <= MAX_DEPTH; depth++)
    {
      Onnx__NodeProto *holder;
      g_ptr_array_add (graphs, graph);
      if (graph == tree->main_graph)
        return;
      holder = onyx_graph_tree_owner (tree, graph);
      graph = holder != NULL ? onyx_graph_tree_graph_of (tree, holder) : NULL;
    }
}
