/* onyx-infer.h: what is known of a tensor's type when nothing records it.
 *
 * PyTorch exports carry no value_info for intermediate tensors, yet exposing one as
 * a graph output needs a type (onnx.checker requires element type and shape). This is
 * a small, conservative inference: recorded types first, then element types from the
 * operator schemas' type constraints (Shape gives int64, Add its inputs' type), and
 * shapes or ranks followed back through operators whose rules are simple. */
#pragma once

#include "onyx-document.h"

G_BEGIN_DECLS

/* A new TypeProto (malloc-allocated, like protobuf-c's), or NULL when nothing is
 * known. Dims that cannot be known are left unset ("?"). */
Onnx__TypeProto *onyx_infer_tensor_type (OnyxDocument *doc,
                                         const char   *name);

G_END_DECLS
