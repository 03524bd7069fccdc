/* onyx-name-family.h: names that differ only in a number, gathered into families
 * ("past_key_values.0.key" … "past_key_values.31.value" → "past_key_values.0–31.key/value"),
 * so that a model's 64 KV-cache inputs read as one line. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint first;    /* index of the first name */
  guint n;        /* how many names, consecutive from `first` */
  char *title;    /* "past_key_values.0–31.key/value"; NULL for a name on its own */
} OnyxNameFamily;

/* Consecutive names with the same text before their first number, at least
 * `min_members` of them, form a family; every other name is one on its own. The
 * families cover the names in order. An array of OnyxNameFamily (cleared with it). */
GArray *onyx_name_families (const char *const *names,
                            guint              n_names,
                            guint              min_members);
/* The names as a line of a list: each family of at least `min_members` by its title,
 * the other names as they are, escaped for display, ", " between; past `max_items`
 * of these, "… and 57 more" (names). */
char   *onyx_name_families_join (const char *const *names,
                                 guint              n_names,
                                 guint              min_members,
                                 guint              max_items);

G_END_DECLS
