/* onyx-diagnose.h: what is wrong with an exported model, found without the user
 * knowing what to look for.
 *
 * On top of onyx_validate_model()'s checks (dangling inputs, cycles, order, duplicate
 * names, missing opset imports) this reads the operator schemas (onyx-schema.h):
 * custom operators, operators not in the imported opset, input/output counts,
 * unknown, mistyped and missing attributes, element types against the schemas' type
 * constraints; and the graph's uses: unused initializers, initializers also listed as
 * inputs, nodes that reach no graph output, graph inputs/outputs without shape, and
 * dynamic dims whose names differ only in case or separators; the model's
 * quantization (onyx-diagnose-quant.c: scales, zero points, QuantizeLinear →
 * DequantizeLinear pairs, per-axis scales, float operators left between quantized
 * ones); and the errors of ONNX's own shape inference (onyx-shapes.h) on their node.
 *
 * Problems are OnyxProblems (onyx-validate.h): severity, one-line message, graph,
 * node (name, index and pointer) and tensor. */
#pragma once

#include <glib.h>

#include "onyx-dim-params.h"
#include "onyx-model.h"
#include "onyx-validate.h"

G_BEGIN_DECLS

/* Every problem of the model, its subgraphs and functions: validation problems first,
 * then the others in graph order. The array frees its elements. */
GPtrArray *onyx_diagnose_model    (const Onnx__ModelProto *model);

/* The same with what onnx.checker.check_model(full_check=True) adds: the checker's
 * first problem (it stops there), and the strict shape inference in place of the
 * lenient one. */
GPtrArray *onyx_diagnose_model_full (const Onnx__ModelProto *model);

/* How many of each quantization check were made (onyx-diagnose-quant.c): scales and
 * zero points judged (each tensor once), QuantizeLinear → DequantizeLinear pairs
 * compared, per-axis and blocked scales measured against their tensor, float operators
 * with a quantized form looked at, DequantizeLinear nodes (whose use the dead-node
 * walk judges); those left unjudged for their size. */
typedef struct {
  guint scales;
  guint zero_points;
  guint pairs;
  guint axes;
  guint float_ops;
  guint dequantizers;
  guint unread;           /* scale and zero point constants left unread (onyx-quant.h's budget) */
  guint64 unread_values;  /* and the values they hold */
} OnyxQuantChecks;

/* onyx_diagnose_model or, with `full`, _full of a model read from a file: constants
 * in external data are read beside it for the quantization checks, whose counts go
 * to `checks` (may be NULL). */
GPtrArray *onyx_diagnose_file (OnyxModel       *model,
                               gboolean         full,
                               OnyxQuantChecks *checks);

G_END_DECLS
