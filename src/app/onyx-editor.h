/* onyx-editor.h: the repairs, a part of the window. Every edit goes through a core
 * command (onyx-edits.h), which records one undo step; the view state says when the
 * model can be edited and what is selected. Its actions, in the group it gives the
 * window ("edit"): undo, redo; of the selected node bypass-node, delete-node,
 * delete-descendants, rename-node (s: the new name), set-attribute ((ss): an
 * attribute and its value), reconnect-input ((us): an input slot and the tensor it
 * reads), replace-operator; of the main graph's tensors rename-tensor ((ss)),
 * set-input-dim ((sus): an input, a dimension and its value), add-output (s),
 * remove-output (s); insert-node-after (s: a tensor, "" the one selected),
 * extract-model; of the whole model cleanup, toposort, inline-functions. */
#pragma once

#include <gio/gio.h>

#include "onyx-view-state.h"

G_BEGIN_DECLS

#define ONYX_TYPE_EDITOR (onyx_editor_get_type ())
G_DECLARE_FINAL_TYPE (OnyxEditor, onyx_editor, ONYX, EDITOR, GSimpleActionGroup)

OnyxEditor *onyx_editor_new (OnyxViewState *state);

G_END_DECLS
