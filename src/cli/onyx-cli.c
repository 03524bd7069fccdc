/* onyx-cli: the headless tool over Onyx's core. Each subcommand lives in its own
 * onyx-cli-*.c file; this one dispatches and documents them. */
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "onyx-cli.h"

#include "onyx-schema.h"
#include "onyx-memory.h"
#include "onyx-json.h"
#include "onyx-name-family.h"
#include "onyx-onnx.h"
#include "onyx-programs.h"
#include "onyx-text.h"

typedef struct {
  const char *name;
  const char *args;
  const char *summary;
  int (*run) (int argc, char **argv);
} Command;

#ifdef ONYX_CLI_HANDS_OVER
/* onyx-cli: render and run are onyx-cli-full's (src/cli/meson.build says why), which
 * goes on in this process with the same arguments. */
static int
hand_over (int argc, char **argv)
{
  g_autofree char *full = onyx_program_path (ONYX_CLI_DIR_BUILT, ONYX_CLI_HANDS_OVER);

  (void) argc;
  execv (full, argv);
  fprintf (stderr, "onyx-cli: cannot run %s for %s: %s\n", full, argv[1], g_strerror (errno));
  return ONYX_EXIT_IO;
}
#define APART(run) hand_over
#else
#define APART(run) run
#endif

static const Command commands[] = {
  { "info", "MODEL... [--json]", "IR version, producer, opsets, inputs/outputs, operators, parameters",
    onyx_cli_info },
  { "graphs", "MODEL [--json]", "the graphs inside If/Loop/Scan nodes, and functions",
    onyx_cli_graphs },
  { "check", "MODEL... [--full] [--graph G] [--json]", "validate models; lists the problems found",
    onyx_cli_check },
  { "nodes", "MODEL [--graph G] [--op OP] [--json]", "list nodes with inputs, outputs and attributes",
    onyx_cli_nodes },
  { "diff", "A B [--json]", "what differs from model A to B (nodes matched by name, then structure)",
    onyx_cli_diff },
  { "edit", "IN -o OUT [--force] [--verbose] STEP...", "repair: bypass, delete, reconnect, rename, cleanup… (edit --help)",
    onyx_cli_edit },
  { "render", "MODEL -o OUT [OPTION...]", "draw a graph to a PNG, SVG or PDF file", APART (onyx_cli_render) },
  { "run", "MODEL [OPTION...]",
    "run with ONNX Runtime: statistics of every tensor, where it parts from another model",
    APART (onyx_cli_run) },
  { "roundtrip", "IN OUT", "load IN and save it unchanged to OUT", onyx_cli_roundtrip },
};

static void
print_usage (FILE *out)
{
  fprintf (out, "Usage: onyx-cli COMMAND [ARGS…]\n\n"
                "Inspect and repair ONNX models.\n\nCommands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strlen (commands[i].args) <= 26)
      fprintf (out, "  %-10s %-26s %s\n", commands[i].name, commands[i].args, commands[i].summary);
    else /* the summary under a long synopsis, in its column */
      fprintf (out, "  %-10s %s\n%40s%s\n", commands[i].name, commands[i].args, "", commands[i].summary);
  fprintf (out, "\nOptions:\n"
                "  -h, --help, help  show this help (or COMMAND --help for a command's own)\n"
                "  --version         print the version and the ONNX library's opsets\n"
                "\nExit status:\n"
                "  %d  success (check: no errors; warnings may be listed)\n"
                "  %d  check found errors, diff found differences, an edit step failed or\n"
                "     left errors (nothing written), or run failed, disagreed or made NaN/Inf\n"
                "  %d  bad usage: unknown command or option, a missing or wrong argument\n"
                "     (run: an unknown name, arrays that do not fit, image sizes not given)\n"
                "  %d  a file could not be read or written (the message says why)\n",
           ONYX_EXIT_OK, ONYX_EXIT_PROBLEMS, ONYX_EXIT_USAGE, ONYX_EXIT_IO);
}

int
onyx_cli_usage_error (const char *command, const char *format, ...)
{
  va_list args;

  fprintf (stderr, "onyx-cli%s%s: ", command != NULL ? " " : "", command != NULL ? command : "");
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  fprintf (stderr, "\nTry 'onyx-cli %s%s--help'.\n", command != NULL ? command : "",
           command != NULL ? " " : "");
  if (command != NULL)
    fprintf (stderr, "\n");
  return ONYX_EXIT_USAGE;
}

/* The start and end of `text`, "…" between, `max` characters in all. */
static char *
cut_middle (const char *text, glong max)
{
  glong length = g_utf8_strlen (text, -1);
  glong head = (max - 1) / 2, tail = max - 1 - head;

  if (length <= max)
    return g_strdup (text);
  return g_strdup_printf ("%.*s…%s", (int) (g_utf8_offset_to_pointer (text, head) - text), text,
                          g_utf8_offset_to_pointer (text, length - tail));
}

void
onyx_cli_print_wrapped (const char *text, guint indent)
{
  g_auto (GStrv) items = g_strsplit (text, ", ", -1);
  g_autoptr (GString) line = g_string_new (NULL);
  glong width = 0;

  for (guint i = 0; items[i] != NULL; i++)
    {
      /* The comma stays with its item, at the end of a line. */
      g_autofree char *item = g_strconcat (items[i], items[i + 1] != NULL ? "," : "", NULL);
      g_autofree char *fitted = cut_middle (item, ONYX_CLI_MAX_LINE - indent);
      glong length = g_utf8_strlen (fitted, -1);

      if (i > 0 && width + 1 + length > ONYX_CLI_WRAP)
        {
          printf ("%s\n", line->str);
          g_string_printf (line, "%*s%s", (int) indent, "", fitted);
          width = indent + length;
        }
      else
        {
          g_string_append_printf (line, "%s%s", i > 0 ? " " : "", fitted);
          width += (i > 0) + length;
        }
    }
  printf ("%s\n", line->str);
}

void
onyx_cli_print_long (const char *text, guint indent)
{
  if (g_utf8_strlen (text, -1) <= ONYX_CLI_MAX_LINE)
    printf ("%s\n", text);
  else
    onyx_cli_print_wrapped (text, indent);
}

char *
onyx_cli_cut (const char *text, guint max)
{
  g_autofree char *shown = onyx_display_escape (text);
  glong length = g_utf8_strlen (shown, -1);
  g_autofree char *count = NULL;

  if (length <= (glong) max)
    return g_steal_pointer (&shown);
  count = onyx_format_count_grouped ((guint64) length, ONYX_COUNT_PLAIN);
  return g_strdup_printf ("%.*s… (%s characters)",
                          (int) (g_utf8_offset_to_pointer (shown, MAX ((glong) max - 24, 16)) - shown), shown, count);
}

char *
onyx_cli_join_names (const char *const *names, guint n_names)
{
  return onyx_name_families_join (names, n_names, ONYX_CLI_FAMILY_MIN, ONYX_CLI_MAX_NAMES);
}

void
onyx_cli_print_json (OnyxJson *json)
{
  g_autofree char *text = onyx_json_finish (json);
  fputs (text, stdout);
}

const OnyxGraphEntry *
onyx_cli_find_graph (const char *command, OnyxGraphList *graphs, const char *name, int *exit_code)
{
  g_autoptr (GError) error = NULL;
  const OnyxGraphEntry *entry = onyx_graph_list_find (graphs, name != NULL ? name : "main", &error);

  if (entry == NULL)
    *exit_code = onyx_cli_usage_error (command, "%s", error->message);
  return entry;
}

int
onyx_cli_report_error (GError *error)
{
  fprintf (stderr, "onyx-cli: %s\n", error->message);
  g_error_free (error);
  return ONYX_EXIT_IO;
}

void
onyx_cli_keep_until_exit (gpointer object)
{
  static GPtrArray *kept;

  if (kept == NULL)
    kept = g_ptr_array_new ();
  g_ptr_array_add (kept, object);
}

gboolean
onyx_cli_parse (const char *command, const char *args, const char *summary, GOptionEntry *entries,
                int *argc, char ***argv, int n_positional, int *exit_code)
{
  g_autofree char *parameter = g_strdup_printf ("%s %s", command, args);
  g_autoptr (GOptionContext) context = g_option_context_new (parameter);
  g_autoptr (GError) error = NULL;

  g_option_context_set_summary (context, summary);
  if (entries != NULL)
    g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, argc, argv, &error))
    {
      *exit_code = onyx_cli_usage_error (command, "%s", error->message);
      return FALSE;
    }
  /* argv[0] is the program, argv[1] the command; n_positional < 0: one or more. */
  if (n_positional < 0 ? *argc - 2 < 1 : *argc - 2 != n_positional)
    {
      *exit_code = onyx_cli_usage_error (command, "expects %s", args);
      return FALSE;
    }
  /* (An empty name would be taken for the current folder.) */
  for (int i = 2; i < *argc; i++)
    if ((*argv)[i][0] == '\0')
      {
        *exit_code = onyx_cli_usage_error (command, "a file name cannot be empty");
        return FALSE;
      }
  return TRUE;
}

/* --json, then `more` (NULL, or ending with a zeroed entry), as one option list. */
static GArray *
json_and (GOptionEntry *more, gboolean *as_json, const char *json_help)
{
  GArray *entries = g_array_new (TRUE, TRUE, sizeof (GOptionEntry));
  GOptionEntry json = { "json", 0, 0, G_OPTION_ARG_NONE, as_json, json_help, NULL };

  g_array_append_val (entries, json);
  for (guint i = 0; more != NULL && more[i].long_name != NULL; i++)
    g_array_append_val (entries, more[i]);
  return entries;
}

OnyxModel *
onyx_cli_open_model_with (const char *command, GOptionEntry *more, const char *summary,
                          int *argc, char ***argv, gboolean *as_json, int *exit_code)
{
  g_autoptr (GArray) entries = json_and (more, as_json, "Print JSON");
  GError *error = NULL;
  OnyxModel *model;

  if (!onyx_cli_parse (command, "MODEL", summary, (GOptionEntry *) entries->data, argc, argv, 1,
                       exit_code))
    return NULL;
  model = onyx_model_new_from_file ((*argv)[2], &error);
  if (model == NULL)
    *exit_code = onyx_cli_report_error (error);
  return model;
}

gboolean
onyx_cli_parse_models (const char *command, GOptionEntry *more, const char *summary, int *argc,
                       char ***argv, gboolean *as_json, int *exit_code)
{
  g_autoptr (GArray) entries = json_and (more, as_json,
                                         "Print JSON (an array of one object per model when there are several)");

  return onyx_cli_parse (command, "MODEL...", summary, (GOptionEntry *) entries->data, argc, argv, -1,
                         exit_code);
}

/* Exit statuses from the least to the most serious. */
static int
worse_exit (int a, int b)
{
  static const int order[] = { ONYX_EXIT_OK, ONYX_EXIT_PROBLEMS, ONYX_EXIT_USAGE, ONYX_EXIT_IO };
  guint rank_a = 0, rank_b = 0;

  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    {
      rank_a = order[i] == a ? i : rank_a;
      rank_b = order[i] == b ? i : rank_b;
    }
  return rank_a >= rank_b ? a : b;
}

int
onyx_cli_each_model (int n_paths, char **paths, gboolean as_json, OnyxCliModelFunc func, gpointer data)
{
  gboolean several = n_paths > 1;
  g_autoptr (OnyxJson) json = as_json ? onyx_json_new () : NULL;
  int status = ONYX_EXIT_OK;

  if (json != NULL && several)
    onyx_json_begin_array (json);
  for (int i = 0; i < n_paths; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (OnyxModel) model = onyx_model_new_from_file (paths[i], &error);

      if (model == NULL)
        {
          fprintf (stderr, "onyx-cli: %s\n", error->message);
          if (json != NULL && several)
            {
              onyx_json_begin_object (json);
              onyx_json_member_string (json, "file", paths[i]);
              onyx_json_member_string (json, "error", error->message);
              onyx_json_end_object (json);
            }
          status = worse_exit (status, ONYX_EXIT_IO);
          continue;
        }
      status = worse_exit (status, func (model, json, several, data));
    }
  if (json != NULL && several)
    onyx_json_end_array (json);
  /* A single model that could not be read or used prints nothing on stdout. */
  if (json != NULL && (several || status == ONYX_EXIT_OK || status == ONYX_EXIT_PROBLEMS))
    onyx_cli_print_json (g_steal_pointer (&json));
  return status;
}

OnyxModel *
onyx_cli_open_model (const char *command, const char *summary, int *argc, char ***argv,
                     gboolean *as_json, int *exit_code)
{
  return onyx_cli_open_model_with (command, NULL, summary, argc, argv, as_json, exit_code);
}

/* Interrupted or told to end: the helper first (it would live on, reparented), then
 * this process, as the signal ends it (the shell sees 130 for ^C). */
static void
end_on_signal (int signal_number)
{
  onyx_onnx_kill_helpers_from_signal ();
  signal (signal_number, SIG_DFL);
  raise (signal_number);
}

static void
end_helpers_on_signals (void)
{
  static const int ending[] = { SIGINT, SIGTERM, SIGHUP };
  struct sigaction action = { 0 };

  action.sa_handler = end_on_signal;
  sigemptyset (&action.sa_mask);
  for (guint i = 0; i < G_N_ELEMENTS (ending); i++)
    sigaddset (&action.sa_mask, ending[i]);
  for (guint i = 0; i < G_N_ELEMENTS (ending); i++)
    {
      struct sigaction before;
      /* A signal ignored when onyx-cli started (nohup, a background job) stays so. */
      if (sigaction (ending[i], NULL, &before) == 0 && before.sa_handler == SIG_IGN)
        continue;
      sigaction (ending[i], &action, NULL);
    }
}

/* The command, then the helpers it started, waited for: none outlives onyx-cli. */
static int
run_command (const Command *command, int argc, char **argv)
{
  int status;

  end_helpers_on_signals ();
  status = command->run (argc, argv);
  onyx_onnx_stop_helpers ();
  return status;
}

int
main (int argc, char **argv)
{
  onyx_memory_keep_freed ();
  setlocale (LC_ALL, "");

  if (argc < 2)
    {
      print_usage (stderr);
      return ONYX_EXIT_USAGE;
    }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 || strcmp (argv[1], "help") == 0)
    {
      print_usage (stdout);
      return ONYX_EXIT_OK;
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      g_autofree char *library = onyx_schema_library_summary ();
      printf ("onyx-cli %s\n%s\n", ONYX_VERSION, library);
      return ONYX_EXIT_OK;
    }
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      return run_command (&commands[i], argc, argv);
  return onyx_cli_usage_error (NULL, "unknown command '%s'", argv[1]);
}
