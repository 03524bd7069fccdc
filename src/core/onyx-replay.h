/* onyx-replay.h: the replay entries an edit records (onyx_document_get_replay), which
 * the crash journal keeps and applies again to the saved file. This file and
 * onyx-replay.c own the format, writing and reading: each recorded step has its
 * writer here, next to its reader.
 *
 * An entry is a GStrv: the step's name, then its arguments kept apart, so that any
 * name round-trips ({ "reconnect", "#3", "0", "x", NULL }). A node is named by its
 * position before the edit: "#12" in the main graph, "GRAPH#12" in a subgraph. */
#pragma once

#include "onyx-document.h"

G_BEGIN_DECLS

/* Called right after onyx_document_begin_command, before the edit changes anything
 * (node positions are those before it). */
void     onyx_replay_note_bypass       (OnyxDocument *doc, Onnx__NodeProto *node, guint input);
void     onyx_replay_note_delete       (OnyxDocument *doc, Onnx__NodeProto *node);
void     onyx_replay_note_delete_tree  (OnyxDocument *doc, Onnx__NodeProto *node);
void     onyx_replay_note_delete_ancestors (OnyxDocument *doc, Onnx__NodeProto *node);
void     onyx_replay_note_reconnect    (OnyxDocument *doc, Onnx__NodeProto *node, guint input,
                                        const char *tensor);
void     onyx_replay_note_set_name     (OnyxDocument *doc, Onnx__NodeProto *node, const char *name);
void     onyx_replay_note_set_attr     (OnyxDocument *doc, Onnx__NodeProto *node, const char *name,
                                        const char *value);
void     onyx_replay_note_replace      (OnyxDocument *doc, Onnx__NodeProto *node, const char *domain,
                                        const char *op_type);
void     onyx_replay_note_insert       (OnyxDocument *doc, const char *tensor, const char *domain,
                                        const char *op_type, const char *const *extra_inputs);
void     onyx_replay_note_rename       (OnyxDocument *doc, const char *old_name, const char *new_name);
void     onyx_replay_note_add_output   (OnyxDocument *doc, const char *tensor);
void     onyx_replay_note_remove_output (OnyxDocument *doc, const char *name);
void     onyx_replay_note_remove_input (OnyxDocument *doc, const char *name);
void     onyx_replay_note_set_dim      (OnyxDocument *doc, const char *input, guint axis, const char *value);
void     onyx_replay_note_cleanup      (OnyxDocument *doc);
void     onyx_replay_note_toposort     (OnyxDocument *doc);
void     onyx_replay_note_inline_functions (OnyxDocument *doc);
void     onyx_replay_note_infer_shapes (OnyxDocument *doc);
void     onyx_replay_note_convert_opset (OnyxDocument *doc, int target);

/* Applies one entry: the same edit, as one undo step. An entry this build does not
 * read (an unknown step, a wrong count of arguments) is an error. */
gboolean onyx_replay_apply             (OnyxDocument       *doc,
                                        const char *const  *entry,
                                        GError            **error);

G_END_DECLS
