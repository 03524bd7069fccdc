/* onyx-preferences.c: settings are bound straight to GSettings; the application
 * applies them. */
#include "onyx-preferences.h"

#include "onyx-settings.h"

struct _OnyxPreferences {
  AdwPreferencesWindow parent_instance;
  GtkSwitch *dark_switch;
  GtkSwitch *fold_constants_switch;
  GtkSwitch *fold_quant_switch;
  GSettings *settings;
};

G_DEFINE_FINAL_TYPE (OnyxPreferences, onyx_preferences, ADW_TYPE_PREFERENCES_WINDOW)

static void
onyx_preferences_dispose (GObject *object)
{
  OnyxPreferences *self = ONYX_PREFERENCES (object);

  g_clear_object (&self->settings);
  gtk_widget_dispose_template (GTK_WIDGET (self), ONYX_TYPE_PREFERENCES);
  G_OBJECT_CLASS (onyx_preferences_parent_class)->dispose (object);
}

static void
onyx_preferences_class_init (OnyxPreferencesClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = onyx_preferences_dispose;
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/onyxviewer/Onyx/onyx-preferences.ui");
  gtk_widget_class_bind_template_child (widget_class, OnyxPreferences, dark_switch);
  gtk_widget_class_bind_template_child (widget_class, OnyxPreferences, fold_constants_switch);
  gtk_widget_class_bind_template_child (widget_class, OnyxPreferences, fold_quant_switch);
}

static void
onyx_preferences_init (OnyxPreferences *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->settings = onyx_settings_new ();
  g_settings_bind (self->settings, "dark-style", self->dark_switch, "active", G_SETTINGS_BIND_DEFAULT);
  /* Every window relayouts when it changes (onyx-window.c). */
  g_settings_bind (self->settings, "fold-constants", self->fold_constants_switch, "active",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "fold-quant", self->fold_quant_switch, "active", G_SETTINGS_BIND_DEFAULT);
}

GtkWidget *
onyx_preferences_new (GtkWindow *parent)
{
  return g_object_new (ONYX_TYPE_PREFERENCES, "transient-for", parent, NULL);
}
