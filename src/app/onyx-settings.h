/* onyx-settings.h: the app's GSettings. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Every GSettings of the app comes from here: they share one schema and backend, so
 * that a change made in one (the preferences) reaches the others. */
GSettings *onyx_settings_new (void);

G_END_DECLS
