/* A model's quantization through the core API (onyx-quant.h), on the quantized test
 * models of tools/make-qdq-model.py and the int4 LLM: tensors, nodes and summary; the
 * checks kept up to date by OnyxProblemList edit by edit; the accuracy report made
 * from a run's deltas. */
#include <math.h>
#include <string.h>

#include "onyx-diagnose.h"
#include "onyx-edits.h"
#include "onyx-problem-list.h"
#include "onyx-quant.h"
#include "onyx-test-util.h"

static OnyxQuant *
quant_of (OnyxModel *model)
{
  return onyx_quant_new (onyx_model_get_proto (model), onyx_model_get_base_dir (model));
}

static const OnyxQuantNode *
node_named (OnyxQuant *quant, OnyxModel *model, const char *name)
{
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;

  for (size_t i = 0; i < graph->n_node; i++)
    if (g_strcmp0 (graph->node[i]->name, name) == 0)
      return onyx_quant_lookup_node (quant, graph->node[i]);
  g_error ("no node %s", name);
  return NULL;
}

static void
assert_node (OnyxQuant *quant, OnyxModel *model, const char *name, OnyxQuantRole role, const char *text)
{
  const OnyxQuantNode *record = node_named (quant, model, name);
  g_autofree char *described = onyx_quant_node_describe (record);

  g_assert_cmpstr (onyx_quant_role_name (record->role), ==, onyx_quant_role_name (role));
  g_assert_cmpstr (described, ==, text);
}

static gboolean
has_type (const OnyxQuantSummary *summary, int32_t type)
{
  for (guint i = 0; i < summary->types->len; i++)
    if (g_array_index (summary->types, int32_t, i) == type)
      return TRUE;
  return FALSE;
}

static void
test_qdq (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("qdq_cnn.onnx");
  g_autoptr (OnyxQuant) quant = quant_of (model);
  const OnyxQuantSummary *summary = onyx_quant_get_summary (quant);
  const OnyxQuantTensor *weight, *activation;
  g_autofree char *roles = onyx_quant_describe_roles (summary);
  g_autofree char *text = NULL;

  g_assert_true (onyx_quant_is_quantized (quant));
  g_assert_cmpstr (roles, ==, "QDQ");
  /* 5 Convs, the Relus their ranges do, the Add, the pool, Flatten and Gemm. */
  g_assert_cmpuint (summary->n_quantized, ==, 14);
  g_assert_cmpuint (summary->n_float, ==, 0);
  g_assert_cmpuint (summary->n_quantizers, ==, 9);
  g_assert_cmpuint (summary->n_dequantizers, ==, 21);
  g_assert_true (has_type (summary, ONNX__TENSOR_PROTO__DATA_TYPE__UINT8));
  g_assert_true (has_type (summary, ONNX__TENSOR_PROTO__DATA_TYPE__INT8));
  g_assert_true (has_type (summary, ONNX__TENSOR_PROTO__DATA_TYPE__INT32));
  /* int8 weights and int32 biases, their scales counted in. */
  g_assert_cmpuint (summary->n_quantized_weights, ==, 5050);
  g_assert_cmpfloat (summary->quantized_weight_bits, >, 8);
  g_assert_cmpfloat (summary->quantized_weight_bits, <, 10);

  /* A weight, by its name and by the DequantizeLinear's output. */
  weight = onyx_quant_lookup_tensor (quant, "stem.weight_quantized");
  g_assert_nonnull (weight);
  g_assert_true (weight == onyx_quant_lookup_tensor (quant, "stem.weight_DequantizeLinear_Output"));
  g_assert_cmpint (weight->elem_type, ==, ONNX__TENSOR_PROTO__DATA_TYPE__INT8);
  g_assert_cmpuint (weight->n_scales, ==, 8);
  g_assert_cmpint (weight->axis, ==, 0);
  g_assert_nonnull (weight->scales);
  g_assert_nonnull (weight->zero_points);
  g_assert_true (weight->has_range);
  g_assert_cmpfloat (weight->range_min, <, 0);
  g_assert_cmpfloat (weight->range_max, >, 0);
  /* An activation by the float tensor its QuantizeLinear reads: after a Relu, from 0. */
  activation = onyx_quant_lookup_tensor (quant, "/stem/Relu_output_0");
  g_assert_nonnull (activation);
  g_assert_cmpint (activation->elem_type, ==, ONNX__TENSOR_PROTO__DATA_TYPE__UINT8);
  g_assert_cmpuint (activation->n_scales, ==, 1);
  g_assert_cmpint (activation->axis, ==, -1);
  g_assert_cmpfloat (activation->range_min, ==, 0);
  g_assert_cmpfloat (activation->range_max, >, 0);
  text = onyx_quant_tensor_describe (weight);
  g_assert_true (g_str_has_prefix (text, "int8 per channel ×8 on axis 0, s="));

  assert_node (quant, model, "/stem/Conv", ONYX_QUANT_QDQ, "Conv · uint8×int8 → uint8");
  assert_node (quant, model, "/stem/Relu", ONYX_QUANT_QDQ, "Relu · uint8 → uint8");
  assert_node (quant, model, "/fc/Gemm", ONYX_QUANT_QDQ, "Gemm · uint8×int8 → float");
  assert_node (quant, model, "stem.weight_DequantizeLinear", ONYX_QUANT_DEQUANTIZE,
               "DequantizeLinear · int8 → float");
  assert_node (quant, model, "input_QuantizeLinear", ONYX_QUANT_QUANTIZE, "QuantizeLinear · float → uint8");
}

static void
test_float_twin (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("qdq_cnn_float.onnx");
  g_autoptr (OnyxQuant) quant = quant_of (model);

  g_assert_false (onyx_quant_graph_may_be_quantized (onyx_model_get_proto (model)->graph));
  g_assert_false (onyx_quant_is_quantized (quant));
  g_assert_cmpuint (onyx_quant_get_tensors (quant)->len, ==, 0);
  assert_node (quant, model, "/stem/Conv", ONYX_QUANT_FLOAT, NULL);
}

static void
test_dynamic (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("dynamic_unet.onnx");
  g_autoptr (OnyxQuant) quant = quant_of (model);
  const OnyxQuantSummary *summary = onyx_quant_get_summary (quant);
  const OnyxQuantTensor *weight = onyx_quant_lookup_tensor (quant, "encoder1.weight_quantized");
  const OnyxQuantTensor *activation = onyx_quant_lookup_tensor (quant, "image_quantized");

  g_assert_true (summary->roles == 1u << ONYX_QUANT_DYNAMIC);
  g_assert_cmpuint (summary->n_quantized, ==, 5);
  /* Relu 4, Resize, Concat, Sigmoid; the last three have quantized forms. */
  g_assert_cmpuint (summary->n_float, ==, 7);
  g_assert_cmpuint (summary->n_float_quantizable, ==, 3);
  /* Each Conv's Cast, Mul of the scales, Mul and Add. */
  g_assert_cmpuint (summary->n_dequantizers, ==, 20);
  assert_node (quant, model, "/encoder1/Conv_quant", ONYX_QUANT_DYNAMIC, "ConvInteger · uint8×int8 → int32");
  assert_node (quant, model, "/encoder1/Conv_scales_mul", ONYX_QUANT_DEQUANTIZE, "Mul · float → float");
  /* The weight's scale is the constant its scales' Mul multiplies by. */
  g_assert_nonnull (weight);
  g_assert_cmpstr (weight->scale_name, ==, "encoder1.weight_scale");
  g_assert_cmpuint (weight->n_scales, ==, 1);
  g_assert_true (weight->has_range);
  g_assert_nonnull (activation);
  g_assert_true (activation->dynamic);
}

static void
test_qoperator (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("qoperator_cnn.onnx");
  g_autoptr (OnyxQuant) quant = quant_of (model);
  const OnyxQuantTensor *weight = onyx_quant_lookup_tensor (quant, "block1.conv2.weight_quantized");
  const OnyxQuantTensor *output = onyx_quant_lookup_tensor (quant, "/block1/Relu_output_0_quantized");

  g_assert_true (onyx_quant_get_summary (quant)->roles == 1u << ONYX_QUANT_QOPERATOR);
  assert_node (quant, model, "/stem/Conv", ONYX_QUANT_QOPERATOR, "QLinearConv · uint8×int8 → uint8");
  assert_node (quant, model, "/block1/Add", ONYX_QUANT_QOPERATOR, "QLinearAdd · uint8 → uint8");
  assert_node (quant, model, "/fc/Gemm", ONYX_QUANT_QOPERATOR, "QGemm · uint8×int8 → float");
  g_assert_nonnull (weight);
  g_assert_cmpint (weight->axis, ==, 0);
  g_assert_cmpuint (weight->n_scales, ==, 8);
  /* QLinearAdd's output, a Relu folded into its range. */
  g_assert_nonnull (output);
  g_assert_cmpfloat (output->range_min, ==, 0);
}

static void
test_weight_only (void)
{
  g_autoptr (OnyxModel) blocked = test_load_data ("int4_mlp.onnx");
  g_autoptr (OnyxModel) llm = test_load_data ("llm_tiny.onnx");
  g_autoptr (OnyxQuant) quant = quant_of (blocked);
  g_autoptr (OnyxQuant) nbits = quant_of (llm);
  const OnyxQuantTensor *weight = onyx_quant_lookup_tensor (quant, "up.weight_quantized");
  const OnyxQuantTensor *packed = onyx_quant_lookup_tensor (nbits, "model.layers.0.attn.qkv_proj.qweight");
  const OnyxQuantSummary *summary = onyx_quant_get_summary (quant);

  assert_node (quant, blocked, "/up/MatMul", ONYX_QUANT_WEIGHT_ONLY, "MatMul · float×int4 → float");
  g_assert_nonnull (weight);
  g_assert_cmpint (weight->elem_type, ==, 22 /* INT4 */);
  g_assert_cmpint (weight->block_size, ==, 32);
  g_assert_cmpint (weight->axis, ==, 0);
  /* 4 bits and a float scale per 32 values. */
  g_assert_cmpfloat (fabs (summary->quantized_weight_bits - 5.0), <, 1e-9);
  g_assert_cmpfloat (fabs (summary->bits_per_weight - 5.0), <, 1e-9);

  assert_node (nbits, llm, "/model/layers.0/attn/qkv_proj/MatMulNBits", ONYX_QUANT_WEIGHT_ONLY,
               "MatMulNBits · float×uint4 → float");
  g_assert_nonnull (packed);
  g_assert_cmpuint (packed->bits, ==, 4);
  g_assert_cmpint (packed->block_size, ==, 32);
  /* Without zero points, 4-bit values are centred on 8. */
  g_assert_nonnull (packed->zero_points);
  g_assert_cmpfloat (packed->zero_points[0], ==, 8);
  g_assert_cmpuint (packed->n_scales, ==, 128 * 2);
}

/* ---- The checks, followed edit by edit ---- */

static guint
count_kind (GPtrArray *problems, OnyxProblemKind kind, const char *node)
{
  guint n = 0;
  for (guint i = 0; i < problems->len; i++)
    {
      const OnyxProblem *problem = problems->pdata[i];
      n += problem->kind == kind && (node == NULL || g_strcmp0 (problem->node, node) == 0);
    }
  return n;
}

/* Removing the Gemm leaves its weight's DequantizeLinear feeding nothing: said once,
 * as quantization's finding rather than a dead node; undone, gone. */
static void
test_unused_dequantize_followed (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("qdq_cnn.onnx");
  g_autoptr (OnyxProblemList) problems = onyx_problem_list_new (doc);
  Onnx__NodeProto *gemm = onyx_graph_index_node_by_name (onyx_document_get_index (doc), "/fc/Gemm");
  g_autoptr (GError) error = NULL;
  GPtrArray *found;

  g_assert_cmpuint (count_kind (onyx_problem_list_get (problems), ONYX_PROBLEM_QUANT_UNUSED_DEQUANTIZE, NULL), ==, 0);
  g_assert_true (onyx_edit_delete_node (doc, gemm, &error));
  g_assert_no_error (error);
  found = onyx_problem_list_get (problems);
  g_assert_cmpuint (count_kind (found, ONYX_PROBLEM_QUANT_UNUSED_DEQUANTIZE, "fc.weight_DequantizeLinear"), ==, 1);
  g_assert_cmpuint (count_kind (found, ONYX_PROBLEM_QUANT_UNUSED_DEQUANTIZE, "fc.bias_DequantizeLinear"), ==, 1);
  g_assert_cmpuint (count_kind (found, ONYX_PROBLEM_DEAD_NODE, "fc.weight_DequantizeLinear"), ==, 0);
  g_assert_true (onyx_document_undo (doc));
  found = onyx_problem_list_get (problems);
  g_assert_cmpuint (count_kind (found, ONYX_PROBLEM_QUANT_UNUSED_DEQUANTIZE, NULL), ==, 0);
}

/* A DequantizeLinear given another scale by an edit: the pair's finding comes with the
 * step and goes with its undo, as the full pass says. */
static void
test_pair_followed (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("qdq_cnn.onnx");
  g_autoptr (OnyxProblemList) problems = onyx_problem_list_new (doc);
  Onnx__NodeProto *dequantize = onyx_graph_index_node_by_name (onyx_document_get_index (doc),
                                                               "/stem/Relu_output_0_DequantizeLinear");
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) full = NULL;
  OnyxQuantChecks checks;

  /* Another activation's scale: a constant of the graph, of another value. */
  g_assert_true (onyx_edit_reconnect (doc, dequantize, 1, "/down/Relu_output_0_scale", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (count_kind (onyx_problem_list_get (problems), ONYX_PROBLEM_QUANT_PAIR,
                                "/stem/Relu_output_0_DequantizeLinear"), ==, 1);
  full = onyx_diagnose_model (onyx_document_get_proto (doc));
  g_assert_cmpuint (count_kind (full, ONYX_PROBLEM_QUANT_PAIR, NULL), ==, 1);
  g_clear_pointer (&full, g_ptr_array_unref);
  g_assert_true (onyx_document_undo (doc));
  g_assert_cmpuint (count_kind (onyx_problem_list_get (problems), ONYX_PROBLEM_QUANT_PAIR, NULL), ==, 0);
  /* The checks ran: every pair, scale and zero point of the model. */
  full = onyx_diagnose_file (onyx_document_get_model (doc), FALSE, &checks);
  g_assert_cmpuint (checks.pairs, ==, 9);
  g_assert_cmpuint (checks.scales, ==, 21);
  g_assert_cmpuint (checks.zero_points, ==, 21);
  g_assert_cmpuint (checks.dequantizers, ==, 21);
  g_assert_cmpuint (checks.axes, ==, 12);
}

/* ---- Accuracy per layer ---- */

static OnyxRunDelta *
delta_of (const char *name, const char *other, double sum_sq_ref, double sum_sq_diff, double max_abs)
{
  OnyxRunDelta *delta = g_new0 (OnyxRunDelta, 1);
  delta->name = g_strdup (name);
  delta->other = g_strdup (other);
  delta->sum_sq_ref = sum_sq_ref;
  delta->sum_sq_diff = sum_sq_diff;
  delta->max_abs = max_abs;
  delta->max_ref = 1;
  return delta;
}

static void
test_accuracy (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("qdq_cnn.onnx");
  g_autoptr (OnyxModel) twin = test_load_data ("qdq_cnn_float.onnx");
  g_auto (GStrv) dequantize = NULL, none = NULL;
  g_auto (GStrv) pairs = onyx_quant_accuracy_pairs (model, twin, &dequantize);
  g_autoptr (OnyxQuantAccuracy) accuracy = NULL;
  OnyxRunResult result = { 0 };
  OnyxRunStats range = { .name = (char *) "/down/Relu_output_0", .min = 0, .max = 4 };
  const OnyxQuantLayer *worst;

  /* Each of the 8 layers: its dequantized output against the float model's tensor of
   * the name its QuantizeLinear reads (past the Relu). */
  g_assert_nonnull (pairs);
  g_assert_cmpuint (g_strv_length (pairs), ==, 16);
  g_assert_cmpstr (pairs[0], ==, "/stem/Relu_output_0_DequantizeLinear_Output");
  g_assert_cmpstr (pairs[1], ==, "/stem/Relu_output_0");
  g_assert_cmpstr (pairs[14], ==, "/fc/Gemm_output_0");
  g_assert_cmpstr (pairs[15], ==, "/fc/Gemm_output_0");
  /* QDQ: every layer's value is a DequantizeLinear's already. */
  g_assert_cmpuint (g_strv_length (dequantize), ==, 0);
  g_assert_null (onyx_quant_accuracy_pairs (twin, model, &none));
  g_assert_null (none);

  /* A run's deltas: 40 dB everywhere but /down/Conv (10 dB), then /fc/Gemm (5 dB). */
  result.deltas = onyx_run_delta_list_new ();
  result.other_stats = g_ptr_array_new ();
  g_ptr_array_add (result.other_stats, &range);
  for (guint i = 0; pairs[i] != NULL; i += 2)
    {
      double noise = g_str_has_prefix (pairs[i], "/down/") ? 0.1
                     : g_str_has_prefix (pairs[i], "/fc/") ? 0.316228 : 1e-4;
      g_ptr_array_add (result.deltas, delta_of (pairs[i], pairs[i + 1], 1.0, noise, 0.5));
    }
  accuracy = onyx_quant_accuracy_new (model, &result, ONYX_QUANT_DEFAULT_SQNR_DB);
  g_assert_cmpuint (accuracy->n_quantized, ==, 8);
  g_assert_cmpuint (accuracy->n_uncompared, ==, 0);
  g_assert_cmpuint (accuracy->layers->len, ==, 8);
  worst = accuracy->layers->pdata[0];
  g_assert_cmpstr (worst->node->name, ==, "/fc/Gemm");
  g_assert_cmpfloat (fabs (worst->sqnr_db - 5), <, 0.01);
  g_assert_cmpstr (((const OnyxQuantLayer *) accuracy->layers->pdata[1])->node->name, ==, "/down/Conv");
  /* The first in graph order under 20 dB, not the worst. */
  g_assert_nonnull (accuracy->first_below);
  g_assert_cmpstr (accuracy->first_below->node->name, ==, "/down/Conv");
  g_assert_cmpfloat (fabs (accuracy->first_below->sqnr_db - 10), <, 0.01);
  /* Its largest difference against the float tensor's range, 4. */
  g_assert_cmpfloat (accuracy->first_below->range_error, ==, 0.5 / 4);
  g_ptr_array_unref (result.deltas);
  g_ptr_array_unref (result.other_stats);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/quant/qdq", test_qdq);
  g_test_add_func ("/quant/float-twin", test_float_twin);
  g_test_add_func ("/quant/dynamic", test_dynamic);
  g_test_add_func ("/quant/qoperator", test_qoperator);
  g_test_add_func ("/quant/weight-only", test_weight_only);
  g_test_add_func ("/quant/unused-dequantize-followed", test_unused_dequantize_followed);
  g_test_add_func ("/quant/pair-followed", test_pair_followed);
  g_test_add_func ("/quant/accuracy", test_accuracy);
  return g_test_run ();
}
