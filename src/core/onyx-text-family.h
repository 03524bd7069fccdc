/* onyx-text-family.h: texts alike but for one number, gathered into one ("input 'k' of
 * /model/layers.0–79/attn/GroupQueryAttention is tensor(int64)…", 80 texts), so that
 * a list of problems repeated on every layer reads as a line. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  GArray *members;   /* guint: indexes of the texts gathered, ascending */
  char *text;        /* the texts as one, the number that differs as its values
                      * ("0–79", "1–5, 7"); a family of one: its text */
} OnyxTextFamily;

void onyx_text_family_free (OnyxTextFamily *family);

/* Texts the same but for the number at one place, at least `min_members` of them,
 * form a family (the largest first: a text is in one family); every other text is a
 * family of its own. OnyxTextFamily *, in the order of their first members. */
GPtrArray *onyx_text_families (const char *const *texts,
                               guint              n_texts,
                               guint              min_members);

G_END_DECLS
