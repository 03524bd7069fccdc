/* onyx-extract.h: a model cut down to the part between given tensors, as
 * onnx.utils.extract_model cuts it. */
#pragma once

#include "onyx-model.h"

G_BEGIN_DECLS

/* The model cut to the main-graph nodes needed to compute `outputs` from `inputs`
 * (NULL-terminated tensor names): the node set of onnx.utils.extract_model (walking
 * back from the outputs, stopping at the inputs), in the original order. Graph inputs
 * are `inputs` in that order with their types, graph outputs `outputs` with theirs
 * where known; the initializers, value_info and functions the kept nodes use, the
 * opset imports, ir_version, producer and metadata come along. Initializers read by
 * kept nodes and not listed as inputs stay initializers. A kept If/Loop keeps its
 * bodies, and the outer names they read count as inputs of the node.
 *
 * Large payloads are shared with `model` (which is left as it was), not copied. Fails
 * (ONYX_EDIT_ERROR) when a name is not a tensor of the graph, or when an output needs a
 * tensor that is neither listed nor an initializer (the first one found is named). */
OnyxModel *onyx_model_extract (OnyxModel         *model,
                               const char *const *inputs,
                               const char *const *outputs,
                               GError           **error);

G_END_DECLS
