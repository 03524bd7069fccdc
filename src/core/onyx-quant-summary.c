/* onyx-quant-summary.c: a model's quantization summed up (what runs quantized, what
 * stays float, the bits a weight takes) and said in words for the panel and the CLI. */
#include "onyx-quant-private.h"

#include <glib/gi18n-lib.h>

#include <math.h>
#include <string.h>

#include "onyx-text.h"
#include "onyx-types.h"

/* ---- The summary ---- */

static void
count_op (GPtrArray *counts, const Onnx__NodeProto *node)
{
  g_autofree char *key = onyx_node_op_key (node);

  for (guint i = 0; i < counts->len; i++)
    {
      OnyxOpCount *count = counts->pdata[i];
      if (strcmp (count->op, key) == 0)
        {
          count->count++;
          return;
        }
    }
  {
    OnyxOpCount *count = g_new0 (OnyxOpCount, 1);
    count->op = g_steal_pointer (&key);
    count->count = 1;
    g_ptr_array_add (counts, count);
  }
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
  const OnyxOpCount *x = *(OnyxOpCount *const *) a, *y = *(OnyxOpCount *const *) b;
  return x->count != y->count ? (x->count > y->count ? -1 : 1) : strcmp (x->op, y->op);
}

static void
add_type (GArray *types, int32_t type)
{
  for (guint i = 0; i < types->len; i++)
    if (g_array_index (types, int32_t, i) == type)
      return;
  g_array_append_val (types, type);
}

/* Bits of a tensor's storage, or 0 when unknown. */
static guint64
tensor_bits (OnyxQuant *quant, const char *name)
{
  const Onnx__TensorProto *tensor = onyx_quant_constant (quant, name);
  guint64 bytes = 0;
  return tensor != NULL && onyx_tensor_n_bytes (tensor, &bytes) ? bytes * 8 : 0;
}

/* Weights: quantized tensors that are constants, their scales and zero points. */
static void
count_weights (OnyxQuant *quant)
{
  OnyxQuantSummary *summary = &quant->summary;
  g_autoptr (GHashTable) counted = g_hash_table_new (g_str_hash, g_str_equal);
  guint64 bits = 0;

  for (guint i = 0; i < quant->tensors->len; i++)
    {
      const OnyxQuantTensor *tensor = quant->tensors->pdata[i];
      const Onnx__TensorProto *constant = onyx_quant_constant (quant, tensor->name);
      guint64 n = 0, stored = tensor_bits (quant, tensor->name);
      if (constant == NULL || stored == 0 || !g_hash_table_add (counted, tensor->name) ||
          !onyx_dims_n_elements (constant->dims, constant->n_dims, &n))
        continue;
      if (tensor->bits > 0)
        n = stored / tensor->bits;
      summary->n_quantized_weights += n;
      bits += stored;
      if (tensor->scale_name != NULL && g_hash_table_add (counted, tensor->scale_name))
        bits += tensor_bits (quant, tensor->scale_name);
      if (tensor->zero_point_name != NULL && g_hash_table_add (counted, tensor->zero_point_name))
        bits += tensor_bits (quant, tensor->zero_point_name);
    }
  if (summary->n_quantized_weights > 0)
    summary->quantized_weight_bits = (double) bits / (double) summary->n_quantized_weights;
}

void
onyx_quant_summarize (OnyxQuant *quant, const OnyxSummary *counted)
{
  OnyxQuantSummary *summary = &quant->summary;
  g_autoptr (OnyxSummary) made = counted == NULL ? onyx_summary_new (quant->model) : NULL;
  const OnyxSummary *parameters = counted != NULL ? counted : made;

  summary->quantized_ops = g_ptr_array_new_with_free_func ((GDestroyNotify) op_count_free);
  summary->float_ops = g_ptr_array_new_with_free_func ((GDestroyNotify) op_count_free);
  summary->types = g_array_new (FALSE, FALSE, sizeof (int32_t));
  for (size_t i = 0; i < quant->graph->n_node; i++)
    {
      const OnyxQuantNode *record = &quant->nodes[i];
      switch (record->role)
        {
        case ONYX_QUANT_QUANTIZE:
          summary->n_quantizers++;
          break;
        case ONYX_QUANT_DEQUANTIZE:
          summary->n_dequantizers++;
          break;
        case ONYX_QUANT_FLOAT:
          if (onyx_quant_is_op (record->node, "Constant"))
            break;
          summary->n_float++;
          summary->n_float_quantizable += record->has_quantized_form;
          count_op (summary->float_ops, record->node);
          break;
        default:
          summary->n_quantized++;
          summary->roles |= 1u << record->role;
          count_op (summary->quantized_ops, record->node);
          break;
        }
    }
  for (guint i = 0; i < quant->tensors->len; i++)
    {
      const OnyxQuantTensor *tensor = quant->tensors->pdata[i];
      if (tensor->elem_type != 0)
        add_type (summary->types, tensor->elem_type);
    }
  g_ptr_array_sort (summary->quantized_ops, compare_op_counts);
  g_ptr_array_sort (summary->float_ops, compare_op_counts);
  if (quant->quantized)
    count_weights (quant);
  if (parameters->n_parameters > 0 && !parameters->parameters_overflow)
    summary->bits_per_weight = (double) parameters->parameter_bytes * 8.0 / (double) parameters->n_parameters;
}

char *
onyx_quant_describe_roles (const OnyxQuantSummary *summary)
{
  GString *out = g_string_new (NULL);

  for (OnyxQuantRole role = ONYX_QUANT_QDQ; role <= ONYX_QUANT_WEIGHT_ONLY; role++)
    if (summary->roles & (1u << role))
      g_string_append_printf (out, "%s%s", out->len > 0 ? ", " : "", onyx_quant_role_name (role));
  return g_string_free (out, FALSE);
}

char *
onyx_quant_describe_ops (GPtrArray *counts, guint max_listed)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < counts->len && i < max_listed; i++)
    {
      const OnyxOpCount *count = counts->pdata[i];
      g_autofree char *op = onyx_display_escape (count->op);
      g_string_append_printf (out, "%s%s %u", i > 0 ? ", " : "", op, count->count);
    }
  if (counts->len > max_listed)
    /* Translators: after a list of operators and their counts: "Conv 5, Relu 5, … 3 more" */
    g_string_append_printf (out, _(", … %u more"), counts->len - max_listed);
  return g_string_free (out, FALSE);
}

char *
onyx_quant_describe_types (const OnyxQuantSummary *summary)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < summary->types->len; i++)
    g_string_append_printf (out, "%s%s", i > 0 ? ", " : "",
                            onyx_elem_type_name (g_array_index (summary->types, int32_t, i)));
  return g_string_free (out, FALSE);
}

/* ---- Text ---- */

/* "0.0235", "1.2e-05": a scale as people read one. */
static void
append_number (GString *out, double value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append (out, g_ascii_formatd (buffer, sizeof buffer, "%.3g", value));
}

static void
append_values (GString *out, const char *label, const double *values, guint64 n)
{
  double low = INFINITY, high = -INFINITY;

  for (guint64 i = 0; i < n; i++)
    {
      low = MIN (low, values[i]);
      high = MAX (high, values[i]);
    }
  g_string_append_printf (out, " %s", label);
  append_number (out, low);
  if (high != low)
    {
      g_string_append (out, "–");
      append_number (out, high);
    }
}

char *
onyx_quant_tensor_describe (const OnyxQuantTensor *tensor)
{
  GString *out = g_string_new (tensor->elem_type != 0 ? onyx_elem_type_name (tensor->elem_type) : "?");

  if (tensor->dynamic)
    {
      /* Translators: a tensor quantized as the model runs, e.g. "uint8, dynamic". */
      g_string_append (out, _(", dynamic"));
      return g_string_free (out, FALSE);
    }
  /* (Counts go in as text: xgettext cannot read G_GUINT64_FORMAT.) */
  g_autofree char *n_scales = g_strdup_printf ("%" G_GUINT64_FORMAT, tensor->n_scales);
  g_autofree char *block = g_strdup_printf ("%" G_GINT64_FORMAT, tensor->block_size);

  if (tensor->block_size > 0 && tensor->n_scales > 1)
    /* Translators: "int4 in blocks of 32, 512 scales". */
    g_string_append_printf (out, _(" in blocks of %s, %s scales"), block, n_scales);
  else if (tensor->n_scales > 1 && tensor->axis >= 0)
    /* Translators: "int8 per channel ×64 on axis 0". */
    g_string_append_printf (out, _(" per channel ×%s on axis %d"), n_scales, tensor->axis);
  else if (tensor->n_scales > 1)
    /* Translators: "int8 per channel ×64". */
    g_string_append_printf (out, _(" per channel ×%s"), n_scales);
  if (tensor->scales != NULL)
    {
      if (tensor->n_scales > 1)
        g_string_append_c (out, ',');
      append_values (out, "s=", tensor->scales, tensor->n_scales);
      if (tensor->zero_points != NULL)
        append_values (out, "zp=", tensor->zero_points, tensor->n_scales);
      else if (tensor->zero_point_name == NULL)
        g_string_append (out, " zp=0");
    }
  if (tensor->has_range)
    {
      g_string_append (out, " → [");
      append_number (out, tensor->range_min);
      g_string_append (out, ", ");
      append_number (out, tensor->range_max);
      g_string_append (out, "]");
    }
  return g_string_free (out, FALSE);
}

char *
onyx_quant_node_describe (const OnyxQuantNode *record)
{
  const Onnx__NodeProto *node = record->node;
  g_autoptr (GArray) types = g_array_new (FALSE, FALSE, sizeof (int32_t));
  GString *out;
  guint n_slots;
  int weight;
  const guint8 *slots = onyx_quant_data_slots (node, &n_slots, &weight);
  gboolean weight_only = record->role == ONYX_QUANT_WEIGHT_ONLY;

  if (record->role == ONYX_QUANT_FLOAT)
    return NULL;
  for (size_t k = 0; k < node->n_input; k++)
    {
      int32_t type = record->input_types[k];
      /* A weight-only operator's activation is float: worth saying (-1 stands for it). */
      if (type == 0 && weight_only && k == 0)
        type = -1;
      if (type == 0 || (type == ONYX_QT_INT32 && slots != NULL && k >= 2))
        continue;
      add_type (types, type);
    }
  out = g_string_new (node->op_type);
  g_string_append (out, " · ");
  for (guint i = 0; i < types->len; i++)
    {
      int32_t type = g_array_index (types, int32_t, i);
      g_string_append_printf (out, "%s%s", i > 0 ? "×" : "", type < 0 ? "float" : onyx_elem_type_name (type));
    }
  if (types->len == 0)
    g_string_append (out, "float");
  g_string_append_printf (out, " → %s",
                          node->n_output > 0 && record->output_types[0] != 0
                            ? onyx_elem_type_name (record->output_types[0])
                                                                            : "float");
  return g_string_free (out, FALSE);
}
