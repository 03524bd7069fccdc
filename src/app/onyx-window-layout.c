/* onyx-window-layout.c: laying the graph out off the UI thread. One GTask at a time
 * runs onyx_layout_engine_run (libgvc is not thread-safe); a layout asked for while
 * one runs waits for it, and a progress bar shows after 300 ms. The graph must not
 * change meanwhile, so edits are disabled while a layout runs. */
#include "onyx-window-private.h"

#include <glib/gi18n.h>

typedef struct {
  OnyxLayoutEngine *engine;
  GHashTable *expanded;
  int *progress_permille;
} LayoutJob;

static void
layout_job_free (LayoutJob *job)
{
  g_hash_table_unref (job->expanded);
  g_free (job);
}

static void
layout_progress (double fraction, gpointer data)
{
  g_atomic_int_set ((int *) data, (int) (fraction * 1000));
}

static void
layout_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  LayoutJob *job = data;
  OnyxLayout *layout = onyx_layout_engine_run (job->engine, job->expanded, layout_progress,
                                               job->progress_permille, cancellable);

  if (layout == NULL)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "cancelled");
  else
    g_task_return_pointer (task, layout, (GDestroyNotify) onyx_layout_free);
}

static gboolean
progress_tick (gpointer data)
{
  OnyxWindow *self = data;

  gtk_progress_bar_set_fraction (self->progress_bar, g_atomic_int_get (&self->progress_permille) / 1000.0);
  /* Small graphs finish before the progress box would just flicker. */
  gtk_revealer_set_reveal_child (self->progress_revealer, TRUE);
  return G_SOURCE_CONTINUE;
}

static void
layout_done (GObject *source, GAsyncResult *result, gpointer data)
{
  OnyxWindow *self = ONYX_WINDOW (source);
  g_autoptr (GError) error = NULL;
  OnyxLayout *layout = g_task_propagate_pointer (G_TASK (result), &error);

  g_clear_object (&self->layout_cancellable);
  g_clear_handle_id (&self->progress_source, g_source_remove);
  gtk_revealer_set_reveal_child (self->progress_revealer, FALSE);
  if (layout != NULL)
    {
      onyx_canvas_set_layout (self->canvas, layout, self->layout_keep_view);
      onyx_window_sync_canvas_selection (self);
      onyx_window_compare_update_tints (self);
      onyx_window_run_update_tints (self);
      onyx_window_problems_update_badges (self);
    }
  else if (self->document != NULL && !self->layout_pending && !self->layout_quiet)
    onyx_window_toast (self, _("Layout cancelled"), FALSE);
  if (self->layout_pending && self->document != NULL)
    {
      self->layout_pending = FALSE;
      onyx_window_relayout (self, self->layout_keep_view);
    }
  onyx_window_update_state (self);
}

void
onyx_window_relayout (OnyxWindow *self, gboolean keep_view)
{
  g_autoptr (GTask) task = NULL;
  LayoutJob *job;

  if (self->engine == NULL)
    return;
  if (self->layout_cancellable != NULL)
    {
      self->layout_pending = TRUE;
      self->layout_keep_view = self->layout_keep_view && keep_view;
      return;
    }
  /* No worker reads the engine now: it may rebuild its items for the setting. */
  onyx_layout_engine_set_fold_constants (self->engine, g_settings_get_boolean (self->settings, "fold-constants"));
  onyx_layout_engine_set_shapes (self->engine, onyx_document_get_shapes (self->document));
  g_ptr_array_add (self->expanded, NULL);
  g_ptr_array_add (self->collapsed, NULL);
  job = g_new0 (LayoutJob, 1);
  job->engine = self->engine;
  /* The schema's GroupExpansion nicks auto/top-level/all are OnyxExpandMode's order. */
  job->expanded = onyx_layout_engine_expansion (self->engine,
                                                g_settings_get_enum (self->settings, "group-expansion"),
                                                (const char *const *) self->expanded->pdata,
                                                (const char *const *) self->collapsed->pdata);
  g_ptr_array_remove_index (self->expanded, self->expanded->len - 1);
  g_ptr_array_remove_index (self->collapsed, self->collapsed->len - 1);
  job->progress_permille = &self->progress_permille;
  self->progress_permille = 0;
  self->layout_keep_view = keep_view;
  self->layout_cancellable = g_cancellable_new ();
  self->progress_source = g_timeout_add (300, progress_tick, self);

  task = g_task_new (self, self->layout_cancellable, layout_done, NULL);
  g_task_set_task_data (task, job, (GDestroyNotify) layout_job_free);
  g_task_set_return_on_cancel (task, FALSE);
  g_task_run_in_thread (task, layout_thread);
  onyx_window_update_state (self);
}

gboolean
onyx_window_is_laying_out (OnyxWindow *self)
{
  return self->layout_cancellable != NULL;
}

void
onyx_window_layout_wait (OnyxWindow *self)
{
  /* The engine must outlive a cancelled run; cancelling makes it return soon. */
  while (self->layout_cancellable != NULL)
    g_main_context_iteration (NULL, TRUE);
}
