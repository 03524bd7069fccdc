/* onyx-tensor-values.h: the values of a TensorProto (initializer, Constant attribute)
 * for display: decoded from raw_data, the typed fields or external data, checked
 * against the dims (hostile files claim more elements than they hold), with
 * min/max/mean. */
#pragma once

#include <glib.h>

#include "onyx-array.h"
#include "onyx-proto.h"

G_BEGIN_DECLS

typedef struct {
  int32_t data_type;
  guint64 n_elements;     /* what the dims say */
  guint64 n_values;       /* decoded: min (n_elements, limit); complex gives 2 per element */
  double *values;         /* numeric types; NULL for strings */
  GPtrArray *strings;     /* char*, escaped for display; STRING tensors only */
  gboolean has_stats;     /* min/max/mean over the finite decoded values */
  double min, max, mean;
} OnyxTensorValues;

/* Decodes at most `limit` elements. `base_dir` resolves external data (may be NULL
 * when the tensor is not external). Errors name the tensor and the problem. */
OnyxTensorValues *onyx_tensor_values_read   (const Onnx__TensorProto *tensor,
                                             const char              *base_dir,
                                             guint64                  limit,
                                             GError                 **error);
void              onyx_tensor_values_free   (OnyxTensorValues        *values);

/* "[0.5, 1, -2, …]" with at most `max_shown` values; integers without decimals. */
char             *onyx_tensor_values_format (const OnyxTensorValues *values,
                                             guint                   max_shown);

/* The tensor's elements exactly, as an array (raw_data, the typed fields or external
 * data, read at `base_dir`): for computing with them (Simplify folds and fuses).
 * Element types an OnyxArray has no size for (strings, 4-bit ints) and data that
 * falls short of the dims are errors naming the tensor. The array is named after
 * the tensor. */
OnyxArray        *onyx_tensor_read_array    (const Onnx__TensorProto *tensor,
                                             const char              *base_dir,
                                             GError                 **error);
/* A TensorProto named `name` holding the array in raw_data, allocated as protobuf-c
 * allocates (for a model's tree). */
Onnx__TensorProto *onyx_tensor_new_from_array (const OnyxArray *array,
                                               const char      *name);

/* The 16-bit floating-point types' bits as doubles. */
double            onyx_half_to_double       (guint16                  bits);
double            onyx_bfloat16_to_double   (guint16                  bits);
/* A double as float16 bits, rounded to the nearest (ties to even); out of range is
 * an infinity, NaN stays NaN. */
guint16           onyx_double_to_half       (double                   value);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxTensorValues, onyx_tensor_values_free)

G_END_DECLS
