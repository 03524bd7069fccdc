/* onyx-ort-operators.h: the operators ONNX Runtime adds to ONNX's, as its
 * documentation states them (docs/ContribOperators.md, docs/OperatorKernels.md of
 * microsoft/onnxruntime, at the commits recorded in the table): onyx-ort-operators*.c and
 * onyx-ort-kernels.c, written by tools/gen-ort-operators.py. onyx-ort-schemas.cc makes ONNX schemas of
 * them, so that Onyx's schema table, checks and shape inference know them as they
 * know ONNX's own. Plain C data: read by C and C++ alike. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* AttributeProto's type numbers. */
typedef enum {
  ONYX_ORT_ATTR_FLOAT = 1,
  ONYX_ORT_ATTR_INT = 2,
  ONYX_ORT_ATTR_STRING = 3,
  ONYX_ORT_ATTR_TENSOR = 4,
  ONYX_ORT_ATTR_GRAPH = 5,
  ONYX_ORT_ATTR_FLOATS = 6,
  ONYX_ORT_ATTR_INTS = 7,
  ONYX_ORT_ATTR_STRINGS = 8,
  ONYX_ORT_ATTR_TENSORS = 9,
  ONYX_ORT_ATTR_GRAPHS = 10,
  ONYX_ORT_ATTR_SPARSE_TENSOR = 11,
} OnyxOrtAttributeType;

enum {
  ONYX_ORT_OPTIONAL = 1 << 0,
  ONYX_ORT_VARIADIC = 1 << 1,
  ONYX_ORT_HETEROGENEOUS = 1 << 2,
};

typedef struct {
  const char *name;
  const char *type;          /* a constraint's name ("T") or a type ("tensor(int64)") */
  guint flags;               /* ONYX_ORT_OPTIONAL, _VARIADIC, _HETEROGENEOUS */
} OnyxOrtParam;

typedef struct {
  const char *name;
  OnyxOrtAttributeType type;
  gboolean required;
  const char *default_value; /* as the documentation states it ("0", "1e-05", "gelu"), or NULL */
} OnyxOrtAttribute;

typedef struct {
  const char *name;          /* "T" */
  const char *types;         /* "tensor(float), tensor(float16)" */
} OnyxOrtConstraint;

typedef struct {
  const char *domain;        /* "com.microsoft" */
  const char *name;
  int since_version;
  gboolean experimental;
  gboolean cpu;              /* ONNX Runtime's CPU provider has a kernel for it */
  int min_inputs, max_inputs;    /* max -1: no bound */
  int min_outputs, max_outputs;
  const OnyxOrtParam *inputs;
  guint n_inputs;
  const OnyxOrtParam *outputs;
  guint n_outputs;
  const OnyxOrtAttribute *attributes;   /* sorted by name */
  guint n_attributes;
  const OnyxOrtConstraint *constraints;
  guint n_constraints;
} OnyxOrtOperator;

/* A kernel of the CPU provider that the contrib documentation does not describe (in
 * ai.onnx most are ONNX's own operators; which are not depends on the ONNX linked). */
typedef struct {
  const char *domain;        /* "" for ai.onnx */
  const char *name;
  int since_version;
  int until_version;         /* 0: still */
  const char *inputs;        /* slot names, comma-separated */
  const char *outputs;
} OnyxOrtKernel;

extern const char onyx_ort_contrib_commit[];
extern const char onyx_ort_kernels_commit[];
/* The operators, sorted by domain and name, in parts of a generated file each. */
typedef struct {
  const OnyxOrtOperator *operators;
  guint n_operators;
} OnyxOrtOperatorPart;

extern const OnyxOrtOperatorPart onyx_ort_operator_parts[];
extern const guint onyx_ort_n_operator_parts;
extern const OnyxOrtKernel onyx_ort_kernels[];
extern const guint onyx_ort_n_kernels;

G_END_DECLS
