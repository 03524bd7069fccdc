/* onyx-properties-quant.c: quantization in the properties panel. A node says the
 * types it runs in and how the tensors it reads and writes are quantized, a tensor
 * its type, scales, zero points, axis and the float range they represent, the model
 * what runs quantized, what stays float and the bits a weight takes. The analysis
 * (onyx-quant.h) is made once per revision of the document and kept with it. */
#include "onyx-properties-private.h"

#include <glib/gi18n.h>

#include "onyx-quant.h"
#include "onyx-text.h"

/* Operators listed on the model's page before "… N more". */
#define OPS_LISTED 6

/* A row per tensor the node reads or writes quantized, each once, linking to it. */
static void
add_tensor_rows (GtkWidget *group, OnyxQuant *quant, char **names, size_t n, GHashTable *shown)
{
  for (size_t i = 0; i < n; i++)
    {
      const OnyxQuantTensor *tensor = names[i][0] != '\0' ? onyx_quant_lookup_tensor (quant, names[i]) : NULL;
      g_autofree char *title = NULL, *text = NULL;

      /* A scale or zero point names no tensor of its own. */
      if (tensor == NULL || !g_hash_table_add (shown, (gpointer) tensor))
        continue;
      title = onyx_display_escape (names[i]);
      text = onyx_quant_tensor_describe (tensor);
      onyx_properties_add_link_row (group, title, text, "graph.select-tensor", g_variant_new_string (names[i]));
    }
}

void
onyx_properties_add_quant_node_group (OnyxProperties *self, OnyxDocument *doc, Onnx__NodeProto *node)
{
  OnyxQuant *quant = onyx_quant_peek_document (doc);
  const OnyxQuantNode *record = quant != NULL ? onyx_quant_lookup_node (quant, node) : NULL;
  g_autoptr (GHashTable) shown = NULL;
  g_autofree char *runs = NULL;
  GtkWidget *group;

  if (record == NULL || record->role == ONYX_QUANT_FLOAT)
    return;
  group = onyx_properties_add_group (self, _("Quantization"));
  runs = onyx_quant_node_describe (record);
  if (runs != NULL)
    onyx_properties_add_row (group, _("Runs as"), runs);
  onyx_properties_add_row (group, _("Way"), onyx_quant_role_name (record->role));
  shown = g_hash_table_new (NULL, NULL);
  add_tensor_rows (group, quant, node->input, node->n_input, shown);
  add_tensor_rows (group, quant, node->output, node->n_output, shown);
}

void
onyx_properties_add_quant_tensor_rows (GtkWidget *group, OnyxDocument *doc, const char *name)
{
  OnyxQuant *quant = onyx_quant_peek_document (doc);
  const OnyxQuantTensor *tensor = quant != NULL ? onyx_quant_lookup_tensor (quant, name) : NULL;

  if (tensor == NULL)
    return;
  onyx_properties_add_text_row (group, _("Quantized as"), onyx_quant_tensor_describe (tensor));
  if (tensor->scale_name != NULL)
    onyx_properties_add_link_row (group, _("Scale"), tensor->scale_name, "graph.select-tensor",
                                  g_variant_new_string (tensor->scale_name));
  if (tensor->zero_point_name != NULL)
    onyx_properties_add_link_row (group, _("Zero point"), tensor->zero_point_name, "graph.select-tensor",
                                  g_variant_new_string (tensor->zero_point_name));
}

/* "14 nodes: Conv 5, Relu 5, …" */
static char *
nodes_text (guint n, GPtrArray *counts)
{
  g_autofree char *count = onyx_properties_format_count (n);
  g_autofree char *ops = onyx_quant_describe_ops (counts, OPS_LISTED);

  if (n == 0)
    return g_strdup (_("none"));
  /* Translators: "14 nodes: Conv 5, Relu 5, Add 1" */
  return g_strdup_printf (ngettext ("%s node: %s", "%s nodes: %s", n), count, ops);
}

void
onyx_properties_add_quant_model_group (OnyxProperties *self, OnyxDocument *doc)
{
  OnyxQuant *quant = onyx_quant_peek_document (doc);
  const OnyxQuantSummary *summary;
  g_autofree char *roles = NULL, *types = NULL;
  GtkWidget *group;

  if (quant == NULL && onyx_quant_is_pending (doc) &&
      onyx_quant_graph_may_be_quantized (onyx_document_get_proto (doc)->graph))
    {
      /* The step's analysis is on its way: its rows, said "…" meanwhile, so that the
       * page keeps its height. */
      const char *rows[] = { N_("Ways"), N_("Types"), N_("Runs quantized"), N_("Stays float"), N_("Bits per weight") };
      group = onyx_properties_add_group (self, _("Quantization"));
      for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
        onyx_properties_add_row (group, _(rows[i]), "…");
      return;
    }
  if (quant == NULL || !onyx_quant_is_quantized (quant))
    return;
  summary = onyx_quant_get_summary (quant);
  group = onyx_properties_add_group (self, _("Quantization"));
  roles = onyx_quant_describe_roles (summary);
  types = onyx_quant_describe_types (summary);
  if (roles[0] != '\0')
    onyx_properties_add_row (group, _("Ways"), roles);
  if (types[0] != '\0')
    onyx_properties_add_row (group, _("Types"), types);
  onyx_properties_add_text_row (group, _("Runs quantized"), nodes_text (summary->n_quantized, summary->quantized_ops));
  {
    g_autofree char *floats = nodes_text (summary->n_float, summary->float_ops);
    g_autofree char *text = summary->n_float_quantizable > 0
                              /* Translators: "3 nodes: Add 2, Softmax 1; 2 of them could run quantized" */
                              ? g_strdup_printf (ngettext ("%s; %u of them could run quantized",
                                                              "%s; %u of them could run quantized",
                                                              summary->n_float_quantizable),
                                                 floats, summary->n_float_quantizable)
                              : g_strdup (floats);
    onyx_properties_add_row (group, _("Stays float"), text);
  }
  if (summary->bits_per_weight > 0)
    {
      g_autofree char *text = summary->n_quantized_weights > 0
                                /* Translators: bits per weight of a model: "5.40 (5.00 for the weights stored quantized)" */
                                ? g_strdup_printf (_("%.2f (%.2f for the weights stored quantized, their scales "
                                                     "and zero points counted in)"),
                                                   summary->bits_per_weight, summary->quantized_weight_bits)
                                : g_strdup_printf ("%.2f", summary->bits_per_weight);
      onyx_properties_add_row (group, _("Bits per weight"), text);
    }
}
