/* onyx-text.h: text for people: names made safe to show, durations as they read. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Control characters as \xNN and invalid UTF-8 replaced, so that hostile names can
 * be shown or printed safely. NULL gives "". */
char       *onyx_display_escape       (const char *text);
/* A duration as a person reads it: "0.42 ms", "12 ms", "1.3 s", "2 min 05 s". */
char       *onyx_format_duration      (double seconds);

G_END_DECLS
