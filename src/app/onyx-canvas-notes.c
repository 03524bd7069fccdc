/* onyx-canvas-notes.c: the short notes beside layout boxes (a profile's share), laid
 * out once when they are set and drawn at the same size at every zoom. */
#include "onyx-canvas-private.h"

static void
unref_if_any (gpointer object)
{
  if (object != NULL)
    g_object_unref (object);
}

GPtrArray *
onyx_canvas_notes_new (GtkWidget *widget, const char *const *notes, guint n_notes)
{
  PangoAttrList *small = pango_attr_list_new ();
  GPtrArray *layouts = g_ptr_array_new_full (n_notes, unref_if_any);

  pango_attr_list_insert (small, pango_attr_scale_new (PANGO_SCALE_SMALL));
  pango_attr_list_insert (small, pango_attr_font_features_new ("tnum=1"));
  for (guint i = 0; i < n_notes; i++)
    {
      PangoLayout *note = notes[i] != NULL ? gtk_widget_create_pango_layout (widget, notes[i]) : NULL;
      if (note != NULL)
        pango_layout_set_attributes (note, small);
      g_ptr_array_add (layouts, note);
    }
  pango_attr_list_unref (small);
  return layouts;
}

void
onyx_canvas_notes_append (GPtrArray *notes, const OnyxLayout *layout, GtkSnapshot *snapshot,
                          const OnyxRect *visible, double scale, double ox, double oy, gboolean dark)
{
  const float pad = 3, radius = 6;
  GdkRGBA background = dark ? (GdkRGBA) { 0.25, 0.25, 0.27, 0.92 } : (GdkRGBA) { 0.96, 0.96, 0.97, 0.92 };
  GdkRGBA ink = dark ? (GdkRGBA) { 1, 1, 1, 0.9 } : (GdkRGBA) { 0, 0, 0, 0.8 };

  for (guint i = 0; notes != NULL && i < notes->len && i < layout->nodes->len; i++)
    {
      PangoLayout *note = notes->pdata[i];
      const OnyxRect *box = &g_array_index (layout->nodes, OnyxLayoutNode, i).box;
      GskRoundedRect pill;
      int width, height;
      float x, y;

      if (note == NULL || box->x > visible->x + visible->width || box->y > visible->y + visible->height ||
          box->x + box->width < visible->x || box->y + box->height < visible->y)
        continue;
      pango_layout_get_pixel_size (note, &width, &height);
      /* A small pill under the box's bottom right corner. */
      x = (box->x + box->width - ox) * scale - width - 2 * pad;
      y = (box->y + box->height - oy) * scale + 2;
      gsk_rounded_rect_init_from_rect (&pill, &GRAPHENE_RECT_INIT (x, y, width + 2 * pad, height), radius);
      gtk_snapshot_push_rounded_clip (snapshot, &pill);
      gtk_snapshot_append_color (snapshot, &background, &pill.bounds);
      gtk_snapshot_pop (snapshot);
      gtk_snapshot_save (snapshot);
      gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (x + pad, y));
      gtk_snapshot_append_layout (snapshot, note, &ink);
      gtk_snapshot_restore (snapshot);
    }
}
