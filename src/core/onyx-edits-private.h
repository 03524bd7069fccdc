/* onyx-edits-private.h: pieces shared by the edit files (onyx-edits.c, onyx-cleanup.c). */
#pragma once

#include "onyx-document-private.h"
#include "onyx-edits.h"

G_BEGIN_DECLS

gboolean          onyx_edit_fail          (GError       **error,
                                           OnyxEditError  code,
                                           const char    *format,
                                           ...) G_GNUC_PRINTF (3, 4);
Onnx__GraphProto *onyx_edit_main_graph    (OnyxDocument  *doc);
/* Records the removal of a main-graph node. */
void              onyx_edit_remove_node   (OnyxDocument    *doc,
                                           Onnx__NodeProto *node);
/* Every reader of `old_name` (subgraphs included) reads `new_name`, except `except`. */
void              onyx_edit_redirect_uses (OnyxDocument    *doc,
                                           const char      *old_name,
                                           const char      *new_name,
                                           Onnx__NodeProto *except);

G_END_DECLS
