/* onyx-problem-list.h: the problems of a document's model, kept up to date edit by
 * edit (the checks that find them are onyx-diagnose.h's). */
#pragma once

#include "onyx-diagnose.h"
#include "onyx-document.h"

G_BEGIN_DECLS

/* Problems of an OnyxDocument's model kept up to date edit by edit: it follows the
 * document's "changed" signal itself, on do, undo and redo.
 *
 * The checks of one node (schema, attributes, types of its inputs and outputs) are
 * kept per node; after a step, the neighbourhood of each node the step touched
 * (OnyxChange) is checked again: the node itself if it is still in the graph, the
 * nodes producing or reading the tensors it touches, and, as far as they change, the
 * element types known downstream and which nodes still reach a graph output
 * upstream. The graph-wide lists (validation, initializers, graph inputs/outputs)
 * are re-run once per step, when the problems are next asked for; they only hash
 * names. A step that changed the whole
 * model (graph inputs, outputs, initializers, order, opsets) is checked in full. */
typedef struct _OnyxProblemList OnyxProblemList;

OnyxProblemList *onyx_problem_list_new          (OnyxDocument    *document);
void             onyx_problem_list_free         (OnyxProblemList *self);
/* The current problems, ordered as onyx_diagnose_model() orders them; node_index
 * fields are current. Borrowed: valid until the document changes next. */
GPtrArray       *onyx_problem_list_get (OnyxProblemList *self);
/* The two whole-model checks, shape inference and validation (onyx_validate_model),
 * wait for the document's snapshot to be made elsewhere (the app makes both in a
 * thread, onyx_document_offer_shapes and onyx_document_offer_validation): after each
 * step their problems are left out until onyx_problem_list_update_whole_model is
 * called with them ready. By default a step runs both at once. */
void             onyx_problem_list_set_whole_model_later (OnyxProblemList *self,
                                                         gboolean         later);
/* The whole-model problems from the document's snapshot, as far as it is made. */
void             onyx_problem_list_update_whole_model (OnyxProblemList *self);
/* Keeps `validation` (taken: onyx_validate_model of the document's model at
 * `revision`, made in a thread while the document was frozen) for the document's
 * diagnostics: FALSE, and nothing kept, when the document has changed since. */
gboolean         onyx_document_offer_validation (OnyxDocument *document,
                                                 GPtrArray    *validation,
                                                 guint64       revision);
/* The validation kept for the document's current revision, or NULL: never validates.
 * Borrowed: valid until the document changes. */
GPtrArray       *onyx_document_peek_validation  (OnyxDocument *document);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxProblemList, onyx_problem_list_free)

G_END_DECLS
