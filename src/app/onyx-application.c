/* onyx-application.c */
#include "onyx-application.h"

#include <glib/gi18n.h>

#include "onyx-disk-queue.h"
#include "onyx-preferences.h"
#include "onyx-settings.h"
#include "onyx-shapes.h"
#include "onyx-window.h"

struct _OnyxApplication {
  AdwApplication parent_instance;
  GSettings *settings;
  char *initial_graph;   /* --graph: the graph the first model opens at */
};

G_DEFINE_FINAL_TYPE (OnyxApplication, onyx_application, ADW_TYPE_APPLICATION)

static void
apply_style (OnyxApplication *self)
{
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (),
                                      g_settings_get_boolean (self->settings, "dark-style")
                                        ? ADW_COLOR_SCHEME_FORCE_DARK : ADW_COLOR_SCHEME_DEFAULT);
}

static void
onyx_application_activate (GApplication *app)
{
  OnyxWindow *window = onyx_window_new (GTK_APPLICATION (app));

  gtk_window_present (GTK_WINDOW (window));
}

static void
onyx_application_open (GApplication *app, GFile **files, int n_files, const char *hint)
{
  GtkWindow *active = gtk_application_get_active_window (GTK_APPLICATION (app));

  /* One window per file; an empty window is reused for the first. */
  for (int i = 0; i < n_files; i++)
    {
      OnyxWindow *window;
      if (i == 0 && ONYX_IS_WINDOW (active) && !onyx_window_has_model (ONYX_WINDOW (active)))
        window = ONYX_WINDOW (active);
      else
        window = onyx_window_new (GTK_APPLICATION (app));
      gtk_window_present (GTK_WINDOW (window));
      onyx_window_open_file_at (window, files[i], i == 0 ? ONYX_APPLICATION (app)->initial_graph : NULL);
    }
  g_clear_pointer (&ONYX_APPLICATION (app)->initial_graph, g_free);
}

static int
onyx_application_handle_local_options (GApplication *app, GVariantDict *options)
{
  OnyxApplication *self = ONYX_APPLICATION (app);

  g_variant_dict_lookup (options, "graph", "s", &self->initial_graph);
  return -1; /* go on as usual */
}

static void
about_action (GSimpleAction *action, GVariant *param, gpointer data)
{
  GtkApplication *app = data;
  const char *developers[] = { "The Onyx authors", NULL };

  adw_show_about_window (gtk_application_get_active_window (app),
                         "application-name", "Onyx",
                         "application-icon", "io.github.onyxviewer.Onyx",
                         "version", ONYX_VERSION,
                         "comments", _("View, inspect and repair ONNX models"),
                         "website", "https://github.com/onyxviewer/onyx",
                         "developers", developers,
                         "license-type", GTK_LICENSE_GPL_3_0,
                         "translator-credits", _("translator-credits"),
                         NULL);
}

static void
preferences_action (GSimpleAction *action, GVariant *param, gpointer data)
{
  GtkWidget *prefs = onyx_preferences_new (gtk_application_get_active_window (GTK_APPLICATION (data)));

  gtk_window_present (GTK_WINDOW (prefs));
}

/* The manual, in GNOME's help viewer. */
static void
help_action (GSimpleAction *action, GVariant *param, gpointer data)
{
  gtk_show_uri (gtk_application_get_active_window (GTK_APPLICATION (data)), "help:onyx", GDK_CURRENT_TIME);
}

static void
new_window_action (GSimpleAction *action, GVariant *param, gpointer data)
{
  onyx_application_activate (G_APPLICATION (data));
}

static void
quit_action (GSimpleAction *action, GVariant *param, gpointer data)
{
  /* Closing each window asks about its unsaved changes. */
  GList *windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (data)));

  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (l->data);
  g_list_free (windows);
}

static void
warm_up_libonnx (gpointer unused)
{
  (void) unused;
  onyx_shapes_warm_up ();
}

static void
onyx_application_startup (GApplication *app)
{
  OnyxApplication *self = ONYX_APPLICATION (app);
  static const GActionEntry entries[] = {
    { .name = "about", .activate = about_action },
    { .name = "help", .activate = help_action },
    { .name = "preferences", .activate = preferences_action },
    { .name = "new-window", .activate = new_window_action },
    { .name = "quit", .activate = quit_action },
  };
  static const struct { const char *action; const char *accels[3]; } accels[] = {
    { "app.new-window", { "<Control>n", NULL } },
    { "app.quit", { "<Control>q", NULL } },
    { "app.preferences", { "<Control>comma", NULL } },
    { "app.help", { "F1", NULL } },
    { "file.open", { "<Control>o", NULL } },
    { "file.save", { "<Control>s", NULL } },
    { "file.save-as", { "<Control><Shift>s", NULL } },
    { "edit.undo", { "<Control>z", NULL } },
    { "edit.redo", { "<Control><Shift>z", "<Control>y", NULL } },
    { "edit.delete-node", { "Delete", NULL } },
    { "find.show", { "<Control>f", NULL } },
    /* As the Problems panel of code editors. */
    { "problems.show", { "<Control><Shift>m", NULL } },
    { "graph.graph-up", { "<Alt>Left", NULL } },
    { "run.start", { "F5", NULL } },
    { "window.close", { "<Control>w", NULL } },
  };

  G_APPLICATION_CLASS (onyx_application_parent_class)->startup (app);
  g_action_map_add_action_entries (G_ACTION_MAP (app), entries, G_N_ELEMENTS (entries), app);
  for (gsize i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (app), accels[i].action, accels[i].accels);

  self->settings = onyx_settings_new ();
  g_signal_connect_swapped (self->settings, "changed::dark-style", G_CALLBACK (apply_style), self);
  apply_style (self);
  /* Once the first window is up: a model opened later finds libonnx ready. */
  g_idle_add_once (warm_up_libonnx, NULL);
}

static void
onyx_application_shutdown (GApplication *app)
{
  /* A journal removed after a save or a discard must be gone before the next start
   * finds it, and a model opened last must be in the recent files. */
  onyx_disk_queue_flush ();
  G_APPLICATION_CLASS (onyx_application_parent_class)->shutdown (app);
}

static void
onyx_application_dispose (GObject *object)
{
  g_clear_object (&ONYX_APPLICATION (object)->settings);
  g_clear_pointer (&ONYX_APPLICATION (object)->initial_graph, g_free);
  G_OBJECT_CLASS (onyx_application_parent_class)->dispose (object);
}

static void
onyx_application_class_init (OnyxApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = onyx_application_dispose;
  app_class->activate = onyx_application_activate;
  app_class->open = onyx_application_open;
  app_class->startup = onyx_application_startup;
  app_class->shutdown = onyx_application_shutdown;
  app_class->handle_local_options = onyx_application_handle_local_options;
}

static void
onyx_application_init (OnyxApplication *self)
{
  g_application_add_main_option (G_APPLICATION (self), "graph", 0, G_OPTION_FLAG_NONE,
                                 G_OPTION_ARG_STRING,
                                 _("Open the model at GRAPH: main, NODE:ATTR such as "
                                   "If_1:then_branch, or a function’s name"), "GRAPH");
  /* Translators: what follows the options on onyx's command line (--help) */
  g_application_set_option_context_parameter_string (G_APPLICATION (self), _("[MODEL…]"));
  g_application_set_option_context_summary (G_APPLICATION (self),
                                            _("Opens each ONNX model given in a window of its own, "
                                              "or a window to open one."));
}

OnyxApplication *
onyx_application_new (void)
{
  return g_object_new (ONYX_TYPE_APPLICATION,
                       "application-id", "io.github.onyxviewer.Onyx",
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", "/io/github/onyxviewer/Onyx",
                       NULL);
}
