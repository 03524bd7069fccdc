/* onyx-proto.h: the generated ONNX protobuf-c types and generic helpers over them.
 *
 * The message structs come from protoc-c run on the system's onnx.proto at build time.
 * The helpers walk any message through its protobuf-c descriptor, so they keep working
 * for every path a tensor or graph can take (initializers, Constant attributes,
 * subgraphs of If/Loop/Scan, functions, sparse tensors, training info).
 */
#pragma once

#include <glib.h>
#include <protobuf-c/protobuf-c.h>

#include "onnx.pb-c.h"

G_BEGIN_DECLS

/* Called for every message reachable from the root, the root included, parents first. */
typedef void (*OnyxProtoVisitFunc) (ProtobufCMessage *message, gpointer user_data);

void onyx_proto_foreach_message (ProtobufCMessage  *root,
                                 OnyxProtoVisitFunc func,
                                 gpointer           user_data);

typedef void (*OnyxProtoTensorFunc) (Onnx__TensorProto *tensor, gpointer user_data);

/* Every TensorProto reachable from the root: initializers, Constant attributes,
 * subgraphs, functions, sparse tensors. */
void onyx_proto_foreach_tensor (ProtobufCMessage   *root,
                                OnyxProtoTensorFunc func,
                                gpointer            user_data);

/* The message in protobuf's wire format. */
GBytes *onyx_proto_pack (const ProtobufCMessage *message);

/* Whether two messages of one type have the same wire bytes. */
gboolean onyx_proto_equal (const ProtobufCMessage *a, const ProtobufCMessage *b);

/* Deep copy of a message, malloc-allocated as protobuf-c's unpack makes them, for
 * new items built from old ones. */
ProtobufCMessage *onyx_proto_copy (const ProtobufCMessage *message);

/* Messages unpacked into one pool of memory, freed all at once: read-only (nothing
 * in them may be freed or replaced), and many times cheaper to make and to free
 * than protobuf-c's malloc for every string and submessage. */
typedef struct _OnyxProtoPool OnyxProtoPool;

/* NULL when `bytes` is not a message of that type; the pool is made either way. */
ProtobufCMessage *onyx_proto_unpack_pooled (const ProtobufCMessageDescriptor *descriptor,
                                            GBytes                           *bytes,
                                            OnyxProtoPool                   **pool);
void              onyx_proto_pool_free     (OnyxProtoPool *pool);

/* Short name of a message type, e.g. "TensorProto" for onnx.TensorProto. */
const char *onyx_proto_type_name (const ProtobufCMessageDescriptor *descriptor);

/* The messages of field `number` of `message`, a repeated field of `type` messages
 * added to ONNX after Debian's onnx.proto (NodeProto.metadata_props, FunctionProto.
 * attribute_proto): read through the descriptor when the onnx.proto Onyx was built
 * from declares it, else from the unknown fields protobuf-c keeps. Each a new message
 * (the array frees them); what does not decode as `type` is left out. */
GPtrArray *onyx_proto_get_repeated (const ProtobufCMessage           *message,
                                    guint32                           number,
                                    const ProtobufCMessageDescriptor *type);

G_END_DECLS
