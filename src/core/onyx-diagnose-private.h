/* onyx-diagnose-private.h: the stages of the diagnostics, shared by their files.
 *
 *   onyx-diagnose-types.c  what is known of element types; a node's types against
 *                          its schema's type constraints
 *   onyx-dim-params.c      named dynamic dims of the graph inputs and outputs
 *   onyx-diagnose-quant.c  quantization: scales, zero points, pairs, axes, float
 *                          operators between quantized ones
 *   onyx-diagnose.c        one node against its schema; uses (dead nodes, unused
 *                          initializers); graph lists; the whole model at once
 *   onyx-problem-list.c     the same kept up to date step by step of a document */
#pragma once

#include "onyx-quant.h"

#include "onyx-diagnose.h"
#include "onyx-graph-names.h"
#include "onyx-schema.h"
#include "onyx-shapes.h"

G_BEGIN_DECLS

/* Types (as schema type strings, "tensor(float)") of one graph's tensors; subgraphs
 * see their outer graphs'. Declared types come from the graph's inputs, initializers,
 * value_info and outputs; inferred ones from the producer's schema. */
typedef struct _OnyxKnownTypes OnyxKnownTypes;

OnyxKnownTypes *onyx_known_types_new           (const OnyxKnownTypes   *outer);
void            onyx_known_types_free          (OnyxKnownTypes         *types);
const char     *onyx_known_types_lookup        (const OnyxKnownTypes   *types,
                                                const char             *name);
/* Takes `type` (NULL forgets what was inferred). TRUE when that changes anything. */
gboolean        onyx_known_types_infer         (OnyxKnownTypes         *types,
                                                const char             *name,
                                                char                   *type);
void            onyx_known_types_declare_graph (OnyxKnownTypes         *types,
                                                const Onnx__GraphProto *graph);

/* One graph being checked. */
typedef struct {
  const char *label;                 /* "main graph", "Loop_2/body", "function d::f" */
  Onnx__OperatorSetIdProto **opsets;
  size_t n_opsets;
  GHashTable *functions;             /* "domain\nname" of the model's local functions */
  OnyxKnownTypes *types;
  OnyxGraphNamer *namer;             /* names of its subgraphs */
  const Onnx__GraphProto *graph;     /* NULL for a function body */
} OnyxCheckedGraph;

void onyx_diagnose_add (GPtrArray *out, const OnyxCheckedGraph *g, OnyxProblemKind kind,
                        OnyxProblemSeverity severity, const Onnx__NodeProto *node, int index,
                        const char *tensor, const char *format, ...) G_GNUC_PRINTF (8, 9);

/* Checks the node's known input types and the types declared for its outputs, and
 * records what its outputs are (unless `infer` is FALSE). TRUE when an output's
 * inferred type changed. */
gboolean onyx_diagnose_types           (const OnyxCheckedGraph *g, const Onnx__NodeProto *node,
                                        int index, const OnyxSchema *schema,
                                        OnyxProblemSeverity severity, gboolean infer,
                                        GPtrArray *out);
/* Nothing is known of the node's outputs any more. */
void     onyx_diagnose_forget_outputs  (const OnyxCheckedGraph *g, const Onnx__NodeProto *node,
                                        gboolean *changed);
/* ONNX's shape inference errors as problems on their nodes. */
void     onyx_diagnose_shape_errors    (const Onnx__ModelProto *model, OnyxShapes *shapes,
                                        OnyxGraphNamer *namer, GPtrArray *out);
/* What ONNX's inference says of a node our own checks found an error on says the
 * same less precisely: it goes. */
void     onyx_diagnose_drop_repeated_inference (GPtrArray *problems);
/* Dynamic dims whose names differ only in case or separators. */
void     onyx_diagnose_dim_names       (const OnyxCheckedGraph *g, const Onnx__GraphProto *graph,
                                        GPtrArray *out);

/* "domain\nname" of the model's local functions (a set, keys owned). */
GHashTable *onyx_diagnose_local_functions (const Onnx__ModelProto *model);
/* Everything about one node: its operator, slots, attributes and types, and its
 * subgraphs. TRUE when what is known of its outputs' types changed. */
gboolean onyx_diagnose_node            (const OnyxCheckedGraph *g, const Onnx__NodeProto *node,
                                        int index, GPtrArray *out);
void     onyx_diagnose_add_dead        (GPtrArray *out, const OnyxCheckedGraph *g,
                                        const Onnx__NodeProto *node, int index);
/* Which nodes a graph output depends on (g_free the array). */
gboolean *onyx_diagnose_find_live      (Onnx__NodeProto **nodes, size_t n_nodes,
                                        GPtrArray *outputs);

/* Whether a name is read by a node or is a graph output; `data` is the answerer's. */
typedef gboolean (*OnyxIsReadFunc) (gpointer data, const char *name);
/* Initializers, graph inputs and outputs, dim names. */
void     onyx_diagnose_graph_lists     (const OnyxCheckedGraph *g, const Onnx__GraphProto *graph,
                                        OnyxIsReadFunc is_read, gpointer data, GPtrArray *out);
/* Opset imports other than ai.onnx that no node of any graph or function uses
 * (information). */
void     onyx_diagnose_opset_imports   (const Onnx__ModelProto *model, GPtrArray *out);
/* One information per opset import (of the model or a function) and for an IR
 * version newer than the linked ONNX library knows: what its checks cannot judge. */
void     onyx_diagnose_library_limits  (const Onnx__ModelProto *model, GPtrArray *out);
/* One information when the model uses ONNX Runtime's own operators: how many, in how
 * many nodes (a warning per node said the same thing hundreds of times). */
void     onyx_diagnose_onnxruntime     (const Onnx__ModelProto *model, GPtrArray *out);
void     onyx_diagnose_functions       (const Onnx__ModelProto *model, GHashTable *functions,
                                        OnyxGraphNamer *namer, GPtrArray *out);

/* onyx-diagnose-quant.c: the quantization problems of the main graph, appended to
 * `out`; `checks` (may be NULL) counts the checks made. */
void     onyx_diagnose_quant           (const Onnx__ModelProto *model, const char *base_dir,
                                        GPtrArray *out, OnyxQuantChecks *checks);
/* The same from an analysis made already (onyx_quant_of_document's). */
void     onyx_diagnose_quant_of        (OnyxQuant *quant, GPtrArray *out, OnyxQuantChecks *checks);

/* onyx-diagnose-exporters.c: known faults of real exporters. Functions that read an
 * attribute they do not declare (torch 2.2's aten_add and `alpha`): one finding each,
 * pointing to docs/exporter-faults.md. */
void     onyx_diagnose_exporter_faults (const Onnx__ModelProto *model, GPtrArray *out);
/* The errors of ONNX's inference and checker that such a fault explains leave
 * `problems` (freed if the array frees its elements); their text becomes the
 * fault's detail. */
void     onyx_diagnose_fold_explained  (const Onnx__ModelProto *model, GPtrArray *problems);

G_END_DECLS
