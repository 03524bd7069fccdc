/* onyx-document-private.h: recording primitive changes into an OnyxDocument's
 * commands, for the edit modules (onyx-edits.c, onyx-cleanup.c) and tests that
 * break a model on purpose. Nothing else changes a document but through them. */
#pragma once

#include "onyx-document.h"

G_BEGIN_DECLS

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
/* A run of items at `position`, as one change (thousands of value_info at once);
 * takes ownership of the items, not of the array. Not for nodes. */
void onyx_document_insert_items     (OnyxDocument            *self,
                                     ProtobufCMessage        *owner,
                                     const char              *field_name,
                                     gsize                    position,
                                     ProtobufCMessage *const *items,
                                     gsize                    n_items);

/* `k` may be the node's input count: the slot is added (an optional input given, a
 * Conv's bias), and undo takes it away again. */
void onyx_document_set_node_input   (OnyxDocument *self, Onnx__NodeProto *node,
                                     guint k, const char *name);
void onyx_document_set_node_output  (OnyxDocument *self, Onnx__NodeProto *node,
                                     guint k, const char *name);
void onyx_document_set_node_name    (OnyxDocument *self, Onnx__NodeProto *node,
                                     const char *name);
/* A string field of a node: "op_type", "domain". */
void onyx_document_set_node_field   (OnyxDocument *self, Onnx__NodeProto *node,
                                     const char *field_name, const char *text);
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

/* Inside a group: a point of the recording to go back to (a pass of Simplify whose
 * result is refused), and going back to it, undoing what was recorded after it,
 * replay entries included. */
typedef struct {
  guint n_ops;
  guint n_replay;
} OnyxGroupMark;
OnyxGroupMark onyx_document_group_mark   (OnyxDocument *self);
void          onyx_document_group_rewind (OnyxDocument *self, OnyxGroupMark mark);
/* Drops the replay entries recorded since `mark`, keeping the changes: an edit made
 * of other edits notes one entry of its own instead. */
void          onyx_document_group_drop_replay (OnyxDocument *self, OnyxGroupMark mark);

/* Many changes of one subgraph in a row (a pass of Simplify over a branch): the nodes
 * holding it leave their indexes once, before the first, and come back once, after
 * the last — rather than at each change, which walks the whole subgraph to find
 * what it reads from outside. Meanwhile the graphs around do not count the
 * subgraph's reads as uses (what the subgraph's own index says is exact). Returns
 * what to hand to onyx_document_end_subgraph_batch. */
GPtrArray *onyx_document_begin_subgraph_batch (OnyxDocument     *self,
                                               Onnx__GraphProto *graph);
void       onyx_document_end_subgraph_batch   (OnyxDocument     *self,
                                               GPtrArray        *taken);

/* A command is being recorded (between begin and commit or abort). */
gboolean onyx_document_is_recording (OnyxDocument *self);

/* Records how to redo the current edit from the saved file: `entry` (taken) is a
 * step's name and its arguments, NULL-terminated (onyx-replay.h). */
void onyx_document_note_replay      (OnyxDocument *self, char **entry);

G_END_DECLS
