/* onyx-window-private.h: what the onyx-window*.c siblings (and the UI test) share. */
#pragma once

#include "onyx-window.h"
#include "onyx-activity.h"
#include "onyx-canvas.h"
#include "onyx-compare-pane.h"
#include "onyx-diagnose.h"
#include "onyx-problem-list.h"
#include "onyx-document.h"
#include "onyx-graph-names.h"
#include "onyx-layout.h"
#include "onyx-layout-session.h"
#include "onyx-problems-pane.h"
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
  GtkWidget *undo_button;
  GtkWidget *redo_button;
  GMenu *edit_section;            /* Undo/Redo items naming the step */

  GSettings *settings;
  GFile *file;
  OnyxDocument *document;
  OnyxLayoutSession *layout;      /* of the graph shown */
  OnyxActivity *activity;         /* background jobs, the header bar's spinner */

  OnyxSelectionKind selection;
  Onnx__NodeProto *selected_node;
  char *selected_tensor;

  gboolean close_confirmed;
  GFile *pending_open;            /* opened once unsaved changes are dealt with */
  GCancellable *open_cancellable; /* a file being opened: read in a thread, then shown */
  void (*after_save) (OnyxWindow *self); /* closing or opening over unsaved changes */
  guint follow_change;            /* idle: the Problems list and panel after a step */
  gboolean present_selection;     /* Find: the next box selected is zoomed to readable */
  gboolean generating;            /* Generate Tokens runs (onyx-window-generate.c) */

  /* The parts: each struct is defined, and only touched, in its own file (freed with
   * the window, after dispose). */
  struct _OnyxWindowGraphs *graphs;       /* onyx-window-graphs.c */
  struct _OnyxWindowFind *find;           /* onyx-window-find.c */
  struct _OnyxWindowRecent *recent;       /* onyx-window-recent.c */
  struct _OnyxWindowCompare *compare;     /* onyx-window-compare.c */
  struct _OnyxWindowRun *run;             /* onyx-window-run.c */
  struct _OnyxWindowProblems *problems;   /* onyx-window-problems.c */
};

/* onyx-window.c */
OnyxSelectionKind onyx_window_get_selection (OnyxWindow *self);
/* The selected node, or NULL when the selection is no node. */
Onnx__NodeProto  *onyx_window_get_selected_node (OnyxWindow *self);
/* The selected tensor's name, or NULL when the selection is no tensor. */
const char       *onyx_window_get_selected_tensor (OnyxWindow *self);
void     onyx_window_update_state   (OnyxWindow *self);
void     onyx_window_update_title   (OnyxWindow *self);
/* The window follows its document's "changed" (after the layout session does). */
void     onyx_window_follow_document (OnyxWindow *self);
/* Notifies "document" after self->document was replaced. */
void     onyx_window_notify_document (OnyxWindow *self);

/* onyx-window-open.c */
/* Leaves the document shown: the panes, the layout and the selection let go of it. */
void     onyx_window_close_document (OnyxWindow *self);
/* The Problems list and the properties panel follow a step in a main-loop turn after
 * its frame; this brings them up to date now (before reading them at once). */
void     onyx_window_settle         (OnyxWindow *self);
/* An object of the window's template that a part (onyx-window-*.c) keeps for itself;
 * its class_init declares the id with gtk_widget_class_bind_template_child_full. */
GObject *onyx_window_template_child (OnyxWindow *self, const char *id);
void     onyx_window_select_model   (OnyxWindow *self);
void     onyx_window_select_node    (OnyxWindow *self, Onnx__NodeProto *node);
void     onyx_window_select_tensor  (OnyxWindow *self, const char *name);
/* The selection's box is brought into view readable (zoomed in from an overview),
 * now or once the layout that opens its group is done (Find). */
void     onyx_window_present_selection (OnyxWindow *self);
/* The canvas shows the selection of the window (after a selection or a new layout). */
void     onyx_window_sync_canvas_selection (OnyxWindow *self);
void     onyx_window_toast          (OnyxWindow *self, const char *message, gboolean with_undo);
/* A dialog saying what failed (heading) and why (message, or nothing when NULL). */
void     onyx_window_show_error     (OnyxWindow *self, const char *heading, const char *message);
/* Shows `dialog` with Cancel and `label` (the suggested response `response`, the
 * default; Escape cancels); `callback` gets the "response" signal with `self`. */
void     onyx_window_ask            (OnyxWindow *self, AdwMessageDialog *dialog, const char *response,
                                     const char *label, GCallback callback);
/* Asks Save / Discard / Cancel when the document is modified, then calls `then`
 * (unless cancelled). */
typedef void (*OnyxWindowThen) (OnyxWindow *self);
void     onyx_window_confirm_discard (OnyxWindow *self, OnyxWindowThen then);
/* Validates and saves in a thread; problems are listed in a dialog first. TRUE when
 * the file is being written (FALSE when it failed at once or a dialog is asking);
 * the document stays frozen until it is written, then a toast says so. */
gboolean onyx_window_save_file      (OnyxWindow *self, GFile *file);

/* A background job of the window (a save, a conversion): the header bar's spinner
 * names it once it runs for a while (onyx-activity.h). `_begin` returns what to hand
 * the job's callback; `_end` there returns the window (a reference). */
typedef struct _OnyxWindowJob OnyxWindowJob;
OnyxWindowJob *onyx_window_job_begin (OnyxWindow *self, const char *label);
OnyxWindow    *onyx_window_job_end   (OnyxWindowJob *job);
/* How far it is, 0 to 1 (the spinner's tooltip says the percent). */
void           onyx_window_job_set_progress (OnyxWindowJob *job, double fraction);
OnyxActivity  *onyx_window_get_activity (OnyxWindow *self);

/* A layout is being made (onyx-layout-session.h). */
gboolean onyx_window_is_laying_out  (OnyxWindow *self);

/* onyx-window-find.c: the search bar (Ctrl+F) */
typedef struct _OnyxWindowFind OnyxWindowFind;
void     onyx_window_class_init_find (GtkWidgetClass *widget_class);
void     onyx_window_init_find      (OnyxWindow *self);
void     onyx_window_find_update_state (OnyxWindow *self, gboolean doc);

/* onyx-window-actions.c */
void     onyx_window_class_init_actions (GtkWidgetClass *widget_class);
/* After an edit function returned: toast on success, error dialog otherwise. */
void     onyx_window_edit_done      (OnyxWindow *self, gboolean ok, GError *error);
/* "ONNX Models" and "All Files" filters for a file chooser. */
void     onyx_window_add_onnx_filter (GtkFileChooser *chooser);
/* A file chooser starting beside the open model that hands the chosen file to
 * `func`, and shows `error_heading` with the error when that fails; the caller adds
 * filters and shows it. */
typedef gboolean (*OnyxWindowFileFunc) (OnyxWindow *self, GFile *file, GError **error);
GtkFileChooserNative *onyx_window_file_chooser_new (OnyxWindow *self, const char *title, const char *accept,
                                                    GtkFileChooserAction action, OnyxWindowFileFunc func,
                                                    const char *error_heading);

/* onyx-window-dnd.c */
void     onyx_window_init_dnd       (OnyxWindow *self);
/* Opens `file` here once unsaved changes are saved or discarded (drops, recent models). */
void     onyx_window_open_confirmed (OnyxWindow *self, GFile *file);

/* onyx-window-recent.c */
void     onyx_window_class_init_recent (GtkWidgetClass *widget_class);
void     onyx_window_init_recent    (OnyxWindow *self);
typedef struct _OnyxWindowRecent OnyxWindowRecent;
/* The empty page's list of recent models, a row each. */
GtkListBox *onyx_window_recent_get_list (OnyxWindow *self);
/* Records a model that was opened or saved (GSettings recent-models, GtkRecentManager). */
void     onyx_window_recent_add     (OnyxWindow *self, GFile *file);

/* onyx-window-export.c: the whole graph, or exactly the visible area at the current
 * zoom (view_only), into a .png or .svg file, drawn in a thread: FALSE when it cannot
 * start; a toast or an error dialog says how it ended. */
void     onyx_window_class_init_export (GtkWidgetClass *widget_class);
gboolean onyx_window_export_image   (OnyxWindow *self, GFile *file, gboolean view_only,
                                     GError **error);

/* onyx-window-repair.c: Replace Operator…, Insert Node After…, Extract to New Model…,
 * Convert Opset… */
void     onyx_window_class_init_repair (GtkWidgetClass *widget_class);
/* Called by onyx_window_update_state with what it found. */
void     onyx_window_update_repair_state (OnyxWindow *self, gboolean editable, gboolean node);

/* onyx-window-compare.c: the open model (B, the newer one) compared with a file (A):
 * the differences listed in a sidebar and framed in colour on the graph. The diff is
 * computed again after each edit, in a thread. */
void     onyx_window_class_init_compare (GtkWidgetClass *widget_class);
void     onyx_window_init_compare   (OnyxWindow *self);
void     onyx_window_compare_dispose (OnyxWindow *self);
typedef struct _OnyxWindowCompare OnyxWindowCompare;
/* A model is being compared with (the pane is shown). */
gboolean onyx_window_compare_is_open (OnyxWindow *self);
/* How the document differs from the model compared with, as last worked out; NULL
 * when nothing is compared. */
const OnyxDiff *onyx_window_compare_get_diff (OnyxWindow *self);
gboolean onyx_window_compare_with   (OnyxWindow *self, GFile *file, GError **error);
/* The diff is being worked out (in a thread, the document frozen). */
gboolean onyx_window_is_comparing   (OnyxWindow *self);
void     onyx_window_compare_stop   (OnyxWindow *self);
/* After a new layout: the frames follow it (collapsed groups take their nodes'). */
void     onyx_window_compare_update_tints (OnyxWindow *self);

/* onyx-window-run.c: Run with ONNX Runtime (F5), with random inputs or an .npz's,
 * compared with another model or reference arrays; the Run pane and the graph's
 * colours. */
typedef struct _OnyxWindowRun OnyxWindowRun;
void     onyx_window_class_init_run (GtkWidgetClass *widget_class);

/* Run ▸ Generate Tokens… (onyx-window-generate.c): feeds an LLM its own tokens with
 * its KV cache in a thread, then shows the steps in a dialog. FALSE (and *error)
 * when the prompt is not token ids. */
gboolean onyx_window_generate (OnyxWindow *self, const char *prompt, guint n_new, GError **error);
void     onyx_window_generate_update_state (OnyxWindow *self, gboolean doc);
void     onyx_window_class_init_generate (GtkWidgetClass *widget_class);
void     onyx_window_init_run       (OnyxWindow *self);
/* Cancels a run under way, forgets inputs and comparison, hides the pane. */
void     onyx_window_run_reset      (OnyxWindow *self);
gboolean onyx_window_run_is_running (OnyxWindow *self);
void     onyx_window_run_update_state (OnyxWindow *self, gboolean doc);
/* After a new layout or a new result: the colours follow. */
void     onyx_window_run_update_tints (OnyxWindow *self);
/* The pane lists the selection's tensors. */
void     onyx_window_run_selection_changed (OnyxWindow *self);
/* Feeds the next runs from an .npz (arrays that are no graph input are left) and runs. */
gboolean onyx_window_run_with_inputs (OnyxWindow *self, GFile *file, GError **error);
/* Compares the next runs with a model (.onnx) or reference arrays (.npz) and runs. */
gboolean onyx_window_run_compare_with (OnyxWindow *self, GFile *file, GError **error);
/* The Run Settings dialog (inputs made, symbolic dims); its Run runs with them. */
struct _OnyxRunSettings *onyx_window_run_show_settings (OnyxWindow *self);
/* Selects the node of the first divergence: FALSE when there is none. */
gboolean onyx_window_run_go_to_first_divergence (OnyxWindow *self);
/* Saves the divergent node cut out as `file` with its inputs beside it (.npz), in
 * the background; a toast says when. FALSE when there is nothing to save. */
gboolean onyx_window_run_save_repro (OnyxWindow *self, GFile *file);

/* onyx-window-problems.c: the problems of the open model, kept up to date edit by
 * edit. */
void     onyx_window_class_init_problems (GtkWidgetClass *widget_class);
void     onyx_window_init_problems  (OnyxWindow *self);
typedef struct _OnyxWindowProblems OnyxWindowProblems;
/* The header bar's button works with a document only. */
void     onyx_window_problems_update_state (OnyxWindow *self, gboolean doc);
/* The document's problems, kept up to date, or NULL without a document. */
OnyxProblemList *onyx_window_problems_get_diagnostics (OnyxWindow *self);
void     onyx_window_problems_dispose (OnyxWindow *self);
/* Right after the document is made (its OnyxProblemList follow "changed" first), with its
 * problems when they were worked out already (taken; NULL: now), and when it goes. */
void     onyx_window_problems_attach (OnyxWindow *self, OnyxProblemList *diagnostics);
void     onyx_window_problems_detach (OnyxWindow *self);
/* The document's shapes and validation were made after a step: their problems follow. */
void     onyx_window_problems_snapshot_ready (OnyxWindow *self);
/* After a new layout: the dots follow it (closed groups show their nodes'). */
void     onyx_window_problems_update_badges (OnyxWindow *self);
/* After a step (onyx_window_settle): the list and the header's count. */
void     onyx_window_problems_refresh (OnyxWindow *self);

/* onyx-window-graphs.c: the graph shown (main, a subgraph, a function) and going
 * into and out of graphs. */
void              onyx_window_class_init_graphs (GtkWidgetClass *widget_class);

/* onyx-window-stacks.c: stepping through a stack (layout node `stack`) by `step`
 * members, the selected node following as its twin in the member shown next. */
void              onyx_window_step_stack        (OnyxWindow     *self,
                                                 int             stack,
                                                 int             step);
void              onyx_window_class_init_stacks (GtkWidgetClass *widget_class);
void              onyx_window_init_graphs   (OnyxWindow *self);
Onnx__GraphProto *onyx_window_get_graph     (OnyxWindow *self);
typedef struct _OnyxWindowGraphs OnyxWindowGraphs;
gboolean          onyx_window_shows_main_graph (OnyxWindow *self);
/* The header's "main › /If › then_branch" bar, hidden on the main graph. */
GtkWidget        *onyx_window_graphs_get_path_bar (OnyxWindow *self);
OnyxGraphIndex   *onyx_window_get_graph_index (OnyxWindow *self);
/* A model-local function is shown (read only). */
gboolean          onyx_window_shows_function (OnyxWindow *self);
/* Shows `graph` (the main graph, or a subgraph of the document), fitted. */
void              onyx_window_show_graph    (OnyxWindow *self, Onnx__GraphProto *graph);
/* `node` if it is in the graph shown, else the node of that graph holding it; NULL
 * when neither is. */
Onnx__NodeProto  *onyx_window_node_in_view  (OnyxWindow *self, const Onnx__NodeProto *node);
/* After a change of the document: back to the main graph if the one shown went. */
void              onyx_window_graphs_document_changed (OnyxWindow *self);
/* Back to the main graph, for a new document. */
void              onyx_window_graphs_reset  (OnyxWindow *self);

/* onyx-window-journal.c: unsaved edits kept on disk, offered back after a crash */
void     onyx_window_journal_update        (OnyxWindow *self);
void     onyx_window_journal_discard       (OnyxWindow *self);
void     onyx_window_journal_offer_restore (OnyxWindow *self);

G_END_DECLS
