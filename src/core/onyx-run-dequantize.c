/* onyx-run-dequantize.c: integer tensors compared as the float values they stand for
 * (OnyxRunOptions.dequantize). A QOperator model hands uint8 from one QLinearConv to
 * the next; against its float twin only the value dequantized says anything. The run
 * goes on a copy with a DequantizeLinear after each such tensor (appended: the nodes'
 * order and indices stay the model's), pairs that copy's float value with the
 * counterpart, and gives the comparison back under the integer tensor's name. */
#include "onyx-run-private.h"

#include <stdlib.h>
#include <string.h>

/* A tensor name the graph does not use yet. */
static char *
unused_name (GHashTable *names, const char *tensor)
{
  char *name = g_strdup_printf ("%s (dequantized)", tensor);

  for (guint n = 2; g_hash_table_contains (names, name); n++)
    {
      g_free (name);
      name = g_strdup_printf ("%s (dequantized %u)", tensor, n);
    }
  return name;
}

static Onnx__NodeProto *
new_dequantizer (const char *tensor, const char *scale, const char *zero_point, const char *output)
{
  Onnx__NodeProto *node = malloc (sizeof *node);

  onnx__node_proto__init (node);
  node->name = g_strdup_printf ("%s (dequantized by Onyx)", tensor);
  node->op_type = strdup ("DequantizeLinear");
  node->n_input = zero_point[0] != '\0' ? 3 : 2;
  node->input = malloc (3 * sizeof *node->input);
  node->input[0] = strdup (tensor);
  node->input[1] = strdup (scale);
  node->input[2] = node->n_input == 3 ? strdup (zero_point) : NULL;
  node->n_output = 1;
  node->output = malloc (sizeof *node->output);
  node->output[0] = strdup (output);
  return node;
}

OnyxModel *
onyx_run_add_dequantizers (OnyxModel *model, const char *const *dequantize, GHashTable *probes)
{
  OnyxModel *copy = onyx_model_snapshot (model);
  Onnx__GraphProto *graph = onyx_model_get_proto (copy)->graph;
  g_autoptr (GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GPtrArray) added = g_ptr_array_new ();

  for (size_t i = 0; i < graph->n_node; i++)
    for (size_t k = 0; k < graph->node[i]->n_output; k++)
      g_hash_table_add (names, graph->node[i]->output[k]);
  for (size_t i = 0; i < graph->n_input; i++)
    g_hash_table_add (names, graph->input[i]->name);
  for (size_t i = 0; i < graph->n_initializer; i++)
    g_hash_table_add (names, graph->initializer[i]->name);
  for (guint i = 0; dequantize[i] != NULL && dequantize[i + 1] != NULL && dequantize[i + 2] != NULL; i += 3)
    {
      char *probe;
      if (g_hash_table_contains (probes, dequantize[i]) || dequantize[i + 1][0] == '\0')
        continue;
      probe = unused_name (names, dequantize[i]);
      g_ptr_array_add (added, new_dequantizer (dequantize[i], dequantize[i + 1], dequantize[i + 2], probe));
      g_hash_table_add (names, ((Onnx__NodeProto *) added->pdata[added->len - 1])->output[0]);
      g_hash_table_insert (probes, g_strdup (dequantize[i]), probe);
    }
  if (added->len == 0)
    return copy;
  graph->node = realloc (graph->node, (graph->n_node + added->len) * sizeof *graph->node);
  memcpy (graph->node + graph->n_node, added->pdata, added->len * sizeof *graph->node);
  graph->n_node += added->len;
  return copy;
}

void
onyx_run_pairs_use_probes (GPtrArray *pairs, GHashTable *probes)
{
  for (guint i = 0; i + 1 < pairs->len; i += 2)
    {
      const char *probe = g_hash_table_lookup (probes, pairs->pdata[i]);
      if (probe == NULL)
        continue;
      g_free (pairs->pdata[i]);
      pairs->pdata[i] = g_strdup (probe);
    }
}

void
onyx_run_result_name_probes (OnyxRunResult *result, GHashTable *probes)
{
  g_autoptr (GHashTable) tensor_of = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter iter;
  gpointer tensor, probe;

  g_hash_table_iter_init (&iter, probes);
  while (g_hash_table_iter_next (&iter, &tensor, &probe))
    g_hash_table_insert (tensor_of, probe, tensor);
  for (guint i = 0; result->deltas != NULL && i < result->deltas->len; i++)
    {
      OnyxRunDelta *delta = result->deltas->pdata[i];
      const char *named = g_hash_table_lookup (tensor_of, delta->name);
      if (named != NULL)
        {
          g_free (delta->name);
          delta->name = g_strdup (named);
          delta->dequantized = TRUE;
        }
    }
  /* The float copies are the run's own: the model's tensors are what it lists. */
  for (guint i = result->stats != NULL ? result->stats->len : 0; i-- > 0;)
    if (g_hash_table_contains (tensor_of, ((OnyxRunStats *) result->stats->pdata[i])->name))
      g_ptr_array_remove_index (result->stats, i);
  for (guint i = result->values != NULL ? result->values->len : 0; i-- > 0;)
    if (g_hash_table_contains (tensor_of, ((OnyxArray *) result->values->pdata[i])->name))
      g_ptr_array_remove_index (result->values, i);
}
