/* onyx-run-settings.h: the dialog of how Run makes the inputs nobody gave (values
 * random in a range from a seed, zeros or ones) and the size of each symbolic
 * dimension of the graph's inputs (default 1). Run runs with them. */
#pragma once

#include <adwaita.h>

#include "onyx-run.h"

G_BEGIN_DECLS

#define ONYX_TYPE_RUN_SETTINGS (onyx_run_settings_get_type ())
G_DECLARE_FINAL_TYPE (OnyxRunSettings, onyx_run_settings, ONYX, RUN_SETTINGS, AdwWindow)

/* Signal "run": the Run button; the settings are read with _get_inputs. */

/* For the inputs of `model`, starting from `current` (dims not in it as Onyx chooses
 * them: 1, or a KV cache's lengths), with what Onyx makes of each input. */
OnyxRunSettings *onyx_run_settings_new        (GtkWindow              *parent,
                                               OnyxModel              *model,
                                               const OnyxRunInputs    *current);
/* What the dialog says now; `inputs->dims` is a new table, the caller's. */
void             onyx_run_settings_get_inputs (OnyxRunSettings        *self,
                                               OnyxRunInputs          *inputs);

G_END_DECLS
