/* onyx-validate.h: the checks run before saving and by `onyx-cli check`:
 * dangling inputs, cycles and order, duplicate names, domains without an opset import. */
#pragma once

#include <glib.h>

#include "onyx-proto.h"

G_BEGIN_DECLS

typedef enum {
  ONYX_PROBLEM_ERROR,   /* onnx.checker or a runtime would reject the model */
  ONYX_PROBLEM_WARNING, /* loads, but is probably not what was meant */
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
} OnyxProblemKind;

typedef struct {
  OnyxProblemKind kind;
  OnyxProblemSeverity severity;
  char *message;      /* one line, names escaped for display */
  char *graph;        /* "main graph", "function devtech::Foo", "If_0/then_branch" */
  char *node;         /* the node's name (raw), NULL when the problem is not about a node */
  int node_index;     /* index in its graph's node list, -1 when not about a node */
  char *tensor;       /* the tensor's name (raw) or NULL */
} OnyxProblem;

void       onyx_problem_free     (OnyxProblem *problem);

/* All problems of the model, its subgraphs and its functions, in graph order.
 * The array frees its elements. */
GPtrArray *onyx_validate_model   (const Onnx__ModelProto *model);

/* Number of problems of the given severity. */
guint      onyx_problems_count   (GPtrArray          *problems,
                                  OnyxProblemSeverity severity);

/* "" and "ai.onnx" are the same domain. */
gboolean   onyx_domain_is_default  (const char *domain);
/* Domains defined by the ONNX standard ("", ai.onnx, ai.onnx.ml, ai.onnx.training,
 * ai.onnx.preview.training); anything else needs a runtime that knows it. */
gboolean   onyx_domain_is_standard (const char *domain);

G_END_DECLS
