#include "onyx-summary.h"

#include <string.h>

#include "onyx-types.h"
#include "onyx-validate.h"

char *
onyx_node_op_key (const Onnx__NodeProto *node)
{
  const char *op = node->op_type != NULL ? node->op_type : "";
  if (onyx_domain_is_default (node->domain))
    return g_strdup (op);
  return g_strdup_printf ("%s::%s", node->domain, op);
}

gboolean
onyx_graph_input_is_initializer (const Onnx__GraphProto *graph, const char *name)
{
  for (size_t i = 0; i < graph->n_initializer; i++)
    if (g_strcmp0 (graph->initializer[i]->name, name) == 0)
      return TRUE;
  return FALSE;
}

static void
count_nodes (ProtobufCMessage *message, gpointer user_data)
{
  if (message->descriptor == &onnx__node_proto__descriptor)
    (*(guint *) user_data)++;
}

static void
add_custom_domain (GPtrArray *domains, const char *domain)
{
  if (onyx_domain_is_standard (domain))
    return;
  for (guint i = 0; i < domains->len; i++)
    if (strcmp (domains->pdata[i], domain) == 0)
      return;
  g_ptr_array_add (domains, g_strdup (domain));
}

static void
op_count_free (OnyxOpCount *count)
{
  g_free (count->op);
  g_free (count);
}

static int
compare_op_counts (gconstpointer a, gconstpointer b)
{
  const OnyxOpCount *x = *(OnyxOpCount *const *) a;
  const OnyxOpCount *y = *(OnyxOpCount *const *) b;
  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  return strcmp (x->op, y->op);
}

OnyxSummary *
onyx_summary_new (const Onnx__ModelProto *model)
{
  OnyxSummary *summary = g_new0 (OnyxSummary, 1);
  const Onnx__GraphProto *graph = model->graph;
  GHashTable *by_op = g_hash_table_new (g_str_hash, g_str_equal);

  summary->op_counts = g_ptr_array_new_with_free_func ((GDestroyNotify) op_count_free);
  summary->custom_domains = g_ptr_array_new_with_free_func (g_free);
  onyx_proto_foreach_message ((ProtobufCMessage *) &model->base, count_nodes, &summary->n_nodes_all);

  for (size_t i = 0; i < model->n_opset_import; i++)
    add_custom_domain (summary->custom_domains,
                       model->opset_import[i]->domain != NULL ? model->opset_import[i]->domain : "");

  for (size_t i = 0; graph != NULL && i < graph->n_node; i++)
    {
      const Onnx__NodeProto *node = graph->node[i];
      char *key = onyx_node_op_key (node);
      OnyxOpCount *count = g_hash_table_lookup (by_op, key);

      if (count == NULL)
        {
          count = g_new0 (OnyxOpCount, 1);
          count->op = key;
          g_hash_table_insert (by_op, count->op, count);
          g_ptr_array_add (summary->op_counts, count);
        }
      else
        g_free (key);
      count->count++;
      if (node->domain != NULL)
        add_custom_domain (summary->custom_domains, node->domain);
    }
  summary->n_nodes = graph != NULL ? (guint) graph->n_node : 0;
  g_ptr_array_sort (summary->op_counts, compare_op_counts);

  for (size_t i = 0; graph != NULL && i < graph->n_initializer; i++)
    {
      const Onnx__TensorProto *tensor = graph->initializer[i];
      guint64 n_elements, n_bytes;

      summary->n_initializers++;
      if (onyx_dims_n_elements (tensor->dims, tensor->n_dims, &n_elements) &&
          onyx_tensor_n_bytes (tensor, &n_bytes) &&
          summary->n_parameters <= G_MAXUINT64 - n_elements &&
          summary->parameter_bytes <= G_MAXUINT64 - n_bytes)
        {
          summary->n_parameters += n_elements;
          summary->parameter_bytes += n_bytes;
        }
      else
        summary->parameters_overflow = TRUE;
    }
  g_hash_table_unref (by_op);
  return summary;
}

void
onyx_summary_free (OnyxSummary *summary)
{
  if (summary == NULL)
    return;
  g_ptr_array_unref (summary->op_counts);
  g_ptr_array_unref (summary->custom_domains);
  g_free (summary);
}
