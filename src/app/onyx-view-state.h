/* onyx-view-state.h: what a window shows, in one object the window's parts share.
 *
 * The document and its file, the page (empty, opening, error, model), the graph
 * shown, the selection, the layout on the canvas, the decorations drawn on its boxes
 * (the colours of a run or a comparison, problem dots), whether the model can be
 * edited now, and the window's background jobs. Parts read it and listen to it; they
 * never call each other or the window: what one part has to say to the others it
 * says here (a selection, a graph to show, a message for a toast).
 *
 * It also holds the order after an edit, in one place. On each do, undo and redo of
 * the document it
 *   1. checks the graph shown (back to the main graph when it went) and the
 *      selection (the model's when it went), then emits "stepped";
 *   2. analyses the new revision in a job (shapes and validation, onyx-analysis.h),
 *      offers it to the document, then emits "analysed": the layout follows from
 *      there;
 *   3. emits "laid-out" once the canvas shows the step's layout (the graph view
 *      calls onyx_view_state_set_layout);
 *   4. emits "settled" in a low-priority main-loop turn after the step's frame, for
 *      what takes a while and can wait (the Problems list, the properties panel).
 * Handlers of one phase do not depend on each other. */
#pragma once

#include <adwaita.h>

#include "onyx-decorations.h"
#include "onyx-document.h"
#include "onyx-graph-names.h"
#include "onyx-jobs.h"
#include "onyx-layout.h"
#include "onyx-problem-list.h"
#include "onyx-profiles.h"
#include "onyx-run.h"

G_BEGIN_DECLS

#define ONYX_TYPE_VIEW_STATE (onyx_view_state_get_type ())
G_DECLARE_FINAL_TYPE (OnyxViewState, onyx_view_state, ONYX, VIEW_STATE, GObject)

typedef enum {
  ONYX_SELECTION_MODEL,
  ONYX_SELECTION_NODE,
  ONYX_SELECTION_TENSOR,
} OnyxSelectionKind;

/* How the canvas brings the selected box into view. */
typedef enum {
  ONYX_REVEAL_SCROLL,     /* into view, centred when it was not, zoom kept */
  ONYX_REVEAL_CENTER,     /* to the centre, zoom kept */
  ONYX_REVEAL_READABLE,   /* zoomed to readable from an overview (Find) */
} OnyxReveal;

/* Properties (read-only, notified): "document" (OnyxDocument), "file" (GFile),
 * "page" (string), "graph" (gpointer, the Onnx__GraphProto shown), "selection"
 * (notified on every selection), "laying-out", "editable" (gboolean).
 * Signals: "stepped" (const OnyxChange *, NULL when only saved), "analysed",
 * "laid-out", "settled" (see above); "reveal" (OnyxReveal): bring the selected box
 * into view as asked; "focus-graph"; "tints-changed", "badges-changed",
 * "notes-changed"; "profile-changed" (a profile shown, cleared, or of an earlier
 * revision now); "toast"
 * (const char *message, gboolean with_undo); "open-elsewhere" (GFile *);
 * "compare-with" (OnyxModel *model, const char *name). */

OnyxViewState    *onyx_view_state_new            (GtkWindow      *window);
/* The window dialogs are made for (weak), the app's settings, the background jobs. */
GtkWindow        *onyx_view_state_get_window     (OnyxViewState  *self);
GSettings        *onyx_view_state_get_settings   (OnyxViewState  *self);
OnyxJobs         *onyx_view_state_get_jobs       (OnyxViewState  *self);

/* ---- The model ---- */

OnyxDocument     *onyx_view_state_get_document   (OnyxViewState  *self);
GFile            *onyx_view_state_get_file       (OnyxViewState  *self);
/* "empty", "opening", "error" or "model". */
const char       *onyx_view_state_get_page       (OnyxViewState  *self);
/* Why the last file could not be opened (the "error" page), or NULL. */
const char       *onyx_view_state_get_error      (OnyxViewState  *self);
/* A file is being read: the page says so, the document shown goes. */
void              onyx_view_state_set_opening    (OnyxViewState  *self,
                                                  GFile          *file);
/* It could not be: the error page, with `message`. */
void              onyx_view_state_set_failed     (OnyxViewState  *self,
                                                  const char     *message);
/* It was read: `document` with its problems (taken; NULL: made now) and the layout
 * engine of its main graph (taken; NULL: made when needed). */
void              onyx_view_state_set_document   (OnyxViewState    *self,
                                                  OnyxDocument     *document,
                                                  OnyxProblemList  *problems,
                                                  OnyxLayoutEngine *engine);
/* The document goes: the empty page. */
void              onyx_view_state_clear          (OnyxViewState  *self);
/* The file the document is saved as from now on. */
void              onyx_view_state_set_file       (OnyxViewState  *self,
                                                  GFile          *file);
/* The problems of the document, kept up to date, or NULL without one. */
OnyxProblemList  *onyx_view_state_get_problems   (OnyxViewState  *self);
/* The engine made with the document (onyx_view_state_set_document), once: the
 * graph view takes it for the first layout. */
OnyxLayoutEngine *onyx_view_state_take_engine    (OnyxViewState  *self);

/* ---- The graph shown ---- */

Onnx__GraphProto *onyx_view_state_get_graph      (OnyxViewState  *self);
OnyxGraphIndex   *onyx_view_state_get_graph_index (OnyxViewState *self);
gboolean          onyx_view_state_shows_main_graph (OnyxViewState *self);
/* A model-local function is shown (read only). */
gboolean          onyx_view_state_shows_function (OnyxViewState  *self);
/* The list a function shown belongs to (its view is this list's), or NULL. */
OnyxGraphList    *onyx_view_state_get_function_list (OnyxViewState *self);
/* Shows `graph` (the main graph, or a subgraph of the document) with the model
 * selected. */
void              onyx_view_state_show_graph     (OnyxViewState    *self,
                                                  Onnx__GraphProto *graph);
/* Shows the graph named as `onyx-cli graphs` names it ("If_1:then_branch", a
 * function's name); FALSE and *error when the model has none such. */
gboolean          onyx_view_state_show_graph_named (OnyxViewState *self,
                                                    const char    *name,
                                                    GError       **error);
/* Shows the first graph `node` holds (a branch, a body) or the function it calls;
 * FALSE when it holds none. */
gboolean          onyx_view_state_open_node      (OnyxViewState   *self,
                                                  Onnx__NodeProto *node);
/* `node` if it is in the graph shown, else the node of that graph holding it; NULL
 * when neither is. */
Onnx__NodeProto  *onyx_view_state_node_in_view   (OnyxViewState         *self,
                                                  const Onnx__NodeProto *node);

/* ---- The selection ---- */

OnyxSelectionKind onyx_view_state_get_selection  (OnyxViewState  *self);
/* The selected node, or NULL when the selection is no node. */
Onnx__NodeProto  *onyx_view_state_get_selected_node (OnyxViewState *self);
/* The selected tensor's name, or NULL when the selection is no tensor. */
const char       *onyx_view_state_get_selected_tensor (OnyxViewState *self);
void              onyx_view_state_select_model   (OnyxViewState  *self);
/* A node of another graph shows its graph first. */
void              onyx_view_state_select_node    (OnyxViewState   *self,
                                                  Onnx__NodeProto *node);
void              onyx_view_state_select_tensor  (OnyxViewState  *self,
                                                  const char     *name);
/* Brings the selected box into view as `how` says, now or once a layout opened the
 * group it is in. */
void              onyx_view_state_reveal         (OnyxViewState  *self,
                                                  OnyxReveal      how);

/* The keyboard goes back to the graph (Find closed). */
void              onyx_view_state_focus_graph    (OnyxViewState  *self);

/* ---- What the canvas shows ---- */

/* The layout on the canvas and its engine (borrowed from the graph view: valid
 * until the next call); NULL while none is shown. */
void              onyx_view_state_set_layout     (OnyxViewState    *self,
                                                  const OnyxLayout *layout,
                                                  OnyxLayoutEngine *engine);
const OnyxLayout *onyx_view_state_get_layout     (OnyxViewState  *self);
/* NULL while a layout is being made: its thread changes the engine. */
OnyxLayoutEngine *onyx_view_state_get_engine     (OnyxViewState  *self);
void              onyx_view_state_set_laying_out (OnyxViewState  *self,
                                                  gboolean        laying_out);
gboolean          onyx_view_state_is_laying_out  (OnyxViewState  *self);
/* A layout's tints (one per layout node; copied; NULL to remove). */
void              onyx_view_state_set_tints      (OnyxViewState  *self,
                                                  OnyxTintLayer   layer,
                                                  const GdkRGBA  *tints,
                                                  guint           n_tints);
/* The tints to draw: the highest layer's that has any, or NULL. */
const GdkRGBA    *onyx_view_state_get_tints      (OnyxViewState  *self,
                                                  guint          *n_tints);
/* Problem dots, one OnyxCanvasBadge per layout node (copied; NULL: none). */
void              onyx_view_state_set_badges     (OnyxViewState  *self,
                                                  const guint8   *badges,
                                                  guint           n_badges);
const guint8     *onyx_view_state_get_badges     (OnyxViewState  *self,
                                                  guint          *n_badges);
/* Short texts beside boxes (a profile's shares: "12 %"), one per layout node, NULL
 * for none (copied; NULL to remove). */
void              onyx_view_state_set_box_notes  (OnyxViewState      *self,
                                                  const char *const  *notes,
                                                  guint               n_notes);
const char *const *onyx_view_state_get_box_notes (OnyxViewState      *self,
                                                  guint              *n_notes);
/* What an edge's tooltip adds of a tensor (a run's statistics): a new string or
 * NULL. One giver at a time (NULL to remove). */
typedef char *(*OnyxTensorNoteFunc) (const char *tensor, gpointer data);
void              onyx_view_state_set_tensor_note (OnyxViewState      *self,
                                                   OnyxTensorNoteFunc  note,
                                                   gpointer            data);
char             *onyx_view_state_note_tensor    (OnyxViewState  *self,
                                                  const char     *tensor);

/* ---- What was measured of the model ---- */

/* How Run and Profile make the inputs nobody gave (Run Settings): random values in
 * [0, 1) from seed 0 and Onyx's sizes of free dims until set; for the document
 * shown, and back to those when another is shown. Set copies (dims referenced). */
const OnyxRunInputs *onyx_view_state_get_run_inputs (OnyxViewState       *self);
void              onyx_view_state_set_run_inputs (OnyxViewState       *self,
                                                  const OnyxRunInputs *inputs);
/* The last profile (taken; NULL: none), made of the document at `revision`; the pass
 * of it drawn on the graph (the run profiled, or its decoding step when that is
 * shown); and the same pass of the one before it (for before and after), when of the
 * same document. */
void              onyx_view_state_set_profile    (OnyxViewState       *self,
                                                  OnyxProfile         *profile,
                                                  guint64              revision);
const OnyxProfile *onyx_view_state_get_profile   (OnyxViewState       *self,
                                                  guint64             *revision);
const OnyxProfile *onyx_view_state_get_shown_profile (OnyxViewState *self);
const OnyxProfile *onyx_view_state_get_previous_profile (OnyxViewState *self);
/* Which pass of an LLM's profile is shown: its decoding step or the prompt's pass
 * ("profile-changed" when it changes). */
void              onyx_view_state_show_decoding_step (OnyxViewState *self,
                                                      gboolean       shown);
gboolean          onyx_view_state_shows_decoding_step (OnyxViewState *self);
/* The profile shown is of the model as it is now. */
gboolean          onyx_view_state_profile_is_current (OnyxViewState  *self);

/* ---- Editing ---- */

/* A step's analysis (shapes, validation, counts) is being made. */
gboolean          onyx_view_state_is_analysing   (OnyxViewState  *self);
/* A document is shown, no thread reads it and no layout is being made. */
gboolean          onyx_view_state_is_editable    (OnyxViewState  *self);
/* The events of the order after an edit run now, not in the idle they wait for
 * (before reading the Problems list or the panel at once). */
void              onyx_view_state_settle         (OnyxViewState  *self);

/* ---- Messages ---- */

void              onyx_view_state_toast          (OnyxViewState  *self,
                                                  const char     *message,
                                                  gboolean        with_undo);
/* Opens `file` in a window of its own (Open with several files, Extract to New
 * Model…, a drop of several). */
void              onyx_view_state_open_elsewhere (OnyxViewState  *self,
                                                  GFile          *file);
/* Compares the document with `model` from now on (Simplify's Show Changes: the
 * model as it was before); `name` says what it is ("before Simplify"). */
void              onyx_view_state_compare_with   (OnyxViewState  *self,
                                                  OnyxModel      *model,
                                                  const char     *name);
/* After an edit function returned: a toast naming the step, or a dialog with the
 * error. */
void              onyx_view_state_edit_done      (OnyxViewState  *self,
                                                  gboolean        ok,
                                                  const GError   *error);

G_END_DECLS
