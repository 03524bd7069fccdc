/* onyx-layout-session.h: the layout of the graph a window shows, made off the UI
 * thread.
 *
 * The session owns the layout engine of the graph shown and the groups the user
 * opened or closed (the one place that holds them). One layout runs at a time, as a
 * job (onyx-jobs.h; libgvc is not thread-safe) with the document frozen meanwhile;
 * after a step of the document it rebuilds the engine's items first. A layout asked
 * for while one runs follows it. Shapes label the edges as the document has them
 * (its analysis comes before the layout, onyx-view-state.h). */
#pragma once

#include <gtk/gtk.h>

#include "onyx-document.h"
#include "onyx-jobs.h"
#include "onyx-layout.h"

G_BEGIN_DECLS

#define ONYX_TYPE_LAYOUT_SESSION (onyx_layout_session_get_type ())
G_DECLARE_FINAL_TYPE (OnyxLayoutSession, onyx_layout_session, ONYX, LAYOUT_SESSION, GObject)

/* Signals: "laid-out" (OnyxLayout *layout, taken by the handler; gboolean
 * keep_view), "cancelled" (a layout was cancelled by the user, not replaced).
 * Property: "busy" (a layout is being made). */
OnyxLayoutSession *onyx_layout_session_new (OnyxJobs  *jobs,
                                            GSettings *settings);
/* The graph to lay out from now on: its engine (taken) and the document it belongs
 * to; NULL for none. A layout running is cancelled quietly; the opened and closed
 * groups are forgotten. */
void              onyx_layout_session_set_graph (OnyxLayoutSession *self,
                                                 OnyxDocument      *document,
                                                 OnyxLayoutEngine  *engine);
/* The document changed: the next layout builds the engine's items anew (the old
 * ones point into the model as it was). */
void              onyx_layout_session_graph_changed (OnyxLayoutSession *self);
/* The engine of the graph shown; NULL while a layout runs (its thread changes it). */
OnyxLayoutEngine *onyx_layout_session_get_engine (OnyxLayoutSession *self);
/* Lays the graph out again; `keep_view` keeps zoom and position. */
void              onyx_layout_session_relayout (OnyxLayoutSession *self,
                                                gboolean           keep_view);
/* Cancels the layout running and the one asked for after it, if any. */
void              onyx_layout_session_cancel (OnyxLayoutSession *self);
gboolean          onyx_layout_session_is_busy (OnyxLayoutSession *self);
/* How far the layout running is, 0 to 1. */
double            onyx_layout_session_get_progress (OnyxLayoutSession *self);
/* A click on a group's box: opens a closed group, closes an open one, and lays out. */
void              onyx_layout_session_toggle_group (OnyxLayoutSession    *self,
                                                    const OnyxLayoutNode *group);
/* Shows member `index` of the stack `stack` (a layout node with stack_size > 0):
 * opens it there, and lays out again. */
void              onyx_layout_session_show_stack_member (OnyxLayoutSession    *self,
                                                         const OnyxLayoutNode *stack,
                                                         guint                 index);
/* Opens the groups around the node at `position` of the graph (its name's scopes,
 * "/a/b/Conv" in "a" and "a/b"; in a stack, its member becomes the one shown) and
 * lays out again when one was closed. */
void              onyx_layout_session_open_scopes_of (OnyxLayoutSession *self,
                                                      gssize             position);

G_END_DECLS
