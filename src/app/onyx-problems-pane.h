/* onyx-problems-pane.h: the problems of the open model (onyx-problem-list.h) as a
 * list under the graph, errors first, all of them, each with a link to what the
 * manual says of its kind; activating a row selects the node or tensor it concerns
 * (a part of the window: it follows the view state, and puts the problems' dots on
 * the canvas). Its action, in the group it gives the window ("problems"): show, a
 * toggle (property "revealed"). */
#pragma once

#include <gtk/gtk.h>

#include "onyx-validate.h"
#include "onyx-view-state.h"

G_BEGIN_DECLS

#define ONYX_TYPE_PROBLEMS_PANE (onyx_problems_pane_get_type ())
G_DECLARE_FINAL_TYPE (OnyxProblemsPane, onyx_problems_pane, ONYX, PROBLEMS_PANE, GtkBox)

void        onyx_problems_pane_set_state    (OnyxProblemsPane *self,
                                             OnyxViewState    *state);
GActionGroup *onyx_problems_pane_get_actions (OnyxProblemsPane *self);
gboolean    onyx_problems_pane_get_revealed (OnyxProblemsPane *self);
/* Lists `problems` (OnyxProblem*, may be NULL); the pane keeps no pointer to them. */
void        onyx_problems_pane_set_problems (OnyxProblemsPane *self,
                                             GPtrArray        *problems);
/* The rows (OnyxProblemRow), errors first, then warnings, then notes; activating one
 * (a click) selects what it concerns; a row of problems alike, each in turn. */
GListModel *onyx_problems_pane_get_rows     (OnyxProblemsPane *self);

#define ONYX_TYPE_PROBLEM_ROW (onyx_problem_row_get_type ())
G_DECLARE_FINAL_TYPE (OnyxProblemRow, onyx_problem_row, ONYX, PROBLEM_ROW, GObject)
/* The index of the problem the row shows, in the array last set. */
guint       onyx_problem_row_get_problem    (OnyxProblemRow   *self);
/* Its message, also the row's tooltip. */
const char *onyx_problem_row_get_message    (OnyxProblemRow   *self);
/* How many problems the row stands for: 1, or those alike but for a number. */
guint       onyx_problem_row_get_n_problems (OnyxProblemRow   *self);

/* The icon and the style class ("error", "warning", "dim-label") of a severity,
 * for the list, the header bar and the properties panel alike. */
const char *onyx_problem_severity_icon      (OnyxProblemSeverity severity);
const char *onyx_problem_severity_class     (OnyxProblemSeverity severity);
/* "Error", "Warning", "Information" */
const char *onyx_problem_severity_label     (OnyxProblemSeverity severity);

G_END_DECLS
