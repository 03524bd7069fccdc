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

/* Lists `diff` (NULL: nothing); the pane keeps no pointer to it, rows only know
 * their entry's index. `other_name` is the compared model's name as shown
 * ("Compared with model_scripted.onnx"). */
void        onyx_compare_pane_set_diff  (OnyxComparePane *self,
                                         const OnyxDiff  *diff,
                                         const char      *other_name);
/* "8 Differences", "No Differences" */
const char *onyx_compare_pane_get_title (OnyxComparePane *self);
/* The rows, in diff order, each with the entry's full message as its tooltip. */
GtkListBox *onyx_compare_pane_get_list  (OnyxComparePane *self);
/* The index in the diff's entries that a row shows; G_MAXUINT for the closing
 * "…and N more" row of a long list. */
guint       onyx_compare_pane_row_entry (OnyxComparePane *self,
                                         GtkListBoxRow   *row);

/* The colour differences of this kind have, in the list and on the canvas. */
void        onyx_diff_change_color      (OnyxDiffChange   change,
                                         GdkRGBA         *color);

G_END_DECLS
