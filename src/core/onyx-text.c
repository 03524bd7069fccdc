/* onyx-text.c: text for people (onyx-text.h). */
#include "onyx-text.h"

#include <string.h>

char *
onyx_display_escape (const char *text)
{
  g_autofree char *valid = NULL;
  GString *out;

  if (text == NULL)
    return g_strdup ("");
  valid = g_utf8_make_valid (text, -1);
  out = g_string_sized_new (strlen (valid));
  for (const char *p = valid; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;
      if (c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\x%02x", c);
      else
        g_string_append_c (out, (char) c);
    }
  return g_string_free (out, FALSE);
}

char *
onyx_format_duration (double seconds)
{
  double ms = seconds * 1000;

  if (!(seconds >= 0))
    return g_strdup ("?");
  /* Two significant digits below 10 ms, whole milliseconds below a second. */
  if (ms < 1)
    return g_strdup_printf ("%.2g ms", ms);
  if (ms < 10)
    return g_strdup_printf ("%.1f ms", ms);
  if (ms < 999.5)
    return g_strdup_printf ("%.0f ms", ms);
  if (seconds < 9.95)
    return g_strdup_printf ("%.1f s", seconds);
  if (seconds < 59.5)
    return g_strdup_printf ("%.0f s", seconds);
  return g_strdup_printf ("%d min %02d s", (int) (seconds + 0.5) / 60, (int) (seconds + 0.5) % 60);
}
