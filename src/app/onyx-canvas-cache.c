/* onyx-canvas-cache.c: the canvas's cached graph layer.
 *
 * GSK's cairo renderer replays a recorded cairo node on every frame, so an overview
 * of a 13,000-node graph would cost its whole drawing each time the pointer moves.
 * An overview has no text, so it loses nothing as an image at the screen's pixels. */
#include "onyx-canvas-private.h"

#include <math.h>

static GskRenderNode *
picture_node (const OnyxLayout *layout, const OnyxRenderIndex *index, const OnyxRect *area,
              const OnyxRenderOptions *options, int scale_factor)
{
  cairo_surface_t *surface = onyx_render_picture (layout, index, area, options, scale_factor);
  int width = cairo_image_surface_get_width (surface), height = cairo_image_surface_get_height (surface);
  int stride = cairo_image_surface_get_stride (surface);
  double pixels_per_point = options->scale * scale_factor;
  /* The pixels stay the surface's until the texture is gone. */
  g_autoptr (GBytes) bytes = g_bytes_new_with_free_func (cairo_image_surface_get_data (surface),
                                                         (gsize) stride * height,
                                                         (GDestroyNotify) cairo_surface_destroy, surface);
  g_autoptr (GdkTexture) texture = gdk_memory_texture_new (width, height, GDK_MEMORY_DEFAULT, bytes, stride);
  /* Where onyx_render_picture() starts, in widget units: on a whole device pixel. */
  graphene_rect_t bounds = GRAPHENE_RECT_INIT (round (area->x * pixels_per_point) / scale_factor,
                                               round (area->y * pixels_per_point) / scale_factor,
                                               (float) width / scale_factor, (float) height / scale_factor);

  return gsk_texture_node_new (texture, &bounds);
}

static GskRenderNode *
recorded_node (const OnyxLayout *layout, const OnyxRenderIndex *index, const OnyxRect *area,
               const OnyxRenderOptions *options)
{
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  graphene_rect_t bounds;
  cairo_t *cr;

  graphene_rect_init (&bounds, area->x * options->scale, area->y * options->scale,
                      area->width * options->scale, area->height * options->scale);
  cr = gtk_snapshot_append_cairo (snapshot, &bounds);
  cairo_scale (cr, options->scale, options->scale);
  onyx_render_draw (cr, layout, index, area, options);
  cairo_destroy (cr);
  return gtk_snapshot_free_to_node (snapshot);
}

GskRenderNode *
onyx_canvas_render_cache (const OnyxLayout *layout, const OnyxRenderIndex *index, const OnyxRect *area,
                          const OnyxRenderOptions *options, int scale_factor)
{
  if (onyx_render_is_coarse (options->scale))
    return picture_node (layout, index, area, options, MAX (scale_factor, 1));
  return recorded_node (layout, index, area, options);
}
