/* onyx-application.h: the application: windows per file, app actions, style. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define ONYX_TYPE_APPLICATION (onyx_application_get_type ())
G_DECLARE_FINAL_TYPE (OnyxApplication, onyx_application, ONYX, APPLICATION, AdwApplication)

OnyxApplication *onyx_application_new (void);

G_END_DECLS
