/* onyx-edits.h: the repairs a user makes, each one undoable step on an OnyxDocument.
 *
 * Each function checks first and changes nothing when it fails (one clear error);
 * on success it records one command named for the undo menu ("Bypass node FooOp_0").
 * Node edits work on nodes of any graph: the main graph or a subgraph (If, Loop,
 * Scan bodies), whose reads of outer names stay in scope; a subgraph's outputs keep
 * their count. Tensor and graph-input/output edits are of the main graph. */
#pragma once

#include "onyx-document.h"
#include "onyx-error.h"
#include "onyx-replay.h"

G_BEGIN_DECLS

/* "Conv_3" for named nodes, "#3 (Conv)" for anonymous ones; escaped for display. */
char            *onyx_node_describe         (OnyxDocument          *doc,
                                             const Onnx__NodeProto *node);

/* Removes the node; its outputs' consumers are left dangling (validation reports
 * them; nothing is silently rewired). */
gboolean onyx_edit_delete_node          (OnyxDocument *doc, Onnx__NodeProto *node, GError **error);
/* Removes the node and makes the tensor of its input `input` take over its first
 * output: with a producer, the producer now writes the output's name (so graph
 * output names stay); with a graph input or initializer, the consumers read it. */
gboolean onyx_edit_bypass_node          (OnyxDocument *doc, Onnx__NodeProto *node, guint input,
                                         GError **error);
/* The node and everything that depends on it, and the graph outputs they made. */
gboolean onyx_edit_delete_descendants   (OnyxDocument *doc, Onnx__NodeProto *node, GError **error);
/* The node and the nodes and initializers that only it (transitively) reads. */
gboolean onyx_edit_delete_ancestors     (OnyxDocument *doc, Onnx__NodeProto *node, GError **error);
/* Input `input` of the node reads `tensor` (any existing tensor or graph input). */
gboolean onyx_edit_reconnect            (OnyxDocument *doc, Onnx__NodeProto *node, guint input,
                                         const char *tensor, GError **error);
/* Renames a tensor, graph input or output everywhere it is used. */
gboolean onyx_edit_rename_tensor        (OnyxDocument *doc, const char *old_name,
                                         const char *new_name, GError **error);
gboolean onyx_edit_add_output           (OnyxDocument *doc, const char *tensor, GError **error);
gboolean onyx_edit_remove_output        (OnyxDocument *doc, const char *name, GError **error);
gboolean onyx_edit_remove_input         (OnyxDocument *doc, const char *name, GError **error);
/* Sets or adds an attribute from text: "3", "0.5", "same_upper", "[1, 2]",
 * "[0.5, 1.5]", "[\"a\", \"b\"]"; an element type by name ("INT64") where the
 * schema says the attribute is one. An existing attribute keeps its type; a new one
 * takes the type the operator's schema gives it, if any. */
gboolean onyx_edit_set_attribute        (OnyxDocument *doc, Onnx__NodeProto *node,
                                         const char *name, const char *value, GError **error);
gboolean onyx_edit_set_node_name        (OnyxDocument *doc, Onnx__NodeProto *node,
                                         const char *name, GError **error);
/* Dim `axis` of a graph input: a number, a symbolic name such as "N", or "?". */
gboolean onyx_edit_set_input_dim        (OnyxDocument *doc, const char *input, guint axis,
                                         const char *value, GError **error);

/* "OP" or "DOMAIN::OP" into its parts (the ai.onnx domain as ""); an error for
 * empty parts. */
gboolean         onyx_parse_operator        (const char  *text,
                                             char       **domain,
                                             char       **op_type,
                                             GError     **error);
/* The node becomes DOMAIN::OP_TYPE, keeping its name, inputs and outputs. Attributes
 * the new schema does not know are dropped; their names go to *dropped (nullable
 * out; a NULL-terminated strv, g_strfreev). An error when the node has more inputs
 * or outputs than the new schema allows, or fewer than it requires. A domain with no
 * schema (custom ops) keeps every attribute. Imports the domain's opset when the
 * model lacks it (custom domain: version 1). */
gboolean         onyx_edit_replace_operator (OnyxDocument     *doc,
                                             Onnx__NodeProto  *node,
                                             const char       *domain,
                                             const char       *op_type,
                                             char           ***dropped,
                                             GError          **error);
/* A new DOMAIN::OP_TYPE node reads TENSOR (then extra_inputs, NULL-terminated,
 * nullable, "" for an omitted optional input) and every former consumer of TENSOR
 * reads the new node's output instead. If TENSOR is a graph output, the graph output
 * keeps its name: the producer's output is renamed to the derived name and the new
 * node writes TENSOR's name. The new node gets a unique name ("<TENSOR>/<OP>" made
 * unique) and its output a unique derived name ("<NODE>_output"); it is placed right
 * after TENSOR's producer (or first, for a graph input / initializer), and after the
 * producers of extra_inputs, so the graph stays topologically sorted. Outputs: as
 * many as the schema's required outputs (at least 1). Returns the new node (owned by
 * the document), NULL on error. TENSOR may be of a subgraph. */
Onnx__NodeProto *onyx_edit_insert_node      (OnyxDocument       *doc,
                                             const char         *tensor,
                                             const char         *domain,
                                             const char         *op_type,
                                             const char *const  *extra_inputs,
                                             GError            **error);

/* Removes nodes and initializers no graph output depends on (subgraphs too), and
 * opset imports no node uses any more (but ai.onnx's). Graph inputs stay. */
gboolean onyx_edit_cleanup              (OnyxDocument *doc, GError **error);
/* Records what ONNX's shape inference knows (onyx-shapes.h) as value_info of every
 * graph, and as the type of graph outputs that have none; *n_written (nullable)
 * counts what was added. Refused while a graph's nodes are out of order (inference
 * reads them in file order, so it would miss what an early node reads). */
gboolean onyx_edit_infer_shapes         (OnyxDocument *doc, guint *n_written, GError **error);
/* Converts the model to opset `target` of ai.onnx with ONNX's version converter
 * (onyx-onnx.h): nodes it changes are replaced, the others kept as they are. */
gboolean onyx_edit_convert_opset        (OnyxDocument *doc, int target, GError **error);
/* The same in three steps, for a caller that runs the slow part in a thread of its
 * own (the app's jobs): made on the document's thread (what can be refused at once
 * is), prepared in any thread while the document is frozen (the converter runs),
 * applied on the document's thread as one command. */
typedef struct _OnyxConversion OnyxConversion;
OnyxConversion *onyx_conversion_new     (OnyxDocument   *doc,
                                         int             target,
                                         GError        **error);
gboolean        onyx_conversion_prepare (OnyxConversion *conversion,
                                         GError        **error);
void            onyx_conversion_apply   (OnyxConversion *conversion);
void            onyx_conversion_free    (OnyxConversion *conversion);
/* Orders the main graph topologically, keeping the current order where it can. */
gboolean onyx_edit_toposort             (OnyxDocument *doc, GError **error);
/* Replaces every call of a model-local function (main graph and subgraphs) by the
 * function's body, recursively, and removes the functions. Body names get fresh ones
 * unique in the model under the call's name ("CALL/inner"); attribute references take
 * the call's value or the function's default, else are left unset; the functions'
 * opset imports join the model's. An error, changing nothing, when the model has no
 * local functions, a function calls itself, or an import's version conflicts. */
gboolean onyx_edit_inline_functions     (OnyxDocument *doc, GError **error);

/* The replay steps of each edit file (onyx-replay.h), NULL-ended; onyx_edit_replay
 * (onyx-steps.h) reads entries with them. */
extern const OnyxReplayStep *const onyx_edits_replay_steps[];          /* onyx-edits.c */
extern const OnyxReplayStep *const onyx_edits_tensors_replay_steps[];  /* onyx-edits-tensors.c */
extern const OnyxReplayStep *const onyx_edits_repair_replay_steps[];   /* onyx-edits-repair.c */
extern const OnyxReplayStep *const onyx_cleanup_replay_steps[];        /* onyx-cleanup.c */
extern const OnyxReplayStep *const onyx_inline_replay_steps[];         /* onyx-inline.c */
extern const OnyxReplayStep *const onyx_convert_replay_steps[];        /* onyx-convert.c */

G_END_DECLS
