/* onyx-decorations.c: the canvas' boxes' decorations the view state keeps
 * (onyx-decorations.h). */
#include "onyx-decorations.h"

void
onyx_decorations_clear (OnyxDecorations *self)
{
  for (guint l = 0; l < ONYX_N_TINT_LAYERS; l++)
    g_clear_pointer (&self->tints[l], g_array_unref);
  g_clear_pointer (&self->badges, g_array_unref);
  g_clear_pointer (&self->notes, g_ptr_array_unref);
}

static GArray *
copy_array (gconstpointer items, guint n, guint size)
{
  GArray *array;

  if (items == NULL)
    return NULL;
  array = g_array_sized_new (FALSE, FALSE, size, n);
  g_array_append_vals (array, items, n);
  return array;
}

void
onyx_decorations_set_tints (OnyxDecorations *self, OnyxTintLayer layer, const GdkRGBA *tints, guint n_tints)
{
  g_clear_pointer (&self->tints[layer], g_array_unref);
  self->tints[layer] = copy_array (tints, n_tints, sizeof (GdkRGBA));
}

const GdkRGBA *
onyx_decorations_get_tints (const OnyxDecorations *self, guint *n_tints)
{
  for (guint l = ONYX_N_TINT_LAYERS; l-- > 0;)
    if (self->tints[l] != NULL)
      {
        *n_tints = self->tints[l]->len;
        return (const GdkRGBA *) (gpointer) self->tints[l]->data;
      }
  *n_tints = 0;
  return NULL;
}

void
onyx_decorations_set_badges (OnyxDecorations *self, const guint8 *badges, guint n_badges)
{
  g_clear_pointer (&self->badges, g_array_unref);
  self->badges = copy_array (badges, n_badges, sizeof (guint8));
}

const guint8 *
onyx_decorations_get_badges (const OnyxDecorations *self, guint *n_badges)
{
  *n_badges = self->badges != NULL ? self->badges->len : 0;
  return self->badges != NULL ? (const guint8 *) (gpointer) self->badges->data : NULL;
}

void
onyx_decorations_set_notes (OnyxDecorations *self, const char *const *notes, guint n_notes)
{
  g_clear_pointer (&self->notes, g_ptr_array_unref);
  if (notes == NULL)
    return;
  self->notes = g_ptr_array_new_full (n_notes, g_free);
  for (guint i = 0; i < n_notes; i++)
    g_ptr_array_add (self->notes, g_strdup (notes[i]));
}

const char *const *
onyx_decorations_get_notes (const OnyxDecorations *self, guint *n_notes)
{
  *n_notes = self->notes != NULL ? self->notes->len : 0;
  return self->notes != NULL ? (const char *const *) self->notes->pdata : NULL;
}
