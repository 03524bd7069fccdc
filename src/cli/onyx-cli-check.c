/* onyx-cli check. */
#include <stdio.h>
#include <string.h>

#include "onyx-cli.h"
#include "onyx-diagnose.h"
#include "onyx-json.h"
#include "onyx-model.h"
#include "onyx-quant.h"
#include "onyx-types.h"
#include "onyx-text-family.h"
#include "onyx-text.h"

static const char *
severity_name (OnyxProblemSeverity severity)
{
  return onyx_problem_severity_name (severity);
}

/* How many quantization checks were made: a model with none quantized makes none. */
static void
write_quant_checks_json (OnyxJson *json, const OnyxQuantChecks *checks)
{
  onyx_json_key (json, "quantization_checks");
  onyx_json_begin_object (json);
  onyx_json_member_uint (json, "scales", checks->scales);
  onyx_json_member_uint (json, "zero_points", checks->zero_points);
  onyx_json_member_uint (json, "pairs", checks->pairs);
  onyx_json_member_uint (json, "axes", checks->axes);
  onyx_json_member_uint (json, "float_ops", checks->float_ops);
  onyx_json_member_uint (json, "dequantizers", checks->dequantizers);
  onyx_json_member_uint (json, "unread", checks->unread);
  onyx_json_member_uint (json, "unread_values", checks->unread_values);
  onyx_json_end_object (json);
}

static guint
n_quant_checks (const OnyxQuantChecks *checks)
{
  return checks->scales + checks->zero_points + checks->pairs + checks->axes + checks->float_ops +
         checks->dequantizers;
}

static void
write_problems_json (OnyxJson *json, OnyxModel *model, GPtrArray *problems, GPtrArray *dims,
                     const OnyxQuantChecks *checks)
{
  onyx_json_begin_object (json);
  onyx_json_member_string (json, "file", onyx_model_get_display_name (model));
  onyx_json_member_uint (json, "errors", onyx_problems_count (problems, ONYX_PROBLEM_ERROR));
  onyx_json_member_uint (json, "warnings", onyx_problems_count (problems, ONYX_PROBLEM_WARNING));
  onyx_json_member_uint (json, "infos", onyx_problems_count (problems, ONYX_PROBLEM_INFO));
  onyx_json_key (json, "problems");
  onyx_json_begin_array (json);
  for (guint i = 0; i < problems->len; i++)
    {
      const OnyxProblem *problem = problems->pdata[i];
      onyx_json_begin_object (json);
      onyx_json_member_string (json, "severity", severity_name (problem->severity));
      onyx_json_member_string (json, "kind", onyx_problem_kind_name (problem->kind));
      onyx_json_member_string (json, "message", problem->message);
      onyx_json_member_string (json, "graph", problem->graph);
      onyx_json_member_string (json, "node", problem->node);
      onyx_json_member_int (json, "node_index", problem->node_index);
      onyx_json_member_string (json, "tensor", problem->tensor);
      onyx_json_member_string (json, "detail", problem->detail);
      onyx_json_member_string (json, "see", problem->see);
      onyx_json_end_object (json);
    }
  onyx_json_end_array (json);
  onyx_json_key (json, "dynamic_dims");
  onyx_json_begin_array (json);
  for (guint i = 0; i < dims->len; i++)
    {
      const OnyxDimParam *dim = dims->pdata[i];
      onyx_json_begin_object (json);
      onyx_json_member_string (json, "name", dim->name);
      onyx_json_member_strings (json, "tensors", dim->tensors);
      onyx_json_end_object (json);
    }
  onyx_json_end_array (json);
  write_quant_checks_json (json, checks);
  onyx_json_end_object (json);
}

/* "N (input, output), batch (ids)": the dynamic axes, so that a mistyped one shows;
 * a KV cache's tensors by family ("past_key_values.0–31.key/value"). */
static void
print_dims_text (OnyxModel *model, GPtrArray *dims)
{
  g_autoptr (GString) line = g_string_new (NULL);

  if (dims->len == 0)
    return;
  g_string_printf (line, "%s: dynamic dims: ", onyx_model_get_display_name (model));
  for (guint i = 0; i < dims->len; i++)
    {
      const OnyxDimParam *dim = dims->pdata[i];
      g_autofree char *name = onyx_display_escape (dim->name);
      g_autofree char *tensors = onyx_cli_join_names ((const char *const *) dim->tensors->pdata, dim->tensors->len);
      g_string_append_printf (line, "%s%s (%s)", i > 0 ? ", " : "", name, tensors);
    }
  onyx_cli_print_wrapped (line->str, 2);
}

/* Lines of ONNX's own words under a problem that explains them: a few, the rest in
 * --json. */
#define MAX_DETAIL_LINES 3

/* A problem, or `n_alike` alike but for a number, said in `text` (graph: message). */
static void
print_problem_text (OnyxModel *model, const OnyxProblem *problem, const char *text, guint n_alike)
{
  g_auto (GStrv) lines = problem->detail != NULL ? g_strsplit (problem->detail, "\n", -1) : NULL;
  guint n_lines = lines != NULL ? g_strv_length (lines) : 0;
  g_autofree char *alike = n_alike > 1 ? g_strdup_printf (" (%u alike)", n_alike) : NULL;
  g_autofree char *line = g_strdup_printf ("%s: %s: %s%s", onyx_model_get_display_name (model),
                                           severity_name (problem->severity), text, alike != NULL ? alike : "");

  onyx_cli_print_long (line, 2);
  for (guint i = 0; i < n_lines && i < MAX_DETAIL_LINES; i++)
    printf ("  ONNX: %s\n", lines[i]);
  if (n_lines > MAX_DETAIL_LINES)
    printf ("  (%u more from ONNX: --json lists them)\n", n_lines - MAX_DETAIL_LINES);
  if (problem->see != NULL)
    printf ("  see %s\n", problem->see);
}

/* Problems alike but for a number (the same fault on every layer), this many and
 * more, are said once. */
#define MIN_ALIKE 3

/* The problems in order, those alike gathered: "…of /model/layers.0–79/attn/… (80 alike)". */
static void
print_problems_text (OnyxModel *model, GPtrArray *problems)
{
  g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) families = NULL;

  for (guint i = 0; i < problems->len; i++)
    {
      const OnyxProblem *problem = problems->pdata[i];
      /* (The severity first, never told apart by a number.) */
      g_ptr_array_add (texts, g_strdup_printf ("%s\x1f%s: %s", severity_name (problem->severity), problem->graph,
                                               problem->message));
    }
  families = onyx_text_families ((const char *const *) texts->pdata, texts->len, MIN_ALIKE);
  for (guint f = 0; f < families->len; f++)
    {
      const OnyxTextFamily *family = families->pdata[f];
      print_problem_text (model, problems->pdata[g_array_index (family->members, guint, 0)],
                          strchr (family->text, '\x1f') + 1, family->members->len);
    }
}

/* Only the problems of one graph: by its proto, or by name for functions. */
static void
keep_graph (GPtrArray *problems, const OnyxGraphEntry *entry)
{
  g_autofree char *function_label = entry->function != NULL ? onyx_function_label (entry->function)
                                                            : NULL;
  for (guint i = problems->len; i-- > 0;)
    {
      const OnyxProblem *problem = problems->pdata[i];
      gboolean keep = entry->function != NULL ? g_strcmp0 (problem->graph, function_label) == 0
                                              : problem->graph_proto == entry->graph;
      if (!keep)
        g_ptr_array_remove_index (problems, i);
    }
}

/* "model.onnx: 1 errors, 2 warnings": the last line of a model's report, and the
 * only one when several models are checked. */
static void
print_summary (OnyxModel *model, GPtrArray *problems)
{
  guint n_errors = onyx_problems_count (problems, ONYX_PROBLEM_ERROR);
  guint n_warnings = onyx_problems_count (problems, ONYX_PROBLEM_WARNING);
  guint n_infos = onyx_problems_count (problems, ONYX_PROBLEM_INFO);

  if (problems->len == 0)
    printf ("%s: no problems found\n", onyx_model_get_display_name (model));
  else if (n_infos > 0)
    printf ("%s: %u %s, %u %s, %u %s\n", onyx_model_get_display_name (model),
            n_errors, n_errors == 1 ? "error" : "errors", n_warnings, n_warnings == 1 ? "warning" : "warnings",
            n_infos, n_infos == 1 ? "info" : "infos");
  else
    printf ("%s: %u %s, %u %s\n", onyx_model_get_display_name (model), n_errors,
            n_errors == 1 ? "error" : "errors", n_warnings, n_warnings == 1 ? "warning" : "warnings");
}

typedef struct {
  gboolean full;
  const char *graph_name;
} CheckOptions;

static int
check_model (OnyxModel *model, OnyxJson *json, gboolean several, gpointer data)
{
  const CheckOptions *options = data;
  g_autoptr (GPtrArray) problems = NULL;
  g_autoptr (GPtrArray) dims = NULL;
  OnyxQuantChecks checks;

  problems = onyx_diagnose_file (model, options->full, &checks);
  if (options->graph_name != NULL)
    {
      g_autoptr (OnyxGraphList) graphs = onyx_graph_list_new (onyx_model_get_proto (model));
      int exit_code;
      const OnyxGraphEntry *entry = onyx_cli_find_graph ("check", graphs, options->graph_name, &exit_code);
      if (entry == NULL)
        return exit_code;
      keep_graph (problems, entry);
    }
  dims = onyx_model_dim_params (onyx_model_get_proto (model));
  if (json != NULL)
    write_problems_json (json, model, problems, dims, &checks);
  else
    {
      if (!several)
        print_problems_text (model, problems);
      if (!several)
        print_dims_text (model, dims);
      if (!several && n_quant_checks (&checks) > 0)
        printf ("%s: quantization: %u %s, %u %s, %u QuantizeLinear → DequantizeLinear %s, %u per-axis %s, "
                "%u float %s and %u %s checked\n",
                onyx_model_get_display_name (model), checks.scales, ONYX_CLI_PLURAL (checks.scales, "scale", "scales"),
                checks.zero_points, ONYX_CLI_PLURAL (checks.zero_points, "zero point", "zero points"), checks.pairs,
                ONYX_CLI_PLURAL (checks.pairs, "pair", "pairs"), checks.axes,
                ONYX_CLI_PLURAL (checks.axes, "scale", "scales"), checks.float_ops,
                ONYX_CLI_PLURAL (checks.float_ops, "operator", "operators"), checks.dequantizers,
                ONYX_CLI_PLURAL (checks.dequantizers, "DequantizeLinear", "DequantizeLinears"));
      if (!several && checks.unread > 0)
        {
          g_autofree char *values = onyx_format_count_grouped (checks.unread_values, ONYX_COUNT_PLAIN);
          g_autofree char *budget = onyx_format_count_grouped (ONYX_QUANT_VALUE_BUDGET, ONYX_COUNT_PLAIN);
          printf ("%s: quantization: %u %s of %s values in all left unjudged (Onyx reads %s scales and zero "
                  "points at most)\n",
                  onyx_model_get_display_name (model), checks.unread,
                  ONYX_CLI_PLURAL (checks.unread, "constant", "constants"), values, budget);
        }
      print_summary (model, problems);
    }
  return onyx_problems_count (problems, ONYX_PROBLEM_ERROR) > 0 ? ONYX_EXIT_PROBLEMS : ONYX_EXIT_OK;
}

int
onyx_cli_check (int argc, char **argv)
{
  gboolean as_json = FALSE;
  g_autofree char *graph_name = NULL;
  gboolean full = FALSE;
  GOptionEntry check_options[] = {
    ONYX_CLI_GRAPH_OPTION (&graph_name),
    { "full", 0, 0, G_OPTION_ARG_NONE, &full,
      "Also run ONNX's checker with full_check: its own checks and strict shape inference", NULL },
    { NULL } };
  CheckOptions options;
  int exit_code;

  if (!onyx_cli_parse_models (
        "check", check_options,
        "Validate models: dangling inputs, cycles, node order, duplicate names,\n"
        "domains without an opset import; and diagnose them against the ONNX operator\n"
        "schemas: custom or unknown operators, operators not in the imported opset,\n"
        "input/output counts, attributes, element types; unused initializers, nodes\n"
        "that reach no output, inputs/outputs without shape, mistyped dynamic dims;\n"
        "quantization: scales that are 0, negative, NaN, infinite or subnormal, zero\n"
        "points outside their type, QuantizeLinear → DequantizeLinear pairs that\n"
        "disagree, per-axis scales that do not fit their tensor, float operators left\n"
        "between quantized ones, DequantizeLinear nodes nothing uses (a line says how\n"
        "many of each were checked).\n"
        "Problems name the graph they are in (If_1:then_branch); --graph keeps those\n"
        "of one graph. ONNX's own shape inference reports on its nodes; --full adds\n"
        "onnx.checker.check_model(full_check=True): the checker and strict inference.\n"
        "Several models (a folder of exports: check exports/*.onnx) are checked in\n"
        "turn, a line each with the counts (check one for its problems), --json an\n"
        "array of their reports; a model that cannot be read is said and skipped.\n"
        "Exit status 1 when errors are found (warnings and infos do not count), 3\n"
        "when a model could not be read.",
        &argc, &argv, &as_json, &exit_code))
    return exit_code;
  if (graph_name != NULL && argc > 3)
    return onyx_cli_usage_error ("check", "--graph names a graph of one model; %d models were given",
                                 argc - 2);
  options.full = full;
  options.graph_name = graph_name;
  return onyx_cli_each_model (argc - 2, argv + 2, as_json, check_model, &options);
}
