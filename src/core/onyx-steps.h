/* onyx-steps.h: edits written as text steps ("bypass FooOp_0", "set-dim input:0=N"),
 * as `onyx-cli edit` takes them; one format for the CLI, scripts and journals. */
#pragma once

#include "onyx-document.h"

G_BEGIN_DECLS

typedef struct {
  const char *name;      /* "bypass" */
  const char *argument;  /* "NODE[:INPUT]", or NULL for steps without one */
  const char *help;
} OnyxStepInfo;

/* The steps there are, in help order; NULL-terminated by a zeroed entry. */
const OnyxStepInfo *onyx_steps_list (void);
const OnyxStepInfo *onyx_step_find  (const char *name);

/* Applies one step as one undo entry. NODE is a node name or "#N" (its position). */
gboolean onyx_step_apply (OnyxDocument *doc,
                          const char   *name,
                          const char   *argument,
                          GError      **error);

/* Applies one replay entry of onyx_document_get_replay ({ "bypass", "#3", "0", NULL }):
 * the same edits with their arguments kept apart, so that any name round-trips. */
gboolean onyx_replay_apply (OnyxDocument       *doc,
                            const char *const  *entry,
                            GError            **error);

G_END_DECLS
