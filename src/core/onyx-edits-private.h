/* onyx-edits-private.h: pieces shared by the edit files (onyx-edits.c, onyx-edits-repair.c,
 * onyx-cleanup.c). */
#pragma once

#include "onyx-document-private.h"
#include "onyx-edits.h"

G_BEGIN_DECLS

gboolean          onyx_edit_fail          (GError       **error,
                                           OnyxEditError  code,
                                           const char    *format,
                                           ...) G_GNUC_PRINTF (3, 4);
Onnx__GraphProto *onyx_edit_main_graph    (OnyxDocument  *doc);
/* The graph a node is in (the main graph or a subgraph), and its index. */
Onnx__GraphProto *onyx_edit_graph_of      (OnyxDocument          *doc,
                                           const Onnx__NodeProto *node);
OnyxGraphIndex   *onyx_edit_index_of      (OnyxDocument          *doc,
                                           const Onnx__NodeProto *node);
/* Whether `name` is defined in `graph` or in a graph around it. */
gboolean          onyx_edit_tensor_in_scope (OnyxDocument     *doc,
                                             Onnx__GraphProto *graph,
                                             const char       *name);
/* The node is in a graph of the model (an error otherwise). */
gboolean          onyx_edit_check_node    (OnyxDocument    *doc,
                                           Onnx__NodeProto *node,
                                           GError         **error);
/* Ends the edit as one undo step; TRUE, so that edits end with `return onyx_edit_commit (doc)`. */
gboolean          onyx_edit_commit        (OnyxDocument *doc);
/* The position of the item named `name` in a list of graph inputs or outputs, or -1. */
gssize            onyx_edit_value_info_position (Onnx__ValueInfoProto **items,
                                                 size_t                 n,
                                                 const char            *name);
/* Records the removal of a node from its graph. */
void              onyx_edit_remove_node   (OnyxDocument    *doc,
                                           Onnx__NodeProto *node);
/* Every reader of `old_name` in `graph` (subgraphs included) reads `new_name`,
 * except `except`. */
void              onyx_edit_redirect_uses (OnyxDocument    *doc,
                                           Onnx__GraphProto *graph,
                                           const char      *old_name,
                                           const char      *new_name,
                                           Onnx__NodeProto *except);

G_END_DECLS
