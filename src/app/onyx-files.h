/* onyx-files.h: the model's file, a part of the window: opening (read in a job, then
 * shown, then the graph asked for at start-up, then its crash journal offered back),
 * saving (validated first, written in a job), asking what to do with unsaved changes
 * before they would be lost, keeping the journal of unsaved edits, and drops of
 * model files. Its actions, in the group it gives the window ("file"): open, save,
 * save-as, open-recent (s: a URI). */
#pragma once

#include <gtk/gtk.h>

#include "onyx-view-state.h"

G_BEGIN_DECLS

#define ONYX_TYPE_FILES (onyx_files_get_type ())
G_DECLARE_FINAL_TYPE (OnyxFiles, onyx_files, ONYX, FILES, GSimpleActionGroup)

OnyxFiles *onyx_files_new             (OnyxViewState *state);
/* Reads `file` in a job (the page says so), then shows it at `graph` (a name as
 * `onyx-cli graphs` gives it; NULL: the main graph), or shows why it cannot. */
void       onyx_files_open            (OnyxFiles     *self,
                                       GFile         *file,
                                       const char    *graph);
gboolean   onyx_files_is_opening      (OnyxFiles     *self);
/* Validates and saves in a job; problems are listed in a dialog first. TRUE when
 * the file is being written (FALSE when it failed at once or a dialog is asking);
 * the document stays frozen until it is written, then a toast says so. */
gboolean   onyx_files_save            (OnyxFiles     *self,
                                       GFile         *file);
/* Asks Save / Discard / Cancel when the document is modified, then calls `then`
 * with `data` (unless cancelled). */
typedef void (*OnyxFilesThen) (gpointer data);
void       onyx_files_confirm_discard (OnyxFiles     *self,
                                       OnyxFilesThen  then,
                                       gpointer       data);
/* The journal of unsaved edits goes (they were saved or discarded). */
void       onyx_files_discard_journal (OnyxFiles     *self);
/* Model files dropped on `widget` are opened: the first here, after asking about
 * unsaved changes, the others in windows of their own. */
void       onyx_files_accept_drops    (OnyxFiles     *self,
                                       GtkWidget     *widget);

G_END_DECLS
