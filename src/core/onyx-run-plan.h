/* onyx-run-plan.h: what each graph input of a model is to it (token ids, a mask,
 * positions, a KV cache…), so that the inputs a run is given mean something; the
 * sizes of the dims they are made at. */
#pragma once

#include "onyx-model.h"

G_BEGIN_DECLS

/* What a graph input is to the model, worked out from it (onyx-run-plan.c), so that
 * the values Onyx makes for it mean something. */
typedef enum {
  ONYX_INPUT_PLAIN,        /* values as the fill says */
  ONYX_INPUT_TOKEN_IDS,    /* whole numbers in [0, vocabulary): it indexes an embedding */
  ONYX_INPUT_MASK,         /* ones */
  ONYX_INPUT_POSITIONS,    /* past … past + new − 1 along its last axis */
  ONYX_INPUT_PAST,         /* a KV cache, past tokens long */
  ONYX_INPUT_INDEX,        /* other integers: small non-negative numbers */
} OnyxInputRole;

typedef struct {
  const char *name;        /* borrowed from the model */
  OnyxInputRole role;
  gint64 vocabulary;       /* token ids: the embedding table's rows */
  char *why;               /* what the values are and why, for a person; NULL: plain */
} OnyxInputPlan;

/* One OnyxInputPlan per input a run must be given, in the graph's order. */
GPtrArray           *onyx_run_plan_inputs (OnyxModel *model);
const OnyxInputPlan *onyx_run_plan_find   (GPtrArray *plans, const char *name);
/* The sizes `chosen` gives (nullable; name → GINT_TO_POINTER (size)) and those Onyx
 * takes for a KV-cached model's sequence dims it does not give: 4 new tokens, 4 past,
 * their total. A new table. */
GHashTable          *onyx_run_plan_sizes  (OnyxModel  *model,
                                           GHashTable *chosen);

/* The names of the symbolic dims of the inputs a run must be given (graph inputs
 * no initializer backs), each once, in order; borrowed from `graph`. */
GPtrArray *onyx_run_input_dim_params (const Onnx__GraphProto *graph);

/* Whether `name` is an initializer of `graph`. */
gboolean   onyx_run_is_initializer   (const Onnx__GraphProto *graph,
                                      const char             *name);
/* The inputs a run must be given: graph inputs that no initializer backs. */
GPtrArray *onyx_run_runtime_inputs   (const Onnx__GraphProto *graph);
/* A tensor input's shape and element type (NULL, 0 when it is no tensor). */
const Onnx__TensorShapeProto *onyx_run_input_shape (const Onnx__ValueInfoProto *info);
int        onyx_run_input_elem_type  (const Onnx__ValueInfoProto *info);
/* A copy of a table of sizes (NULL: an empty one), its keys freed with it. */
GHashTable *onyx_run_copy_dims       (GHashTable *dims);
/* The symbolic dims of a KV-cached model's sequence, borrowed from the model: the new
 * tokens' (the token ids' second axis; NULL when fixed), the past's (the cache's third)
 * and the total's (the mask's second; NULL when fixed or absent). */
typedef struct {
  const char *new_tokens, *past, *total;
} OnyxSequenceDims;

/* Fills `names`; FALSE when the model has no KV cache with a symbolic length. */
gboolean   onyx_run_plan_sequence_dims (GPtrArray        *plans,
                                        OnyxModel        *model,
                                        OnyxSequenceDims *names);
/* Adds to `dims` (name → size) the sizes of a KV-cached model's sequence dims that
 * none chose: new tokens, past tokens, their total; returns the past's length, 0 when
 * the model has no cache. */
int        onyx_run_plan_dims        (GPtrArray  *plans,
                                      OnyxModel  *model,
                                      GHashTable *dims);

G_END_DECLS
