/* onyx-convert-dialog.h: Convert Opset…, a part of the window: the dialog asking for
 * the ai.onnx opset to convert the model to, and the conversion, made by ONNX's
 * converter in a job (the document frozen) and applied as one undo step. Its group
 * ("convert") has one action: show. */
#pragma once

#include <adwaita.h>

#include "onyx-view-state.h"

G_BEGIN_DECLS

#define ONYX_TYPE_CONVERT_DIALOG (onyx_convert_dialog_get_type ())
G_DECLARE_FINAL_TYPE (OnyxConvertDialog, onyx_convert_dialog, ONYX, CONVERT_DIALOG, AdwMessageDialog)

/* The group of the part: "show" opens the dialog on the state's document, enabled
 * while it can be edited. */
GActionGroup *onyx_convert_dialog_actions_new (OnyxViewState *state);

G_END_DECLS
