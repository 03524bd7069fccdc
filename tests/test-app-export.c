/* test-app-export.c: Export View… and Export Graph… under Xvfb: PNG and SVG of
 * what the canvas shows and of the whole graph, drawn in threads, and the file
 * dialog as a person uses it (its file type and name).
 *
 * With ONYX_TEST_SCREENSHOTS=DIR, the dialog's screenshot is written there. */
#include <glib/gstdio.h>
#include <math.h>

#include "onyx-app-test-util.h"

static void
png_size (const char *path, int *width, int *height)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GdkTexture) texture = gdk_texture_new_from_filename (path, &error);

  g_assert_no_error (error);
  *width = gdk_texture_get_width (texture);
  *height = gdk_texture_get_height (texture);
}

static void
test_export_view_and_graph (void)
{
  g_autofree char *model = test_data_path ("model.onnx");
  OnyxWindow *window = open_model_window (model);
  const OnyxLayout *layout = onyx_canvas_get_layout (test_canvas (window));
  g_autofree char *tmpdir = g_dir_make_tmp ("onyx-export-XXXXXX", NULL);
  const char *names[] = { "view.png", "graph.png", "view.svg", "graph.svg" };
  char *paths[4] = { NULL };
  g_autoptr (GError) error = NULL;
  int view_w, view_h, graph_w, graph_h;
  int canvas_w = gtk_widget_get_width (GTK_WIDGET (test_canvas (window)));
  int canvas_h = gtk_widget_get_height (GTK_WIDGET (test_canvas (window)));

  /* Zoomed in, the view is a part of the graph. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (test_canvas (window)), "canvas.zoom-in", NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (test_canvas (window)), "canvas.zoom-in", NULL));
  for (int i = 0; i < 4; i++)
    {
      g_autoptr (GFile) file = NULL;
      paths[i] = g_build_filename (tmpdir, names[i], NULL);
      file = g_file_new_for_path (paths[i]);
      g_assert_true (onyx_graph_view_export_image (test_graph_view (window), file, i % 2 == 0, &error));
      g_assert_no_error (error);
    }
  /* Drawn in threads, from the layout as it was when asked for. */
  wait_for_jobs (window);
  png_size (paths[0], &view_w, &view_h);
  png_size (paths[1], &graph_w, &graph_h);
  g_test_message ("canvas %d×%d, view %d×%d, graph %d×%d", canvas_w, canvas_h, view_w, view_h,
                  graph_w, graph_h);
  /* The view: the canvas's pixels, so its aspect too. */
  g_assert_cmpint (ABS (view_w - canvas_w), <=, 1);
  g_assert_cmpint (ABS (view_h - canvas_h), <=, 1);
  /* The graph: all of the layout at 100 %, with a margin of 16 points around it. */
  g_assert_cmpint (graph_w, ==, (int) ceil (layout->bounds.width + 32));
  g_assert_cmpint (graph_h, ==, (int) ceil (layout->bounds.height + 32));
  g_assert_true (graph_w != view_w || graph_h != view_h);
  for (int i = 2; i < 4; i++)
    {
      g_autofree char *svg = NULL;
      g_assert_true (g_file_get_contents (paths[i], &svg, NULL, NULL));
      g_assert_nonnull (strstr (svg, "<svg"));
    }
  {
    g_autofree char *view_svg = NULL, *graph_svg = NULL, *view_size = NULL;
    g_assert_true (g_file_get_contents (paths[2], &view_svg, NULL, NULL));
    g_assert_true (g_file_get_contents (paths[3], &graph_svg, NULL, NULL));
    view_size = g_strdup_printf ("width=\"%d", canvas_w);
    g_assert_nonnull (strstr (view_svg, view_size));
    g_assert_null (strstr (graph_svg, view_size));
  }
  for (int i = 0; i < 4; i++)
    {
      g_unlink (paths[i]);
      g_free (paths[i]);
    }
  g_rmdir (tmpdir);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Export View… as a person does it: the menu action, then in the file dialog the SVG
 * file type and `name` (NULL: the name suggested). Returns the SVG's text. */
static char *
export_view_svg (OnyxWindow *window, const char *folder_path, const char *name, const char *expected)
{
  g_autofree char *path = g_build_filename (folder_path, expected, NULL);
  g_autoptr (GListModel) filters = NULL;
  g_autoptr (GtkFileFilter) svg = NULL;
  g_autofree char *current_name = NULL;
  GtkFileChooser *chooser;
  char *contents = NULL;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "graph.export-view", NULL));
  chooser = find_toplevel (GTK_TYPE_FILE_CHOOSER);
  g_assert_nonnull (chooser);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (chooser)), ==, "Export View");
  current_name = gtk_file_chooser_get_current_name (chooser);
  g_assert_cmpstr (current_name, ==, "model-view.png");
  test_screenshot ("export-dialog.png");
  filters = gtk_file_chooser_get_filters (chooser);
  g_assert_cmpuint (g_list_model_get_n_items (filters), ==, 2);
  svg = g_list_model_get_item (filters, 1);
  g_assert_cmpstr (gtk_file_filter_get_name (svg), ==, "SVG Image");
  gtk_file_chooser_set_filter (chooser, svg);
  if (name != NULL)
    gtk_file_chooser_set_current_name (chooser, name);

  test_accept_file_chooser (chooser, folder_path, path);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_unlink (path);
  return contents;
}

static void
test_export_dialog (void)
{
  g_autofree char *model = test_data_path ("model.onnx");
  OnyxWindow *window = open_model_window (model);
  g_autofree char *tmpdir = g_dir_make_tmp ("onyx-export-XXXXXX", NULL);
  g_autofree char *width = g_strdup_printf ("width=\"%d", gtk_widget_get_width (GTK_WIDGET (test_canvas (window))));
  g_autofree char *named = NULL, *suggested = NULL;

  /* A name without extension, or the suggested "model-view.png", with the SVG type. */
  named = export_view_svg (window, tmpdir, "shown", "shown.svg");
  g_assert_nonnull (strstr (named, width));
  suggested = export_view_svg (window, tmpdir, NULL, "model-view.svg");
  g_assert_nonnull (strstr (suggested, width));
  g_rmdir (tmpdir);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int argc, char *argv[])
{
  g_autofree char *home = test_private_xdg_folders ("app-export");
  int status;

  g_test_init (&argc, &argv, NULL);
  /* Xvfb has no session bus, which GTK warns about; criticals stay fatal. */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  adw_init ();
  g_test_add_func ("/app-export/view-and-graph", test_export_view_and_graph);
  g_test_add_func ("/app-export/dialog", test_export_dialog);
  status = g_test_run ();
  test_private_xdg_folders_remove (home);
  return status;
}
