/* onyx-dialogs.c: the small dialogs every part shows alike (onyx-dialogs.h). */
#include "onyx-dialogs.h"

#include <glib/gi18n.h>

void
onyx_show_error (GtkWindow *parent, const char *heading, const char *message)
{
  AdwMessageDialog *dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (parent, heading, message));

  adw_message_dialog_add_response (dialog, "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

void
onyx_ask (AdwMessageDialog *dialog, const char *response, const char *label, GCallback callback, gpointer data)
{
  adw_message_dialog_add_responses (dialog, "cancel", _("_Cancel"), response, label, NULL);
  adw_message_dialog_set_response_appearance (dialog, response, ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (dialog, response);
  adw_message_dialog_set_close_response (dialog, "cancel");
  g_signal_connect (dialog, "response", callback, data);
  gtk_window_present (GTK_WINDOW (dialog));
}

void
onyx_add_onnx_filter (GtkFileChooser *chooser)
{
  g_autoptr (GtkFileFilter) models = gtk_file_filter_new ();
  g_autoptr (GtkFileFilter) all = gtk_file_filter_new ();

  gtk_file_filter_set_name (models, _("ONNX Models"));
  gtk_file_filter_add_pattern (models, "*.onnx");
  gtk_file_filter_add_mime_type (models, "application/x-onnx");
  gtk_file_chooser_add_filter (chooser, models);
  gtk_file_filter_set_name (all, _("All Files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (chooser, all);
}

GtkFileChooserNative *
onyx_file_chooser_new (GtkWindow *parent, GFile *near, const char *title, const char *accept,
                       GtkFileChooserAction action)
{
  GtkFileChooserNative *chooser = gtk_file_chooser_native_new (title, parent, action, accept, _("_Cancel"));

  /* Most often a file next to the open model. */
  if (near != NULL)
    {
      g_autoptr (GFile) folder = g_file_get_parent (near);
      if (folder != NULL)
        gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), folder, NULL);
    }
  return chooser;
}

typedef struct {
  OnyxFileFunc func;
  gpointer owner;
  char *error_heading;
} Choosing;

static void
choosing_free (Choosing *choosing)
{
  g_object_unref (choosing->owner);
  g_free (choosing->error_heading);
  g_free (choosing);
}

static void
chooser_response_cb (GtkNativeDialog *chooser, int response, Choosing *choosing)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autoptr (GError) error = NULL;

      if (!choosing->func (choosing->owner, file, &error))
        onyx_show_error (gtk_native_dialog_get_transient_for (chooser), choosing->error_heading, error->message);
    }
  g_object_unref (chooser);
}

void
onyx_file_chooser_run (GtkFileChooserNative *chooser, OnyxFileFunc func, gpointer owner, const char *error_heading)
{
  Choosing *choosing = g_new0 (Choosing, 1);

  choosing->func = func;
  choosing->owner = g_object_ref (owner);
  choosing->error_heading = g_strdup (error_heading);
  g_signal_connect_data (chooser, "response", G_CALLBACK (chooser_response_cb), choosing,
                         (GClosureNotify) (void (*) (void)) choosing_free, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}
