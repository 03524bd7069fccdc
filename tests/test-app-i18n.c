/* test-app-i18n.c: the window under LANGUAGE=de, with the catalogs built in po/.
 * Every text the window shows (labels, titles, tooltips, menu items, placeholders,
 * hidden pages included) is collected; German strings from the templates and from
 * the C code must be among them, and none may be an English message that the
 * catalog translates (that would be a string shown untranslated). */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <glib/gi18n.h>
#include <locale.h>
#include <string.h>

#include "onyx-preferences.h"
#include "onyx-window-private.h"

#define DOMAIN "onyx"

static void
add_text (GPtrArray *texts, const char *text)
{
  if (text != NULL && *text != '\0')
    g_ptr_array_add (texts, g_strdup (text));
}

static void
collect_menu (GMenuModel *menu, GPtrArray *texts)
{
  for (int i = 0; i < g_menu_model_get_n_items (menu); i++)
    {
      g_autofree char *label = NULL;
      g_autoptr (GMenuLinkIter) links = g_menu_model_iterate_item_links (menu, i);
      GMenuModel *sub;

      if (g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_LABEL, "s", &label))
        add_text (texts, label);
      while (g_menu_link_iter_get_next (links, NULL, &sub))
        {
          collect_menu (sub, texts);
          g_object_unref (sub);
        }
    }
}

static void
collect_widget (GtkWidget *widget, GPtrArray *texts)
{
  add_text (texts, gtk_widget_get_tooltip_text (widget));
  if (GTK_IS_LABEL (widget))
    add_text (texts, gtk_label_get_label (GTK_LABEL (widget)));
  if (GTK_IS_MENU_BUTTON (widget) && gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (widget)))
    collect_menu (gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (widget)), texts);
  if (GTK_IS_EDITABLE (widget) && g_object_class_find_property (G_OBJECT_GET_CLASS (widget),
                                                                "placeholder-text"))
    {
      g_autofree char *placeholder = NULL;
      g_object_get (widget, "placeholder-text", &placeholder, NULL);
      add_text (texts, placeholder);
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_widget (child, texts);
}

static gboolean
contains (GPtrArray *texts, const char *text)
{
  return g_ptr_array_find_with_equal_func (texts, text, g_str_equal, NULL);
}

/* Fails on any collected text that is itself an English message of the catalog. */
static guint
assert_all_translated (GPtrArray *texts)
{
  guint translated = 0;

  for (guint i = 0; i < texts->len; i++)
    {
      const char *text = texts->pdata[i];
      const char *german = g_dgettext (DOMAIN, text);

      if (german != text && !g_str_equal (german, text))
        g_error ("shown untranslated: “%s” (German: “%s”)", text, german);
      if (g_utf8_strchr (text, -1, 0xE4) || g_utf8_strchr (text, -1, 0xF6) ||
          g_utf8_strchr (text, -1, 0xFC) || g_utf8_strchr (text, -1, 0xDF))
        translated++; /* ä ö ü ß: at least some texts are plainly German */
    }
  return translated;
}

static void
wait_until_shown (GtkWidget *widget)
{
  while (!gtk_widget_get_mapped (widget))
    g_main_context_iteration (NULL, TRUE);
}

static void
test_window_german (void)
{
  OnyxWindow *window = onyx_window_new (NULL);
  g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *path = g_build_filename (g_getenv ("ONYX_TEST_DATA"), "model_foo.onnx", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  Onnx__GraphProto *graph;

  gtk_window_present (GTK_WINDOW (window));
  wait_until_shown (GTK_WIDGET (window));

  /* The empty window: strings of ui/onyx-window.ui. */
  collect_widget (GTK_WIDGET (window), texts);
  g_assert_true (contains (texts, "Ein ONNX-Modell öffnen"));
  g_assert_true (contains (texts, "Modell ö_ffnen …"));
  g_assert_true (contains (texts, "Ein Modell öffnen (Strg+O)"));
  g_assert_true (contains (texts, "Hauptmenü"));
  g_assert_true (contains (texts, "_Einstellungen"));
  g_assert_true (contains (texts, "Knotennamen, Operatoren, Tensoren"));
  g_assert_false (contains (texts, "Open an ONNX Model"));

  /* A model and a selected node: strings of the C code. */
  onyx_window_open_file (window, file);
  while (onyx_window_is_opening (window))
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (onyx_window_has_model (window));
  graph = onyx_document_get_proto (onyx_window_get_document (window))->graph;
  onyx_view_state_select_node (onyx_window_get_view_state (window), graph->node[0]);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  collect_widget (GTK_WIDGET (window), texts);
  g_assert_true (contains (texts, "Knoten"));
  g_assert_true (contains (texts, "Eingaben"));
  g_assert_true (contains (texts, "_Überbrücken"));
  g_assert_true (contains (texts, "Mit _Nachfolgern löschen"));
  g_assert_false (contains (texts, "_Bypass"));
  /* A node's problems come from the core's checks: German too. */
  g_assert_cmpstr (graph->node[2]->op_type, ==, "FooOp");
  onyx_view_state_select_node (onyx_window_get_view_state (window), graph->node[2]);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  collect_widget (GTK_WIDGET (window), texts);
  {
    gboolean custom_op = FALSE;
    for (guint i = 0; i < texts->len; i++)
      custom_op |= strstr (texts->pdata[i], "verwendet den benutzerdefinierten Operator devtech::FooOp") != NULL;
    g_assert_true (custom_op);
  }

  g_assert_cmpuint (assert_all_translated (texts), >=, 5);
  g_test_message ("%u texts, all translated", texts->len);

  /* An edit's undo label comes from the core: German too, in the Undo tooltip. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.bypass-node", NULL));
  while (onyx_view_state_is_laying_out (onyx_window_get_view_state (window)) || g_main_context_iteration (NULL, FALSE))
    g_main_context_iteration (NULL, FALSE);
  g_ptr_array_set_size (texts, 0);
  collect_widget (GTK_WIDGET (window), texts);
  g_assert_true (contains (texts, "„Knoten /FooOp überbrücken“ rückgängig machen"));
  assert_all_translated (texts);

  onyx_view_state_select_model (onyx_window_get_view_state (window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_ptr_array_set_size (texts, 0);
  collect_widget (GTK_WIDGET (window), texts);
  g_assert_true (contains (texts, "Modell"));
  g_assert_true (contains (texts, "Operatorsätze"));
  assert_all_translated (texts);

  gtk_window_destroy (GTK_WINDOW (window));
}

/* A file that cannot be opened: the core's reason, German on the error page. */
static void
test_open_error_german (void)
{
  OnyxWindow *window = onyx_window_new (NULL);
  g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *dir = g_dir_make_tmp ("onyx-i18n-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "leer.onnx", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);

  g_assert_true (g_file_set_contents (path, "", 0, NULL));
  gtk_window_present (GTK_WINDOW (window));
  wait_until_shown (GTK_WIDGET (window));
  onyx_window_open_file (window, file);
  while (onyx_window_is_opening (window))
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpstr (onyx_window_get_page (window), ==, "error");
  collect_widget (GTK_WIDGET (window), texts);
  g_assert_true (contains (texts, "leer.onnx: die Datei ist leer"));
  assert_all_translated (texts);
  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_cmpint (g_remove (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

static void
test_preferences_german (void)
{
  GtkWidget *prefs = onyx_preferences_new (NULL);
  g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);

  gtk_window_present (GTK_WINDOW (prefs));
  wait_until_shown (prefs);
  collect_widget (prefs, texts);
  g_assert_true (contains (texts, "Erscheinungsbild"));
  g_assert_true (contains (texts, "Dunkler Stil"));
  assert_all_translated (texts);
  gtk_window_destroy (GTK_WINDOW (prefs));
}

int
main (int argc, char *argv[])
{
  g_autofree char *localedir = NULL;

  /* As a German user would run it; C.UTF-8 because LANGUAGE is ignored under "C". */
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);
  g_setenv ("LANGUAGE", "de", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);

  /* main.c binds the installed catalogs; the test binds those built in po/. */
  setlocale (LC_ALL, "");
  localedir = g_test_build_filename (G_TEST_BUILT, "..", "po", NULL);
  bindtextdomain (DOMAIN, localedir);
  bind_textdomain_codeset (DOMAIN, "UTF-8");
  textdomain (DOMAIN);
  g_assert_cmpstr (g_dgettext (DOMAIN, "_Open"), ==, "_Öffnen");

  adw_init ();
  g_test_add_func ("/app-i18n/window", test_window_german);
  g_test_add_func ("/app-i18n/open-error", test_open_error_german);
  g_test_add_func ("/app-i18n/preferences", test_preferences_german);
  return g_test_run ();
}
