/* onyx-diagnose.h: what is wrong with an exported model, found without the user
 * knowing what to look for.
 *
 * On top of onyx_validate_model()'s checks (dangling inputs, cycles, order, duplicate
 * names, missing opset imports) this reads the operator schemas (onyx-schema.h):
 * custom operators, operators not in the imported opset, input/output counts,
 * unknown, mistyped and missing attributes, element types against the schemas' type
 * constraints; and the graph's uses: unused initializers, initializers also listed as
 * inputs, nodes that reach no graph output, graph inputs/outputs without shape, and
 * dynamic dims whose names differ only in case or separators; and the errors of
 * ONNX's own shape inference (onyx-shapes.h) on their node.
 *
 * Findings are OnyxProblems (onyx-validate.h): severity, one-line message, graph,
 * node (name, index and pointer) and tensor. */
#pragma once

#include <glib.h>

#include "onyx-document.h"
#include "onyx-dim-params.h"
#include "onyx-validate.h"

G_BEGIN_DECLS

/* Every finding of the model, its subgraphs and functions: validation problems first,
 * then the others in graph order. The array frees its elements. */
GPtrArray *onyx_diagnose_model    (const Onnx__ModelProto *model);

/* The same with what onnx.checker.check_model(full_check=True) adds: the checker's
 * first finding (it stops there), and the strict shape inference in place of the
 * lenient one. */
GPtrArray *onyx_diagnose_model_full (const Onnx__ModelProto *model);


/* Findings of an OnyxDocument's model kept up to date edit by edit: it follows the
 * document's "changed" signal itself, on do, undo and redo.
 *
 * The checks of one node (schema, attributes, types of its inputs and outputs) are
 * kept per node; after a step, the neighbourhood of each node the step touched
 * (OnyxChange) is checked again: the node itself if it is still in the graph, the
 * nodes producing or reading the tensors it touches, and, as far as they change, the
 * element types known downstream and which nodes still reach a graph output
 * upstream. The graph-wide lists (validation, initializers, graph inputs/outputs)
 * are re-run once per step, when the findings are next asked for; they only hash
 * names. A step that changed the whole
 * model (graph inputs, outputs, initializers, order, opsets) is checked in full. */
typedef struct _OnyxDiagnostics OnyxDiagnostics;

OnyxDiagnostics *onyx_diagnostics_new          (OnyxDocument    *document);
void             onyx_diagnostics_free         (OnyxDiagnostics *self);
/* The current findings, ordered as onyx_diagnose_model() orders them; node_index
 * fields are current. Borrowed: valid until the document changes next. */
GPtrArray       *onyx_diagnostics_get_problems (OnyxDiagnostics *self);
/* The two whole-model checks, shape inference and validation (onyx_validate_model),
 * wait for the document's snapshot to be made elsewhere (the app makes both in a
 * thread, onyx_document_offer_shapes and onyx_document_offer_validation): after each
 * step their findings are left out until onyx_diagnostics_update_whole_model is
 * called with them ready. By default a step runs both at once. */
void             onyx_diagnostics_set_whole_model_later (OnyxDiagnostics *self,
                                                         gboolean         later);
/* The whole-model findings from the document's snapshot, as far as it is made. */
void             onyx_diagnostics_update_whole_model (OnyxDiagnostics *self);
/* Keeps `validation` (taken: onyx_validate_model of the document's model at
 * `revision`, made in a thread while the document was frozen) for the document's
 * diagnostics: FALSE, and nothing kept, when the document has changed since. */
gboolean         onyx_document_offer_validation (OnyxDocument *document,
                                                 GPtrArray    *validation,
                                                 guint64       revision);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxDiagnostics, onyx_diagnostics_free)

G_END_DECLS
