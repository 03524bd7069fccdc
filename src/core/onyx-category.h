/* onyx-category.h: colour families of node headers, as in Netron. A colour choice,
 * not a layout one: the layout files each box under one, the renderer colours it. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  ONYX_CATEGORY_DEFAULT,
  ONYX_CATEGORY_CONV,       /* layers with weights: Conv, Gemm, MatMul, LSTM… */
  ONYX_CATEGORY_ACTIVATION,
  ONYX_CATEGORY_POOL,
  ONYX_CATEGORY_NORMALIZATION,
  ONYX_CATEGORY_SHAPE,      /* Reshape, Transpose, Concat, Gather… */
  ONYX_CATEGORY_TENSOR,     /* Constant, Cast, arithmetic on tensors */
  ONYX_CATEGORY_CONTROL,    /* If, Loop, Scan */
  ONYX_CATEGORY_CUSTOM,     /* not a standard ONNX domain */
} OnyxCategory;

OnyxCategory onyx_category_of (const char *domain,
                               const char *op_type);

G_END_DECLS
