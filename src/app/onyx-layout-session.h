/* onyx-layout-session.h: the layout of the graph the window shows, made off the UI
 * thread, and the canvas kept showing it.
 *
 * The session owns the layout engine of the graph shown and the groups the user
 * opened or closed. One layout runs at a time, in a thread (libgvc is not
 * thread-safe), with the document frozen meanwhile (onyx_document_freeze): after an
 * edit that thread also makes the document's whole-model snapshot, its shapes (which
 * label the edges) and validation, and rebuilds the engine's items, so an edit costs
 * the UI thread none of it. A layout
 * asked for while one runs follows it; a progress bar shows after 300 ms. */
#pragma once

#include <gtk/gtk.h>

#include "onyx-canvas.h"
#include "onyx-document.h"
#include "onyx-layout.h"

G_BEGIN_DECLS

#define ONYX_TYPE_LAYOUT_SESSION (onyx_layout_session_get_type ())
G_DECLARE_FINAL_TYPE (OnyxLayoutSession, onyx_layout_session, ONYX, LAYOUT_SESSION, GObject)

/* Signals: "snapshot-ready" (the document's shapes and validation were made for its
 * current state),
 * "laid-out" (the canvas shows a new layout), "cancelled" (a layout was cancelled
 * by the user, not replaced). Property: "busy" (a layout is being made). */
OnyxLayoutSession *onyx_layout_session_new (OnyxCanvas     *canvas,
                                            GtkRevealer    *progress_revealer,
                                            GtkProgressBar *progress_bar,
                                            GSettings      *settings);
/* The graph to lay out from now on: its engine (taken) and the document it belongs
 * to; NULL for none. Each step of the document lays it out again (shapes and items
 * made anew, view kept). A layout running is cancelled quietly; the opened and closed
 * groups are forgotten. */
void              onyx_layout_session_set_graph (OnyxLayoutSession *self,
                                                 OnyxDocument      *document,
                                                 OnyxLayoutEngine  *engine);
/* The engine of the graph shown; NULL while a layout runs (its thread changes it). */
OnyxLayoutEngine *onyx_layout_session_get_engine (OnyxLayoutSession *self);
/* Lays the graph out again; `keep_view` keeps zoom and position. */
void              onyx_layout_session_relayout (OnyxLayoutSession *self,
                                                gboolean           keep_view);
/* Cancels the layout running and the one asked for after it, if any. */
void              onyx_layout_session_cancel (OnyxLayoutSession *self);
gboolean          onyx_layout_session_is_busy (OnyxLayoutSession *self);
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
/* The window goes: nothing is shown any more, a running layout ends unseen. */
void              onyx_layout_session_detach (OnyxLayoutSession *self);

G_END_DECLS
