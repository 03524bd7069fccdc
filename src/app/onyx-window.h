/* onyx-window.h: one window per open model. The window builds its parts (header
 * bar, Find, the graph view, the properties panel, the Problems, Compare and Run
 * panes, the files, the editor, Generate and Convert Opset), gives them one view
 * state (onyx-view-state.h) and places them; they do the rest. */
#pragma once

#include <adwaita.h>

#include "onyx-document.h"
#include "onyx-view-state.h"

G_BEGIN_DECLS

#define ONYX_TYPE_WINDOW (onyx_window_get_type ())
G_DECLARE_FINAL_TYPE (OnyxWindow, onyx_window, ONYX, WINDOW, AdwApplicationWindow)

OnyxWindow    *onyx_window_new            (GtkApplication *application);
/* Loads the model in a job (the window shows that it is opening), then shows it and
 * starts laying it out, or shows why it cannot. */
void           onyx_window_open_file      (OnyxWindow     *self,
                                           GFile          *file);
/* The same, then shows `graph` (a name as `onyx-cli graphs` gives it; NULL: the main
 * graph), or says in a toast that the model has no such graph. */
void           onyx_window_open_file_at   (OnyxWindow     *self,
                                           GFile          *file,
                                           const char     *graph);
gboolean       onyx_window_is_opening     (OnyxWindow     *self);
/* Whether a model is shown or being opened (an empty or error window can be reused). */
gboolean       onyx_window_has_model      (OnyxWindow     *self);
/* What the window shows, which its parts share. */
OnyxViewState *onyx_window_get_view_state (OnyxWindow     *self);
/* The model shown, or NULL: an empty window, one opening a file, or one saying why
 * it could not. */
OnyxDocument  *onyx_window_get_document   (OnyxWindow     *self);
/* The file shown or being opened, or NULL. */
GFile         *onyx_window_get_file       (OnyxWindow     *self);
/* What the window shows: "empty", "opening", "error" or "model". */
const char    *onyx_window_get_page       (OnyxWindow     *self);

G_END_DECLS
