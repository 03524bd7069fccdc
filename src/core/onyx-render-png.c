/* onyx-render-png.c: PNG export a strip of rows at a time, written with libpng.
 * cairo_surface_write_to_png needs the whole image in memory (122 MB for 956×32,000
 * pixels, where a strip holds 16 MB) and compresses it at zlib's default level, which costs more than the drawing;
 * the pixels are the same either way. */
#include "onyx-render-private.h"

#include <math.h>
#include <png.h>
#include <setjmp.h>

/* Pixels drawn at a time (16 MB): the strip's rows are as many as fit, so that what is
 * drawn in two strips (a box across their border) costs little. */
#define STRIP_PIXELS (1 << 22)
/* Layout points that a drawing may reach beyond what the index finds it by: strokes,
 * arrowheads and edge labels above or below their spline. */
#define STRIP_MARGIN 32.0
/* zlib's fastest level, rows unfiltered: on a graph's flat colours this writes smaller
 * files than cairo's choice (level 6, each row's best of five filters), in a third of
 * the time (transformer_24: 2.7 MB against 3.0 MB). */
#define PNG_ZLIB_LEVEL 1

static void
png_failed (png_structp png, png_const_charp message)
{
  longjmp (png_jmpbuf (png), 1);
}

static void
png_warned (png_structp png, png_const_charp message)
{
}

cairo_status_t
onyx_render_png_write (const OnyxLayout *layout, const GArray *pieces, double picture_width,
                       double picture_height, double scale, const OnyxRenderOptions *options, FILE *out)
{
  int width = (int) ceil (picture_width * scale), height = (int) ceil (picture_height * scale);
  int strip_rows = MIN (height, MAX (16, STRIP_PIXELS / MAX (width, 1)));
  cairo_surface_t *strip = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, strip_rows);
  cairo_status_t status = cairo_surface_status (strip);
  OnyxRenderIndex *index = onyx_render_index_new (layout);
  png_byte *row = g_malloc ((gsize) width * 3);
  png_structp png = png_create_write_struct (PNG_LIBPNG_VER_STRING, NULL, png_failed, png_warned);
  png_infop info = png != NULL ? png_create_info_struct (png) : NULL;

  if (status != CAIRO_STATUS_SUCCESS || info == NULL)
    {
      status = status != CAIRO_STATUS_SUCCESS ? status : CAIRO_STATUS_NO_MEMORY;
      goto out;
    }
  if (setjmp (png_jmpbuf (png)))
    {
      status = CAIRO_STATUS_WRITE_ERROR;
      goto out;
    }
  png_init_io (png, out);
  png_set_compression_level (png, PNG_ZLIB_LEVEL);
  png_set_filter (png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
  /* RGB without alpha, as cairo writes an opaque image: the page is painted white. */
  png_set_IHDR (png, info, (png_uint_32) width, (png_uint_32) height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info (png, info);
  for (int top = 0; top < height; top += strip_rows)
    {
      int rows = MIN (strip_rows, height - top);
      OnyxRect visible = { 0, top / scale - STRIP_MARGIN, picture_width, rows / scale + 2 * STRIP_MARGIN };
      cairo_t *cr = cairo_create (strip);
      const guchar *data;
      int stride;

      cairo_set_source_rgb (cr, 1, 1, 1);
      cairo_paint (cr);
      /* Whole device pixels up: the same sampling as drawing the whole image at once. */
      cairo_translate (cr, 0, -top);
      cairo_scale (cr, scale, scale);
      onyx_render_draw_pieces (cr, layout, index, pieces, &visible, options);
      cairo_destroy (cr);
      cairo_surface_flush (strip);
      data = cairo_image_surface_get_data (strip);
      stride = cairo_image_surface_get_stride (strip);
      for (int y = 0; y < rows; y++)
        {
          const guint32 *pixels = (const guint32 *) (data + (gsize) y * stride);
          /* Opaque, so premultiplied ARGB is plain RGB. */
          for (int x = 0; x < width; x++)
            {
              row[3 * x] = (png_byte) (pixels[x] >> 16);
              row[3 * x + 1] = (png_byte) (pixels[x] >> 8);
              row[3 * x + 2] = (png_byte) pixels[x];
            }
          png_write_row (png, row);
        }
    }
  png_write_end (png, info);
out:
  png_destroy_write_struct (png != NULL ? &png : NULL, info != NULL ? &info : NULL);
  g_free (row);
  onyx_render_index_free (index);
  cairo_surface_destroy (strip);
  return status;
}
