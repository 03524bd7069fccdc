#include "onyx-category.h"

#include "onyx-validate.h"

OnyxCategory
onyx_category_of (const char *domain, const char *op_type)
{
  static const char *const conv[] = { "Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "Gemm", "MatMul",
                                      "MatMulInteger", "QLinearMatMul", "LSTM", "GRU", "RNN", "Einsum",
                                      "Attention", NULL };
  static const char *const activation[] = { "Relu", "LeakyRelu", "PRelu", "Sigmoid", "Tanh", "Elu", "Selu",
                                            "Celu", "Gelu", "Softmax", "LogSoftmax", "Softplus", "Softsign",
                                            "HardSigmoid", "HardSwish", "Mish", "ThresholdedRelu", "Hardmax",
                                            "Clip", NULL };
  static const char *const pool[] = { "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "LpPool",
                                      "GlobalLpPool", "MaxRoiPool", "RoiAlign", "MaxUnpool", NULL };
  static const char *const norm[] = { "BatchNormalization", "InstanceNormalization", "LayerNormalization",
                                      "GroupNormalization", "LpNormalization", "LRN", "Dropout",
                                      "MeanVarianceNormalization", NULL };
  static const char *const shape[] = { "Reshape", "Transpose", "Flatten", "Squeeze", "Unsqueeze", "Concat",
                                       "Split", "Slice", "Gather", "GatherElements", "GatherND", "Scatter",
                                       "ScatterElements", "ScatterND", "Tile", "Expand", "Pad", "Shape",
                                       "Size", "Resize", "Upsample", "DepthToSpace", "SpaceToDepth", NULL };
  static const char *const control[] = { "If", "Loop", "Scan", NULL };

  if (!onyx_domain_is_standard (domain))
    return ONYX_CATEGORY_CUSTOM;
  if (op_type == NULL)
    return ONYX_CATEGORY_DEFAULT;
  if (g_strv_contains (conv, op_type))
    return ONYX_CATEGORY_CONV;
  if (g_strv_contains (activation, op_type))
    return ONYX_CATEGORY_ACTIVATION;
  if (g_strv_contains (pool, op_type))
    return ONYX_CATEGORY_POOL;
  if (g_strv_contains (norm, op_type))
    return ONYX_CATEGORY_NORMALIZATION;
  if (g_strv_contains (shape, op_type))
    return ONYX_CATEGORY_SHAPE;
  if (g_strv_contains (control, op_type))
    return ONYX_CATEGORY_CONTROL;
  return ONYX_CATEGORY_TENSOR;
}
