/* onyx-window-save.c: saving the model in a thread (after a look at its problems)
 * and asking what to do with unsaved changes before they would be lost. */
#include "onyx-window-private.h"

#include <glib/gi18n.h>

#include "onyx-validate.h"

/* A save under way: the window's job and the file it writes. */
typedef struct {
  OnyxWindowJob *job;
  GFile *file;
} Saving;

/* External data copied into another folder: gigabytes take a while. */
static void
save_progress_cb (guint64 done, guint64 total, gpointer data)
{
  Saving *saving = data;

  onyx_window_job_set_progress (saving->job, total > 0 ? (double) done / (double) total : 1);
}

static void
written_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  Saving *saving = data;
  g_autoptr (OnyxWindow) self = onyx_window_job_end (saving->job);
  g_autoptr (GFile) file = saving->file;
  g_autoptr (GError) error = NULL;
  OnyxWindowThen then = self->after_save;

  g_free (saving);
  self->after_save = NULL;
  if (!onyx_document_save_finish (ONYX_DOCUMENT (source), result, &error))
    {
      onyx_window_update_state (self);
      onyx_window_show_error (self, _("Could Not Save the Model"), error->message);
      return;
    }
  /* Another model may be shown by now (the document was kept for the save). */
  if (ONYX_DOCUMENT (source) != self->document)
    return;
  g_set_object (&self->file, file);
  onyx_window_recent_add (self, file);
  onyx_window_update_state (self);
  onyx_window_toast (self, _("Saved"), FALSE);
  if (then != NULL)
    then (self);
}

/* Writes in a thread (the document is frozen meanwhile); a toast says when it is
 * done, and after_save, if set, follows. */
static gboolean
write_file (OnyxWindow *self, GFile *file)
{
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *name = NULL, *label = NULL;
  Saving *saving;

  if (path == NULL)
    {
      self->after_save = NULL;
      onyx_window_show_error (self, _("Could Not Save the Model"), _("Only local files can be saved"));
      return FALSE;
    }
  name = g_file_get_basename (file);
  label = g_strdup_printf (_("Saving %s"), name);
  saving = g_new (Saving, 1);
  saving->job = onyx_window_job_begin (self, label);
  saving->file = g_object_ref (file);
  onyx_document_save_async (self->document, path, save_progress_cb, saving, written_cb, saving);
  onyx_window_update_state (self);
  return TRUE;
}

static void
problems_response_cb (AdwMessageDialog *dialog, const char *response, OnyxWindow *self)
{
  GFile *file = g_object_get_data (G_OBJECT (dialog), "file");

  if (g_str_equal (response, "save"))
    write_file (self, file);
  else
    self->after_save = NULL;
}

gboolean
onyx_window_save_file (OnyxWindow *self, GFile *file)
{
  g_autoptr (GPtrArray) problems = NULL;
  g_autoptr (GString) text = g_string_new (NULL);
  AdwMessageDialog *dialog;
  guint shown = 0;

  g_return_val_if_fail (self->document != NULL, FALSE);
  problems = onyx_validate_model (onyx_document_get_proto (self->document));
  if (onyx_problems_count (problems, ONYX_PROBLEM_ERROR) == 0)
    return write_file (self, file);

  for (guint i = 0; i < problems->len && shown < 20; i++)
    {
      OnyxProblem *p = g_ptr_array_index (problems, i);
      if (p->severity != ONYX_PROBLEM_ERROR)
        continue;
      g_string_append_printf (text, "• %s\n", p->message);
      shown++;
    }
  if (onyx_problems_count (problems, ONYX_PROBLEM_ERROR) > shown)
    g_string_append_printf (text, _("…and %u more"), onyx_problems_count (problems, ONYX_PROBLEM_ERROR) - shown);
  /* What to do, not only what is wrong: the one defect with a repair of its own, then
   * the way past the rest. */
  g_string_append (text, "\n\n");
  for (guint i = 0; i < problems->len; i++)
    if (((OnyxProblem *) problems->pdata[i])->kind == ONYX_PROBLEM_NOT_SORTED)
      {
        g_string_append (text, _("Sort Nodes in the main menu puts the nodes in order. "));
        break;
      }
  g_string_append (text, _("Save Anyway writes the model with its errors; the Problems list shows them all."));
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self),
                               _("The Model Has Problems"), NULL));
  adw_message_dialog_set_body (dialog, g_strchomp (text->str));
  adw_message_dialog_add_responses (dialog, "cancel", _("_Cancel"), "save", _("Save _Anyway"), NULL);
  adw_message_dialog_set_response_appearance (dialog, "save", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (dialog, "cancel");
  g_object_set_data_full (G_OBJECT (dialog), "file", g_object_ref (file), g_object_unref);
  g_signal_connect (dialog, "response", G_CALLBACK (problems_response_cb), self);
  gtk_window_present (GTK_WINDOW (dialog));
  return FALSE;
}

/* ---- Unsaved changes ---- */

static void
discard_response_cb (AdwMessageDialog *dialog, const char *response, OnyxWindow *self)
{
  OnyxWindowThen then = (OnyxWindowThen) g_object_get_data (G_OBJECT (dialog), "then");

  /* The dialog outlives this handler, and `then` may close the window: detach it, or
   * it would let go of a finalized parent later. */
  gtk_window_set_transient_for (GTK_WINDOW (dialog), NULL);
  if (g_str_equal (response, "discard"))
    {
      onyx_window_journal_discard (self);
      then (self);
    }
  else if (g_str_equal (response, "save") && self->file != NULL)
    {
      /* write_file continues with `then` once the file is written. */
      self->after_save = then;
      onyx_window_save_file (self, self->file);
    }
}

void
onyx_window_confirm_discard (OnyxWindow *self, OnyxWindowThen then)
{
  AdwMessageDialog *dialog;

  if (self->document == NULL || !onyx_document_is_modified (self->document))
    {
      then (self);
      return;
    }
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), _("Save Changes?"),
                               _("The model has unsaved changes. Changes which are not saved will be lost.")));
  adw_message_dialog_add_responses (dialog, "cancel", _("_Cancel"), "discard", _("_Discard"),
                                    "save", _("_Save"), NULL);
  adw_message_dialog_set_response_appearance (dialog, "discard", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (dialog, "save", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (dialog, "save");
  adw_message_dialog_set_close_response (dialog, "cancel");
  g_object_set_data (G_OBJECT (dialog), "then", then);
  g_signal_connect (dialog, "response", G_CALLBACK (discard_response_cb), self);
  gtk_window_present (GTK_WINDOW (dialog));
}
