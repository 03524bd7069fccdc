/* onyx-generate-dialog.h: Run ▸ Generate Tokens…'s question: the prompt's token ids
 * and how many tokens to make (responses "cancel" and "generate"). */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define ONYX_TYPE_GENERATE_DIALOG (onyx_generate_dialog_get_type ())
G_DECLARE_FINAL_TYPE (OnyxGenerateDialog, onyx_generate_dialog, ONYX, GENERATE_DIALOG, AdwMessageDialog)

OnyxGenerateDialog *onyx_generate_dialog_new        (GtkWindow          *parent);
const char         *onyx_generate_dialog_get_prompt (OnyxGenerateDialog *self);
guint               onyx_generate_dialog_get_count  (OnyxGenerateDialog *self);

G_END_DECLS
