/* onyx-heat.c: the colour scale of Run and Profile (onyx-heat.h). */
#include "onyx-heat.h"

void
onyx_heat_color (double level, GdkRGBA *color)
{
  static const GdkRGBA stops[] = {
    { 0.976f, 0.941f, 0.420f, 1 }, { 1.0f, 0.471f, 0.0f, 1 }, { 0.753f, 0.110f, 0.157f, 1 },
  };
  double at = CLAMP (level, 0, 1) * 2;
  int i = MIN ((int) at, 1);
  float f = (float) (at - i);

  color->red = stops[i].red + (stops[i + 1].red - stops[i].red) * f;
  color->green = stops[i].green + (stops[i + 1].green - stops[i].green) * f;
  color->blue = stops[i].blue + (stops[i + 1].blue - stops[i].blue) * f;
  color->alpha = 1;
}

void
onyx_heat_draw_legend (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  for (int x = 0; x < width; x++)
    {
      GdkRGBA color;
      onyx_heat_color ((double) x / MAX (width - 1, 1), &color);
      gdk_cairo_set_source_rgba (cr, &color);
      cairo_rectangle (cr, x, 0, 1, height);
      cairo_fill (cr);
    }
}
