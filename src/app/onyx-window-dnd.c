/* onyx-window-dnd.c: dropping model files on a window opens them (the first here,
 * others in new windows), after asking about unsaved changes. */
#include "onyx-window-private.h"

static void
open_pending (OnyxWindow *self)
{
  g_autoptr (GFile) file = g_steal_pointer (&self->pending_open);

  if (file != NULL)
    onyx_window_open_file (self, file);
}

void
onyx_window_open_confirmed (OnyxWindow *self, GFile *file)
{
  g_set_object (&self->pending_open, file);
  onyx_window_confirm_discard (self, open_pending);
}

static gboolean
drop_cb (GtkDropTarget *target, const GValue *value, double x, double y, OnyxWindow *self)
{
  GSList *files;

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  files = gdk_file_list_get_files (g_value_get_boxed (value));
  if (files == NULL)
    return FALSE;
  for (GSList *l = files->next; l != NULL; l = l->next)
    {
      OnyxWindow *other = onyx_window_new (gtk_window_get_application (GTK_WINDOW (self)));
      gtk_window_present (GTK_WINDOW (other));
      onyx_window_open_file (other, l->data);
    }
  onyx_window_open_confirmed (self, files->data);
  g_slist_free (files);
  return TRUE;
}

void
onyx_window_init_dnd (OnyxWindow *self)
{
  GtkDropTarget *target = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);

  g_signal_connect (target, "drop", G_CALLBACK (drop_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (target));
}
