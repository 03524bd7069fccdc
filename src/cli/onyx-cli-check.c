/* onyx-cli check and roundtrip. */
#include <stdio.h>

#include "onyx-cli.h"
#include "onyx-json.h"
#include "onyx-model.h"
#include "onyx-validate.h"

static const char *
severity_name (OnyxProblemSeverity severity)
{
  return severity == ONYX_PROBLEM_ERROR ? "error" : "warning";
}

static void
print_problems_json (OnyxModel *model, GPtrArray *problems)
{
  OnyxJson *json = onyx_json_new ();
  g_autofree char *text = NULL;

  onyx_json_begin_object (json);
  onyx_json_key (json, "file");
  onyx_json_string (json, onyx_model_get_display_name (model));
  onyx_json_key (json, "errors");
  onyx_json_uint (json, onyx_problems_count (problems, ONYX_PROBLEM_ERROR));
  onyx_json_key (json, "warnings");
  onyx_json_uint (json, onyx_problems_count (problems, ONYX_PROBLEM_WARNING));
  onyx_json_key (json, "problems");
  onyx_json_begin_array (json);
  for (guint i = 0; i < problems->len; i++)
    {
      const OnyxProblem *problem = problems->pdata[i];
      onyx_json_begin_object (json);
      onyx_json_key (json, "severity");
      onyx_json_string (json, severity_name (problem->severity));
      onyx_json_key (json, "message");
      onyx_json_string (json, problem->message);
      onyx_json_key (json, "graph");
      onyx_json_string (json, problem->graph);
      onyx_json_key (json, "node");
      onyx_json_string (json, problem->node);
      onyx_json_key (json, "node_index");
      onyx_json_int (json, problem->node_index);
      onyx_json_key (json, "tensor");
      onyx_json_string (json, problem->tensor);
      onyx_json_end_object (json);
    }
  onyx_json_end_array (json);
  onyx_json_end_object (json);
  text = onyx_json_finish (json);
  fputs (text, stdout);
}

int
onyx_cli_check (int argc, char **argv)
{
  gboolean as_json = FALSE;
  int exit_code;
  g_autoptr (OnyxModel) model = onyx_cli_open_model (
    "check",
    "Validate the model: dangling inputs, cycles, node order, duplicate names,\n"
    "domains without an opset import. Exit status 1 when errors are found.",
    &argc, &argv, &as_json, &exit_code);
  g_autoptr (GPtrArray) problems = NULL;
  guint n_errors;

  if (model == NULL)
    return exit_code;

  problems = onyx_validate_model (onyx_model_get_proto (model));
  n_errors = onyx_problems_count (problems, ONYX_PROBLEM_ERROR);
  if (as_json)
    print_problems_json (model, problems);
  else
    {
      for (guint i = 0; i < problems->len; i++)
        {
          const OnyxProblem *problem = problems->pdata[i];
          printf ("%s: %s: %s: %s\n", onyx_model_get_display_name (model),
                  severity_name (problem->severity), problem->graph, problem->message);
        }
      if (problems->len == 0)
        printf ("%s: no problems found\n", onyx_model_get_display_name (model));
      else
        printf ("%s: %u errors, %u warnings\n", onyx_model_get_display_name (model), n_errors,
                onyx_problems_count (problems, ONYX_PROBLEM_WARNING));
    }
  return n_errors > 0 ? ONYX_EXIT_PROBLEMS : ONYX_EXIT_OK;
}

int
onyx_cli_roundtrip (int argc, char **argv)
{
  g_autoptr (OnyxModel) model = NULL;
  GError *error = NULL;
  int exit_code;

  if (!onyx_cli_parse ("roundtrip", "IN OUT",
                       "Load IN and save it unchanged to OUT (atomically: OUT is replaced only\n"
                       "once the new file is completely written).",
                       NULL, &argc, &argv, 2, &exit_code))
    return exit_code;
  model = onyx_model_new_from_file (argv[2], &error);
  if (model == NULL)
    return onyx_cli_report_error (error);
  if (!onyx_model_save (model, argv[3], &error))
    return onyx_cli_report_error (error);
  return ONYX_EXIT_OK;
}
