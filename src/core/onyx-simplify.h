/* onyx-simplify.h: Simplify, what onnx-simplifier and onnxslim do to an export, as
 * one undoable edit that says what it did.
 *
 * Simplify is made of passes (Constant nodes to initializers, constant folding,
 * shape folding, no-ops, duplicates, fusions, constant If conditions), run in that
 * order in every graph, subgraphs included, again while any of them changes
 * something, then Clean Up. A folded tensor keeps its name and a surviving node its
 * name, so groups, stacks and Compare see the same model, leaner.
 *
 * Before it keeps the result, Simplify runs the model before and after in ONNX
 * Runtime on inputs it makes as Run makes them and compares the graph outputs: a
 * pass that made them differ is undone and named in the report. */
#pragma once

#include "onyx-document.h"
#include "onyx-replay.h"
#include "onyx-run.h"

G_BEGIN_DECLS

typedef enum {
  ONYX_SIMPLIFY_CONSTANTS  = 1 << 0,
  ONYX_SIMPLIFY_BRANCHES   = 1 << 1,
  ONYX_SIMPLIFY_SHAPES     = 1 << 2,
  ONYX_SIMPLIFY_FOLD       = 1 << 3,
  ONYX_SIMPLIFY_NOOPS      = 1 << 4,
  ONYX_SIMPLIFY_DUPLICATES = 1 << 5,
  ONYX_SIMPLIFY_FUSIONS    = 1 << 6,
  ONYX_SIMPLIFY_ALL        = (1 << 7) - 1,
} OnyxSimplifyPasses;

/* The passes by name, in the order they run: "constants", "branches", "shapes",
 * "fold", "noops", "duplicates", "fusions". */
guint        onyx_simplify_n_passes     (void);
const char  *onyx_simplify_pass_name    (guint i);
/* "Constant nodes to initializers", translated. */
const char  *onyx_simplify_pass_title   (guint i);
OnyxSimplifyPasses onyx_simplify_pass_flag (guint i);
/* "fold,noops" ("all", "none": Clean Up alone) into flags; an error names the passes there are. */
gboolean     onyx_simplify_parse_passes (const char          *text,
                                         OnyxSimplifyPasses  *passes,
                                         GError             **error);
/* The flags as onyx_simplify_parse_passes reads them ("all" for every pass, "none"). */
char        *onyx_simplify_passes_text  (OnyxSimplifyPasses   passes);

/* Results larger than this are left as nodes (as onnxsim's --no-large-tensor). */
#define ONYX_SIMPLIFY_LARGEST_FOLD (1 << 20)
/* Above this much weight ONNX Runtime is not asked to prove the result (it would hold
 * the weights twice): the report says so. */
#define ONYX_SIMPLIFY_DEFAULT_PROOF_BUDGET (G_GUINT64_CONSTANT (2) << 30)

/* What a run of Simplify learned from ONNX's inference and ONNX Runtime, in the order
 * it asked. Given to a second run on a copy of the same model, that run makes the
 * same changes without asking again (the app simplifies a copy of the document in
 * a thread, then the document itself at once). */
typedef struct _OnyxSimplifyTape OnyxSimplifyTape;
OnyxSimplifyTape *onyx_simplify_tape_new  (void);
void              onyx_simplify_tape_free (OnyxSimplifyTape *tape);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxSimplifyTape, onyx_simplify_tape_free)

typedef struct {
  OnyxSimplifyPasses passes;
  /* Run the model before and after and refuse passes that change its outputs. */
  gboolean prove;
  /* Keep the result even when the outputs differ (the report says they do). */
  gboolean force;
  /* Bytes of initializers past which the proof is skipped; 0: the default. */
  guint64 proof_budget;
  /* How the proof's inputs are made (NULL: random, as Run makes them by default). */
  const OnyxRunInputs *inputs;
  /* Records what was asked (replay FALSE), or answers from a recording (replay TRUE:
   * the model must be a copy of the recorded one; give the passes that stood). */
  OnyxSimplifyTape *tape;
  gboolean replay;
} OnyxSimplifyOptions;

/* What a pass did over all its rounds. */
typedef struct {
  const char *name;
  const char *title;
  guint n_nodes_removed;
  guint n_nodes_added;
  guint n_initializers_added;
  guint n_initializers_removed;
  double seconds;
  /* Why it was undone (its outputs differed, or it failed), or NULL when it stands. */
  char *refused;
} OnyxSimplifyPassReport;

typedef enum {
  ONYX_SIMPLIFY_PROVEN,        /* outputs compared and equal */
  ONYX_SIMPLIFY_UNCHANGED,     /* nothing to prove: no pass changed anything */
  ONYX_SIMPLIFY_NOT_PROVEN,    /* not run (no ONNX Runtime, over budget, not asked): see `proof_note` */
  ONYX_SIMPLIFY_DIFFERS,       /* outputs differ and the result was kept (force) */
} OnyxSimplifyVerdict;

typedef struct {
  char *op;          /* "Conv", "com.microsoft::Gelu" */
  guint before;
  guint after;
} OnyxSimplifyOpCount;

typedef struct {
  GArray *passes;            /* OnyxSimplifyPassReport, in run order */
  OnyxSimplifyPasses kept;   /* the passes asked for that stood (a replay runs these) */
  guint n_rounds;
  /* Nodes of every graph (subgraphs included) and initializers. */
  guint n_nodes_before, n_nodes_after;
  guint n_initializers_before, n_initializers_after;
  GArray *op_counts;         /* OnyxSimplifyOpCount, most nodes before first */
  OnyxSimplifyVerdict verdict;
  /* A sentence on the proof: what was compared, or why it was not run. */
  char *proof_note;
  double proof_seconds;
  double seconds;            /* the whole Simplify, proof included */
  /* Notes of the passes (a fold left alone because ONNX Runtime is missing). */
  GPtrArray *notes;
} OnyxSimplifyReport;

void onyx_simplify_report_free (OnyxSimplifyReport *report);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxSimplifyReport, onyx_simplify_report_free)

/* Simplifies the model as one undo step ("Simplify"). *report (nullable out) says
 * what each pass did, even when nothing changed. FALSE with an error, the model
 * unchanged, when the outputs differ after every pass that differs was refused
 * (should not happen) or when a pass fails; a pass whose outputs differ is undone,
 * the others stand. */
gboolean onyx_edit_simplify (OnyxDocument               *doc,
                             const OnyxSimplifyOptions  *options,
                             OnyxSimplifyReport        **report,
                             GError                    **error);

/* What a pass removed and added: "420 nodes removed, 35 initializers added", or
 * "nothing"; translated. */
char       *onyx_simplify_pass_describe (const OnyxSimplifyPassReport *pass);
/* "proven equal", "not proven"…, translated. */
const char *onyx_simplify_verdict_text  (OnyxSimplifyVerdict verdict);

/* The report as text for a terminal: a line per pass, the verdict, and with
 * `verbose` the table of operators before → after. */
char *onyx_simplify_report_format (const OnyxSimplifyReport *report,
                                   gboolean                  verbose);
/* The report as a JSON object (onyx-cli edit --json). */
char *onyx_simplify_report_to_json (const OnyxSimplifyReport *report);

extern const OnyxReplayStep *const onyx_simplify_replay_steps[];

G_END_DECLS
