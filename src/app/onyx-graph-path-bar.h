/* onyx-graph-path-bar.h: the header bar's path to the graph shown, "main › /If ›
 * then_branch", each part a button showing that graph (a holder's part shows the
 * graph around it with the holder selected), and Back; hidden on the main graph. */
#pragma once

#include <gtk/gtk.h>

#include "onyx-view-state.h"

G_BEGIN_DECLS

#define ONYX_TYPE_GRAPH_PATH_BAR (onyx_graph_path_bar_get_type ())
G_DECLARE_FINAL_TYPE (OnyxGraphPathBar, onyx_graph_path_bar, ONYX, GRAPH_PATH_BAR, GtkBox)

void onyx_graph_path_bar_set_state (OnyxGraphPathBar *self,
                                    OnyxViewState    *state);

G_END_DECLS
