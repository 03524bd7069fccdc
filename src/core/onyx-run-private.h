/* onyx-run-private.h: what onyx-run.c shares with its siblings. */
#pragma once

#include "onyx-run.h"

G_BEGIN_DECLS

/* One line naming the node ONNX Runtime could not run, or failed at on the data,
 * from the runtime's own text (onyx-run-findings.c). */
char *onyx_run_refusal_message (OnyxModel  *model,
                                const char *runtime_text);

G_END_DECLS
