/* onyx-run-private.h: what onyx-run.c shares with its siblings. */
#pragma once

#include "onyx-run.h"

G_BEGIN_DECLS

/* One line naming the node ONNX Runtime could not run, or failed at on the data,
 * from the runtime's own text (onyx-run-messages.c); failed at on `inputs` that
 * options->made says Onyx made, the sizes it chose for their free dims too. */
char *onyx_run_refusal_message (OnyxModel            *model,
                                const char           *runtime_text,
                                GPtrArray            *inputs,
                                const OnyxRunOptions *options);
/* Sets result->first_nonfinite and first_nonfinite_node from `stats` (OnyxRunStats):
 * with `every_tensor` captured, the first node in the graph's order with an output
 * holding NaN or Inf (TRUE then); else the first tensor of `stats` holding them, with
 * no node (FALSE, as when there are none). */
gboolean onyx_run_find_first_nonfinite (OnyxModel     *model,
                                        GPtrArray     *stats,
                                        gboolean       every_tensor,
                                        OnyxRunResult *result);

G_END_DECLS
