/* onyx-document.h: a model being edited — the model, an index per graph,
 * and the undo stack.
 *
 * Every change goes through a command: a named list of primitive changes, each of
 * which knows how to undo itself. The GUI and the CLI edit only through the edit
 * functions of onyx-edits.h, which record commands here. */
#pragma once

#include <gio/gio.h>
#include <glib-object.h>

#include "onyx-graph-index.h"
#include "onyx-model.h"

G_BEGIN_DECLS

#define ONYX_TYPE_DOCUMENT (onyx_document_get_type ())
G_DECLARE_FINAL_TYPE (OnyxDocument, onyx_document, ONYX, DOCUMENT, GObject)

/* What one do, undo or redo changed: the same for a step and for its undo. */
typedef struct {
  /* The graph `nodes` belong to: the main graph. An edit inside a subgraph reports
   * the main-graph node that holds it (through any depth). */
  Onnx__GraphProto *graph;
  /* Onnx__NodeProto*, each once: nodes added or removed, and nodes whose inputs,
   * outputs, name or attributes changed. A removed node stays readable while its
   * step is on the undo stack. */
  GPtrArray *nodes;
  /* Something no node list describes changed too: graph inputs, outputs,
   * initializers or value_info, the node order, opset imports, functions, or
   * subgraph contents outside any recorded node. Whatever depends on the whole model
   * is to be worked out again. */
  gboolean whole_model;
  /* Onnx__GraphProto*, each once: the graphs whose nodes or lists changed, and the
   * graphs around them (what their nodes read from outside may have changed). */
  GPtrArray *graphs;
} OnyxChange;

#define ONYX_TYPE_CHANGE (onyx_change_get_type ())
GType onyx_change_get_type (void) G_GNUC_CONST;

/* Signals:
 * "changed" (OnyxDocument *document, const OnyxChange *change, gpointer data) after
 * every do, undo and redo, with what it touched (ONYX_TYPE_CHANGE, a boxed type); and
 * with change NULL when only the modified state changed (saving). Handlers that read
 * an OnyxProblemList of the document are to be connected after it was made: it
 * follows the same signal.
 *
 * Properties (read-only, notified when they move): "revision" (guint64), "modified",
 * "frozen" (a thread reads the model: no edit until it is thawed), "can-undo",
 * "can-redo" (gboolean), "undo-label", "redo-label" (string, NULL when none); notified
 * after "changed". */

OnyxDocument     *onyx_document_new            (OnyxModel    *model);
OnyxModel        *onyx_document_get_model      (OnyxDocument *self);
Onnx__ModelProto *onyx_document_get_proto      (OnyxDocument *self);
/* Grows with every change to the model, undo and redo included. */
guint64           onyx_document_get_revision   (OnyxDocument *self);
/* The main graph's index. */
OnyxGraphIndex   *onyx_document_get_index      (OnyxDocument *self);
/* Something made from the model as it was at `revision` (its shapes, its whole-model
 * validation; often in a thread, the document frozen meanwhile), kept under `key`
 * (a static string) in place of the previous one: FALSE, and `data` destroyed, when
 * the document has changed since. */
gboolean          onyx_document_keep_derived   (OnyxDocument   *self,
                                                const char     *key,
                                                guint64         revision,
                                                gpointer        data,
                                                GDestroyNotify  destroy);
/* What was kept under `key` for the current revision, or NULL (not made yet, or the
 * document changed since). Borrowed: valid until the document changes. */
gpointer          onyx_document_get_derived    (OnyxDocument   *self,
                                                const char     *key);
/* The index of any graph of the model (a subgraph's is built when first asked for
 * and kept up to date from then on). A subgraph's reads of outer names count as
 * uses of the node holding it in the graph around it. */
OnyxGraphIndex   *onyx_document_get_graph_index (OnyxDocument     *self,
                                                 Onnx__GraphProto *graph);
/* The graph a node is in (or was last in, for a removed node), or NULL. */
Onnx__GraphProto *onyx_document_graph_of_node  (OnyxDocument          *self,
                                                const Onnx__NodeProto *node);
/* The node whose attribute holds a subgraph, NULL for the main graph. */
Onnx__NodeProto  *onyx_document_graph_owner    (OnyxDocument           *self,
                                                const Onnx__GraphProto *graph);
/* Whether the node is in the model now: in the main graph, or in a subgraph held
 * (at any depth) by a node of the main graph. */
gboolean          onyx_document_contains_node  (OnyxDocument    *self,
                                                Onnx__NodeProto *node);
/* The node of the model (main graph or any subgraph) named `name` when exactly one
 * is; `n_named` (may be NULL) gets how many are. */
Onnx__NodeProto  *onyx_document_find_named_node (OnyxDocument *self,
                                                 const char   *name,
                                                 guint        *n_named);
/* A node anywhere in the model by its name (unique in the model), or by position:
 * "#N" in the main graph, "GRAPH#N" in another (onyx-graph-names.h); an error
 * (ONYX_EDIT_ERROR) names what is there when it is not found or not unique. */
Onnx__NodeProto  *onyx_document_find_node      (OnyxDocument *self,
                                                const char   *reference,
                                                GError      **error);
/* `graph` and every graph around it up to the main graph, appended (borrowed). */
void              onyx_document_graph_lineage  (OnyxDocument     *self,
                                                Onnx__GraphProto *graph,
                                                GPtrArray        *graphs);

gboolean          onyx_document_can_undo       (OnyxDocument *self);
gboolean          onyx_document_can_redo       (OnyxDocument *self);
/* "Delete node Conv_3", or NULL when there is nothing to undo/redo. */
const char       *onyx_document_get_undo_label (OnyxDocument *self);
const char       *onyx_document_get_redo_label (OnyxDocument *self);
gboolean          onyx_document_undo           (OnyxDocument *self);
gboolean          onyx_document_redo           (OnyxDocument *self);
guint             onyx_document_get_n_undo     (OnyxDocument *self);

/* Commands recorded between begin and end become one undo step named `label`.
 * Groups nest; the outermost label wins. */
void              onyx_document_begin_group    (OnyxDocument *self,
                                                const char   *label);
void              onyx_document_end_group      (OnyxDocument *self);
/* Ends the outermost group undoing all it recorded: an edit made of several steps
 * failed half way and leaves the model as it was, with no undo step. */
void              onyx_document_abort_group    (OnyxDocument *self);

/* The replay entries (GStrv, borrowed) of every applied step, oldest first: applied
 * to the saved file they give the current model (a crash journal). */
GPtrArray        *onyx_document_get_replay     (OnyxDocument *self);

/* Unmodified again after undoing back to the last save. */
gboolean          onyx_document_is_modified    (OnyxDocument *self);
void              onyx_document_mark_saved     (OnyxDocument *self);

/* Saves atomically, leaving out value_info of tensors that no longer exist, and
 * marks the document saved. The in-memory model is not changed. */
gboolean          onyx_document_save           (OnyxDocument *self,
                                                const char   *path,
                                                GError      **error);
/* The same in a thread: the document is frozen (no edit, undo or redo) until the
 * callback, which runs on the caller's main context; `_finish` marks it saved.
 * `progress` (or NULL) follows the external data copied into another folder, called
 * on the caller's main context too, at most once a percent. */
void              onyx_document_save_async     (OnyxDocument        *self,
                                                const char          *path,
                                                OnyxProgressFunc     progress,
                                                gpointer             progress_data,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data);
gboolean          onyx_document_save_finish    (OnyxDocument  *self,
                                                GAsyncResult  *result,
                                                GError       **error);
/* While other threads read the model: a command begun, an undo or a redo meanwhile
 * is a programming error (a critical), not a change. Counted: each freeze is thawed
 * once, on the thread that froze it, when the reader is done. */
void              onyx_document_freeze         (OnyxDocument *self);
void              onyx_document_thaw           (OnyxDocument *self);
/* The same in three steps, for a caller that writes in a thread of its own: begun on
 * the document's thread (it is frozen from then on), written in any thread (with
 * the progress of external data copied into another folder, called in that thread;
 * may be NULL), and finished on the document's thread, which thaws it, marks it
 * saved when it was written, and frees `saving`. */
typedef struct _OnyxSaving OnyxSaving;
OnyxSaving       *onyx_document_begin_save     (OnyxDocument      *self,
                                                const char        *path);
gboolean          onyx_saving_write            (OnyxSaving        *saving,
                                                OnyxProgressFunc   progress,
                                                gpointer           progress_data,
                                                GError           **error);
void              onyx_saving_finish           (OnyxSaving        *saving,
                                                gboolean           written);
/* Threads read the model (onyx_document_freeze): edits must wait. */
gboolean          onyx_document_is_frozen      (OnyxDocument *self);
/* The bytes onyx_document_save would write. */
GBytes           *onyx_document_serialize      (OnyxDocument *self);

G_END_DECLS
