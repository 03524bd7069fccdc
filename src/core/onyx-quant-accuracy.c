/* onyx-quant-accuracy.c: where a quantized model loses accuracy against its float
 * twin, layer by layer: the value each quantized layer hands on (dequantized) paired
 * with the float model's, compared in one run (onyx-run.h), then each layer's
 * signal-to-quantization-noise ratio and its largest error against the tensor's range. */
#include "onyx-quant-private.h"

#include <math.h>
#include <string.h>

#include "onyx-diff.h"

/* A layer that runs quantized, and the value it hands on. */
typedef struct {
  guint index;
  const char *value;        /* in the quantized model; NULL when it stays integer */
  const OnyxQuantTensor *integer;  /* when it stays integer (QLinearConv to QLinearConv),
                                    * its output's quantization, if it has a scale: the
                                    * run can compare it dequantized */
  const char *float_name;   /* the float tensor a QuantizeLinear after it reads, or NULL */
  gboolean relu_folded;     /* that QuantizeLinear's range starts at 0 and no Relu comes
                             * between: a Relu of the float model folded into it */
} Layer;

/* The tensor compared for the layer: its value, else its integer output (dequantized
 * by the run), else NULL. */
static const char *
compared_value (const Layer *layer)
{
  return layer->value != NULL ? layer->value : layer->integer != NULL ? layer->integer->name : NULL;
}

/* The only reader of a tensor of the role, or NULL. */
static Onnx__NodeProto *
only_reader_as (OnyxQuant *quant, const char *name, OnyxQuantRole role)
{
  GArray *readers = onyx_quant_readers (quant, name);
  Onnx__NodeProto *reader = readers != NULL && readers->len == 1 ? g_array_index (readers, OnyxUse, 0).node : NULL;
  const OnyxQuantNode *record = reader != NULL ? onyx_quant_lookup_node (quant, reader) : NULL;
  return record != NULL && record->role == role ? reader : NULL;
}

/* A DequantizeLinear reading the tensor, or NULL. */
static Onnx__NodeProto *
dequantizer_of (OnyxQuant *quant, const char *name)
{
  GArray *readers = onyx_quant_readers (quant, name);

  for (guint u = 0; readers != NULL && u < readers->len; u++)
    {
      Onnx__NodeProto *reader = g_array_index (readers, OnyxUse, u).node;
      if (g_array_index (readers, OnyxUse, u).input == 0 && onyx_quant_is_op (reader, "DequantizeLinear"))
        return reader;
    }
  return NULL;
}

/* Operators without a quantized form (a Relu folded into its producer's range, a
 * Reshape between quantized tensors) are no layer of their own. */
static gboolean
is_layer (const OnyxQuantNode *record)
{
  return record->role >= ONYX_QUANT_QDQ && (record->role != ONYX_QUANT_QDQ || record->has_quantized_form) &&
         record->node->n_output > 0 && record->node->output[0][0] != '\0';
}

static void
find_value (OnyxQuant *quant, const OnyxQuantNode *record, Layer *layer)
{
  const char *out = record->node->output[0];
  Onnx__NodeProto *next, *quantizer, *dequantizer;

  layer->index = record->index;
  /* quantize_dynamic's integer result: cast, scaled back, its bias added. */
  if (record->role == ONYX_QUANT_DYNAMIC && record->output_types[0] != 0)
    {
      while ((next = only_reader_as (quant, out, ONYX_QUANT_DEQUANTIZE)) != NULL)
        out = onyx_node_output (next, 0);
      layer->value = record->output_types[0] == 0 || out != record->node->output[0] ? out : NULL;
      return;
    }
  if ((quantizer = onyx_quant_requantizer (quant, out)) != NULL &&
      (dequantizer = dequantizer_of (quant, onyx_node_output (quantizer, 0))) != NULL)
    {
      const OnyxQuantTensor *tensor = onyx_quant_lookup_tensor (quant, onyx_node_output (quantizer, 0));
      layer->value = onyx_node_output (dequantizer, 0);
      layer->float_name = quantizer->input[0];
      layer->relu_folded = strcmp (quantizer->input[0], out) == 0 && tensor != NULL && tensor->has_range &&
                           tensor->range_min >= 0;
      return;
    }
  /* An integer output (QLinearConv's) is compared as a DequantizeLinear reading it
   * makes it, or dequantized by the run; its range starting at 0 folds a Relu. */
  if (record->output_types[0] != 0)
    {
      const OnyxQuantTensor *tensor = onyx_quant_lookup_tensor (quant, out);
      dequantizer = dequantizer_of (quant, out);
      layer->value = dequantizer != NULL ? onyx_node_output (dequantizer, 0) : NULL;
      layer->integer = dequantizer == NULL && tensor != NULL && tensor->scale_name != NULL ? tensor : NULL;
      layer->relu_folded = tensor != NULL && tensor->has_range && tensor->range_min >= 0;
      return;
    }
  layer->value = out;
}

static GArray *
layers_of (OnyxQuant *quant)
{
  GArray *layers = g_array_new (FALSE, TRUE, sizeof (Layer));

  for (size_t i = 0; i < quant->graph->n_node; i++)
    {
      const OnyxQuantNode *record = onyx_quant_lookup_node (quant, quant->graph->node[i]);
      Layer layer = { 0 };
      if (!is_layer (record))
        continue;
      find_value (quant, record, &layer);
      g_array_append_val (layers, layer);
    }
  return layers;
}

/* The float model's tensors: what its nodes make and its inputs. */
static GHashTable *
tensor_names (const Onnx__GraphProto *graph)
{
  GHashTable *names = g_hash_table_new (g_str_hash, g_str_equal);

  for (size_t i = 0; i < graph->n_node; i++)
    for (size_t k = 0; k < graph->node[i]->n_output; k++)
      g_hash_table_add (names, graph->node[i]->output[k]);
  for (size_t i = 0; i < graph->n_input; i++)
    g_hash_table_add (names, graph->input[i]->name);
  return names;
}

/* The output of the Relu alone reading `name` in `graph`, or NULL. */
static const char *
relu_after (const Onnx__GraphProto *graph, const char *name)
{
  const Onnx__NodeProto *relu = NULL;

  for (size_t i = 0; i < graph->n_node; i++)
    for (size_t k = 0; k < graph->node[i]->n_input; k++)
      if (strcmp (graph->node[i]->input[k], name) == 0)
        {
          if (relu != NULL || !onyx_quant_is_op (graph->node[i], "Relu"))
            return NULL;
          relu = graph->node[i];
        }
  return relu != NULL ? onyx_node_output (relu, 0) : NULL;
}

/* The float model's counterpart of a layer's value: a tensor of the same name (the
 * one quantized after the layer, the layer's own output, the value), else the output
 * of the node the diff matches; past a Relu the quantized model folded into a range
 * that starts at 0. */
static const char *
counterpart (const OnyxQuant *quant, const Layer *layer, const Onnx__GraphProto *other, GHashTable *names,
             const OnyxDiff *diff)
{
  const Onnx__NodeProto *node = quant->graph->node[layer->index];
  const char *candidates[] = { layer->float_name, node->output[0], layer->value };
  const char *found = NULL, *relu;
  int j;

  for (guint i = 0; i < G_N_ELEMENTS (candidates) && found == NULL; i++)
    if (candidates[i] != NULL && g_hash_table_contains (names, candidates[i]))
      found = candidates[i];
  if (found == NULL && layer->index < diff->n_nodes_a && (j = diff->node_a_to_b[layer->index]) >= 0 &&
      other->node[j]->n_output > 0)
    found = other->node[j]->output[0];
  if (found != NULL && layer->relu_folded && (relu = relu_after (other, found)) != NULL)
    found = relu;
  return found;
}

/* Whether the float model holds the counterpart quantized too (two QOperator models
 * compare their integers as they are). */
static gboolean
held_quantized (OnyxModel *other, OnyxQuant **other_quant, const char *name)
{
  if (*other_quant == NULL)
    *other_quant = onyx_quant_new (onyx_model_get_proto (other), onyx_model_get_base_dir (other));
  return onyx_quant_lookup_tensor (*other_quant, name) != NULL;
}

static void
add_dequantized (GPtrArray *dequantized, GHashTable *listed, const OnyxQuantTensor *tensor)
{
  if (!g_hash_table_add (listed, tensor->name))
    return;
  g_ptr_array_add (dequantized, g_strdup (tensor->name));
  g_ptr_array_add (dequantized, g_strdup (tensor->scale_name));
  g_ptr_array_add (dequantized, g_strdup (tensor->zero_point_name != NULL ? tensor->zero_point_name : ""));
}

/* Integer tensors besides the layers' (a Flatten or MaxPool of uint8 between two
 * QLinearConvs) that the run's matching pairs with a float tensor: dequantized too. */
static void
add_integer_values (OnyxQuant *quant, OnyxModel *other, OnyxQuant **other_quant, const OnyxDiff *diff,
                    GPtrArray *dequantized, GHashTable *listed)
{
  const Onnx__GraphProto *other_graph = onyx_model_get_proto (other)->graph;

  for (size_t i = 0; i < quant->graph->n_node && i < diff->n_nodes_a; i++)
    {
      const Onnx__NodeProto *node = quant->graph->node[i];
      const OnyxQuantNode *record = onyx_quant_lookup_node (quant, node);
      int j = diff->node_a_to_b[i];
      if (j < 0 || record->role == ONYX_QUANT_QUANTIZE || record->role == ONYX_QUANT_DEQUANTIZE)
        continue;
      for (size_t k = 0; k < node->n_output && k < other_graph->node[j]->n_output; k++)
        {
          const OnyxQuantTensor *tensor = onyx_quant_lookup_tensor (quant, node->output[k]);
          if (tensor != NULL && tensor->scale_name != NULL && strcmp (tensor->name, node->output[k]) == 0 &&
              dequantizer_of (quant, node->output[k]) == NULL &&
              !held_quantized (other, other_quant, other_graph->node[j]->output[k]))
            add_dequantized (dequantized, listed, tensor);
        }
    }
}

GStrv
onyx_quant_accuracy_pairs (OnyxModel *model, OnyxModel *other, GStrv *dequantize)
{
  g_autoptr (OnyxQuant) quant = onyx_quant_new (onyx_model_get_proto (model), onyx_model_get_base_dir (model));
  g_autoptr (OnyxQuant) other_quant = NULL;
  const Onnx__GraphProto *other_graph = onyx_model_get_proto (other)->graph;
  g_autoptr (GArray) layers = NULL;
  g_autoptr (GHashTable) names = NULL;
  g_autoptr (OnyxDiff) diff = NULL;
  g_autoptr (GHashTable) listed = g_hash_table_new (g_str_hash, g_str_equal);
  GPtrArray *pairs, *dequantized;

  *dequantize = NULL;
  if (!onyx_quant_is_quantized (quant) || other_graph == NULL)
    return NULL;
  layers = layers_of (quant);
  names = tensor_names (other_graph);
  diff = onyx_diff_models (onyx_model_get_proto (model), onyx_model_get_proto (other));
  pairs = g_ptr_array_new ();
  dequantized = g_ptr_array_new ();
  for (guint i = 0; i < layers->len; i++)
    {
      const Layer *layer = &g_array_index (layers, Layer, i);
      const char *value = compared_value (layer);
      const char *found = value != NULL ? counterpart (quant, layer, other_graph, names, diff) : NULL;
      if (found == NULL || (layer->value == NULL && held_quantized (other, &other_quant, found)))
        continue;
      g_ptr_array_add (pairs, g_strdup (value));
      g_ptr_array_add (pairs, g_strdup (found));
      if (layer->value == NULL)
        add_dequantized (dequantized, listed, layer->integer);
    }
  add_integer_values (quant, other, &other_quant, diff, dequantized, listed);
  g_ptr_array_add (pairs, NULL);
  g_ptr_array_add (dequantized, NULL);
  *dequantize = (GStrv) g_ptr_array_free (dequantized, FALSE);
  return (GStrv) g_ptr_array_free (pairs, FALSE);
}

void
onyx_quant_layer_free (OnyxQuantLayer *layer)
{
  g_free (layer->tensor);
  g_free (layer->other);
  g_free (layer);
}

static int
compare_sqnr (gconstpointer a, gconstpointer b)
{
  const OnyxQuantLayer *x = *(OnyxQuantLayer *const *) a, *y = *(OnyxQuantLayer *const *) b;
  if (x->sqnr_db != y->sqnr_db)
    return x->sqnr_db < y->sqnr_db ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

static const OnyxRunStats *
find_stats (GPtrArray *list, const char *name)
{
  for (guint i = 0; list != NULL && i < list->len; i++)
    if (g_strcmp0 (((const OnyxRunStats *) list->pdata[i])->name, name) == 0)
      return list->pdata[i];
  return NULL;
}

static double
sqnr_of (const OnyxRunDelta *delta)
{
  if (delta->sum_sq_diff == 0)
    return INFINITY;
  return 10 * log10 (delta->sum_sq_ref / delta->sum_sq_diff);
}

OnyxQuantAccuracy *
onyx_quant_accuracy_new (OnyxModel *model, const OnyxRunResult *result, double threshold_db)
{
  g_autoptr (OnyxQuant) quant = onyx_quant_new (onyx_model_get_proto (model), onyx_model_get_base_dir (model));
  g_autoptr (GArray) layers = layers_of (quant);
  g_autoptr (GHashTable) deltas = g_hash_table_new (g_str_hash, g_str_equal);
  OnyxQuantAccuracy *accuracy = g_new0 (OnyxQuantAccuracy, 1);

  accuracy->layers = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_quant_layer_free);
  accuracy->threshold_db = threshold_db;
  accuracy->n_quantized = layers->len;
  for (guint i = 0; result->deltas != NULL && i < result->deltas->len; i++)
    {
      const OnyxRunDelta *delta = result->deltas->pdata[i];
      if (delta->mismatch == NULL)
        g_hash_table_insert (deltas, delta->name, (gpointer) delta);
    }
  /* In graph order first, for the first layer under the threshold. */
  for (guint i = 0; i < layers->len; i++)
    {
      const Layer *layer = &g_array_index (layers, Layer, i);
      const char *value = compared_value (layer);
      const OnyxRunDelta *delta = value != NULL ? g_hash_table_lookup (deltas, value) : NULL;
      const OnyxRunStats *stats = delta != NULL ? find_stats (result->other_stats, delta->other) : NULL;
      OnyxQuantLayer *entry;
      double range;

      if (delta == NULL)
        {
          accuracy->n_uncompared++;
          continue;
        }
      entry = g_new0 (OnyxQuantLayer, 1);
      entry->node = quant->graph->node[layer->index];
      entry->index = layer->index;
      entry->tensor = g_strdup (delta->name);
      entry->other = g_strdup (delta->other);
      entry->sqnr_db = sqnr_of (delta);
      entry->max_abs = delta->max_abs;
      range = stats != NULL && isfinite (stats->max - stats->min) ? stats->max - stats->min : 2 * delta->max_ref;
      entry->range_error = range > 0 ? delta->max_abs / range : delta->max_abs > 0 ? INFINITY : 0;
      if (accuracy->first_below == NULL && entry->sqnr_db < threshold_db)
        accuracy->first_below = entry;
      g_ptr_array_add (accuracy->layers, entry);
    }
  g_ptr_array_sort (accuracy->layers, compare_sqnr);
  return accuracy;
}

void
onyx_quant_accuracy_free (OnyxQuantAccuracy *accuracy)
{
  if (accuracy == NULL)
    return;
  g_ptr_array_unref (accuracy->layers);
  g_free (accuracy);
}
