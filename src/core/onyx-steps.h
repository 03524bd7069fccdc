/* onyx-steps.h: edits written as text steps ("bypass FooOp_0", "set-dim input:0=N"),
 * as `onyx-cli edit` takes them; one format for the CLI, scripts and journals. */
#pragma once

#include "onyx-document.h"

G_BEGIN_DECLS

typedef struct _OnyxStepInfo OnyxStepInfo;

/* What a step says it did: its line, and lines of a longer account. */
typedef struct {
  GString *text;
  GString *details;
} OnyxStepReport;

/* Applies the step from its text argument (NULL for steps without one); says in
 * `report` what it did, in its own words. */
typedef gboolean (*OnyxStepApplyFunc)  (OnyxDocument       *doc,
                                        const OnyxStepInfo *step,
                                        const char         *argument,
                                        OnyxStepReport     *report,
                                        GError            **error);

struct _OnyxStepInfo {
  const char *name;      /* "bypass" */
  const char *argument;  /* "NODE[:INPUT]", or NULL for steps without one */
  const char *help;
  OnyxStepApplyFunc apply;
  /* It reads the inferred shapes of the state it starts from. */
  gboolean reads_shapes;
  /* What it did when it says nothing itself, translatable, %s its argument. */
  const char *report;
  /* Its report ends with what it removed and added ("removed 12 nodes"). */
  gboolean counts;
  /* Its argument may be left out (--simplify, --simplify=fold,noops). */
  gboolean optional_argument;
  /* It changes types only (value_info, a graph input's dims): nothing of what a report
   * counts nor of what validation checks (onyx_validate_model reads names and
   * structure, never types), so the model is neither counted around it nor validated
   * again after it. */
  gboolean types_only;
};

/* The steps there are, in help order; NULL-terminated by a zeroed entry. */
const OnyxStepInfo *onyx_steps_list (void);
const OnyxStepInfo *onyx_step_find  (const char *name);

/* Applies one step as one undo entry. NODE is a node name or "#N" (its position). */
gboolean onyx_step_apply (OnyxDocument *doc,
                          const char   *name,
                          const char   *argument,
                          GError      **error);
/* onyx_step_apply, saying what the step did. *report (nullable out): a line in the
 * step's own words, then, for steps that remove or add many things (cleanup,
 * delete-tree, inline-functions, convert-opset), what they removed and added:
 * "bypassed /FooOp: /Relu_output_0 now feeds output", "removed 2 nodes and the opset
 * import devtech". *details (nullable out): lines of a longer account, naming what
 * was removed and added ("removed nodes: a, b, … and 9 more") and, for bypass-op,
 * each bypass. Both NULL when the step changed nothing (or has no words). The
 * model is counted before and after the step only when either is asked for, and the
 * step may change what is counted. */
gboolean onyx_step_apply_reported (OnyxDocument *doc,
                                   const char   *name,
                                   const char   *argument,
                                   char        **report,
                                   char        **details,
                                   GError      **error);
/* onyx_step_apply_reported with *note (nullable out) the report. */
gboolean onyx_step_apply_noted (OnyxDocument *doc,
                                const char   *name,
                                const char   *argument,
                                char        **note,
                                GError      **error);

/* Applies one replay entry (onyx-replay.h): the same edit, as one undo step. An entry
 * this build does not read (an unknown step, a wrong count of arguments) is an
 * error. */
gboolean onyx_edit_replay (OnyxDocument       *doc,
                           const char *const  *entry,
                           GError            **error);

G_END_DECLS
