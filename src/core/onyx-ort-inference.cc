// onyx-ort-inference.cc: type and shape inference for the ONNX Runtime operators LLM,
// transformer and quantized exports are made of, in ONNX's own inference (so that
// shapes flow through a whole genai-built decoder). Each says what ONNX Runtime's
// kernels produce; tests/test_ort_shapes.py compares them with what a run captures.
// Where a size depends on a tensor's value (a cache's total length), the dim is left
// unnamed and the graph's own value_info, if any, names it.
#include <onnx/defs/shape_inference.h>
#include <onnx/defs/schema.h>

#include <functional>
#include <map>
#include <string>

#include "onyx-ort-schemas.h"

namespace {

using onnx::InferenceContext;
using onnx::TensorShapeProto;

bool Present(InferenceContext& ctx, size_t n) {
  return ctx.getNumInputs() > n && ctx.getInputType(n) != nullptr;
}

bool HasOutput(InferenceContext& ctx, size_t n) {
  return ctx.getNumOutputs() > n;
}

int64_t IntAttribute(InferenceContext& ctx, const char* name, int64_t fallback) {
  return onnx::getAttribute(ctx, name, fallback);
}

// The first input's type and shape to output `out`.
void SameAsInput(InferenceContext& ctx, size_t in, size_t out) {
  if (!Present(ctx, in) || !HasOutput(ctx, out))
    return;
  onnx::propagateElemTypeFromInputToOutput(ctx, in, out);
  if (onnx::hasInputShape(ctx, in))
    onnx::propagateShapeFromInputToOutput(ctx, in, out);
}

void Elementwise(InferenceContext& ctx) {
  SameAsInput(ctx, 0, 0);
}

void SetDim(TensorShapeProto::Dimension* dim, const TensorShapeProto::Dimension& from) {
  if (from.has_dim_value())
    dim->set_dim_value(from.dim_value());
  else if (from.has_dim_param())
    dim->set_dim_param(from.dim_param());
}

// `shape` with its last dim replaced by `size` (a value when > 0, unknown otherwise).
TensorShapeProto WithLastDim(const TensorShapeProto& shape, int64_t size) {
  TensorShapeProto out;
  for (int d = 0; d + 1 < shape.dim_size(); d++)
    SetDim(out.add_dim(), shape.dim(d));
  auto* last = out.add_dim();
  if (size > 0)
    last->set_dim_value(size);
  return out;
}

// The product of two known dims, or an unknown dim.
void MultiplyInto(TensorShapeProto::Dimension* dim, const TensorShapeProto::Dimension& a, int64_t b) {
  if (a.has_dim_value() && b > 0)
    dim->set_dim_value(a.dim_value() * b);
}

// MatMul's shape with numpy broadcasting of the batch dims.
void MatMulShape(InferenceContext& ctx, size_t a_index, size_t b_index, size_t out) {
  if (!onnx::hasInputShape(ctx, a_index) || !onnx::hasInputShape(ctx, b_index))
    return;
  const auto& a = onnx::getInputShape(ctx, a_index);
  const auto& b = onnx::getInputShape(ctx, b_index);
  if (a.dim_size() < 1 || b.dim_size() < 1)
    return;
  TensorShapeProto a2 = a, b2 = b;
  if (a.dim_size() == 1) {
    a2.Clear();
    a2.add_dim()->set_dim_value(1);
    *a2.add_dim() = a.dim(0);
  }
  if (b.dim_size() == 1) {
    b2.Clear();
    *b2.add_dim() = b.dim(0);
    b2.add_dim()->set_dim_value(1);
  }
  TensorShapeProto batch_a, batch_b, result;
  for (int d = 0; d + 2 < a2.dim_size(); d++)
    *batch_a.add_dim() = a2.dim(d);
  for (int d = 0; d + 2 < b2.dim_size(); d++)
    *batch_b.add_dim() = b2.dim(d);
  onnx::bidirectionalBroadcastShapeInference(batch_a, batch_b, result);
  if (a.dim_size() > 1)
    SetDim(result.add_dim(), a2.dim(a2.dim_size() - 2));
  if (b.dim_size() > 1)
    SetDim(result.add_dim(), b2.dim(b2.dim_size() - 1));
  onnx::updateOutputShape(ctx, out, result);
}

// MatMulNBits, MatMulBnb4: A [..., K] times a packed [K, N] weight: [..., N].
void MatMulNBits(InferenceContext& ctx) {
  SameAsInput(ctx, 0, 0);
  if (onnx::hasInputShape(ctx, 0))
    onnx::updateOutputShape(ctx, 0, WithLastDim(onnx::getInputShape(ctx, 0), IntAttribute(ctx, "N", 0)));
}

// MatMulIntegerToFloat, DynamicQuantizeMatMul: a matmul whose result is the scale's type.
void MatMulToFloat(InferenceContext& ctx, size_t scale_index) {
  if (Present(ctx, scale_index))
    onnx::propagateElemTypeFromInputToOutput(ctx, scale_index, 0);
  MatMulShape(ctx, 0, 1, 0);
}

// GroupQueryAttention: query [B, S, N·H] (or packed Q, K, V: [B, S, (N + 2·Nkv)·H]);
// output [B, S, N·H]; present key and value [B, Nkv, total, H], total unknown here.
void GroupQueryAttention(InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  int64_t heads = IntAttribute(ctx, "num_heads", 0), kv_heads = IntAttribute(ctx, "kv_num_heads", 0);
  int64_t head_size = 0;
  if (onnx::hasInputShape(ctx, 0)) {
    const auto& query = onnx::getInputShape(ctx, 0);
    if (query.dim_size() == 3) {
      const auto& hidden = query.dim(2);
      bool packed = !Present(ctx, 1);
      int64_t parts = packed ? heads + 2 * kv_heads : heads;
      if (hidden.has_dim_value() && parts > 0 && hidden.dim_value() % parts == 0)
        head_size = hidden.dim_value() / parts;
      TensorShapeProto out;
      SetDim(out.add_dim(), query.dim(0));
      SetDim(out.add_dim(), query.dim(1));
      auto* last = out.add_dim();
      if (!packed)
        SetDim(last, hidden);
      else if (head_size > 0)
        last->set_dim_value(heads * head_size);
      onnx::updateOutputShape(ctx, 0, out);
    }
  }
  for (size_t out = 1; out <= 2 && HasOutput(ctx, out); out++) {
    size_t past = out + 2;  // past_key 3, past_value 4
    if (Present(ctx, past))
      onnx::propagateElemTypeFromInputToOutput(ctx, past, out);
    else
      onnx::propagateElemTypeFromInputToOutput(ctx, 0, out);
    TensorShapeProto present;
    const TensorShapeProto* past_shape = onnx::hasInputShape(ctx, past) ? &onnx::getInputShape(ctx, past) : nullptr;
    if (past_shape != nullptr && past_shape->dim_size() != 4)
      continue;
    if (past_shape != nullptr)
      SetDim(present.add_dim(), past_shape->dim(0));
    else if (onnx::hasInputShape(ctx, 0))
      SetDim(present.add_dim(), onnx::getInputShape(ctx, 0).dim(0));
    else
      present.add_dim();
    if (kv_heads > 0)
      present.add_dim()->set_dim_value(kv_heads);
    else
      present.add_dim();
    present.add_dim();
    if (past_shape != nullptr && past_shape->dim(3).has_dim_value())
      SetDim(present.add_dim(), past_shape->dim(3));
    else if (head_size > 0)
      present.add_dim()->set_dim_value(head_size);
    else
      present.add_dim();
    onnx::updateOutputShape(ctx, out, present);
  }
}

// MultiHeadAttention: output [B, S, v_hidden] from query [B, S, hidden] and value
// [B, L, v_hidden] or [B, N, L, H]; a packed query [B, S, N, 3, H] gives [B, S, N·H].
void MultiHeadAttention(InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  if (!onnx::hasInputShape(ctx, 0))
    return;
  const auto& query = onnx::getInputShape(ctx, 0);
  TensorShapeProto out;
  if (query.dim_size() == 5) {
    SetDim(out.add_dim(), query.dim(0));
    SetDim(out.add_dim(), query.dim(1));
    auto* last = out.add_dim();
    if (query.dim(2).has_dim_value() && query.dim(4).has_dim_value())
      last->set_dim_value(query.dim(2).dim_value() * query.dim(4).dim_value());
  } else if (query.dim_size() == 3) {
    SetDim(out.add_dim(), query.dim(0));
    SetDim(out.add_dim(), query.dim(1));
    auto* last = out.add_dim();
    if (onnx::hasInputShape(ctx, 2)) {
      const auto& value = onnx::getInputShape(ctx, 2);
      if (value.dim_size() == 3)
        SetDim(last, value.dim(2));
      else if (value.dim_size() == 4 && value.dim(1).has_dim_value() && value.dim(3).has_dim_value())
        last->set_dim_value(value.dim(1).dim_value() * value.dim(3).dim_value());
    } else {
      SetDim(last, query.dim(2));
    }
  } else {
    return;
  }
  onnx::updateOutputShape(ctx, 0, out);
  for (size_t o = 1; o < ctx.getNumOutputs(); o++)
    onnx::propagateElemTypeFromInputToOutput(ctx, 0, o);
}

// Attention: input [B, S, input_hidden], weights [input_hidden, 3·hidden]; output
// [B, S, v_hidden] (qkv_hidden_sizes[2], else a third of the weights' columns).
void Attention(InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  if (!onnx::hasInputShape(ctx, 0) || onnx::getInputShape(ctx, 0).dim_size() != 3)
    return;
  const auto& input = onnx::getInputShape(ctx, 0);
  std::vector<int64_t> sizes;
  onnx::getRepeatedAttribute(ctx, "qkv_hidden_sizes", sizes);
  int64_t v_hidden = sizes.size() == 3 ? sizes[2] : 0;
  if (v_hidden == 0 && onnx::hasInputShape(ctx, 1)) {
    const auto& weights = onnx::getInputShape(ctx, 1);
    if (weights.dim_size() == 2 && weights.dim(1).has_dim_value() && weights.dim(1).dim_value() % 3 == 0)
      v_hidden = weights.dim(1).dim_value() / 3;
  }
  onnx::updateOutputShape(ctx, 0, WithLastDim(input, v_hidden));
  if (HasOutput(ctx, 1))
    onnx::propagateElemTypeFromInputToOutput(ctx, 0, 1);
}

// LayerNormalization's extra outputs (mean, inverse std): the input's shape with the
// normalized dims (from `axis`) 1, as float.
void NormStatistics(InferenceContext& ctx, size_t out, int64_t axis) {
  if (!HasOutput(ctx, out))
    return;
  onnx::updateOutputElemType(ctx, out, onnx::TensorProto::FLOAT);
  if (!onnx::hasInputShape(ctx, 0))
    return;
  const auto& input = onnx::getInputShape(ctx, 0);
  int rank = input.dim_size();
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return;
  TensorShapeProto stats;
  for (int d = 0; d < rank; d++) {
    if (d < axis)
      SetDim(stats.add_dim(), input.dim(d));
    else
      stats.add_dim()->set_dim_value(1);
  }
  onnx::updateOutputShape(ctx, out, stats);
}

// SimplifiedLayerNormalization (ai.onnx): Y like X; inv_std_var as statistics.
void SimplifiedLayerNorm(InferenceContext& ctx) {
  SameAsInput(ctx, 0, 0);
  NormStatistics(ctx, 1, IntAttribute(ctx, "axis", -1));
}

// SkipLayerNormalization and SkipSimplifiedLayerNormalization: output and the sum
// input + skip + bias (3) like the input; mean (1) and inverse std (2) over the last dim.
void SkipLayerNorm(InferenceContext& ctx) {
  SameAsInput(ctx, 0, 0);
  NormStatistics(ctx, 1, -1);
  NormStatistics(ctx, 2, -1);
  SameAsInput(ctx, 0, 3);
}

// BiasSplitGelu: the last dim halved.
void BiasSplitGelu(InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  if (!onnx::hasInputShape(ctx, 0))
    return;
  const auto& input = onnx::getInputShape(ctx, 0);
  if (input.dim_size() < 1)
    return;
  const auto& last = input.dim(input.dim_size() - 1);
  onnx::updateOutputShape(ctx, 0, WithLastDim(input, last.has_dim_value() ? last.dim_value() / 2 : 0));
}

// GatherBlockQuantized: data [.., K/(8/bits)] uint8 (two int4 a byte) or int4/uint4;
// output = data's dims around gather_axis with indices' dims in its place, the
// quantized axis unpacked; the scales' type.
void GatherBlockQuantized(InferenceContext& ctx) {
  if (Present(ctx, 2))
    onnx::propagateElemTypeFromInputToOutput(ctx, 2, 0);
  if (!onnx::hasInputShape(ctx, 0) || !onnx::hasInputShape(ctx, 1))
    return;
  const auto& data = onnx::getInputShape(ctx, 0);
  const auto& indices = onnx::getInputShape(ctx, 1);
  int rank = data.dim_size();
  int64_t gather_axis = IntAttribute(ctx, "gather_axis", 0), quantize_axis = IntAttribute(ctx, "quantize_axis", 1);
  if (gather_axis < 0)
    gather_axis += rank;
  if (quantize_axis < 0)
    quantize_axis += rank;
  if (gather_axis < 0 || gather_axis >= rank || quantize_axis < 0 || quantize_axis >= rank)
    return;
  int64_t components = 1;
  if (ctx.getInputType(0)->tensor_type().elem_type() == onnx::TensorProto::UINT8)
    components = 8 / IntAttribute(ctx, "bits", 4);
  TensorShapeProto out;
  for (int d = 0; d < rank; d++) {
    if (d == gather_axis) {
      for (const auto& dim : indices.dim())
        SetDim(out.add_dim(), dim);
      continue;
    }
    auto* dim = out.add_dim();
    if (d == quantize_axis && components > 1)
      MultiplyInto(dim, data.dim(d), components);
    else
      SetDim(dim, data.dim(d));
  }
  onnx::updateOutputShape(ctx, 0, out);
}

// EmbedLayerNormalization: input_ids [B, S]; output [B, S, hidden] (the word
// embedding's columns), mask_index [B] int32, embedding_sum like output.
void EmbedLayerNorm(InferenceContext& ctx) {
  if (Present(ctx, 2))
    onnx::propagateElemTypeFromInputToOutput(ctx, 2, 0);
  if (HasOutput(ctx, 1))
    onnx::updateOutputElemType(ctx, 1, onnx::TensorProto::INT32);
  if (HasOutput(ctx, 2) && Present(ctx, 2))
    onnx::propagateElemTypeFromInputToOutput(ctx, 2, 2);
  if (!onnx::hasInputShape(ctx, 0) || onnx::getInputShape(ctx, 0).dim_size() != 2)
    return;
  const auto& ids = onnx::getInputShape(ctx, 0);
  TensorShapeProto out;
  SetDim(out.add_dim(), ids.dim(0));
  SetDim(out.add_dim(), ids.dim(1));
  auto* hidden = out.add_dim();
  if (onnx::hasInputShape(ctx, 2) && onnx::getInputShape(ctx, 2).dim_size() == 2)
    SetDim(hidden, onnx::getInputShape(ctx, 2).dim(1));
  onnx::updateOutputShape(ctx, 0, out);
  if (HasOutput(ctx, 1)) {
    TensorShapeProto mask;
    SetDim(mask.add_dim(), ids.dim(0));
    onnx::updateOutputShape(ctx, 1, mask);
  }
  if (HasOutput(ctx, 2))
    onnx::updateOutputShape(ctx, 2, out);
}

// DequantizeLinear (com.microsoft): x's shape, the scale's type.
void Dequantize(InferenceContext& ctx) {
  if (Present(ctx, 1))
    onnx::propagateElemTypeFromInputToOutput(ctx, 1, 0);
  if (onnx::hasInputShape(ctx, 0))
    onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
}

// QuantizeLinear (com.microsoft): x's shape, the zero point's type (uint8 without).
void Quantize(InferenceContext& ctx) {
  if (Present(ctx, 2))
    onnx::propagateElemTypeFromInputToOutput(ctx, 2, 0);
  else
    onnx::updateOutputElemType(ctx, 0, onnx::TensorProto::UINT8);
  if (onnx::hasInputShape(ctx, 0))
    onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
}

// QLinearAdd, QLinearMul: A (0) and B (3) broadcast; A's type.
void QLinearBinary(InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  if (onnx::hasInputShape(ctx, 0) && onnx::hasInputShape(ctx, 3))
    onnx::bidirectionalBroadcastShapeInference(onnx::getInputShape(ctx, 0), onnx::getInputShape(ctx, 3),
                                               *onnx::getOutputShape(ctx, 0));
}

// QLinearWhere: condition (0), X (1), Y (4) broadcast; X's type.
void QLinearWhere(InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 1, 0);
  if (onnx::hasInputShape(ctx, 0) && onnx::hasInputShape(ctx, 1) && onnx::hasInputShape(ctx, 4)) {
    TensorShapeProto first;
    onnx::bidirectionalBroadcastShapeInference(onnx::getInputShape(ctx, 0), onnx::getInputShape(ctx, 1), first);
    onnx::bidirectionalBroadcastShapeInference(first, onnx::getInputShape(ctx, 4), *onnx::getOutputShape(ctx, 0));
  }
}

// QLinearGlobalAveragePool: [N, C, 1, 1…] (channels first) or [N, 1…, C].
void QLinearGlobalAveragePool(InferenceContext& ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  if (!onnx::hasInputShape(ctx, 0))
    return;
  const auto& input = onnx::getInputShape(ctx, 0);
  if (input.dim_size() < 3)
    return;
  bool last = IntAttribute(ctx, "channels_last", 0) != 0;
  TensorShapeProto out;
  for (int d = 0; d < input.dim_size(); d++) {
    bool keep = d == 0 || (last ? d == input.dim_size() - 1 : d == 1);
    if (keep)
      SetDim(out.add_dim(), input.dim(d));
    else
      out.add_dim()->set_dim_value(1);
  }
  onnx::updateOutputShape(ctx, 0, out);
}

const std::map<std::string, std::function<void(InferenceContext&)>>& Functions() {
  static const std::map<std::string, std::function<void(InferenceContext&)>> functions = {
      {"Attention", Attention},
      {"BiasAdd", Elementwise},
      {"BiasGelu", Elementwise},
      {"BiasSplitGelu", BiasSplitGelu},
      {"DequantizeLinear", Dequantize},
      {"DynamicQuantizeMatMul", [](InferenceContext& ctx) { MatMulToFloat(ctx, 2); }},
      {"EmbedLayerNormalization", EmbedLayerNorm},
      {"FastGelu", Elementwise},
      {"GatherBlockQuantized", GatherBlockQuantized},
      {"Gelu", Elementwise},
      {"GemmaRotaryEmbedding", Elementwise},
      {"GroupNorm", Elementwise},
      {"GroupQueryAttention", GroupQueryAttention},
      {"Inverse", Elementwise},
      {"MatMulBnb4", MatMulNBits},
      {"MatMulIntegerToFloat", [](InferenceContext& ctx) { MatMulToFloat(ctx, 2); }},
      {"MatMulNBits", MatMulNBits},
      {"MultiHeadAttention", MultiHeadAttention},
      {"QLinearAdd", QLinearBinary},
      {"QLinearGlobalAveragePool", QLinearGlobalAveragePool},
      {"QLinearLeakyRelu", Elementwise},
      {"QLinearMul", QLinearBinary},
      {"QLinearSigmoid", Elementwise},
      {"QLinearSoftmax", Elementwise},
      {"QLinearWhere", QLinearWhere},
      {"QuantizeLinear", Quantize},
      {"QuickGelu", Elementwise},
      {"RotaryEmbedding", Elementwise},
      {"SimplifiedLayerNormalization", SimplifiedLayerNorm},
      {"SkipGroupNorm", [](InferenceContext& ctx) { SameAsInput(ctx, 0, 0); SameAsInput(ctx, 0, 1); }},
      {"SkipLayerNormalization", SkipLayerNorm},
      {"SkipSimplifiedLayerNormalization", SkipLayerNorm},
      {"Trilu", Elementwise},
  };
  return functions;
}

}  // namespace

void
onyx_ort_set_inference (onnx::OpSchema &schema)
{
  auto found = Functions().find(schema.Name());
  if (found != Functions().end())
    schema.TypeAndShapeInferenceFunction(found->second);
}
