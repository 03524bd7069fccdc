/* onyx-graph-view.h: the graph shown, as a part of the window: the canvas, the
 * layout session that lays the graph out, and the progress of a long layout.
 *
 * It follows the view state (onyx-view-state.h): the graph shown and its document,
 * each step's analysis (then it lays out again), the selection (drawn, its group
 * opened when it is hidden), the decorations other parts publish (tints, problem
 * dots, tensor notes). What is clicked becomes the state's selection. Its actions,
 * in the group it gives the window ("graph"): select-node (i: a position in the
 * graph shown), select-tensor (s), open-graph (s: a graph's name), graph-up,
 * step-stack (i: by how many members), cancel-layout, export-view, export-graph. */
#pragma once

#include <adwaita.h>

#include "onyx-view-state.h"

G_BEGIN_DECLS

#define ONYX_TYPE_GRAPH_VIEW (onyx_graph_view_get_type ())
G_DECLARE_FINAL_TYPE (OnyxGraphView, onyx_graph_view, ONYX, GRAPH_VIEW, AdwBin)

void          onyx_graph_view_set_state    (OnyxGraphView *self,
                                            OnyxViewState *state);
GActionGroup *onyx_graph_view_get_actions  (OnyxGraphView *self);
/* The whole graph, or exactly the visible area at the current zoom (view_only), into
 * a .png or .svg file, drawn in a job: FALSE when it cannot start; a toast or an
 * error dialog says how it ended. */
gboolean      onyx_graph_view_export_image (OnyxGraphView *self,
                                            GFile         *file,
                                            gboolean       view_only,
                                            GError       **error);

G_END_DECLS
