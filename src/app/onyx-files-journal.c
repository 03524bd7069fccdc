/* onyx-files-journal.c: no lost work. After every step the document's unsaved edits
 * are written to a journal in the XDG state folder (the core's onyx-journal.h), on
 * the disk queue's thread; saving or discarding removes it. Opening a model that has
 * a journal left by a crash offers to replay those edits on it. */
#include "onyx-files-private.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "onyx-disk-queue.h"
#include "onyx-journal.h"

static char *
journal_path (OnyxFiles *self)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  const char *model_path;

  if (document == NULL)
    return NULL;
  model_path = onyx_model_get_path (onyx_document_get_model (document));
  return model_path != NULL ? onyx_journal_path_for (model_path) : NULL;
}

static void
journal_update (OnyxFiles *self)
{
  g_autofree char *path = journal_path (self);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) contents = NULL;

  if (path == NULL)
    return;
  contents = onyx_journal_serialize (onyx_view_state_get_document (self->state), &error);
  if (error != NULL)
    g_warning ("cannot keep the journal of unsaved edits: %s", error->message);
  else
    onyx_journal_store_later (path, contents);
}

void
onyx_files_discard_journal (OnyxFiles *self)
{
  g_autofree char *path = journal_path (self);

  if (path != NULL)
    onyx_journal_store_later (path, NULL);
}

/* Edits to replay, kept until no thread reads the document (a layout may run). */
typedef struct {
  OnyxFiles *files;
  OnyxDocument *document;
  OnyxJournal *journal;
} Restoring;

static gboolean
replay_when_free (gpointer data)
{
  Restoring *restoring = data;
  g_autoptr (GError) error = NULL;

  if (onyx_document_is_frozen (restoring->document))
    return G_SOURCE_CONTINUE;
  /* Another model was opened meanwhile: its journal is its own. */
  if (restoring->files->state != NULL && onyx_view_state_get_document (restoring->files->state) == restoring->document)
    {
      if (!onyx_journal_replay (restoring->journal, restoring->document, &error))
        onyx_view_state_toast (restoring->files->state, error->message, FALSE);
      else
        onyx_view_state_toast (restoring->files->state, _("Unsaved edits restored"), FALSE);
    }
  g_object_unref (restoring->files);
  g_object_unref (restoring->document);
  onyx_journal_free (restoring->journal);
  g_free (restoring);
  return G_SOURCE_REMOVE;
}

static void
restore_response_cb (AdwMessageDialog *dialog, const char *response, OnyxFiles *self)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  Restoring *restoring;

  if (document == NULL)
    return;
  if (!g_str_equal (response, "restore"))
    {
      onyx_files_discard_journal (self);
      return;
    }
  restoring = g_new0 (Restoring, 1);
  restoring->files = g_object_ref (self);
  restoring->document = g_object_ref (document);
  restoring->journal = g_object_steal_data (G_OBJECT (dialog), "journal");
  if (replay_when_free (restoring) == G_SOURCE_CONTINUE)
    g_timeout_add (50, replay_when_free, restoring);
}

void
onyx_files_offer_restore (OnyxFiles *self)
{
  g_autofree char *path = journal_path (self);
  g_autoptr (GError) error = NULL;
  g_autofree char *body = NULL;
  OnyxJournal *journal;
  AdwMessageDialog *dialog;

  if (path == NULL)
    return;
  /* A journal being written or removed is as its last write leaves it. */
  onyx_disk_queue_flush ();
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return;
  journal = onyx_journal_read (path, &error);
  /* Edits journaled against another version of the file would not apply to this one. */
  if (journal == NULL || !onyx_journal_matches (journal) || journal->entries->len == 0)
    {
      g_clear_pointer (&journal, onyx_journal_free);
      g_unlink (path);
      return;
    }
  body = g_strdup_printf (g_dngettext (NULL, "Onyx closed before %u edit of this model was saved.",
                                       "Onyx closed before %u edits of this model were saved.",
                                       journal->entries->len),
                          journal->entries->len);
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (onyx_view_state_get_window (self->state),
                                                       _("Restore Unsaved Edits?"), body));
  adw_message_dialog_add_responses (dialog, "discard", _("_Discard"), "restore", _("_Restore"), NULL);
  adw_message_dialog_set_response_appearance (dialog, "discard", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (dialog, "restore", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (dialog, "restore");
  adw_message_dialog_set_close_response (dialog, "discard");
  g_object_set_data_full (G_OBJECT (dialog), "journal", journal, (GDestroyNotify) onyx_journal_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (restore_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* After every step, undo and redo (a save removes it: nothing unsaved is left). */
void
onyx_files_follow_journal (OnyxFiles *self)
{
  g_signal_connect_object (self->state, "stepped", G_CALLBACK (journal_update), self, G_CONNECT_SWAPPED);
}
