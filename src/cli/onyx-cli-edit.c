/* onyx-cli edit and nodes. */
#include <stdio.h>
#include <string.h>

#include "onyx-attribute.h"
#include "onyx-cli.h"
#include "onyx-document.h"
#include "onyx-edits.h"
#include "onyx-json.h"
#include "onyx-schema.h"
#include "onyx-steps.h"
#include "onyx-summary.h"
#include "onyx-types.h"
#include "onyx-validate.h"

typedef struct {
  const OnyxStepInfo *info;
  const char *argument;
  const char *option; /* as written, for messages */
} Step;

static void
print_edit_help (void)
{
  const OnyxStepInfo *steps = onyx_steps_list ();

  printf ("Usage:\n  onyx-cli edit IN -o OUT [--force] STEP...\n\n"
          "Apply the steps in order, validate, and save to OUT (atomically). When a step\n"
          "fails or the result has errors (unless --force), nothing is written.\n\n"
          "Steps (NODE is a node name, or #N for the node at position N):\n");
  for (guint i = 0; steps[i].name != NULL; i++)
    {
      g_autofree char *left = g_strdup_printf ("--%s%s%s", steps[i].name, steps[i].argument ? " " : "",
                                               steps[i].argument ? steps[i].argument : "");
      printf ("  %-34s %s\n", left, steps[i].help);
    }
  printf ("\nOptions:\n"
          "  -o, --output OUT                   where to save (may be IN itself)\n"
          "  --force                            save even when validation finds errors\n"
          "\nExample (the walkthrough's repair):\n"
          "  onyx-cli edit model_foo.onnx -o removed.onnx --bypass-op devtech::FooOp --cleanup\n");
}

/* Steps keep their order, which GOption cannot do: the arguments are read by hand. */
static gboolean
parse_edit_args (int argc, char **argv, const char **input, const char **output, gboolean *force,
                 GArray *steps, int *exit_code)
{
  for (int i = 2; i < argc; i++)
    {
      const char *arg = argv[i];
      g_autofree char *name = NULL;
      const char *value = NULL;
      const char *equals;

      if (strcmp (arg, "-h") == 0 || strcmp (arg, "--help") == 0)
        {
          print_edit_help ();
          *exit_code = ONYX_EXIT_OK;
          return FALSE;
        }
      if (strcmp (arg, "--force") == 0)
        {
          *force = TRUE;
          continue;
        }
      if (strcmp (arg, "-o") == 0 || strcmp (arg, "--output") == 0 || g_str_has_prefix (arg, "--output="))
        {
          if (g_str_has_prefix (arg, "--output="))
            *output = arg + strlen ("--output=");
          else if (++i < argc)
            *output = argv[i];
          else
            return (*exit_code = onyx_cli_usage_error ("edit", "%s needs a file", arg)), FALSE;
          continue;
        }
      if (!g_str_has_prefix (arg, "--"))
        {
          if (*input != NULL)
            return (*exit_code = onyx_cli_usage_error ("edit", "unexpected argument '%s'", arg)), FALSE;
          *input = arg;
          continue;
        }
      equals = strchr (arg, '=');
      name = equals != NULL ? g_strndup (arg + 2, equals - arg - 2) : g_strdup (arg + 2);
      {
        Step step = { onyx_step_find (name), NULL, arg };
        if (step.info == NULL)
          return (*exit_code = onyx_cli_usage_error ("edit", "unknown option %s", arg)), FALSE;
        if (step.info->argument != NULL)
          {
            if (equals != NULL)
              value = equals + 1;
            else if (++i < argc)
              value = argv[i];
            else
              return (*exit_code = onyx_cli_usage_error ("edit", "--%s needs %s", name,
                                                         step.info->argument)), FALSE;
          }
        else if (equals != NULL)
          return (*exit_code = onyx_cli_usage_error ("edit", "--%s takes no argument", name)), FALSE;
        step.argument = value;
        g_array_append_val (steps, step);
      }
    }
  if (*input == NULL || *output == NULL)
    return (*exit_code = onyx_cli_usage_error ("edit", "expects IN -o OUT")), FALSE;
  if (steps->len == 0)
    return (*exit_code = onyx_cli_usage_error ("edit", "no edit step given")), FALSE;
  return TRUE;
}

int
onyx_cli_edit (int argc, char **argv)
{
  const char *input = NULL, *output = NULL;
  gboolean force = FALSE;
  g_autoptr (GArray) steps = g_array_new (FALSE, FALSE, sizeof (Step));
  g_autoptr (OnyxModel) model = NULL;
  g_autoptr (OnyxDocument) doc = NULL;
  g_autoptr (GPtrArray) problems = NULL;
  GError *error = NULL;
  int exit_code = ONYX_EXIT_OK;

  if (!parse_edit_args (argc, argv, &input, &output, &force, steps, &exit_code))
    return exit_code;
  model = onyx_model_new_from_file (input, &error);
  if (model == NULL)
    return onyx_cli_report_error (error);
  doc = onyx_document_new (model);

  for (guint i = 0; i < steps->len; i++)
    {
      const Step *step = &g_array_index (steps, Step, i);
      guint before = onyx_document_get_n_undo (doc);

      if (!onyx_step_apply (doc, step->info->name, step->argument, &error))
        {
          fprintf (stderr, "onyx-cli: %s: step %u (%s%s%s): %s; nothing was written\n",
                   onyx_model_get_display_name (model), i + 1, step->option,
                   step->argument != NULL && strchr (step->option, '=') == NULL ? " " : "",
                   step->argument != NULL && strchr (step->option, '=') == NULL ? step->argument : "",
                   error->message);
          g_error_free (error);
          return ONYX_EXIT_PROBLEMS;
        }
      if (onyx_document_get_n_undo (doc) > before)
        printf ("%s\n", onyx_document_get_undo_label (doc));
      else
        printf ("%s: nothing to change\n", step->option);
    }

  problems = onyx_validate_model (onyx_document_get_proto (doc));
  for (guint i = 0; i < problems->len; i++)
    {
      const OnyxProblem *problem = problems->pdata[i];
      fprintf (stderr, "onyx-cli: %s: %s: %s\n", onyx_model_get_display_name (model),
               problem->severity == ONYX_PROBLEM_ERROR ? "error" : "warning", problem->message);
    }
  if (onyx_problems_count (problems, ONYX_PROBLEM_ERROR) > 0 && !force)
    {
      fprintf (stderr, "onyx-cli: the edited model has errors; nothing was written "
                       "(--force saves it anyway)\n");
      return ONYX_EXIT_PROBLEMS;
    }
  if (!onyx_document_save (doc, output, &error))
    return onyx_cli_report_error (error);
  return ONYX_EXIT_OK;
}

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
      const OnyxSchemaAttribute *attr = defaults->pdata[i];
      g_autofree char *value = onyx_schema_attribute_default_text (attr);
      onyx_json_key (json, attr->name);
      onyx_json_string (json, value);
    }
  onyx_json_end_object (json);
  onyx_json_end_object (json);
}

/* `positions`: indices into graph->node of the nodes to list. */
static void
print_nodes_json (Onnx__ModelProto *model, GArray *positions)
{
  Onnx__GraphProto *graph = model->graph;
  OnyxJson *json = onyx_json_new ();

  onyx_json_begin_array (json);
  for (guint i = 0; i < positions->len; i++)
    {
      gsize position = g_array_index (positions, gsize, i);
      Onnx__NodeProto *node = graph->node[position];
      onyx_json_begin_object (json);
      onyx_json_member_uint (json, "index", position);
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
      onyx_json_key (json, "attributes");
      onyx_json_begin_object (json);
      for (size_t a = 0; a < node->n_attribute; a++)
        {
          g_autofree char *value = onyx_attribute_to_string (node->attribute[a]);
          onyx_json_key (json, node->attribute[a]->name != NULL ? node->attribute[a]->name : "");
          onyx_json_string (json, value);
        }
      onyx_json_end_object (json);
      print_schema_json (json, onyx_schema_for_node (node, model->opset_import, model->n_opset_import),
                         node);
      onyx_json_end_object (json);
    }
  onyx_json_end_array (json);
  onyx_cli_print_json (json);
}

/* "X=input, W=w": with the schema's slot names when the operator has a schema. */
static char *
join_escaped (char **names, size_t n, const OnyxSchema *schema, gboolean outputs)
{
  GString *out = g_string_new (NULL);
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

static void
print_schema_text (const OnyxSchema *schema, const Onnx__NodeProto *node)
{
  g_autoptr (GPtrArray) defaults = NULL;
  g_autofree char *url = NULL;

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
  printf ("       %s-%d: %s\n       %s\n", schema->name, schema->since_version, schema->doc, url);
}

static void
print_nodes_text (Onnx__ModelProto *model, GArray *positions)
{
  Onnx__GraphProto *graph = model->graph;

  for (guint i = 0; i < positions->len; i++)
    {
      gsize position = g_array_index (positions, gsize, i);
      Onnx__NodeProto *node = graph->node[position];
      const OnyxSchema *schema = onyx_schema_for_node (node, model->opset_import, model->n_opset_import);
      g_autofree char *op = onyx_node_op_key (node);
      g_autofree char *name = onyx_display_escape (node->name);
      g_autofree char *inputs = join_escaped (node->input, node->n_input, schema, FALSE);
      g_autofree char *outputs = join_escaped (node->output, node->n_output, schema, TRUE);
      g_autofree char *index = g_strdup_printf ("#%" G_GSIZE_FORMAT, position);

      printf ("%-6s %-18s %s\n", index, op, name);
      printf ("       in:  %s\n       out: %s\n", inputs, outputs);
      for (size_t a = 0; a < node->n_attribute; a++)
        {
          g_autofree char *value = onyx_attribute_to_string (node->attribute[a]);
          g_autofree char *attr = onyx_display_escape (node->attribute[a]->name);
          printf ("       %s = %s\n", attr, value);
        }
      print_schema_text (schema, node);
    }
}

int
onyx_cli_nodes (int argc, char **argv)
{
  gboolean as_json = FALSE;
  char *op_filter = NULL;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &as_json, "Print JSON", NULL },
    { "op", 0, 0, G_OPTION_ARG_STRING, &op_filter, "Only nodes of this operator ([DOMAIN::]OP)", "OP" },
    { NULL }
  };
  g_autoptr (OnyxModel) model = NULL;
  g_autoptr (GArray) positions = g_array_new (FALSE, FALSE, sizeof (gsize));
  Onnx__GraphProto *graph;
  GError *error = NULL;
  int exit_code;

  if (!onyx_cli_parse ("nodes", "MODEL", "List the nodes of the main graph with their inputs, "
                       "outputs and attributes.", entries, &argc, &argv, 1, &exit_code))
    {
      g_free (op_filter);
      return exit_code;
    }
  model = onyx_model_new_from_file (argv[2], &error);
  if (model == NULL)
    {
      g_free (op_filter);
      return onyx_cli_report_error (error);
    }
  graph = onyx_model_get_proto (model)->graph;
  for (gsize n = 0; n < graph->n_node; n++)
    {
      g_autofree char *key = onyx_node_op_key (graph->node[n]);
      if (op_filter == NULL || strcmp (key, op_filter) == 0 ||
          g_strcmp0 (graph->node[n]->op_type, op_filter) == 0)
        g_array_append_val (positions, n);
    }
  g_free (op_filter);
  if (as_json)
    print_nodes_json (onyx_model_get_proto (model), positions);
  else
    print_nodes_text (onyx_model_get_proto (model), positions);
  return ONYX_EXIT_OK;
}
