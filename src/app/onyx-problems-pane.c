/* onyx-problems-pane.c: a GtkListBox of findings. Rows keep only their problem's
 * index; the window looks it up in the diagnostics' current list. */
#include "onyx-problems-pane.h"

#include <adwaita.h>
#include <glib/gi18n.h>

/* A GtkListBox row per finding gets slow in the thousands; `onyx-cli check` lists all. */
#define MAX_ROWS 500

struct _OnyxProblemsPane {
  GtkBox parent_instance;

  GtkLabel *title_label;
  GtkStack *stack;
  GtkListBox *list;
};

G_DEFINE_FINAL_TYPE (OnyxProblemsPane, onyx_problems_pane, GTK_TYPE_BOX)

enum { PROBLEM_ACTIVATED, N_SIGNALS };
static guint signals[N_SIGNALS];

const char *
onyx_problem_severity_icon (OnyxProblemSeverity severity)
{
  switch (severity)
    {
    case ONYX_PROBLEM_ERROR: return "dialog-error-symbolic";
    case ONYX_PROBLEM_WARNING: return "dialog-warning-symbolic";
    default: return "dialog-information-symbolic";
    }
}

const char *
onyx_problem_severity_class (OnyxProblemSeverity severity)
{
  switch (severity)
    {
    case ONYX_PROBLEM_ERROR: return "error";
    case ONYX_PROBLEM_WARNING: return "warning";
    default: return "dim-label";
    }
}

const char *
onyx_problem_severity_label (OnyxProblemSeverity severity)
{
  switch (severity)
    {
    case ONYX_PROBLEM_ERROR: return _("Error");
    case ONYX_PROBLEM_WARNING: return _("Warning");
    default: return _("Information");
    }
}

static GtkWidget *
problem_row (const OnyxProblem *problem, guint index)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *icon = gtk_image_new_from_icon_name (onyx_problem_severity_icon (problem->severity));
  g_autofree char *title = g_markup_escape_text (problem->message, -1);
  g_autoptr (GString) where = g_string_new (NULL);

  gtk_widget_add_css_class (icon, onyx_problem_severity_class (problem->severity));
  gtk_accessible_update_property (GTK_ACCESSIBLE (icon), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  onyx_problem_severity_label (problem->severity), -1);
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), icon);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_widget_set_tooltip_text (row, problem->message);
  /* The node and tensor it concerns, and the graph when not the main one. */
  if (problem->node != NULL)
    g_string_append_printf (where, _("Node %s"), problem->node[0] ? problem->node : _("(unnamed)"));
  if (problem->tensor != NULL)
    {
      g_autofree char *tensor = g_strdup_printf (_("Tensor %s"), problem->tensor);
      g_string_append_printf (where, "%s%s", where->len ? " · " : "", tensor);
    }
  if (problem->graph != NULL && g_strcmp0 (problem->graph, "main graph") != 0)
    g_string_append_printf (where, "%s%s", where->len ? " · " : "", problem->graph);
  if (where->len > 0)
    {
      g_autofree char *escaped = g_markup_escape_text (where->str, -1);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), escaped);
    }
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
  g_object_set_data (G_OBJECT (row), "onyx-problem", GUINT_TO_POINTER (index + 1));
  return row;
}

void
onyx_problems_pane_set_problems (OnyxProblemsPane *self, GPtrArray *problems)
{
  guint n = problems != NULL ? problems->len : 0, shown = 0, counts[3] = { 0, 0, 0 };
  g_autofree char *title = NULL;
  GtkWidget *child;

  g_return_if_fail (ONYX_IS_PROBLEMS_PANE (self));
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->list))) != NULL)
    gtk_list_box_remove (self->list, child);
  /* Errors first, then warnings, then the rest; graph order within each. */
  for (int severity = ONYX_PROBLEM_ERROR; severity <= ONYX_PROBLEM_INFO; severity++)
    for (guint i = 0; i < n; i++)
      {
        const OnyxProblem *p = g_ptr_array_index (problems, i);
        if ((int) p->severity != severity)
          continue;
        counts[severity]++;
        if (shown++ < MAX_ROWS)
          gtk_list_box_append (self->list, problem_row (p, i));
      }
  if (shown > MAX_ROWS)
    {
      g_autofree char *more = g_strdup_printf (ngettext ("…and %u more problem", "…and %u more problems",
                                                         shown - MAX_ROWS),
                                               shown - MAX_ROWS);
      GtkWidget *label = gtk_label_new (more);
      gtk_widget_add_css_class (label, "dim-label");
      gtk_widget_set_margin_top (label, 6);
      gtk_widget_set_margin_bottom (label, 6);
      gtk_list_box_append (self->list, label);
      gtk_list_box_row_set_activatable (gtk_list_box_get_row_at_index (self->list, MAX_ROWS), FALSE);
    }
  if (n == 0)
    title = g_strdup (_("No Problems"));
  else
    {
      g_autofree char *errors = g_strdup_printf (ngettext ("%u error", "%u errors", counts[ONYX_PROBLEM_ERROR]),
                                                 counts[ONYX_PROBLEM_ERROR]);
      g_autofree char *warnings = g_strdup_printf (ngettext ("%u warning", "%u warnings",
                                                             counts[ONYX_PROBLEM_WARNING]),
                                                   counts[ONYX_PROBLEM_WARNING]);
      /* Notes are findings of severity "information". */
      g_autofree char *notes = g_strdup_printf (ngettext ("%u note", "%u notes", counts[ONYX_PROBLEM_INFO]),
                                                counts[ONYX_PROBLEM_INFO]);
      /* Translators: the problems pane's title: "Problems: 1 error, 2 warnings, 0 notes". */
      title = g_strdup_printf (_("Problems: %s, %s, %s"), errors, warnings, notes);
    }
  gtk_label_set_text (self->title_label, title);
  gtk_stack_set_visible_child_name (self->stack, n == 0 ? "empty" : "list");
}

GtkListBox *
onyx_problems_pane_get_list (OnyxProblemsPane *self)
{
  g_return_val_if_fail (ONYX_IS_PROBLEMS_PANE (self), NULL);
  return self->list;
}

guint
onyx_problems_pane_row_problem (OnyxProblemsPane *self, GtkListBoxRow *row)
{
  guint stored = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (row), "onyx-problem"));

  return stored > 0 ? stored - 1 : G_MAXUINT;
}

static void
row_activated_cb (OnyxProblemsPane *self, GtkListBoxRow *row)
{
  guint index = onyx_problems_pane_row_problem (self, row);

  if (index != G_MAXUINT)
    g_signal_emit (self, signals[PROBLEM_ACTIVATED], 0, index);
}

static void
onyx_problems_pane_class_init (OnyxProblemsPaneClass *klass)
{
  signals[PROBLEM_ACTIVATED] = g_signal_new ("problem-activated", G_TYPE_FROM_CLASS (klass),
                                             G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                             G_TYPE_NONE, 1, G_TYPE_UINT);
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "onyxproblems");
}

static void
onyx_problems_pane_init (OnyxProblemsPane *self)
{
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *close = gtk_button_new_from_icon_name ("window-close-symbolic");
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *empty = adw_status_page_new ();

  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  gtk_widget_add_css_class (GTK_WIDGET (self), "problems-pane");
  /* A strip under the graph, as in an IDE: the canvas keeps the window's height. */
  gtk_widget_set_size_request (GTK_WIDGET (self), -1, 200);
  gtk_widget_set_vexpand (GTK_WIDGET (self), FALSE);

  self->title_label = GTK_LABEL (gtk_label_new (_("No Problems")));
  gtk_label_set_xalign (self->title_label, 0);
  gtk_widget_set_hexpand (GTK_WIDGET (self->title_label), TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->title_label), "heading");
  gtk_widget_set_margin_start (header, 12);
  gtk_widget_set_margin_end (header, 6);
  gtk_widget_set_margin_top (header, 6);
  gtk_widget_set_margin_bottom (header, 6);
  gtk_box_append (GTK_BOX (header), GTK_WIDGET (self->title_label));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (close), "win.show-problems");
  gtk_widget_set_tooltip_text (close, _("Hide Problems"));
  gtk_widget_add_css_class (close, "flat");
  gtk_widget_add_css_class (close, "circular");
  gtk_box_append (GTK_BOX (header), close);
  gtk_box_append (GTK_BOX (self), header);

  self->list = GTK_LIST_BOX (gtk_list_box_new ());
  gtk_list_box_set_selection_mode (self->list, GTK_SELECTION_NONE);
  gtk_widget_add_css_class (GTK_WIDGET (self->list), "navigation-sidebar");
  g_signal_connect_swapped (self->list, "row-activated", G_CALLBACK (row_activated_cb), self);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (self->list));
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);

  adw_status_page_set_icon_name (ADW_STATUS_PAGE (empty), "emblem-ok-symbolic");
  adw_status_page_set_title (ADW_STATUS_PAGE (empty), _("No Problems Found"));
  gtk_widget_add_css_class (empty, "compact");

  self->stack = GTK_STACK (gtk_stack_new ());
  gtk_widget_set_vexpand (GTK_WIDGET (self->stack), TRUE);
  gtk_stack_add_named (self->stack, scrolled, "list");
  gtk_stack_add_named (self->stack, empty, "empty");
  gtk_stack_set_visible_child_name (self->stack, "empty");
  gtk_box_append (GTK_BOX (self), GTK_WIDGET (self->stack));
}
