/* test-app-simplify.c: Simplify in the window under Xvfb, as a person goes through it:
 * the model panel's button starts it (the document frozen, the spinner naming it),
 * one undo step, the report (nodes before → after, the proof, a row per pass, the
 * operators), a pass undone on its own, and Show Changes opening Compare against the
 * model as it was. The report is rendered into the build dir. */
#include <adwaita.h>
#include <string.h>

#include "onyx-app-test-util.h"
#include "onyx-compare-pane.h"
#include "onyx-run.h"
#include "onyx-simplify-dialog.h"

static guint
count_ops (OnyxWindow *window, const char *op_type)
{
  Onnx__GraphProto *graph = onyx_document_get_proto (onyx_window_get_document (window))->graph;
  guint n = 0;

  for (size_t i = 0; i < graph->n_node; i++)
    n += g_str_equal (graph->node[i]->op_type, op_type);
  return n;
}

static OnyxSimplifyDialog *
find_report (void)
{
  GListModel *windows = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (windows); i++)
    {
      g_autoptr (GObject) window = g_list_model_get_item (windows, i);
      if (ONYX_IS_SIMPLIFY_DIALOG (window))
        return ONYX_SIMPLIFY_DIALOG (window);
    }
  return NULL;
}

/* Until the job is done and the report shows. */
static OnyxSimplifyDialog *
wait_for_report (OnyxWindow *window)
{
  OnyxSimplifyDialog *dialog = NULL;

  /* (A job's label shows after its delay: what runs is the job itself.) */
  while (onyx_jobs_is_running (onyx_view_state_get_jobs (test_state (window))))
    g_main_context_iteration (NULL, TRUE);
  for (int round = 0; round < 600 && (dialog = find_report ()) == NULL; round++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_nonnull (dialog);
  wait_for_layout (window);
  return dialog;
}

/* Titles and subtitles of the report's rows, one a line. */
static void
collect_rows (GtkWidget *widget, GString *text)
{
  if (ADW_IS_ACTION_ROW (widget))
    g_string_append_printf (text, "%s: %s\n", adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)),
                            adw_action_row_get_subtitle (ADW_ACTION_ROW (widget)));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_rows (child, text);
}

static GtkWidget *
find_button (GtkWidget *widget, const char *action, const char *target)
{
  if (GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), action) == 0)
    {
      GVariant *value = gtk_actionable_get_action_target_value (GTK_ACTIONABLE (widget));
      if (target == NULL || (value != NULL && g_str_equal (g_variant_get_string (value, NULL), target)))
        return widget;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_button (child, action, target);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_simplify (void)
{
  g_autofree char *path = test_data_path ("paddle_style.onnx");
  OnyxWindow *window = open_model_window (path);
  OnyxDocument *document = onyx_window_get_document (window);
  OnyxJobs *jobs = onyx_view_state_get_jobs (test_state (window));
  guint n_undo = onyx_document_get_n_undo (document);
  guint n_constants = count_ops (window, "Constant");
  guint n_nodes = onyx_document_get_proto (document)->graph->n_node, n_after;
  g_autoptr (GString) rows = g_string_new (NULL);
  g_autofree char *nodes_row = NULL;
  OnyxSimplifyDialog *dialog;
  GtkWidget *button;

  g_assert_cmpuint (n_constants, >, 0);
  /* The model panel offers it beside the node count. */
  wait_for_layout (window);
  button = find_button (test_properties_page (window), "simplify.run", NULL);
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_is_sensitive (button));
  onyx_jobs_set_delay (jobs, 0);
  g_signal_emit_by_name (button, "clicked");
  g_assert_true (onyx_document_is_frozen (document));
  g_assert_cmpstr (onyx_jobs_get_label (jobs), ==, "Simplifying paddle_style.onnx");
  g_assert_false (gtk_widget_is_sensitive (button));

  dialog = wait_for_report (window);
  g_assert_false (onyx_document_is_frozen (document));
  g_assert_cmpuint (count_ops (window, "Constant"), ==, 0);
  g_assert_cmpuint (onyx_document_get_n_undo (document), ==, n_undo + 1);
  g_assert_cmpstr (onyx_document_get_undo_label (document), ==, "Simplify");

  collect_rows (GTK_WIDGET (dialog), rows);
  g_test_message ("%s", rows->str);
  n_after = onyx_document_get_proto (document)->graph->n_node;
  g_assert_cmpuint (n_after, <=, n_nodes - n_constants);
  nodes_row = g_strdup_printf ("Nodes: %u → %u (−%u)\n", n_nodes, n_after, n_nodes - n_after);
  g_assert_nonnull (strstr (rows->str, nodes_row));
  g_assert_nonnull (strstr (rows->str, "Constant nodes to initializers: 22 nodes removed, 22 initializers added · "));
  g_assert_nonnull (strstr (rows->str, "Constant: 22 → 0 (−22)\n"));
  if (onyx_run_available (NULL))
    g_assert_nonnull (strstr (rows->str, "Outputs proven equal: The outputs are equal before and after"));
  else
    g_assert_nonnull (strstr (rows->str, "Outputs not compared: The outputs were not compared: this build cannot run"));
  wait_for_frames (window);
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (dialog), "app-simplify-report.png"), >, 5000);

  /* One pass undone on its own: Simplify again without it, one step still. */
  button = find_button (GTK_WIDGET (dialog), "simplify.without", "constants");
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_is_sensitive (button));
  g_assert_true (onyx_view_state_is_editable (test_state (window)));
  g_signal_emit_by_name (button, "clicked");
  dialog = wait_for_report (window);
  /* (Duplicates may share equal Constant nodes: some stay, as Constants.) */
  g_assert_cmpuint (count_ops (window, "Constant"), >, 0);
  g_assert_cmpuint (onyx_document_get_n_undo (document), <=, n_undo + 1);
  g_assert_null (find_button (GTK_WIDGET (dialog), "simplify.without", "constants"));
  gtk_window_destroy (GTK_WINDOW (dialog));
  if (onyx_document_get_n_undo (document) > n_undo)
    test_undo (window);
  g_assert_cmpuint (onyx_document_get_n_undo (document), ==, n_undo);

  /* Show Changes: Compare against the model as it was, the Constants listed gone. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "simplify.run", NULL));
  dialog = wait_for_report (window);
  g_assert_false (onyx_compare_pane_get_revealed (test_compare_pane (window)));
  g_signal_emit_by_name (test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_BUTTON, "_Show Changes"), "clicked");
  g_assert_null (find_report ());
  wait_for_jobs (window);
  wait_for_layout (window);
  g_assert_true (onyx_compare_pane_get_revealed (test_compare_pane (window)));
  g_assert_cmpstr (onyx_compare_pane_get_title (test_compare_pane (window)), !=, "No Differences");
  g_test_message ("compare: %s", onyx_compare_pane_get_title (test_compare_pane (window)));
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "app-simplify-changes.png"), >, 5000);
  test_undo (window);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int argc, char *argv[])
{
  g_autofree char *home = test_private_xdg_folders ("app-simplify");
  int status;

  g_test_init (&argc, &argv, NULL);
  /* Xvfb has no session bus, which GTK warns about; criticals stay fatal. */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  adw_init ();
  g_test_add_func ("/app-simplify/simplify", test_simplify);
  status = g_test_run ();
  test_private_xdg_folders_remove (home);
  return status;
}
