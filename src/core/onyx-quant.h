/* onyx-quant.h: what a model's quantization is, for the panel, `onyx-cli info` and
 * `nodes`, and the checks (onyx-diagnose-quant.c): each quantized tensor with its
 * type, scales, zero points, axis and the float range it can hold; each node, whether
 * it runs quantized and in which types ("Conv · uint8×int8 → uint8"); the model, how
 * many operators run quantized and which stay float, and the bits a weight takes.
 * Then, given a run of the model against its float twin (onyx-run.h), the error each
 * quantized layer adds (onyx-quant-accuracy.c).
 *
 * Knows the quantization operators of ai.onnx at every opset (QuantizeLinear and
 * DequantizeLinear with axis, block_size from 21, output_dtype, saturate; int4 and
 * uint4 from 21, int2 and uint2 from 25, the float8 and float4 types;
 * DynamicQuantizeLinear, QLinearConv, QLinearMatMul, ConvInteger, MatMulInteger) and
 * of com.microsoft (its QuantizeLinear and DequantizeLinear, the QLinear* operators,
 * QGemm, QAttention, DynamicQuantizeMatMul, MatMulIntegerToFloat, MatMulNBits,
 * GatherBlockQuantized, …), by the names of their slots: a slot S whose scale is
 * S_scale (and zero point S_zero_point) holds a quantized tensor. The main graph
 * only: quantized models keep their layers there. */
#pragma once

#include <glib.h>

#include "onyx-document.h"
#include "onyx-proto.h"
#include "onyx-run.h"
#include "onyx-summary.h"

G_BEGIN_DECLS

/* How a node takes part in quantization. */
typedef enum {
  ONYX_QUANT_FLOAT,        /* computes in float, or has nothing to quantize */
  ONYX_QUANT_QUANTIZE,     /* makes a quantized tensor: QuantizeLinear, DynamicQuantizeLinear */
  ONYX_QUANT_DEQUANTIZE,   /* makes it float again: DequantizeLinear; the Cast, Mul by the
                            * scales and Add of the bias after an integer operator */
  ONYX_QUANT_QDQ,          /* a float operator reading dequantized tensors (the QDQ format):
                            * runtimes run it on the integers */
  ONYX_QUANT_QOPERATOR,    /* integer tensors in and out with their scales as inputs:
                            * QLinearConv, QLinearMatMul, QGemm, QAttention… */
  ONYX_QUANT_DYNAMIC,      /* integer arithmetic on activations quantized as the model runs:
                            * ConvInteger, MatMulInteger, DynamicQuantizeMatMul,
                            * MatMulIntegerToFloat… */
  ONYX_QUANT_WEIGHT_ONLY,  /* float activations, low-bit weights: MatMulNBits,
                            * GatherBlockQuantized, DequantizeLinear of a weight → MatMul */
} OnyxQuantRole;

/* "QDQ", "QOperator", "dynamic", "weight-only" for the four ways of running quantized;
 * "float", "quantize", "dequantize" for the others. Stable: --json uses them. */
const char *onyx_quant_role_name (OnyxQuantRole role);

/* A tensor held quantized: the one a QuantizeLinear makes or a DequantizeLinear
 * reads, or a slot of a QLinear operator or a block-quantized weight. */
typedef struct {
  char *name;               /* the quantized tensor */
  char *float_name;         /* the float value it stands for (QuantizeLinear's x,
                             * DequantizeLinear's y), or NULL */
  const Onnx__NodeProto *node;  /* the node whose slots say its quantization */
  int32_t elem_type;        /* ONNX's TensorProto.DataType: INT8, UINT4, FLOAT8E4M3FN… */
  guint bits;               /* of a block-quantized weight packed in bytes (MatMulNBits's
                             * B: 4); else 0 and elem_type says */
  char *scale_name, *zero_point_name;  /* the slots' tensors, or NULL */
  guint64 n_scales;         /* 1 per tensor; the channel count per axis; blocks × rows blocked;
                             * 0 when the scale is not known before running */
  double *scales;           /* the scales when they are constants (n_scales of them), else NULL */
  double *zero_points;      /* likewise; NULL with a known scale means 0 */
  int axis;                 /* of per-axis and blocked quantization, counted from the front
                             * when the rank is known; -1 per tensor */
  gint64 block_size;        /* blocked: values per scale along the axis; 0 */
  gboolean dynamic;         /* scale and zero point computed as the model runs */
  gboolean has_range;
  double range_min, range_max;  /* the float values it can represent, every channel's */
} OnyxQuantTensor;

/* "uint8 s=0.0235 zp=128", "int8 per channel ×64 on axis 0, s 0.0012–0.031, zp 0",
 * "int4 in blocks of 32 ×(64×4), s 0.0004–0.02", "uint8, dynamic"; with the range when
 * known: " → [-3.01, 2.98]". Translated. */
char *onyx_quant_tensor_describe (const OnyxQuantTensor *tensor);

typedef struct {
  const Onnx__NodeProto *node;
  guint index;               /* in the main graph */
  OnyxQuantRole role;
  int32_t *input_types;      /* per input slot: the type its value is quantized in, 0 for
                              * float (or a scale, a shape…) */
  int32_t *output_types;     /* per output slot, likewise */
  gboolean has_quantized_form;  /* an operator ONNX Runtime runs quantized when its inputs
                                 * and outputs are (QLinear*, integer or QDQ kernels) */
} OnyxQuantNode;

/* "Conv · uint8×int8 → uint8", "MatMul · float×int4 → float", "DequantizeLinear ·
 * int8 → float": the operator, the distinct types of its operands (scales, zero points
 * and int32 biases left out) and of its first output. NULL for a float node. */
char *onyx_quant_node_describe (const OnyxQuantNode *node);

/* The model as a whole. */
typedef struct {
  guint n_quantized;          /* nodes that run quantized, in any of the four ways */
  guint n_quantizers;         /* QuantizeLinear and DynamicQuantizeLinear nodes */
  guint n_dequantizers;       /* DequantizeLinear nodes and an integer operator's Cast/Mul */
  guint n_float;              /* the other nodes, Constants aside */
  guint n_float_quantizable;  /* of them, operators that have a quantized form */
  GPtrArray *quantized_ops;   /* OnyxOpCount, most frequent first */
  GPtrArray *float_ops;       /* OnyxOpCount of the float nodes */
  guint roles;                /* 1 << OnyxQuantRole of each way found (QDQ, QOPERATOR…) */
  GArray *types;              /* int32_t: the quantized element types used, in order found */
  guint64 n_quantized_weights;    /* values of the weights stored quantized */
  double quantized_weight_bits;   /* bits each of those takes, its scales and zero points
                                   * counted in; 0 when none */
  double bits_per_weight;     /* every parameter: bytes × 8 / values (OnyxSummary's); 0 */
} OnyxQuantSummary;

typedef struct _OnyxQuant OnyxQuant;

/* Scales and zero points read in all, at most: an int4 LLM of 70 B weights holds two
 * billion block scales, gigabytes in external data that `info` and every step of the
 * app would otherwise read. Those past it are left unread and counted. */
#define ONYX_QUANT_VALUE_BUDGET ((guint64) 1 << 20)

/* The quantization of the model's main graph; constants are read from the file (and
 * from external data under `base_dir`, which may be NULL). */
OnyxQuant              *onyx_quant_new           (const Onnx__ModelProto *model,
                                                  const char             *base_dir);
void                    onyx_quant_free          (OnyxQuant              *quant);
/* The quantization of a document's model as it is now: made when first asked for
 * after each change and kept with the document (the problem list and the properties
 * panel share it); NULL for a model with no node of quantization. Borrowed. */
OnyxQuant              *onyx_quant_of_document   (OnyxDocument           *document);
/* The same when it was made already for the document as it is now (by the analysis of
 * the step: onyx-analysis.h), else NULL: for the UI thread, which does not wait for it
 * (reading a big model's scales takes tens of ms). */
OnyxQuant              *onyx_quant_peek_document (OnyxDocument           *document);
/* Whether the document's quantization as it is now is still to be made (neither it
 * nor "nothing quantized" is known for this revision). */
gboolean                onyx_quant_is_pending    (OnyxDocument           *document);
/* onyx_quant_new for a model that may be quantized, else NULL. */
OnyxQuant              *onyx_quant_new_if_any    (const Onnx__ModelProto *model,
                                                  const char             *base_dir);
/* Keeps `quant` (taken; NULL: nothing quantized) as the document's at `revision`, as
 * onyx_quant_of_document does: FALSE, and `quant` freed, when the document changed since. */
gboolean                onyx_quant_offer         (OnyxDocument           *document,
                                                  OnyxQuant              *quant,
                                                  guint64                 revision);
/* Whether the graph has a node of quantization at all: a cheap test before
 * onyx_quant_new, which models without one need not pay for. */
gboolean                onyx_quant_graph_may_be_quantized (const Onnx__GraphProto *graph);
/* How many scale and zero point constants were left unread for the budget (so far:
 * the checks read more), and how many values they hold in all. */
guint                   onyx_quant_get_unread    (OnyxQuant              *quant,
                                                  guint64                *n_values);
/* Whether any node quantizes, dequantizes or runs quantized. */
gboolean                onyx_quant_is_quantized  (OnyxQuant              *quant);
/* The quantization of a tensor by any of its names: the quantized tensor, the float
 * one a QuantizeLinear reads, or a DequantizeLinear's output. NULL when it has none. */
const OnyxQuantTensor  *onyx_quant_lookup_tensor (OnyxQuant              *quant,
                                                  const char             *name);
/* Every quantized tensor, in the order of the nodes that say so (OnyxQuantTensor*). */
GPtrArray              *onyx_quant_get_tensors   (OnyxQuant              *quant);
/* The node's record; NULL for a node that is not in the main graph. */
const OnyxQuantNode    *onyx_quant_lookup_node   (OnyxQuant              *quant,
                                                  const Onnx__NodeProto  *node);
const OnyxQuantSummary *onyx_quant_get_summary   (OnyxQuant              *quant);
/* The same, from the model's counts (onyx_summary_new of the model analysed) when it
 * is not made yet: they are counted once. */
const OnyxQuantSummary *onyx_quant_get_summary_from (OnyxQuant             *quant,
                                                   const OnyxSummary      *counted);
/* "QDQ, dynamic": the ways found, in OnyxQuantRole order; "" for none. */
char                   *onyx_quant_describe_roles (const OnyxQuantSummary *summary);
/* "Conv 5, Relu 5, … 3 more": OnyxOpCounts (a summary's quantized_ops or float_ops),
 * the first `max_listed`. */
char                   *onyx_quant_describe_ops  (GPtrArray              *counts,
                                                  guint                   max_listed);
/* "uint8, int8": the quantized element types found. */
char                   *onyx_quant_describe_types (const OnyxQuantSummary *summary);

/* The range of values an element type holds, for integers; the largest finite
 * magnitude (and its negative) for the float8 and float4 types. FALSE for others. */
gboolean onyx_quant_type_range (int32_t elem_type,
                                double *low,
                                double *high);

/* ---- Accuracy per layer (onyx-quant-accuracy.c) ---- */

/* The threshold under which a layer loses accuracy, by default. int8 layers of a
 * calibrated model keep 25–45 dB; a wrong scale drops a layer under 10. */
#define ONYX_QUANT_DEFAULT_SQNR_DB 20.0

/* The tensors to compare in a run of `model` against its float twin `other`
 * (OnyxRunOptions.pairs): for each layer that runs quantized, the value its readers
 * see (after its output's QuantizeLinear → DequantizeLinear, a Relu between, or the
 * Cast and Mul that scale an integer result back) and the float model's counterpart
 * (same name, else the node the diff matches). NULL-terminated, in pairs; NULL when
 * `model` runs nothing quantized. A layer whose integer output no DequantizeLinear
 * reads (QOperator's QLinearConv → QLinearConv) is compared dequantized: its tensor,
 * scale and zero point go to `dequantize` (OnyxRunOptions.dequantize). */
GStrv onyx_quant_accuracy_pairs (OnyxModel *model,
                                 OnyxModel *other,
                                 GStrv     *dequantize);

typedef struct {
  const Onnx__NodeProto *node;   /* of the quantized model (borrowed) */
  guint index;
  char *tensor;                  /* compared: the quantized model's */
  char *other;                   /* the float model's */
  double sqnr_db;                /* 10 log10 (Σ b² / Σ (a − b)²); +inf when equal */
  double range_error;            /* max |a − b| against the float tensor's max − min */
  double max_abs;
} OnyxQuantLayer;

typedef struct {
  GPtrArray *layers;             /* OnyxQuantLayer: worst (lowest SQNR) first */
  const OnyxQuantLayer *first_below;  /* the first, in graph order, under the threshold */
  double threshold_db;
  guint n_quantized;             /* layers that run quantized */
  guint n_uncompared;            /* of them, with no counterpart or no scale to dequantize */
} OnyxQuantAccuracy;

/* The layers' errors from a run made with onyx_quant_accuracy_pairs (its deltas and
 * the float model's statistics). */
OnyxQuantAccuracy *onyx_quant_accuracy_new  (OnyxModel           *model,
                                             const OnyxRunResult *result,
                                             double               threshold_db);
void               onyx_quant_accuracy_free (OnyxQuantAccuracy   *accuracy);
/* Frees a layer of OnyxQuantAccuracy.layers (its free function). */
void               onyx_quant_layer_free    (OnyxQuantLayer      *layer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxQuant, onyx_quant_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxQuantAccuracy, onyx_quant_accuracy_free)

G_END_DECLS
