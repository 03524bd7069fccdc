/* onyx-window-recent.c: recently opened and saved models. The list lives in the
 * GSettings key recent-models (URIs, newest first, at most recent-models-limit) and
 * is also added to the desktop's recent files (GtkRecentManager's) so that GNOME's
 * own recent files show it. An empty window lists it, and the main menu has it as
 * "Open Recent". */
#include "onyx-window-private.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "onyx-disk-queue.h"

struct _OnyxWindowRecent {
  GtkWidget *group;               /* the empty page's "Recent Models" */
  GtkListBox *list;
  GMenu *menu;                    /* the main menu's "Open Recent" */
};

/* The stored list cut to the limit (which may have been lowered since), with `uri`
 * first when it is not NULL. */
static GPtrArray *
recent_uris (GSettings *settings, const char *uri)
{
  g_auto (GStrv) stored = g_settings_get_strv (settings, "recent-models");
  guint limit = g_settings_get_uint (settings, "recent-models-limit");
  GPtrArray *uris = g_ptr_array_new_with_free_func (g_free);

  if (uri != NULL && limit > 0)
    g_ptr_array_add (uris, g_strdup (uri));
  for (guint i = 0; stored[i] != NULL && uris->len < limit; i++)
    if (g_strcmp0 (stored[i], uri) != 0)
      g_ptr_array_add (uris, g_strdup (stored[i]));
  return uris;
}

/* Adds `uri` (taken) to the desktop's recent files, the file GtkRecentManager reads
 * and writes. GtkRecentManager itself writes it on the UI thread with an fsync (45 ms
 * here, far more on a slow disk), so the disk queue's thread does; every
 * GtkRecentManager, this process' too, reloads the file when it changes. */
static void
add_to_desktop_recent (gpointer uri, gpointer unused)
{
  g_autofree char *path = g_build_filename (g_get_user_data_dir (), "recently-used.xbel", NULL);
  g_autoptr (GBookmarkFile) bookmarks = g_bookmark_file_new ();
  g_autoptr (GError) error = NULL;

  if (!g_bookmark_file_load_from_file (bookmarks, path, &error) &&
      !g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    g_warning ("Could not read the recent files in %s: %s", path, error->message);
  g_clear_error (&error);
  g_bookmark_file_set_mime_type (bookmarks, uri, "application/x-onnx");
  /* Also marks it modified and visited now, and counts the use. */
  g_bookmark_file_add_application (bookmarks, uri, "Onyx", "onyx %u");
  g_mkdir_with_parents (g_get_user_data_dir (), 0700);
  if (!g_bookmark_file_to_file (bookmarks, path, &error))
    g_warning ("Could not add %s to the recent files: %s", (char *) uri, error->message);
  g_free (uri);
}

void
onyx_window_recent_add (OnyxWindow *self, GFile *file)
{
  g_autofree char *uri = g_file_get_uri (file);
  g_autoptr (GPtrArray) uris = recent_uris (self->settings, uri);

  g_ptr_array_add (uris, NULL);
  g_settings_set_strv (self->settings, "recent-models", (const char *const *) uris->pdata);
  onyx_disk_queue_push (add_to_desktop_recent, g_steal_pointer (&uri));
}

static GtkWidget *
recent_row (GFile *file, const char *uri, gboolean exists)
{
  g_autofree char *base = g_file_get_basename (file);
  g_autoptr (GFile) parent = g_file_get_parent (file);
  g_autofree char *where = parent != NULL ? g_file_get_parse_name (parent) : g_strdup ("");
  GtkWidget *row = adw_action_row_new ();

  /* Row titles are markup; file names may hold "<" or "&". */
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), base);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), where);
  if (!exists)
    {
      /* Greyed out: still listed, so that a model on an unplugged disk is not forgotten.
       * (An action would make the row sensitive again.) */
      gtk_widget_set_sensitive (row, FALSE);
      gtk_widget_set_tooltip_text (row, _("The file no longer exists"));
      return row;
    }
  gtk_actionable_set_action_target (GTK_ACTIONABLE (row), "s", uri);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (row), "win.open-recent");
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), gtk_image_new_from_icon_name ("go-next-symbolic"));
  return row;
}

static void
recent_changed_cb (OnyxWindow *self)
{
  g_autoptr (GPtrArray) uris = recent_uris (self->settings, NULL);
  GtkWidget *child;
  guint in_menu = 0;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->recent->list))) != NULL)
    gtk_list_box_remove (self->recent->list, child);
  g_menu_remove_all (self->recent->menu);
  for (guint i = 0; i < uris->len; i++)
    {
      const char *uri = g_ptr_array_index (uris, i);
      g_autoptr (GFile) file = g_file_new_for_uri (uri);
      g_autofree char *base = g_file_get_basename (file);
      g_autoptr (GString) label = g_string_new (base);
      g_autoptr (GMenuItem) item = NULL;
      gboolean exists = g_file_query_exists (file, NULL);

      gtk_list_box_append (self->recent->list, recent_row (file, uri, exists));
      if (!exists)
        continue;
      /* Menu labels read "_" as a mnemonic. */
      g_string_replace (label, "_", "__", 0);
      item = g_menu_item_new (label->str, NULL);
      g_menu_item_set_action_and_target (item, "win.open-recent", "s", uri);
      g_menu_append_item (self->recent->menu, item);
      in_menu++;
    }
  if (in_menu == 0)
    /* An item without an action is shown greyed out. */
    g_menu_append (self->recent->menu, _("No Recent Models"), NULL);
  gtk_widget_set_visible (self->recent->group, uris->len > 0);
}

static void
open_recent_action (GtkWidget *widget, const char *name, GVariant *param)
{
  g_autoptr (GFile) file = g_file_new_for_uri (g_variant_get_string (param, NULL));

  onyx_window_open_confirmed (ONYX_WINDOW (widget), file);
}

void
onyx_window_class_init_recent (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_child_full (widget_class, "recent_group", FALSE, 0);
  gtk_widget_class_bind_template_child_full (widget_class, "recent_list", FALSE, 0);
  gtk_widget_class_bind_template_child_full (widget_class, "recent_menu", FALSE, 0);
  gtk_widget_class_install_action (widget_class, "win.open-recent", "s", open_recent_action);
}

void
onyx_window_init_recent (OnyxWindow *self)
{
  self->recent = g_new0 (OnyxWindowRecent, 1);
  self->recent->group = GTK_WIDGET (onyx_window_template_child (self, "recent_group"));
  self->recent->list = GTK_LIST_BOX (onyx_window_template_child (self, "recent_list"));
  self->recent->menu = G_MENU (onyx_window_template_child (self, "recent_menu"));
  g_signal_connect_swapped (self->settings, "changed::recent-models",
                            G_CALLBACK (recent_changed_cb), self);
  g_signal_connect_swapped (self->settings, "changed::recent-models-limit",
                            G_CALLBACK (recent_changed_cb), self);
  recent_changed_cb (self);
}

GtkListBox *
onyx_window_recent_get_list (OnyxWindow *self)
{
  return self->recent->list;
}
