/* test-app-compare.c: "Compare With…" in the real window under Xvfb. The open model
 * (B) is compared with a file (A): the sidebar lists what the core's diff reports,
 * B's graph frames the differing nodes (or the closed group holding them), a row
 * selects its node, an edit of B is listed as exactly that edit, and closing the
 * sidebar drops the frames. */
#include "onyx-app-test-util.h"

#include <sys/wait.h>

#include "onyx-diff.h"
#include "onyx-edits.h"

static OnyxWindow *
open_window (const char *name)
{
  g_autofree char *path = test_data_path (name);
  return open_model_window (path);
}

static void
compare_with (OnyxWindow *window, const char *name)
{
  g_autofree char *path = test_data_path (name);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;

  g_assert_true (onyx_compare_pane_compare_with (test_compare_pane (window), file, &error));
  g_assert_no_error (error);
  wait_for_layout (window);
  g_assert_true (gtk_revealer_get_reveal_child (test_revealer_of (test_compare_pane (window))));
  wait_for_revealer (window, test_revealer_of (test_compare_pane (window)));
}

/* The core's own diff of the two files, as `onyx-cli diff A B` reports it. */
static OnyxDiff *
core_diff (const char *name_a, const char *name_b)
{
  g_autofree char *path_a = test_data_path (name_a), *path_b = test_data_path (name_b);
  g_autoptr (OnyxModel) a = onyx_model_new_from_file (path_a, NULL);
  g_autoptr (OnyxModel) b = onyx_model_new_from_file (path_b, NULL);

  g_assert_nonnull (a);
  g_assert_nonnull (b);
  return onyx_diff_models (onyx_model_get_proto (a), onyx_model_get_proto (b));
}

/* `onyx-cli diff A B`: a summary line, then one message per difference. */
static GStrv
cli_diff_messages (const char *name_a, const char *name_b)
{
  g_autofree char *path_a = test_data_path (name_a), *path_b = test_data_path (name_b);
  const char *argv[] = { g_getenv ("ONYX_CLI"), "diff", path_a, path_b, NULL };
  g_autofree char *out = NULL;
  g_autoptr (GError) error = NULL;
  int status;
  char **lines;

  g_assert_nonnull (argv[0]);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL,
                               &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (WEXITSTATUS (status), ==, 1);  /* differences found */
  g_strchomp (out);
  lines = g_strsplit (strchr (out, '\n') + 1, "\n", -1);
  return lines;
}

static guint
n_rows (OnyxWindow *window)
{
  return g_list_model_get_n_items (onyx_compare_pane_get_rows (test_compare_pane (window)));
}

/* The pane's row `i` (a new reference). */
static OnyxCompareRow *
row_at (OnyxWindow *window, guint i)
{
  OnyxCompareRow *row = g_list_model_get_item (onyx_compare_pane_get_rows (test_compare_pane (window)), i);

  g_assert_nonnull (row);
  return row;
}

/* The pane lists `diff`'s entries in order, each row's tooltip its full message. */
static void
assert_pane_lists (OnyxWindow *window, const OnyxDiff *diff)
{
  g_assert_cmpuint (n_rows (window), ==, diff->entries->len);
  for (guint i = 0; i < diff->entries->len; i++)
    {
      const OnyxDiffEntry *entry = g_ptr_array_index (diff->entries, i);
      g_autoptr (OnyxCompareRow) row = row_at (window, i);
      g_assert_cmpuint (onyx_compare_row_get_entry (row), ==, i);
      g_assert_cmpstr (onyx_compare_row_get_message (row), ==, entry->message);
    }
}

static gboolean
has_tint (OnyxWindow *window, int layout_node, OnyxDiffChange change)
{
  GdkRGBA tint, expected;

  onyx_diff_change_color (change, &expected);
  return onyx_canvas_get_node_tint (test_canvas (window), layout_node, &tint) && gdk_rgba_equal (&tint, &expected);
}

static guint
n_tinted (OnyxWindow *window)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (test_canvas (window));
  guint n = 0;

  for (guint i = 0; i < layout->nodes->len; i++)
    n += onyx_canvas_get_node_tint (test_canvas (window), i, NULL);
  return n;
}

static void
test_compare_scripted (void)
{
  OnyxWindow *window = open_window ("model.onnx");
  g_autoptr (OnyxDiff) diff = core_diff ("model_scripted.onnx", "model.onnx");
  const OnyxLayout *layout;
  Onnx__GraphProto *graph;
  const OnyxDiffEntry *first;
  guint renamed_nodes = 0;

  g_assert_false (gtk_revealer_get_reveal_child (test_revealer_of (test_compare_pane (window))));
  compare_with (window, "model_scripted.onnx");

  /* What `onyx-cli diff` says of this pair: 4 renamed nodes, 4 renamed initializers. */
  g_assert_cmpuint (diff->entries->len, ==, 8);
  for (guint i = 0; i < diff->entries->len; i++)
    {
      const OnyxDiffEntry *entry = g_ptr_array_index (diff->entries, i);
      renamed_nodes += entry->subject == ONYX_DIFF_NODE && entry->change == ONYX_DIFF_RENAMED;
    }
  g_assert_cmpuint (renamed_nodes, ==, 4);
  g_assert_cmpstr (onyx_compare_pane_get_title (test_compare_pane (window)), ==, "8 Differences");
  assert_pane_lists (window, diff);
  {
    g_auto (GStrv) cli = cli_diff_messages ("model_scripted.onnx", "model.onnx");
    g_assert_cmpuint (g_strv_length (cli), ==, n_rows (window));
    for (guint i = 0; cli[i] != NULL; i++)
      {
        g_autoptr (OnyxCompareRow) row = row_at (window, i);
        g_assert_cmpstr (onyx_compare_row_get_message (row), ==, cli[i]);
      }
  }

  /* Every op box of model.onnx is framed as renamed; inputs and outputs are not. */
  layout = onyx_canvas_get_layout (test_canvas (window));
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *n = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      if (n->kind == ONYX_LAYOUT_OP)
        g_assert_true (has_tint (window, i, ONYX_DIFF_RENAMED));
      else if (n->kind != ONYX_LAYOUT_GROUP)
        g_assert_false (onyx_canvas_get_node_tint (test_canvas (window), i, NULL));
    }
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "test-app-compare-scripted.png"), >, 2000);

  /* Activating a row selects its node in B. */
  first = g_ptr_array_index (diff->entries, 0);
  g_assert_cmpint (first->subject, ==, ONYX_DIFF_NODE);
  graph = onyx_document_get_proto (onyx_window_get_document (window))->graph;
  test_activate_list_row (test_compare_pane (window), 0);
  g_assert_cmpint (onyx_view_state_get_selection (test_state (window)), ==, ONYX_SELECTION_NODE);
  g_assert_true (onyx_view_state_get_selected_node (test_state (window)) == graph->node[first->index_b]);
  g_assert_cmpint (onyx_canvas_get_selected_node (test_canvas (window)), >=, 0);
  wait_for_revealer (window, test_revealer_of (test_compare_pane (window)));
  snapshot_to_png (GTK_WIDGET (window), "test-app-compare-selected.png");

  /* Closing the sidebar leaves compare mode: no frames. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "compare.close", NULL));
  g_assert_false (gtk_revealer_get_reveal_child (test_revealer_of (test_compare_pane (window))));
  g_assert_cmpuint (n_tinted (window), ==, 0);
  g_assert_null (onyx_compare_pane_get_diff (test_compare_pane (window)));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* With only top-level groups shown, model.onnx is one closed group "model": it takes
 * the frame of the nodes inside. */
static void
test_compare_collapsed_group (void)
{
  g_autoptr (GSettings) settings = g_settings_new ("io.github.onyxviewer.Onyx");
  OnyxWindow *window;
  const OnyxLayout *layout;
  guint groups = 0;

  g_settings_set_string (settings, "group-expansion", "top-level");
  window = open_window ("model.onnx");
  compare_with (window, "model_scripted.onnx");
  layout = onyx_canvas_get_layout (test_canvas (window));
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *n = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      g_assert_cmpint (n->kind, !=, ONYX_LAYOUT_OP);
      if (n->kind == ONYX_LAYOUT_GROUP && !n->expanded)
        {
          g_assert_true (has_tint (window, i, ONYX_DIFF_RENAMED));
          groups++;
        }
    }
  g_assert_cmpuint (groups, ==, 1);
  snapshot_to_png (GTK_WIDGET (window), "test-app-compare-group.png");
  gtk_window_destroy (GTK_WINDOW (window));
  g_settings_reset (settings, "group-expansion");
}

static void
test_compare_same (void)
{
  OnyxWindow *window = open_window ("model.onnx");

  compare_with (window, "model.onnx");
  g_assert_nonnull (onyx_compare_pane_get_diff (test_compare_pane (window)));
  g_assert_cmpuint (onyx_compare_pane_get_diff (test_compare_pane (window))->entries->len, ==, 0);
  g_assert_cmpstr (onyx_compare_pane_get_title (test_compare_pane (window)), ==, "No Differences");
  g_assert_cmpuint (n_rows (window), ==, 0);
  g_assert_cmpuint (n_tinted (window), ==, 0);
  snapshot_to_png (GTK_WIDGET (window), "test-app-compare-same.png");
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Compared with its own file, then FooOp bypassed in the window: the list follows
 * the edit, and says exactly that FooOp went and Relu's output took over FooOp's
 * ("output"), as `onyx-cli diff model_foo.onnx bypassed.onnx` says. */
static void
test_compare_after_edit (void)
{
  OnyxWindow *window = open_window ("model_foo.onnx");
  g_autofree char *path = test_data_path ("model_foo.onnx");
  g_autoptr (OnyxModel) original = onyx_model_new_from_file (path, NULL);
  g_autoptr (OnyxDiff) diff = NULL;
  Onnx__GraphProto *graph;
  const OnyxDiffEntry *removed = NULL, *changed = NULL;
  int foo, relu, conv;

  compare_with (window, "model_foo.onnx");
  g_assert_cmpuint (onyx_compare_pane_get_diff (test_compare_pane (window))->entries->len, ==, 0);

  foo = layout_node_of_op (window, "FooOp");
  g_signal_emit_by_name (test_canvas (window), "item-activated", foo, -1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.bypass-node", NULL));
  wait_for_layout (window);

  graph = onyx_document_get_proto (onyx_window_get_document (window))->graph;
  diff = onyx_diff_models (onyx_model_get_proto (original), onyx_document_get_proto (onyx_window_get_document (window)));
  assert_pane_lists (window, diff);
  g_assert_cmpuint (diff->entries->len, ==, 2);
  for (guint i = 0; i < diff->entries->len; i++)
    {
      const OnyxDiffEntry *entry = g_ptr_array_index (diff->entries, i);
      g_assert_cmpint (entry->subject, ==, ONYX_DIFF_NODE);
      if (entry->change == ONYX_DIFF_REMOVED)
        removed = entry;
      else if (entry->change == ONYX_DIFF_RENAMED)
        changed = entry;
    }
  g_assert_nonnull (removed);
  g_assert_cmpstr (onyx_model_get_proto (original)->graph->node[removed->index_a]->op_type, ==, "FooOp");
  g_assert_nonnull (changed);
  g_assert_cmpstr (graph->node[changed->index_b]->op_type, ==, "Relu");
  g_assert_cmpuint (changed->details->len, ==, 1);
  g_assert_true (g_str_has_suffix (changed->details->pdata[0], "→ output"));
  g_assert_cmpuint (onyx_compare_pane_get_diff (test_compare_pane (window))->entries->len, ==, 2);
  g_assert_cmpstr (onyx_compare_pane_get_title (test_compare_pane (window)), ==, "2 Differences");

  /* Relu is framed (its output was renamed); Conv is as it was. */
  relu = layout_node_of_op (window, "Relu");
  conv = layout_node_of_op (window, "Conv");
  g_assert_true (has_tint (window, relu, ONYX_DIFF_RENAMED));
  g_assert_false (onyx_canvas_get_node_tint (test_canvas (window), conv, NULL));
  g_assert_cmpuint (n_tinted (window), ==, 1);
  wait_for_revealer (window, test_revealer_of (test_compare_pane (window)));
  snapshot_to_png (GTK_WIDGET (window), "test-app-compare-edit.png");

  /* The removed node is only listed: its row selects nothing. */
  for (guint i = 0; i < diff->entries->len; i++)
    if (g_ptr_array_index (diff->entries, i) == removed)
      {
        g_autoptr (OnyxCompareRow) row = row_at (window, i);
        g_assert_false (onyx_compare_row_get_activatable (row));
      }

  /* Undo: the same as the file again. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.undo", NULL));
  wait_for_layout (window);
  g_assert_cmpuint (onyx_compare_pane_get_diff (test_compare_pane (window))->entries->len, ==, 0);
  g_assert_cmpuint (n_tinted (window), ==, 0);

  /* Opening another model leaves compare mode. */
  {
    g_autofree char *other = test_data_path ("model.onnx");
    g_autoptr (GFile) file = g_file_new_for_path (other);
    onyx_window_open_file (window, file);
    wait_for_layout (window);
    g_assert_false (gtk_revealer_get_reveal_child (test_revealer_of (test_compare_pane (window))));
    g_assert_null (onyx_compare_pane_get_diff (test_compare_pane (window)));
  }
  gtk_window_destroy (GTK_WINDOW (window));
}

/* model_foo.onnx against model.onnx: an added opset, a changed graph output, an
 * added node, removed nodes and initializers. The output box and FooOp are framed;
 * the output's row selects the output. */
static void
test_compare_model_entries (void)
{
  OnyxWindow *window = open_window ("model_foo.onnx");
  g_autoptr (OnyxDiff) diff = core_diff ("model.onnx", "model_foo.onnx");
  const OnyxLayout *layout;
  int output_row = -1;

  compare_with (window, "model.onnx");
  assert_pane_lists (window, diff);
  g_assert_true (has_tint (window, layout_node_of_op (window, "FooOp"), ONYX_DIFF_ADDED));
  g_assert_false (onyx_canvas_get_node_tint (test_canvas (window), layout_node_of_op (window, "Conv"), NULL));
  layout = onyx_canvas_get_layout (test_canvas (window));
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *n = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      if (n->kind == ONYX_LAYOUT_OUTPUT)
        g_assert_true (has_tint (window, i, ONYX_DIFF_CHANGED));
      else if (n->kind == ONYX_LAYOUT_INPUT)
        g_assert_false (onyx_canvas_get_node_tint (test_canvas (window), i, NULL));
    }

  for (guint i = 0; i < diff->entries->len; i++)
    {
      const OnyxDiffEntry *entry = g_ptr_array_index (diff->entries, i);
      g_autoptr (OnyxCompareRow) row = row_at (window, i);
      /* Opsets and what only model.onnx has are listed, not selectable. */
      g_assert_cmpint (onyx_compare_row_get_activatable (row), ==,
                       entry->subject != ONYX_DIFF_OPSET && entry->change != ONYX_DIFF_REMOVED);
      if (entry->subject == ONYX_DIFF_GRAPH_OUTPUT)
        output_row = i;
    }
  g_assert_cmpint (output_row, >=, 0);
  test_activate_list_row (test_compare_pane (window), output_row);
  g_assert_cmpint (onyx_view_state_get_selection (test_state (window)), ==, ONYX_SELECTION_TENSOR);
  g_assert_cmpstr (onyx_view_state_get_selected_tensor (test_state (window)), ==, "output");
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_compare_bad_file (void)
{
  OnyxWindow *window = open_window ("model.onnx");
  g_autoptr (GFile) file = g_file_new_for_path ("/nonexistent/model.onnx");
  g_autoptr (GError) error = NULL;

  AdwMessageDialog *dialog;

  /* The file is read in a thread: what went wrong is said when it is done, and the
   * pane never shows. */
  g_assert_true (onyx_compare_pane_compare_with (test_compare_pane (window), file, &error));
  g_assert_no_error (error);
  wait_for_layout (window);
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Could Not Open the Model");
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "model.onnx: No such file"));
  gtk_window_destroy (GTK_WINDOW (dialog));
  g_assert_false (onyx_compare_pane_get_revealed (test_compare_pane (window)));
  g_assert_false (gtk_revealer_get_reveal_child (test_revealer_of (test_compare_pane (window))));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int argc, char **argv)
{
  g_autofree char *home = test_private_xdg_folders ("app-compare");
  int status;

  g_test_init (&argc, &argv, NULL);
  /* Xvfb has no session bus, which GTK warns about; criticals stay fatal. */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  adw_init ();
  g_test_add_func ("/app-compare/scripted", test_compare_scripted);
  g_test_add_func ("/app-compare/collapsed-group", test_compare_collapsed_group);
  g_test_add_func ("/app-compare/same", test_compare_same);
  g_test_add_func ("/app-compare/after-edit", test_compare_after_edit);
  g_test_add_func ("/app-compare/model-entries", test_compare_model_entries);
  g_test_add_func ("/app-compare/bad-file", test_compare_bad_file);
  status = g_test_run ();
  test_private_xdg_folders_remove (home);
  return status;
}
