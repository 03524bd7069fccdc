/* onyx-steps.h: edits written as text steps ("bypass FooOp_0", "set-dim input:0=N"),
 * as `onyx-cli edit` takes them; one format for the CLI, scripts and journals. */
#pragma once

#include "onyx-document.h"

G_BEGIN_DECLS

typedef struct _OnyxStepInfo OnyxStepInfo;

/* Applies the step from its text argument (NULL for steps without one); appends to
 * `note` what a user should know beyond the undo label. */
typedef gboolean (*OnyxStepApplyFunc)  (OnyxDocument       *doc,
                                        const OnyxStepInfo *step,
                                        const char         *argument,
                                        GString            *note,
                                        GError            **error);

struct _OnyxStepInfo {
  const char *name;      /* "bypass" */
  const char *argument;  /* "NODE[:INPUT]", or NULL for steps without one */
  const char *help;
  OnyxStepApplyFunc apply;
  /* It reads the inferred shapes of the state it starts from. */
  gboolean reads_shapes;
};

/* The steps there are, in help order; NULL-terminated by a zeroed entry. */
const OnyxStepInfo *onyx_steps_list (void);
const OnyxStepInfo *onyx_step_find  (const char *name);

/* Applies one step as one undo entry. NODE is a node name or "#N" (its position). */
gboolean onyx_step_apply (OnyxDocument *doc,
                          const char   *name,
                          const char   *argument,
                          GError      **error);
/* onyx_step_apply, with *note (nullable out) set to what the undo label leaves out
 * ("new node 'x/Identity'", dropped or missing attributes), or NULL when nothing. */
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
