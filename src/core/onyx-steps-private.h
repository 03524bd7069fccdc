/* onyx-steps-private.h: what onyx-steps.c and onyx-steps-report.c share: a count of
 * the model's parts before a step, to say what the step changed. */
#pragma once

#include "onyx-steps.h"

G_BEGIN_DECLS

typedef struct _OnyxStepCensus OnyxStepCensus;

/* The nodes and initializers of every graph (not functions), the main graph's inputs
 * and outputs, the local functions and the opset imports, as they are now. */
OnyxStepCensus *onyx_step_census_new     (OnyxDocument   *doc);
void            onyx_step_census_free    (OnyxStepCensus *census);
/* What changed from `before` to the document now, in a line: "removed 12 nodes, 3
 * initializers and the opset import devtech; added 1 node"; NULL when none of these
 * changed. With `details`, a line per kind naming them ("removed nodes: a, b, …"). */
char           *onyx_step_census_changes (OnyxStepCensus *before,
                                          OnyxDocument   *doc,
                                          GString        *details);
/* "a", "a and b", "a, b and c". */
char           *onyx_step_join_words     (GPtrArray      *words);

G_END_DECLS
