/* test-app.c: drives the real Onyx window under Xvfb: open the walkthrough's model,
 * select FooOp on the canvas, bypass it through the window action, undo, redo, save,
 * and read the saved file back with python3-onnx; a broken file shows the core's
 * error; window snapshots are written as PNG and must not be blank. */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <sys/wait.h>

#include "onyx-journal.h"
#include "onyx-steps.h"

#include "onyx-app-test-util.h"

static void
test_open_bypass_undo_save (void)
{
  OnyxWindow *window = onyx_window_new (NULL);
  g_autofree char *path = test_data_path ("model_foo.onnx");
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autofree char *tmpdir = g_dir_make_tmp ("onyx-app-XXXXXX", NULL);
  g_autofree char *saved = g_build_filename (tmpdir, "saved.onnx", NULL);
  g_autoptr (GFile) saved_file = g_file_new_for_path (saved);
  g_autofree char *types = NULL, *out = NULL, *err = NULL, *script = NULL;
  int foo, status;

  gtk_window_present (GTK_WINDOW (window));
  wait_until_shown (window);
  onyx_window_open_file (window, file);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->stack), ==, "model");
  wait_for_layout (window);
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window->canvas), "test-app-loaded.png"), >, 2000);
  snapshot_to_png (GTK_WIDGET (window), "test-app-window.png");

  /* A click on FooOp, as the canvas reports it. */
  foo = layout_node_of_op (window, "FooOp");
  g_assert_cmpint (foo, >=, 0);
  g_signal_emit_by_name (window->canvas, "item-activated", foo, -1);
  g_assert_cmpint (window->selection, ==, ONYX_SELECTION_NODE);
  g_assert_cmpstr (window->selected_node->op_type, ==, "FooOp");
  g_assert_cmpint (onyx_canvas_get_selected_node (window->canvas), ==, foo);
  g_assert_false (onyx_document_is_modified (window->document));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.bypass-node", NULL));
  types = op_types (window);
  g_assert_cmpstr (types, ==, "Conv,Relu");
  g_assert_true (onyx_document_is_modified (window->document));
  g_assert_true (g_str_has_prefix (gtk_window_get_title (GTK_WINDOW (window)), "• "));
  wait_for_layout (window);
  g_assert_cmpint (layout_node_of_op (window, "FooOp"), ==, -1);
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window->canvas), "test-app-bypassed.png"), >, 2000);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.undo", NULL));
  g_free (types);
  types = op_types (window);
  g_assert_cmpstr (types, ==, "Conv,Relu,FooOp");
  wait_for_layout (window);
  g_assert_cmpint (layout_node_of_op (window, "FooOp"), >=, 0);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.redo", NULL));
  g_free (types);
  types = op_types (window);
  g_assert_cmpstr (types, ==, "Conv,Relu");
  wait_for_layout (window);

  g_assert_true (onyx_window_save_file (window, saved_file));
  g_assert_false (onyx_document_is_modified (window->document));
  script = g_strdup_printf ("import onnx, sys\n"
                            "m = onnx.load(sys.argv[1])\n"
                            "onnx.checker.check_model(m)\n"
                            "print(','.join(n.op_type for n in m.graph.node))\n");
  {
    const char *argv[] = { "/usr/bin/python3", "-c", script, saved, NULL };
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                                 &out, &err, &status, NULL));
  }
  if (status != 0)
    g_test_message ("python3: %s", err);
  g_assert_cmpint (status, ==, 0);
  g_assert_cmpstr (g_strstrip (out), ==, "Conv,Relu");

  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (saved);
  g_rmdir (tmpdir);
}

static void
test_broken_file (void)
{
  OnyxWindow *window = onyx_window_new (NULL);
  g_autofree char *tmpdir = g_dir_make_tmp ("onyx-app-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (tmpdir, "broken.onnx", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  OnyxModel *model;
  const char *shown;
  g_autofree char *escaped = NULL;

  /* A field that runs past the end of the file. */
  g_assert_true (g_file_set_contents (path, "\x3a\x7f\x0a\x03" "abc", 7, NULL));
  model = onyx_model_new_from_file (path, &error);
  g_assert_null (model);

  gtk_window_present (GTK_WINDOW (window));
  wait_until_shown (window);
  onyx_window_open_file (window, file);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->stack), ==, "error");
  shown = adw_status_page_get_description (window->error_page);
  escaped = g_markup_escape_text (error->message, -1);
  g_assert_cmpstr (shown, ==, escaped);
  g_assert_nonnull (strstr (shown, "truncated"));
  g_assert_false (onyx_window_has_model (window));

  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
  g_rmdir (tmpdir);
}

/* The child of test_crash_restore: open MODEL, bypass FooOp as a user would, and die
 * by SIGKILL before saving. */
static int
crash_after_bypass (const char *path)
{
  OnyxWindow *window = open_model_window (path);

  g_signal_emit_by_name (window->canvas, "item-activated", layout_node_of_op (window, "FooOp"), -1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.bypass-node", NULL));
  raise (SIGKILL);
  return 1;
}

/* No lost work: after a SIGKILL, opening the model again offers its unsaved edits,
 * and restoring them gives the model that was being edited. */
static void
test_crash_restore (void)
{
  g_autofree char *source = test_data_path ("model_foo.onnx");
  g_autofree char *tmpdir = g_dir_make_tmp ("onyx-crash-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (tmpdir, "model_foo.onnx", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *journal = NULL;
  g_autofree char *self_exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = NULL;
  g_autoptr (OnyxDocument) expected = NULL;
  g_autoptr (GBytes) expected_bytes = NULL;
  g_autoptr (GBytes) restored_bytes = NULL;
  g_autofree char *types = NULL;
  const char *child_argv[] = { self_exe, "--crash-after-bypass", path, NULL };
  OnyxWindow *window;
  AdwMessageDialog *dialog;
  gsize len;
  int status;

  g_assert_true (g_file_get_contents (source, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (path, contents, (gssize) len, NULL));
  journal = onyx_journal_path_for (path);
  g_unlink (journal);

  g_assert_true (g_spawn_sync (NULL, (char **) child_argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL,
                               &status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL);
  g_assert_true (g_file_test (journal, G_FILE_TEST_EXISTS));

  window = onyx_window_new (NULL);
  gtk_window_present (GTK_WINDOW (window));
  wait_until_shown (window);
  onyx_window_open_file (window, file);
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  adw_message_dialog_response (dialog, "restore");
  types = op_types (window);
  g_assert_cmpstr (types, ==, "Conv,Relu");
  g_assert_true (onyx_document_is_modified (window->document));

  model = onyx_model_new_from_file (path, &error);
  expected = onyx_document_new (model);
  g_assert_true (onyx_step_apply (expected, "bypass-op", "devtech::FooOp", &error));
  expected_bytes = onyx_document_serialize (expected);
  restored_bytes = onyx_document_serialize (window->document);
  g_assert_true (g_bytes_equal (expected_bytes, restored_bytes));
  wait_for_layout (window);
  gtk_window_destroy (GTK_WINDOW (window));

  g_unlink (journal);
  g_unlink (path);
  g_rmdir (tmpdir);
}

int
main (int argc, char *argv[])
{
  g_autofree char *home = NULL;
  int status;

  /* The crashing child inherits its parent's XDG folders. */
  if (argc == 3 && g_str_equal (argv[1], "--crash-after-bypass"))
    {
      adw_init ();
      return crash_after_bypass (argv[2]);
    }
  home = test_private_xdg_folders ("app");
  g_test_init (&argc, &argv, NULL);
  /* Xvfb has no session bus, which GTK warns about; criticals stay fatal. */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  adw_init ();
  g_test_add_func ("/app/open-bypass-undo-save", test_open_bypass_undo_save);
  g_test_add_func ("/app/broken-file", test_broken_file);
  g_test_add_func ("/app/crash-restore", test_crash_restore);
  status = g_test_run ();
  test_remove_tree (home);
  return status;
}
