/* onyx-problems-button.h: the header bar's Problems button: the count of errors and
 * warnings of the model shown, an icon of the worst, and a tooltip naming both; it
 * shows and hides the Problems list (problems.show). */
#pragma once

#include <gtk/gtk.h>

#include "onyx-view-state.h"

G_BEGIN_DECLS

#define ONYX_TYPE_PROBLEMS_BUTTON (onyx_problems_button_get_type ())
G_DECLARE_FINAL_TYPE (OnyxProblemsButton, onyx_problems_button, ONYX, PROBLEMS_BUTTON, GtkToggleButton)

void onyx_problems_button_set_state (OnyxProblemsButton *self,
                                     OnyxViewState      *state);

G_END_DECLS
