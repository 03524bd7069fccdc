/* test-app-settings.c: the GSettings key group-expansion decides which name-scope
 * groups a newly opened model shows (the key only; the preferences window has no row
 * for it yet). model_foo.onnx has one scope, "model", around Conv and Relu. Find
 * opens a closed group and shows its match readable. */
#include "onyx-app-test-util.h"

/* Opens model_foo.onnx with group-expansion set to `mode`; counts the layout's open
 * and closed group boxes and its operator boxes. */
static void
open_with_expansion (const char *mode, guint *n_open, guint *n_closed, guint *n_ops)
{
  g_autoptr (GSettings) settings = g_settings_new ("io.github.onyxviewer.Onyx");
  g_autofree char *path = g_build_filename (g_getenv ("ONYX_TEST_DATA"), "model_foo.onnx", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  OnyxWindow *window;
  const OnyxLayout *layout;

  g_assert_true (g_settings_set_string (settings, "group-expansion", mode));
  window = onyx_window_new (NULL);
  gtk_window_present (GTK_WINDOW (window));
  onyx_window_open_file (window, file);
  wait_for_layout (window);
  layout = onyx_canvas_get_layout (test_canvas (window));
  *n_open = *n_closed = *n_ops = 0;
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *n = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      *n_open += n->kind == ONYX_LAYOUT_GROUP && n->expanded;
      *n_closed += n->kind == ONYX_LAYOUT_GROUP && !n->expanded;
      *n_ops += n->kind == ONYX_LAYOUT_OP;
    }
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_group_expansion (void)
{
  guint open, closed, ops;

  /* auto opens the small "model" scope: its box around two of the three operators. */
  open_with_expansion ("auto", &open, &closed, &ops);
  g_assert_cmpuint (open, ==, 1);
  g_assert_cmpuint (closed, ==, 0);
  g_assert_cmpuint (ops, ==, 3);
  /* top-level: the scope stays one closed box; only FooOp is outside it. */
  open_with_expansion ("top-level", &open, &closed, &ops);
  g_assert_cmpuint (open, ==, 0);
  g_assert_cmpuint (closed, ==, 1);
  g_assert_cmpuint (ops, ==, 1);
  /* all: every scope open, every operator shown. */
  open_with_expansion ("all", &open, &closed, &ops);
  g_assert_cmpuint (open, ==, 1);
  g_assert_cmpuint (closed, ==, 0);
  g_assert_cmpuint (ops, ==, 3);
}

/* Find (Ctrl+F, Enter) from an overview: the match, in a closed group, is selected,
 * its group opened, and it is brought into view at a zoom that reads. */
static void
test_find_presents_match (void)
{
  g_autoptr (GSettings) settings = g_settings_new ("io.github.onyxviewer.Onyx");
  g_autofree char *path = g_build_filename (g_getenv ("ONYX_TEST_DATA"), "model_foo.onnx", NULL);
  OnyxWindow *window;
  GtkWidget *entry;
  OnyxRect visible;
  const OnyxRect *box;
  int selected;

  g_assert_true (g_settings_set_string (settings, "group-expansion", "top-level"));
  window = open_model_window (path);
  for (int i = 0; i < 8; i++)
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (test_canvas (window)), "canvas.zoom-out", NULL));
  g_assert_cmpfloat (onyx_canvas_get_scale (test_canvas (window)), <, 0.3);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "find.show", NULL));
  entry = test_find_widget (GTK_WIDGET (window), GTK_TYPE_SEARCH_ENTRY, NULL);
  gtk_editable_set_text (GTK_EDITABLE (entry), "relu");
  g_signal_emit_by_name (entry, "activate");
  wait_for_layout (window);
  g_assert_cmpstr (onyx_view_state_get_selected_node (test_state (window))->op_type, ==, "Relu");
  selected = onyx_canvas_get_selected_node (test_canvas (window));
  g_assert_cmpint (selected, >=, 0);
  g_assert_cmpfloat (onyx_canvas_get_scale (test_canvas (window)), ==, 1.0);
  onyx_canvas_get_visible_area (test_canvas (window), &visible);
  box = &g_array_index (onyx_canvas_get_layout (test_canvas (window))->nodes, OnyxLayoutNode, selected).box;
  g_assert_cmpfloat (box->x, >=, visible.x);
  g_assert_cmpfloat (box->y, >=, visible.y);
  g_assert_cmpfloat (box->x + box->width, <=, visible.x + visible.width);
  g_assert_cmpfloat (box->y + box->height, <=, visible.y + visible.height);
  snapshot_to_png (GTK_WIDGET (window), "test-app-settings-find.png");
  /* A click elsewhere keeps the zoom the person chose. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (test_canvas (window)), "canvas.zoom-out", NULL));
  onyx_view_state_select_node (test_state (window), onyx_document_get_proto (onyx_window_get_document (window))->graph->node[0]);
  g_assert_cmpfloat (onyx_canvas_get_scale (test_canvas (window)), <, 1.0);
  gtk_window_destroy (GTK_WINDOW (window));
  g_settings_reset (settings, "group-expansion");
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  adw_init ();
  g_test_add_func ("/app-settings/group-expansion", test_group_expansion);
  g_test_add_func ("/app-settings/find-presents-match", test_find_presents_match);
  return g_test_run ();
}
