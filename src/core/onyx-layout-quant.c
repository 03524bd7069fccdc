/* onyx-layout-quant.c: quantized models drawn as their float twins (see
 * onyx_layout_engine_set_fold_quant). ONNX Runtime's quantizer writes a QDQ model
 * as the float one with a QuantizeLinear → DequantizeLinear pair on every activation
 * and each weight an int8 initializer behind a DequantizeLinear; a dynamically
 * quantized one with DynamicQuantizeLinear → ConvInteger/MatMulInteger → Cast → Mul
 * by the scales for each Conv and MatMul. Drawn node by node they have two or three
 * times the boxes of the float model. Here weights fold into their readers' lines,
 * pairs into marks on edges, dynamic chains into one box; the graph keeps every node. */
#include "onyx-layout-private.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "onyx-domain.h"
#include "onyx-graph-index.h"
#include "onyx-tensor-values.h"
#include "onyx-text.h"
#include "onyx-types.h"

/* A weight line longer than this leaves its scale and zero point to the tooltip. */
#define MAX_QUANT_LINE 44

/* ConvInteger/MatMulInteger (`integer`) with what turns its output back into the float
 * op's: its DynamicQuantizeLinear, the Cast, the Mul of the scales, the Mul by them and,
 * for a Conv, the bias's Reshape (or -1) and Add (or -1). */
struct _DynamicChain {
  int integer, quantize, cast, scales_mul, output_mul, bias_reshape, bias_add;
  const char *weight_scale;
  const char *bias;
};

/* The explicit reads of each tensor, in node order: a chain through one array. */
typedef struct {
  int node;
  guint slot;
  int next;
} Read;

typedef struct {
  Folding *folding;
  GHashTable *producer;   /* tensor → node + 1 */
  GHashTable *first_read; /* tensor → index in `reads` + 1 */
  GHashTable *last_read;  /* tensor → index in `reads` + 1 */
  GArray *reads;          /* Read */
} Finder;

static gboolean
is_op (const Onnx__NodeProto *node, const char *op_type)
{
  return g_strcmp0 (node->op_type, op_type) == 0 &&
         (onyx_domain_is_default (node->domain) || g_strcmp0 (node->domain, "com.microsoft") == 0);
}

static gboolean
is_standard_op (const Onnx__NodeProto *node, const char *op_type)
{
  return g_strcmp0 (node->op_type, op_type) == 0 && onyx_domain_is_default (node->domain);
}

static gboolean
is_constant (const Folding *folding, const char *name)
{
  return name != NULL &&
         (g_hash_table_contains (folding->initializers, name) || g_hash_table_contains (folding->constants, name));
}

/* An optional input that is absent or constant. */
static gboolean
absent_or_constant (const Folding *folding, const Onnx__NodeProto *node, guint slot)
{
  return onyx_node_input (node, slot) == NULL || is_constant (folding, node->input[slot]);
}

static int
producer_of (const Finder *finder, const char *name)
{
  return name != NULL ? GPOINTER_TO_INT (g_hash_table_lookup (finder->producer, name)) - 1 : -1;
}

static const Read *
first_read (const Finder *finder, const char *name)
{
  int first = name != NULL ? GPOINTER_TO_INT (g_hash_table_lookup (finder->first_read, name)) - 1 : -1;
  return first >= 0 ? &g_array_index (finder->reads, Read, first) : NULL;
}

static const Read *
next_read (const Finder *finder, const Read *read)
{
  return read->next >= 0 ? &g_array_index (finder->reads, Read, read->next) : NULL;
}

/* The one read of `name` when it is read once, by an input of a node; else NULL. */
static const Read *
sole_read (const Finder *finder, const char *name)
{
  const Read *read = first_read (finder, name);
  return read != NULL && onyx_layout_folding_uses (finder->folding, name) == 1 ? read : NULL;
}

static void
finder_init (Finder *finder, Folding *folding)
{
  const Onnx__GraphProto *graph = folding->graph;

  finder->folding = folding;
  finder->producer = g_hash_table_new (g_str_hash, g_str_equal);
  finder->first_read = g_hash_table_new (g_str_hash, g_str_equal);
  finder->last_read = g_hash_table_new (g_str_hash, g_str_equal);
  finder->reads = g_array_new (FALSE, FALSE, sizeof (Read));
  for (size_t n = 0; n < graph->n_node; n++)
    {
      const Onnx__NodeProto *node = graph->node[n];
      for (size_t k = 0; k < node->n_output; k++)
        if (onyx_node_output (node, (guint) k) != NULL)
          g_hash_table_insert (finder->producer, node->output[k], GSIZE_TO_POINTER (n + 1));
      for (size_t k = 0; k < node->n_input; k++)
        {
          Read read = { (int) n, (guint) k, -1 };
          int last;
          if (onyx_node_input (node, (guint) k) == NULL)
            continue;
          last = GPOINTER_TO_INT (g_hash_table_lookup (finder->last_read, node->input[k])) - 1;
          if (last >= 0)
            g_array_index (finder->reads, Read, last).next = (int) finder->reads->len;
          else
            g_hash_table_insert (finder->first_read, node->input[k], GUINT_TO_POINTER (finder->reads->len + 1));
          g_hash_table_insert (finder->last_read, node->input[k], GUINT_TO_POINTER (finder->reads->len + 1));
          g_array_append_val (finder->reads, read);
        }
    }
}

static void
finder_clear (Finder *finder)
{
  g_hash_table_unref (finder->producer);
  g_hash_table_unref (finder->first_read);
  g_hash_table_unref (finder->last_read);
  g_array_unref (finder->reads);
}

/* ---- Texts ---- */

static gboolean
read_first_value (const Onnx__TensorProto *tensor, double *value)
{
  g_autoptr (OnyxTensorValues) values = tensor != NULL ? onyx_tensor_values_read (tensor, NULL, 1, NULL) : NULL;

  if (values == NULL || values->n_values < 1 || values->values == NULL)
    return FALSE;
  *value = values->values[0];
  return TRUE;
}

static guint64
n_elements (const Onnx__TensorProto *tensor)
{
  guint64 n = 1;
  return onyx_dims_n_elements (tensor->dims, tensor->n_dims, &n) ? n : 0;
}

static gint64
int_attribute (const Onnx__NodeProto *node, const char *name, gint64 fallback)
{
  for (size_t a = 0; node != NULL && a < node->n_attribute; a++)
    if (g_strcmp0 (node->attribute[a]->name, name) == 0 &&
        node->attribute[a]->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT)
      return node->attribute[a]->i;
  return fallback;
}

/* "s=0.0235 zp=128" for one scale, "per-channel ×64" for many; NULL when unreadable. */
static char *
params_text (const Onnx__TensorProto *scale, const Onnx__TensorProto *zero_point, const Onnx__NodeProto *node)
{
  guint64 n = scale != NULL ? n_elements (scale) : 0;
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  double value, zero;

  if (n > 1)
    {
      g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, n);
      if (int_attribute (node, "block_size", 0) > 0)
        /* TRANSLATORS: a scale per block of a blocked quantization; %s is how many */
        return g_strdup_printf (_("per-block ×%s"), count);
      /* TRANSLATORS: a scale per channel of a weight's quantization; %s is how many */
      return g_strdup_printf (_("per-channel ×%s"), count);
    }
  if (n != 1 || !read_first_value (scale, &value))
    return NULL;
  g_ascii_formatd (number, sizeof number, "%.3g", value);
  if (zero_point == NULL || !read_first_value (zero_point, &zero))
    return g_strdup_printf ("s=%s", number);
  return g_strdup_printf ("s=%s zp=%.0f", number, zero);
}

char *
onyx_layout_quant_text (const char *name, const Onnx__TensorProto *data, const Onnx__TensorProto *scale,
                        const Onnx__TensorProto *zero_point, const Onnx__NodeProto *node, int32_t default_type,
                        gboolean whole)
{
  int32_t type = data != NULL ? data->data_type : zero_point != NULL ? zero_point->data_type : default_type;
  g_autoptr (GString) text = g_string_new (NULL);
  g_autofree char *params = params_text (scale, zero_point, node);
  gsize before_params;

  if (name != NULL)
    g_string_append (text, name);
  if (type != 0)
    g_string_append_printf (text, "%s%s", text->len > 0 ? " " : "", onyx_elem_type_name (type));
  if (data != NULL)
    {
      g_autofree char *dims = onyx_dims_to_string (data->dims, data->n_dims);
      g_string_append_printf (text, " ⟨%s⟩", dims);
    }
  before_params = text->len;
  if (params != NULL)
    g_string_append_printf (text, "%s%s", text->len > 0 ? " " : "", params);
  /* A long weight line keeps what it is, its scales go to the tooltip. */
  if (!whole && name != NULL && g_utf8_strlen (text->str, -1) > MAX_QUANT_LINE)
    g_string_truncate (text, before_params);
  return g_string_free (g_steal_pointer (&text), FALSE);
}

static QuantMark *
mark_new (const char *source, char *text, int32_t type)
{
  QuantMark *mark = g_new0 (QuantMark, 1);

  mark->source = source;
  mark->text = text;
  mark->type = g_strdup (type != 0 ? onyx_elem_type_name (type) : "");
  mark->nodes = g_array_new (FALSE, FALSE, sizeof (int));
  return mark;
}

void
onyx_layout_quant_mark_free (QuantMark *mark)
{
  g_free (mark->text);
  g_free (mark->type);
  g_array_unref (mark->nodes);
  g_free (mark);
}

/* ---- Weights: a DequantizeLinear of constants read once ---- */

static gboolean
is_quantize_op (const Onnx__NodeProto *node)
{
  return is_op (node, "QuantizeLinear") || is_op (node, "DequantizeLinear") ||
         is_standard_op (node, "DynamicQuantizeLinear");
}

static void
find_weight_dqs (Finder *finder)
{
  Folding *folding = finder->folding;
  const Onnx__GraphProto *graph = folding->graph;

  for (size_t n = 0; n < graph->n_node; n++)
    {
      const Onnx__NodeProto *node = graph->node[n];
      const char *output = onyx_node_output (node, 0);
      const Read *read;
      if (!is_op (node, "DequantizeLinear") || !is_constant (folding, onyx_node_input (node, 0)) ||
          !is_constant (folding, onyx_node_input (node, 1)) || !absent_or_constant (folding, node, 2) ||
          output == NULL || (read = sole_read (finder, output)) == NULL)
        continue;
      /* Read by quantization itself, it is part of that: not a weight of an op. */
      if (is_quantize_op (graph->node[read->node]) || onyx_layout_is_constant_node (graph->node[read->node]))
        continue;
      g_hash_table_insert (folding->weight_dqs, (gpointer) output, GSIZE_TO_POINTER (n + 1));
    }
}

/* ---- Activations: QuantizeLinear → DequantizeLinear pairs ---- */

/* The first reader of `name` that is no QuantizeLinear: a pair whose input nothing
 * makes (a graph input) is shown by it. */
static int
first_plain_reader (const Finder *finder, const char *name)
{
  for (const Read *read = first_read (finder, name); read != NULL; read = next_read (finder, read))
    if (!is_op (finder->folding->graph->node[read->node], "QuantizeLinear"))
      return read->node;
  return -1;
}

static void
find_pairs (Finder *finder)
{
  Folding *folding = finder->folding;
  const Onnx__GraphProto *graph = folding->graph;

  for (size_t n = 0; n < graph->n_node; n++)
    {
      const Onnx__NodeProto *quantize = graph->node[n], *dequantize;
      const char *input = onyx_node_input (quantize, 0), *output;
      const Read *read;
      QuantMark *mark;
      int home;
      if (!is_op (quantize, "QuantizeLinear") || input == NULL || is_constant (folding, input) ||
          !is_constant (folding, onyx_node_input (quantize, 1)) || !absent_or_constant (folding, quantize, 2) ||
          (read = sole_read (finder, onyx_node_output (quantize, 0))) == NULL || read->slot != 0)
        continue;
      dequantize = graph->node[read->node];
      output = onyx_node_output (dequantize, 0);
      /* A name made twice (a broken file) keeps its first mark: the marks own theirs,
       * and `quantized` points at them. */
      if (!is_op (dequantize, "DequantizeLinear") || output == NULL ||
          !is_constant (folding, onyx_node_input (dequantize, 1)) || !absent_or_constant (folding, dequantize, 2) ||
          g_hash_table_contains (folding->engine->marks, output))
        continue;
      home = producer_of (finder, input);
      if (home < 0 && (home = first_plain_reader (finder, output)) < 0)
        continue;
      mark = mark_new (input, NULL, 0);
      {
        const Onnx__TensorProto *zero_point = onyx_layout_folding_tensor (folding, onyx_node_input (quantize, 2));
        /* Without a zero point, QuantizeLinear makes uint8 (or what output_dtype says). */
        int32_t type = zero_point != NULL ? zero_point->data_type
                                          : (int32_t) int_attribute (quantize, "output_dtype",
                                                                     ONNX__TENSOR_PROTO__DATA_TYPE__UINT8);
        mark->text = onyx_layout_quant_text (NULL, NULL, onyx_layout_folding_tensor (folding, quantize->input[1]),
                                             zero_point, quantize, type, TRUE);
        g_free (mark->type);
        mark->type = g_strdup (onyx_elem_type_name (type));
      }
      g_array_append_val (mark->nodes, n);
      g_array_append_val (mark->nodes, read->node);
      g_hash_table_insert (folding->engine->marks, (gpointer) output, mark);
      g_hash_table_insert (folding->aliases, (gpointer) output, (gpointer) input);
      g_hash_table_insert (folding->quantized, (gpointer) input, mark);
      /* A Relu or Clip that alone reads an op's result is fused with it (ONNX
       * Runtime's QDQ kernels do): the op's box says the type the pair makes. */
      if (home >= 0 && (is_standard_op (graph->node[home], "Relu") || is_standard_op (graph->node[home], "Clip")) &&
          onyx_node_input (graph->node[home], 0) != NULL && sole_read (finder, graph->node[home]->input[0]) != NULL)
        g_hash_table_insert (folding->quantized, graph->node[home]->input[0], mark);
      folding->folded_into[n] = folding->folded_into[read->node] = home;
      folding->on_edge[n] = folding->on_edge[read->node] = TRUE;
    }
}

/* ---- Dynamic quantization: DynamicQuantizeLinear → ConvInteger … → Mul ---- */

/* The node reading `name` once, when it is an `op_type` node; else -1. */
static int
sole_reader_of_type (const Finder *finder, const char *name, const char *op_type)
{
  const Read *read = sole_read (finder, name);
  return read != NULL && is_standard_op (finder->folding->graph->node[read->node], op_type) ? read->node : -1;
}

/* The input of binary `node` other than `name`. */
static const char *
other_input (const Onnx__NodeProto *node, const char *name)
{
  if (node->n_input != 2)
    return NULL;
  return g_strcmp0 (node->input[0], name) == 0 ? onyx_node_input (node, 1) : onyx_node_input (node, 0);
}

/* A bias added after the scales: a constant, or a Reshape of constants read only here. */
static void
find_bias (const Finder *finder, DynamicChain *chain, const char *scaled)
{
  const Folding *folding = finder->folding;
  int add = sole_reader_of_type (finder, scaled, "Add"), reshape;
  const char *bias;

  if (add < 0 || (bias = other_input (folding->graph->node[add], scaled)) == NULL)
    return;
  if (is_constant (folding, bias))
    {
      chain->bias_add = add, chain->bias = bias;
      return;
    }
  reshape = producer_of (finder, bias);
  if (reshape >= 0 && is_standard_op (folding->graph->node[reshape], "Reshape") &&
      onyx_layout_folding_uses (folding, bias) == 1 &&
      is_constant (folding, onyx_node_input (folding->graph->node[reshape], 0)) &&
      is_constant (folding, onyx_node_input (folding->graph->node[reshape], 1)))
    {
      chain->bias_add = add, chain->bias_reshape = reshape;
      chain->bias = folding->graph->node[reshape]->input[0];
    }
}

/* The chain that integer op `node` heads, or NULL. */
static DynamicChain *
match_chain (const Finder *finder, guint node)
{
  const Folding *folding = finder->folding;
  const Onnx__GraphProto *graph = folding->graph;
  const Onnx__NodeProto *integer = graph->node[node], *quantize, *output_mul;
  DynamicChain chain = { (int) node, -1, -1, -1, -1, -1, -1, NULL, NULL };
  const char *scales;

  if (!is_standard_op (integer, "ConvInteger") && !is_standard_op (integer, "MatMulInteger"))
    return NULL;
  chain.quantize = producer_of (finder, onyx_node_input (integer, 0));
  if (chain.quantize < 0)
    return NULL;
  quantize = graph->node[chain.quantize];
  if (!is_standard_op (quantize, "DynamicQuantizeLinear") ||
      g_strcmp0 (onyx_node_output (quantize, 0), integer->input[0]) != 0 ||
      (onyx_node_input (integer, 2) != NULL && g_strcmp0 (integer->input[2], onyx_node_output (quantize, 2)) != 0) ||
      !is_constant (folding, onyx_node_input (integer, 1)) || !absent_or_constant (folding, integer, 3) ||
      onyx_node_output (quantize, 1) == NULL)
    return NULL;
  chain.cast = sole_reader_of_type (finder, onyx_node_output (integer, 0), "Cast");
  if (chain.cast < 0 ||
      (chain.output_mul = sole_reader_of_type (finder, onyx_node_output (graph->node[chain.cast], 0), "Mul")) < 0)
    return NULL;
  output_mul = graph->node[chain.output_mul];
  scales = other_input (output_mul, graph->node[chain.cast]->output[0]);
  chain.scales_mul = producer_of (finder, scales);
  if (chain.scales_mul < 0 || !is_standard_op (graph->node[chain.scales_mul], "Mul") ||
      onyx_layout_folding_uses (folding, scales) != 1)
    return NULL;
  chain.weight_scale = other_input (graph->node[chain.scales_mul], quantize->output[1]);
  if (!is_constant (folding, chain.weight_scale) ||
      g_strcmp0 (other_input (graph->node[chain.scales_mul], chain.weight_scale), quantize->output[1]) != 0)
    return NULL;
  /* A Conv's bias comes after (a MatMul's Add is an op of the float model too). */
  if (is_standard_op (integer, "ConvInteger") && onyx_node_output (output_mul, 0) != NULL)
    find_bias (finder, &chain, output_mul->output[0]);
  return g_memdup2 (&chain, sizeof chain);
}

/* Whether every read of the DynamicQuantizeLinear `node`'s outputs is by one of its
 * chains: its quantized input and zero point by their integer ops, its scale by their
 * Muls of the scales (`scales_muls`: such a Mul → its chain). */
static gboolean
quantize_folds (const Finder *finder, guint node, GHashTable *scales_muls)
{
  const Folding *folding = finder->folding;
  const Onnx__NodeProto *quantize = folding->graph->node[node];
  gboolean any = FALSE;

  for (guint k = 0; k < quantize->n_output && k < 3; k++)
    {
      guint reads = 0;
      if (onyx_node_output (quantize, k) == NULL)
        continue;
      for (const Read *read = first_read (finder, quantize->output[k]); read != NULL; read = next_read (finder, read))
        {
          const DynamicChain *chain = k == 1 ? g_hash_table_lookup (scales_muls, GINT_TO_POINTER (read->node))
                                             : folding->chains[read->node];
          if (chain == NULL || chain->quantize != (int) node || (k != 1 && read->slot != k))
            return FALSE;
          reads++;
        }
      /* A graph output or a subgraph's read besides. */
      if (reads != onyx_layout_folding_uses (folding, quantize->output[k]))
        return FALSE;
      any |= reads > 0;
    }
  return any;
}

static void
fold_chain (Finder *finder, const DynamicChain *chain)
{
  Folding *folding = finder->folding;
  const int parts[] = { chain->cast, chain->scales_mul, chain->output_mul, chain->bias_reshape, chain->bias_add };

  for (guint p = 0; p < G_N_ELEMENTS (parts); p++)
    if (parts[p] >= 0)
      folding->folded_into[parts[p]] = chain->integer;
}

static void
find_dynamic_chains (Finder *finder)
{
  Folding *folding = finder->folding;
  const Onnx__GraphProto *graph = folding->graph;
  g_autoptr (GHashTable) quantizers = g_hash_table_new (NULL, NULL);
  g_autoptr (GHashTable) scales_muls = g_hash_table_new (NULL, NULL);
  GHashTableIter iter;
  gpointer key;

  for (size_t n = 0; n < graph->n_node; n++)
    if ((folding->chains[n] = match_chain (finder, (guint) n)) != NULL)
      {
        g_hash_table_add (quantizers, GINT_TO_POINTER (folding->chains[n]->quantize));
        g_hash_table_insert (scales_muls, GINT_TO_POINTER (folding->chains[n]->scales_mul), folding->chains[n]);
      }
  g_hash_table_iter_init (&iter, quantizers);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      guint node = (guint) GPOINTER_TO_INT (key);
      const Onnx__NodeProto *quantize = graph->node[node];
      int home = producer_of (finder, onyx_node_input (quantize, 0));
      QuantMark *mark;
      if (!quantize_folds (finder, node, scales_muls) || onyx_node_input (quantize, 0) == NULL ||
          onyx_node_output (quantize, 0) == NULL || g_hash_table_contains (folding->engine->marks, quantize->output[0]))
        {
          /* Its box stays: so do its chains' boxes, which read it. */
          for (size_t n = 0; n < graph->n_node; n++)
            if (folding->chains[n] != NULL && folding->chains[n]->quantize == (int) node)
              {
                g_hash_table_remove (scales_muls, GINT_TO_POINTER (folding->chains[n]->scales_mul));
                g_clear_pointer (&folding->chains[n], g_free);
              }
          continue;
        }
      for (size_t n = 0; home < 0 && n < graph->n_node; n++)
        if (folding->chains[n] != NULL && folding->chains[n]->quantize == (int) node)
          home = (int) n;
      /* TRANSLATORS: the mark on an edge whose tensor is quantized as it runs
       * (DynamicQuantizeLinear); %s is the type, "uint8" */
      mark = mark_new (quantize->input[0],
                       g_strdup_printf (_("%s dynamic"), onyx_elem_type_name (ONNX__TENSOR_PROTO__DATA_TYPE__UINT8)),
                       ONNX__TENSOR_PROTO__DATA_TYPE__UINT8);
      g_array_append_val (mark->nodes, node);
      g_hash_table_insert (folding->engine->marks, quantize->output[0], mark);
      g_hash_table_insert (folding->aliases, quantize->output[0], quantize->input[0]);
      folding->folded_into[node] = home;
      folding->on_edge[node] = TRUE;
    }
  for (size_t n = 0; n < graph->n_node; n++)
    if (folding->chains[n] != NULL)
      fold_chain (finder, folding->chains[n]);
}

static gboolean
has_quantization (const Onnx__GraphProto *graph)
{
  for (size_t n = 0; n < graph->n_node; n++)
    if (is_quantize_op (graph->node[n]))
      return TRUE;
  return FALSE;
}

void
onyx_layout_find_quant (Folding *folding)
{
  Finder finder;

  if (!folding->engine->fold_quant || !has_quantization (folding->graph))
    return;
  finder_init (&finder, folding);
  find_weight_dqs (&finder);
  find_pairs (&finder);
  find_dynamic_chains (&finder);
  finder_clear (&finder);
}

/* ---- What a box says of it ---- */

static const char *
float_op_of (const char *integer_op)
{
  return g_strcmp0 (integer_op, "ConvInteger") == 0 ? "Conv" : "MatMul";
}

gboolean
onyx_layout_dynamic_parts (const Folding *folding, guint node, DynamicParts *parts)
{
  const DynamicChain *chain = node < folding->graph->n_node ? folding->chains[node] : NULL;
  const Onnx__NodeProto *integer;

  if (chain == NULL)
    return FALSE;
  integer = folding->graph->node[node];
  parts->float_op = float_op_of (integer->op_type);
  parts->weight = integer->input[1];
  parts->weight_scale = chain->weight_scale;
  parts->weight_zero_point = onyx_node_input (integer, 3);
  parts->scales_mul = chain->scales_mul;
  parts->bias = chain->bias;
  parts->bias_add = chain->bias_add;
  return TRUE;
}

/* Adds `type` to the "/"-separated `types` unless it is there. */
static void
add_type (GString *types, const char *type)
{
  g_auto (GStrv) known = g_strsplit (types->str, "/", -1);

  if (type == NULL || type[0] == '\0' || g_strv_contains ((const char *const *) known, type))
    return;
  g_string_append_printf (types, "%s%s", types->len > 0 ? "/" : "", type);
}

char *
onyx_layout_quant_title (const Folding *folding, guint node, const char *title)
{
  const Onnx__NodeProto *op = folding->graph->node[node];
  g_autoptr (GString) inputs = g_string_new (NULL);
  const char *output = NULL;
  gboolean has_weight = FALSE;
  DynamicParts parts;

  if (onyx_layout_dynamic_parts (folding, node, &parts))
    {
      const Onnx__TensorProto *weight = onyx_layout_folding_tensor (folding, parts.weight);
      /* TRANSLATORS: the box of a dynamically quantized op: "Conv (dynamic int8)" */
      return g_strdup_printf (_("%s (dynamic %s)"), parts.float_op,
                              onyx_elem_type_name (weight != NULL ? weight->data_type : ONNX__TENSOR_PROTO__DATA_TYPE__INT8));
    }
  for (size_t k = 0; k < op->n_input; k++)
    {
      const QuantMark *mark = onyx_node_input (op, (guint) k) != NULL
                                ? g_hash_table_lookup (folding->engine->marks, op->input[k]) : NULL;
      int weight = onyx_node_input (op, (guint) k) != NULL
                     ? GPOINTER_TO_INT (g_hash_table_lookup (folding->weight_dqs, op->input[k])) - 1 : -1;
      if (mark != NULL)
        add_type (inputs, mark->type);
      else if (weight >= 0 && folding->folded_into[weight] == (int) node)
        {
          const Onnx__TensorProto *data = onyx_layout_folding_tensor (folding, folding->graph->node[weight]->input[0]);
          has_weight = TRUE;
          /* A bias is int32 whatever the op runs in. */
          if (data != NULL && data->data_type != ONNX__TENSOR_PROTO__DATA_TYPE__INT32)
            add_type (inputs, onyx_elem_type_name (data->data_type));
        }
    }
  for (size_t k = 0; output == NULL && k < op->n_output; k++)
    {
      const QuantMark *mark = onyx_node_output (op, (guint) k) != NULL
                                ? g_hash_table_lookup (folding->quantized, op->output[k]) : NULL;
      output = mark != NULL ? mark->type : NULL;
    }
  /* An op with a quantized weight whose output is not quantized again (the head of a
   * network, a graph output) runs quantized and gives float: "Add · uint8/int8 → float". */
  if (output == NULL && has_weight)
    output = "float";
  if (inputs->len == 0 || output == NULL)
    return NULL;
  return g_strdup_printf ("%s · %s → %s", title, inputs->str, output);
}
