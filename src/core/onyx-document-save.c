/* onyx-document-save.c: writing an OnyxDocument out, to a file or to memory. */
#include "onyx-document-private.h"

#include <gio/gio.h>

/* value_info of tensors that no node produces or reads any more is left out of the
 * saved file (temporarily swapped out of the graph while it is written). */
static GPtrArray *
live_value_info (OnyxDocument *self)
{
  OnyxGraphIndex *index = onyx_document_get_index (self);
  Onnx__GraphProto *graph = onyx_graph_index_get_graph (index);
  GPtrArray *kept = g_ptr_array_new ();

  for (size_t i = 0; i < graph->n_value_info; i++)
    {
      const char *name = graph->value_info[i]->name;
      if (onyx_graph_index_lookup (index, name) != NULL ||
          onyx_graph_index_defines (index, name) ||
          onyx_graph_index_graph_output (index, name) != NULL)
        g_ptr_array_add (kept, graph->value_info[i]);
    }
  return kept;
}

typedef struct {
  Onnx__GraphProto *graph;
  Onnx__ValueInfoProto **saved_items;
  size_t saved_count;
  GPtrArray *kept;
} ValueInfoSwap;

static void
swap_in_live_value_info (OnyxDocument *self, ValueInfoSwap *swap)
{
  swap->graph = onyx_graph_index_get_graph (onyx_document_get_index (self));
  swap->kept = live_value_info (self);
  swap->saved_items = swap->graph->value_info;
  swap->saved_count = swap->graph->n_value_info;
  swap->graph->value_info = (Onnx__ValueInfoProto **) swap->kept->pdata;
  swap->graph->n_value_info = swap->kept->len;
}

static void
swap_back_value_info (ValueInfoSwap *swap)
{
  swap->graph->value_info = swap->saved_items;
  swap->graph->n_value_info = swap->saved_count;
  g_ptr_array_unref (swap->kept);
}

gboolean
onyx_document_save (OnyxDocument *self, const char *path, GError **error)
{
  ValueInfoSwap swap;
  gboolean ok;

  g_return_val_if_fail (ONYX_IS_DOCUMENT (self) && !onyx_document_is_recording (self), FALSE);
  swap_in_live_value_info (self, &swap);
  ok = onyx_model_save (onyx_document_get_model (self), path, error);
  swap_back_value_info (&swap);
  if (ok)
    onyx_document_mark_saved (self);
  return ok;
}

GBytes *
onyx_document_serialize (OnyxDocument *self)
{
  ValueInfoSwap swap;
  GBytes *bytes;

  swap_in_live_value_info (self, &swap);
  bytes = onyx_model_serialize (onyx_document_get_model (self));
  swap_back_value_info (&swap);
  return bytes;
}

/* A save whose writing is done elsewhere: the live value_info is swapped in on the
 * document's thread and stays so, the document frozen, until it is finished. */
struct _OnyxSaving {
  OnyxDocument *document;
  char *path;
  ValueInfoSwap swap;
};

OnyxSaving *
onyx_document_begin_save (OnyxDocument *self, const char *path)
{
  OnyxSaving *saving;

  g_return_val_if_fail (ONYX_IS_DOCUMENT (self) && !onyx_document_is_recording (self), NULL);
  saving = g_new0 (OnyxSaving, 1);
  saving->document = g_object_ref (self);
  saving->path = g_strdup (path);
  swap_in_live_value_info (self, &saving->swap);
  onyx_document_freeze (self);
  return saving;
}

gboolean
onyx_saving_write (OnyxSaving *saving, OnyxProgressFunc progress, gpointer progress_data, GError **error)
{
  return onyx_model_save_with_progress (onyx_document_get_model (saving->document), saving->path, progress,
                                        progress_data, error);
}

void
onyx_saving_finish (OnyxSaving *saving, gboolean written)
{
  OnyxDocument *document = saving->document;

  swap_back_value_info (&saving->swap);
  /* Editable again before "changed" is emitted for the saved mark. */
  onyx_document_thaw (document);
  if (written)
    onyx_document_mark_saved (document);
  g_free (saving->path);
  g_free (saving);
  g_object_unref (document);
}

/* onyx_document_save_async: the writing in a thread of the core's own, its progress
 * handed to the caller's main context once a percent. */
typedef struct {
  OnyxSaving *saving;
  GTask *task;                  /* not a reference: the job is the task's data */
  OnyxProgressFunc progress;
  gpointer progress_data;
  int percent_shown;            /* the thread's last reported percent */
} SaveJob;

typedef struct {
  GTask *task;
  guint64 done, total;
} SaveProgress;

static void
save_progress_free (SaveProgress *progress)
{
  g_object_unref (progress->task);
  g_free (progress);
}

/* On the caller's main context; none once the callback has run (the caller's data
 * may be gone by then). */
static gboolean
save_progress_show (gpointer data)
{
  SaveProgress *progress = data;
  SaveJob *job = g_task_get_task_data (progress->task);

  if (!g_task_get_completed (progress->task) && job != NULL)
    job->progress (progress->done, progress->total, job->progress_data);
  return G_SOURCE_REMOVE;
}

/* In the thread: handed over once a percent. */
static void
save_progress (guint64 done, guint64 total, gpointer data)
{
  SaveJob *job = data;
  int percent = total > 0 ? (int) (done * 100 / total) : 100;
  SaveProgress *progress;

  if (percent == job->percent_shown)
    return;
  job->percent_shown = percent;
  progress = g_new (SaveProgress, 1);
  progress->task = g_object_ref (job->task);
  progress->done = done;
  progress->total = total;
  g_main_context_invoke_full (g_task_get_context (job->task), G_PRIORITY_DEFAULT, save_progress_show, progress,
                              (GDestroyNotify) save_progress_free);
}

static void
save_job_free (SaveJob *job)
{
  if (job->saving != NULL)
    onyx_saving_finish (job->saving, FALSE);
  g_free (job);
}

static void
save_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  SaveJob *job = data;
  GError *error = NULL;

  if (onyx_saving_write (job->saving, job->progress != NULL ? save_progress : NULL, job, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
onyx_document_save_async (OnyxDocument *self, const char *path, OnyxProgressFunc progress, gpointer progress_data,
                          GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  SaveJob *job;

  g_return_if_fail (ONYX_IS_DOCUMENT (self) && !onyx_document_is_recording (self));
  task = g_task_new (self, NULL, callback, user_data);
  job = g_new0 (SaveJob, 1);
  job->saving = onyx_document_begin_save (self, path);
  job->task = task;
  job->progress = progress;
  job->progress_data = progress_data;
  job->percent_shown = -1;
  g_task_set_task_data (task, job, (GDestroyNotify) save_job_free);
  g_task_run_in_thread (task, save_thread);
}

gboolean
onyx_document_save_finish (OnyxDocument *self, GAsyncResult *result, GError **error)
{
  SaveJob *job;
  gboolean written;

  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  job = g_task_get_task_data (G_TASK (result));
  written = g_task_propagate_boolean (G_TASK (result), error);
  onyx_saving_finish (g_steal_pointer (&job->saving), written);
  return written;
}
