/* onyx-shapes-private.h: for the core's other users of libonnx (onyx-convert.c). */
#pragma once

#include "onyx-proto.h"

G_BEGIN_DECLS

/* A message (a model, a node) serialized with tensor payloads over 4 KiB cut to one element: what
 * libonnx needs of it, without copying the weights. Call it on the thread that owns
 * the message: the lengths are changed while it packs. */
GBytes *onyx_shapes_pack_light (const ProtobufCMessage *message);

G_END_DECLS
