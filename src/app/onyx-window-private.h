/* onyx-window-private.h: what the onyx-window*.c siblings (and the UI test) share. */
#pragma once

#include "onyx-window.h"
#include "onyx-canvas.h"
#include "onyx-document.h"
#include "onyx-layout.h"
#include "onyx-properties.h"

G_BEGIN_DECLS

typedef enum {
  ONYX_SELECTION_MODEL,
  ONYX_SELECTION_NODE,
  ONYX_SELECTION_TENSOR,
} OnyxSelectionKind;

struct _OnyxWindow {
  AdwApplicationWindow parent_instance;

  /* template children */
  AdwToastOverlay *toast_overlay;
  AdwWindowTitle *window_title;
  GtkStack *stack;
  AdwStatusPage *error_page;
  OnyxCanvas *canvas;
  OnyxProperties *properties;
  GtkRevealer *progress_revealer;
  GtkProgressBar *progress_bar;
  GtkSearchBar *search_bar;
  GtkSearchEntry *search_entry;
  GtkLabel *search_status;
  GtkToggleButton *find_button;
  GtkWidget *undo_button;
  GtkWidget *redo_button;
  GMenu *edit_section;            /* Undo/Redo items naming the step */

  GSettings *settings;
  GFile *file;
  OnyxDocument *document;
  OnyxLayoutEngine *engine;

  /* layout in progress */
  GCancellable *layout_cancellable;
  gboolean layout_pending;        /* another layout was asked for meanwhile */
  gboolean layout_keep_view;
  int progress_permille;          /* written by the worker, read by a UI timeout */
  guint progress_source;
  GPtrArray *expanded;            /* char* scopes opened by the user */
  GPtrArray *collapsed;           /* char* scopes closed by the user */

  OnyxSelectionKind selection;
  Onnx__NodeProto *selected_node;
  char *selected_tensor;

  guint find_position;
  gboolean close_confirmed;
  void (*after_save) (OnyxWindow *self); /* closing or opening over unsaved changes */
};

/* onyx-window.c */
void     onyx_window_update_state   (OnyxWindow *self);
void     onyx_window_select_model   (OnyxWindow *self);
void     onyx_window_select_node    (OnyxWindow *self, Onnx__NodeProto *node);
void     onyx_window_select_tensor  (OnyxWindow *self, const char *name);
void     onyx_window_relayout       (OnyxWindow *self, gboolean keep_view);
gboolean onyx_window_is_laying_out  (OnyxWindow *self);
void     onyx_window_toast          (OnyxWindow *self, const char *message, gboolean with_undo);
/* Asks Save / Discard / Cancel when the document is modified, then calls `then`
 * (unless cancelled). */
typedef void (*OnyxWindowThen) (OnyxWindow *self);
void     onyx_window_confirm_discard (OnyxWindow *self, OnyxWindowThen then);
/* Validates and saves; problems are listed in a dialog first. TRUE when the file
 * was written now (FALSE when it failed or a dialog is asking). */
gboolean onyx_window_save_file      (OnyxWindow *self, GFile *file);

/* onyx-window-actions.c */
void     onyx_window_class_init_actions (GtkWidgetClass *widget_class);
/* After an edit function returned: toast on success, error dialog otherwise. */
void     onyx_window_edit_done      (OnyxWindow *self, gboolean ok, GError *error);

/* onyx-window-dnd.c */
void     onyx_window_init_dnd       (OnyxWindow *self);

/* onyx-window-journal.c: unsaved edits kept on disk, offered back after a crash */
void     onyx_window_journal_update        (OnyxWindow *self);
void     onyx_window_journal_discard       (OnyxWindow *self);
void     onyx_window_journal_offer_restore (OnyxWindow *self);

G_END_DECLS
