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

/* Integer tensors compared as the float values they stand for (onyx-run-dequantize.c).
 * A snapshot of `model` with a DequantizeLinear after each tensor of `dequantize`
 * (OnyxRunOptions.dequantize), appended; `probes` (char * → char *, both freed by the
 * table) gets each tensor and the name of its float copy. */
OnyxModel *onyx_run_add_dequantizers  (OnyxModel         *model,
                                       const char *const *dequantize,
                                       GHashTable        *probes);
/* The pairs (a name in the model, its counterpart's, …) compare the float copies
 * instead of the integer tensors. */
void       onyx_run_pairs_use_probes  (GPtrArray         *pairs,
                                       GHashTable        *probes);
/* The comparisons of the float copies named after their integer tensors; the copies'
 * statistics and values dropped. */
void       onyx_run_result_name_probes (OnyxRunResult    *result,
                                        GHashTable       *probes);

G_END_DECLS
