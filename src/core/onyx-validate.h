/* onyx-validate.h: the checks run before saving and by `onyx-cli check`:
 * dangling inputs, cycles and order, duplicate names, domains without an opset import. */
#pragma once

#include <glib.h>

#include "onyx-domain.h"
#include "onyx-proto.h"

G_BEGIN_DECLS

typedef enum {
  ONYX_PROBLEM_ERROR,   /* onnx.checker or a runtime would reject the model */
  ONYX_PROBLEM_WARNING, /* loads, but is probably not what was meant */
  ONYX_PROBLEM_INFO,    /* worth knowing; nothing to fix */
} OnyxProblemSeverity;

typedef enum {
  ONYX_PROBLEM_NO_IR_VERSION,
  ONYX_PROBLEM_NO_OPSET_IMPORT,
  ONYX_PROBLEM_DANGLING_INPUT,
  ONYX_PROBLEM_DANGLING_OUTPUT,
  ONYX_PROBLEM_DUPLICATE_NAME,
  ONYX_PROBLEM_CYCLE,
  ONYX_PROBLEM_NOT_SORTED,
  ONYX_PROBLEM_MISSING_OPSET,
  /* Found by onyx-diagnose.h from the operator schemas and the graph's uses. */
  ONYX_PROBLEM_CUSTOM_OP,
  ONYX_PROBLEM_UNKNOWN_OP,
  ONYX_PROBLEM_OP_NOT_IN_OPSET,
  ONYX_PROBLEM_INPUT_COUNT,
  ONYX_PROBLEM_OUTPUT_COUNT,
  ONYX_PROBLEM_UNKNOWN_ATTRIBUTE,
  ONYX_PROBLEM_ATTRIBUTE_TYPE,
  ONYX_PROBLEM_MISSING_ATTRIBUTE,
  ONYX_PROBLEM_TYPE_CONFLICT,
  ONYX_PROBLEM_UNUSED_INITIALIZER,
  ONYX_PROBLEM_INITIALIZER_INPUT,
  ONYX_PROBLEM_DEAD_NODE,
  ONYX_PROBLEM_NO_SHAPE,
  ONYX_PROBLEM_DIM_NAME,
  ONYX_PROBLEM_UNUSED_OPSET,
  ONYX_PROBLEM_NEWER_OPSET,  /* newer than the linked ONNX library knows */
  ONYX_PROBLEM_NEWER_IR,
  ONYX_PROBLEM_ONNXRUNTIME,  /* uses ONNX Runtime's own operators: said once a model */
  /* Found by ONNX's own library (onyx-shapes.h, onyx-onnx.h). */
  ONYX_PROBLEM_SHAPE_INFERENCE,
  ONYX_PROBLEM_CHECKER,
  /* A known exporter fault (onyx-diagnose-exporters.c): a function reads an
   * attribute it does not declare. */
  ONYX_PROBLEM_UNDECLARED_ATTRIBUTE,
  /* Quantization (onyx-diagnose-quant.c): a scale that is 0, negative, NaN, infinite or
   * subnormal; a zero point outside its type or of another type; a QuantizeLinear and
   * the DequantizeLinear after it that disagree; a per-axis or blocked scale that does
   * not fit its tensor; a float operator left between quantized ones; a
   * DequantizeLinear nothing uses. */
  ONYX_PROBLEM_QUANT_SCALE,
  ONYX_PROBLEM_QUANT_ZERO_POINT,
  ONYX_PROBLEM_QUANT_PAIR,
  ONYX_PROBLEM_QUANT_AXIS,
  ONYX_PROBLEM_QUANT_FLOAT_OP,
  ONYX_PROBLEM_QUANT_UNUSED_DEQUANTIZE,
} OnyxProblemKind;

typedef struct {
  OnyxProblemKind kind;
  OnyxProblemSeverity severity;
  char *message;      /* one line, names escaped for display */
  char *graph;        /* "main graph", "function devtech::Foo", "If_0:then_branch" */
  char *node;         /* the node's name (raw), NULL when the problem is not about a node */
  int node_index;     /* index in its graph's node list, -1 when not about a node */
  char *tensor;       /* the tensor's name (raw) or NULL */
  const Onnx__NodeProto *node_proto; /* the node itself (borrowed from the model), or NULL */
  const Onnx__GraphProto *graph_proto; /* the graph it is in, NULL for functions and the model */
  char *detail;       /* what ONNX's own library said of it, a line per finding; or NULL */
  const char *see;    /* where the project explains it ("docs/exporter-faults.md#…"), or NULL */
} OnyxProblem;

void       onyx_problem_free     (OnyxProblem *problem);
/* For passes that add their own problems (onyx-diagnose.c): `graph` NULL means the
 * model as a whole. */
OnyxProblem *onyx_problem_new_valist (OnyxProblemKind        kind,
                                      OnyxProblemSeverity    severity,
                                      const char            *graph,
                                      const Onnx__GraphProto *graph_proto,
                                      const Onnx__NodeProto *node,
                                      int                    node_index,
                                      const char            *tensor,
                                      const char            *format,
                                      va_list                args) G_GNUC_PRINTF (8, 0);
/* "Conv_3" for named nodes, "node #3 (Conv)" for anonymous ones (escaped). */
char      *onyx_node_label       (const Onnx__NodeProto *node,
                                  int                    index);
/* Problems name subgraphs as onyx-graph-names.h does ("If_1:then_branch") and
 * functions "function devtech::Foo". */
char      *onyx_function_label   (const Onnx__FunctionProto *function);

/* All problems of the model, its subgraphs and its functions, in graph order.
 * The array frees its elements. */
GPtrArray *onyx_validate_model   (const Onnx__ModelProto *model);

/* "dangling-input", "custom-op"…: stable names for --json and tests. */
const char *onyx_problem_kind_name     (OnyxProblemKind     kind);
/* "error", "warning", "info". */
const char *onyx_problem_severity_name (OnyxProblemSeverity severity);

/* Number of problems of the given severity. */
guint      onyx_problems_count   (GPtrArray          *problems,
                                  OnyxProblemSeverity severity);

/* The errors of `problems` (borrowed) that `before`, the problems of the model before
 * some edits, has already, so that the edits are not blamed for them; every error
 * when `before` is NULL. */
GPtrArray *onyx_problems_errors_in (GPtrArray *problems,
                                    GPtrArray *before);

G_END_DECLS
