/* onyx-files-save.c: saving the model in a job (after a look at its problems) and
 * asking what to do with unsaved changes before they would be lost. */
#include "onyx-files-private.h"

#include <glib/gi18n.h>

#include "onyx-dialogs.h"
#include "onyx-validate.h"

/* A save under way: what is written and the file it goes to. */
typedef struct {
  OnyxSaving *saving;
  GFile *file;
} Saving;

static void
saving_free (Saving *saving)
{
  if (saving->saving != NULL)
    onyx_saving_finish (saving->saving, FALSE);
  g_object_unref (saving->file);
  g_free (saving);
}

/* External data copied into another folder: gigabytes take a while. */
static void
save_progress (guint64 done, guint64 total, gpointer job)
{
  onyx_job_set_progress (job, total > 0 ? (double) done / (double) total : 1);
}

static gpointer
write_model (OnyxJob *job, gpointer data, GError **error)
{
  Saving *saving = data;

  return onyx_saving_write (saving->saving, save_progress, job, error) ? saving : NULL;
}

static void
written (OnyxJob *job, gpointer result, const GError *error, gpointer owner)
{
  OnyxFiles *self = owner;
  OnyxDocument *document = onyx_job_get_document (job);
  Saving *saving = onyx_job_get_data (job);
  OnyxFilesThen then = self->after_save;
  /* Another model may be shown by now (the document was kept for the save). */
  gboolean shown = document == onyx_view_state_get_document (self->state);

  self->after_save = NULL;
  /* The file it is from now on, before it is marked saved: the recent models list
   * the one saved. */
  if (result != NULL && shown)
    onyx_view_state_set_file (self->state, saving->file);
  /* Editable again (and marked saved when written) before anything is shown. */
  onyx_saving_finish (g_steal_pointer (&saving->saving), result != NULL);
  if (result == NULL)
    {
      onyx_show_error (onyx_view_state_get_window (self->state), _("Could Not Save the Model"), error->message);
      return;
    }
  if (!shown)
    return;
  onyx_view_state_toast (self->state, _("Saved"), FALSE);
  if (then != NULL)
    then (self->after_save_data);
}

/* Writes in a job (the document is frozen meanwhile); a toast says when it is
 * done, and after_save, if set, follows. */
static gboolean
write_file (OnyxFiles *self, GFile *file)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *name = NULL, *label = NULL;
  OnyxJobSpec spec = { .document = document, .owner = self, .work = write_model,
                       .data_free = (GDestroyNotify) saving_free, .done = written };
  Saving *saving;

  if (path == NULL)
    {
      self->after_save = NULL;
      onyx_show_error (onyx_view_state_get_window (self->state), _("Could Not Save the Model"),
                       _("Only local files can be saved"));
      return FALSE;
    }
  name = g_file_get_basename (file);
  label = g_strdup_printf (_("Saving %s"), name);
  saving = g_new0 (Saving, 1);
  saving->saving = onyx_document_begin_save (document, path);
  saving->file = g_object_ref (file);
  spec.label = label;
  spec.data = saving;
  onyx_jobs_start (onyx_view_state_get_jobs (self->state), &spec);
  return TRUE;
}

static void
problems_response_cb (AdwMessageDialog *dialog, const char *response, OnyxFiles *self)
{
  GFile *file = g_object_get_data (G_OBJECT (dialog), "file");

  if (g_str_equal (response, "save"))
    write_file (self, file);
  else
    self->after_save = NULL;
}

gboolean
onyx_files_save (OnyxFiles *self, GFile *file)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  g_autoptr (GPtrArray) problems = NULL;
  g_autoptr (GString) text = g_string_new (NULL);
  AdwMessageDialog *dialog;
  guint shown = 0;

  g_return_val_if_fail (document != NULL, FALSE);
  problems = onyx_validate_model (onyx_document_get_proto (document));
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
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (onyx_view_state_get_window (self->state),
                               _("The Model Has Problems"), NULL));
  adw_message_dialog_set_body (dialog, g_strchomp (text->str));
  adw_message_dialog_add_responses (dialog, "cancel", _("_Cancel"), "save", _("Save _Anyway"), NULL);
  adw_message_dialog_set_response_appearance (dialog, "save", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (dialog, "cancel");
  g_object_set_data_full (G_OBJECT (dialog), "file", g_object_ref (file), g_object_unref);
  g_signal_connect_object (dialog, "response", G_CALLBACK (problems_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
  return FALSE;
}

/* ---- Unsaved changes ---- */

static void
discard_response_cb (AdwMessageDialog *dialog, const char *response, OnyxFiles *self)
{
  OnyxFilesThen then = (OnyxFilesThen) g_object_get_data (G_OBJECT (dialog), "then");
  gpointer data = g_object_get_data (G_OBJECT (dialog), "then-data");
  GFile *file = onyx_view_state_get_file (self->state);

  /* The dialog outlives this handler, and `then` may close the window: detach it, or
   * it would let go of a finalized parent later. */
  gtk_window_set_transient_for (GTK_WINDOW (dialog), NULL);
  if (g_str_equal (response, "discard"))
    {
      onyx_files_discard_journal (self);
      then (data);
    }
  else if (g_str_equal (response, "save") && file != NULL)
    {
      /* write_file continues with `then` once the file is written. */
      self->after_save = then;
      self->after_save_data = data;
      onyx_files_save (self, file);
    }
}

void
onyx_files_confirm_discard (OnyxFiles *self, OnyxFilesThen then, gpointer data)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  AdwMessageDialog *dialog;

  if (document == NULL || !onyx_document_is_modified (document))
    {
      then (data);
      return;
    }
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (onyx_view_state_get_window (self->state), _("Save Changes?"),
                               _("The model has unsaved changes. Changes which are not saved will be lost.")));
  adw_message_dialog_add_responses (dialog, "cancel", _("_Cancel"), "discard", _("_Discard"),
                                    "save", _("_Save"), NULL);
  adw_message_dialog_set_response_appearance (dialog, "discard", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (dialog, "save", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (dialog, "save");
  adw_message_dialog_set_close_response (dialog, "cancel");
  g_object_set_data (G_OBJECT (dialog), "then", then);
  g_object_set_data (G_OBJECT (dialog), "then-data", data);
  g_signal_connect_object (dialog, "response", G_CALLBACK (discard_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ---- Save, Save As ---- */

static void
save_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxFiles *self = data;
  GFile *file = onyx_view_state_get_file (self->state);

  if (file != NULL)
    onyx_files_save (self, file);
}

static gboolean
save_as_file (gpointer self, GFile *file, GError **error)
{
  onyx_files_save (self, file);
  return TRUE;
}

static void
save_as_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxFiles *self = data;
  GFile *model = onyx_view_state_get_file (self->state);
  GtkFileChooserNative *chooser = onyx_file_chooser_new (onyx_view_state_get_window (self->state), NULL,
                                                         _("Save Model As"), _("_Save"),
                                                         GTK_FILE_CHOOSER_ACTION_SAVE);
  g_autofree char *base = model != NULL ? g_file_get_basename (model) : g_strdup ("model.onnx");

  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), base);
  onyx_add_onnx_filter (GTK_FILE_CHOOSER (chooser));
  onyx_file_chooser_run (chooser, save_as_file, self, _("Could Not Save the Model"));
}

/* A thread reads the document (a save, a diff): no other save. */
static void
update_actions (OnyxFiles *self)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  gboolean can = document != NULL && !onyx_document_is_frozen (document);

  for (const char *const *name = (const char *const[]) { "save", "save-as", NULL }; *name; name++)
    g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self), *name)), can);
}

static void
document_changed_cb (OnyxFiles *self)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);

  if (document != NULL)
    g_signal_connect_object (document, "notify::frozen", G_CALLBACK (update_actions), self, G_CONNECT_SWAPPED);
  update_actions (self);
}

void
onyx_files_add_save_actions (OnyxFiles *self)
{
  static const GActionEntry entries[] = {
    { .name = "save", .activate = save_activated },
    { .name = "save-as", .activate = save_as_activated },
  };

  g_action_map_add_action_entries (G_ACTION_MAP (self), entries, G_N_ELEMENTS (entries), self);
}

void
onyx_files_follow_document (OnyxFiles *self)
{
  g_signal_connect_object (self->state, "notify::document", G_CALLBACK (document_changed_cb), self,
                           G_CONNECT_SWAPPED);
  update_actions (self);
}
