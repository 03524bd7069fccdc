/* onyx-editor-private.h: what the editor's files share. */
#pragma once

#include "onyx-editor.h"

G_BEGIN_DECLS

struct _OnyxEditor {
  GSimpleActionGroup parent_instance;

  OnyxViewState *state;
};

/* onyx-editor-repair.c: Replace Operator…, Insert Node After…, Extract to New
 * Model…, which take a dialog. */
void onyx_editor_add_repair_actions (OnyxEditor *self);

G_END_DECLS
