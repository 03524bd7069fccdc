/* onyx-graph-view-private.h: what the onyx-graph-view*.c files share. */
#pragma once

#include "onyx-canvas.h"
#include "onyx-graph-view.h"
#include "onyx-layout-session.h"

G_BEGIN_DECLS

struct _OnyxGraphView {
  AdwBin parent_instance;

  OnyxCanvas *canvas;
  GtkRevealer *progress_revealer;
  GtkProgressBar *progress_bar;

  OnyxViewState *state;
  OnyxLayoutSession *layout;
  GSimpleActionGroup *actions;
  guint progress_source;
  OnyxLayout *layout_waiting;     /* made, to be shown after a full frame (onyx-frame-share.h) */
  gboolean waiting_keeps_view;
  int reveal;                     /* OnyxReveal asked for a box not laid out yet, or -1 */
  gconstpointer shown_document;   /* what the layout session was last given */
  gconstpointer shown_graph;
};

/* onyx-graph-view-actions.c */
void onyx_graph_view_init_actions      (OnyxGraphView *self);
void onyx_graph_view_update_actions    (OnyxGraphView *self);
/* The stack `stack` (a layout node) shows the member `step` members on, the
 * selected node following as its twin. */
void onyx_graph_view_step_stack        (OnyxGraphView *self,
                                        int            stack,
                                        int            step);
/* onyx-graph-view-export.c */
void onyx_graph_view_add_export_actions (OnyxGraphView *self);

G_END_DECLS
