/* onyx-dialogs.h: the small dialogs every part shows alike: an error, a question,
 * a file chooser beside the open model. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* A dialog saying what failed (heading) and why (message, or nothing when NULL). */
void                  onyx_show_error          (GtkWindow        *parent,
                                                const char       *heading,
                                                const char       *message);
/* Shows `dialog` with Cancel and `label` (the suggested response `response`, the
 * default; Escape cancels); `callback` gets the "response" signal with `data`. */
void                  onyx_ask                 (AdwMessageDialog *dialog,
                                                const char       *response,
                                                const char       *label,
                                                GCallback         callback,
                                                gpointer          data);
/* "ONNX Models" and "All Files" filters for a file chooser. */
void                  onyx_add_onnx_filter     (GtkFileChooser   *chooser);
/* A file chooser starting in the folder of `near` (may be NULL). */
GtkFileChooserNative *onyx_file_chooser_new    (GtkWindow            *parent,
                                                GFile                *near,
                                                const char           *title,
                                                const char           *accept,
                                                GtkFileChooserAction  action);
/* What to do with the file chosen: FALSE and *error when it cannot be done. */
typedef gboolean (*OnyxFileFunc) (gpointer owner, GFile *file, GError **error);
/* Shows `chooser` (taken); when a file is chosen `func` gets it with `owner`
 * (kept meanwhile), and a failure shows `error_heading` with the error. */
void                  onyx_file_chooser_run    (GtkFileChooserNative *chooser,
                                                OnyxFileFunc          func,
                                                gpointer              owner,
                                                const char           *error_heading);

G_END_DECLS
