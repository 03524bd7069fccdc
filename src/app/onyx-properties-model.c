/* onyx-properties-model.c: the model's page of the properties panel (what the
 * file says of itself, its counts, opsets, metadata, inputs and outputs), and the
 * group of the subgraph or function shown. */
#include "onyx-properties-private.h"

#include <glib/gi18n.h>

#include "onyx-analysis.h"
#include "onyx-edits.h"
#include "onyx-graph-names.h"
#include "onyx-schema.h"
#include "onyx-summary.h"
#include "onyx-text.h"

/* A count of parameters as people read it: "9.7 k", "22.0 M". */
static char *
format_parameter_count (guint64 n)
{
  return onyx_format_count (n, ONYX_COUNT_LOCALIZED);
}

/* "9.7 k (38.9 kB)", and how many of them Constant nodes hold when some do. */
static char *
format_parameters (const OnyxSummary *summary)
{
  g_autofree char *size = NULL;
  g_autofree char *total = NULL;
  g_autofree char *in_constants = NULL;
  g_autoptr (GString) text = g_string_new (NULL);

  if (summary->parameters_overflow)
    return g_strdup (_("too many to count"));
  size = g_format_size (summary->parameter_bytes);
  total = format_parameter_count (summary->n_parameters);
  if (summary->n_constant_tensors == 0)
    g_string_printf (text, "%s (%s)", total, size);
  else
    {
      in_constants = format_parameter_count (summary->constant_parameters);
      g_string_printf (text, ngettext ("%s (%s), %s of them in %u Constant node",
                                       "%s (%s), %s of them in %u Constant nodes", summary->n_constant_tensors),
                       total, size, in_constants, summary->n_constant_tensors);
    }
  /* A quantized model: its low-bit weights, and the scales and zero points apart. */
  if (summary->low_bit_parameters > 0)
    {
      g_autofree char *low = format_parameter_count (summary->low_bit_parameters);
      g_string_append (text, ", ");
      if (summary->low_bits > 0)
        /* TRANSLATORS: "2.49 M in 4 bits", of a model's weights. */
        g_string_append_printf (text, _("%s in %u bits"), low, summary->low_bits);
      else
        g_string_append_printf (text, _("%s in fewer than 8 bits"), low);
    }
  if (summary->quantization_parameters > 0)
    {
      g_autofree char *scales = format_parameter_count (summary->quantization_parameters);
      g_string_append (text, "; ");
      g_string_append_printf (text, _("%s quantization scales and zero points besides"), scales);
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* The subgraph or function shown: its name, its holder, what it reads from outside. */
static void
add_graph_group (OnyxProperties *self, OnyxDocument *doc, Onnx__GraphProto *graph)
{
  g_autoptr (OnyxGraphList) graphs = onyx_graph_list_new (onyx_document_get_proto (doc));
  const OnyxGraphEntry *entry = onyx_graph_list_lookup (graphs, graph);
  Onnx__NodeProto *holder = onyx_document_graph_owner (doc, graph);
  g_autoptr (GPtrArray) reads = onyx_graph_outer_reads (graph);
  g_autoptr (GString) outer = g_string_new (NULL);
  GtkWidget *group = onyx_properties_add_group (self, holder != NULL ? _("Subgraph") : _("Function"));

  onyx_properties_add_text_row (group, _("Name"), onyx_display_escape (entry != NULL ? entry->name : graph->name));
  if (holder != NULL)
    {
      g_autofree char *who = onyx_node_describe (doc, holder);
      g_autofree char *op = onyx_display_escape (holder->op_type);
      g_autofree char *text = g_strdup_printf ("%s (%s)", who, op);
      onyx_properties_add_link_row (group, _("Held by"), text, "graph.graph-up", NULL);
    }
  onyx_properties_add_text_row (group, _("Nodes"), onyx_properties_format_count (graph->n_node));
  for (guint i = 0; i < reads->len; i++)
    {
      g_autofree char *shown = onyx_display_escape (reads->pdata[i]);
      g_string_append_printf (outer, "%s%s", outer->len > 0 ? ", " : "", shown);
    }
  if (holder != NULL)
    onyx_properties_add_row (group, _("Reads from outside"), outer->len > 0 ? outer->str : _("nothing"));
}

/* A version the model gives, and what that means when the linked ONNX library knows
 * only older ones (`known` 0: the library knows nothing of it, so says nothing). */
static char *
version_text (gint64 version, int known, const char *newer_format)
{
  g_autofree char *number = g_strdup_printf ("%" G_GINT64_FORMAT, version);

  if (known <= 0 || version <= known)
    return g_steal_pointer (&number);
  return g_strdup_printf (newer_format, number, onyx_schema_onnx_version (), known);
}

void
onyx_properties_show_model (OnyxProperties *self, OnyxDocument *doc, Onnx__GraphProto *graph)
{
  Onnx__ModelProto *model = onyx_document_get_proto (doc);
  const OnyxSummary *summary = onyx_analysis_summary_of (doc);
  GtkWidget *group;

  onyx_properties_begin_page (self);
  onyx_properties_tag_model_page (self, doc, graph);
  if (graph != NULL && graph != model->graph)
    add_graph_group (self, doc, graph);
  group = onyx_properties_add_group (self, _("Model"));
  onyx_properties_add_row (group, _("File"), onyx_model_get_display_name (onyx_document_get_model (doc)));
  onyx_properties_add_text_row (group, _("IR version"), version_text (model->ir_version, onyx_schema_ir_version (),
                   /* Translators: "11 (newer than ONNX 1.12.0 knows: 8; …)", an IR version */
                   _("%s (newer than ONNX %s knows: %d; the fields added since are kept but not checked)")));
  {
    g_autofree char *producer = onyx_display_escape (model->producer_name);
    g_autofree char *version = onyx_display_escape (model->producer_version);
    onyx_properties_add_text_row (group, _("Producer"), g_strstrip (g_strdup_printf ("%s %s", producer, version)));
  }
  if (model->domain != NULL && model->domain[0] != '\0')
    onyx_properties_add_text_row (group, _("Domain"), onyx_display_escape (model->domain));
  if (model->has_model_version)
    onyx_properties_add_text_row (group, _("Model version"), g_strdup_printf ("%" G_GINT64_FORMAT, model->model_version));
  {
    g_autofree char *count = onyx_properties_format_count (summary->n_nodes);
    /* Exports are half scaffolding: where the count is, what folds it away. */
    onyx_properties_add_suffix_button (onyx_properties_add_row (group, _("Nodes"), count), _("Si_mplify"),
                       _("Fold constants and shapes, remove no-ops and duplicates, fuse; proven in ONNX Runtime"),
                       "simplify.run");
  }
  onyx_properties_add_text_row (group, _("Parameters"), format_parameters (summary));
  if (model->n_functions > 0)
    {
      g_autofree char *count = onyx_properties_format_count (model->n_functions);
      /* Older dynamo exports wrap every module in one: inlined, the graph is whole. */
      onyx_properties_add_suffix_button (onyx_properties_add_row (group, _("Local functions"), count), _("In_line"),
                         _("Replace every call by the function’s nodes"), "edit.inline-functions");
    }
  if (model->doc_string != NULL && model->doc_string[0] != '\0')
    onyx_properties_add_text_row (group, _("Description"), onyx_display_escape (model->doc_string));

  onyx_properties_add_quant_model_group (self, doc);

  group = onyx_properties_add_group (self, _("Operator Sets"));
  for (size_t i = 0; i < model->n_opset_import; i++)
    {
      const char *domain = model->opset_import[i]->domain;
      g_autofree char *name = onyx_display_escape (domain != NULL && domain[0] ? domain : "ai.onnx");
      onyx_properties_add_text_row (group, name, version_text (model->opset_import[i]->version, onyx_schema_domain_version (domain),
                       /* Translators: "23 (newer than ONNX 1.12.0 knows: 17; …)", an opset version */
                       _("%s (newer than ONNX %s knows: %d; operator checks and shapes of this domain are limited)")));
    }

  if (model->n_metadata_props > 0)
    {
      group = onyx_properties_add_group (self, _("Metadata"));
      for (size_t i = 0; i < model->n_metadata_props; i++)
        {
          g_autofree char *key = onyx_display_escape (model->metadata_props[i]->key);
          onyx_properties_add_metadata_row (group, key, onyx_display_escape (model->metadata_props[i]->value));
        }
    }

  if (graph != NULL || model->graph != NULL)
    onyx_properties_add_metadata_group (self, _("Graph Metadata"), &(graph != NULL ? graph : model->graph)->base, FALSE);

  if (model->graph != NULL)
    {
      g_autoptr (GPtrArray) inputs = g_ptr_array_new ();
      for (size_t i = 0; i < model->graph->n_input; i++)
        if (!onyx_graph_input_is_initializer (model->graph, model->graph->input[i]->name))
          g_ptr_array_add (inputs, model->graph->input[i]);
      onyx_properties_add_value_infos (onyx_properties_add_group (self, _("Inputs")), self->page,
                                       (Onnx__ValueInfoProto **) inputs->pdata, inputs->len, TRUE);
      onyx_properties_add_value_infos (onyx_properties_add_group (self, _("Outputs")), self->page, model->graph->output,
                                       model->graph->n_output, FALSE);
    }
  onyx_properties_present_page (self);
}

