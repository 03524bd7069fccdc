/* test-app-subgraphs.c: the graphs inside If and Loop nodes in the real window under
 * Xvfb, on the torch.jit.script export control_loop.onnx (a Loop whose body holds an
 * If): a double click on the Loop opens its body, the node panel's graph rows open a
 * branch, the header bar's path and Back (Escape) go up again; an edit inside a
 * branch is undone and redone there; a problem in a branch marks its holder outside
 * and its row opens the branch. Snapshots are written as PNG. */
#include "onyx-app-test-util.h"

#include <glib/gstdio.h>

#include "onyx-application.h"
#include "onyx-document-private.h"
#include "onyx-edits.h"
#include "onyx-steps.h"

static OnyxWindow *
open_loop (void)
{
  g_autofree char *path = test_data_path ("control_loop.onnx");
  return open_model_window (path);
}

static void
close_window (OnyxWindow *window)
{
  onyx_files_discard_journal (onyx_window_get_files (window));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The labels of the header bar's path, "main›/Loop›body" (after its Back button). */
static char *
path_text (OnyxWindow *window)
{
  GString *text = g_string_new (NULL);

  for (GtkWidget *child = gtk_widget_get_first_child (gtk_widget_get_last_child (test_path_bar (window)));
       child != NULL; child = gtk_widget_get_next_sibling (child))
    g_string_append (text, GTK_IS_BUTTON (child) ? gtk_button_get_label (GTK_BUTTON (child))
                                                 : gtk_label_get_text (GTK_LABEL (child)));
  return g_string_free (text, FALSE);
}

static GtkWidget *
path_button (OnyxWindow *window, const char *label)
{
  for (GtkWidget *child = gtk_widget_get_first_child (gtk_widget_get_last_child (test_path_bar (window)));
       child != NULL; child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_BUTTON (child) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (child)), label) == 0)
      return child;
  return NULL;
}

static Onnx__NodeProto *
node_named (OnyxWindow *window, const char *name)
{
  Onnx__NodeProto *node = onyx_document_find_node (onyx_window_get_document (window), name, NULL);
  g_assert_nonnull (node);
  return node;
}

static void
test_navigate (void)
{
  OnyxWindow *window = open_loop ();
  Onnx__NodeProto *loop = node_named (window, "/Loop");
  Onnx__NodeProto *inner_if = node_named (window, "/If");
  Onnx__GraphProto *body = loop->attribute[0]->g;
  g_autofree char *path = NULL;
  int box;

  g_assert_true (onyx_view_state_get_graph (test_state (window)) == onyx_document_get_proto (onyx_window_get_document (window))->graph);
  g_assert_false (gtk_widget_get_visible (test_path_bar (window)));
  g_assert_false (gtk_widget_is_visible (test_find_by_tooltip (GTK_WIDGET (window), GTK_TYPE_BUTTON, "Back to the Graph Around")));

  /* A double click on the Loop opens its body. */
  box = layout_node_of_op (window, "Loop");
  g_assert_cmpint (box, >=, 0);
  g_signal_emit_by_name (test_canvas (window), "item-opened", box);
  wait_for_layout (window);
  g_assert_true (onyx_view_state_get_graph (test_state (window)) == body);
  path = path_text (window);
  g_assert_cmpstr (path, ==, "main›/Loop›body");
  g_assert_true (gtk_widget_is_visible (test_find_by_tooltip (GTK_WIDGET (window), GTK_TYPE_BUTTON, "Back to the Graph Around")));
  /* Its nodes are drawn, and what it reads from the main graph has a box. */
  g_assert_cmpint (layout_node_of_op (window, "Mod"), >=, 0);
  g_assert_cmpint (layout_node_of_op (window, "Loop"), ==, -1);
  {
    const OnyxLayout *layout = onyx_canvas_get_layout (test_canvas (window));
    guint n_outer = 0;
    for (guint i = 0; i < layout->nodes->len; i++)
      n_outer += g_array_index (layout->nodes, OnyxLayoutNode, i).kind == ONYX_LAYOUT_OUTER;
    g_assert_cmpuint (n_outer, ==, 1);
  }
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "test-app-subgraphs-body.png"), >, 2000);

  /* The If's panel row for then_branch opens it. */
  g_signal_emit_by_name (test_canvas (window), "item-activated", layout_node_of_op (window, "If"), -1);
  g_assert_true (onyx_view_state_get_selected_node (test_state (window)) == inner_if);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "graph.open-graph", "s",
                                             "/If:then_branch"));
  wait_for_layout (window);
  g_free (path);
  path = path_text (window);
  g_assert_cmpstr (path, ==, "main›/Loop›body›/If›then_branch");
  g_assert_cmpint (layout_node_of_op (window, "Gemm"), >=, 0);
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "test-app-subgraphs-branch.png"), >, 2000);

  /* Back (Escape's action) goes up to the body with the If selected; the path's
   * "main" goes to the main graph. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "graph.graph-up", NULL));
  wait_for_layout (window);
  g_assert_true (onyx_view_state_get_graph (test_state (window)) == body);
  g_assert_true (onyx_view_state_get_selected_node (test_state (window)) == inner_if);
  g_assert_cmpint (onyx_canvas_get_selected_node (test_canvas (window)), ==, layout_node_of_op (window, "If"));
  g_signal_emit_by_name (path_button (window, "main"), "clicked");
  wait_for_layout (window);
  g_assert_true (onyx_view_state_get_graph (test_state (window)) == onyx_document_get_proto (onyx_window_get_document (window))->graph);
  g_assert_false (gtk_widget_get_visible (test_path_bar (window)));
  close_window (window);
}

/* Bypassing Tanh inside the If's then branch, from the canvas, with undo and redo. */
static void
test_edit_in_branch (void)
{
  OnyxWindow *window = open_loop ();
  Onnx__NodeProto *tanh = node_named (window, "/Tanh");
  Onnx__GraphProto *branch = onyx_document_graph_of_node (onyx_window_get_document (window), tanh);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "graph.open-graph", "s",
                                             "/If:then_branch"));
  wait_for_layout (window);
  g_signal_emit_by_name (test_canvas (window), "item-activated", layout_node_of_op (window, "Tanh"), -1);
  g_assert_true (onyx_view_state_get_selected_node (test_state (window)) == tanh);
  g_assert_true (gtk_widget_get_sensitive (test_find_by_tooltip (GTK_WIDGET (window), GTK_TYPE_BUTTON, "Back to the Graph Around")));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.bypass-node", NULL));
  g_assert_cmpstr (onyx_document_get_undo_label (onyx_window_get_document (window)), ==, "Bypass node /Tanh");
  g_assert_cmpuint (branch->n_node, ==, 1);
  wait_for_layout (window);
  g_assert_true (onyx_view_state_get_graph (test_state (window)) == branch);
  g_assert_cmpint (layout_node_of_op (window, "Tanh"), ==, -1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.undo", NULL));
  wait_for_layout (window);
  g_assert_cmpint (layout_node_of_op (window, "Tanh"), >=, 0);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.redo", NULL));
  wait_for_layout (window);
  g_assert_cmpint (layout_node_of_op (window, "Tanh"), ==, -1);
  g_assert_cmpuint (onyx_problem_list_get (onyx_view_state_get_problems (test_state (window)))->len, ==, 0);
  close_window (window);
}

/* A dangling input inside the else branch: the Loop carries the dot in the main
 * graph, the body's If in the body, and the Problems row opens the branch. */
static void
test_problem_in_branch (void)
{
  OnyxWindow *window = open_loop ();
  Onnx__NodeProto *add = node_named (window, "/Add");
  Onnx__GraphProto *branch = onyx_document_graph_of_node (onyx_window_get_document (window), add);
  const OnyxProblem *problem;

  /* Broken behind the actions' back, as a bad export would be. */
  onyx_document_begin_command (onyx_window_get_document (window), "break");
  onyx_document_set_node_input (onyx_window_get_document (window), add, 1, "no_such_tensor");
  onyx_document_commit_command (onyx_window_get_document (window));
  wait_for_layout (window);
  /* The dangling input, and the Constant nobody reads now. */
  g_assert_cmpuint (onyx_problem_list_get (onyx_view_state_get_problems (test_state (window)))->len, ==, 2);
  problem = g_ptr_array_index (onyx_problem_list_get (onyx_view_state_get_problems (test_state (window))), 0);
  g_assert_cmpint (problem->kind, ==, ONYX_PROBLEM_DANGLING_INPUT);
  g_assert_cmpstr (problem->graph, ==, "/If:else_branch");
  g_assert_true (problem->node_proto == add);
  g_assert_cmpint (onyx_canvas_get_node_badge (test_canvas (window), layout_node_of_op (window, "Loop")),
                   ==, ONYX_CANVAS_BADGE_ERROR);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "problems.show", NULL));
  wait_for_revealer (window, test_revealer_of (test_problems_pane (window)));
  {
    GListModel *rows = onyx_problems_pane_get_rows (test_problems_pane (window));
    guint i = 0;
    for (; i < g_list_model_get_n_items (rows); i++)
      {
        g_autoptr (OnyxProblemRow) row = g_list_model_get_item (rows, i);
        if (onyx_problem_row_get_problem (row) == 0)
          break;
      }
    g_assert_cmpuint (i, <, g_list_model_get_n_items (rows));
    test_activate_list_row (test_problems_pane (window), i);
  }
  wait_for_layout (window);
  g_assert_true (onyx_view_state_get_graph (test_state (window)) == branch);
  g_assert_true (onyx_view_state_get_selected_node (test_state (window)) == add);
  g_assert_cmpint (onyx_canvas_get_selected_node (test_canvas (window)), ==, layout_node_of_op (window, "Add"));
  g_assert_cmpint (onyx_canvas_get_node_badge (test_canvas (window), layout_node_of_op (window, "Add")),
                   ==, ONYX_CANVAS_BADGE_ERROR);
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "test-app-subgraphs-problem.png"), >, 2000);
  /* Escape goes up as the Back button does. */
  gtk_widget_activate_action (GTK_WIDGET (window), "graph.graph-up", NULL);
  wait_for_layout (window);
  g_assert_cmpint (onyx_canvas_get_node_badge (test_canvas (window), layout_node_of_op (window, "If")),
                   ==, ONYX_CANVAS_BADGE_ERROR);
  close_window (window);
}

/* Deleting the Loop while its body shows: back to the main graph. */
static void
test_holder_deleted (void)
{
  OnyxWindow *window = open_loop ();
  Onnx__NodeProto *loop = node_named (window, "/Loop");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "graph.open-graph", "s", "/Loop:body"));
  wait_for_layout (window);
  g_assert_true (onyx_edit_delete_node (onyx_window_get_document (window), loop, NULL));
  wait_for_layout (window);
  g_assert_true (onyx_view_state_get_graph (test_state (window)) == onyx_document_get_proto (onyx_window_get_document (window))->graph);
  g_assert_false (gtk_widget_get_visible (test_path_bar (window)));
  close_window (window);
}

/* A call of a model-local function opens its body, read only. */
static void
test_function (void)
{
  g_autofree char *path = test_data_path ("local_function.onnx");
  OnyxWindow *window = open_model_window (path);
  g_autofree char *text = NULL;

  g_signal_emit_by_name (test_canvas (window), "item-opened", layout_node_of_op (window, "ReluNeg"));
  wait_for_layout (window);
  g_assert_true (onyx_view_state_shows_function (test_state (window)));
  text = path_text (window);
  g_assert_cmpstr (text, ==, "main›ReluNeg");
  g_assert_cmpint (layout_node_of_op (window, "Relu"), >=, 0);
  g_assert_cmpint (layout_node_of_op (window, "Neg"), >=, 0);
  g_signal_emit_by_name (test_canvas (window), "item-activated", layout_node_of_op (window, "Neg"), -1);
  g_assert_cmpstr (onyx_view_state_get_selected_node (test_state (window))->op_type, ==, "Neg");
  /* Not edited: the delete action does nothing here. */
  gtk_widget_activate_action (GTK_WIDGET (window), "edit.delete-node", NULL);
  g_assert_cmpuint (onyx_document_get_n_undo (onyx_window_get_document (window)), ==, 0);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "graph.graph-up", NULL));
  wait_for_layout (window);
  g_assert_false (onyx_view_state_shows_function (test_state (window)));

  /* In and straight out again, while the function's layout runs: the layout that
   * shows is the main graph's, not the cancelled one's (whose engine keeps the view). */
  for (int i = 0; i < 10; i++)
    {
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "graph.open-graph", "s", "ReluNeg"));
      g_assert_true (onyx_view_state_shows_function (test_state (window)));
      g_assert_true (onyx_view_state_is_laying_out (test_state (window)));
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "graph.graph-up", NULL));
      g_assert_false (onyx_view_state_shows_function (test_state (window)));
      wait_for_layout (window);
    }
  g_assert_cmpint (layout_node_of_op (window, "ReluNeg"), >=, 0);
  close_window (window);
}

/* Compared with a copy whose Gemm inside the If's then branch has another alpha: the
 * Loop is framed as changed in the main graph, and the row opens the branch. */
static void
test_compare_in_branch (void)
{
  g_autofree char *original = test_data_path ("control_loop.onnx");
  g_autofree char *dir = g_dir_make_tmp ("onyx-app-subgraphs-XXXXXX", NULL);
  g_autofree char *older = g_build_filename (dir, "older.onnx", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (older);
  g_autoptr (GError) error = NULL;
  OnyxWindow *window;
  Onnx__NodeProto *gemm;
  guint row = G_MAXUINT;

  {
    g_autoptr (OnyxModel) model = onyx_model_new_from_file (original, &error);
    g_autoptr (OnyxDocument) doc = onyx_document_new (model);
    g_assert_true (onyx_step_apply (doc, "set-attr", "/lin/Gemm.alpha=2.0", &error));
    g_assert_true (onyx_document_save (doc, older, &error));
  }
  window = open_model_window (original);
  gemm = node_named (window, "/lin/Gemm");
  g_assert_true (onyx_compare_pane_compare_with (test_compare_pane (window), file, &error));
  g_assert_no_error (error);
  wait_for_layout (window);
  for (guint i = 0; i < onyx_compare_pane_get_diff (test_compare_pane (window))->entries->len; i++)
    {
      const OnyxDiffEntry *entry = g_ptr_array_index (onyx_compare_pane_get_diff (test_compare_pane (window))->entries, i);
      if (entry->subject == ONYX_DIFF_NODE)
        {
          g_assert_cmpuint (row, ==, G_MAXUINT);  /* the only node entry */
          g_assert_cmpstr (entry->graph, ==, "/If:then_branch");
          row = i;
        }
    }
  g_assert_cmpuint (row, !=, G_MAXUINT);
  g_assert_true (onyx_canvas_get_node_tint (test_canvas (window), layout_node_of_op (window, "Loop"), NULL));
  test_activate_list_row (test_compare_pane (window), row);
  wait_for_layout (window);
  g_assert_true (onyx_view_state_get_graph (test_state (window)) == onyx_document_graph_of_node (onyx_window_get_document (window), gemm));
  g_assert_true (onyx_view_state_get_selected_node (test_state (window)) == gemm);
  g_assert_true (onyx_canvas_get_node_tint (test_canvas (window), layout_node_of_op (window, "Gemm"), NULL));
  g_assert_false (onyx_canvas_get_node_tint (test_canvas (window), layout_node_of_op (window, "Tanh"), NULL));
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "test-app-subgraphs-compare.png"), >, 2000);
  close_window (window);
  g_unlink (older);
  g_rmdir (dir);
}

/* `onyx --graph G MODEL` as the command line gives it to the application: the
 * window opens the model in its thread, then shows G (a branch inside a Loop's
 * body; a function), or says why not and stays at the main graph. */
typedef struct {
  const char *expected_path;   /* the header bar's path once shown; NULL: main */
  char *path;
  guint polls;
} StartUp;

static gboolean
poll_started (gpointer data)
{
  GApplication *app = data;
  StartUp *start = g_object_get_data (G_OBJECT (app), "start-up");
  GtkWindow *active = gtk_application_get_active_window (GTK_APPLICATION (app));
  OnyxWindow *window = ONYX_IS_WINDOW (active) ? ONYX_WINDOW (active) : NULL;

  /* Bounded: a window that never shows the model fails below. */
  if (++start->polls > 3000)
    {
      g_application_quit (app);
      return G_SOURCE_REMOVE;
    }
  if (window == NULL || onyx_window_is_opening (window) || onyx_view_state_is_laying_out (test_state (window)) ||
      onyx_window_get_document (window) == NULL)
    return G_SOURCE_CONTINUE;
  start->path = gtk_widget_get_visible (test_path_bar (window))
                  ? path_text (window) : g_strdup ("main");
  onyx_files_discard_journal (onyx_window_get_files (window));
  gtk_window_destroy (GTK_WINDOW (window));
  g_application_quit (app);
  return G_SOURCE_REMOVE;
}

static char *
start_at_graph (const char *model, const char *graph)
{
  g_autoptr (OnyxApplication) app = onyx_application_new ();
  g_autofree char *path = test_data_path (model);
  char *argv[] = { "onyx", "--graph", (char *) graph, path, NULL };
  StartUp start = { 0 };

  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE);
  g_object_set_data (G_OBJECT (app), "start-up", &start);
  g_timeout_add (20, poll_started, app);
  g_assert_cmpint (g_application_run (G_APPLICATION (app), 4, argv), ==, 0);
  g_assert_cmpuint (start.polls, <=, 3000);
  return start.path;
}

static void
test_start_at_graph (void)
{
  g_autofree char *branch = start_at_graph ("control_loop.onnx", "/If:then_branch");
  g_autofree char *function = start_at_graph ("local_function.onnx", "ReluNeg");
  g_autofree char *unknown = start_at_graph ("control_loop.onnx", "/Nope:body");

  g_assert_cmpstr (branch, ==, "main›/Loop›body›/If›then_branch");
  g_assert_cmpstr (function, ==, "main›ReluNeg");
  g_assert_cmpstr (unknown, ==, "main");
}

int
main (int argc, char **argv)
{
  g_autofree char *home = test_private_xdg_folders ("app-subgraphs");
  int status;

  g_test_init (&argc, &argv, NULL);
  /* Xvfb has no session bus, which GTK warns about; criticals stay fatal. */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  adw_init ();
  g_test_add_func ("/app-subgraphs/navigate", test_navigate);
  g_test_add_func ("/app-subgraphs/edit-in-branch", test_edit_in_branch);
  g_test_add_func ("/app-subgraphs/problem-in-branch", test_problem_in_branch);
  g_test_add_func ("/app-subgraphs/holder-deleted", test_holder_deleted);
  g_test_add_func ("/app-subgraphs/function", test_function);
  g_test_add_func ("/app-subgraphs/compare", test_compare_in_branch);
  g_test_add_func ("/app-subgraphs/start-at-graph", test_start_at_graph);
  status = g_test_run ();
  test_private_xdg_folders_remove (home);
  return status;
}
