/* onyx-compare-pane.h: Compare With…, a part of the window: the sidebar listing
 * what differs between the open model and another one (an OnyxDiff, worked out
 * again after each step), with its count, the other model's name and a close
 * button; the differences framed on the graph (the view state's compare tints); a
 * click on a row selects what it concerns. Its actions, in the group it gives the
 * window ("compare"): with (a file chooser), close. Property "revealed": a
 * comparison is shown. */
#pragma once

#include <gtk/gtk.h>

#include "onyx-diff.h"
#include "onyx-view-state.h"

G_BEGIN_DECLS

#define ONYX_TYPE_COMPARE_PANE (onyx_compare_pane_get_type ())
G_DECLARE_FINAL_TYPE (OnyxComparePane, onyx_compare_pane, ONYX, COMPARE_PANE, GtkBox)

void        onyx_compare_pane_set_state (OnyxComparePane *self,
                                         OnyxViewState   *state);
GActionGroup *onyx_compare_pane_get_actions (OnyxComparePane *self);
/* Compares the document with `file` from now on (read in a job). */
gboolean    onyx_compare_pane_compare_with (OnyxComparePane *self,
                                            GFile           *file,
                                            GError         **error);
void        onyx_compare_pane_stop      (OnyxComparePane *self);
/* The diff is being worked out (in a job, the document frozen). */
gboolean    onyx_compare_pane_is_busy   (OnyxComparePane *self);
gboolean    onyx_compare_pane_get_revealed (OnyxComparePane *self);
/* How the document differs from the model compared with, as last worked out; NULL
 * when nothing is compared. */
const OnyxDiff *onyx_compare_pane_get_diff (OnyxComparePane *self);

/* Lists `diff` (NULL: nothing); the pane keeps no pointer to it, rows keep copies
 * of the texts and their entry's index. `other_name` is the compared model's name as shown
 * ("Compared with model_scripted.onnx"). */
void        onyx_compare_pane_set_diff  (OnyxComparePane *self,
                                         const OnyxDiff  *diff,
                                         const char      *other_name);
/* "8 Differences", "No Differences" */
const char *onyx_compare_pane_get_title (OnyxComparePane *self);
/* The rows (OnyxCompareRow), one per entry of the diff, in its order; activating
 * one (a click) selects it unless it shows what only the other model has, or the
 * whole model. */
GListModel *onyx_compare_pane_get_rows  (OnyxComparePane *self);

#define ONYX_TYPE_COMPARE_ROW (onyx_compare_row_get_type ())
G_DECLARE_FINAL_TYPE (OnyxCompareRow, onyx_compare_row, ONYX, COMPARE_ROW, GObject)
/* The index in the diff's entries that the row shows. */
guint       onyx_compare_row_get_entry  (OnyxCompareRow *self);
/* The entry's whole message, the row's tooltip. */
const char *onyx_compare_row_get_message (OnyxCompareRow *self);
gboolean    onyx_compare_row_get_activatable (OnyxCompareRow *self);

/* The colour differences of this kind have, in the list and on the canvas. */
void        onyx_diff_change_color      (OnyxDiffChange   change,
                                         GdkRGBA         *color);

G_END_DECLS
