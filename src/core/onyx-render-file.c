/* onyx-render-file.c: a laid-out graph into a PNG, SVG or PDF file, written beside the
 * target and renamed over it once complete.
 *
 * A graph far taller than wide (a long chain of a flat export: 672 nodes are a
 * 27,595 px column) is drawn in columns side by side in PNG and PDF files: each a
 * band of the graph, read left to right, cut where no box or label is. Image viewers
 * refuse pictures past 16,384 px a side, PDF readers pages past 14,400 pt. SVG keeps
 * one column: browsers scroll it, and its boxes keep the layout's coordinates. */
#include "onyx-render-private.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <math.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "onyx-error.h"

#define MAX_IMAGE_SIDE 32000.0
/* Pixels (or points for PDF) a column may be at most. */
#define MAX_PNG_COLUMN 16000.0
#define MAX_PDF_COLUMN 14400.0
/* A graph taller than this, in layout points, and over twice as tall as wide, is
 * cut into columns at any scale: how a picture is laid out is the graph's shape's
 * business, not the zoom's (a detector was one 15,000-pixel column at 0.55 and five
 * columns at 1). */
#define COLUMNS_PAST 16000.0
/* Columns drawn below this scale to fit would not read: one column then. */
#define READABLE_SCALE 0.8

/* ---- Files ---- */

/* The pieces of a file of `area` at `*scale`: columns for a tall PNG or PDF when they
 * fit the limit at a readable scale (*scale is lowered to fit it); past that (a
 * 12,000-node graph expanded whole), one column, which no picture reads. */
static GArray *
file_pieces (const OnyxLayout *layout, const OnyxRect *area, double *scale, gboolean png, gboolean pdf,
             gboolean columns, double *width, double *height)
{
  double limit = png ? MAX_PNG_COLUMN : MAX_PDF_COLUMN;

  if (columns && (png || pdf))
    {
      GArray *pieces = onyx_render_pieces (layout, area, COLUMNS_PAST, width, height);
      double fit = MIN (*scale, limit / MAX (*width, *height));
      if (pieces->len == 1 || fit >= MIN (*scale, READABLE_SCALE))
        {
          *scale = fit;
          return pieces;
        }
      g_array_unref (pieces);
    }
  return onyx_render_pieces (layout, area, G_MAXDOUBLE, width, height);
}

/* The pieces at `scale` drawn onto a cairo vector surface (PDF; SVG too coarse for
 * text) writing to `partial`. */
static cairo_status_t
write_vector_surface (const OnyxLayout *layout, const GArray *pieces, double width, double height, double scale,
                      const OnyxRenderOptions *options, gboolean pdf, const char *partial)
{
  cairo_surface_t *surface = pdf ? cairo_pdf_surface_create (partial, width * scale, height * scale)
                                 : cairo_svg_surface_create (partial, width * scale, height * scale);
  OnyxRenderIndex *index = onyx_render_index_new (layout);
  cairo_t *cr = cairo_create (surface);
  OnyxRect whole = { 0, 0, width, height };
  cairo_status_t status;

  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  cairo_scale (cr, scale, scale);
  onyx_render_draw_pieces (cr, layout, index, pieces, &whole, options);
  onyx_render_index_free (index);
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  return status;
}

/* The scale a PNG `width` × `height` points is drawn at for `scale`: within cairo's
 * pixel limit. */
static double
png_scale (double width, double height, double scale)
{
  if (MAX (width, height) * scale > MAX_IMAGE_SIDE)
    return MAX_IMAGE_SIDE / MAX (width, height);
  return scale;
}

typedef enum { FORMAT_NONE, FORMAT_PNG, FORMAT_SVG, FORMAT_PDF } FileFormat;

/* By the file's extension, in any case. */
static FileFormat
file_format (const char *path)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);

  return g_str_has_suffix (lower, ".png") ? FORMAT_PNG : g_str_has_suffix (lower, ".svg") ? FORMAT_SVG
         : g_str_has_suffix (lower, ".pdf") ? FORMAT_PDF : FORMAT_NONE;
}

gboolean
onyx_render_file_format_known (const char *path)
{
  return file_format (path) != FORMAT_NONE;
}

/* `area` at `scale` into a file; with `whole_graph`, text is drawn at any scale and a
 * tall PNG or PDF is drawn in columns. `graph`, or NULL, names op boxes. */
static gboolean
render_area_to_file (const OnyxLayout *layout, const Onnx__GraphProto *graph, const OnyxRect *area,
                     double scale, gboolean whole_graph, const char *path, GError **error)
{
  g_autofree char *name = g_path_get_basename (path);
  /* Written beside the target and renamed over it once complete. */
  g_autofree char *partial = g_strdup_printf ("%s.partial-%d", path, (int) getpid ());
  g_autoptr (GArray) pieces = NULL;
  const char *reason = NULL;
  OnyxRenderOptions options;
  FileFormat format = file_format (path);
  gboolean png = format == FORMAT_PNG, svg = format == FORMAT_SVG, pdf = format == FORMAT_PDF;
  double width, height;

  if (!png && !svg && !pdf)
    {
      g_set_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_IO,
                   "%s: unknown image format: use .png, .svg or .pdf", name);
      return FALSE;
    }
  pieces = file_pieces (layout, area, &scale, png, pdf, whole_graph, &width, &height);
  if (png)
    scale = png_scale (width, height, scale);
  onyx_render_options_init (&options);
  options.scale = whole_graph ? MAX (scale, MIN_TEXT_SCALE) : scale;
  if (png || (svg && options.scale >= MIN_DETAIL_SCALE))
    {
      /* Our own writers, streaming through stdio. */
      FILE *out = g_fopen (partial, "wb");
      gboolean written = FALSE;
      cairo_status_t status = CAIRO_STATUS_SUCCESS;

      if (out != NULL)
        {
          setvbuf (out, NULL, _IOFBF, 1 << 18);
          if (png)
            written = (status = onyx_render_png_write (layout, pieces, width, height, scale, &options, out))
                      == CAIRO_STATUS_SUCCESS;
          else
            written = onyx_render_svg_write (layout, graph, area, area->width * scale, area->height * scale,
                                             options.scale >= MIN_TEXT_SCALE, out);
          written = !ferror (out) && written;
          written = fclose (out) == 0 && written;
        }
      if (!written)
        reason = status != CAIRO_STATUS_SUCCESS && status != CAIRO_STATUS_WRITE_ERROR
                   ? cairo_status_to_string (status) : g_strerror (errno);
    }
  else
    {
      cairo_status_t status = write_vector_surface (layout, pieces, width, height, scale, &options, pdf, partial);
      if (status != CAIRO_STATUS_SUCCESS)
        reason = cairo_status_to_string (status);
    }
  if (reason == NULL && g_rename (partial, path) != 0)
    reason = g_strerror (errno);
  if (reason != NULL)
    {
      g_unlink (partial);
      g_set_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_IO, "%s: cannot write the image: %s", name, reason);
      return FALSE;
    }
  return TRUE;
}

gboolean
onyx_render_to_file (const OnyxLayout *layout, const char *path, double scale, GError **error)
{
  return onyx_render_graph_to_file (layout, NULL, path, scale, error);
}

/* The whole layout with a margin. */
static OnyxRect
whole_area (const OnyxLayout *layout)
{
  double margin = 16;
  OnyxRect area = { layout->bounds.x - margin, layout->bounds.y - margin,
                    layout->bounds.width + 2 * margin, layout->bounds.height + 2 * margin };
  return area;
}

double
onyx_render_file_scale (const OnyxLayout *layout, const char *path, double scale, int *width, int *height,
                        guint *n_columns)
{
  OnyxRect area = whole_area (layout);
  gboolean png = file_format (path) == FORMAT_PNG, pdf = file_format (path) == FORMAT_PDF;
  double picture_width, picture_height;
  g_autoptr (GArray) pieces = file_pieces (layout, &area, &scale, png, pdf, TRUE, &picture_width, &picture_height);

  if (png)
    scale = png_scale (picture_width, picture_height, scale);
  if (width != NULL)
    *width = (int) ceil (picture_width * scale);
  if (height != NULL)
    *height = (int) ceil (picture_height * scale);
  if (n_columns != NULL)
    *n_columns = pieces->len;
  return scale;
}

gboolean
onyx_render_graph_to_file (const OnyxLayout *layout, const Onnx__GraphProto *graph, const char *path,
                           double scale, GError **error)
{
  OnyxRect area = whole_area (layout);

  return render_area_to_file (layout, graph, &area, scale, TRUE, path, error);
}

gboolean
onyx_render_area_to_file (const OnyxLayout *layout, const OnyxRect *area, double scale,
                          const char *path, GError **error)
{
  /* As on screen: what is too small to read there is left out here too. */
  return render_area_to_file (layout, NULL, area, scale, FALSE, path, error);
}
