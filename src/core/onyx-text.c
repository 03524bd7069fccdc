/* onyx-text.c: text for people (onyx-text.h). */
#include "onyx-text.h"

#include <glib/gi18n-lib.h>
#include <stdio.h>
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

/* Units of thousands; a count past the last stays in it ("18446744 T"). */
static const char *const count_units[] = { "k", "M", "B", "T" };

/* "22.0 M" and the like, translated when asked. */
static char *
unit_text (const char *number, guint unit, OnyxCountFlags flags)
{
  if (!(flags & ONYX_COUNT_LOCALIZED))
    return g_strdup_printf ("%s %s", number, count_units[unit]);
  switch (unit)
    {
    /* Translators: a count rounded to thousands, millions, billions (10⁹) and
     * trillions (10¹²); %s is the number, as "22.0". */
    case 0: return g_strdup_printf (g_dpgettext2 (GETTEXT_PACKAGE, "count", "%s k"), number);
    case 1: return g_strdup_printf (g_dpgettext2 (GETTEXT_PACKAGE, "count", "%s M"), number);
    case 2: return g_strdup_printf (g_dpgettext2 (GETTEXT_PACKAGE, "count", "%s B"), number);
    default: return g_strdup_printf (g_dpgettext2 (GETTEXT_PACKAGE, "count", "%s T"), number);
    }
}

char *
onyx_format_count (guint64 n, OnyxCountFlags flags)
{
  double scaled = (double) n;
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  guint unit = 0;
  int decimals;

  if (n < 1000)
    return g_strdup_printf ("%" G_GUINT64_FORMAT, n);
  scaled /= 1000;
  /* To the unit in which the rounded number stays below 1000 ("999.96 k" is "1.0 M"). */
  while (unit + 1 < G_N_ELEMENTS (count_units) && scaled >= 999.5)
    {
      scaled /= 1000;
      unit++;
    }
  /* One decimal below 100 ("22.0 M"), none from there ("123 M"), as rounded. */
  decimals = scaled < 99.95 ? 1 : 0;
  if (flags & ONYX_COUNT_LOCALIZED)
    g_snprintf (number, sizeof number, "%.*f", decimals, scaled);
  else
    g_ascii_formatd (number, sizeof number, decimals == 1 ? "%.1f" : "%.0f", scaled);
  return unit_text (number, unit, flags);
}

char *
onyx_format_count_grouped (guint64 n, OnyxCountFlags flags)
{
  g_autofree char *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, n);
  gsize length = strlen (digits);
  GString *out;

  if (flags & ONYX_COUNT_LOCALIZED)
    {
      /* The C library knows the locale's separator and group sizes (3;2 in India). */
      char grouped[64];
      snprintf (grouped, sizeof grouped, "%'" G_GUINT64_FORMAT, n);
      return g_strdup (grouped);
    }
  out = g_string_sized_new (length + length / 3);
  for (gsize i = 0; i < length; i++)
    {
      if (i > 0 && (length - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}
