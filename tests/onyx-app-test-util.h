/* onyx-app-test-util.h: helpers shared by the window tests run under Xvfb. */
#pragma once

#include <adwaita.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "onyx-test-util.h"
#include "onyx-canvas.h"
#include "onyx-disk-queue.h"
#include "onyx-compare-pane.h"
#include "onyx-graph-path-bar.h"
#include "onyx-graph-view.h"
#include "onyx-problems-pane.h"
#include "onyx-properties.h"
#include "onyx-run-pane.h"
#include "onyx-window-private.h"


static inline void
test_remove_tree (const char *path)
{
  g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        test_remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

#if defined(__SANITIZE_ADDRESS__)
#define TEST_WITH_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_WITH_ASAN 1
#endif
#endif

#ifdef TEST_WITH_ASAN
#include <sanitizer/allocator_interface.h>
#include <sanitizer/lsan_interface.h>

/* GLib keeps the names of quarks in an array that it replaces by a larger one, the
 * old one left allocated (gquark.c: so that lookups take no lock), whenever 2048 more
 * quarks exist; GTK and libadwaita make some 1,750 at start, so a test program that
 * opens a few windows and dialogs passes 2048, and the first array, allocated while
 * GLib loads, is left to LeakSanitizer, which cannot tell it from a leak of Onyx's
 * (GLib is built without frame pointers: the stack it records ends at g_malloc). The
 * array is found here, before it is replaced, through GLib's own pointer to it (a
 * word of GLib's writable data that starts a 16 KiB heap block holding the name of
 * quark 1 at index 1), and marked as no leak. */
static inline void
test_ignore_glib_quark_array (void)
{
  g_autofree char *maps = NULL;
  g_auto (GStrv) lines = NULL;
  const char *first_name = g_quark_to_string (1);
  gboolean after_glib = FALSE;

  if (first_name == NULL || !g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL))
    return;
  lines = g_strsplit (maps, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      unsigned long start, end;
      char perms[5] = "";
      /* GLib's data, and its .bss in the nameless mapping that follows it */
      gboolean glib = strstr (lines[i], "/libglib-2.0.so") != NULL;
      gboolean nameless = strchr (lines[i], '/') == NULL && strchr (lines[i], '[') == NULL;

      if (sscanf (lines[i], "%lx-%lx %4s", &start, &end, perms) != 3 || strcmp (perms, "rw-p") != 0 ||
          !(glib || (after_glib && nameless)))
        {
          after_glib = glib;
          continue;
        }
      after_glib = glib;
      for (const char *const *word = (const char *const *) start; (unsigned long) (word + 1) <= end; word++)
        {
          const char *const *block = (const char *const *) *word;
          if (block != NULL && __sanitizer_get_ownership (block) &&
              __sanitizer_get_allocated_size (block) == 2048 * sizeof (char *) && block[1] == first_name)
            {
              __lsan_ignore_object (block);
              return;
            }
        }
    }
}
#else
static inline void
test_ignore_glib_quark_array (void)
{
}
#endif

/* A copy of a model of tests/data in a new folder of `dir_template`'s
 * (g_dir_make_tmp), for tests that save over the file they opened. Returns its path;
 * *dir is the folder. */
static inline char *
test_copy_data (const char *name, const char *dir_template, char **dir)
{
  g_autofree char *source = test_data_path (name);
  g_autofree char *contents = NULL;
  gsize len;

  *dir = g_dir_make_tmp (dir_template, NULL);
  g_assert_nonnull (*dir);
  g_assert_true (g_file_get_contents (source, &contents, &len, NULL));
  {
    char *path = g_build_filename (*dir, name, NULL);
    g_assert_true (g_file_set_contents (path, contents, (gssize) len, NULL));
    return path;
  }
}

/* The first widget under `widget` (itself included) of `type` and, when `label` is
 * not NULL, with that button label or preferences row title; NULL when none is. */
static inline GtkWidget *
test_find_widget (GtkWidget *widget, GType type, const char *label)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type) &&
      (label == NULL || (GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0) ||
       (ADW_IS_PREFERENCES_ROW (widget) &&
        g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), label) == 0)))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = test_find_widget (child, type, label);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* What the window shows, shared by its parts. */
#define test_state(window) onyx_window_get_view_state (window)
/* The window's parts, found as a person finds them: by what they are. */
#define test_graph_view(window) \
  ONYX_GRAPH_VIEW (test_find_widget (GTK_WIDGET (window), ONYX_TYPE_GRAPH_VIEW, NULL))
#define test_path_bar(window) test_find_widget (GTK_WIDGET (window), ONYX_TYPE_GRAPH_PATH_BAR, NULL)
#define test_canvas(window) ONYX_CANVAS (test_find_widget (GTK_WIDGET (window), ONYX_TYPE_CANVAS, NULL))
#define test_properties(window) \
  ONYX_PROPERTIES (test_find_widget (GTK_WIDGET (window), ONYX_TYPE_PROPERTIES, NULL))

/* The properties panel's page shown (it keeps the one shown before, hidden). */
static inline GtkWidget *
test_properties_page (OnyxWindow *window)
{
  for (GtkWidget *page = gtk_widget_get_first_child (GTK_WIDGET (test_properties (window))); page != NULL;
       page = gtk_widget_get_next_sibling (page))
    if (gtk_widget_get_visible (page))
      return page;
  return NULL;
}
#define test_compare_pane(window) \
  ONYX_COMPARE_PANE (test_find_widget (GTK_WIDGET (window), ONYX_TYPE_COMPARE_PANE, NULL))
/* (onyx-run-pane.h for this one) */
#define test_run_pane(window) \
  ONYX_RUN_PANE (test_find_widget (GTK_WIDGET (window), ONYX_TYPE_RUN_PANE, NULL))
#define test_problems_pane(window) \
  ONYX_PROBLEMS_PANE (test_find_widget (GTK_WIDGET (window), ONYX_TYPE_PROBLEMS_PANE, NULL))

/* The first widget under `widget` of `type` whose tooltip starts with `tip`. */
static inline GtkWidget *
test_find_by_tooltip (GtkWidget *widget, GType type, const char *tip)
{
  const char *text = gtk_widget_get_tooltip_text (widget);

  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type) && text != NULL && g_str_has_prefix (text, tip))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = test_find_by_tooltip (child, type, tip);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The count on the header bar's Problems button ("Problems: 1 error, 0 warnings"). */
#define test_problems_count(window) \
  GTK_LABEL (test_find_widget (test_find_by_tooltip (GTK_WIDGET (window), GTK_TYPE_TOGGLE_BUTTON, "Problems"), \
                               GTK_TYPE_LABEL, NULL))

/* The status page titled `title` (the empty window's, an error's). */
static inline AdwStatusPage *
test_find_status_page (GtkWidget *widget, const char *title)
{
  if (ADW_IS_STATUS_PAGE (widget) && g_strcmp0 (adw_status_page_get_title (ADW_STATUS_PAGE (widget)), title) == 0)
    return ADW_STATUS_PAGE (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      AdwStatusPage *found = test_find_status_page (child, title);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The empty page's list of recent models. */
static inline GtkListBox *
test_recent_list (OnyxWindow *window)
{
  AdwStatusPage *page = test_find_status_page (GTK_WIDGET (window), "Open an ONNX Model");

  g_assert_nonnull (page);
  return GTK_LIST_BOX (test_find_widget (GTK_WIDGET (page), GTK_TYPE_LIST_BOX, NULL));
}

/* The revealer sliding `pane` in and out. */
static inline GtkRevealer *
test_revealer_of (gpointer pane)
{
  return GTK_REVEALER (gtk_widget_get_ancestor (GTK_WIDGET (pane), GTK_TYPE_REVEALER));
}

/* Journals of unsaved edits and GtkRecentManager's list go to folders of this test
 * run (inherited by the processes it spawns): the window tests run side by side and
 * open the same models, and must not be offered each other's journals. Returns the
 * folder, for test_remove_tree() at the end. */
static inline char *
test_private_xdg_folders (const char *test_name)
{
  g_autofree char *template = g_strdup_printf ("onyx-%s-XXXXXX", test_name);
  char *home = g_dir_make_tmp (template, NULL);
  g_autofree char *state = g_build_filename (home, "state", NULL);
  g_autofree char *data = g_build_filename (home, "data", NULL);

  g_assert_nonnull (home);
  test_ignore_glib_quark_array ();
  g_setenv ("XDG_STATE_HOME", state, TRUE);
  g_setenv ("XDG_DATA_HOME", data, TRUE);
  return home;
}

/* Ends a test program: the files still being written into the private folders
 * (recent files, the journal) are written, then the folders go. */
static inline void
test_private_xdg_folders_remove (char *home)
{
  onyx_disk_queue_flush ();
  test_remove_tree (home);
}

/* The app's style sheet, which AdwApplication loads for the app: test windows have no
 * application, and would be drawn without it. */
static inline void
test_load_style (GtkWidget *widget)
{
  static gboolean loaded;
  g_autoptr (GtkCssProvider) provider = NULL;

  if (loaded)
    return;
  loaded = TRUE;
  provider = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (provider, "/io/github/onyxviewer/Onyx/style.css");
  gtk_style_context_add_provider_for_display (gtk_widget_get_display (widget), GTK_STYLE_PROVIDER (provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
}

static inline void
wait_until_shown (OnyxWindow *window)
{
  test_load_style (GTK_WIDGET (window));
  while (!gtk_widget_get_mapped (GTK_WIDGET (window)))
    g_main_context_iteration (NULL, TRUE);
}

/* Until the file being opened (in a thread) is shown, or its error. */
static inline void
wait_for_open (OnyxWindow *window)
{
  while (onyx_window_is_opening (window))
    g_main_context_iteration (NULL, TRUE);
}

/* Until the file being written (in a thread) is written. */
static inline void
wait_for_save (OnyxWindow *window)
{
  while (onyx_window_get_document (window) != NULL && onyx_document_is_frozen (onyx_window_get_document (window)))
    g_main_context_iteration (NULL, TRUE);
}

/* Until the window's background jobs (a conversion, an extract, an export) are done. */
static inline void
wait_for_jobs (OnyxWindow *window)
{
  while (onyx_jobs_get_label (onyx_view_state_get_jobs (test_state (window))) != NULL)
    g_main_context_iteration (NULL, TRUE);
}

/* Until the layout is done, and the comparison (both in threads). */
static inline void
wait_for_layout (OnyxWindow *window)
{
  while (onyx_view_state_is_laying_out (test_state (window)) || onyx_compare_pane_is_busy (test_compare_pane (window)) ||
         onyx_canvas_get_layout (test_canvas (window)) == NULL ||
         gtk_widget_get_width (GTK_WIDGET (test_canvas (window))) <= 0)
    g_main_context_iteration (NULL, TRUE);
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* Undo as a person does (Ctrl+Z, once the last step's layout let the model go),
 * and until its own layout is done. */
static inline void
test_undo (OnyxWindow *window)
{
  wait_for_layout (window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.undo", NULL));
  wait_for_layout (window);
}

/* A new window showing the model at `path`, laid out. */
static inline OnyxWindow *
open_model_window (const char *path)
{
  OnyxWindow *window = onyx_window_new (NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);

  gtk_window_present (GTK_WINDOW (window));
  wait_until_shown (window);
  onyx_window_open_file (window, file);
  wait_for_open (window);
  g_assert_cmpstr (onyx_window_get_page (window), ==, "model");
  wait_for_layout (window);
  return window;
}

/* Activates row `i` of the list view inside `pane` as a click on it does (the list
 * view's own action). */
static inline void
test_activate_list_row (gpointer pane, guint i)
{
  GtkWidget *list = test_find_widget (GTK_WIDGET (pane), GTK_TYPE_LIST_VIEW, NULL);

  g_assert_nonnull (list);
  g_assert_true (gtk_widget_activate_action (list, "list.activate-item", "u", i));
}

static inline void
test_set_true (gpointer flag)
{
  *(gboolean *) flag = TRUE;
}

/* Runs the main loop for `ms` milliseconds. */
static inline void
test_wait_ms (guint ms)
{
  gboolean waited = FALSE;

  g_timeout_add_once (ms, test_set_true, &waited);
  while (!waited)
    g_main_context_iteration (NULL, TRUE);
}

/* Accepts a file chooser (its name already set) for `folder_path`, as a person does:
 * the dialog reads its first folder, then the one chosen here, and answers only once
 * it has checked the name, so step by step until `path` is written. */
static inline void
test_accept_file_chooser (GtkFileChooser *chooser, const char *folder_path, const char *path)
{
  g_autoptr (GFile) folder = g_file_new_for_path (folder_path);

  g_object_add_weak_pointer (G_OBJECT (chooser), (gpointer *) &chooser);
  for (int i = 0; i < 300 && !g_file_test (path, G_FILE_TEST_EXISTS); i++)
    {
      g_autoptr (GFile) shown = chooser != NULL ? gtk_file_chooser_get_current_folder (chooser) : NULL;

      if (shown != NULL && !g_file_equal (shown, folder))
        g_assert_true (gtk_file_chooser_set_current_folder (chooser, folder, NULL));
      else if (shown != NULL)
        gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_ACCEPT);
      test_wait_ms (100);
    }
  if (chooser != NULL)
    g_object_remove_weak_pointer (G_OBJECT (chooser), (gpointer *) &chooser);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
}

/* With ONYX_TEST_SCREENSHOTS=DIR, the whole screen (popovers included) as DIR/name,
 * for a person to look at. */
static inline void
test_screenshot (const char *name)
{
  const char *dir = g_getenv ("ONYX_TEST_SCREENSHOTS");
  g_autofree char *path = NULL, *command = NULL;

  if (dir == NULL)
    return;
  /* Long enough for a few frames (and popover animations) to be drawn. */
  test_wait_ms (500);
  path = g_build_filename (dir, name, NULL);
  command = g_strdup_printf ("import -window root %s", path);
  g_assert_true (g_spawn_command_line_sync (command, NULL, NULL, NULL, NULL));
}

static inline gboolean
test_count_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  return ++*(int *) data < 3 ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

/* Until a few frames were drawn, so that what changed is allocated for snapshots. */
static inline void
wait_for_frames (OnyxWindow *window)
{
  int ticks = 0;

  /* A tick callback makes the frame clock run: frames get laid out and drawn. */
  gtk_widget_add_tick_callback (GTK_WIDGET (window), test_count_tick, &ticks, NULL);
  while (ticks < 3)
    g_main_context_iteration (NULL, TRUE);
}

/* Until a pane has slid in or out and a few frames were drawn since. */
static inline void
wait_for_revealer (OnyxWindow *window, GtkRevealer *revealer)
{
  while (gtk_revealer_get_child_revealed (revealer) != gtk_revealer_get_reveal_child (revealer))
    g_main_context_iteration (NULL, TRUE);
  wait_for_frames (window);
}

/* Renders `widget` as GTK would, saves it, and returns how many pixels differ from
 * the top-left pixel (the background). */
static inline guint64
snapshot_to_png (GtkWidget *widget, const char *name)
{
  int width, height;
  GdkPaintable *paintable;
  GtkSnapshot *snapshot;
  GskRenderNode *node;
  GdkTexture *texture;
  g_autofree guchar *pixels = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_BUILT, name, NULL);
  guint64 differing = 0;

  /* What the last step changed (a panel rebuilt when the shapes came) is allocated
   * and drawn first: a widget waiting for its allocation draws nothing. */
  if (ONYX_IS_WINDOW (gtk_widget_get_root (widget)) && gtk_widget_get_mapped (widget))
    wait_for_frames (ONYX_WINDOW (gtk_widget_get_root (widget)));
  width = gtk_widget_get_width (widget);
  height = gtk_widget_get_height (widget);
  paintable = gtk_widget_paintable_new (widget);
  snapshot = gtk_snapshot_new ();
  g_assert_cmpint (width, >, 0);
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (widget)),
                                         node, &GRAPHENE_RECT_INIT (0, 0, width, height));
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("snapshot: %s", path);

  width = gdk_texture_get_width (texture);
  height = gdk_texture_get_height (texture);
  pixels = g_malloc ((gsize) width * height * 4);
  gdk_texture_download (texture, pixels, (gsize) width * 4);
  for (gsize i = 0; i < (gsize) width * height; i++)
    if (memcmp (pixels + 4 * i, pixels, 4) != 0)
      differing++;
  gsk_render_node_unref (node);
  g_object_unref (texture);
  g_object_unref (paintable);
  return differing;
}

/* Every row title, subtitle, label and link of the properties panel, one a line. */
static inline void
collect_text (GtkWidget *widget, GString *text)
{
  /* What is shown: a hidden page of the panel is not. */
  if (!gtk_widget_get_visible (widget))
    return;
  if (ADW_IS_PREFERENCES_ROW (widget))
    g_string_append_printf (text, "%s\n", adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)));
  if (ADW_IS_ACTION_ROW (widget) && adw_action_row_get_subtitle (ADW_ACTION_ROW (widget)) != NULL)
    g_string_append_printf (text, "%s\n", adw_action_row_get_subtitle (ADW_ACTION_ROW (widget)));
  if (GTK_IS_LINK_BUTTON (widget))
    g_string_append_printf (text, "link %s\n", gtk_link_button_get_uri (GTK_LINK_BUTTON (widget)));
  if (GTK_IS_LABEL (widget))
    g_string_append_printf (text, "%s\n", gtk_label_get_label (GTK_LABEL (widget)));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_text (child, text);
}

static inline char *
properties_text (OnyxWindow *window)
{
  GString *text = g_string_new (NULL);
  collect_text (GTK_WIDGET (test_properties (window)), text);
  return g_string_free (text, FALSE);
}

static inline int
layout_node_of_op (OnyxWindow *window, const char *op_type)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (test_canvas (window));
  Onnx__GraphProto *graph = onyx_view_state_get_graph (test_state (window));  /* the graph shown */

  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *n = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      if (n->kind == ONYX_LAYOUT_OP && g_str_equal (graph->node[n->index]->op_type, op_type))
        return i;
    }
  return -1;
}

/* "Conv,Relu,FooOp": the op types of the window's graph in order. */
static inline char *
op_types (OnyxWindow *window)
{
  Onnx__GraphProto *graph = onyx_document_get_proto (onyx_window_get_document (window))->graph;
  GString *s = g_string_new (NULL);

  for (size_t i = 0; i < graph->n_node; i++)
    g_string_append_printf (s, "%s%s", i ? "," : "", graph->node[i]->op_type);
  return g_string_free (s, FALSE);
}

/* The visible toplevel of `type` (a dialog), after letting it appear; NULL when none
 * does. */
static inline gpointer
find_toplevel (GType type)
{
  for (int round = 0; round < 1000; round++)
    {
      GListModel *toplevels = gtk_window_get_toplevels (); /* owned by GTK */
      for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
        {
          g_autoptr (GObject) window = g_list_model_get_item (toplevels, i);
          if (G_TYPE_CHECK_INSTANCE_TYPE (window, type) && gtk_widget_get_visible (GTK_WIDGET (window)))
            return window; /* GTK keeps it */
        }
      g_main_context_iteration (NULL, FALSE);
    }
  return NULL;
}

static inline AdwMessageDialog *
find_message_dialog (void)
{
  return find_toplevel (ADW_TYPE_MESSAGE_DIALOG);
}
