/* onyx-text.h: text for people: names made safe to show, durations and counts as
 * they read. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Control characters as \xNN and invalid UTF-8 replaced, so that hostile names can
 * be shown or printed safely. NULL gives "". */
char       *onyx_display_escape       (const char *text);
/* A duration as a person reads it: "0.42 ms", "12 ms", "1.3 s", "2 min 05 s". */
char       *onyx_format_duration      (double seconds);

typedef enum {
  /* English whatever the locale: "22.0 M", "22,044,930" (onyx-cli's output, which
   * scripts read). */
  ONYX_COUNT_PLAIN = 0,
  /* The user's language (the app): the locale's decimal point and digit grouping
   * ("22,0 M" and "22.044.930" in German), the unit translated. */
  ONYX_COUNT_LOCALIZED = 1 << 0,
} OnyxCountFlags;

/* A count rounded to three digits or so: "448", "1.8 k", "22.0 M", "123 M",
 * "70.6 B" (billions: models are said to have "7B" parameters), "1.2 T". Below 1000
 * the number itself. */
char       *onyx_format_count         (guint64        n,
                                       OnyxCountFlags flags);
/* Every digit, in groups of three: "22,044,930" (localized: the locale's grouping,
 * none in the C locale). */
char       *onyx_format_count_grouped (guint64        n,
                                       OnyxCountFlags flags);

G_END_DECLS
