/* onyx-cli.h: shared pieces of the onyx-cli subcommands. */
#pragma once

#include <glib.h>

#include "onyx-graph-names.h"
#include "onyx-json.h"
#include "onyx-model.h"
#include "onyx-run.h"
#include "onyx-run-profile.h"

G_BEGIN_DECLS

/* "1 node", "2 nodes": the CLI speaks English only. */
#define ONYX_CLI_PLURAL(n, one, many) ((n) == 1 ? (one) : (many))

enum {
  ONYX_EXIT_OK = 0,
  ONYX_EXIT_PROBLEMS = 1,
  ONYX_EXIT_USAGE = 2,
  ONYX_EXIT_IO = 3,
};

/* Lists wrap at this many columns, and no line printed through the helpers below is
 * longer than ONYX_CLI_MAX_LINE. */
#define ONYX_CLI_WRAP 120
#define ONYX_CLI_MAX_LINE 240
/* Most items a list of names shows before "… and N more" (--json has them all), and
 * the least names that make a family (onyx-name-family.h). */
#define ONYX_CLI_MAX_NAMES 12
#define ONYX_CLI_FAMILY_MIN 4

/* `text`, a list of items between ", ", on stdout: wrapped after a comma at
 * ONYX_CLI_WRAP columns, the lines after the first `indent` columns in; an item too
 * long for a line of its own is cut in its middle. */
void     onyx_cli_print_wrapped (const char *text,
                                 guint       indent);
/* `text` as it is when it fits in ONYX_CLI_MAX_LINE, else wrapped. */
void     onyx_cli_print_long    (const char *text,
                                 guint       indent);
/* `text` (escaped for display) whole when it has at most `max` characters, else its
 * start and how long it was: "%val = call_function[…]… (1,313 characters)". */
char    *onyx_cli_cut           (const char *text,
                                 guint       max);
/* The names as a list: families gathered, at most ONYX_CLI_MAX_NAMES items, escaped. */
char    *onyx_cli_join_names    (const char *const *names,
                                 guint              n_names);

/* Parses the options of `command`; FALSE (with *exit_code set and a message printed)
 * on bad usage. Leaves exactly n_positional arguments after the command. */
gboolean onyx_cli_parse        (const char   *command,
                                const char   *args,
                                const char   *summary,
                                GOptionEntry *entries,
                                int          *argc,
                                char       ***argv,
                                int           n_positional,
                                int          *exit_code);
int      onyx_cli_usage_error  (const char *command,
                                const char *format,
                                ...) G_GNUC_PRINTF (2, 3);
/* For commands of the form "COMMAND MODEL [--json]": parses the options and loads
 * MODEL. NULL (with *exit_code set and a message printed) on bad usage or input. */
OnyxModel *onyx_cli_open_model  (const char   *command,
                                 const char   *summary,
                                 int          *argc,
                                 char       ***argv,
                                 gboolean     *as_json,
                                 int          *exit_code);
/* The same with more options than --json (`more` ends with a zeroed entry). */
OnyxModel *onyx_cli_open_model_with (const char   *command,
                                     GOptionEntry *more,
                                     const char   *summary,
                                     int          *argc,
                                     char       ***argv,
                                     gboolean     *as_json,
                                     int          *exit_code);
/* For commands of the form "COMMAND MODEL... [--json]": parses the options (--json
 * and `more`, which may be NULL); the models are (*argv)[2] to (*argv)[*argc - 1].
 * FALSE (with *exit_code set and a message printed) on bad usage. */
gboolean onyx_cli_parse_models (const char   *command,
                                GOptionEntry *more,
                                const char   *summary,
                                int          *argc,
                                char       ***argv,
                                gboolean     *as_json,
                                int          *exit_code);
/* What a command does with one model: writes one JSON object to `json` when it is not
 * NULL, else prints text (briefly when `several`); returns its exit status. */
typedef int (*OnyxCliModelFunc) (OnyxModel *model, OnyxJson *json, gboolean several, gpointer data);
/* Reads the models one at a time, each freed before the next, and hands each to
 * `func`. With one model the output is that model's; with several, JSON is an array of
 * the models' objects. A model that cannot be read is said (on stderr, or as an object
 * {"file", "error"} in the array) and the others go on. Returns the worst status:
 * ONYX_EXIT_IO when a model could not be read, else the worst of `func`'s. */
int      onyx_cli_each_model   (int               n_paths,
                                char            **paths,
                                gboolean          as_json,
                                OnyxCliModelFunc  func,
                                gpointer          data);
/* The graph named by --graph (NULL: the main graph), or NULL with *exit_code set and
 * the reason printed. */
const OnyxGraphEntry *onyx_cli_find_graph (const char    *command,
                                           OnyxGraphList *graphs,
                                           const char    *name,
                                           int           *exit_code);
#define ONYX_CLI_GRAPH_OPTION(target) \
  { "graph", 0, 0, G_OPTION_ARG_STRING, (target), \
    "A graph of the model: main (the default), NODE:ATTR such as If_1:then_branch, or a " \
    "function's name (onyx-cli graphs lists them)", "GRAPH" }
/* Finishes the report (freeing the writer) and prints it on stdout. */
void     onyx_cli_print_json   (OnyxJson *json);
/* Prints the error's message (which names the file) and frees it. */
int      onyx_cli_report_error (GError *error);
/* Takes `object` (a GObject reference) and never frees it: for a large model at a
 * command's end, whose hundreds of thousands of small allocations took longer to free
 * one by one (15 ms of transformer_96's edit --infer-shapes) than the exit takes to
 * give all the memory back. It stays reachable: no leak to valgrind. */
void     onyx_cli_keep_until_exit (gpointer object);

/* A run's error printed and freed: its exit status (onyx-cli-run.c says which). */
int      onyx_cli_report_run_error (GError *error);

/* onyx-cli run --profile (onyx-cli-run-profile.c), on `inputs` made or given as `how`
 * says (for the model compared with, too). */
typedef struct {
  OnyxProfileOptions options;
  const char *trace_path;    /* --profile-trace, or NULL */
  const char *csv_path;      /* --profile-csv */
  const char *compare_path;  /* --profile-compare */
  gboolean inputs_given;     /* arrays given: no decoding step of an LLM is made up */
} OnyxCliProfile;
int      onyx_cli_run_profile  (OnyxModel             *model,
                                GPtrArray             *inputs,
                                const OnyxRunInputs   *how,
                                const OnyxCliProfile  *profile,
                                gboolean               as_json);

int onyx_cli_info      (int argc, char **argv);
int onyx_cli_graphs    (int argc, char **argv);
int onyx_cli_check     (int argc, char **argv);
int onyx_cli_diff      (int argc, char **argv);
int onyx_cli_roundtrip (int argc, char **argv);
int onyx_cli_nodes     (int argc, char **argv);
int onyx_cli_edit      (int argc, char **argv);
int onyx_cli_render    (int argc, char **argv);
int onyx_cli_run       (int argc, char **argv);

G_END_DECLS
