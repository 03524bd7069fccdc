/* onyx-problems-pane.c: the problems as a GtkListView over a GListModel of
 * OnyxProblemRow: only the rows on screen are widgets, so a model with thousands of
 * problems lists them all. Rows keep copies of the texts and their problem's index;
 * the window looks it up in the diagnostics' current list. */
#include "onyx-problems-pane.h"

#include <adwaita.h>
#include <glib/gi18n.h>

struct _OnyxProblemsPane {
  GtkBox parent_instance;

  GtkLabel *title_label;
  GtkStack *stack;
  GtkListView *list;
  GListStore *rows;             /* OnyxProblemRow, errors first */
};

/* One problem as the list shows it, made when the problems are set. */
struct _OnyxProblemRow {
  GObject parent_instance;
  guint problem;
  OnyxProblemSeverity severity;
  char *message;
  char *where;                  /* "Node a · Tensor b", or NULL */
};

G_DEFINE_FINAL_TYPE (OnyxProblemRow, onyx_problem_row, G_TYPE_OBJECT)

static void
onyx_problem_row_finalize (GObject *object)
{
  OnyxProblemRow *self = ONYX_PROBLEM_ROW (object);

  g_free (self->message);
  g_free (self->where);
  G_OBJECT_CLASS (onyx_problem_row_parent_class)->finalize (object);
}

static void
onyx_problem_row_class_init (OnyxProblemRowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = onyx_problem_row_finalize;
}

static void
onyx_problem_row_init (OnyxProblemRow *self)
{
}

guint
onyx_problem_row_get_problem (OnyxProblemRow *self)
{
  g_return_val_if_fail (ONYX_IS_PROBLEM_ROW (self), G_MAXUINT);
  return self->problem;
}

const char *
onyx_problem_row_get_message (OnyxProblemRow *self)
{
  g_return_val_if_fail (ONYX_IS_PROBLEM_ROW (self), NULL);
  return self->message;
}

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

/* The node and tensor a problem concerns, and its graph when not the main one. */
static char *
problem_where (const OnyxProblem *problem)
{
  g_autoptr (GString) where = g_string_new (NULL);

  if (problem->node != NULL)
    g_string_append_printf (where, _("Node %s"), problem->node[0] ? problem->node : _("(unnamed)"));
  if (problem->tensor != NULL)
    {
      g_autofree char *tensor = g_strdup_printf (_("Tensor %s"), problem->tensor);
      g_string_append_printf (where, "%s%s", where->len ? " · " : "", tensor);
    }
  if (problem->graph != NULL && g_strcmp0 (problem->graph, "main graph") != 0)
    g_string_append_printf (where, "%s%s", where->len ? " · " : "", problem->graph);
  return where->len > 0 ? g_strdup (where->str) : NULL;
}

static OnyxProblemRow *
problem_row_new (const OnyxProblem *problem, guint index)
{
  OnyxProblemRow *row = g_object_new (ONYX_TYPE_PROBLEM_ROW, NULL);

  row->problem = index;
  row->severity = problem->severity;
  row->message = g_strdup (problem->message);
  row->where = problem_where (problem);
  return row;
}

/* The row's whole message, asked when the pointer rests on it: setting a tooltip's
 * text at each bind asks the X server where the pointer is (a round trip a row). */
static gboolean
query_row_tooltip (GtkWidget *box, int x, int y, gboolean keyboard, GtkTooltip *tooltip, GtkListItem *item)
{
  OnyxProblemRow *row = gtk_list_item_get_item (item);

  if (row == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, row->message);
  return TRUE;
}

/* A row: the severity's icon, the message and, under it, where. */
static void
setup_row (GtkSignalListItemFactory *factory, GtkListItem *item)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *text = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *icon = gtk_image_new ();
  GtkWidget *message = gtk_label_new (NULL);
  GtkWidget *where = gtk_label_new (NULL);

  gtk_box_append (GTK_BOX (box), icon);
  gtk_label_set_xalign (GTK_LABEL (message), 0);
  gtk_label_set_ellipsize (GTK_LABEL (message), PANGO_ELLIPSIZE_END);
  gtk_label_set_xalign (GTK_LABEL (where), 0);
  gtk_label_set_ellipsize (GTK_LABEL (where), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_add_css_class (where, "caption");
  gtk_widget_add_css_class (where, "dim-label");
  gtk_box_append (GTK_BOX (text), message);
  gtk_box_append (GTK_BOX (text), where);
  gtk_widget_set_hexpand (text, TRUE);
  gtk_box_append (GTK_BOX (box), text);
  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 6);
  gtk_widget_set_margin_start (box, 6);
  gtk_widget_set_has_tooltip (box, TRUE);
  g_signal_connect (box, "query-tooltip", G_CALLBACK (query_row_tooltip), item);
  gtk_list_item_set_child (item, box);
}

static void
bind_row (GtkSignalListItemFactory *factory, GtkListItem *item)
{
  OnyxProblemRow *row = gtk_list_item_get_item (item);
  GtkWidget *box = gtk_list_item_get_child (item);
  GtkWidget *icon = gtk_widget_get_first_child (box);
  GtkWidget *message = gtk_widget_get_first_child (gtk_widget_get_next_sibling (icon));
  GtkWidget *where = gtk_widget_get_next_sibling (message);

  gtk_image_set_from_icon_name (GTK_IMAGE (icon), onyx_problem_severity_icon (row->severity));
  for (int severity = ONYX_PROBLEM_ERROR; severity <= ONYX_PROBLEM_INFO; severity++)
    gtk_widget_remove_css_class (icon, onyx_problem_severity_class (severity));
  gtk_widget_add_css_class (icon, onyx_problem_severity_class (row->severity));
  gtk_accessible_update_property (GTK_ACCESSIBLE (icon), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  onyx_problem_severity_label (row->severity), -1);
  gtk_label_set_text (GTK_LABEL (message), row->message);
  gtk_label_set_text (GTK_LABEL (where), row->where != NULL ? row->where : "");
  gtk_widget_set_visible (where, row->where != NULL);
}

/* Shown the same: the list need not make its widget again. */
static gboolean
row_looks_same (const OnyxProblemRow *a, const OnyxProblemRow *b)
{
  return a->severity == b->severity && g_str_equal (a->message, b->message) && g_strcmp0 (a->where, b->where) == 0;
}

/* Only the rows between the unchanged first and last ones are replaced; those keep
 * their widgets and take the new problems' indexes. After an edit most problems
 * are the same, and a list of dozens made again each time stalls the window. */
/* The row at `position` stays when it looks like `row`, taking its problem's index. */
static gboolean
keep_row (GListStore *store, guint position, const OnyxProblemRow *row)
{
  g_autoptr (OnyxProblemRow) old = g_list_model_get_item (G_LIST_MODEL (store), position);

  if (!row_looks_same (old, row))
    return FALSE;
  old->problem = row->problem;
  return TRUE;
}

static void
replace_rows (GListStore *store, GPtrArray *rows)
{
  guint n_old = g_list_model_get_n_items (G_LIST_MODEL (store)), same_start = 0, same_end = 0;

  while (same_start < MIN (n_old, rows->len) && keep_row (store, same_start, rows->pdata[same_start]))
    same_start++;
  while (same_end < MIN (n_old, rows->len) - same_start &&
         keep_row (store, n_old - 1 - same_end, rows->pdata[rows->len - 1 - same_end]))
    same_end++;
  /* (An empty array has no pdata at all.) */
  if (same_start + same_end < MAX (n_old, rows->len))
    g_list_store_splice (store, same_start, n_old - same_start - same_end,
                         rows->len > 0 ? rows->pdata + same_start : NULL, rows->len - same_start - same_end);
}

void
onyx_problems_pane_set_problems (OnyxProblemsPane *self, GPtrArray *problems)
{
  guint n = problems != NULL ? problems->len : 0, counts[3] = { 0, 0, 0 };
  g_autoptr (GPtrArray) rows = g_ptr_array_new_full (n, g_object_unref);
  g_autofree char *title = NULL;

  g_return_if_fail (ONYX_IS_PROBLEMS_PANE (self));
  /* Errors first, then warnings, then the rest; graph order within each. */
  for (int severity = ONYX_PROBLEM_ERROR; severity <= ONYX_PROBLEM_INFO; severity++)
    for (guint i = 0; i < n; i++)
      {
        const OnyxProblem *p = g_ptr_array_index (problems, i);
        if ((int) p->severity != severity)
          continue;
        counts[severity]++;
        g_ptr_array_add (rows, problem_row_new (p, i));
      }
  replace_rows (self->rows, rows);
  if (n == 0)
    title = g_strdup (_("No Problems"));
  else
    {
      g_autofree char *errors = g_strdup_printf (ngettext ("%u error", "%u errors", counts[ONYX_PROBLEM_ERROR]),
                                                 counts[ONYX_PROBLEM_ERROR]);
      g_autofree char *warnings = g_strdup_printf (ngettext ("%u warning", "%u warnings",
                                                             counts[ONYX_PROBLEM_WARNING]),
                                                   counts[ONYX_PROBLEM_WARNING]);
      /* Notes are problems of severity "information". */
      g_autofree char *notes = g_strdup_printf (ngettext ("%u note", "%u notes", counts[ONYX_PROBLEM_INFO]),
                                                counts[ONYX_PROBLEM_INFO]);
      /* Translators: the problems pane's title: "Problems: 1 error, 2 warnings, 0 notes". */
      title = g_strdup_printf (_("Problems: %s, %s, %s"), errors, warnings, notes);
    }
  gtk_label_set_text (self->title_label, title);
  gtk_stack_set_visible_child_name (self->stack, n == 0 ? "empty" : "list");
}

GListModel *
onyx_problems_pane_get_rows (OnyxProblemsPane *self)
{
  g_return_val_if_fail (ONYX_IS_PROBLEMS_PANE (self), NULL);
  return G_LIST_MODEL (self->rows);
}

static void
activate_cb (OnyxProblemsPane *self, guint position)
{
  g_autoptr (OnyxProblemRow) row = g_list_model_get_item (G_LIST_MODEL (self->rows), position);

  if (row != NULL)
    g_signal_emit (self, signals[PROBLEM_ACTIVATED], 0, row->problem);
}

static void
onyx_problems_pane_dispose (GObject *object)
{
  g_clear_object (&ONYX_PROBLEMS_PANE (object)->rows);
  G_OBJECT_CLASS (onyx_problems_pane_parent_class)->dispose (object);
}

static void
onyx_problems_pane_class_init (OnyxProblemsPaneClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = onyx_problems_pane_dispose;
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
  g_autoptr (GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();

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

  self->rows = g_list_store_new (ONYX_TYPE_PROBLEM_ROW);
  g_signal_connect (factory, "setup", G_CALLBACK (setup_row), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_row), NULL);
  /* Rows are activated, never selected: a click shows the node. */
  self->list = GTK_LIST_VIEW (gtk_list_view_new (GTK_SELECTION_MODEL (gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->rows)))),
                                                 g_object_ref (factory)));
  gtk_list_view_set_single_click_activate (self->list, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->list), "navigation-sidebar");
  g_signal_connect_swapped (self->list, "activate", G_CALLBACK (activate_cb), self);
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
