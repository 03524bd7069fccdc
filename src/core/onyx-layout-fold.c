/* onyx-layout-fold.c: what is drawn inside another box or on an edge instead of as a
 * box of its own. A Constant read once is a line of its reader (see
 * onyx_layout_engine_set_fold_constants); quantization folds as onyx-layout-quant.c
 * finds it. A reader takes the lines its box shows (onyx-layout-lines.c: attributes
 * first, then its input lines in order, within the line budget), so a folded node is
 * always on screen; the rest keep their box. What folds into a folded node (a scale's
 * Constant into a DequantizeLinear, that into its reader) ends in the box showing it. */
#include "onyx-layout-private.h"

#include "onyx-domain.h"

gboolean
onyx_layout_is_constant_node (const Onnx__NodeProto *node)
{
  return onyx_domain_is_default (node->domain) && g_strcmp0 (node->op_type, "Constant") == 0;
}

guint
onyx_layout_folding_uses (const Folding *folding, const char *name)
{
  return name != NULL ? GPOINTER_TO_UINT (g_hash_table_lookup (folding->uses, name)) : 0;
}

const Onnx__TensorProto *
onyx_layout_folding_tensor (const Folding *folding, const char *name)
{
  const Onnx__TensorProto *init = name != NULL ? g_hash_table_lookup (folding->initializers, name) : NULL;
  int constant = name != NULL ? GPOINTER_TO_INT (g_hash_table_lookup (folding->constants, name)) - 1 : -1;
  const Onnx__NodeProto *node;

  if (init != NULL || constant < 0)
    return init;
  node = folding->graph->node[constant];
  for (size_t a = 0; a < node->n_attribute; a++)
    if (g_strcmp0 (node->attribute[a]->name, "value") == 0)
      return node->attribute[a]->t;
  return NULL;
}

static void
count_use (GHashTable *uses, const char *name, guint n)
{
  if (name != NULL && name[0] != '\0')
    g_hash_table_insert (uses, (gpointer) name, GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (uses, name)) + n));
}

/* Reads, the implicit ones of subgraphs and being a graph output included. */
static void
count_uses (Folding *folding, GPtrArray *const *implicit)
{
  const Onnx__GraphProto *graph = folding->graph;

  for (size_t n = 0; n < graph->n_node; n++)
    {
      for (size_t k = 0; k < graph->node[n]->n_input; k++)
        count_use (folding->uses, graph->node[n]->input[k], 1);
      for (guint i = 0; implicit[n] != NULL && i < implicit[n]->len; i++)
        count_use (folding->uses, implicit[n]->pdata[i], 1);
    }
  for (size_t i = 0; i < graph->n_output; i++)
    count_use (folding->uses, graph->output[i]->name, 2);
}

/* The Constants that may fold: read once, by an input. */
static void
find_constants (Folding *folding)
{
  const Onnx__GraphProto *graph = folding->graph;

  if (!folding->engine->fold_constants)
    return;
  for (size_t n = 0; n < graph->n_node; n++)
    if (onyx_layout_is_constant_node (graph->node[n]) && graph->node[n]->n_output == 1 &&
        graph->node[n]->output[0][0] != '\0' && onyx_layout_folding_uses (folding, graph->node[n]->output[0]) == 1)
      g_hash_table_insert (folding->constants, graph->node[n]->output[0], GSIZE_TO_POINTER (n + 1));
}

/* Each reader takes the candidates whose lines its box shows. */
static void
fold_by_budget (Folding *folding)
{
  const Onnx__GraphProto *graph = folding->graph;

  for (size_t n = 0; n < graph->n_node; n++)
    {
      const Onnx__NodeProto *node = graph->node[n];
      const OnyxSchema *schema;
      g_autoptr (GArray) lines = NULL;
      guint attributes, total;
      /* A Constant with inputs is broken: nothing folds into it. */
      if (onyx_layout_is_constant_node (node))
        continue;
      schema = onyx_schema_lookup (node->domain, node->op_type, G_MAXINT64);
      lines = onyx_layout_input_lines (folding, (guint) n, schema);
      attributes = onyx_layout_n_attribute_lines (node);
      total = attributes + lines->len;
      for (guint i = 0; i < lines->len; i++)
        {
          const InputLine *line = &g_array_index (lines, InputLine, i);
          if (!onyx_layout_line_shows (attributes + i, total))
            break;
          for (guint f = 0; f < G_N_ELEMENTS (line->folds); f++)
            if (line->folds[f] >= 0)
              folding->folded_into[line->folds[f]] = (int) n;
        }
    }
}

/* What folds into a folded node ends in the box that shows it. Homes point to the
 * reader or, for marks, upstream: a chain of them is as long as the graph at most. */
static void
settle_homes (Folding *folding)
{
  gsize n_node = folding->graph->n_node;

  for (gsize n = 0; n < n_node; n++)
    {
      int home = folding->folded_into[n];
      for (gsize steps = 0; home >= 0 && folding->folded_into[home] >= 0 && steps < n_node; steps++)
        home = folding->folded_into[home];
      folding->folded_into[n] = home >= 0 && folding->folded_into[home] < 0 ? home : -1;
    }
}

Folding *
onyx_layout_folding_new (OnyxLayoutEngine *engine, GHashTable *initializers, GPtrArray *const *implicit)
{
  Folding *folding = g_new0 (Folding, 1);
  gsize n_node = engine->graph->n_node;

  folding->engine = engine;
  folding->graph = engine->graph;
  folding->initializers = g_hash_table_ref (initializers);
  folding->uses = g_hash_table_new (g_str_hash, g_str_equal);
  folding->constants = g_hash_table_new (g_str_hash, g_str_equal);
  folding->weight_dqs = g_hash_table_new (g_str_hash, g_str_equal);
  folding->aliases = g_hash_table_new (g_str_hash, g_str_equal);
  folding->quantized = g_hash_table_new (g_str_hash, g_str_equal);
  folding->chains = g_new0 (DynamicChain *, MAX (n_node, 1));
  folding->on_edge = g_new0 (gboolean, MAX (n_node, 1));
  folding->folded_into = g_new (int, MAX (n_node, 1));
  for (gsize n = 0; n < n_node; n++)
    folding->folded_into[n] = -1;
  count_uses (folding, implicit);
  find_constants (folding);
  onyx_layout_find_quant (folding);
  fold_by_budget (folding);
  settle_homes (folding);
  return folding;
}

int *
onyx_layout_folding_free (Folding *folding)
{
  int *folded_into = folding->folded_into;

  for (gsize n = 0; n < folding->graph->n_node; n++)
    g_free (folding->chains[n]);
  g_free (folding->chains);
  g_free (folding->on_edge);
  g_hash_table_unref (folding->initializers);
  g_hash_table_unref (folding->uses);
  g_hash_table_unref (folding->constants);
  g_hash_table_unref (folding->weight_dqs);
  g_hash_table_unref (folding->aliases);
  g_hash_table_unref (folding->quantized);
  g_free (folding);
  return folded_into;
}
