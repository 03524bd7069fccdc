/* onyx-compare-pane.h: the sidebar listing what differs between the open model and
 * another one (an OnyxDiff), with its count, the other model's name and a close
 * button (action win.compare-close). */
#pragma once

#include <gtk/gtk.h>

#include "onyx-diff.h"

G_BEGIN_DECLS

#define ONYX_TYPE_COMPARE_PANE (onyx_compare_pane_get_type ())
G_DECLARE_FINAL_TYPE (OnyxComparePane, onyx_compare_pane, ONYX, COMPARE_PANE, GtkBox)

/* Signal "entry-activated" (guint entry): a row was activated; `entry` indexes the
 * diff's entries. */

/* Lists `diff` (NULL: nothing); the pane keeps no pointer to it, rows keep copies
 * of the texts and their entry's index. `other_name` is the compared model's name as shown
 * ("Compared with model_scripted.onnx"). */
void        onyx_compare_pane_set_diff  (OnyxComparePane *self,
                                         const OnyxDiff  *diff,
                                         const char      *other_name);
/* "8 Differences", "No Differences" */
const char *onyx_compare_pane_get_title (OnyxComparePane *self);
/* The rows (OnyxCompareRow), one per entry of the diff, in its order; activating
 * one (a click) emits "entry-activated" unless it shows what only the other model
 * has, or the whole model. */
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
