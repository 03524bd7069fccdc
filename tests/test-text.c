/* Text for people (onyx-text.h, onyx-name-family.h): counts as they read, in English
 * and in the user's locale; lists of names folded into families. */
#include <locale.h>

#include "onyx-name-family.h"
#include "onyx-text-family.h"
#include "onyx-text.h"

/* Rounded to three digits or so, with the unit that keeps the number below 1000. */
static void
test_count_plain (void)
{
  const struct { guint64 n; const char *rounded, *grouped; } counts[] = {
    { 0, "0", "0" },
    { 448, "448", "448" },
    { 999, "999", "999" },
    { 1000, "1.0 k", "1,000" },
    { 1792, "1.8 k", "1,792" },
    { 99949, "99.9 k", "99,949" },
    { 99950, "100 k", "99,950" },
    { 999499, "999 k", "999,499" },
    { 999500, "1.0 M", "999,500" },
    { 671744, "672 k", "671,744" },
    { 22044930, "22.0 M", "22,044,930" },
    { 123456789, "123 M", "123,456,789" },
    { G_GUINT64_CONSTANT (70554755074), "70.6 B", "70,554,755,074" },
    { G_GUINT64_CONSTANT (1200000000000), "1.2 T", "1,200,000,000,000" },
    { G_MAXUINT64, "18446744 T", "18,446,744,073,709,551,615" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
    {
      g_autofree char *rounded = onyx_format_count (counts[i].n, ONYX_COUNT_PLAIN);
      g_autofree char *grouped = onyx_format_count_grouped (counts[i].n, ONYX_COUNT_PLAIN);
      g_assert_cmpstr (rounded, ==, counts[i].rounded);
      g_assert_cmpstr (grouped, ==, counts[i].grouped);
    }
}

/* The plain forms stay English whatever the locale says; the localized ones follow
 * it: in the C locale, a point and no grouping. */
static void
test_count_localized (void)
{
  g_autofree char *saved = g_strdup (setlocale (LC_NUMERIC, NULL));
  g_autofree char *rounded = NULL, *grouped = NULL;
  g_autofree char *german = NULL, *german_grouped = NULL, *plain = NULL, *plain_grouped = NULL;

  setlocale (LC_NUMERIC, "C");
  rounded = onyx_format_count (22044930, ONYX_COUNT_LOCALIZED);
  grouped = onyx_format_count_grouped (22044930, ONYX_COUNT_LOCALIZED);
  g_assert_cmpstr (rounded, ==, "22.0 M");
  g_assert_cmpstr (grouped, ==, "22044930");
  if (setlocale (LC_NUMERIC, "de_DE.UTF-8") == NULL)
    {
      setlocale (LC_NUMERIC, saved);
      g_test_skip ("no de_DE.UTF-8 locale here (LOCPATH can name one made by localedef)");
      return;
    }
  german = onyx_format_count (22044930, ONYX_COUNT_LOCALIZED);
  german_grouped = onyx_format_count_grouped (22044930, ONYX_COUNT_LOCALIZED);
  plain = onyx_format_count (22044930, ONYX_COUNT_PLAIN);
  plain_grouped = onyx_format_count_grouped (22044930, ONYX_COUNT_PLAIN);
  setlocale (LC_NUMERIC, saved);
  g_assert_cmpstr (german, ==, "22,0 M");
  g_assert_cmpstr (german_grouped, ==, "22.044.930");
  g_assert_cmpstr (plain, ==, "22.0 M");
  g_assert_cmpstr (plain_grouped, ==, "22,044,930");
}

/* A KV cache's 64 names read as one family; past max_items, how many more. */
static void
test_families_join (void)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *all = NULL, *folded = NULL, *few = NULL, *none = NULL;

  g_ptr_array_add (names, g_strdup ("input_ids"));
  for (int layer = 0; layer < 32; layer++)
    {
      g_ptr_array_add (names, g_strdup_printf ("past_key_values.%d.key", layer));
      g_ptr_array_add (names, g_strdup_printf ("past_key_values.%d.value", layer));
    }
  g_ptr_array_add (names, g_strdup ("bad\nname"));
  for (int i = 0; i < 3; i++)
    g_ptr_array_add (names, g_strdup_printf ("w%d", i));
  all = onyx_name_families_join ((const char *const *) names->pdata, names->len, 4, 100);
  g_assert_cmpstr (all, ==, "input_ids, past_key_values.0–31.key/value, bad\\x0aname, w0, w1, w2");
  /* Two items shown: the family counts as its 64 names. */
  folded = onyx_name_families_join ((const char *const *) names->pdata, names->len, 4, 2);
  g_assert_cmpstr (folded, ==, "input_ids, past_key_values.0–31.key/value, … and 4 more");
  /* Families of at least 100 names: none here. */
  few = onyx_name_families_join ((const char *const *) names->pdata, 4, 100, 3);
  g_assert_cmpstr (few, ==, "input_ids, past_key_values.0.key, past_key_values.0.value, … and 1 more");
  none = onyx_name_families_join ((const char *const *) names->pdata, 3, 4, 0);
  g_assert_cmpstr (none, ==, "… and 3 more");
}

/* 80 problems alike but for their layer read as one; the others stay as they are. */
static void
test_text_families (void)
{
  g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) families = NULL;
  const OnyxTextFamily *family;

  g_ptr_array_add (texts, g_strdup ("model: uses 4 operators"));
  for (guint i = 0; i < 80; i++)
    {
      /* Two per layer, the second alike too: two families, each of one place. */
      g_ptr_array_add (texts, g_strdup_printf ("input k 'a/Cast/output_0' of /model/layers.%u/attn/GQA is int64", i));
      g_ptr_array_add (texts, g_strdup_printf ("input t 'a/Cast/output_0' of /model/layers.%u/attn/GQA is int64", i));
    }
  g_ptr_array_add (texts, g_strdup ("layers.3 and layers.5 differ"));
  g_ptr_array_add (texts, g_strdup ("layers.3 and layers.9 differ"));
  g_ptr_array_add (texts, g_strdup ("layers.7 and layers.9 differ"));
  families = onyx_text_families ((const char *const *) texts->pdata, texts->len, 3);
  for (guint f = 0; f < families->len; f++)
    g_test_message ("%u × %s", ((OnyxTextFamily *) families->pdata[f])->members->len,
                    ((OnyxTextFamily *) families->pdata[f])->text);
  g_assert_cmpuint (families->len, ==, 6);
  family = families->pdata[0];
  g_assert_cmpuint (family->members->len, ==, 1);
  g_assert_cmpstr (family->text, ==, "model: uses 4 operators");
  family = families->pdata[1];
  g_assert_cmpuint (family->members->len, ==, 80);
  g_assert_cmpuint (g_array_index (family->members, guint, 1), ==, 3);
  g_assert_cmpstr (family->text, ==, "input k 'a/Cast/output_0' of /model/layers.0–79/attn/GQA is int64");
  family = families->pdata[2];
  g_assert_cmpstr (family->text, ==, "input t 'a/Cast/output_0' of /model/layers.0–79/attn/GQA is int64");
  /* Two alike at each place, fewer than 3: each stays itself. */
  for (guint f = 3; f < 6; f++)
    g_assert_cmpuint (((OnyxTextFamily *) families->pdata[f])->members->len, ==, 1);
  g_clear_pointer (&families, g_ptr_array_unref);

  /* Gaps read as ranges, four and more as "…". */
  g_ptr_array_set_size (texts, 0);
  for (guint i = 0; i < 20; i++)
    if (i != 6 && i != 9 && i != 11)
      g_ptr_array_add (texts, g_strdup_printf ("x%u.y", i));
  families = onyx_text_families ((const char *const *) texts->pdata, texts->len, 2);
  g_assert_cmpuint (families->len, ==, 1);
  g_assert_cmpstr (((OnyxTextFamily *) families->pdata[0])->text, ==, "x0–5, 7–8, 10, ….y");
  g_clear_pointer (&families, g_ptr_array_unref);
  families = onyx_text_families (NULL, 0, 2);
  g_assert_cmpuint (families->len, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/text/count/plain", test_count_plain);
  g_test_add_func ("/text/count/localized", test_count_localized);
  g_test_add_func ("/text/families-join", test_families_join);
  g_test_add_func ("/text/text-families", test_text_families);
  return g_test_run ();
}
