/* onyx-problems-pane.h: the problems of the open model (onyx-diagnose.h) as a
 * list under the graph, errors first, all of them; activating a row asks the window to show
 * the node or tensor it concerns. */
#pragma once

#include <gtk/gtk.h>

#include "onyx-validate.h"

G_BEGIN_DECLS

#define ONYX_TYPE_PROBLEMS_PANE (onyx_problems_pane_get_type ())
G_DECLARE_FINAL_TYPE (OnyxProblemsPane, onyx_problems_pane, ONYX, PROBLEMS_PANE, GtkBox)

/* Signal "problem-activated" (guint problem): a row was activated; `problem` indexes
 * the array last given to onyx_problems_pane_set_problems(). */

/* Lists `problems` (OnyxProblem*, may be NULL); the pane keeps no pointer to them. */
void        onyx_problems_pane_set_problems (OnyxProblemsPane *self,
                                             GPtrArray        *problems);
/* The rows (OnyxProblemRow), errors first, then warnings, then notes; activating one
 * (a click) emits "problem-activated". */
GListModel *onyx_problems_pane_get_rows     (OnyxProblemsPane *self);

#define ONYX_TYPE_PROBLEM_ROW (onyx_problem_row_get_type ())
G_DECLARE_FINAL_TYPE (OnyxProblemRow, onyx_problem_row, ONYX, PROBLEM_ROW, GObject)
/* The index of the problem the row shows, in the array last set. */
guint       onyx_problem_row_get_problem    (OnyxProblemRow   *self);
/* Its message, also the row's tooltip. */
const char *onyx_problem_row_get_message    (OnyxProblemRow   *self);

/* The icon and the style class ("error", "warning", "dim-label") of a severity,
 * for the list, the header bar and the properties panel alike. */
const char *onyx_problem_severity_icon      (OnyxProblemSeverity severity);
const char *onyx_problem_severity_class     (OnyxProblemSeverity severity);
/* "Error", "Warning", "Information" */
const char *onyx_problem_severity_label     (OnyxProblemSeverity severity);

G_END_DECLS
