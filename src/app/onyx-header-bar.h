/* onyx-header-bar.h: the window's header bar, a part of the window: the model's name
 * (a dot when it has unsaved changes) and folder, Open and Save, Undo and Redo
 * naming the step (in their tooltips and in the main menu), the path to the graph
 * shown, the Problems button, the spinner of background jobs naming them, Find, and
 * the main menu. Property "title": what the window's title says. */
#pragma once

#include <adwaita.h>

#include "onyx-view-state.h"

G_BEGIN_DECLS

#define ONYX_TYPE_HEADER_BAR (onyx_header_bar_get_type ())
G_DECLARE_FINAL_TYPE (OnyxHeaderBar, onyx_header_bar, ONYX, HEADER_BAR, AdwBin)

void        onyx_header_bar_set_state       (OnyxHeaderBar *self,
                                             OnyxViewState *state);
const char *onyx_header_bar_get_title       (OnyxHeaderBar *self);
/* The main menu's Open Recent section, for the recent models to fill. */
GMenu      *onyx_header_bar_get_recent_menu (OnyxHeaderBar *self);

G_END_DECLS
