#include "onyx-graph-index.h"

#include <string.h>

/* Subgraph nesting followed when collecting outer reads; the loader refuses deeper
 * message nesting long before this. */
#define MAX_SUBGRAPH_DEPTH 64

struct _OnyxGraphIndex {
  Onnx__GraphProto *graph;
  GHashTable *values;        /* name → OnyxValue */
  GHashTable *node_names;    /* name → first Onnx__NodeProto with that name */
  GHashTable *name_counts;   /* name → how many indexed nodes carry it */
  GHashTable *inputs;        /* name → Onnx__ValueInfoProto */
  GHashTable *outputs;       /* name → Onnx__ValueInfoProto */
  GHashTable *initializers;  /* name → Onnx__TensorProto */
  GHashTable *nodes;         /* the Onnx__NodeProto* indexed */
  guint n_list_duplicates;   /* list items named as an earlier one of their list */
};

static void
value_free (OnyxValue *value)
{
  g_free (value->name);
  g_array_unref (value->uses);
  g_free (value);
}

static OnyxValue *
ensure_value (OnyxGraphIndex *index, const char *name)
{
  OnyxValue *value = g_hash_table_lookup (index->values, name);

  if (value == NULL)
    {
      value = g_new0 (OnyxValue, 1);
      value->name = g_strdup (name);
      value->uses = g_array_new (FALSE, FALSE, sizeof (OnyxUse));
      g_hash_table_insert (index->values, value->name, value);
    }
  return value;
}

/* Values nobody reads or writes are dropped so that lookups tell what exists. */
static void
drop_if_unused (OnyxGraphIndex *index, OnyxValue *value)
{
  if (value->producer == NULL && value->uses->len == 0)
    g_hash_table_remove (index->values, value->name);
}

static void
collect_outer_reads (const Onnx__GraphProto *graph, GPtrArray *names, guint depth)
{
  GHashTable *defined;

  if (depth > MAX_SUBGRAPH_DEPTH)
    return;
  defined = g_hash_table_new (g_str_hash, g_str_equal);
  /* Optional names are NULL when a file leaves them out. */
  for (size_t i = 0; i < graph->n_input; i++)
    if (graph->input[i]->name != NULL)
      g_hash_table_add (defined, graph->input[i]->name);
  for (size_t i = 0; i < graph->n_initializer; i++)
    if (graph->initializer[i]->name != NULL)
      g_hash_table_add (defined, graph->initializer[i]->name);
  for (size_t n = 0; n < graph->n_node; n++)
    for (size_t k = 0; k < graph->node[n]->n_output; k++)
      g_hash_table_add (defined, graph->node[n]->output[k]);

  for (size_t n = 0; n < graph->n_node; n++)
    {
      const Onnx__NodeProto *node = graph->node[n];
      GPtrArray *inner = g_ptr_array_new ();

      for (size_t k = 0; k < node->n_input; k++)
        g_ptr_array_add (inner, node->input[k]);
      for (size_t a = 0; a < node->n_attribute; a++)
        {
          const Onnx__AttributeProto *attr = node->attribute[a];
          if (attr->g != NULL)
            collect_outer_reads (attr->g, inner, depth + 1);
          for (size_t g = 0; g < attr->n_graphs; g++)
            collect_outer_reads (attr->graphs[g], inner, depth + 1);
        }
      for (guint i = 0; i < inner->len; i++)
        {
          const char *name = inner->pdata[i];
          if (name != NULL && name[0] != '\0' && !g_hash_table_contains (defined, name))
            g_ptr_array_add (names, (gpointer) name);
        }
      g_ptr_array_unref (inner);
    }
  g_hash_table_unref (defined);
}

void
onyx_graph_collect_outer_reads (const Onnx__GraphProto *graph, GPtrArray *names)
{
  collect_outer_reads (graph, names, 0);
}

const char *
onyx_node_input (const Onnx__NodeProto *node, guint slot)
{
  return slot < node->n_input && node->input[slot][0] != '\0' ? node->input[slot] : NULL;
}

const char *
onyx_node_output (const Onnx__NodeProto *node, guint slot)
{
  return slot < node->n_output && node->output[slot][0] != '\0' ? node->output[slot] : NULL;
}

const char *
onyx_node_name_or_op (const Onnx__NodeProto *node)
{
  return node->name != NULL && node->name[0] != '\0' ? node->name : node->op_type;
}

void
onyx_node_collect_reads (const Onnx__NodeProto *node, GPtrArray *names)
{
  for (size_t k = 0; k < node->n_input; k++)
    if (node->input[k] != NULL && node->input[k][0] != '\0')
      g_ptr_array_add (names, node->input[k]);
  for (size_t a = 0; a < node->n_attribute; a++)
    {
      if (node->attribute[a]->g != NULL)
        onyx_graph_collect_outer_reads (node->attribute[a]->g, names);
      for (size_t g = 0; g < node->attribute[a]->n_graphs; g++)
        onyx_graph_collect_outer_reads (node->attribute[a]->graphs[g], names);
    }
}

/* `names` with repeats left out, in order of first appearance (consumes `names`). */
static GPtrArray *
unique_names (GPtrArray *names)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  GPtrArray *unique = g_ptr_array_new ();

  for (guint i = 0; i < names->len; i++)
    if (g_hash_table_add (seen, names->pdata[i]))
      g_ptr_array_add (unique, names->pdata[i]);
  g_ptr_array_unref (names);
  return unique;
}

GPtrArray *
onyx_graph_outer_reads (const Onnx__GraphProto *graph)
{
  GPtrArray *names = g_ptr_array_new ();

  onyx_graph_collect_outer_reads (graph, names);
  return unique_names (names);
}

gboolean
onyx_node_has_subgraphs (const Onnx__NodeProto *node)
{
  for (size_t a = 0; a < node->n_attribute; a++)
    if (node->attribute[a]->g != NULL || node->attribute[a]->n_graphs > 0)
      return TRUE;
  return FALSE;
}

GPtrArray *
onyx_node_implicit_reads (const Onnx__NodeProto *node)
{
  GPtrArray *names = g_ptr_array_new ();

  for (size_t a = 0; a < node->n_attribute; a++)
    {
      const Onnx__AttributeProto *attr = node->attribute[a];
      if (attr->g != NULL)
        onyx_graph_collect_outer_reads (attr->g, names);
      for (size_t g = 0; g < attr->n_graphs; g++)
        onyx_graph_collect_outer_reads (attr->graphs[g], names);
    }
  return unique_names (names);
}

void
onyx_graph_index_add_use (OnyxGraphIndex *index, const char *name, Onnx__NodeProto *node,
                          guint input)
{
  OnyxUse use = { node, input };

  if (name == NULL || name[0] == '\0')
    return;
  g_array_append_val (ensure_value (index, name)->uses, use);
}

void
onyx_graph_index_remove_use (OnyxGraphIndex *index, const char *name, Onnx__NodeProto *node,
                             guint input)
{
  OnyxValue *value;

  if (name == NULL || name[0] == '\0' || (value = g_hash_table_lookup (index->values, name)) == NULL)
    return;
  for (guint i = 0; i < value->uses->len; i++)
    {
      OnyxUse *use = &g_array_index (value->uses, OnyxUse, i);
      if (use->node == node && use->input == input)
        {
          g_array_remove_index_fast (value->uses, i);
          break;
        }
    }
  drop_if_unused (index, value);
}

void
onyx_graph_index_set_producer (OnyxGraphIndex *index, const char *name, Onnx__NodeProto *node,
                               guint output)
{
  OnyxValue *value;

  if (name == NULL || name[0] == '\0')
    return;
  if (node != NULL)
    {
      value = ensure_value (index, name);
      value->producer = node;
      value->producer_output = output;
      return;
    }
  value = g_hash_table_lookup (index->values, name);
  if (value != NULL)
    {
      value->producer = NULL;
      drop_if_unused (index, value);
    }
}

/* How many indexed nodes carry `name`, after adding `delta`. */
static guint
count_name (OnyxGraphIndex *index, const char *name, int delta)
{
  guint count;

  if (name == NULL || name[0] == '\0')
    return 0;
  count = GPOINTER_TO_UINT (g_hash_table_lookup (index->name_counts, name));
  count = delta < 0 && count == 0 ? 0 : (guint) ((int) count + delta);
  if (count == 0)
    g_hash_table_remove (index->name_counts, name);
  else
    g_hash_table_replace (index->name_counts, g_strdup (name), GUINT_TO_POINTER (count));
  return count;
}

void
onyx_graph_index_add_node (OnyxGraphIndex *index, Onnx__NodeProto *node)
{
  /* Indexing a node twice would count its uses twice. */
  if (!g_hash_table_add (index->nodes, node))
    return;

  for (size_t k = 0; k < node->n_input; k++)
    onyx_graph_index_add_use (index, node->input[k], node, (guint) k);
  /* (Asked of holders only: the list costs two allocations and a table per node.) */
  if (onyx_node_has_subgraphs (node))
    {
      g_autoptr (GPtrArray) implicit = onyx_node_implicit_reads (node);
      for (guint i = 0; i < implicit->len; i++)
        onyx_graph_index_add_use (index, implicit->pdata[i], node, ONYX_USE_IMPLICIT);
    }
  for (size_t k = 0; k < node->n_output; k++)
    {
      OnyxValue *value;
      if (node->output[k] == NULL || node->output[k][0] == '\0')
        continue;
      /* With duplicate producers (an invalid graph) the first one stays indexed. */
      value = ensure_value (index, node->output[k]);
      if (value->producer == NULL)
        {
          value->producer = node;
          value->producer_output = (guint) k;
        }
    }
  if (node->name != NULL && node->name[0] != '\0' && !g_hash_table_contains (index->node_names, node->name))
    g_hash_table_insert (index->node_names, g_strdup (node->name), node);
  count_name (index, node->name, +1);
}

void
onyx_graph_index_remove_node (OnyxGraphIndex *index, Onnx__NodeProto *node)
{
  if (!g_hash_table_remove (index->nodes, node))
    return;

  for (size_t k = 0; k < node->n_input; k++)
    onyx_graph_index_remove_use (index, node->input[k], node, (guint) k);
  if (onyx_node_has_subgraphs (node))
    {
      g_autoptr (GPtrArray) implicit = onyx_node_implicit_reads (node);
      for (guint i = 0; i < implicit->len; i++)
        onyx_graph_index_remove_use (index, implicit->pdata[i], node, ONYX_USE_IMPLICIT);
    }
  for (size_t k = 0; k < node->n_output; k++)
    {
      OnyxValue *value = node->output[k] != NULL ? g_hash_table_lookup (index->values, node->output[k]) : NULL;
      if (value != NULL && value->producer == node)
        onyx_graph_index_set_producer (index, node->output[k], NULL, 0);
    }
  /* Called after the node left graph->node: renaming "from its name" unlists it. */
  onyx_graph_index_node_renamed (index, node, node->name);
}

void
onyx_graph_index_node_renamed (OnyxGraphIndex *index, Onnx__NodeProto *node, const char *old_name)
{
  gboolean indexed = g_hash_table_contains (index->nodes, node);
  guint n_left = count_name (index, old_name, -1);

  if (indexed)
    count_name (index, node->name, +1);
  if (old_name != NULL && g_hash_table_lookup (index->node_names, old_name) == node)
    {
      g_hash_table_remove (index->node_names, old_name);
      /* Another node may carry the same name: it becomes the one found. */
      for (size_t i = 0; n_left > 0 && i < index->graph->n_node; i++)
        {
          Onnx__NodeProto *other = index->graph->node[i];
          if (other != node && g_strcmp0 (other->name, old_name) == 0)
            {
              g_hash_table_insert (index->node_names, g_strdup (old_name), other);
              break;
            }
        }
    }
  if (node->name != NULL && node->name[0] != '\0' && !g_hash_table_contains (index->node_names, node->name) &&
      indexed)
    g_hash_table_insert (index->node_names, g_strdup (node->name), node);
}

void
onyx_graph_index_refresh_lists (OnyxGraphIndex *index)
{
  Onnx__GraphProto *graph = index->graph;

  g_hash_table_remove_all (index->inputs);
  g_hash_table_remove_all (index->outputs);
  g_hash_table_remove_all (index->initializers);
  index->n_list_duplicates = 0;
  /* Optional names are NULL when a file leaves them out: such entries name nothing.
   * Of two items of one name the last is in the map. */
  for (size_t i = 0; i < graph->n_input; i++)
    if (graph->input[i]->name != NULL)
      index->n_list_duplicates += !g_hash_table_insert (index->inputs, graph->input[i]->name, graph->input[i]);
  for (size_t i = 0; i < graph->n_output; i++)
    if (graph->output[i]->name != NULL)
      index->n_list_duplicates += !g_hash_table_insert (index->outputs, graph->output[i]->name, graph->output[i]);
  for (size_t i = 0; i < graph->n_initializer; i++)
    if (graph->initializer[i]->name != NULL)
      index->n_list_duplicates += !g_hash_table_insert (index->initializers, graph->initializer[i]->name,
                                                        graph->initializer[i]);
}

static GHashTable *
list_map (OnyxGraphIndex *index, const char *field)
{
  return strcmp (field, "input") == 0         ? index->inputs
         : strcmp (field, "output") == 0      ? index->outputs
         : strcmp (field, "initializer") == 0 ? index->initializers
                                              : NULL;
}

static const char *
list_item_name (ProtobufCMessage *item)
{
  return item->descriptor == &onnx__tensor_proto__descriptor ? ((Onnx__TensorProto *) item)->name
                                                              : ((Onnx__ValueInfoProto *) item)->name;
}

void
onyx_graph_index_list_item_added (OnyxGraphIndex *index, const char *field, ProtobufCMessage *item)
{
  GHashTable *map = list_map (index, field);
  const char *name = list_item_name (item);

  if (map == NULL || name == NULL)
    return;
  /* Two items of one name: which one the map holds depends on their order. */
  if (g_hash_table_contains (map, name))
    onyx_graph_index_refresh_lists (index);
  else
    g_hash_table_insert (map, (gpointer) name, item);
}

void
onyx_graph_index_list_item_removed (OnyxGraphIndex *index, const char *field, ProtobufCMessage *item)
{
  GHashTable *map = list_map (index, field);
  const char *name = list_item_name (item);

  if (map == NULL || name == NULL)
    return;
  /* Another item of that name may have been hidden behind it. */
  if (index->n_list_duplicates > 0)
    onyx_graph_index_refresh_lists (index);
  else if (g_hash_table_lookup (map, name) == item)
    g_hash_table_remove (map, name);
}

OnyxGraphIndex *
onyx_graph_index_new (Onnx__GraphProto *graph)
{
  OnyxGraphIndex *index = g_new0 (OnyxGraphIndex, 1);

  index->graph = graph;
  index->values = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) value_free);
  index->node_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  index->name_counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  index->inputs = g_hash_table_new (g_str_hash, g_str_equal);
  index->outputs = g_hash_table_new (g_str_hash, g_str_equal);
  index->initializers = g_hash_table_new (g_str_hash, g_str_equal);
  index->nodes = g_hash_table_new (NULL, NULL);
  for (size_t i = 0; i < graph->n_node; i++)
    onyx_graph_index_add_node (index, graph->node[i]);
  onyx_graph_index_refresh_lists (index);
  return index;
}

void
onyx_graph_index_free (OnyxGraphIndex *index)
{
  if (index == NULL)
    return;
  g_hash_table_unref (index->values);
  g_hash_table_unref (index->node_names);
  g_hash_table_unref (index->name_counts);
  g_hash_table_unref (index->inputs);
  g_hash_table_unref (index->outputs);
  g_hash_table_unref (index->initializers);
  g_hash_table_unref (index->nodes);
  g_free (index);
}

Onnx__GraphProto *
onyx_graph_index_get_graph (OnyxGraphIndex *index)
{
  return index->graph;
}

OnyxValue *
onyx_graph_index_lookup (OnyxGraphIndex *index, const char *name)
{
  return name != NULL ? g_hash_table_lookup (index->values, name) : NULL;
}

Onnx__NodeProto *
onyx_graph_index_node_by_name (OnyxGraphIndex *index, const char *name)
{
  return name != NULL ? g_hash_table_lookup (index->node_names, name) : NULL;
}

Onnx__ValueInfoProto *
onyx_graph_index_graph_input (OnyxGraphIndex *index, const char *name)
{
  return name != NULL ? g_hash_table_lookup (index->inputs, name) : NULL;
}

Onnx__ValueInfoProto *
onyx_graph_index_graph_output (OnyxGraphIndex *index, const char *name)
{
  return name != NULL ? g_hash_table_lookup (index->outputs, name) : NULL;
}

Onnx__TensorProto *
onyx_graph_index_initializer (OnyxGraphIndex *index, const char *name)
{
  return name != NULL ? g_hash_table_lookup (index->initializers, name) : NULL;
}

gboolean
onyx_graph_index_defines (OnyxGraphIndex *index, const char *name)
{
  OnyxValue *value = onyx_graph_index_lookup (index, name);
  return (value != NULL && value->producer != NULL) ||
         onyx_graph_index_graph_input (index, name) != NULL ||
         onyx_graph_index_initializer (index, name) != NULL;
}

guint
onyx_graph_index_n_uses (OnyxGraphIndex *index, const char *name)
{
  OnyxValue *value = onyx_graph_index_lookup (index, name);
  return value != NULL ? value->uses->len : 0;
}

guint
onyx_graph_index_get_n_values (OnyxGraphIndex *index)
{
  return g_hash_table_size (index->values);
}

void
onyx_graph_index_foreach (OnyxGraphIndex *index, GHFunc func, gpointer user_data)
{
  g_hash_table_foreach (index->values, func, user_data);
}

gboolean
onyx_graph_index_has_node (OnyxGraphIndex *index, const Onnx__NodeProto *node)
{
  return g_hash_table_contains (index->nodes, node);
}

gssize
onyx_graph_index_node_position (OnyxGraphIndex *index, Onnx__NodeProto *node)
{
  /* A pointer scan: microseconds on 13,000 nodes, and it needs no bookkeeping that
   * every insertion or removal would have to shift. */
  for (size_t i = 0; i < index->graph->n_node; i++)
    if (index->graph->node[i] == node)
      return (gssize) i;
  return -1;
}
