/* onyx-find-bar.h: the search bar (Ctrl+F). Enter selects the next graph input, node
 * (by name or operator) or node output of the graph shown whose name holds the text,
 * ignoring case, cycles round, and brings the match into view readable. Its actions,
 * in the group it gives the window ("find"): show (open it, the entry focused), bar
 * (a toggle: the bar is open). */
#pragma once

#include <adwaita.h>

#include "onyx-view-state.h"

G_BEGIN_DECLS

#define ONYX_TYPE_FIND_BAR (onyx_find_bar_get_type ())
G_DECLARE_FINAL_TYPE (OnyxFindBar, onyx_find_bar, ONYX, FIND_BAR, AdwBin)

void          onyx_find_bar_set_state   (OnyxFindBar   *self,
                                         OnyxViewState *state);
GActionGroup *onyx_find_bar_get_actions (OnyxFindBar   *self);

G_END_DECLS
