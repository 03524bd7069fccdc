/* onyx-generate.h: Run ▸ Generate Tokens… for LLMs with a KV cache, a part of the
 * window: the group of its action ("generate": show, the dialog) and the job. */
#pragma once

#include <gio/gio.h>

#include "onyx-view-state.h"

G_BEGIN_DECLS

#define ONYX_TYPE_GENERATE (onyx_generate_get_type ())
G_DECLARE_FINAL_TYPE (OnyxGenerate, onyx_generate, ONYX, GENERATE, GSimpleActionGroup)

OnyxGenerate *onyx_generate_new   (OnyxViewState *state);
/* Starts generating from the model as it is now, in a job; the user goes on
 * meanwhile and a dialog shows the steps. FALSE (and *error) when the prompt is not
 * token ids. */
gboolean      onyx_generate_start (OnyxGenerate  *self,
                                   const char    *prompt,
                                   guint          n_new,
                                   GError       **error);

G_END_DECLS
