/* onyx-recent.h: recently opened and saved models, a part of the window: the empty
 * page lists them (`list`, in `group`, hidden when there are none), and the main
 * menu's Open Recent (`menu`); each opens with file.open-recent. Models are added
 * as the view state opens or saves them, and to the desktop's recent files. */
#pragma once

#include <gtk/gtk.h>

#include "onyx-view-state.h"

G_BEGIN_DECLS

#define ONYX_TYPE_RECENT (onyx_recent_get_type ())
G_DECLARE_FINAL_TYPE (OnyxRecent, onyx_recent, ONYX, RECENT, GObject)

OnyxRecent *onyx_recent_new (OnyxViewState *state,
                             GtkWidget     *group,
                             GtkListBox    *list,
                             GMenu         *menu);

G_END_DECLS
