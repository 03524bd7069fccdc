/* onyx-files.c: opening a model (onyx-files.h): read in a job with its first
 * shapes, problems and layout engine, then shown; or the reason it cannot be. And
 * drops, and the Open and Open Recent actions. */
#include "onyx-files-private.h"

#include <glib/gi18n.h>

#include "onyx-analysis.h"
#include "onyx-dialogs.h"

G_DEFINE_FINAL_TYPE (OnyxFiles, onyx_files, G_TYPE_SIMPLE_ACTION_GROUP)

/* What a job makes of a file: the document with its first shapes, its problems and
 * the layout engine, all before the window sees them (load, inference and the
 * checks take a few hundred ms on a 13k-node model). */
typedef struct {
  char *path;
  OnyxDocument *document;
  OnyxProblemList *problems;
  OnyxLayoutEngine *engine;
} Opening;

static void
opening_free (Opening *opening)
{
  g_free (opening->path);
  g_clear_pointer (&opening->problems, onyx_problem_list_free);
  g_clear_object (&opening->document);
  g_clear_pointer (&opening->engine, onyx_layout_engine_free);
  g_free (opening);
}

static gpointer
open_model (OnyxJob *job, gpointer data, GError **error)
{
  Opening *opening = data;

  opening->document = onyx_document_open_for_view (opening->path, &opening->problems, &opening->engine, error);
  return opening->document != NULL ? opening : NULL;
}

/* What follows an open once the model is shown (a main-loop turn after the first
 * layout's started): the graph asked for at start-up (--graph) once the model is
 * there to find it in, and the journal a crash left. */
static gboolean
opened_cb (gpointer data)
{
  OnyxFiles *self = data;
  g_autoptr (GError) error = NULL;
  g_autofree char *graph = g_steal_pointer (&self->graph);

  self->opened = 0;
  if (graph != NULL && !onyx_view_state_show_graph_named (self->state, graph, &error))
    onyx_view_state_toast (self->state, error->message, FALSE);
  onyx_files_offer_restore (self);
  return G_SOURCE_REMOVE;
}

static void
opened (OnyxJob *job, gpointer result, const GError *error, gpointer owner)
{
  OnyxFiles *self = owner;
  Opening *opening = result;

  self->opening = NULL;
  if (opening == NULL)
    {
      g_clear_pointer (&self->graph, g_free);
      onyx_view_state_set_failed (self->state, error->message);
      return;
    }
  onyx_view_state_set_document (self->state, opening->document, g_steal_pointer (&opening->problems),
                                g_steal_pointer (&opening->engine));
  self->opened = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, opened_cb, self, NULL);
}

void
onyx_files_open (OnyxFiles *self, GFile *file, const char *graph)
{
  g_autofree char *path = g_file_get_path (file);
  OnyxJobSpec spec = { .owner = self, .work = open_model, .data_free = (GDestroyNotify) opening_free,
                       .done = opened };
  Opening *opening;

  g_return_if_fail (ONYX_IS_FILES (self));
  /* Another file was being opened: it is dropped when its job is done. */
  if (self->opening != NULL)
    onyx_job_drop (g_steal_pointer (&self->opening));
  g_clear_handle_id (&self->opened, g_source_remove);
  g_free (self->graph);
  self->graph = g_strdup (graph);
  onyx_view_state_set_opening (self->state, file);
  if (path == NULL)
    {
      onyx_view_state_set_failed (self->state, _("Only local files can be opened"));
      return;
    }
  opening = g_new0 (Opening, 1);
  opening->path = g_steal_pointer (&path);
  spec.data = opening;
  self->opening = onyx_jobs_start (onyx_view_state_get_jobs (self->state), &spec);
}

gboolean
onyx_files_is_opening (OnyxFiles *self)
{
  /* An open ends once what follows it (the graph asked for) is done. */
  return self->opening != NULL || self->opened != 0;
}

/* ---- Open, Open Recent, drops ---- */

static void
open_pending (gpointer data)
{
  OnyxFiles *self = data;
  g_autoptr (GFile) file = g_steal_pointer (&self->pending_open);

  if (file != NULL)
    onyx_files_open (self, file, NULL);
}

/* Opens `file` here once unsaved changes are saved or discarded. */
static void
open_confirmed (OnyxFiles *self, GFile *file)
{
  g_set_object (&self->pending_open, file);
  onyx_files_confirm_discard (self, open_pending, self);
}

static void
open_chooser_response_cb (GtkNativeDialog *chooser, int response, OnyxFiles *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GListModel) files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (chooser));

      /* The first file here, any others in windows of their own. */
      for (guint i = 0; i < g_list_model_get_n_items (files); i++)
        {
          g_autoptr (GFile) file = g_list_model_get_item (files, i);
          if (i == 0)
            onyx_files_open (self, file, NULL);
          else
            onyx_view_state_open_elsewhere (self->state, file);
        }
    }
  g_object_unref (chooser);
}

static void
show_open_chooser (gpointer data)
{
  OnyxFiles *self = data;
  GtkFileChooserNative *chooser = gtk_file_chooser_native_new (_("Open Model"), onyx_view_state_get_window (self->state),
                                                               GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));

  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (chooser), TRUE);
  onyx_add_onnx_filter (GTK_FILE_CHOOSER (chooser));
  g_signal_connect_object (chooser, "response", G_CALLBACK (open_chooser_response_cb), self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
open_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  onyx_files_confirm_discard (data, show_open_chooser, data);
}

static void
open_recent_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  g_autoptr (GFile) file = g_file_new_for_uri (g_variant_get_string (param, NULL));

  open_confirmed (data, file);
}

static gboolean
drop_cb (GtkDropTarget *target, const GValue *value, double x, double y, OnyxFiles *self)
{
  GSList *files;

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  files = gdk_file_list_get_files (g_value_get_boxed (value));
  if (files == NULL)
    return FALSE;
  for (GSList *l = files->next; l != NULL; l = l->next)
    onyx_view_state_open_elsewhere (self->state, l->data);
  open_confirmed (self, files->data);
  g_slist_free (files);
  return TRUE;
}

void
onyx_files_accept_drops (OnyxFiles *self, GtkWidget *widget)
{
  GtkDropTarget *target = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);

  g_signal_connect_object (target, "drop", G_CALLBACK (drop_cb), self, 0);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (target));
}

/* ---- The part ---- */

static void
onyx_files_dispose (GObject *object)
{
  OnyxFiles *self = ONYX_FILES (object);

  g_clear_handle_id (&self->opened, g_source_remove);
  if (self->state != NULL)
    onyx_jobs_drop_owner (onyx_view_state_get_jobs (self->state), self);
  self->opening = NULL;
  g_clear_object (&self->state);
  g_clear_object (&self->pending_open);
  g_clear_pointer (&self->graph, g_free);
  G_OBJECT_CLASS (onyx_files_parent_class)->dispose (object);
}

static void
onyx_files_class_init (OnyxFilesClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = onyx_files_dispose;
}

static void
onyx_files_init (OnyxFiles *self)
{
  static const GActionEntry entries[] = {
    { .name = "open", .activate = open_activated },
    { .name = "open-recent", .parameter_type = "s", .activate = open_recent_activated },
  };

  g_action_map_add_action_entries (G_ACTION_MAP (self), entries, G_N_ELEMENTS (entries), self);
  onyx_files_add_save_actions (self);
}

OnyxFiles *
onyx_files_new (OnyxViewState *state)
{
  OnyxFiles *self = g_object_new (ONYX_TYPE_FILES, NULL);

  self->state = g_object_ref (state);
  onyx_files_follow_document (self);
  onyx_files_follow_journal (self);
  return self;
}
