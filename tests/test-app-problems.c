/* test-app-problems.c: the Problems pane, the canvas' problem dots and the operator
 * schema in the properties panel, in the real window under Xvfb. model_foo.onnx has
 * exactly one problem (its custom FooOp); bypassing FooOp clears it and undo brings
 * it back, re-checked incrementally; a copy of model.onnx with a dangling input shows
 * an error on that node, on the closed group around it too. */
#include "onyx-app-test-util.h"
#include "onyx-row-layout.h"

#include <glib/gstdio.h>

#include "onyx-document-private.h"
#include "onyx-edits.h"
#include "onyx-schema.h"

/* The last change the window's document announced: whether the Problems list could
 * follow it node by node, and that it touched `node`. */
typedef struct {
  gboolean seen, whole_model, saved;
  GPtrArray *nodes;
} LastChange;

static void
record_change_cb (OnyxDocument *document, const OnyxChange *change, LastChange *last)
{
  last->seen = TRUE;
  last->saved = change == NULL;
  if (change == NULL)
    return;
  last->whole_model = change->whole_model;
  g_clear_pointer (&last->nodes, g_ptr_array_unref);
  last->nodes = g_ptr_array_copy (change->nodes, NULL, NULL);
}

static void
watch_changes (OnyxWindow *window, LastChange *last)
{
  g_signal_connect (onyx_window_get_document (window), "changed", G_CALLBACK (record_change_cb), last);
}

static void
unwatch_changes (OnyxWindow *window, LastChange *last)
{
  g_signal_handlers_disconnect_by_data (onyx_window_get_document (window), last);
  g_clear_pointer (&last->nodes, g_ptr_array_unref);
}

static void
assert_node_change (LastChange *last, Onnx__NodeProto *node)
{
  guint where;
  g_assert_true (last->seen && !last->saved);
  g_assert_false (last->whole_model);
  g_assert_true (g_ptr_array_find (last->nodes, node, &where));
  last->seen = FALSE;
}

static OnyxWindow *
open_window (const char *name)
{
  g_autofree char *path = test_data_path (name);
  return open_model_window (path);
}

/* Edited windows leave a crash journal beside the model's path in XDG_STATE_HOME,
 * which other tests opening the same file would be offered: drop it. */
static void
close_window (OnyxWindow *window)
{
  onyx_files_discard_journal (onyx_window_get_files (window));
  gtk_window_destroy (GTK_WINDOW (window));
}

static guint
n_rows (OnyxWindow *window)
{
  return g_list_model_get_n_items (onyx_problems_pane_get_rows (test_problems_pane (window)));
}

static GPtrArray *
problems (OnyxWindow *window)
{
  return onyx_problem_list_get (onyx_view_state_get_problems (test_state (window)));
}

static guint
n_of_kind (OnyxWindow *window, OnyxProblemKind kind)
{
  guint n = 0;

  for (guint i = 0; i < problems (window)->len; i++)
    n += ((const OnyxProblem *) g_ptr_array_index (problems (window), i))->kind == kind;
  return n;
}

static guint
n_badges (OnyxWindow *window)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (test_canvas (window));
  guint n = 0;

  for (guint i = 0; i < layout->nodes->len; i++)
    n += onyx_canvas_get_node_badge (test_canvas (window), i) != ONYX_CANVAS_BADGE_NONE;
  return n;
}

static void
test_problems_foo (void)
{
  OnyxWindow *window = open_window ("model_foo.onnx");
  const OnyxProblem *problem;
  g_autofree char *text = NULL;
  Onnx__NodeProto *foo_node = NULL;
  LastChange last = { 0 };
  int foo;

  watch_changes (window, &last);

  /* Exactly the custom-op finding, as `onyx-cli check` reports it. */
  g_assert_cmpuint (problems (window)->len, ==, 1);
  problem = g_ptr_array_index (problems (window), 0);
  g_assert_cmpint (problem->kind, ==, ONYX_PROBLEM_CUSTOM_OP);
  g_assert_cmpint (problem->severity, ==, ONYX_PROBLEM_WARNING);
  g_assert_cmpuint (n_rows (window), ==, 1);
  g_assert_cmpstr (gtk_label_get_text (test_problems_count (window)), ==, "1");
  g_assert_true (gtk_widget_has_css_class (gtk_widget_get_parent (GTK_WIDGET (test_problems_count (window))), "warning"));

  /* The dot is on FooOp only. */
  foo = layout_node_of_op (window, "FooOp");
  g_assert_cmpint (foo, >=, 0);
  g_assert_cmpint (onyx_canvas_get_node_badge (test_canvas (window), foo), ==, ONYX_CANVAS_BADGE_WARNING);
  g_assert_cmpuint (n_badges (window), ==, 1);

  /* The header button reveals the list; a row selects its node. */
  g_assert_false (gtk_revealer_get_reveal_child (test_revealer_of (test_problems_pane (window))));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "problems.show", NULL));
  g_assert_true (gtk_revealer_get_reveal_child (test_revealer_of (test_problems_pane (window))));
  wait_for_revealer (window, test_revealer_of (test_problems_pane (window)));
  test_activate_list_row (test_problems_pane (window), 0);
  g_assert_cmpint (onyx_view_state_get_selection (test_state (window)), ==, ONYX_SELECTION_NODE);
  g_assert_cmpstr (onyx_view_state_get_selected_node (test_state (window))->op_type, ==, "FooOp");
  g_assert_cmpint (onyx_canvas_get_selected_node (test_canvas (window)), ==, foo);
  /* …and centres it, visible before or not. */
  {
    const OnyxLayoutNode *box = &g_array_index (onyx_canvas_get_layout (test_canvas (window))->nodes,
                                                OnyxLayoutNode, foo);
    OnyxRect area;
    onyx_canvas_get_visible_area (test_canvas (window), &area);
    g_assert_cmpfloat_with_epsilon (area.x + area.width / 2, box->box.x + box->box.width / 2, 1.0);
    g_assert_cmpfloat_with_epsilon (area.y + area.height / 2, box->box.y + box->box.height / 2, 1.0);
  }
  text = properties_text (window);
  g_assert_nonnull (strstr (text, "Custom operator"));
  g_assert_nonnull (strstr (text, problem->message));
  wait_for_revealer (window, test_revealer_of (test_problems_pane (window)));
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "test-app-problems-foo.png"), >, 2000);

  /* Bypassing FooOp leaves no warning, checked around FooOp only; what is left is
   * the information that the devtech import is not used any more. */
  foo_node = onyx_view_state_get_selected_node (test_state (window));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.bypass-node", NULL));
  onyx_view_state_settle (test_state (window));
  g_assert_cmpuint (problems (window)->len, ==, 1);
  g_assert_cmpint (((OnyxProblem *) problems (window)->pdata[0])->kind, ==, ONYX_PROBLEM_UNUSED_OPSET);
  g_assert_cmpuint (n_rows (window), ==, 1);
  g_assert_cmpstr (gtk_label_get_text (test_problems_count (window)), ==, "0");
  assert_node_change (&last, foo_node);
  wait_for_layout (window);
  g_assert_cmpuint (n_badges (window), ==, 0);

  /* Undo brings it back, redo clears it again. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.undo", NULL));
  onyx_view_state_settle (test_state (window));
  g_assert_cmpuint (problems (window)->len, ==, 1);
  g_assert_cmpstr (gtk_label_get_text (test_problems_count (window)), ==, "1");
  g_assert_cmpuint (n_rows (window), ==, 1);
  assert_node_change (&last, foo_node);
  wait_for_layout (window);
  g_assert_cmpint (onyx_canvas_get_node_badge (test_canvas (window), layout_node_of_op (window, "FooOp")),
                   ==, ONYX_CANVAS_BADGE_WARNING);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.redo", NULL));
  onyx_view_state_settle (test_state (window));
  g_assert_cmpuint (problems (window)->len, ==, 1);
  g_assert_cmpstr (gtk_label_get_text (test_problems_count (window)), ==, "0");
  wait_for_layout (window);

  /* The close button of the pane hides it. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "problems.show", NULL));
  g_assert_false (gtk_revealer_get_reveal_child (test_revealer_of (test_problems_pane (window))));
  unwatch_changes (window, &last);
  close_window (window);
}

typedef void (*BreakFunc) (OnyxDocument *doc, Onnx__GraphProto *graph);

/* model.onnx changed by `breaks` as one command, saved as `name` in a folder of its
 * own. */
static char *
write_broken_copy (const char *name, BreakFunc breaks)
{
  g_autofree char *source = test_data_path ("model.onnx");
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = onyx_model_new_from_file (source, &error);
  g_autoptr (OnyxDocument) doc = NULL;
  g_autofree char *dir = g_dir_make_tmp ("onyx-problems-XXXXXX", &error);
  char *path;

  g_assert_no_error (error);
  doc = onyx_document_new (model);
  onyx_document_begin_command (doc, "break");
  breaks (doc, onyx_document_get_proto (doc)->graph);
  onyx_document_commit_command (doc);
  path = g_build_filename (dir, name, NULL);
  g_assert_true (onyx_document_save (doc, path, &error));
  g_assert_no_error (error);
  return path;
}

/* The third node (a Conv) reads a tensor nobody makes. */
static void
dangle_input (OnyxDocument *doc, Onnx__GraphProto *graph)
{
  g_assert_cmpstr (graph->node[2]->op_type, ==, "Conv");
  onyx_document_set_node_input (doc, graph->node[2], 0, "no_such_tensor");
}

static char *
write_dangling_copy (void)
{
  return write_broken_copy ("dangling.onnx", dangle_input);
}

/* The nodes in reverse order: valid but for the order. */
static void
reverse_nodes (OnyxDocument *doc, Onnx__GraphProto *graph)
{
  g_autofree Onnx__NodeProto **reversed = g_new (Onnx__NodeProto *, graph->n_node);

  for (size_t i = 0; i < graph->n_node; i++)
    reversed[i] = graph->node[graph->n_node - 1 - i];
  onyx_document_set_node_order (doc, graph, reversed);
}

static void
remove_copy (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_assert_cmpint (g_remove (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

#define N_EXTRA_BROKEN 600

/* N_EXTRA_BROKEN Identity nodes appended to the graph, each reading a tensor nobody
 * makes: as many errors as a list of widgets could not hold. */
static void
add_broken_nodes (OnyxDocument *doc, Onnx__GraphProto *graph)
{
  for (guint i = 0; i < N_EXTRA_BROKEN; i++)
    {
      Onnx__NodeProto *node = g_new0 (Onnx__NodeProto, 1);
      onnx__node_proto__init (node);
      node->op_type = g_strdup ("Identity");
      node->domain = g_strdup ("");
      node->name = g_strdup_printf ("broken_%u", i);
      node->n_input = node->n_output = 1;
      node->input = g_new0 (char *, 1);
      node->output = g_new0 (char *, 1);
      node->input[0] = g_strdup_printf ("nowhere_%u", i);
      node->output[0] = g_strdup_printf ("broken_out_%u", i);
      onyx_document_insert_item (doc, &graph->base, "node", graph->n_node, &node->base);
    }
}

/* Every problem has its row, the last as the first: the pane lists them all, not a
 * first few hundred, and a row far down still shows its node. */
static void
test_problems_all_listed (void)
{
  g_autofree char *path = write_broken_copy ("many.onnx", add_broken_nodes);
  OnyxWindow *window = open_model_window (path);
  GListModel *rows = onyx_problems_pane_get_rows (test_problems_pane (window));
  guint n = g_list_model_get_n_items (rows);
  g_autoptr (OnyxProblemRow) last = NULL;
  const OnyxProblem *problem;
  guint n_listed = 0;

  /* Every problem is listed: each dangling input on its own row (its message names
   * two numbers, its node's and its tensor's), the alike rest gathered. */
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (OnyxProblemRow) row = g_list_model_get_item (rows, i);
      n_listed += onyx_problem_row_get_n_problems (row);
      if (i < N_EXTRA_BROKEN)
        g_assert_cmpuint (onyx_problem_row_get_n_problems (row), ==, 1);
    }
  g_assert_cmpuint (n_listed, ==, problems (window)->len);
  g_assert_cmpuint (n, <, problems (window)->len);
  g_assert_cmpuint (n_of_kind (window, ONYX_PROBLEM_DANGLING_INPUT), ==, N_EXTRA_BROKEN);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "problems.show", NULL));
  wait_for_revealer (window, test_revealer_of (test_problems_pane (window)));

  /* Errors first: the last dangling node's row is the last error's. */
  last = g_list_model_get_item (rows, N_EXTRA_BROKEN - 1);
  problem = g_ptr_array_index (problems (window), onyx_problem_row_get_problem (last));
  g_assert_cmpint (problem->kind, ==, ONYX_PROBLEM_DANGLING_INPUT);
  g_assert_cmpstr (problem->node, ==, "broken_599");
  test_activate_list_row (test_problems_pane (window), N_EXTRA_BROKEN - 1);
  wait_for_layout (window);
  g_assert_cmpstr (onyx_view_state_get_selected_node (test_state (window))->name, ==, "broken_599");
  close_window (window);
  remove_copy (path);
}

/* Saving a model with errors says what to do: Sort Nodes for the order, Save Anyway
 * for the rest; Cancel writes nothing; after Sort Nodes it saves at once. */
static void
test_save_says_what_to_do (void)
{
  g_autofree char *path = write_broken_copy ("unsorted.onnx", reverse_nodes);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  OnyxWindow *window = open_model_window (path);
  AdwMessageDialog *dialog;
  GStatBuf before, after;

  g_assert_cmpint (g_stat (path, &before), ==, 0);
  g_assert_false (onyx_files_save (onyx_window_get_files (window), file));
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "The Model Has Problems");
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "Sort Nodes in the main menu puts the nodes in order."));
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "Save Anyway writes the model with its errors"));
  g_assert_true (adw_message_dialog_has_response (dialog, "save"));
  g_object_ref (dialog);
  gtk_window_destroy (GTK_WINDOW (dialog));
  adw_message_dialog_response (dialog, "cancel");
  g_object_unref (dialog);
  g_assert_cmpint (g_stat (path, &after), ==, 0);
  g_assert_cmpint (after.st_mtime, ==, before.st_mtime);
  g_assert_cmpint (after.st_ino, ==, before.st_ino);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.toposort", NULL));
  wait_for_layout (window);
  g_assert_true (onyx_files_save (onyx_window_get_files (window), file));
  wait_for_save (window);
  g_assert_null (find_toplevel (ADW_TYPE_MESSAGE_DIALOG));
  g_assert_cmpint (g_stat (path, &after), ==, 0);
  g_assert_cmpint (after.st_ino, !=, before.st_ino);  /* written anew, and renamed over */
  close_window (window);
  remove_copy (path);
}

/* The error of the broken node, and the node. */
static const OnyxProblem *
dangling_problem (OnyxWindow *window)
{
  const OnyxProblem *found = NULL;

  for (guint i = 0; i < problems (window)->len; i++)
    {
      const OnyxProblem *p = g_ptr_array_index (problems (window), i);
      if (p->kind == ONYX_PROBLEM_DANGLING_INPUT)
        {
          g_assert_null (found);
          found = p;
        }
    }
  g_assert_nonnull (found);
  g_assert_cmpint (found->severity, ==, ONYX_PROBLEM_ERROR);
  g_assert_cmpstr (found->node_proto->op_type, ==, "Conv");
  g_assert_cmpstr (found->node_proto->input[0], ==, "no_such_tensor");
  return found;
}

static void
test_problems_dangling (void)
{
  g_autofree char *path = write_dangling_copy ();
  OnyxWindow *window = open_model_window (path);
  const OnyxProblem *problem = dangling_problem (window);
  Onnx__NodeProto *broken = (Onnx__NodeProto *) problem->node_proto;
  g_autofree char *text = NULL;
  LastChange last = { 0 };
  g_autoptr (OnyxProblemRow) first = NULL;
  gssize pos;
  int box;

  watch_changes (window, &last);

  pos = onyx_graph_index_node_position (onyx_document_get_index (onyx_window_get_document (window)), broken);
  g_assert_cmpint (pos, ==, 2);
  box = -1;
  {
    const OnyxLayout *layout = onyx_canvas_get_layout (test_canvas (window));
    for (guint i = 0; i < layout->nodes->len; i++)
      {
        const OnyxLayoutNode *n = &g_array_index (layout->nodes, OnyxLayoutNode, i);
        if (n->kind == ONYX_LAYOUT_OP && n->index == pos)
          box = i;
      }
  }
  g_assert_cmpint (box, >=, 0);
  g_assert_cmpint (onyx_canvas_get_node_badge (test_canvas (window), box), ==, ONYX_CANVAS_BADGE_ERROR);
  g_assert_true (gtk_widget_has_css_class (gtk_widget_get_parent (GTK_WIDGET (test_problems_count (window))), "error"));

  /* Errors are listed first: the first row is this one. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "problems.show", NULL));
  wait_for_revealer (window, test_revealer_of (test_problems_pane (window)));
  first = g_list_model_get_item (onyx_problems_pane_get_rows (test_problems_pane (window)), 0);
  g_assert_true (g_ptr_array_index (problems (window), onyx_problem_row_get_problem (first)) == problem);
  g_assert_cmpstr (onyx_problem_row_get_message (first), ==, problem->message);
  test_activate_list_row (test_problems_pane (window), 0);
  g_assert_true (onyx_view_state_get_selected_node (test_state (window)) == broken);
  text = properties_text (window);
  g_assert_nonnull (strstr (text, "Problems"));
  g_assert_nonnull (strstr (text, problem->message));
  wait_for_revealer (window, test_revealer_of (test_problems_pane (window)));
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "test-app-problems-dangling.png"), >, 2000);

  /* Reconnecting the input to the tensor it read before fixes it, node by node. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.reconnect-input", "(us)", 0,
                                             onyx_document_get_proto (onyx_window_get_document (window))->graph->node[1]->output[0]));
  onyx_view_state_settle (test_state (window));
  assert_node_change (&last, broken);
  /* Validation is made with the layout, in its thread. */
  wait_for_layout (window);
  g_assert_cmpuint (n_of_kind (window, ONYX_PROBLEM_DANGLING_INPUT), ==, 0);
  g_assert_cmpint (onyx_canvas_get_node_badge (test_canvas (window), box), ==, ONYX_CANVAS_BADGE_NONE);
  /* Undone, it is back, list, count and dot. */
  test_undo (window);
  g_assert_cmpuint (n_of_kind (window, ONYX_PROBLEM_DANGLING_INPUT), ==, 1);
  g_assert_true (gtk_widget_has_css_class (gtk_widget_get_parent (GTK_WIDGET (test_problems_count (window))), "error"));
  g_assert_cmpint (onyx_canvas_get_node_badge (test_canvas (window), box), ==, ONYX_CANVAS_BADGE_ERROR);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.redo", NULL));
  wait_for_layout (window);
  g_assert_cmpuint (n_of_kind (window, ONYX_PROBLEM_DANGLING_INPUT), ==, 0);

  /* Saving changes nothing to check. */
  {
    g_autoptr (GFile) file = g_file_new_for_path (path);
    guint n = problems (window)->len;
    g_assert_true (onyx_files_save (onyx_window_get_files (window), file));
    wait_for_save (window);
    g_assert_cmpuint (problems (window)->len, ==, n);
    g_assert_true (last.seen && last.saved);
  }
  unwatch_changes (window, &last);
  close_window (window);
  remove_copy (path);
}

/* With only top-level groups shown, the closed group "model" carries its node's dot;
 * activating the problem opens the group and selects the node. */
static void
test_problems_collapsed_group (void)
{
  g_autoptr (GSettings) settings = g_settings_new ("io.github.onyxviewer.Onyx");
  g_autofree char *path = write_dangling_copy ();
  OnyxWindow *window;
  const OnyxLayout *layout;
  guint groups = 0;

  g_settings_set_string (settings, "group-expansion", "top-level");
  window = open_model_window (path);
  layout = onyx_canvas_get_layout (test_canvas (window));
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *n = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      g_assert_cmpint (n->kind, !=, ONYX_LAYOUT_OP);
      if (n->kind == ONYX_LAYOUT_GROUP && !n->expanded)
        {
          g_assert_cmpint (onyx_canvas_get_node_badge (test_canvas (window), i), ==, ONYX_CANVAS_BADGE_ERROR);
          groups++;
        }
    }
  g_assert_cmpuint (groups, ==, 1);
  snapshot_to_png (GTK_WIDGET (window), "test-app-problems-group.png");

  test_activate_list_row (test_problems_pane (window), 0);
  wait_for_layout (window);
  g_assert_true (onyx_view_state_get_selected_node (test_state (window)) == dangling_problem (window)->node_proto);
  g_assert_cmpint (onyx_canvas_get_selected_node (test_canvas (window)), >=, 0);
  g_assert_cmpint (onyx_canvas_get_node_badge (test_canvas (window), onyx_canvas_get_selected_node (test_canvas (window))),
                   ==, ONYX_CANVAS_BADGE_ERROR);
  close_window (window);
  g_settings_reset (settings, "group-expansion");
  remove_copy (path);
}

/* Conv's panel names its slots X, W, B, shows the defaults it leaves out and links
 * to its page in the ONNX docs. */
static void
test_properties_schema (void)
{
  OnyxWindow *window = open_window ("model.onnx");
  Onnx__NodeProto *conv = onyx_document_get_proto (onyx_window_get_document (window))->graph->node[0];
  g_autofree char *text = NULL;
  g_autofree char *x = NULL, *w = NULL, *b = NULL, *y = NULL;

  g_assert_cmpstr (conv->op_type, ==, "Conv");
  g_assert_cmpuint (problems (window)->len, ==, 0);
  onyx_view_state_select_node (test_state (window), conv);
  text = properties_text (window);
  x = g_strdup_printf ("\nX: %s\n", conv->input[0]);
  w = g_strdup_printf ("\nW: %s\n", conv->input[1]);
  b = g_strdup_printf ("\nB: %s\n", conv->input[2]);
  y = g_strdup_printf ("\nY: %s\n", conv->output[0]);
  g_assert_nonnull (strstr (text, x));
  g_assert_nonnull (strstr (text, w));
  g_assert_nonnull (strstr (text, b));
  g_assert_nonnull (strstr (text, y));
  /* model.onnx's Conv gives no auto_pad: NOTSET by default. */
  g_assert_nonnull (strstr (text, "\nauto_pad\n\"NOTSET\" (default)\n"));
  g_assert_nonnull (strstr (text, "Since opset 11"));
  g_assert_nonnull (strstr (text, "link https://onnx.ai/onnx/operators/onnx__Conv.html\n"));
  g_assert_null (strstr (text, "Custom operator"));
  wait_for_revealer (window, test_revealer_of (test_problems_pane (window)));
  snapshot_to_png (GTK_WIDGET (window), "test-app-problems-schema.png");
  /* The whole panel, scrolled-out rows too. */
  snapshot_to_png (GTK_WIDGET (test_properties (window)), "test-app-problems-schema-panel.png");
  close_window (window);
}

/* A genai-built LLM (tests/data/llm_tiny.onnx): one Problems row says it runs on ONNX
 * Runtime; GroupQueryAttention's panel names its slots from ONNX Runtime's facts and
 * links to its section of ONNX Runtime's documentation; shapes flow through it. */
static void
test_onnxruntime_operators (void)
{
  OnyxWindow *window;
  Onnx__NodeProto *gqa;
  g_autofree char *text = NULL;

  if (onyx_schema_domain_version ("") < 21)
    {
      g_test_skip ("the build's ONNX does not know opset 21");
      return;
    }
  window = open_window ("llm_tiny.onnx");
  g_assert_cmpuint (problems (window)->len, ==, 1);
  g_assert_cmpuint (n_of_kind (window, ONYX_PROBLEM_ONNXRUNTIME), ==, 1);
  g_assert_cmpuint (n_badges (window), ==, 0);
  gqa = onyx_document_find_node (onyx_window_get_document (window), "/model/layers.0/attn/GroupQueryAttention", NULL);
  g_assert_nonnull (gqa);
  onyx_view_state_select_node (test_state (window), gqa);
  onyx_view_state_settle (test_state (window));
  wait_for_layout (window);
  text = properties_text (window);
  for (const char *const *slot = (const char *const[]) { "\nquery: ", "\npast_key: past_key_values.0.key\n",
                                                         "\nseqlens_k: ", "\ncos_cache: cos_cache\n",
                                                         "\npresent_key: present.0.key\n", NULL };
       *slot != NULL; slot++)
    if (strstr (text, *slot) == NULL)
      g_error ("no %s in the panel:\n%s", *slot, text);
  g_assert_nonnull (strstr (text, "docs/ContribOperators.md#com.microsoft.GroupQueryAttention\n"));
  /* Its output's shape, inferred through MatMulNBits and GroupQueryAttention. */
  g_assert_nonnull (strstr (text, "float32[batch_size×sequence_length×64] (inferred)"));
  snapshot_to_png (GTK_WIDGET (window), "test-app-problems-onnxruntime.png");
  snapshot_to_png (GTK_WIDGET (test_properties (window)), "test-app-problems-onnxruntime-panel.png");
  close_window (window);
}

/* A problem on a Constant folded into BatchNormalization's box puts the dot on it. */
static void
test_problem_on_folded_constant (void)
{
  OnyxWindow *window = open_window ("flat_constants.onnx");
  Onnx__NodeProto *constant = onyx_document_find_node (onyx_window_get_document (window), "p2o.Constant.2", NULL);

  g_assert_nonnull (constant);
  g_assert_true (onyx_edit_set_attribute (onyx_window_get_document (window), constant, "onyx_test", "1", NULL));
  wait_for_layout (window);
  g_assert_cmpint (onyx_canvas_get_node_badge (test_canvas (window),
                                               layout_node_of_op (window, "BatchNormalization")),
                   ==, ONYX_CANVAS_BADGE_ERROR);
  close_window (window);
}

/* A decoder's inputs without its layers: x and 20 layers' past_key_values.N.key/value
 * without shapes (a problem each); one Identity x → y. */
static char *
write_kv_cache_model (void)
{
  Onnx__ModelProto *model = test_model_new ();
  Onnx__GraphProto *graph = model->graph;
  g_autoptr (GPtrArray) inputs = g_ptr_array_new ();
  g_autoptr (GBytes) packed = NULL;
  char *path = g_build_filename (g_get_tmp_dir (), "onyx-test-kv-cache.onnx", NULL);

  g_ptr_array_add (inputs, test_value_info ("x", 0, NULL));
  for (int layer = 0; layer < 20; layer++)
    for (int value = 0; value < 2; value++)
      {
        g_autofree char *name = g_strdup_printf ("past_key_values.%d.%s", layer, value ? "value" : "key");
        Onnx__ValueInfoProto *past = test_value_info (name, 0, NULL);
        onnx__tensor_shape_proto__free_unpacked (past->type->tensor_type->shape, NULL);
        past->type->tensor_type->shape = NULL;
        g_ptr_array_add (inputs, past);
      }
  graph->n_input = inputs->len;
  graph->input = (Onnx__ValueInfoProto **) g_ptr_array_free (g_steal_pointer (&inputs), FALSE);
  graph->n_node = 1;
  graph->node = g_new (Onnx__NodeProto *, 1);
  graph->node[0] = test_node ("Identity", "identity", "x", NULL, "y", NULL);
  graph->n_output = 1;
  graph->output = g_new (Onnx__ValueInfoProto *, 1);
  graph->output[0] = test_value_info ("y", 0, NULL);
  packed = test_model_pack (model);
  protobuf_c_message_free_unpacked (&model->base, NULL);
  g_assert_true (g_file_set_contents (path, g_bytes_get_data (packed, NULL), (gssize) g_bytes_get_size (packed), NULL));
  return path;
}

/* A row's title and subtitle stacked (onyx-row-layout.h); asked their height at no
 * width, as GTK asks for a row's least height, they answer unbroken: broken after
 * every character, each would be laid out a character at a time. */
static void
assert_stacked_labels (GtkWidget *row)
{
  GtkWidget *box = onyx_row_layout_title_box (row);
  int at_no_width, unbroken;

  g_assert_nonnull (box);
  g_assert_true (GTK_IS_CUSTOM_LAYOUT (gtk_widget_get_layout_manager (box)));
  gtk_widget_measure (box, GTK_ORIENTATION_VERTICAL, 0, &at_no_width, NULL, NULL, NULL);
  gtk_widget_measure (box, GTK_ORIENTATION_VERTICAL, -1, &unbroken, NULL, NULL, NULL);
  g_assert_cmpint (unbroken, >, 0);
  g_assert_cmpint (at_no_width, ==, unbroken);
}

/* A decoder's 40 KV-cache inputs are one row of the model's page, opened on demand
 * and still open after an edit; the problems an edit leaves as they were keep their
 * rows (remade, dozens of them stalled the window after every edit), those alike
 * gathered. */
static void
test_many_inputs (void)
{
  g_autofree char *path = write_kv_cache_model ();
  OnyxWindow *window = open_model_window (path);
  GListModel *rows = onyx_problems_pane_get_rows (test_problems_pane (window));
  GtkWidget *family = test_find_widget (test_properties_page (window), ADW_TYPE_EXPANDER_ROW,
                                        "past_key_values.0–19.key/value");
  OnyxProblemRow *first_row, *last_row;
  g_autoptr (GError) error = NULL;
  guint n;

  g_assert_nonnull (family);
  g_assert_cmpstr (adw_expander_row_get_subtitle (ADW_EXPANDER_ROW (family)), ==, "40 inputs");
  assert_stacked_labels (family);
  assert_stacked_labels (test_find_widget (test_properties_page (window), ADW_TYPE_ACTION_ROW, "x"));
  g_assert_null (test_find_widget (family, ADW_TYPE_ACTION_ROW, "past_key_values.7.value"));
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (family), TRUE);
  g_assert_nonnull (test_find_widget (family, ADW_TYPE_ACTION_ROW, "past_key_values.7.value"));
  wait_for_frames (window);
  snapshot_to_png (GTK_WIDGET (test_properties (window)), "test-app-problems-kv-inputs.png");

  n = n_rows (window);
  /* 40 problems alike (one an input), on fewer rows. */
  g_assert_cmpuint (problems (window)->len, >=, 40);
  g_assert_cmpuint (n, <, problems (window)->len);
  first_row = g_list_model_get_item (rows, 0);
  last_row = g_list_model_get_item (rows, n - 1);
  g_assert_true (onyx_edit_set_node_name (onyx_window_get_document (window),
                                          onyx_document_get_proto (onyx_window_get_document (window))->graph->node[0],
                                          "renamed", &error));
  g_assert_no_error (error);
  wait_for_layout (window);
  for (int i = 0; i < 100; i++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_cmpuint (n_rows (window), ==, n);
  g_assert_true (g_list_model_get_item (rows, 0) == (gpointer) first_row);
  g_object_unref (first_row);
  g_assert_true (g_list_model_get_item (rows, n - 1) == (gpointer) last_row);
  g_object_unref (last_row);
  g_object_unref (first_row);
  g_object_unref (last_row);
  family = test_find_widget (test_properties_page (window), ADW_TYPE_EXPANDER_ROW, "past_key_values.0–19.key/value");
  g_assert_true (adw_expander_row_get_expanded (ADW_EXPANDER_ROW (family)));
  g_assert_nonnull (test_find_widget (family, ADW_TYPE_ACTION_ROW, "past_key_values.7.value"));
  close_window (window);
  g_unlink (path);
}

/* A fault repeated on every layer is one row: bypassing the Cast of the attention
 * mask's length leaves each layer's GroupQueryAttention an int64 seqlens_k. The row
 * says how many, in the layers' range, and a click goes through them in turn. */
static void
test_problems_alike (void)
{
  g_autofree char *path = test_data_path ("llm_stack.onnx");
  OnyxWindow *window = open_model_window (path);
  OnyxDocument *doc = onyx_window_get_document (window);
  Onnx__GraphProto *graph = onyx_document_get_proto (doc)->graph;
  GListModel *rows = onyx_problems_pane_get_rows (test_problems_pane (window));
  g_autoptr (OnyxProblemRow) row = NULL;
  Onnx__NodeProto *cast = NULL, *first, *second;
  guint n_before = n_rows (window), n_alike = 0;

  for (size_t i = 0; i < graph->n_node; i++)
    if (g_strcmp0 (graph->node[i]->name, "/model/attn_mask_reformat/attn_mask_subgraph/Sub/Cast") == 0)
      cast = graph->node[i];
  g_assert_nonnull (cast);
  g_assert_true (onyx_edit_bypass_node (doc, cast, 0, NULL));
  onyx_view_state_settle (test_state (window));
  wait_for_layout (window);
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr (OnyxProblemRow) one = g_list_model_get_item (rows, i);
      g_test_message ("%u × %s", onyx_problem_row_get_n_problems (one), onyx_problem_row_get_message (one));
      if (onyx_problem_row_get_n_problems (one) > 1)
        {
          n_alike++;
          g_set_object (&row, one);
        }
    }
  g_assert_cmpuint (n_alike, ==, 1);
  g_assert_cmpuint (onyx_problem_row_get_n_problems (row), ==, 8);
  g_assert_nonnull (strstr (onyx_problem_row_get_message (row), "/model/layers.0–7/attn/GroupQueryAttention"));
  /* One row more than before, not eight. */
  g_assert_cmpuint (n_rows (window), ==, n_before + 1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "problems.show", NULL));
  wait_for_revealer (window, test_revealer_of (test_problems_pane (window)));
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "test-app-problems-alike.png"), >, 2000);
  test_activate_list_row (test_problems_pane (window), 0);
  first = onyx_view_state_get_selected_node (test_state (window));
  g_assert_cmpstr (first->name, ==, "/model/layers.0/attn/GroupQueryAttention");
  test_activate_list_row (test_problems_pane (window), 0);
  second = onyx_view_state_get_selected_node (test_state (window));
  g_assert_cmpstr (second->name, ==, "/model/layers.1/attn/GroupQueryAttention");
  close_window (window);
}

int
main (int argc, char **argv)
{
  g_autofree char *home = test_private_xdg_folders ("app-problems");
  int status;

  g_test_init (&argc, &argv, NULL);
  /* Xvfb has no session bus, which GTK warns about; criticals stay fatal. */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  adw_init ();
  g_test_add_func ("/app-problems/foo", test_problems_foo);
  g_test_add_func ("/app-problems/dangling", test_problems_dangling);
  g_test_add_func ("/app-problems/all-listed", test_problems_all_listed);
  g_test_add_func ("/app-problems/save-says-what-to-do", test_save_says_what_to_do);
  g_test_add_func ("/app-problems/collapsed-group", test_problems_collapsed_group);
  g_test_add_func ("/app-problems/schema", test_properties_schema);
  g_test_add_func ("/app-problems/folded-constant", test_problem_on_folded_constant);
  g_test_add_func ("/app-problems/onnxruntime", test_onnxruntime_operators);
  g_test_add_func ("/app-problems/many-inputs", test_many_inputs);
  g_test_add_func ("/app-problems/alike", test_problems_alike);
  status = g_test_run ();
  test_private_xdg_folders_remove (home);
  return status;
}
