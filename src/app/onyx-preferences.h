/* onyx-preferences.h: the preferences window. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define ONYX_TYPE_PREFERENCES (onyx_preferences_get_type ())
G_DECLARE_FINAL_TYPE (OnyxPreferences, onyx_preferences, ONYX, PREFERENCES, AdwPreferencesWindow)

GtkWidget *onyx_preferences_new (GtkWindow *parent);

G_END_DECLS
