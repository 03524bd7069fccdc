/* onyx-cli info: what Netron's model panel shows, as text or JSON. */
#include <stdio.h>

#include "onyx-cli.h"
#include "onyx-json.h"
#include "onyx-model.h"
#include "onyx-name-family.h"
#include "onyx-quant.h"
#include "onyx-schema.h"
#include "onyx-summary.h"
#include "onyx-types.h"
#include "onyx-validate.h"
#include "onyx-text.h"

/* A field's value is cut to fit a line (`--json` has it whole). */
static void
print_field (const char *label, const char *value)
{
  g_autofree char *shown = NULL;

  if (value == NULL || value[0] == '\0')
    return;
  shown = onyx_cli_cut (value, ONYX_CLI_MAX_LINE - 19);
  printf ("  %-16s %s\n", label, shown);
}

/* Past this many inputs (or outputs), families of them are one row each; past
 * MAX_VALUE_ROWS rows, how many more there are. */
#define FAMILIES_PAST 16
#define MAX_VALUE_ROWS 40
/* The name column is at most this wide: a longer name pushes its type along. */
#define MAX_NAME_COLUMN 48

/* A row of the Inputs or Outputs list: a value, or a family of them. */
typedef struct {
  char *name;   /* escaped */
  char *type;
} ValueRow;

static void
value_row_clear (ValueRow *row)
{
  g_free (row->name);
  g_free (row->type);
}

/* The type of a family's members: theirs when they all have the same, and how many. */
static char *
family_type (Onnx__ValueInfoProto **members, guint n, gboolean inputs)
{
  g_autofree char *first = onyx_type_to_string (members[0]->type);
  gboolean same = TRUE;

  for (guint i = 1; i < n && same; i++)
    {
      g_autofree char *type = onyx_type_to_string (members[i]->type);
      same = g_strcmp0 (type, first) == 0;
    }
  return g_strdup_printf ("%s (%u %s)", same ? first : "types differ", n,
                          inputs ? ONYX_CLI_PLURAL (n, "input", "inputs") : ONYX_CLI_PLURAL (n, "output", "outputs"));
}

/* The rows of the graph's inputs (not initializers) or outputs. */
static GArray *
value_rows (Onnx__ValueInfoProto **values, size_t n_values, const Onnx__GraphProto *graph, gboolean inputs)
{
  g_autoptr (GPtrArray) shown = g_ptr_array_new ();
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GArray) families = NULL;
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (ValueRow));

  g_array_set_clear_func (rows, (GDestroyNotify) value_row_clear);
  for (size_t i = 0; i < n_values; i++)
    if (!inputs || !onyx_graph_input_is_initializer (graph, values[i]->name))
      {
        g_ptr_array_add (shown, values[i]);
        g_ptr_array_add (names, values[i]->name != NULL ? values[i]->name : "");
      }
  families = onyx_name_families ((const char *const *) names->pdata, names->len,
                                 names->len > FAMILIES_PAST ? ONYX_CLI_FAMILY_MIN : G_MAXUINT);
  for (guint f = 0; f < families->len; f++)
    {
      const OnyxNameFamily *family = &g_array_index (families, OnyxNameFamily, f);
      Onnx__ValueInfoProto **members = (Onnx__ValueInfoProto **) shown->pdata + family->first;
      ValueRow row;

      row.name = onyx_display_escape (family->title != NULL ? family->title : members[0]->name);
      row.type = family->title != NULL ? family_type (members, family->n, inputs)
                                       : onyx_type_to_string (members[0]->type);
      g_array_append_val (rows, row);
    }
  return rows;
}

static int
rows_width (int least, GArray *rows)
{
  int width = least;

  for (guint i = 0; i < rows->len; i++)
    {
      int length = (int) g_utf8_strlen (g_array_index (rows, ValueRow, i).name, -1);
      if (length <= MAX_NAME_COLUMN)
        width = MAX (width, length);
    }
  return width;
}

/* `text` and spaces up to `width` characters (not bytes: names are UTF-8). */
static void
print_padded (const char *text, int width)
{
  int length = (int) g_utf8_strlen (text, -1);

  printf ("%s%*s", text, MAX (width - length, 0), "");
}

static void
print_rows (const char *title, GArray *rows, int width)
{
  printf ("%s\n", title);
  for (guint i = 0; i < rows->len && i < MAX_VALUE_ROWS; i++)
    {
      const ValueRow *row = &g_array_index (rows, ValueRow, i);
      g_autofree char *line = g_strdup_printf ("%s%*s %s", row->name,
                                               MAX (width - (int) g_utf8_strlen (row->name, -1), 0), "",
                                               row->type);
      g_autofree char *shown = onyx_cli_cut (line, ONYX_CLI_MAX_LINE - 2);

      printf ("  %s\n", shown);
    }
  if (rows->len > MAX_VALUE_ROWS)
    printf ("  … and %u more (--json lists them all)\n", rows->len - MAX_VALUE_ROWS);
}

/* "22.0 M (22,044,930)", "448". */
static char *
format_count (guint64 n)
{
  g_autofree char *rounded = onyx_format_count (n, ONYX_COUNT_PLAIN);
  g_autofree char *grouped = onyx_format_count_grouped (n, ONYX_COUNT_PLAIN);

  return n < 1000 ? g_steal_pointer (&rounded) : g_strdup_printf ("%s (%s)", rounded, grouped);
}

/* "Conv 5, Add 2, Gemm 1", the first few (--json lists them all). */
#define MAX_OPS_LISTED 8

/* How the model runs quantized: the ways (QDQ, QOperator, dynamic, weight-only) and
 * types, what runs quantized and what stays float, the bits a weight takes. */
static void
print_quantization (OnyxModel *model, const OnyxSummary *counted)
{
  g_autoptr (OnyxQuant) quant = onyx_quant_new (onyx_model_get_proto (model), onyx_model_get_base_dir (model));
  const OnyxQuantSummary *summary;
  g_autofree char *roles = NULL, *types = NULL, *quantized = NULL, *floats = NULL;

  if (!onyx_quant_is_quantized (quant))
    return;
  summary = onyx_quant_get_summary_from (quant, counted);
  roles = onyx_quant_describe_roles (summary);
  types = onyx_quant_describe_types (summary);
  quantized = onyx_quant_describe_ops (summary->quantized_ops, MAX_OPS_LISTED);
  floats = onyx_quant_describe_ops (summary->float_ops, MAX_OPS_LISTED);
  printf ("Quantization: %s%s%s\n", roles[0] != '\0' ? roles : "quantize/dequantize only",
          types[0] != '\0' ? "; types " : "", types);
  printf ("  %-16s %u %s%s%s\n", "runs quantized", summary->n_quantized,
          ONYX_CLI_PLURAL (summary->n_quantized, "node", "nodes"), summary->n_quantized > 0 ? ": " : "", quantized);
  printf ("  %-16s %u %s%s%s", "stays float", summary->n_float, ONYX_CLI_PLURAL (summary->n_float, "node", "nodes"),
          summary->n_float > 0 ? ": " : "", floats);
  if (summary->n_float > 0)
    printf (" (%u with a quantized form)", summary->n_float_quantizable);
  printf ("\n  %-16s %u quantize, %u dequantize\n", "Q/DQ nodes", summary->n_quantizers, summary->n_dequantizers);
  if (summary->bits_per_weight > 0)
    {
      g_autofree char *n_weights = onyx_format_count_grouped (summary->n_quantized_weights, ONYX_COUNT_PLAIN);
      printf ("  %-16s %.2f", "bits per weight", summary->bits_per_weight);
      if (summary->n_quantized_weights > 0)
        printf (" (%s stored quantized: %.2f each with their scales and zero points)", n_weights,
                summary->quantized_weight_bits);
      printf ("\n");
    }
}

static char *
opset_list (const Onnx__ModelProto *model)
{
  GString *out = g_string_new (NULL);

  for (size_t i = 0; i < model->n_opset_import; i++)
    {
      const Onnx__OperatorSetIdProto *opset = model->opset_import[i];
      const char *domain = onyx_domain_is_default (opset->domain) ? "ai.onnx" : opset->domain;
      int known = onyx_schema_domain_version (opset->domain);
      g_string_append_printf (out, "%s%s v%" G_GINT64_FORMAT "%s", i > 0 ? ", " : "", domain,
                              opset->version,
                              onyx_domain_is_standard (opset->domain) ? "" : " (custom)");
      if (known > 0 && opset->version > known)
        g_string_append_printf (out, " (newer than ONNX %s knows: %d)", onyx_schema_onnx_version (), known);
    }
  return g_string_free (out, FALSE);
}

static void
print_text (OnyxModel *model)
{
  const Onnx__ModelProto *proto = onyx_model_get_proto (model);
  const Onnx__GraphProto *graph = proto->graph;
  g_autoptr (OnyxSummary) summary = onyx_summary_new (proto);
  g_autofree char *opsets = opset_list (proto);
  g_autofree char *size = g_format_size (summary->parameter_bytes);
  g_autoptr (GArray) inputs = NULL, outputs = NULL;
  g_autofree char *parameters = format_count (summary->n_parameters);
  g_autofree char *low_bit = onyx_format_count (summary->low_bit_parameters, ONYX_COUNT_PLAIN);
  g_autofree char *scales = onyx_format_count (summary->quantization_parameters, ONYX_COUNT_PLAIN);
  char number[32];
  int width;

  printf ("%s\n", onyx_model_get_display_name (model));
  if (proto->has_ir_version)
    {
      g_snprintf (number, sizeof number, "%" G_GINT64_FORMAT, proto->ir_version);
      print_field ("IR version", number);
    }
  print_field ("Opsets", opsets);
  print_field ("Producer", proto->producer_name);
  print_field ("Producer version", proto->producer_version);
  print_field ("Domain", proto->domain);
  if (proto->has_model_version)
    {
      g_snprintf (number, sizeof number, "%" G_GINT64_FORMAT, proto->model_version);
      print_field ("Model version", number);
    }
  print_field ("Graph", graph->name);
  print_field ("Description", proto->doc_string);
  for (size_t i = 0; i < proto->n_metadata_props; i++)
    {
      g_autofree char *entry = g_strdup_printf ("%s = %s", proto->metadata_props[i]->key,
                                                proto->metadata_props[i]->value);
      g_autofree char *shown = onyx_cli_cut (entry, ONYX_CLI_MAX_LINE - 19);
      printf ("  %-16s %s\n", i == 0 ? "Metadata" : "", shown);
    }

  /* Inputs and outputs in one column, as wide as their longest name. */
  inputs = value_rows (graph->input, graph->n_input, graph, TRUE);
  outputs = value_rows (graph->output, graph->n_output, graph, FALSE);
  width = rows_width (rows_width (16, inputs), outputs);
  print_rows ("Inputs", inputs, width);
  print_rows ("Outputs", outputs, width);

  printf ("Nodes: %u", summary->n_nodes);
  if (summary->n_nodes_all != summary->n_nodes)
    printf (" (%u with subgraphs and functions)", summary->n_nodes_all);
  printf ("\n");
  width = 24;
  for (guint i = 0; i < summary->op_counts->len; i++)
    {
      g_autofree char *op = onyx_display_escape (((const OnyxOpCount *) summary->op_counts->pdata[i])->op);
      width = MAX (width, (int) g_utf8_strlen (op, -1));
    }
  for (guint i = 0; i < summary->op_counts->len; i++)
    {
      const OnyxOpCount *count = summary->op_counts->pdata[i];
      g_autofree char *op = onyx_display_escape (count->op);
      printf ("  ");
      print_padded (op, width);
      printf (" %u\n", count->count);
    }
  printf ("Parameters: %s in %u %s", parameters, summary->n_initializers,
          ONYX_CLI_PLURAL (summary->n_initializers, "initializer", "initializers"));
  if (summary->n_constant_tensors > 0)
    printf (" and %u Constant %s", summary->n_constant_tensors,
            ONYX_CLI_PLURAL (summary->n_constant_tensors, "node", "nodes"));
  printf (" (%s)%s", size, summary->parameters_overflow ? ", some sizes could not be computed" : "");
  /* Quantized models: how much is low-bit, and the scales and zero points apart. */
  if (summary->low_bit_parameters > 0 && summary->low_bits > 0)
    printf (", %s of them in %u %s", low_bit, summary->low_bits, ONYX_CLI_PLURAL (summary->low_bits, "bit", "bits"));
  else if (summary->low_bit_parameters > 0)
    printf (", %s of them in fewer than 8 bits", low_bit);
  if (summary->quantization_parameters > 0)
    printf (", besides %s quantization scales and zero points", scales);
  printf ("\n");
  print_quantization (model, summary);
  if (proto->n_functions > 0)
    {
      printf ("Functions:\n");
      for (size_t i = 0; i < proto->n_functions; i++)
        {
          g_autofree char *domain = onyx_display_escape (proto->functions[i]->domain);
          g_autofree char *name = onyx_display_escape (proto->functions[i]->name);
          printf ("  %s::%s (%zu %s)\n", domain, name, proto->functions[i]->n_node,
                  ONYX_CLI_PLURAL (proto->functions[i]->n_node, "node", "nodes"));
        }
    }
  for (guint i = 0; i < summary->custom_domains->len; i++)
    {
      const char *raw = summary->custom_domains->pdata[i];
      g_autofree char *domain = onyx_display_escape (raw);
      if (onyx_domain_is_onnxruntime (raw))
        printf ("Custom domain: %s (ONNX Runtime's contrib operators: runs on ONNX Runtime only)\n",
                domain);
      else
        printf ("Custom domain: %s (not part of the ONNX standard: standard runtimes cannot run its "
                "operators)\n", domain);
    }
  for (guint i = 0; i < summary->unused_domains->len; i++)
    {
      g_autofree char *domain = onyx_display_escape (summary->unused_domains->pdata[i]);
      printf ("Unused opset import: %s (no node uses it)\n", domain);
    }
}

static void
json_value_infos (OnyxJson *json, const char *key, Onnx__ValueInfoProto **values, size_t n_values,
                  const Onnx__GraphProto *graph, gboolean skip_initializers)
{
  onyx_json_key (json, key);
  onyx_json_begin_array (json);
  for (size_t i = 0; i < n_values; i++)
    {
      const Onnx__TypeProto *type = values[i]->type;
      g_autofree char *type_text = NULL;

      if (skip_initializers && onyx_graph_input_is_initializer (graph, values[i]->name))
        continue;
      type_text = onyx_type_to_string (type);
      onyx_json_begin_object (json);
      onyx_json_member_string (json, "name", values[i]->name);
      onyx_json_member_string (json, "type", type_text);
      onyx_json_key (json, "elem_type");
      if (type != NULL && type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
          type->tensor_type->has_elem_type)
        onyx_json_string (json, onyx_elem_type_name (type->tensor_type->elem_type));
      else
        onyx_json_null (json);
      onyx_json_key (json, "dims");
      if (type != NULL && type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
          type->tensor_type->shape != NULL)
        {
          const Onnx__TensorShapeProto *shape = type->tensor_type->shape;
          onyx_json_begin_array (json);
          for (size_t d = 0; d < shape->n_dim; d++)
            {
              const Onnx__TensorShapeProto__Dimension *dim = shape->dim[d];
              if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
                onyx_json_int (json, dim->dim_value);
              else if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
                onyx_json_string (json, dim->dim_param);
              else
                onyx_json_null (json);
            }
          onyx_json_end_array (json);
        }
      else
        onyx_json_null (json);
      onyx_json_end_object (json);
    }
  onyx_json_end_array (json);
}

static void
json_optional_string (OnyxJson *json, const char *key, const char *value)
{
  onyx_json_key (json, key);
  onyx_json_string (json, value);
}

static void
json_op_counts (OnyxJson *json, const char *key, GPtrArray *counts)
{
  onyx_json_key (json, key);
  onyx_json_begin_array (json);
  for (guint i = 0; i < counts->len; i++)
    {
      const OnyxOpCount *count = counts->pdata[i];
      onyx_json_begin_object (json);
      json_optional_string (json, "op", count->op);
      onyx_json_member_uint (json, "count", count->count);
      onyx_json_end_object (json);
    }
  onyx_json_end_array (json);
}

/* "quantization": null for a float model. */
static void
json_quantization (OnyxJson *json, OnyxModel *model, const OnyxSummary *counted)
{
  g_autoptr (OnyxQuant) quant = onyx_quant_new (onyx_model_get_proto (model), onyx_model_get_base_dir (model));
  const OnyxQuantSummary *summary;

  onyx_json_key (json, "quantization");
  if (!onyx_quant_is_quantized (quant))
    {
      onyx_json_null (json);
      return;
    }
  summary = onyx_quant_get_summary_from (quant, counted);
  onyx_json_begin_object (json);
  onyx_json_key (json, "kinds");
  onyx_json_begin_array (json);
  for (OnyxQuantRole role = ONYX_QUANT_QDQ; role <= ONYX_QUANT_WEIGHT_ONLY; role++)
    if (summary->roles & (1u << role))
      onyx_json_string (json, onyx_quant_role_name (role));
  onyx_json_end_array (json);
  onyx_json_key (json, "types");
  onyx_json_begin_array (json);
  for (guint i = 0; i < summary->types->len; i++)
    onyx_json_string (json, onyx_elem_type_name (g_array_index (summary->types, int32_t, i)));
  onyx_json_end_array (json);
  onyx_json_member_uint (json, "quantized_node_count", summary->n_quantized);
  onyx_json_member_uint (json, "float_node_count", summary->n_float);
  onyx_json_member_uint (json, "float_quantizable_node_count", summary->n_float_quantizable);
  onyx_json_member_uint (json, "quantize_node_count", summary->n_quantizers);
  onyx_json_member_uint (json, "dequantize_node_count", summary->n_dequantizers);
  json_op_counts (json, "quantized_ops", summary->quantized_ops);
  json_op_counts (json, "float_ops", summary->float_ops);
  onyx_json_member_uint (json, "quantized_weight_count", summary->n_quantized_weights);
  onyx_json_member_double (json, "quantized_weight_bits", summary->quantized_weight_bits);
  onyx_json_member_double (json, "bits_per_weight", summary->bits_per_weight);
  onyx_json_end_object (json);
}

static void
write_json (OnyxJson *json, OnyxModel *model)
{
  const Onnx__ModelProto *proto = onyx_model_get_proto (model);
  const Onnx__GraphProto *graph = proto->graph;
  g_autoptr (OnyxSummary) summary = onyx_summary_new (proto);

  onyx_json_begin_object (json);
  json_optional_string (json, "file", onyx_model_get_display_name (model));
  onyx_json_key (json, "ir_version");
  if (proto->has_ir_version)
    onyx_json_int (json, proto->ir_version);
  else
    onyx_json_null (json);
  json_optional_string (json, "producer_name", proto->producer_name);
  json_optional_string (json, "producer_version", proto->producer_version);
  json_optional_string (json, "domain", proto->domain);
  onyx_json_key (json, "model_version");
  if (proto->has_model_version)
    onyx_json_int (json, proto->model_version);
  else
    onyx_json_null (json);
  json_optional_string (json, "doc_string", proto->doc_string);
  json_optional_string (json, "graph_name", graph->name);

  onyx_json_key (json, "opset_imports");
  onyx_json_begin_array (json);
  for (size_t i = 0; i < proto->n_opset_import; i++)
    {
      const Onnx__OperatorSetIdProto *opset = proto->opset_import[i];
      onyx_json_begin_object (json);
      json_optional_string (json, "domain", opset->domain != NULL ? opset->domain : "");
      onyx_json_member_int (json, "version", opset->version);
      onyx_json_member_bool (json, "standard", onyx_domain_is_standard (opset->domain));
      /* Whether the linked ONNX library knows this opset: its checks and shapes do. */
      onyx_json_member_bool (json, "known", onyx_schema_domain_version (opset->domain) >= opset->version);
      onyx_json_end_object (json);
    }
  onyx_json_end_array (json);

  onyx_json_key (json, "metadata_props");
  onyx_json_begin_array (json);
  for (size_t i = 0; i < proto->n_metadata_props; i++)
    {
      onyx_json_begin_object (json);
      json_optional_string (json, "key", proto->metadata_props[i]->key);
      json_optional_string (json, "value", proto->metadata_props[i]->value);
      onyx_json_end_object (json);
    }
  onyx_json_end_array (json);

  json_value_infos (json, "inputs", graph->input, graph->n_input, graph, TRUE);
  json_value_infos (json, "outputs", graph->output, graph->n_output, graph, FALSE);

  onyx_json_member_uint (json, "node_count", summary->n_nodes);
  onyx_json_member_uint (json, "node_count_with_subgraphs", summary->n_nodes_all);
  json_op_counts (json, "op_counts", summary->op_counts);
  onyx_json_member_uint (json, "initializer_count", summary->n_initializers);
  onyx_json_member_uint (json, "parameter_count", summary->n_parameters);
  onyx_json_member_uint (json, "parameter_bytes", summary->parameter_bytes);
  onyx_json_member_uint (json, "low_bit_parameter_count", summary->low_bit_parameters);
  onyx_json_member_uint (json, "low_bit_width", summary->low_bits);
  onyx_json_member_uint (json, "quantization_parameter_count", summary->quantization_parameters);
  onyx_json_member_uint (json, "constant_count", summary->n_constant_tensors);
  onyx_json_member_uint (json, "constant_parameter_count", summary->constant_parameters);
  onyx_json_member_uint (json, "constant_parameter_bytes", summary->constant_bytes);
  json_quantization (json, model, summary);
  onyx_json_member_strings (json, "custom_domains", summary->custom_domains);
  onyx_json_member_strings (json, "unused_opset_imports", summary->unused_domains);
  onyx_json_key (json, "functions");
  onyx_json_begin_array (json);
  for (size_t i = 0; i < proto->n_functions; i++)
    {
      onyx_json_begin_object (json);
      json_optional_string (json, "domain", proto->functions[i]->domain);
      json_optional_string (json, "name", proto->functions[i]->name);
      onyx_json_member_uint (json, "node_count", proto->functions[i]->n_node);
      onyx_json_end_object (json);
    }
  onyx_json_end_array (json);
  onyx_json_end_object (json);
}

/* A broken graph is still worth describing (that is how it gets repaired), but the
 * reader should know: one line on stderr, the details are `check`'s job. */
static void
warn_about_problems (OnyxModel *model)
{
  g_autoptr (GPtrArray) problems = onyx_validate_model (onyx_model_get_proto (model));
  guint n_errors = onyx_problems_count (problems, ONYX_PROBLEM_ERROR);

  for (guint i = 0; i < problems->len && n_errors > 0; i++)
    {
      const OnyxProblem *first = problems->pdata[i];
      g_autofree char *more = n_errors > 1 ? g_strdup_printf (" and %u more errors", n_errors - 1)
                                           : g_strdup ("");
      if (first->severity != ONYX_PROBLEM_ERROR)
        continue;
      fprintf (stderr, "onyx-cli: %s: %s%s (run 'onyx-cli check' for the full list)\n",
               onyx_model_get_display_name (model), first->message, more);
      break;
    }
}

static int
info_model (OnyxModel *model, OnyxJson *json, gboolean several, gpointer data)
{
  gboolean *first = data;

  if (json != NULL)
    write_json (json, model);
  else
    {
      /* Several models' descriptions, a blank line between. */
      if (several && !*first)
        printf ("\n");
      print_text (model);
    }
  *first = FALSE;
  warn_about_problems (model);
  return ONYX_EXIT_OK;
}

int
onyx_cli_info (int argc, char **argv)
{
  gboolean as_json = FALSE;
  gboolean first = TRUE;
  int exit_code;

  if (!onyx_cli_parse_models ("info", NULL,
                              "Print what the model contains; of several models, each in turn\n"
                              "(--json: an array of one object per model).",
                              &argc, &argv, &as_json, &exit_code))
    return exit_code;
  return onyx_cli_each_model (argc - 2, argv + 2, as_json, info_model, &first);
}
