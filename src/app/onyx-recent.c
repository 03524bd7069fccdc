/* onyx-recent.c: recently opened and saved models (onyx-recent.h). The list lives
 * in the GSettings key recent-models (URIs, newest first, at most
 * recent-models-limit) and is also added to the desktop's recent files
 * (GtkRecentManager's) so that GNOME's own recent files show it. */
#include "onyx-recent.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "onyx-disk-queue.h"

struct _OnyxRecent {
  GObject parent_instance;

  OnyxViewState *state;
  GSettings *settings;
  GtkWidget *group;               /* the empty page's "Recent Models" */
  GtkListBox *list;
  GMenu *menu;                    /* the main menu's "Open Recent" */
};

G_DEFINE_FINAL_TYPE (OnyxRecent, onyx_recent, G_TYPE_OBJECT)

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

/* Records a model that was opened or saved. */
static void
add_file (OnyxRecent *self, GFile *file)
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
  gtk_actionable_set_action_name (GTK_ACTIONABLE (row), "file.open-recent");
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), gtk_image_new_from_icon_name ("go-next-symbolic"));
  return row;
}

static void
recent_changed_cb (OnyxRecent *self)
{
  g_autoptr (GPtrArray) uris = recent_uris (self->settings, NULL);
  GtkWidget *child;
  guint in_menu = 0;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->list))) != NULL)
    gtk_list_box_remove (self->list, child);
  g_menu_remove_all (self->menu);
  for (guint i = 0; i < uris->len; i++)
    {
      const char *uri = g_ptr_array_index (uris, i);
      g_autoptr (GFile) file = g_file_new_for_uri (uri);
      g_autofree char *base = g_file_get_basename (file);
      g_autoptr (GString) label = g_string_new (base);
      g_autoptr (GMenuItem) item = NULL;
      gboolean exists = g_file_query_exists (file, NULL);

      gtk_list_box_append (self->list, recent_row (file, uri, exists));
      if (!exists)
        continue;
      /* Menu labels read "_" as a mnemonic. */
      g_string_replace (label, "_", "__", 0);
      item = g_menu_item_new (label->str, NULL);
      g_menu_item_set_action_and_target (item, "file.open-recent", "s", uri);
      g_menu_append_item (self->menu, item);
      in_menu++;
    }
  if (in_menu == 0)
    /* An item without an action is shown greyed out. */
    g_menu_append (self->menu, _("No Recent Models"), NULL);
  gtk_widget_set_visible (self->group, uris->len > 0);
}

/* A model opened, or saved (under its name or another). */
static void
document_changed_cb (OnyxRecent *self)
{
  if (onyx_view_state_get_document (self->state) != NULL)
    add_file (self, onyx_view_state_get_file (self->state));
}

static void
stepped_cb (OnyxRecent *self, const OnyxChange *change)
{
  if (change == NULL && onyx_view_state_get_file (self->state) != NULL)
    add_file (self, onyx_view_state_get_file (self->state));
}

static void
onyx_recent_dispose (GObject *object)
{
  OnyxRecent *self = ONYX_RECENT (object);

  g_clear_object (&self->state);
  g_clear_object (&self->settings);
  g_clear_object (&self->list);
  g_clear_object (&self->group);
  g_clear_object (&self->menu);
  G_OBJECT_CLASS (onyx_recent_parent_class)->dispose (object);
}

static void
onyx_recent_class_init (OnyxRecentClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = onyx_recent_dispose;
}

static void
onyx_recent_init (OnyxRecent *self)
{
}

OnyxRecent *
onyx_recent_new (OnyxViewState *state, GtkWidget *group, GtkListBox *list, GMenu *menu)
{
  OnyxRecent *self = g_object_new (ONYX_TYPE_RECENT, NULL);

  self->state = g_object_ref (state);
  self->settings = g_object_ref (onyx_view_state_get_settings (state));
  self->group = g_object_ref (group);
  self->list = g_object_ref (list);
  self->menu = g_object_ref (menu);
  g_signal_connect_object (self->settings, "changed::recent-models", G_CALLBACK (recent_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings, "changed::recent-models-limit", G_CALLBACK (recent_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "notify::document", G_CALLBACK (document_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "stepped", G_CALLBACK (stepped_cb), self, G_CONNECT_SWAPPED);
  recent_changed_cb (self);
  return self;
}
