/* onyx-dim-params.h: the named dynamic dims of a model's inputs and outputs. */
#pragma once

#include <glib.h>

#include "onyx-proto.h"

G_BEGIN_DECLS

typedef struct {
  char *name;            /* "N", "batch" */
  GPtrArray *tensors;    /* char*: the main graph's inputs and outputs using it */
} OnyxDimParam;

/* Named dynamic dims (dim_param) of the main graph's inputs and outputs, in order of
 * first use. The array frees its elements. */
GPtrArray *onyx_model_dim_params  (const Onnx__ModelProto *model);

G_END_DECLS
