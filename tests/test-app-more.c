/* test-app-more.c: the rest of the window under Xvfb, through the handlers GTK
 * itself calls: dropping files, closing or opening over unsaved changes, the dark
 * style preference, pinch zoom, recent models, reconnecting an input from the
 * searchable tensor list, Constants folded into their readers' boxes, shortcuts and
 * the activity spinner.
 *
 * With ONYX_TEST_SCREENSHOTS=DIR, screenshots of the whole screen (popovers
 * included) are written there for a person to look at. */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>

#include "onyx-app-test-util.h"
#include "onyx-application.h"
#include "onyx-settings.h"
#include "onyx-preferences.h"
#include "onyx-tensor-picker.h"

static GtkApplication *app;

/* What a click on a response button does: the dialog closes, then responds. */
static void
respond (AdwMessageDialog *dialog, const char *response)
{
  g_object_ref (dialog);
  gtk_window_destroy (GTK_WINDOW (dialog));
  adw_message_dialog_response (dialog, response);
  g_object_unref (dialog);
}

static OnyxWindow *
new_window (void)
{
  OnyxWindow *window = onyx_window_new (app);

  gtk_window_present (GTK_WINDOW (window));
  wait_until_shown (window);
  while (gtk_widget_get_width (GTK_WIDGET (window)) <= 0)
    g_main_context_iteration (NULL, TRUE);
  return window;
}

static OnyxWindow *
open_window (const char *model)
{
  OnyxWindow *window = new_window ();
  g_autofree char *path = test_data_path (model);
  g_autoptr (GFile) file = g_file_new_for_path (path);

  onyx_window_open_file (window, file);
  wait_for_open (window);
  g_assert_cmpstr (onyx_window_get_page (window), ==, "model");
  wait_for_layout (window);
  return window;
}

static Onnx__NodeProto *
node_of_op (OnyxWindow *window, const char *op_type)
{
  Onnx__GraphProto *graph = onyx_document_get_proto (onyx_window_get_document (window))->graph;

  for (size_t i = 0; i < graph->n_node; i++)
    if (g_str_equal (graph->node[i]->op_type, op_type))
      return graph->node[i];
  return NULL;
}

/* An unsaved edit: FooOp bypassed. */
static void
bypass_foo (OnyxWindow *window)
{
  onyx_view_state_select_node (test_state (window), node_of_op (window, "FooOp"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.bypass-node", NULL));
  g_assert_true (onyx_document_is_modified (onyx_window_get_document (window)));
}

static GtkEventController *
find_controller (GtkWidget *widget, GType type)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GtkEventController) controller = g_list_model_get_item (controllers, i);
      if (G_TYPE_CHECK_INSTANCE_TYPE (controller, type))
        return controller; /* the widget keeps it */
    }
  return NULL;
}

/* What GTK does when files are dropped on the window: "drop" with a GdkFileList. */
static gboolean
drop_files (OnyxWindow *window, const char *first, ...)
{
  GtkEventController *target = find_controller (GTK_WIDGET (window), GTK_TYPE_DROP_TARGET);
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);
  GValue value = G_VALUE_INIT;
  gboolean accepted = FALSE;
  va_list args;

  g_assert_nonnull (target);
  va_start (args, first);
  for (const char *name = first; name != NULL; name = va_arg (args, const char *))
    {
      g_autofree char *path = test_data_path (name);
      g_ptr_array_add (files, g_file_new_for_path (path));
    }
  va_end (args);
  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, gdk_file_list_new_from_array ((GFile **) files->pdata, files->len));
  g_signal_emit_by_name (target, "drop", &value, 100.0, 100.0, &accepted);
  g_value_unset (&value);
  return accepted;
}

/* Once the file it opens, if any, is loaded. */
static gboolean
shows_file (OnyxWindow *window, const char *name)
{
  g_autofree char *base = NULL;

  wait_for_open (window);
  base = onyx_window_get_file (window) ? g_file_get_basename (onyx_window_get_file (window)) : NULL;
  return onyx_window_get_document (window) != NULL && g_strcmp0 (base, name) == 0;
}

static void
test_drop_open (void)
{
  OnyxWindow *window = new_window ();
  guint n_windows = g_list_length (gtk_application_get_windows (app));
  AdwMessageDialog *dialog;
  GList *windows;

  g_assert_true (drop_files (window, "model_foo.onnx", NULL));
  g_assert_true (shows_file (window, "model_foo.onnx"));
  g_assert_cmpstr (onyx_window_get_page (window), ==, "model");
  wait_for_layout (window);

  /* Two files over unsaved changes: the second opens in a new window at once, the
   * first waits for Save / Discard / Cancel. */
  bypass_foo (window);
  g_assert_true (drop_files (window, "model.onnx", "model_foo.onnx", NULL));
  windows = gtk_application_get_windows (app);
  g_assert_cmpuint (g_list_length (windows), ==, n_windows + 1);
  g_assert_true (shows_file (ONYX_WINDOW (windows->data), "model_foo.onnx"));
  g_assert_false (onyx_document_is_modified (onyx_window_get_document (ONYX_WINDOW (windows->data))));
  wait_for_layout (ONYX_WINDOW (windows->data));
  gtk_window_destroy (GTK_WINDOW (windows->data));

  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  respond (dialog, "cancel");
  g_assert_null (find_message_dialog ());
  g_assert_true (shows_file (window, "model_foo.onnx"));
  g_assert_true (onyx_document_is_modified (onyx_window_get_document (window)));

  g_assert_true (drop_files (window, "model.onnx", NULL));
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  respond (dialog, "discard");
  g_assert_true (shows_file (window, "model.onnx"));
  g_assert_false (onyx_document_is_modified (onyx_window_get_document (window)));
  wait_for_layout (window);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_open_over_unsaved (void)
{
  OnyxWindow *window = open_window ("model_foo.onnx");
  AdwMessageDialog *dialog;

  bypass_foo (window);
  /* Open (Ctrl+O) asks first; Cancel keeps the edit and shows no file chooser. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "file.open", NULL));
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Save Changes?");
  g_assert_true (adw_message_dialog_has_response (dialog, "save"));
  g_assert_true (adw_message_dialog_has_response (dialog, "discard"));
  test_screenshot ("open-over-unsaved.png");
  respond (dialog, "cancel");
  g_assert_true (onyx_document_is_modified (onyx_window_get_document (window)));
  wait_for_layout (window);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_close_unsaved (void)
{
  OnyxWindow *window = open_window ("model_foo.onnx");
  AdwMessageDialog *dialog;

  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  bypass_foo (window);
  wait_for_layout (window);

  gtk_window_close (GTK_WINDOW (window));
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (dialog)) == GTK_WINDOW (window));
  respond (dialog, "cancel");
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_nonnull (window);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window)));
  g_assert_true (onyx_document_is_modified (onyx_window_get_document (window)));

  gtk_window_close (GTK_WINDOW (window));
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  respond (dialog, "discard");
  for (int i = 0; i < 1000 && window != NULL; i++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_null (window);
}

/* Closing over unsaved changes, Save: the file is written (in a thread, the window
 * refusing edits meanwhile), then the window closes. On a copy of the model. */
static void
test_close_save (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = test_copy_data ("model_foo.onnx", "onyx-close-save-XXXXXX", &dir);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (OnyxModel) saved = NULL;
  OnyxWindow *window = new_window ();
  AdwMessageDialog *dialog;

  onyx_window_open_file (window, file);
  wait_for_open (window);
  wait_for_layout (window);
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  bypass_foo (window);
  wait_for_layout (window);

  gtk_window_close (GTK_WINDOW (window));
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  respond (dialog, "save");
  /* Being written, in a thread: Undo is off (an undo of a frozen document would be a
   * critical, fatal here) until it is written. */
  g_assert_nonnull (window);
  g_assert_true (onyx_document_is_frozen (onyx_window_get_document (window)));
  gtk_widget_activate_action (GTK_WIDGET (window), "edit.undo", NULL);
  g_assert_true (onyx_document_is_modified (onyx_window_get_document (window)));
  for (int i = 0; i < 100000 && window != NULL; i++)
    g_main_context_iteration (NULL, TRUE);
  g_assert_null (window);
  saved = onyx_model_new_from_file (path, NULL);
  g_assert_nonnull (saved);
  for (size_t i = 0; i < onyx_model_get_proto (saved)->graph->n_node; i++)
    g_assert_cmpstr (onyx_model_get_proto (saved)->graph->node[i]->op_type, !=, "FooOp");
  g_clear_object (&saved);
  g_unlink (path);
  g_rmdir (dir);
}

/* The switch animates to its new state, then GSettings tells the application. */
static void
wait_for_dark (GtkWidget *dark_switch, gboolean dark)
{
  AdwStyleManager *manager = adw_style_manager_get_default ();
  AdwColorScheme scheme = dark ? ADW_COLOR_SCHEME_FORCE_DARK : ADW_COLOR_SCHEME_DEFAULT;

  for (int i = 0; i < 10000 && (adw_style_manager_get_color_scheme (manager) != scheme ||
                                gtk_switch_get_active (GTK_SWITCH (dark_switch)) != dark); i++)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (gtk_switch_get_active (GTK_SWITCH (dark_switch)), ==, dark);
  g_assert_cmpint (adw_style_manager_get_color_scheme (manager), ==, scheme);
  g_assert_cmpint (adw_style_manager_get_dark (manager), ==, dark);
}

static void
test_dark_style (void)
{
  OnyxWindow *window = new_window ();
  GtkWidget *prefs = onyx_preferences_new (GTK_WINDOW (window));
  GtkWidget *dark_switch;

  gtk_window_present (GTK_WINDOW (prefs));
  dark_switch = test_find_widget (prefs, GTK_TYPE_SWITCH, NULL);
  g_assert_nonnull (dark_switch);
  wait_for_dark (dark_switch, FALSE);

  /* As a click on the switch does. */
  gtk_widget_activate (dark_switch);
  wait_for_dark (dark_switch, TRUE);
  test_screenshot ("dark-style.png");
  gtk_widget_activate (dark_switch);
  wait_for_dark (dark_switch, FALSE);

  gtk_window_destroy (GTK_WINDOW (prefs));
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_pinch_zoom (void)
{
  OnyxWindow *window = open_window ("model.onnx");
  GtkEventController *zoom = find_controller (GTK_WIDGET (test_canvas (window)), GTK_TYPE_GESTURE_ZOOM);
  double before = onyx_canvas_get_scale (test_canvas (window));
  OnyxRect area0, area1;
  gboolean handled;

  g_assert_nonnull (zoom);
  onyx_canvas_get_visible_area (test_canvas (window), &area0);
  /* Two fingers moving apart to twice their distance, then back to 1.5 times. With no
   * touch points the gesture's centre is the widget's. */
  g_signal_emit_by_name (zoom, "begin", NULL);
  g_signal_emit_by_name (zoom, "scale-changed", 2.0, &handled);
  g_assert_cmpfloat_with_epsilon (onyx_canvas_get_scale (test_canvas (window)), before * 2, 1e-9);
  g_signal_emit_by_name (zoom, "scale-changed", 1.5, &handled);
  g_assert_cmpfloat_with_epsilon (onyx_canvas_get_scale (test_canvas (window)), before * 1.5, 1e-9);
  onyx_canvas_get_visible_area (test_canvas (window), &area1);
  /* Around the centre: the layout point there stays; the view is 1/1.5 as wide. */
  g_assert_cmpfloat_with_epsilon (area1.x + area1.width / 2, area0.x + area0.width / 2, 1e-6);
  g_assert_cmpfloat_with_epsilon (area1.y + area1.height / 2, area0.y + area0.height / 2, 1e-6);
  g_assert_cmpfloat_with_epsilon (area1.width, area0.width / 1.5, 1e-6);
  gtk_window_destroy (GTK_WINDOW (window));
}

static char *
data_uri (const char *name)
{
  g_autofree char *path = test_data_path (name);
  g_autoptr (GFile) file = g_file_new_for_path (path);

  return g_file_get_uri (file);
}

static GPtrArray *
recent_row_titles (OnyxWindow *window)
{
  GPtrArray *titles = g_ptr_array_new ();

  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (test_recent_list (window))); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    g_ptr_array_add (titles, (gpointer) adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)));
  return titles;
}

/* The main menu's Open Recent submenu, as the header bar's menu button has it: the
 * second section's submenu, whose one section lists the models. */
static GMenuModel *
open_recent_menu (OnyxWindow *window)
{
  GtkWidget *button = test_find_widget (GTK_WIDGET (window), GTK_TYPE_MENU_BUTTON, NULL);
  GMenuModel *main_menu = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (button));
  g_autoptr (GMenuModel) section = g_menu_model_get_item_link (main_menu, 1, G_MENU_LINK_SECTION);
  g_autoptr (GMenuModel) submenu = g_menu_model_get_item_link (section, 1, G_MENU_LINK_SUBMENU);
  GMenuModel *recent = g_menu_model_get_item_link (submenu, 0, G_MENU_LINK_SECTION);

  g_assert_nonnull (recent);
  /* The window holds it: the caller need not. */
  g_object_unref (recent);
  return recent;
}

static char *
menu_target (GMenuModel *menu, int i)
{
  g_autoptr (GVariant) target = g_menu_model_get_item_attribute_value (menu, i, G_MENU_ATTRIBUTE_TARGET,
                                                                       G_VARIANT_TYPE_STRING);
  return target != NULL ? g_variant_dup_string (target, NULL) : NULL;
}

/* GNOME's recent files have `uri` as an ONNX model opened with Onyx: written in a
 * thread, seen by GtkRecentManager once it reloaded the file. */
static void
assert_desktop_recent (const char *uri)
{
  GtkRecentManager *manager = gtk_recent_manager_get_default ();
  g_autoptr (GtkRecentInfo) info = NULL;
  gint64 give_up = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  /* (has_item complains while the manager has read no file yet) */
  while ((info = gtk_recent_manager_lookup_item (manager, uri, NULL)) == NULL &&
         g_get_monotonic_time () < give_up)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (1000);
  g_assert_nonnull (info);
  g_assert_cmpstr (gtk_recent_info_get_mime_type (info), ==, "application/x-onnx");
  g_assert_true (gtk_recent_info_has_application (info, "Onyx"));
}

static void
test_recent (void)
{
  g_autoptr (GSettings) settings = g_settings_new ("io.github.onyxviewer.Onyx");
  g_autofree char *foo_uri = data_uri ("model_foo.onnx");
  g_autofree char *model_uri = data_uri ("model.onnx");
  g_autofree char *missing_uri = data_uri ("no-such-model.onnx");
  const char *with_missing[] = { missing_uri, model_uri, NULL };
  g_autoptr (GPtrArray) titles = NULL;
  g_auto (GStrv) stored = NULL;
  g_autofree char *first = NULL;
  OnyxWindow *window, *empty;
  GMenuModel *menu;
  GtkWidget *row;

  g_settings_set_strv (settings, "recent-models", NULL);
  g_settings_set_uint (settings, "recent-models-limit", 10);
  window = open_window ("model_foo.onnx");
  gtk_window_destroy (GTK_WINDOW (window));
  window = open_window ("model.onnx");
  gtk_window_destroy (GTK_WINDOW (window));

  /* Newest first, in the settings, GNOME's recent files, the empty page and the menu. */
  stored = g_settings_get_strv (settings, "recent-models");
  g_assert_cmpuint (g_strv_length (stored), ==, 2);
  g_assert_cmpstr (stored[0], ==, model_uri);
  g_assert_cmpstr (stored[1], ==, foo_uri);
  assert_desktop_recent (model_uri);
  assert_desktop_recent (foo_uri);
  empty = new_window ();
  g_assert_cmpstr (onyx_window_get_page (empty), ==, "empty");
  g_assert_true (gtk_widget_get_visible (gtk_widget_get_ancestor (GTK_WIDGET (test_recent_list (empty)),
                                                                  ADW_TYPE_CLAMP)));
  titles = recent_row_titles (empty);
  g_assert_cmpuint (titles->len, ==, 2);
  g_assert_cmpstr (titles->pdata[0], ==, "model.onnx");
  g_assert_cmpstr (titles->pdata[1], ==, "model_foo.onnx");
  menu = open_recent_menu (empty);
  g_assert_cmpint (g_menu_model_get_n_items (menu), ==, 2);
  first = menu_target (menu, 0);
  g_assert_cmpstr (first, ==, model_uri);
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (empty), "test-app-more-recent.png"), >, 2000);
  test_screenshot ("recent.png");
  {
    /* The header bar's main menu (Open Recent, Export View…, Export Graph…). */
    GtkWidget *menu_button = test_find_widget (GTK_WIDGET (empty), GTK_TYPE_MENU_BUTTON, NULL);
    gtk_menu_button_popup (GTK_MENU_BUTTON (menu_button));
    test_screenshot ("main-menu.png");
    gtk_menu_button_popdown (GTK_MENU_BUTTON (menu_button));
  }

  /* The limit cuts what is shown at once, and what is stored at the next open. */
  g_settings_set_uint (settings, "recent-models-limit", 1);
  g_clear_pointer (&titles, g_ptr_array_unref);
  titles = recent_row_titles (empty);
  g_assert_cmpuint (titles->len, ==, 1);
  g_assert_cmpstr (titles->pdata[0], ==, "model.onnx");
  g_assert_cmpint (g_menu_model_get_n_items (menu), ==, 1);
  window = open_window ("model_foo.onnx");
  gtk_window_destroy (GTK_WINDOW (window));
  g_strfreev (stored);
  stored = g_settings_get_strv (settings, "recent-models");
  g_assert_cmpuint (g_strv_length (stored), ==, 1);
  g_assert_cmpstr (stored[0], ==, foo_uri);

  /* Saving records the file saved to. */
  g_settings_set_uint (settings, "recent-models-limit", 10);
  {
    g_autofree char *tmpdir = g_dir_make_tmp ("onyx-recent-XXXXXX", NULL);
    g_autofree char *saved = g_build_filename (tmpdir, "saved.onnx", NULL);
    g_autoptr (GFile) saved_file = g_file_new_for_path (saved);
    g_autofree char *saved_uri = g_file_get_uri (saved_file);

    window = open_window ("model_foo.onnx");
    g_assert_true (onyx_files_save (onyx_window_get_files (window), saved_file));
    wait_for_save (window);
    gtk_window_destroy (GTK_WINDOW (window));
    g_strfreev (stored);
    stored = g_settings_get_strv (settings, "recent-models");
    g_assert_cmpuint (g_strv_length (stored), ==, 2);
    g_assert_cmpstr (stored[0], ==, saved_uri);
    g_assert_cmpstr (stored[1], ==, foo_uri);
    assert_desktop_recent (saved_uri);
    g_unlink (saved);
    g_rmdir (tmpdir);
  }

  /* A file that is gone: greyed out on the page, left out of the menu. */
  g_settings_set_strv (settings, "recent-models", with_missing);
  row = gtk_widget_get_first_child (GTK_WIDGET (test_recent_list (empty)));
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "no-such-model.onnx");
  g_assert_false (gtk_widget_get_sensitive (row));
  g_assert_cmpint (g_menu_model_get_n_items (menu), ==, 1);
  g_free (first);
  first = menu_target (menu, 0);
  g_assert_cmpstr (first, ==, model_uri);
  test_screenshot ("recent-missing.png");

  /* A click on the second row opens it here. */
  row = gtk_widget_get_next_sibling (row);
  g_assert_true (gtk_widget_get_sensitive (row));
  gtk_widget_activate (row);
  g_assert_true (shows_file (empty, "model.onnx"));
  wait_for_layout (empty);
  gtk_window_destroy (GTK_WINDOW (empty));
  g_settings_set_strv (settings, "recent-models", NULL);
}

static OnyxTensorPicker *
picker_of_input (OnyxWindow *window, guint input)
{
  GtkWidget *widget = GTK_WIDGET (test_properties (window));
  guint seen = 0;

  /* Depth first: the pickers of inputs 0, 1, … in order. */
  for (GtkWidget *w = widget; w != NULL;)
    {
      if (ONYX_IS_TENSOR_PICKER (w) && seen++ == input)
        return ONYX_TENSOR_PICKER (w);
      if (gtk_widget_get_first_child (w) != NULL)
        w = gtk_widget_get_first_child (w);
      else
        {
          while (w != widget && gtk_widget_get_next_sibling (w) == NULL)
            w = gtk_widget_get_parent (w);
          w = w == widget ? NULL : gtk_widget_get_next_sibling (w);
        }
    }
  return NULL;
}

static guint
n_results (OnyxTensorPicker *picker)
{
  return g_list_model_get_n_items (onyx_tensor_picker_get_results (picker));
}

static const char *
result (OnyxTensorPicker *picker, guint i)
{
  g_autoptr (GtkStringObject) item = g_list_model_get_item (onyx_tensor_picker_get_results (picker), i);

  return gtk_string_object_get_string (item); /* the list keeps it */
}

static void
test_reconnect_picker (void)
{
  OnyxWindow *window = open_window ("model_foo.onnx");
  Onnx__NodeProto *relu = node_of_op (window, "Relu"), *conv = node_of_op (window, "Conv");
  OnyxTensorPicker *picker;
  GtkWidget *button;
  AdwMessageDialog *dialog;
  g_autofree char *before = g_strdup (relu->input[0]);

  onyx_view_state_select_node (test_state (window), relu);
  picker = picker_of_input (window, 0);
  g_assert_nonnull (picker);
  g_assert_null (picker_of_input (window, 1));
  /* Every tensor: the graph input, three node outputs, two initializers. */
  g_assert_cmpuint (n_results (picker), ==, 6);
  g_assert_cmpstr (result (picker, 0), ==, "input");

  button = gtk_widget_get_parent (GTK_WIDGET (picker));
  g_assert_true (GTK_IS_MENU_BUTTON (button));
  gtk_menu_button_popup (GTK_MENU_BUTTON (button));
  for (int i = 0; i < 1000 && !gtk_widget_get_mapped (GTK_WIDGET (picker)); i++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (picker)));
  test_screenshot ("picker-all.png");

  /* Typing filters, ignoring case. */
  gtk_editable_set_text (onyx_tensor_picker_get_search (picker), "CONV");
  g_assert_cmpuint (n_results (picker), ==, 3);
  g_assert_cmpstr (result (picker, 0), ==, "/model/model.0/Conv_output_0");
  g_assert_cmpstr (result (picker, 1), ==, "onnx::Conv_13");
  test_screenshot ("picker-conv.png");
  /* Down moves from the search to the list (the key controllers of the search entry
   * are asked as GTK would, until one handles the key). */
  {
    g_autoptr (GListModel) controllers =
      gtk_widget_observe_controllers (GTK_WIDGET (onyx_tensor_picker_get_search (picker)));
    gboolean handled = FALSE;
    GtkWidget *list = test_find_widget (GTK_WIDGET (picker), GTK_TYPE_LIST_VIEW, NULL);

    for (guint i = 0; !handled && i < g_list_model_get_n_items (controllers); i++)
      {
        g_autoptr (GtkEventController) controller = g_list_model_get_item (controllers, i);
        if (GTK_IS_EVENT_CONTROLLER_KEY (controller))
          g_signal_emit_by_name (controller, "key-pressed", GDK_KEY_Down, 0, 0, &handled);
      }
    g_assert_true (handled);
    g_assert_nonnull (gtk_widget_get_focus_child (list));
  }
  gtk_editable_set_text (onyx_tensor_picker_get_search (picker), "nothing like this");
  g_assert_cmpuint (n_results (picker), ==, 0);
  gtk_editable_set_text (onyx_tensor_picker_get_search (picker), "inp");
  g_assert_cmpuint (n_results (picker), ==, 1);

  /* Enter takes the first match: Relu now reads the graph input. */
  g_signal_emit_by_name (onyx_tensor_picker_get_search (picker), "activate");
  g_assert_cmpstr (relu->input[0], ==, "input");
  g_assert_true (onyx_document_is_modified (onyx_window_get_document (window)));
  g_assert_nonnull (strstr (onyx_document_get_undo_label (onyx_window_get_document (window)), "Connect input 0"));
  wait_for_layout (window);
  test_screenshot ("picker-done.png");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.undo", NULL));
  g_assert_cmpstr (relu->input[0], ==, before);
  g_assert_false (onyx_document_is_modified (onyx_window_get_document (window)));
  wait_for_layout (window);

  /* Conv reading Relu's output would be a cycle: the core's message, no change. */
  onyx_view_state_select_node (test_state (window), conv);
  picker = picker_of_input (window, 0);
  gtk_editable_set_text (onyx_tensor_picker_get_search (picker), "relu_output");
  g_assert_cmpuint (n_results (picker), ==, 1);
  onyx_tensor_picker_choose (picker, 0);
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "depend on itself"));
  respond (dialog, "close");
  g_assert_cmpstr (conv->input[0], ==, "input");
  g_assert_false (onyx_document_is_modified (onyx_window_get_document (window)));
  wait_for_layout (window);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* ---- Constants folded into their readers (flat_constants.onnx) ---- */

static guint
n_op_boxes (OnyxWindow *window)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (test_canvas (window));
  guint n = 0;

  for (guint i = 0; i < layout->nodes->len; i++)
    n += g_array_index (layout->nodes, OnyxLayoutNode, i).kind == ONYX_LAYOUT_OP;
  return n;
}

/* Until the window's layout has `n` op boxes (after a setting changed). */
static void
wait_for_op_boxes (OnyxWindow *window, guint n)
{
  for (int i = 0; i < 10000 && n_op_boxes (window) != n; i++)
    {
      g_main_context_iteration (NULL, TRUE);
      wait_for_layout (window);
    }
  g_assert_cmpuint (n_op_boxes (window), ==, n);
}

/* Whether a label in `widget` (rows show their titles in labels) shows `text`. */
static gboolean
shows_text (GtkWidget *widget, const char *text)
{
  if (GTK_IS_LABEL (widget) && strstr (gtk_label_get_label (GTK_LABEL (widget)), text) != NULL)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (shows_text (child, text))
      return TRUE;
  return FALSE;
}

/* The switch of the Preferences row titled `title`. */
static GtkWidget *
preferences_switch (GtkWidget *widget, const char *title)
{
  if (ADW_IS_ACTION_ROW (widget) && g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), title) == 0)
    return test_find_widget (widget, GTK_TYPE_SWITCH, NULL);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = preferences_switch (child, title);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* A click on BatchNormalization's "scale" line selects the Constant it stands for
 * (the panel shows it; the box is highlighted); edits and undo re-fold; the
 * Preferences switch brings the boxes back. */
static void
test_fold_constants (void)
{
  OnyxWindow *window = open_window ("flat_constants.onnx");
  Onnx__GraphProto *graph = onyx_view_state_get_graph (test_state (window));
  Onnx__NodeProto *bn = node_of_op (window, "BatchNormalization"), *relu = node_of_op (window, "Relu"), *scale = NULL;
  guint n_folded_boxes = n_op_boxes (window);
  int bn_box = layout_node_of_op (window, "BatchNormalization");
  const OnyxLayoutNode *box = &g_array_index (onyx_canvas_get_layout (test_canvas (window))->nodes, OnyxLayoutNode, bn_box);
  OnyxTensorPicker *picker;
  GtkWidget *prefs, *fold_switch;
  g_autoptr (GSettings) settings = onyx_settings_new ();

  /* 19 of the 20 Constants are lines. */
  g_assert_cmpuint (n_folded_boxes, ==, graph->n_node - 19);
  /* Its attribute first, then the folded lines. */
  g_assert_cmpstr (box->lines->pdata[0], ==, "epsilon = 1e-05");
  g_assert_cmpstr (box->lines->pdata[1], ==, "scale ⟨8⟩");
  for (size_t n = 0; n < graph->n_node; n++)
    if (g_strcmp0 (graph->node[n]->output[0], bn->input[1]) == 0)
      scale = graph->node[n];
  g_assert_nonnull (scale);

  g_signal_emit_by_name (test_canvas (window), "line-activated", bn_box, 1);
  g_assert_cmpint (onyx_view_state_get_selection (test_state (window)), ==, ONYX_SELECTION_NODE);
  g_assert_true (onyx_view_state_get_selected_node (test_state (window)) == scale);
  g_assert_cmpint (onyx_canvas_get_selected_node (test_canvas (window)), ==, bn_box);
  g_assert_true (shows_text (GTK_WIDGET (test_properties (window)), "tensor float32⟨8⟩"));
  wait_for_frames (window);
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "test-app-more-fold-selected.png"), >, 2000);
  /* Its output, selected as a tensor, has no edge: the reader's box shows it. */
  onyx_view_state_select_tensor (test_state (window), scale->output[0]);
  g_assert_cmpint (onyx_canvas_get_selected_node (test_canvas (window)), ==, bn_box);

  /* Deleting the reader leaves its Constants unread: boxes of their own, undo folds. */
  onyx_view_state_select_node (test_state (window), bn);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.delete-node", NULL));
  wait_for_layout (window);
  g_assert_cmpuint (n_op_boxes (window), ==, n_folded_boxes - 1 + 4);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.undo", NULL));
  wait_for_layout (window);
  g_assert_cmpuint (n_op_boxes (window), ==, n_folded_boxes);

  /* Relu reading the scale too: read twice, it gets its box back; undo folds it. */
  onyx_view_state_select_node (test_state (window), relu);
  picker = picker_of_input (window, 0);
  gtk_editable_set_text (onyx_tensor_picker_get_search (picker), scale->output[0]);
  g_assert_cmpuint (n_results (picker), ==, 1);
  onyx_tensor_picker_choose (picker, 0);
  g_assert_cmpstr (relu->input[0], ==, scale->output[0]);
  wait_for_layout (window);
  g_assert_cmpuint (n_op_boxes (window), ==, n_folded_boxes + 1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.undo", NULL));
  wait_for_layout (window);
  g_assert_cmpuint (n_op_boxes (window), ==, n_folded_boxes);

  /* The Preferences switch: every Constant a box, in every open window. */
  prefs = onyx_preferences_new (GTK_WINDOW (window));
  gtk_window_present (GTK_WINDOW (prefs));
  fold_switch = preferences_switch (prefs, "Fold Constants");
  g_assert_nonnull (fold_switch);
  g_assert_true (gtk_switch_get_active (GTK_SWITCH (fold_switch)));
  gtk_widget_activate (fold_switch);
  wait_for_op_boxes (window, graph->n_node);
  gtk_window_destroy (GTK_WINDOW (prefs));
  wait_for_frames (window);
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "test-app-more-fold-off.png"), >, 2000);
  g_assert_false (g_settings_get_boolean (settings, "fold-constants"));
  g_settings_reset (settings, "fold-constants");
  wait_for_op_boxes (window, n_folded_boxes);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The application's accelerators, as the shortcuts window lists them. */
static void
test_accels (void)
{
  const struct { const char *action, *accel; } expected[] = {
    { "find.show", "<Control>f" },
    { "problems.show", "<Shift><Control>m" },
    { "edit.delete-node", "Delete" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_auto (GStrv) accels = gtk_application_get_accels_for_action (app, expected[i].action);
      g_assert_nonnull (accels);
      g_assert_nonnull (accels[0]);
      g_assert_cmpstr (accels[0], ==, expected[i].accel);
    }
}

/* A job's work that waits until it is let go. */
static gpointer
wait_released (OnyxJob *job, gpointer released, GError **error)
{
  while (!g_atomic_int_get ((int *) released))
    g_usleep (1000);
  return NULL;
}

static void
wait_for_label (OnyxJobs *jobs, const char *label)
{
  for (int i = 0; i < 500 && g_strcmp0 (onyx_jobs_get_label (jobs), label) != 0; i++)
    test_wait_ms (20);
  g_assert_cmpstr (onyx_jobs_get_label (jobs), ==, label);
}

/* Background jobs: nothing shows for a job shorter than the delay; past it the
 * header bar's spinner turns, its tooltip naming every job running, stays while a
 * younger job still runs and goes when the last one ends. */
static void
test_activity (void)
{
  OnyxWindow *window = open_window ("model.onnx");
  OnyxJobs *jobs = onyx_view_state_get_jobs (test_state (window));
  GtkWidget *spinner = test_find_widget (GTK_WIDGET (window), GTK_TYPE_SPINNER, NULL);
  int save_released = FALSE, export_released = FALSE;
  OnyxJobSpec save = { .label = "Saving model.onnx", .work = wait_released, .data = &save_released };
  OnyxJobSpec export = { .label = "Exporting model.png", .work = wait_released, .data = &export_released };
  OnyxJob *saving;
  gint64 began;

  g_assert_nonnull (spinner);
  g_assert_false (gtk_widget_get_visible (spinner));
  onyx_jobs_set_delay (jobs, 200);
  began = g_get_monotonic_time ();
  saving = onyx_jobs_start (jobs, &save);
  g_assert_false (onyx_jobs_get_busy (jobs));
  g_assert_false (gtk_widget_get_visible (spinner));
  /* Waits for the spinner rather than a fixed time: a loaded machine (ASan) may run
   * the main loop late, so only "not before the delay" is a fair check. */
  for (int i = 0; i < 500 && !onyx_jobs_get_busy (jobs); i++)
    test_wait_ms (20);
  g_assert_true (onyx_jobs_get_busy (jobs));
  g_assert_cmpint (g_get_monotonic_time () - began, >=, 200 * 1000);
  g_assert_true (gtk_widget_get_visible (spinner));
  g_assert_true (gtk_spinner_get_spinning (GTK_SPINNER (spinner)));
  g_assert_cmpstr (gtk_widget_get_tooltip_text (spinner), ==, "Saving model.onnx");

  onyx_jobs_start (jobs, &export);
  g_assert_cmpstr (onyx_jobs_get_label (jobs), ==, "Saving model.onnx\nExporting model.png");
  /* A job that knows how far it is says so (the external data a save copies); the
   * label follows the work's progress within a tick. */
  onyx_job_set_progress (saving, 0.456);
  wait_for_label (jobs, "Saving model.onnx: 45 %\nExporting model.png");
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "test-app-more-activity.png"), >, 2000);
  g_atomic_int_set (&save_released, TRUE);
  wait_for_label (jobs, "Exporting model.png");
  g_assert_true (onyx_jobs_get_busy (jobs));
  g_assert_cmpstr (gtk_widget_get_tooltip_text (spinner), ==, "Exporting model.png");
  g_atomic_int_set (&export_released, TRUE);
  wait_for_label (jobs, NULL);
  g_assert_false (onyx_jobs_get_busy (jobs));
  g_assert_false (gtk_widget_get_visible (spinner));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int argc, char *argv[])
{
  g_autoptr (GError) error = NULL;
  g_autofree char *home = test_private_xdg_folders ("app-more");
  int status;

  g_test_init (&argc, &argv, NULL);
  /* Xvfb has no session bus, which GTK warns about; criticals stay fatal. */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  /* The real application (its startup applies the dark style), registered without
   * running it; windows of the tests belong to it. */
  app = GTK_APPLICATION (onyx_application_new ());
  g_application_set_flags (G_APPLICATION (app),
                           g_application_get_flags (G_APPLICATION (app)) | G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);

  g_test_add_func ("/app-more/drop-open", test_drop_open);
  g_test_add_func ("/app-more/open-over-unsaved", test_open_over_unsaved);
  g_test_add_func ("/app-more/close-unsaved", test_close_unsaved);
  g_test_add_func ("/app-more/close-save", test_close_save);
  g_test_add_func ("/app-more/dark-style", test_dark_style);
  g_test_add_func ("/app-more/pinch-zoom", test_pinch_zoom);
  g_test_add_func ("/app-more/recent", test_recent);
  g_test_add_func ("/app-more/reconnect-picker", test_reconnect_picker);
  g_test_add_func ("/app-more/fold-constants", test_fold_constants);
  g_test_add_func ("/app-more/accels", test_accels);
  g_test_add_func ("/app-more/activity", test_activity);
  status = g_test_run ();
  test_private_xdg_folders_remove (home);
  return status;
}
