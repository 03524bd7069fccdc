/* onyx-types.h: element types, shapes and type strings as people read them
 * ("float32[N×3×128×128]"), element counts that cannot overflow, and escaping of
 * names for display. */
#pragma once

#include <glib.h>

#include "onyx-proto.h"

G_BEGIN_DECLS

/* The element type's name as the linked onnx.proto spells it, lower-cased ("float",
 * "float8e8m0": ONNX's type strings); NULL for a code that proto does not declare. */
const char *onyx_elem_type_proto_name (int32_t data_type);

/* Netron's names: "float32", "int64", "float8e4m3fn"…; "type 42" for unknown codes
 * (returned in a static buffer per thread, valid until the next call). */
const char *onyx_elem_type_name       (int32_t data_type);
/* Bits per element, 0 for strings and unknown types. Covers the 4-bit types of newer
 * ONNX releases too. */
guint       onyx_elem_type_bits       (int32_t data_type);

/* Product of dims; FALSE when a dim is negative or the product overflows. */
gboolean    onyx_dims_n_elements      (const int64_t *dims,
                                       size_t         n_dims,
                                       guint64       *n_elements);
/* Bytes the tensor's values take (dims × element size, or the string lengths);
 * FALSE on overflow or an element type of unknown size. */
gboolean    onyx_tensor_n_bytes       (const Onnx__TensorProto *tensor,
                                       guint64                 *n_bytes);

/* "N×3×128×128"; "?" for a dim without value or name, or named by ONNX's shape
 * inference as a placeholder ("unk__54"); "" for a scalar. */
char       *onyx_shape_to_string      (const Onnx__TensorShapeProto *shape);
/* The same, short enough for an edge label; the panel and tooltips keep the whole.
 * Each dim name is cut the same way wherever it shows (onyx_dim_param_brief). */
char       *onyx_shape_to_brief_string (const Onnx__TensorShapeProto *shape);
/* A symbolic dim's short form: a dotted name keeps its last part, and when that part
 * is a number the first letter of the part before goes in front
 * ("p2o.DynamicDimension.0" → "D0", "batch.seq" → "seq"); past 12 characters its
 * middle is cut ("FooOpoutput_dim_1" → "FooOp…_dim_1"); a placeholder of shape
 * inference is "?". Escaped for display. */
char       *onyx_dim_param_brief      (const char *param);
char       *onyx_dims_to_string       (const int64_t *dims,
                                       size_t         n_dims);
/* "float32[N×3×128×128]", "sequence(float32[?])", "map(int64, float32)"…;
 * "?" when the type is absent. */
char       *onyx_type_to_string       (const Onnx__TypeProto *type);
/* The same with brief shapes (onyx_shape_to_brief_string), for boxes. */
char       *onyx_type_to_brief_string (const Onnx__TypeProto *type);

/* A long job's progress: `done` of `total` bytes, called from the job's thread. */
typedef void (*OnyxProgressFunc) (guint64 done, guint64 total, gpointer data);

G_END_DECLS
