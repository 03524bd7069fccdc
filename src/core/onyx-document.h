/* onyx-document.h: a model being edited — the model, the index of its main graph,
 * and the undo stack.
 *
 * Every change goes through a command: a named list of primitive changes, each of
 * which knows how to undo itself. The GUI and the CLI edit only through the edit
 * functions of onyx-edits.h, which record commands here. */
#pragma once

#include <glib-object.h>

#include "onyx-graph-index.h"
#include "onyx-model.h"

G_BEGIN_DECLS

#define ONYX_TYPE_DOCUMENT (onyx_document_get_type ())
G_DECLARE_FINAL_TYPE (OnyxDocument, onyx_document, ONYX, DOCUMENT, GObject)

/* Signals: "changed" after every do, undo and redo (and after saving, when the
 * modified state changes). */

OnyxDocument     *onyx_document_new            (OnyxModel    *model);
OnyxModel        *onyx_document_get_model      (OnyxDocument *self);
Onnx__ModelProto *onyx_document_get_proto      (OnyxDocument *self);
OnyxGraphIndex   *onyx_document_get_index      (OnyxDocument *self);

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

/* Unmodified again after undoing back to the last save. */
gboolean          onyx_document_is_modified    (OnyxDocument *self);
void              onyx_document_mark_saved     (OnyxDocument *self);

/* Saves atomically, leaving out value_info of tensors that no longer exist, and
 * marks the document saved. The in-memory model is not changed. */
gboolean          onyx_document_save           (OnyxDocument *self,
                                                const char   *path,
                                                GError      **error);
/* The bytes onyx_document_save would write. */
GBytes           *onyx_document_serialize      (OnyxDocument *self);

/* ---- Recording primitive changes (for onyx-edits.c and onyx-cleanup.c) ---- */

/* Starts a command; every primitive below is applied at once and recorded into it. */
void onyx_document_begin_command    (OnyxDocument *self, const char *label);
/* Pushes the command on the undo stack (drops the redo branch); an empty command
 * is discarded. */
void onyx_document_commit_command   (OnyxDocument *self);
/* Undoes what was recorded since begin and discards it (an edit found a problem
 * half way). */
void onyx_document_abort_command    (OnyxDocument *self);

/* Removes / inserts an element of a repeated message field (nodes of any graph,
 * graph inputs/outputs/initializers/value_info, opset imports, attributes).
 * `owner` is the message holding the field; `field_name` its proto name. */
void onyx_document_remove_item      (OnyxDocument     *self,
                                     ProtobufCMessage *owner,
                                     const char       *field_name,
                                     gsize             position);
/* Takes ownership of `item`. */
void onyx_document_insert_item      (OnyxDocument     *self,
                                     ProtobufCMessage *owner,
                                     const char       *field_name,
                                     gsize             position,
                                     ProtobufCMessage *item);

void onyx_document_set_node_input   (OnyxDocument *self, Onnx__NodeProto *node,
                                     guint k, const char *name);
void onyx_document_set_node_output  (OnyxDocument *self, Onnx__NodeProto *node,
                                     guint k, const char *name);
void onyx_document_set_node_name    (OnyxDocument *self, Onnx__NodeProto *node,
                                     const char *name);
/* The name of a graph input/output/value_info (ValueInfoProto) or initializer
 * (TensorProto). */
void onyx_document_set_message_name (OnyxDocument *self, ProtobufCMessage *message,
                                     const char *name);
/* Replaces a ValueInfoProto's type; takes ownership of `type` (may be NULL). */
void onyx_document_set_value_type   (OnyxDocument *self, Onnx__ValueInfoProto *info,
                                     Onnx__TypeProto *type);
/* Reorders graph->node; `order` holds the same pointers in the new order. */
void onyx_document_set_node_order   (OnyxDocument *self, Onnx__GraphProto *graph,
                                     Onnx__NodeProto **order);

/* Takes a main-graph node out of the index (add FALSE) or puts it back (TRUE), for
 * changes inside its subgraphs, which change what it reads from outside. */
void onyx_document_index_node       (OnyxDocument *self, Onnx__NodeProto *node,
                                     gboolean add);

/* Records how to redo the current edit from the saved file (onyx_replay_apply's
 * entries: a step name and its arguments, NULL-terminated). */
void onyx_document_note_replay      (OnyxDocument *self, const char *step, ...) G_GNUC_NULL_TERMINATED;
/* The replay entries (GStrv, borrowed) of every applied step, oldest first: applied
 * to the saved file they give the current model (a crash journal). */
GPtrArray *onyx_document_get_replay (OnyxDocument *self);

G_END_DECLS
