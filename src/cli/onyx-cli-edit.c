/* onyx-cli edit. */
#include <stdio.h>
#include <string.h>

#include "onyx-cli.h"
#include "onyx-document.h"
#include "onyx-extract.h"
#include "onyx-json.h"
#include "onyx-onnx.h"
#include "onyx-problem-list.h"
#include "onyx-shapes.h"
#include "onyx-simplify.h"
#include "onyx-steps.h"
#include "onyx-validate.h"

/* Not an undoable step: it makes a new model, which the later steps then edit. */
#define EXTRACT_OPTION "extract"

typedef struct {
  const OnyxStepInfo *info; /* NULL for --extract */
  const char *argument;
  const char *option; /* as written, for messages */
} Step;

static void
print_edit_help (void)
{
  const OnyxStepInfo *steps = onyx_steps_list ();

  printf ("Usage:\n  onyx-cli edit IN -o OUT [--force] [--verbose] [--json] STEP...\n\n"
          "Apply the steps in order, validate, and save to OUT (atomically). Each step says\n"
          "what it did (\"bypassed /FooOp: /Relu_output_0 now feeds output\", \"removed 2\n"
          "nodes\"). When a step fails or the result has errors (unless --force), nothing\n"
          "is written.\n\n"
          "Steps (NODE is a node name, unique in the model: nodes inside If, Loop and Scan\n"
          "bodies are named directly; or #N for the node at position N of the main graph,\n"
          "GRAPH#N in another graph, as `onyx-cli graphs` names them):\n");
  for (guint i = 0; steps[i].name != NULL; i++)
    {
      g_autofree char *left = steps[i].optional_argument
                                ? g_strdup_printf ("--%s[=%s]", steps[i].name, steps[i].argument)
                                : g_strdup_printf ("--%s%s%s", steps[i].name, steps[i].argument ? " " : "",
                                                   steps[i].argument ? steps[i].argument : "");
      if (strlen (left) <= 34)
        printf ("  %-34s %s\n", left, steps[i].help);
      else /* the help under a long step, in its column */
        printf ("  %s\n%37s%s\n", left, "", steps[i].help);
    }
  printf ("  %-34s %s\n", "--" EXTRACT_OPTION " INPUTS:OUTPUTS",
          "cut the model to the nodes that compute OUTPUTS from INPUTS\n"
          "                                     (comma-separated tensor names; INPUTS may be\n"
          "                                     empty), as onnx.utils.extract_model does; the\n"
          "                                     steps after it edit the cut model");
  printf ("\nOptions:\n"
          "  -o, --output OUT                   where to save (may be IN itself)\n"
          "  --force                            save even when validation finds errors, or when\n"
          "                                     --simplify's passes change the outputs\n"
          "  --verbose                          say what each step removed and added, by name\n"
          "                                     (--simplify: each pass, and operators before and\n"
          "                                     after); with a failed step, also the ONNX\n"
          "                                     library's own message (file, line and assertion)\n"
          "  --json                             say what each step did as JSON (a list, one\n"
          "                                     object per step; --simplify's with its passes)\n"
          "  -h, --help                         show this help\n"
          "\nA step's argument may also follow '=' (--rename=OLD=NEW), as OUT may (--output=OUT).\n"
          "\nExamples (the walkthrough's repair; a cut between two tensors):\n"
          "  onyx-cli edit model_foo.onnx -o removed.onnx --bypass-op devtech::FooOp --cleanup\n"
          "  onyx-cli edit model.onnx -o part.onnx --extract /conv1/Relu_output_0:/fc/Gemm_output_0\n"
          "  onyx-cli edit export.onnx -o simple.onnx --simplify --verbose\n"
          "\n--simplify runs the model before and after in ONNX Runtime, on inputs made as `run`\n"
          "makes them, and compares the outputs: when a pass changes them, it names the pass\n"
          "and nothing is written (--force keeps it).\n");
}

/* Steps keep their order, which GOption cannot do: the arguments are read by hand. */
static gboolean
parse_edit_args (int argc, char **argv, const char **input, const char **output, gboolean *force,
                 gboolean *verbose, gboolean *json, GArray *steps, int *exit_code)
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
      if (strcmp (arg, "--force") == 0 || strcmp (arg, "--verbose") == 0 || strcmp (arg, "--json") == 0)
        {
          *(arg[2] == 'f' ? force : arg[2] == 'v' ? verbose : json) = TRUE;
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
        gboolean is_extract = strcmp (name, EXTRACT_OPTION) == 0;
        if (step.info == NULL && !is_extract)
          return (*exit_code = onyx_cli_usage_error ("edit", "unknown option %s", arg)), FALSE;
        if (!is_extract && step.info->optional_argument)
          value = equals != NULL ? equals + 1 : NULL;
        else if (is_extract || step.info->argument != NULL)
          {
            if (equals != NULL)
              value = equals + 1;
            else if (++i < argc)
              value = argv[i];
            else
              return (*exit_code = onyx_cli_usage_error ("edit", "--%s needs %s", name,
                                                         is_extract ? "INPUTS:OUTPUTS"
                                                                    : step.info->argument)), FALSE;
          }
        else if (equals != NULL)
          return (*exit_code = onyx_cli_usage_error ("edit", "--%s takes no argument", name)), FALSE;
        step.argument = value;
        g_array_append_val (steps, step);
      }
    }
  if (*input == NULL || *output == NULL)
    return (*exit_code = onyx_cli_usage_error ("edit", "expects IN -o OUT")), FALSE;
  if ((*input)[0] == '\0' || (*output)[0] == '\0')
    return (*exit_code = onyx_cli_usage_error ("edit", "a file name cannot be empty")), FALSE;
  if (steps->len == 0)
    return (*exit_code = onyx_cli_usage_error ("edit", "no edit step given")), FALSE;
  return TRUE;
}

static gboolean
all_tensors (OnyxGraphIndex *index, char **names)
{
  for (guint i = 0; names[i] != NULL; i++)
    if (!onyx_graph_index_defines (index, names[i]))
      return FALSE;
  return TRUE;
}

static char **
split_names (const char *text, gsize len)
{
  g_autofree char *list = g_strndup (text, len);
  return list[0] != '\0' ? g_strsplit (list, ",", -1) : g_new0 (char *, 1);
}

/* Tensor names hold ':' too ("input:0"): the first ':' after which every name on
 * both sides is a tensor of the graph separates INPUTS from OUTPUTS; failing that the
 * first ':', so that the unknown name is reported. */
static gboolean
split_extract_argument (OnyxDocument *doc, const char *argument, char ***inputs, char ***outputs)
{
  OnyxGraphIndex *index = onyx_document_get_index (doc);
  const char *first = strchr (argument, ':');

  if (first == NULL)
    return FALSE;
  for (const char *at = first; at != NULL; at = strchr (at + 1, ':'))
    {
      *inputs = split_names (argument, at - argument);
      *outputs = split_names (at + 1, strlen (at + 1));
      if (all_tensors (index, *inputs) && all_tensors (index, *outputs))
        return TRUE;
      g_clear_pointer (inputs, g_strfreev);
      g_clear_pointer (outputs, g_strfreev);
    }
  *inputs = split_names (argument, first - argument);
  *outputs = split_names (first + 1, strlen (first + 1));
  return TRUE;
}

/* Replaces *doc by a document of the extracted model. */
static gboolean
apply_extract (OnyxDocument **doc, const char *argument, GError **error)
{
  g_auto (GStrv) inputs = NULL;
  g_auto (GStrv) outputs = NULL;
  g_autoptr (OnyxModel) extracted = NULL;
  size_t n_before = onyx_document_get_proto (*doc)->graph->n_node;

  if (!split_extract_argument (*doc, argument, &inputs, &outputs))
    {
      g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID,
                   "expected INPUTS:OUTPUTS (comma-separated tensor names)");
      return FALSE;
    }
  extracted = onyx_model_extract (onyx_document_get_model (*doc), (const char *const *) inputs,
                                  (const char *const *) outputs, error);
  if (extracted == NULL)
    return FALSE;
  g_object_unref (*doc);
  *doc = onyx_document_new (extracted);
  printf ("extracted %zu of %zu %s\n", onyx_model_get_proto (extracted)->graph->n_node, n_before,
          ONYX_CLI_PLURAL (n_before, "node", "nodes"));
  return TRUE;
}

/* A step's line, and with --verbose its longer account, indented. */
static void
print_report (const char *report, const char *details)
{
  g_auto (GStrv) lines = details != NULL ? g_strsplit (details, "\n", -1) : NULL;

  onyx_cli_print_long (report, 2);
  for (guint i = 0; lines != NULL && lines[i] != NULL; i++)
    {
      g_autofree char *line = g_strdup_printf ("  %s", lines[i]);
      onyx_cli_print_wrapped (line, 4);
    }
}

/* "A; B and 3 more": the first one or two errors, for a message of one line. */
static char *
name_errors (GPtrArray *errors)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < MIN (errors->len, 2); i++)
    g_string_append_printf (text, "%s%s", i > 0 ? "; " : "", ((OnyxProblem *) errors->pdata[i])->message);
  if (errors->len > 2)
    g_string_append_printf (text, " and %u more", errors->len - 2);
  return g_string_free (text, FALSE);
}

static gboolean
has_kind (GPtrArray *problems, OnyxProblemKind kind)
{
  for (guint i = 0; i < problems->len; i++)
    if (((OnyxProblem *) problems->pdata[i])->kind == kind)
      return TRUE;
  return FALSE;
}

/* Errors the model had before any edit, which the user has to get past rather than
 * undo: the step that fixes them where there is one (node order), else --force when
 * saving and `check` to see them all. */
static void
report_earlier_errors (OnyxModel *model, GPtrArray *errors, const char *lead, gboolean saving,
                       gboolean sorted)
{
  const char *name = onyx_model_get_display_name (model);
  g_autofree char *named = name_errors (errors);
  gboolean order = !sorted && has_kind (errors, ONYX_PROBLEM_NOT_SORTED);
  gboolean only_order = order && errors->len == 1;
  g_autofree char *check = g_strdup_printf ("onyx-cli check %s lists %s", name,
                                            errors->len > 1 ? "them" : "it");
  g_autofree char *advice = NULL;

  if (errors->len == 0)
    return;
  if (order)
    advice = g_strdup_printf ("add --toposort as the first step to sort the nodes%s%s",
                              !saving ? "" : only_order ? ", or --force to save anyway"
                                                        : "; --force saves anyway, ",
                              saving && !only_order ? check : "");
  else
    advice = saving ? g_strdup_printf ("--force saves anyway; %s", check) : g_strdup (check);
  fprintf (stderr, "onyx-cli: %s: %sthe model had %u %s before the edits (%s): %s\n", name, lead,
           errors->len, errors->len > 1 ? "errors" : "error", named, advice);
}

/* The errors of `errors` that `message` does not already say (a refusal that names the
 * model's own error, as --infer-shapes names nodes out of order): one message each. */
static GPtrArray *
not_said_in (GPtrArray *errors, const char *message)
{
  GPtrArray *rest = g_ptr_array_new ();

  for (guint i = 0; i < errors->len; i++)
    if (strstr (message, ((OnyxProblem *) errors->pdata[i])->message) == NULL)
      g_ptr_array_add (rest, errors->pdata[i]);
  return rest;
}

/* A step's line as an element of --json's list. */
static void
append_json_step (GString *json, const char *name, const char *report)
{
  g_autoptr (OnyxJson) writer = onyx_json_new ();
  g_autofree char *object = NULL;

  onyx_json_begin_object (writer);
  onyx_json_member_string (writer, "step", name);
  onyx_json_member_string (writer, "report", report);
  onyx_json_end_object (writer);
  object = onyx_json_finish (g_steal_pointer (&writer));
  g_string_append_printf (json, "%s%s", json->len > 0 ? ",\n" : "", object);
}

/* --simplify with the edit's own options: the proof refuses a pass that changes the
 * outputs unless --force; what each pass did in words, or as JSON. */
static gboolean
apply_simplify (OnyxDocument *doc, const Step *step, gboolean force, gboolean verbose, GString *json,
                GError **error)
{
  OnyxSimplifyOptions options = { .passes = ONYX_SIMPLIFY_ALL, .prove = TRUE, .force = force };
  g_autoptr (OnyxSimplifyReport) report = NULL;
  g_autofree char *text = NULL;
  g_autoptr (GString) refused = g_string_new (NULL);

  if (step->argument != NULL && !onyx_simplify_parse_passes (step->argument, &options.passes, error))
    return FALSE;
  if (!onyx_edit_simplify (doc, &options, &report, error))
    return FALSE;
  if (json != NULL)
    {
      g_autofree char *object = onyx_simplify_report_to_json (report);
      g_string_append_printf (json, "%s{\"step\": \"simplify\", \"simplify\": %s}", json->len > 0 ? ",\n" : "",
                              object);
    }
  else
    {
      text = onyx_simplify_report_format (report, verbose);
      fputs (text, stdout);
    }
  for (guint i = 0; i < report->passes->len; i++)
    {
      const OnyxSimplifyPassReport *pass = &g_array_index (report->passes, OnyxSimplifyPassReport, i);
      if (pass->refused != NULL)
        g_string_append_printf (refused, "%s%s", refused->len > 0 ? ", " : "", pass->name);
    }
  if (refused->len > 0)
    {
      g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID,
                   "the outputs differ after %s (--force keeps %s; --simplify=PASSES leaves %s out)", refused->str,
                   strchr (refused->str, ',') != NULL ? "them" : "it", strchr (refused->str, ',') != NULL ? "them" : "it");
      return FALSE;
    }
  return TRUE;
}

static int
report_step_failure (OnyxModel *model, guint number, const Step *step, GError *error, gboolean verbose)
{
  gboolean argument_apart = step->argument != NULL && strchr (step->option, '=') == NULL;
  const char *details = onyx_edit_error_get_details (error);

  fprintf (stderr, "onyx-cli: %s: step %u (%s%s%s): %s; nothing was written\n",
           onyx_model_get_display_name (model), number, step->option, argument_apart ? " " : "",
           argument_apart ? step->argument : "", error->message);
  if (verbose && details != NULL)
    {
      /* Still one line per message: the library's lines joined. */
      g_auto (GStrv) lines = g_strsplit (details, "\n", -1);
      g_autoptr (GString) joined = g_string_new (NULL);
      for (guint i = 0; lines[i] != NULL; i++)
        if (g_strstrip (lines[i])[0] != '\0')
          g_string_append_printf (joined, "%s%s", joined->len > 0 ? "; " : "", lines[i]);
      fprintf (stderr, "onyx-cli: the ONNX library said: %s\n", joined->str);
    }
  g_error_free (error);
  return ONYX_EXIT_PROBLEMS;
}

/* Kept by the document too: the edits see it (--infer-shapes checks the order from
 * it). */
static void
validate_into (OnyxDocument *doc, gpointer problems)
{
  *(GPtrArray **) problems = onyx_validate_model (onyx_document_get_proto (doc));
  onyx_document_offer_validation (doc, g_ptr_array_ref (*(GPtrArray **) problems),
                                  onyx_document_get_revision (doc));
}

int
onyx_cli_edit (int argc, char **argv)
{
  const char *input = NULL, *output = NULL;
  gboolean force = FALSE, verbose = FALSE, json = FALSE, sorted = FALSE, types_only = TRUE;
  g_autoptr (GString) json_reports = g_string_new (NULL);
  g_autoptr (GArray) steps = g_array_new (FALSE, FALSE, sizeof (Step));
  g_autoptr (OnyxModel) model = NULL;
  g_autoptr (OnyxDocument) doc = NULL;
  g_autoptr (GPtrArray) problems = NULL;
  g_autoptr (GPtrArray) before = NULL;
  g_autoptr (GPtrArray) earlier = NULL;
  g_autoptr (GPtrArray) still = NULL;
  gboolean refused;
  GError *error = NULL;
  int exit_code = ONYX_EXIT_OK;

  if (!parse_edit_args (argc, argv, &input, &output, &force, &verbose, &json, steps, &exit_code))
    return exit_code;
  /* A first step that reads shapes has them inferred while the model loads, and what
   * was wrong before the edits (not theirs to answer for) found meanwhile. */
  if (steps->len > 0 && g_array_index (steps, Step, 0).info != NULL &&
      g_array_index (steps, Step, 0).info->reads_shapes)
    {
      if ((doc = onyx_document_open_with_shapes_full (input, validate_into, &before, &error)) == NULL)
        return onyx_cli_report_error (error);
      model = g_object_ref (onyx_document_get_model (doc));
    }
  else
    {
      if ((model = onyx_model_new_from_file (input, &error)) == NULL)
        return onyx_cli_report_error (error);
      doc = onyx_document_new (model);
      validate_into (doc, &before);
    }
  earlier = onyx_problems_errors_in (before, NULL);

  for (guint i = 0; i < steps->len; i++)
    {
      const Step *step = &g_array_index (steps, Step, i);
      guint before = onyx_document_get_n_undo (doc);
      g_autofree char *report = NULL, *details = NULL;

      if (step->info == NULL)
        {
          if (!apply_extract (&doc, step->argument, &error))
            return report_step_failure (model, i + 1, step, error, verbose);
          types_only = FALSE;
          continue;
        }
      if (strcmp (step->info->name, "simplify") == 0)
        {
          if (!apply_simplify (doc, step, force, verbose, json ? json_reports : NULL, &error))
            return report_step_failure (model, i + 1, step, error, verbose);
          types_only = FALSE;
          continue;
        }
      if (!onyx_step_apply_reported (doc, step->info->name, step->argument, &report, verbose ? &details : NULL,
                                     &error))
        {
          g_autoptr (GPtrArray) unsaid = not_said_in (earlier, error->message);
          report_step_failure (model, i + 1, step, error, verbose);
          report_earlier_errors (model, unsaid, "", FALSE, sorted);
          return ONYX_EXIT_PROBLEMS;
        }
      sorted = sorted || strcmp (step->info->name, "toposort") == 0;
      types_only = types_only && step->info->types_only;
      /* What the step did, which names what later steps may need (an inserted node). */
      if (json)
        append_json_step (json_reports, step->info->name,
                          onyx_document_get_n_undo (doc) == before ? NULL
                          : report != NULL                          ? report
                                                                    : onyx_document_get_undo_label (doc));
      else if (onyx_document_get_n_undo (doc) == before)
        printf ("%s: nothing to change\n", step->option);
      else
        print_report (report != NULL ? report : onyx_document_get_undo_label (doc), details);
    }

  /* ONNX's library has done its part: its helper exits while the result is checked
   * and saved. */
  onyx_onnx_release_helpers ();
  /* Steps that change types only leave nothing validation checks changed
   * (onyx-steps.h): the model's problems are the ones it had. */
  problems = types_only ? g_ptr_array_ref (before) : onyx_validate_model (onyx_document_get_proto (doc));
  refused = onyx_problems_count (problems, ONYX_PROBLEM_ERROR) > 0 && !force;
  still = onyx_problems_errors_in (problems, before);
  for (guint i = 0; i < problems->len; i++)
    {
      const OnyxProblem *problem = problems->pdata[i];
      /* A refusal names the errors the model had before, with what to do: once. */
      if (refused && g_ptr_array_find (still, problem, NULL))
        continue;
      fprintf (stderr, "onyx-cli: %s: %s: %s\n", onyx_model_get_display_name (model),
               problem->severity == ONYX_PROBLEM_ERROR ? "error" : "warning", problem->message);
    }
  if (refused)
    {
      guint n_new = onyx_problems_count (problems, ONYX_PROBLEM_ERROR) - still->len;

      if (n_new > 0)
        fprintf (stderr, "onyx-cli: the edits made %u %s; nothing was written (--force saves it anyway)\n",
                 n_new, n_new > 1 ? "errors" : "error");
      report_earlier_errors (model, still, n_new > 0 ? "" : "nothing was written: ", TRUE, FALSE);
      return ONYX_EXIT_PROBLEMS;
    }
  if (!onyx_document_save (doc, output, &error))
    return onyx_cli_report_error (error);
  if (json)
    printf ("[%s]\n", json_reports->str);
  onyx_cli_keep_until_exit (g_steal_pointer (&doc));
  onyx_cli_keep_until_exit (g_steal_pointer (&model));
  return ONYX_EXIT_OK;
}
