/* onyx-text-family.c: texts gathered when alike but for one number
 * (onyx-text-family.h). Each number of a text is a place it may differ at: the text
 * with that number taken out is a key, and the texts of a key are a family. */
#include "onyx-text-family.h"

#include <string.h>

/* Values a family's text lists as ranges, at most; then "…". */
#define MAX_RANGES 3

typedef struct {
  char *key;         /* the text before the number, '\x01', the text after it */
  gsize start;       /* where the number is in the members' texts */
  GArray *members;   /* guint */
  GArray *values;    /* guint64, one per member */
} Candidate;

static void
candidate_free (Candidate *candidate)
{
  g_free (candidate->key);
  g_array_unref (candidate->members);
  g_array_unref (candidate->values);
  g_free (candidate);
}

void
onyx_text_family_free (OnyxTextFamily *family)
{
  if (family == NULL)
    return;
  g_array_unref (family->members);
  g_free (family->text);
  g_free (family);
}

static OnyxTextFamily *
family_of_one (const char *text, guint index)
{
  OnyxTextFamily *family = g_new0 (OnyxTextFamily, 1);

  family->members = g_array_new (FALSE, FALSE, sizeof (guint));
  g_array_append_val (family->members, index);
  family->text = g_strdup (text != NULL ? text : "");
  return family;
}

/* A candidate for each number of each text. */
static GPtrArray *
find_candidates (const char *const *texts, guint n_texts)
{
  g_autoptr (GHashTable) by_key = g_hash_table_new (g_str_hash, g_str_equal);
  GPtrArray *candidates = g_ptr_array_new_with_free_func ((GDestroyNotify) candidate_free);

  for (guint i = 0; i < n_texts; i++)
    for (const char *p = texts[i]; p != NULL && (p = strpbrk (p, "0123456789")) != NULL;)
      {
        gsize start = (gsize) (p - texts[i]), length = strspn (p, "0123456789");
        guint64 value = g_ascii_strtoull (p, NULL, 10);
        g_autofree char *key = g_strdup_printf ("%.*s\x01%s", (int) start, texts[i], p + length);
        Candidate *candidate = g_hash_table_lookup (by_key, key);

        if (candidate == NULL)
          {
            candidate = g_new0 (Candidate, 1);
            candidate->key = g_steal_pointer (&key);
            candidate->start = start;
            candidate->members = g_array_new (FALSE, FALSE, sizeof (guint));
            candidate->values = g_array_new (FALSE, FALSE, sizeof (guint64));
            g_hash_table_insert (by_key, candidate->key, candidate);
            g_ptr_array_add (candidates, candidate);
          }
        g_array_append_val (candidate->members, i);
        g_array_append_val (candidate->values, value);
        p += length;
      }
  return candidates;
}

static int
by_size (gconstpointer a, gconstpointer b)
{
  const Candidate *x = *(const Candidate *const *) a, *y = *(const Candidate *const *) b;

  if (x->members->len != y->members->len)
    return x->members->len > y->members->len ? -1 : 1;
  return g_array_index (x->members, guint, 0) < g_array_index (y->members, guint, 0) ? -1 : 1;
}

static int
compare_values (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return (x > y) - (x < y);
}

/* "0–79", "1–5, 7, 9–12", "0–3, 5, 7–9, …": the values in ranges. */
static void
append_ranges (GString *text, GArray *values)
{
  guint ranges = 0;

  g_array_sort (values, compare_values);
  for (guint i = 0; i < values->len;)
    {
      guint64 first = g_array_index (values, guint64, i), last = first;
      while (++i < values->len && g_array_index (values, guint64, i) <= last + 1)
        last = g_array_index (values, guint64, i);
      if (ranges++ == MAX_RANGES)
        {
          g_string_append (text, ", …");
          return;
        }
      g_string_append (text, ranges > 1 ? ", " : "");
      if (last == first)
        g_string_append_printf (text, "%" G_GUINT64_FORMAT, first);
      else
        g_string_append_printf (text, "%" G_GUINT64_FORMAT "–%" G_GUINT64_FORMAT, first, last);
    }
}

/* The family of the candidate's members not in another yet, when enough are left. */
static OnyxTextFamily *
take_family (const Candidate *candidate, gboolean *taken, guint min_members)
{
  g_autoptr (GArray) members = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) values = g_array_new (FALSE, FALSE, sizeof (guint64));
  const char *split = strchr (candidate->key, '\x01');
  OnyxTextFamily *family;
  GString *text;

  for (guint m = 0; m < candidate->members->len; m++)
    if (!taken[g_array_index (candidate->members, guint, m)])
      {
        g_array_append_val (members, g_array_index (candidate->members, guint, m));
        g_array_append_val (values, g_array_index (candidate->values, guint64, m));
      }
  if (members->len < MAX (min_members, 2))
    return NULL;
  for (guint m = 0; m < members->len; m++)
    taken[g_array_index (members, guint, m)] = TRUE;
  text = g_string_new_len (candidate->key, (gssize) candidate->start);
  append_ranges (text, values);
  g_string_append (text, split + 1);
  family = g_new0 (OnyxTextFamily, 1);
  family->members = g_steal_pointer (&members);
  family->text = g_string_free (text, FALSE);
  return family;
}

static int
by_first_member (gconstpointer a, gconstpointer b)
{
  const OnyxTextFamily *x = *(const OnyxTextFamily *const *) a, *y = *(const OnyxTextFamily *const *) b;
  guint i = g_array_index (x->members, guint, 0), j = g_array_index (y->members, guint, 0);
  return (i > j) - (i < j);
}

GPtrArray *
onyx_text_families (const char *const *texts, guint n_texts, guint min_members)
{
  g_autoptr (GPtrArray) candidates = find_candidates (texts, n_texts);
  g_autofree gboolean *taken = g_new0 (gboolean, MAX (n_texts, 1));
  GPtrArray *families = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_text_family_free);

  g_ptr_array_sort (candidates, by_size);
  for (guint c = 0; c < candidates->len; c++)
    {
      const Candidate *candidate = candidates->pdata[c];
      OnyxTextFamily *family;
      if (candidate->members->len < MAX (min_members, 2))
        break;
      if ((family = take_family (candidate, taken, min_members)) != NULL)
        g_ptr_array_add (families, family);
    }
  for (guint i = 0; i < n_texts; i++)
    if (!taken[i])
      g_ptr_array_add (families, family_of_one (texts[i], i));
  g_ptr_array_sort (families, by_first_member);
  return families;
}
