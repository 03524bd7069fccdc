/* onyx-heat.h: the colour scale the graph is drawn with by Run and Profile, and its
 * legend: yellow, orange, red (GNOME's palette), clear of the selection's blue, the
 * purple of NaN and Inf, and the green of agreement. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The scale's colour at `level`, 0 to 1. */
void onyx_heat_color       (double          level,
                            GdkRGBA        *color);
/* A GtkDrawingArea's draw function: the scale from left (0) to right (1). */
void onyx_heat_draw_legend (GtkDrawingArea *area,
                            cairo_t        *cr,
                            int             width,
                            int             height,
                            gpointer        data);

G_END_DECLS
