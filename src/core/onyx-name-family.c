/* onyx-name-family.c: names gathered into families by the text before their first
 * number (onyx-name-family.h). */
#include "onyx-name-family.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "onyx-text.h"

/* Most rests a title lists ("key/value"); more read as "…". */
#define MAX_LISTED_RESTS 3

/* Where the first number of `name` starts and ends; FALSE when it has none. */
static gboolean
first_number (const char *name, gsize *start, gsize *end, guint64 *value)
{
  const char *digits = name != NULL ? strpbrk (name, "0123456789") : NULL;
  const char *after;

  if (digits == NULL)
    return FALSE;
  after = digits + strspn (digits, "0123456789");
  *start = (gsize) (digits - name);
  *end = (gsize) (after - name);
  /* Too long a number for 64 bits still groups; its value only sets the range. */
  *value = g_ascii_strtoull (digits, NULL, 10);
  return TRUE;
}

static gboolean
same_prefix (const char *a, const char *b)
{
  gsize a_start, a_end, b_start, b_end;
  guint64 a_value, b_value;

  return first_number (a, &a_start, &a_end, &a_value) && first_number (b, &b_start, &b_end, &b_value) &&
         a_start == b_start && strncmp (a, b, a_start) == 0;
}

static void
family_clear (OnyxNameFamily *family)
{
  g_free (family->title);
}

/* "prefix" + "lo–hi" + the rests after the number: one, or their common start and
 * what differs ("." + "key/value"). */
static char *
family_title (const char *const *names, guint first, guint n)
{
  g_autoptr (GPtrArray) rests = g_ptr_array_new ();
  GString *title = g_string_new (NULL);
  guint64 lo = G_MAXUINT64, hi = 0;
  gsize start = 0, end = 0, common;

  for (guint i = first; i < first + n; i++)
    {
      guint64 value;
      gboolean seen = FALSE;
      first_number (names[i], &start, &end, &value);
      lo = MIN (lo, value);
      hi = MAX (hi, value);
      for (guint r = 0; r < rests->len && !seen; r++)
        seen = g_str_equal (rests->pdata[r], names[i] + end);
      if (!seen)
        g_ptr_array_add (rests, (gpointer) (names[i] + end));
    }
  g_string_append_len (title, names[first], (gssize) start);
  g_string_append_printf (title, "%" G_GUINT64_FORMAT "–%" G_GUINT64_FORMAT, lo, hi);
  common = strlen (rests->pdata[0]);
  for (guint r = 1; r < rests->len; r++)
    {
      const char *rest = rests->pdata[r];
      gsize k = 0;
      while (k < common && rest[k] == ((const char *) rests->pdata[0])[k])
        k++;
      common = k;
    }
  g_string_append_len (title, rests->pdata[0], (gssize) common);
  /* (A rest that is all common, "x0" beside "x1.bias", lists as nothing: "…".) */
  if (rests->len > MAX_LISTED_RESTS || (rests->len > 1 && common == strlen (rests->pdata[0])))
    g_string_append (title, "…");
  else
    for (guint r = 0; rests->len > 1 && r < rests->len; r++)
      g_string_append_printf (title, "%s%s", r > 0 ? "/" : "", (const char *) rests->pdata[r] + common);
  return g_string_free (title, FALSE);
}

GArray *
onyx_name_families (const char *const *names, guint n_names, guint min_members)
{
  GArray *families = g_array_new (FALSE, TRUE, sizeof (OnyxNameFamily));

  g_array_set_clear_func (families, (GDestroyNotify) family_clear);
  for (guint i = 0; i < n_names;)
    {
      OnyxNameFamily family = { i, 1, NULL };
      while (i + family.n < n_names && same_prefix (names[i], names[i + family.n]))
        family.n++;
      if (family.n >= MAX (min_members, 2))
        family.title = family_title (names, i, family.n);
      else
        family.n = 1;
      g_array_append_val (families, family);
      i += family.n;
    }
  return families;
}

char *
onyx_name_families_join (const char *const *names, guint n_names, guint min_members, guint max_items)
{
  g_autoptr (GArray) families = onyx_name_families (names, n_names, min_members);
  GString *text = g_string_new (NULL);
  guint shown = 0;

  for (guint f = 0; f < families->len && f < max_items; f++)
    {
      const OnyxNameFamily *family = &g_array_index (families, OnyxNameFamily, f);
      g_autofree char *escaped = onyx_display_escape (family->title != NULL ? family->title : names[family->first]);
      g_string_append_printf (text, "%s%s", f > 0 ? ", " : "", escaped);
      shown += family->n;
    }
  if (shown < n_names)
    {
      if (text->len > 0)
        g_string_append (text, ", ");
      g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE, "… and %u more", "… and %u more",
                                                 n_names - shown), n_names - shown);
    }
  return g_string_free (text, FALSE);
}
