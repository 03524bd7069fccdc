/* test-app-settings.c: the GSettings key group-expansion decides which name-scope
 * groups a newly opened model shows (the key only; the preferences window has no row
 * for it yet). model_foo.onnx has one scope, "model", around Conv and Relu. */
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

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  adw_init ();
  g_test_add_func ("/app-settings/group-expansion", test_group_expansion);
  return g_test_run ();
}
