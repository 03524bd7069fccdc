/* onyx-run-private.h: what onyx-run.c shares with onyx-run-plan.c. */
#pragma once

#include "onyx-run.h"

G_BEGIN_DECLS

/* The inputs a run must be given: graph inputs that no initializer backs. */
GPtrArray *onyx_run_runtime_inputs   (const Onnx__GraphProto *graph);
/* A tensor input's shape and element type (NULL, 0 when it is no tensor). */
const Onnx__TensorShapeProto *onyx_run_input_shape (const Onnx__ValueInfoProto *info);
int        onyx_run_input_elem_type  (const Onnx__ValueInfoProto *info);
/* A copy of a table of sizes (NULL: an empty one), its keys freed with it. */
GHashTable *onyx_run_copy_dims       (GHashTable *dims);
/* Adds to `dims` (name → size) the sizes of a KV-cached model's sequence dims that
 * none chose: new tokens, past tokens, their total; returns the past's length, 0 when
 * the model has no cache. */
int        onyx_run_plan_dims        (GPtrArray  *plans,
                                      OnyxModel  *model,
                                      GHashTable *dims);

G_END_DECLS
