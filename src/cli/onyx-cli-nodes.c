/* onyx-cli nodes. */
#include <stdio.h>
#include <string.h>

#include "onyx-attribute.h"
#include "onyx-cli.h"
#include "onyx-json.h"
#include "onyx-metadata.h"
#include "onyx-shapes.h"
#include "onyx-model.h"
#include "onyx-quant.h"
#include "onyx-schema.h"
#include "onyx-summary.h"
#include "onyx-types.h"
#include "onyx-text.h"

/* What the node's operator schema says: slot names, defaults it runs with, doc. */
static void
print_schema_json (OnyxJson *json, const OnyxSchema *schema, const Onnx__NodeProto *node)
{
  g_autoptr (GPtrArray) defaults = NULL;
  g_autofree char *url = NULL;

  onyx_json_key (json, "schema");
  if (schema == NULL)
    {
      onyx_json_null (json);
      return;
    }
  defaults = onyx_schema_omitted_defaults (schema, node);
  url = onyx_schema_docs_url (schema->domain, schema->name);
  onyx_json_begin_object (json);
  onyx_json_member_int (json, "since_version", schema->since_version);
  onyx_json_member_string (json, "doc", schema->doc);
  onyx_json_member_string (json, "docs_url", url);
  /* One of ONNX Runtime's operators, not ONNX's. */
  onyx_json_member_bool (json, "onnxruntime", onyx_schema_is_onnxruntime (schema));
  for (int outputs = 0; outputs < 2; outputs++)
    {
      onyx_json_key (json, outputs ? "output_names" : "input_names");
      onyx_json_begin_array (json);
      for (size_t k = 0; k < (outputs ? node->n_output : node->n_input); k++)
        {
          g_autofree char *slot = outputs ? onyx_schema_output_name (schema, k)
                                          : onyx_schema_input_name (schema, k);
          onyx_json_string (json, slot);
        }
      onyx_json_end_array (json);
    }
  onyx_json_key (json, "defaults");
  onyx_json_begin_object (json);
  for (guint i = 0; i < defaults->len; i++)
    {
      /* As the file would write it: a number for an element type (as "attributes"). */
      const OnyxSchemaAttribute *attr = defaults->pdata[i];
      Onnx__AttributeProto *value = onyx_schema_attribute_default (attr);
      g_autofree char *text = onyx_attribute_to_string (value);
      onyx_json_key (json, attr->name);
      onyx_json_string (json, text);
      protobuf_c_message_free_unpacked (&value->base, NULL);
    }
  onyx_json_end_object (json);
  onyx_json_end_object (json);
}

/* The opsets a graph's nodes are read against: a function's own, else the model's. */
static const OnyxSchema *
schema_of (Onnx__ModelProto *model, const OnyxGraphEntry *entry, const Onnx__NodeProto *node)
{
  if (entry->function != NULL)
    return onyx_schema_for_node (node, entry->function->opset_import,
                                 entry->function->n_opset_import);
  return onyx_schema_for_node (node, model->opset_import, model->n_opset_import);
}

/* Each tensor's type as ONNX's shape inference sees it ("float32[N, 3]"), and
 * whether the file records it; null when nothing is known. */
static void
print_types_json (OnyxJson *json, const char *key, OnyxShapes *shapes, const Onnx__GraphProto *graph,
                  char **names, size_t n)
{
  onyx_json_key (json, key);
  onyx_json_begin_array (json);
  for (size_t k = 0; k < n; k++)
    {
      gboolean recorded;
      const Onnx__TypeProto *type = names[k] != NULL && names[k][0] != '\0'
                                      ? onyx_shapes_lookup (shapes, graph, names[k], &recorded) : NULL;
      g_autofree char *text = type != NULL ? onyx_type_to_string (type) : NULL;
      if (type == NULL)
        {
          onyx_json_null (json);
          continue;
        }
      onyx_json_begin_object (json);
      onyx_json_member_string (json, "type", text);
      onyx_json_member_bool (json, "inferred", !recorded);
      onyx_json_end_object (json);
    }
  onyx_json_end_array (json);
}

static void
print_frame_json (OnyxJson *json, const OnyxSourceFrame *frame)
{
  onyx_json_begin_object (json);
  onyx_json_member_string (json, "file", frame->file);
  onyx_json_member_int (json, "line", frame->line);
  onyx_json_member_string (json, "function", frame->function);
  onyx_json_member_string (json, "code", frame->code);
  onyx_json_member_bool (json, "user", frame->user);
  onyx_json_end_object (json);
}

static void
print_strv_json (OnyxJson *json, const char *key, GStrv values)
{
  onyx_json_key (json, key);
  if (values == NULL)
    {
      onyx_json_null (json);
      return;
    }
  onyx_json_begin_array (json);
  for (guint i = 0; values[i] != NULL; i++)
    onyx_json_string (json, values[i]);
  onyx_json_end_array (json);
}

/* The module the dynamo exporter says the node came from (null when it does not),
 * and every metadata_props entry as it is, in file order. */
static void
print_metadata_json (OnyxJson *json, const Onnx__NodeProto *node)
{
  g_autoptr (GPtrArray) entries = onyx_metadata_get (&node->base);
  g_autoptr (OnyxModuleInfo) info = onyx_module_info_new_for_node (node, TRUE);

  onyx_json_key (json, "module");
  if (info == NULL)
    onyx_json_null (json);
  else
    {
      onyx_json_begin_object (json);
      print_strv_json (json, "path", info->path);
      print_strv_json (json, "classes", info->classes);
      onyx_json_member_string (json, "root_class", info->root_class);
      onyx_json_member_string (json, "op", info->op);
      onyx_json_member_string (json, "op_class", info->op_class);
      /* The user's own frame when the trace has one, else its first. */
      onyx_json_key (json, "source");
      if (info->frames->len > 0)
        print_frame_json (json, info->frames->pdata[0]);
      else
        onyx_json_null (json);
      onyx_json_key (json, "frames");
      onyx_json_begin_array (json);
      for (guint i = 0; i < info->frames->len; i++)
        print_frame_json (json, info->frames->pdata[i]);
      onyx_json_end_array (json);
      onyx_json_end_object (json);
    }
  onyx_json_key (json, "metadata_props");
  onyx_json_begin_array (json);
  for (guint i = 0; i < entries->len; i++)
    {
      const OnyxMetadataEntry *entry = entries->pdata[i];
      onyx_json_begin_object (json);
      onyx_json_member_string (json, "key", entry->key);
      onyx_json_member_string (json, "value", entry->value);
      onyx_json_end_object (json);
    }
  onyx_json_end_array (json);
}

static void
print_elem_types_json (OnyxJson *json, const char *key, const int32_t *types, size_t n)
{
  onyx_json_key (json, key);
  onyx_json_begin_array (json);
  for (size_t k = 0; k < n; k++)
    if (types[k] != 0)
      onyx_json_string (json, onyx_elem_type_name (types[k]));
    else
      onyx_json_null (json);
  onyx_json_end_array (json);
}

/* At most this many scales and zero points of a tensor in --json (an LLM's weight has
 * thousands); "scale_count" says how many there are. */
#define MAX_JSON_SCALES 64

static void
print_values_json (OnyxJson *json, const char *key, const double *values, guint64 n)
{
  onyx_json_key (json, key);
  if (values == NULL)
    {
      onyx_json_null (json);
      return;
    }
  onyx_json_begin_array (json);
  for (guint64 i = 0; i < n && i < MAX_JSON_SCALES; i++)
    onyx_json_double (json, values[i]);
  onyx_json_end_array (json);
}

static void
print_quant_tensor_json (OnyxJson *json, const OnyxQuantTensor *tensor)
{
  g_autofree char *text = onyx_quant_tensor_describe (tensor);

  onyx_json_begin_object (json);
  onyx_json_member_string (json, "name", tensor->name);
  onyx_json_member_string (json, "float_name", tensor->float_name);
  onyx_json_member_string (json, "type", tensor->elem_type != 0 ? onyx_elem_type_name (tensor->elem_type) : NULL);
  onyx_json_member_uint (json, "bits", tensor->bits);
  onyx_json_member_string (json, "scale", tensor->scale_name);
  onyx_json_member_string (json, "zero_point", tensor->zero_point_name);
  onyx_json_member_uint (json, "scale_count", tensor->n_scales);
  print_values_json (json, "scales", tensor->scales, tensor->n_scales);
  print_values_json (json, "zero_points", tensor->zero_points, tensor->n_scales);
  onyx_json_member_int (json, "axis", tensor->axis);
  onyx_json_member_int (json, "block_size", tensor->block_size);
  onyx_json_member_bool (json, "dynamic", tensor->dynamic);
  onyx_json_key (json, "range");
  if (tensor->has_range)
    {
      onyx_json_begin_array (json);
      onyx_json_double (json, tensor->range_min);
      onyx_json_double (json, tensor->range_max);
      onyx_json_end_array (json);
    }
  else
    onyx_json_null (json);
  onyx_json_member_string (json, "text", text);
  onyx_json_end_object (json);
}

/* The node's quantization: null for a float node of a graph other than the main one,
 * whose quantization Onyx does not read. */
static void
print_quantization_json (OnyxJson *json, OnyxQuant *quant, const Onnx__NodeProto *node)
{
  const OnyxQuantNode *record = quant != NULL ? onyx_quant_lookup_node (quant, node) : NULL;
  g_autofree char *label = NULL;
  GPtrArray *tensors;

  onyx_json_key (json, "quantization");
  if (record == NULL)
    {
      onyx_json_null (json);
      return;
    }
  label = onyx_quant_node_describe (record);
  onyx_json_begin_object (json);
  onyx_json_member_string (json, "role", onyx_quant_role_name (record->role));
  onyx_json_member_string (json, "text", label);
  onyx_json_member_bool (json, "has_quantized_form", record->has_quantized_form);
  print_elem_types_json (json, "input_types", record->input_types, node->n_input);
  print_elem_types_json (json, "output_types", record->output_types, node->n_output);
  onyx_json_key (json, "tensors");
  onyx_json_begin_array (json);
  tensors = onyx_quant_get_tensors (quant);
  for (guint i = 0; i < tensors->len; i++)
    if (((const OnyxQuantTensor *) tensors->pdata[i])->node == node)
      print_quant_tensor_json (json, tensors->pdata[i]);
  onyx_json_end_array (json);
  onyx_json_end_object (json);
}

/* The quantization of the main graph (NULL for another graph). */
static OnyxQuant *
quantization_of (OnyxModel *model, const OnyxGraphEntry *entry)
{
  Onnx__ModelProto *proto = onyx_model_get_proto (model);
  return entry->graph == proto->graph ? onyx_quant_new (proto, onyx_model_get_base_dir (model)) : NULL;
}

/* `positions`: indices into graph->node of the nodes to list. */
static void
print_nodes_json (OnyxModel *onyx_model, const OnyxGraphEntry *entry, GArray *positions)
{
  Onnx__ModelProto *model = onyx_model_get_proto (onyx_model);
  Onnx__GraphProto *graph = entry->graph;
  g_autoptr (OnyxJson) json = onyx_json_new ();
  g_autoptr (OnyxShapes) shapes = onyx_shapes_infer (model, FALSE);
  g_autoptr (OnyxQuant) quant = quantization_of (onyx_model, entry);

  onyx_json_begin_array (json);
  for (guint i = 0; i < positions->len; i++)
    {
      gsize position = g_array_index (positions, gsize, i);
      Onnx__NodeProto *node = graph->node[position];
      const OnyxSchema *schema = schema_of (model, entry, node);
      onyx_json_begin_object (json);
      onyx_json_member_uint (json, "index", position);
      onyx_json_member_string (json, "graph", entry->name);
      onyx_json_member_string (json, "name", node->name != NULL ? node->name : "");
      onyx_json_member_string (json, "op_type", node->op_type);
      onyx_json_member_string (json, "domain", node->domain != NULL ? node->domain : "");
      onyx_json_key (json, "inputs");
      onyx_json_begin_array (json);
      for (size_t k = 0; k < node->n_input; k++)
        onyx_json_string (json, node->input[k]);
      onyx_json_end_array (json);
      onyx_json_key (json, "outputs");
      onyx_json_begin_array (json);
      for (size_t k = 0; k < node->n_output; k++)
        onyx_json_string (json, node->output[k]);
      onyx_json_end_array (json);
      print_types_json (json, "input_types", shapes, graph, node->input, node->n_input);
      print_types_json (json, "output_types", shapes, graph, node->output, node->n_output);
      onyx_json_key (json, "attributes");
      onyx_json_begin_object (json);
      for (size_t a = 0; a < node->n_attribute; a++)
        {
          g_autofree char *value = onyx_attribute_to_string (node->attribute[a]);
          onyx_json_key (json, node->attribute[a]->name != NULL ? node->attribute[a]->name : "");
          onyx_json_string (json, value);
        }
      onyx_json_end_object (json);
      /* Beside "attributes", which keeps the numbers: the element types they name. */
      onyx_json_key (json, "attribute_value_names");
      onyx_json_begin_object (json);
      for (size_t a = 0; a < node->n_attribute; a++)
        {
          const char *type = onyx_attribute_data_type_name (node->attribute[a], schema == NULL ? NULL
                                                            : onyx_schema_find_attribute (schema, node->attribute[a]->name));
          if (type == NULL)
            continue;
          onyx_json_key (json, node->attribute[a]->name);
          onyx_json_string (json, type);
        }
      onyx_json_end_object (json);
      print_schema_json (json, schema, node);
      print_metadata_json (json, node);
      print_quantization_json (json, quant, node);
      onyx_json_end_object (json);
    }
  onyx_json_end_array (json);
  onyx_cli_print_json (g_steal_pointer (&json));
}

/* "X=input, W=w": with the schema's slot names when the operator has a schema; past
 * MAX_SLOTS of them (a Concat of eighty), how many more. */
#define MAX_SLOTS 16

static char *
join_escaped (char **names, size_t n, const OnyxSchema *schema, gboolean outputs)
{
  GString *out = g_string_new (NULL);

  if (n > MAX_SLOTS)
    {
      g_autofree char *first = join_escaped (names, MAX_SLOTS, schema, outputs);
      g_string_printf (out, "%s, … and %zu more (--json lists them all)", first, n - MAX_SLOTS);
      return g_string_free (out, FALSE);
    }
  for (size_t i = 0; i < n; i++)
    {
      g_autofree char *shown = onyx_display_escape (names[i]);
      g_autofree char *slot = schema == NULL ? NULL : outputs ? onyx_schema_output_name (schema, i)
                                                              : onyx_schema_input_name (schema, i);
      g_string_append_printf (out, "%s%s%s%s", i > 0 ? ", " : "", slot != NULL ? slot : "",
                              slot != NULL ? "=" : "", shown[0] != '\0' ? shown : "∅");
    }
  return g_string_free (out, FALSE);
}

/* A line of a node's details, seven columns in, cut to fit (`--json` has it whole). */
static void
print_detail (const char *text)
{
  g_autofree char *shown = onyx_cli_cut (text, ONYX_CLI_MAX_LINE - 7);
  printf ("       %s\n", shown);
}

static void
print_schema_text (const OnyxSchema *schema, const Onnx__NodeProto *node)
{
  g_autoptr (GPtrArray) defaults = NULL;
  g_autofree char *url = NULL, *doc = NULL;

  if (schema == NULL)
    return;
  defaults = onyx_schema_omitted_defaults (schema, node);
  for (guint i = 0; i < defaults->len; i++)
    {
      const OnyxSchemaAttribute *attr = defaults->pdata[i];
      g_autofree char *value = onyx_schema_attribute_default_text (attr);
      printf ("       %s = %s (default)\n", attr->name, value);
    }
  url = onyx_schema_docs_url (schema->domain, schema->name);
  doc = g_strdup_printf ("%s-%d: %s", schema->name, schema->since_version,
                         schema->doc[0] != '\0' ? schema->doc
                                                : onyx_schema_is_onnxruntime (schema) ? "an operator of ONNX Runtime" : "");
  print_detail (doc);
  print_detail (url);
}

/* "module: network/network.0 (Net › Sequential › Linear › aten.linear.default)", the
 * source line, then the entries the module is not made of: a value of several lines
 * (a stack trace) by its first and how many more. */
static void
print_metadata_text (const Onnx__NodeProto *node)
{
  g_autoptr (GPtrArray) entries = onyx_metadata_get (&node->base);
  g_autoptr (OnyxModuleInfo) info = onyx_module_info_new_for_node (node, TRUE);

  if (info != NULL)
    {
      g_autofree char *path = g_strjoinv ("/", info->path);
      g_autofree char *chain = onyx_module_info_class_chain (info);
      g_autofree char *line = g_strdup_printf ("module: %s%s%s%s", path[0] != '\0' ? path : "(top)",
                                               chain[0] != '\0' ? " (" : "", chain, chain[0] != '\0' ? ")" : "");
      print_detail (line);
      if (info->frames->len > 0)
        {
          const OnyxSourceFrame *frame = info->frames->pdata[0];
          g_autofree char *source = g_strdup_printf ("source: %s:%d in %s%s%s", frame->file, frame->line,
                                                     frame->function, frame->code != NULL ? ": " : "",
                                                     frame->code != NULL ? frame->code : "");
          print_detail (source);
        }
    }
  for (guint i = 0; i < entries->len; i++)
    {
      const OnyxMetadataEntry *entry = entries->pdata[i];
      g_auto (GStrv) lines = NULL;
      g_autofree char *line = NULL, *value = NULL;
      guint n_lines;

      if (info != NULL && onyx_metadata_key_is_module (entry->key))
        continue;
      /* (A trace's last line break ends it, and starts no line.) */
      value = g_strdup (entry->value != NULL ? entry->value : "");
      lines = g_strsplit (g_strchomp (value), "\n", -1);
      n_lines = g_strv_length (lines);
      line = n_lines > 1 ? g_strdup_printf ("metadata %s = %s … (%u more %s)", entry->key, lines[0], n_lines - 1,
                                            ONYX_CLI_PLURAL (n_lines - 1, "line", "lines"))
                         : g_strdup_printf ("metadata %s = %s", entry->key, lines[0] != NULL ? lines[0] : "");
      print_detail (line);
    }
}

/* "quantized: Conv · uint8×int8 → uint8 (QDQ)", then each tensor whose quantization
 * the node says: "x: int8 per channel ×64 on axis 0, s=0.001–0.03 zp=0 → [-4, 3.9]". */
static void
print_quantization_text (OnyxQuant *quant, const Onnx__NodeProto *node)
{
  const OnyxQuantNode *record = quant != NULL ? onyx_quant_lookup_node (quant, node) : NULL;
  g_autofree char *label = record != NULL ? onyx_quant_node_describe (record) : NULL;
  GPtrArray *tensors;

  if (label == NULL)
    return;
  {
    g_autofree char *line = g_strdup_printf ("quantized: %s (%s)", label, onyx_quant_role_name (record->role));
    print_detail (line);
  }
  tensors = onyx_quant_get_tensors (quant);
  for (guint i = 0; i < tensors->len; i++)
    {
      const OnyxQuantTensor *tensor = tensors->pdata[i];
      g_autofree char *name = NULL, *text = NULL, *line = NULL;
      if (tensor->node != node)
        continue;
      name = onyx_display_escape (tensor->name);
      text = onyx_quant_tensor_describe (tensor);
      line = g_strdup_printf ("  %s: %s", name, text);
      print_detail (line);
    }
}

static void
print_nodes_text (OnyxModel *onyx_model, const OnyxGraphEntry *entry, GArray *positions)
{
  Onnx__ModelProto *model = onyx_model_get_proto (onyx_model);
  Onnx__GraphProto *graph = entry->graph;
  g_autoptr (OnyxQuant) quant = quantization_of (onyx_model, entry);

  for (guint i = 0; i < positions->len; i++)
    {
      gsize position = g_array_index (positions, gsize, i);
      Onnx__NodeProto *node = graph->node[position];
      const OnyxSchema *schema = schema_of (model, entry, node);
      g_autofree char *op = onyx_node_op_key (node);
      g_autofree char *name = onyx_display_escape (node->name);
      g_autofree char *inputs = join_escaped (node->input, node->n_input, schema, FALSE);
      g_autofree char *outputs = join_escaped (node->output, node->n_output, schema, TRUE);
      g_autofree char *index = g_strdup_printf ("#%" G_GSIZE_FORMAT, position);

      g_autofree char *in_line = g_strdup_printf ("       in:  %s", inputs);
      g_autofree char *out_line = g_strdup_printf ("       out: %s", outputs);

      printf ("%-6s %-18s %s\n", index, op, name);
      onyx_cli_print_wrapped (in_line, 12);
      onyx_cli_print_wrapped (out_line, 12);
      for (size_t a = 0; a < node->n_attribute; a++)
        {
          g_autofree char *value = onyx_attribute_describe (node->attribute[a], schema);
          g_autofree char *line = g_strdup_printf ("%s = %s", node->attribute[a]->name, value);
          print_detail (line);
        }
      print_quantization_text (quant, node);
      print_metadata_text (node);
      print_schema_text (schema, node);
    }
}

int
onyx_cli_nodes (int argc, char **argv)
{
  gboolean as_json = FALSE;
  g_autofree char *op_filter = NULL;
  g_autofree char *graph_name = NULL;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &as_json, "Print JSON", NULL },
    { "op", 0, 0, G_OPTION_ARG_STRING, &op_filter, "Only nodes of this operator ([DOMAIN::]OP)", "OP" },
    ONYX_CLI_GRAPH_OPTION (&graph_name),
    { NULL }
  };
  g_autoptr (OnyxModel) model = NULL;
  g_autoptr (GArray) positions = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_autoptr (OnyxGraphList) graphs = NULL;
  const OnyxGraphEntry *entry;
  Onnx__GraphProto *graph;
  GError *error = NULL;
  int exit_code;

  if (!onyx_cli_parse ("nodes", "MODEL", "List the nodes of a graph (the main graph unless "
                       "--graph says) with their inputs, outputs and attributes.", entries, &argc,
                       &argv, 1, &exit_code))
    return exit_code;
  model = onyx_model_new_from_file (argv[2], &error);
  if (model == NULL)
    return onyx_cli_report_error (error);
  graphs = onyx_graph_list_new (onyx_model_get_proto (model));
  if ((entry = onyx_cli_find_graph ("nodes", graphs, graph_name, &exit_code)) == NULL)
    return exit_code;
  graph = entry->graph;
  for (gsize n = 0; n < graph->n_node; n++)
    {
      g_autofree char *key = onyx_node_op_key (graph->node[n]);
      if (op_filter == NULL || strcmp (key, op_filter) == 0 ||
          g_strcmp0 (graph->node[n]->op_type, op_filter) == 0)
        g_array_append_val (positions, n);
    }
  if (as_json)
    print_nodes_json (model, entry, positions);
  else
    print_nodes_text (model, entry, positions);
  return ONYX_EXIT_OK;
}
