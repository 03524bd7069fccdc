/* onyx-run-profile-names.c: the names a profiled model's nodes run under
 * (onyx-run-profile-private.h).
 *
 * ONNX Runtime names no node itself: a node without a name gives a kernel without
 * one ("_kernel_time"), and two nodes of one name give two kernels no trace tells
 * apart. So every node without a name of its own in the whole model is given its
 * Onyx reference ("#3", "If_1:then_branch#0", as onyx_graph_list_node_reference
 * writes it) in a copy of the model, which is what the runtime runs; the file keeps
 * its names, and the profile lists those nodes by their reference. */
#include "onyx-run-profile-private.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "onyx-error.h"
#include "onyx-graph-names.h"

static void
count_graph_names (GHashTable *counts, Onnx__GraphProto *graph)
{
  for (size_t n = 0; n < graph->n_node; n++)
    if (graph->node[n]->name != NULL && graph->node[n]->name[0] != '\0')
      g_hash_table_insert (counts, graph->node[n]->name,
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (counts, graph->node[n]->name)) + 1));
}

char *
onyx_profile_qualified_op (const Onnx__NodeProto *node)
{
  gboolean standard = node->domain == NULL || node->domain[0] == '\0' || strcmp (node->domain, "ai.onnx") == 0;
  return standard ? g_strdup (node->op_type) : g_strdup_printf ("%s::%s", node->domain, node->op_type);
}

static void
graph_free (gpointer data)
{
  OnyxProfileGraph *graph = data;
  g_free (graph->name);
  g_free (graph);
}

gboolean
onyx_profile_name_nodes (OnyxProfile *profile, Onnx__ModelProto *model)
{
  g_autoptr (OnyxGraphList) list = onyx_graph_list_new (model);
  g_autoptr (GHashTable) counts = g_hash_table_new (g_str_hash, g_str_equal);
  guint n_graphs = 0, n_nodes = 0, at = 0;
  gboolean renamed = FALSE;

  /* Functions come last in the list: the runtime inlines them, and they are left out. */
  while (n_graphs < onyx_graph_list_size (list) && onyx_graph_list_get (list, n_graphs)->function == NULL)
    {
      count_graph_names (counts, onyx_graph_list_get (list, n_graphs)->graph);
      n_nodes += onyx_graph_list_get (list, n_graphs++)->graph->n_node;
    }
  profile->graphs = g_ptr_array_new_with_free_func (graph_free);
  profile->nodes = g_new0 (OnyxProfileNode, MAX (n_nodes, 1));
  profile->n_nodes = n_nodes;
  profile->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint g = 0; g < n_graphs; g++)
    {
      const OnyxGraphEntry *entry = onyx_graph_list_get (list, g);
      OnyxProfileGraph *graph = g_new0 (OnyxProfileGraph, 1);

      graph->name = g_strdup (entry->name);
      graph->first_node = at;
      graph->n_nodes = (guint) entry->graph->n_node;
      g_ptr_array_add (profile->graphs, graph);
      for (size_t n = 0; n < entry->graph->n_node; n++, at++)
        {
          const Onnx__NodeProto *proto = entry->graph->node[n];
          OnyxProfileNode *node = &profile->nodes[at];
          gboolean unique = proto->name != NULL && proto->name[0] != '\0' &&
                            GPOINTER_TO_UINT (g_hash_table_lookup (counts, proto->name)) == 1;

          node->graph = g;
          node->index = (guint) n;
          node->op_type = onyx_profile_qualified_op (proto);
          node->status = ONYX_PROFILE_FOLDED;
          if (unique)
            node->name = g_strdup (proto->name);
          else
            {
              node->name = onyx_graph_list_node_reference (list, proto);
              /* A node may be named like another's reference ("#3"): then it is not one. */
              while (g_hash_table_contains (counts, node->name) || g_hash_table_contains (profile->by_name, node->name))
                {
                  char *longer = g_strconcat (node->name, "'", NULL);
                  g_free (node->name);
                  node->name = longer;
                }
              renamed = TRUE;
            }
          g_hash_table_insert (profile->by_name, node->name, node);
        }
    }
  return renamed;
}

GBytes *
onyx_profile_renamed_model (const OnyxProfile *profile, GBytes *serialized, GError **error)
{
  OnyxProtoPool *pool = NULL;
  Onnx__ModelProto *copy = (Onnx__ModelProto *) onyx_proto_unpack_pooled (&onnx__model_proto__descriptor,
                                                                          serialized, &pool);
  g_autoptr (GPtrArray) graphs = copy != NULL ? onyx_graph_list_graphs (copy) : NULL;
  g_autoptr (GPtrArray) kept = g_ptr_array_new ();
  GBytes *bytes = NULL;
  guint at = 0;
  gboolean same = graphs != NULL && graphs->len == profile->graphs->len;

  for (guint g = 0; same && g < graphs->len; g++)
    same = ((Onnx__GraphProto *) graphs->pdata[g])->n_node == ((OnyxProfileGraph *) profile->graphs->pdata[g])->n_nodes;
  if (!same)
    {
      onyx_proto_pool_free (pool);
      g_set_error_literal (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_INTERNAL,
                           _("the model to profile could not be copied to name its nodes"));
      return NULL;
    }
  /* The pool's names are put back before it is freed: its strings are its own. */
  for (guint g = 0; g < graphs->len; g++)
    {
      Onnx__GraphProto *graph = graphs->pdata[g];
      for (size_t n = 0; n < graph->n_node; n++, at++)
        {
          g_ptr_array_add (kept, graph->node[n]->name);
          graph->node[n]->name = profile->nodes[at].name;
        }
    }
  {
    gsize size = onnx__model_proto__get_packed_size (copy);
    guint8 *data = g_malloc (MAX (size, 1));
    onnx__model_proto__pack (copy, data);
    bytes = g_bytes_new_take (data, size);
  }
  at = 0;
  for (guint g = 0; g < graphs->len; g++)
    {
      Onnx__GraphProto *graph = graphs->pdata[g];
      for (size_t n = 0; n < graph->n_node; n++)
        graph->node[n]->name = kept->pdata[at++];
    }
  onyx_proto_pool_free (pool);
  return bytes;
}
