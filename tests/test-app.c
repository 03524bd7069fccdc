/* test-app.c: drives the real Onyx window under Xvfb: open the walkthrough's model,
 * select FooOp on the canvas, bypass it through the window action, undo, redo, save,
 * and read the saved file back with python3-onnx; a broken file shows the core's
 * error; window snapshots are written as PNG and must not be blank. A model opens at
 * its first view: fitted when small, at its inputs at 100 % when big. */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>
#include <signal.h>
#include <sys/wait.h>

#include "onyx-disk-queue.h"
#include "onyx-journal.h"
#include "onyx-steps.h"

#include "onyx-app-test-util.h"
#include "onyx-spare-rows.h"

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
  GtkWidget *nodes_row;
  int foo, status;

  gtk_window_present (GTK_WINDOW (window));
  wait_until_shown (window);
  onyx_window_open_file (window, file);
  wait_for_open (window);
  g_assert_cmpstr (onyx_window_get_page (window), ==, "model");
  wait_for_layout (window);
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (test_canvas (window)), "test-app-loaded.png"), >, 2000);
  snapshot_to_png (GTK_WIDGET (window), "test-app-window.png");

  nodes_row = test_find_widget (test_properties_page (window), ADW_TYPE_ACTION_ROW, "Nodes");
  g_assert_nonnull (nodes_row);
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (nodes_row)), ==, "3");

  /* A click on FooOp, as the canvas reports it. */
  foo = layout_node_of_op (window, "FooOp");
  g_assert_cmpint (foo, >=, 0);
  g_signal_emit_by_name (test_canvas (window), "item-activated", foo, -1);
  g_assert_cmpint (onyx_view_state_get_selection (test_state (window)), ==, ONYX_SELECTION_NODE);
  g_assert_cmpstr (onyx_view_state_get_selected_node (test_state (window))->op_type, ==, "FooOp");
  g_assert_cmpint (onyx_canvas_get_selected_node (test_canvas (window)), ==, foo);
  g_assert_false (onyx_document_is_modified (onyx_window_get_document (window)));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.bypass-node", NULL));
  types = op_types (window);
  g_assert_cmpstr (types, ==, "Conv,Relu");
  g_assert_true (onyx_document_is_modified (onyx_window_get_document (window)));
  g_assert_true (g_str_has_prefix (gtk_window_get_title (GTK_WINDOW (window)), "• "));
  wait_for_layout (window);
  g_assert_cmpint (layout_node_of_op (window, "FooOp"), ==, -1);
  /* The panel is back on the model's page, the same rows with the new count. */
  g_assert_true (test_find_widget (test_properties_page (window), ADW_TYPE_ACTION_ROW, "Nodes") == nodes_row);
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (nodes_row)), ==, "2");
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (test_canvas (window)), "test-app-bypassed.png"), >, 2000);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.undo", NULL));
  g_free (types);
  types = op_types (window);
  g_assert_cmpstr (types, ==, "Conv,Relu,FooOp");
  wait_for_layout (window);
  g_assert_cmpint (layout_node_of_op (window, "FooOp"), >=, 0);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.redo", NULL));
  g_free (types);
  types = op_types (window);
  g_assert_cmpstr (types, ==, "Conv,Relu");
  wait_for_layout (window);

  g_assert_true (onyx_files_save (onyx_window_get_files (window), saved_file));
  wait_for_save (window);
  g_assert_false (onyx_document_is_modified (onyx_window_get_document (window)));
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
  wait_for_open (window);
  g_assert_cmpstr (onyx_window_get_page (window), ==, "error");
  shown = adw_status_page_get_description (test_find_status_page (GTK_WIDGET (window), "Could Not Open the Model"));
  escaped = g_markup_escape_text (error->message, -1);
  g_assert_cmpstr (shown, ==, escaped);
  g_assert_nonnull (strstr (shown, "truncated"));
  g_assert_false (onyx_window_has_model (window));

  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
  g_rmdir (tmpdir);
}

static gboolean
rect_inside (const OnyxRect *outer, const OnyxRect *inner)
{
  return inner->x >= outer->x - 1e-6 && inner->y >= outer->y - 1e-6 &&
         inner->x + inner->width <= outer->x + outer->width + 1e-6 &&
         inner->y + inner->height <= outer->y + outer->height + 1e-6;
}

/* The union of the graph input boxes. */
static OnyxRect
input_boxes (const OnyxLayout *layout)
{
  double x0 = G_MAXDOUBLE, y0 = G_MAXDOUBLE, x1 = -G_MAXDOUBLE, y1 = -G_MAXDOUBLE;

  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *n = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      if (n->kind != ONYX_LAYOUT_INPUT)
        continue;
      x0 = MIN (x0, n->box.x);
      y0 = MIN (y0, n->box.y);
      x1 = MAX (x1, n->box.x + n->box.width);
      y1 = MAX (y1, n->box.y + n->box.height);
    }
  g_assert_cmpfloat (x0, <, x1);
  return (OnyxRect) { x0, y0, x1 - x0, y1 - y0 };
}

/* A big graph at its first view: 100 %, its inputs in view, near the view's top, and
 * the view's horizontal centre on them unless that would show past the layout's
 * sides (20 px margins). */
static void
assert_at_inputs (OnyxWindow *window)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (test_canvas (window));
  OnyxRect area, inputs = input_boxes (layout);
  const OnyxRect *b = &layout->bounds;
  double centred_x;

  onyx_canvas_get_visible_area (test_canvas (window), &area);
  centred_x = inputs.x + inputs.width / 2 - area.width / 2;
  if (b->width + 40 > area.width)
    centred_x = CLAMP (centred_x, b->x - 20, b->x + b->width + 20 - area.width);
  g_assert_cmpfloat (onyx_canvas_get_scale (test_canvas (window)), ==, 1.0);
  g_assert_true (rect_inside (&area, &inputs));
  g_assert_cmpfloat (area.y, <=, inputs.y);
  g_assert_cmpfloat (area.y, >=, inputs.y - 40);
  g_assert_cmpfloat (area.y, <=, layout->bounds.y + 40);
  g_assert_cmpfloat_with_epsilon (area.x, centred_x, 1e-6);
}

static void
test_first_view (void)
{
  g_autofree char *small_path = test_data_path ("model.onnx");
  g_autofree char *big_path = test_data_path ("flat_constants.onnx");
  g_autoptr (GFile) big_file = g_file_new_for_path (big_path);
  OnyxWindow *window = open_model_window (small_path);
  const OnyxLayout *layout = onyx_canvas_get_layout (test_canvas (window));
  OnyxRect area, first;

  /* Small: fitted whole. */
  onyx_canvas_get_visible_area (test_canvas (window), &area);
  g_assert_true (rect_inside (&area, &layout->bounds));
  g_assert_cmpfloat (onyx_canvas_get_scale (test_canvas (window)), >=, 0.8);
  g_assert_cmpfloat_with_epsilon (area.x + area.width / 2, layout->bounds.x + layout->bounds.width / 2, 1e-6);
  gtk_window_destroy (GTK_WINDOW (window));

  /* Big: 35 nodes, too big for the view at a readable scale. */
  window = open_model_window (big_path);
  layout = onyx_canvas_get_layout (test_canvas (window));
  g_test_message ("canvas %d×%d, layout %.0f×%.0f", gtk_widget_get_width (GTK_WIDGET (test_canvas (window))),
                  gtk_widget_get_height (GTK_WIDGET (test_canvas (window))), layout->bounds.width,
                  layout->bounds.height);
  g_assert_true (layout->bounds.width * 0.8 > gtk_widget_get_width (GTK_WIDGET (test_canvas (window))) ||
                 layout->bounds.height * 0.8 > gtk_widget_get_height (GTK_WIDGET (test_canvas (window))));
  assert_at_inputs (window);
  onyx_canvas_get_visible_area (test_canvas (window), &first);
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "test-app-first-view.png"), >, 2000);

  /* Home after panning away comes back; 0 still shows the whole graph. */
  onyx_canvas_center_node (test_canvas (window), layout->nodes->len - 1);
  onyx_canvas_get_visible_area (test_canvas (window), &area);
  g_assert_cmpfloat (fabs (area.y - first.y), >, 100);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (test_canvas (window)), "canvas.first-view", NULL));
  onyx_canvas_get_visible_area (test_canvas (window), &area);
  g_assert_cmpmem (&area, sizeof area, &first, sizeof first);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (test_canvas (window)), "canvas.zoom-fit", NULL));
  onyx_canvas_get_visible_area (test_canvas (window), &area);
  g_assert_true (rect_inside (&area, &layout->bounds));
  g_assert_cmpfloat (onyx_canvas_get_scale (test_canvas (window)), <, 0.8);
  gtk_window_destroy (GTK_WINDOW (window));

  /* Laid out before the canvas has a size: the first view waits for one. */
  window = onyx_window_new (NULL);
  onyx_window_open_file (window, big_file);
  wait_for_open (window);
  while (onyx_view_state_is_laying_out (test_state (window)))
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (onyx_canvas_get_layout (test_canvas (window)));
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (test_canvas (window))), ==, 0);
  gtk_window_present (GTK_WINDOW (window));
  wait_until_shown (window);
  wait_for_layout (window);
  assert_at_inputs (window);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
clear_test_box (OnyxLayoutNode *node)
{
  g_ptr_array_unref (node->lines);
}

/* A layout without inputs, given to a canvas before it has a size: once it has one,
 * the view starts at the boxes level with the topmost (A, and B below A's top), at
 * 100 %, centred on them. */
static void
test_first_view_without_inputs (void)
{
  const OnyxRect boxes[] = { { 0, 0, 200, 40 }, { 300, 10, 200, 60 }, { -600, 200, 100, 40 },
                             { 1000, 3000, 100, 40 } };
  OnyxLayout *layout = g_new0 (OnyxLayout, 1);
  GtkWidget *window = gtk_window_new ();
  OnyxCanvas *canvas = ONYX_CANVAS (onyx_canvas_new ());
  OnyxRect area;

  layout->nodes = g_array_new (FALSE, TRUE, sizeof (OnyxLayoutNode));
  layout->edges = g_array_new (FALSE, TRUE, sizeof (OnyxLayoutEdge));
  g_array_set_clear_func (layout->nodes, (GDestroyNotify) clear_test_box);
  for (guint i = 0; i < G_N_ELEMENTS (boxes); i++)
    {
      OnyxLayoutNode node = { .kind = ONYX_LAYOUT_OP, .parent = -1, .title = (char *) "Op",
                              .subtitle = (char *) "op", .lines = g_ptr_array_new (), .box = boxes[i] };
      g_array_append_val (layout->nodes, node);
    }
  layout->bounds = (OnyxRect) { -600, 0, 1700, 3040 };
  onyx_canvas_set_layout (canvas, layout, FALSE);
  gtk_window_set_default_size (GTK_WINDOW (window), 800, 600);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (canvas));
  gtk_window_present (GTK_WINDOW (window));
  while (gtk_widget_get_width (GTK_WIDGET (canvas)) <= 0)
    g_main_context_iteration (NULL, TRUE);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  onyx_canvas_get_visible_area (canvas, &area);
  g_assert_cmpfloat (onyx_canvas_get_scale (canvas), ==, 1.0);
  g_assert_cmpfloat_with_epsilon (area.x + area.width / 2, 250, 1e-6);
  g_assert_cmpfloat_with_epsilon (area.y, -20, 1e-6);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The child of test_crash_restore: open MODEL, bypass FooOp as a user would, and die
 * by SIGKILL before saving. */
static int
crash_after_bypass (const char *path)
{
  OnyxWindow *window = open_model_window (path);

  g_signal_emit_by_name (test_canvas (window), "item-activated", layout_node_of_op (window, "FooOp"), -1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.bypass-node", NULL));
  /* The journal is written in a thread: the crash comes once it is on disk. */
  onyx_disk_queue_flush ();
  raise (SIGKILL);
  return 1;
}

/* No lost work: after a SIGKILL, opening the model again offers its unsaved edits,
 * and restoring them gives the model that was being edited. */
static void
test_crash_restore (void)
{
  g_autofree char *tmpdir = NULL;
  g_autofree char *path = test_copy_data ("model_foo.onnx", "onyx-crash-XXXXXX", &tmpdir);
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
  int status;

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
  wait_for_open (window);
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  adw_message_dialog_response (dialog, "restore");
  /* The edits are replayed once the first layout no longer reads the model. */
  while (!onyx_document_is_modified (onyx_window_get_document (window)))
    g_main_context_iteration (NULL, TRUE);
  types = op_types (window);
  g_assert_cmpstr (types, ==, "Conv,Relu");
  g_assert_true (onyx_document_is_modified (onyx_window_get_document (window)));

  model = onyx_model_new_from_file (path, &error);
  expected = onyx_document_new (model);
  g_assert_true (onyx_step_apply (expected, "bypass-op", "devtech::FooOp", &error));
  expected_bytes = onyx_document_serialize (expected);
  restored_bytes = onyx_document_serialize (onyx_window_get_document (window));
  g_assert_true (g_bytes_equal (expected_bytes, restored_bytes));
  wait_for_layout (window);
  gtk_window_destroy (GTK_WINDOW (window));

  g_unlink (journal);
  g_unlink (path);
  g_rmdir (tmpdir);
}

/* The subtitles of the action rows under `widget`, one per line. */
static void
collect_subtitles (GtkWidget *widget, GString *out)
{
  if (!gtk_widget_get_visible (widget))
    return;
  if (ADW_IS_ACTION_ROW (widget))
    g_string_append_printf (out, "%s\n", adw_action_row_get_subtitle (ADW_ACTION_ROW (widget)));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_subtitles (child, out);
}

/* The subtitles of the node panel's rows for the layout node `item`. */
static void
panel_subtitles_of (OnyxWindow *window, int item, GString *rows)
{
  g_signal_emit_by_name (test_canvas (window), "item-activated", item, -1);
  g_assert_cmpint (onyx_view_state_get_selection (test_state (window)), ==, ONYX_SELECTION_NODE);
  g_string_truncate (rows, 0);
  collect_subtitles (GTK_WIDGET (test_properties (window)), rows);
}

/* The node panel shows each tensor's type as ONNX's inference finds it, marked
 * where the file records none, and follows edits and their undo. */
static void
test_inferred_types_in_panel (void)
{
  g_autofree char *path = test_data_path ("model.onnx");
  OnyxWindow *window = open_model_window (path);
  g_autoptr (GString) rows = g_string_new (NULL);
  GtkWidget *input_row;

  panel_subtitles_of (window, layout_node_of_op (window, "Conv"), rows);
  g_assert_nonnull (strstr (rows->str, "float32[N×3×128×128]\n"));
  g_assert_nonnull (strstr (rows->str, "float32[N×16×63×63] (inferred)\n"));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  snapshot_to_png (GTK_WIDGET (window), "test-app-inferred-types.png");

  input_row = test_find_widget (test_properties_page (window), ADW_TYPE_ACTION_ROW, "X: input");
  g_assert_nonnull (input_row);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.set-input-dim", "(sus)", "input", 0, "2"));
  /* The step shows at once (the panel in the turn after its frame); its shapes are
   * made by its analysis, which starts at once in a job the document is frozen for,
   * the layout after it, and the panel follows them without being asked. */
  onyx_view_state_settle (test_state (window));
  g_assert_true (onyx_view_state_is_laying_out (test_state (window)));
  g_assert_true (onyx_document_is_frozen (onyx_window_get_document (window)));
  g_string_truncate (rows, 0);
  collect_subtitles (GTK_WIDGET (test_properties (window)), rows);
  g_assert_nonnull (strstr (rows->str, "float32[2×3×128×128]\n"));
  g_assert_nonnull (strstr (rows->str, "…\n"));
  /* The page built again is the one shown, but for the values: the shown one keeps
   * its rows and takes the new values. */
  g_assert_true (test_find_widget (test_properties_page (window), ADW_TYPE_ACTION_ROW, "X: input") == input_row);
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (input_row)), ==, "float32[2×3×128×128]");
  wait_for_layout (window);
  /* The page built to give its values went after the frame, its plain rows kept for
   * the next page. */
  g_assert_cmpuint (onyx_spare_rows_count (), >, 0);
  g_assert_true (test_find_widget (test_properties_page (window), ADW_TYPE_ACTION_ROW, "X: input") == input_row);
  g_assert_false (onyx_document_is_frozen (onyx_window_get_document (window)));
  g_string_truncate (rows, 0);
  collect_subtitles (GTK_WIDGET (test_properties (window)), rows);
  g_assert_nonnull (strstr (rows->str, "float32[2×16×63×63] (inferred)\n"));
  panel_subtitles_of (window, layout_node_of_op (window, "Conv"), rows);
  g_assert_nonnull (strstr (rows->str, "float32[2×16×63×63] (inferred)\n"));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.undo", NULL));
  wait_for_layout (window);
  panel_subtitles_of (window, layout_node_of_op (window, "Conv"), rows);
  g_assert_nonnull (strstr (rows->str, "float32[N×16×63×63] (inferred)\n"));
  /* Another node's page takes the rows kept, each as plain as a new one. */
  {
    GtkWidget *spare;
    while (g_main_context_iteration (NULL, FALSE))
      ;
    spare = onyx_spare_rows_peek ();
    g_assert_nonnull (spare);
    panel_subtitles_of (window, layout_node_of_op (window, "Relu"), rows);
    g_assert_true (gtk_widget_is_ancestor (spare, test_properties_page (window)));
    g_assert_true (gtk_widget_get_visible (spare));
    g_assert_nonnull (strstr (rows->str, "Relu\n"));
  }
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Types `text` into the properties panel's entry row titled `title` and presses its
 * apply button, as a person does. */
static void
apply_panel_entry (OnyxWindow *window, const char *title, const char *text)
{
  GtkWidget *row = test_find_widget (test_properties_page (window), ADW_TYPE_ENTRY_ROW, title);

  g_assert_nonnull (row);
  gtk_editable_set_text (GTK_EDITABLE (row), text);
  g_signal_emit_by_name (row, "apply");
  wait_for_layout (window);
}

/* The panel's entries send typed actions: a node's name, an attribute, a tensor's
 * name and a graph input's dimension, each changed from its row. */
static void
test_panel_entries_edit (void)
{
  g_autofree char *path = test_data_path ("model.onnx");
  OnyxWindow *window = open_model_window (path);
  Onnx__GraphProto *graph = onyx_document_get_proto (onyx_window_get_document (window))->graph;
  Onnx__NodeProto *conv;
  const Onnx__AttributeProto *strides = NULL;

  g_signal_emit_by_name (test_canvas (window), "item-activated", layout_node_of_op (window, "Conv"), -1);
  conv = onyx_view_state_get_selected_node (test_state (window));
  g_assert_cmpstr (conv->op_type, ==, "Conv");
  apply_panel_entry (window, "Name", "first_conv");
  g_assert_cmpstr (conv->name, ==, "first_conv");
  g_assert_cmpstr (onyx_document_get_undo_label (onyx_window_get_document (window)), ==, "Rename node /model/model.0/Conv to first_conv");

  apply_panel_entry (window, "strides", "[1, 1]");
  for (size_t i = 0; i < conv->n_attribute; i++)
    if (g_str_equal (conv->attribute[i]->name, "strides"))
      strides = conv->attribute[i];
  g_assert_nonnull (strides);
  g_assert_cmpuint (strides->n_ints, ==, 2);
  g_assert_cmpint (strides->ints[0], ==, 1);
  g_assert_cmpint (strides->ints[1], ==, 1);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "graph.select-tensor", "s", "input"));
  apply_panel_entry (window, "Dimension 0", "batch");
  g_assert_cmpstr (graph->input[0]->type->tensor_type->shape->dim[0]->dim_param, ==, "batch");
  apply_panel_entry (window, "Name", "images");
  g_assert_cmpstr (graph->input[0]->name, ==, "images");
  g_assert_cmpstr (onyx_view_state_get_selected_tensor (test_state (window)), ==, "images");
  g_assert_cmpstr (conv->input[0], ==, "images");
  g_assert_cmpuint (onyx_document_get_n_undo (onyx_window_get_document (window)), ==, 4);
  onyx_files_discard_journal (onyx_window_get_files (window));
  gtk_window_destroy (GTK_WINDOW (window));
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
  g_test_add_func ("/app/first-view", test_first_view);
  g_test_add_func ("/app/first-view-without-inputs", test_first_view_without_inputs);
  g_test_add_func ("/app/crash-restore", test_crash_restore);
  g_test_add_func ("/app/inferred-types", test_inferred_types_in_panel);
  g_test_add_func ("/app/panel-entries-edit", test_panel_entries_edit);
  status = g_test_run ();
  test_private_xdg_folders_remove (home);
  return status;
}
