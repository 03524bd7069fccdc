/* onyx-frame-share.h: one heavy change per frame. A part that gave the next frame
 * much to lay out (a new page of the properties panel: GTK measures its rows' labels
 * the first time) says so; a part with more for that window to show (a graph drawn
 * for the first time) shows it after that frame was painted. Each of the two costs a
 * frame of 10-15 ms on a slow machine; in one frame together they passed 33 ms. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The next frame of `widget`'s window has much to lay out: changes asked for through
 * onyx_frame_share_after wait for it to be painted. Nothing when the window is not
 * shown. */
void onyx_frame_share_fill  (GtkWidget     *widget);
/* Whether the next frame of `widget`'s window was filled and is not painted yet. */
gboolean onyx_frame_share_is_filled (GtkWidget *widget);
/* Calls `func` (`data`, then `destroy`) now, or in a main-loop turn after the next
 * frame of `widget`'s window was painted when that frame was filled; at the latest
 * after 100 ms. `destroy` alone is called when the window goes first. */
void onyx_frame_share_after (GtkWidget     *widget,
                             GFunc          func,
                             gpointer       data,
                             GDestroyNotify destroy);

G_END_DECLS
