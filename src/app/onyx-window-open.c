/* onyx-window-open.c: opening a model: read in a thread with its first shapes, problems
 * and layout engine, then shown; or the reason it cannot be. */
#include "onyx-window-private.h"

#include <glib/gi18n.h>

void
onyx_window_close_document (OnyxWindow *self)
{
  g_clear_handle_id (&self->follow_change, g_source_remove);
  onyx_window_run_reset (self);
  onyx_window_compare_stop (self);
  onyx_window_problems_detach (self);
  onyx_layout_session_set_graph (self->layout, NULL, NULL);
  onyx_canvas_set_layout (self->canvas, NULL, FALSE);
  onyx_properties_clear (self->properties);
  if (self->document != NULL)
    g_signal_handlers_disconnect_by_data (self->document, self);
  self->selection = ONYX_SELECTION_MODEL;
  self->selected_node = NULL;
  g_clear_pointer (&self->selected_tensor, g_free);
}

/* What a thread makes of a file: the document with its first shapes, its problems
 * and the layout engine, all before the window sees them (load, inference and
 * diagnostics take a few hundred ms on a 13k-node model). */
typedef struct {
  char *path;
  char *graph;                    /* the graph to show once opened (NULL: main) */
  OnyxDocument *document;
  OnyxProblemList *diagnostics;
  OnyxLayoutEngine *engine;
} Opening;

static void
opening_free (Opening *opening)
{
  g_free (opening->path);
  g_free (opening->graph);
  g_clear_pointer (&opening->diagnostics, onyx_problem_list_free);
  g_clear_object (&opening->document);
  g_clear_pointer (&opening->engine, onyx_layout_engine_free);
  g_free (opening);
}

static gpointer
diagnose_thread (gpointer document)
{
  return onyx_problem_list_new (document);
}

static void
open_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Opening *opening = data;
  GError *error = NULL;
  GThread *diagnosing;

  /* The first view labels edges with shapes: they are inferred while it loads. */
  opening->document = onyx_document_open_with_shapes (opening->path, &error);
  if (opening->document == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  /* Both only read the model, each for about 50 ms on a 13k-node graph: side by side. */
  diagnosing = g_thread_try_new ("onyx-diagnose", diagnose_thread, opening->document, NULL);
  opening->engine = onyx_layout_engine_new (onyx_document_get_proto (opening->document)->graph);
  opening->diagnostics = diagnosing != NULL ? g_thread_join (diagnosing) : onyx_problem_list_new (opening->document);
  g_task_return_boolean (task, TRUE);
}

static void
show_open_error (OnyxWindow *self, const char *message)
{
  /* The description is markup; file names may hold "<" or "&". */
  g_autofree char *markup = g_markup_escape_text (message, -1);

  adw_status_page_set_description (self->error_page, markup);
  gtk_stack_set_visible_child_name (self->stack, "error");
  g_clear_object (&self->file);
  onyx_window_update_title (self);
  gtk_window_set_title (GTK_WINDOW (self), _("Could Not Open the Model"));
  onyx_window_update_state (self);
}

/* What the window shows of a model it opened, once its layout has started. */
typedef struct {
  OnyxWindow *window;
  GCancellable *cancellable;      /* the open's: another open or closing drops it */
  OnyxProblemList *diagnostics;
  char *graph;
} Showing;

static void
showing_free (Showing *showing)
{
  g_object_unref (showing->window);
  g_object_unref (showing->cancellable);
  g_clear_pointer (&showing->diagnostics, onyx_problem_list_free);
  g_free (showing->graph);
  g_free (showing);
}

/* The Problems list and the model's panel (20 ms and more on a big model) come in a
 * main-loop turn of their own, after the first layout's thread started and after
 * input; the open ends here. */
static gboolean
show_opened (gpointer data)
{
  Showing *showing = data;
  OnyxWindow *self = showing->window;

  if (showing->cancellable != self->open_cancellable)
    return G_SOURCE_REMOVE;
  g_clear_object (&self->open_cancellable);
  /* Before the panel is filled: it shows the node's problems. */
  onyx_window_problems_attach (self, g_steal_pointer (&showing->diagnostics));
  onyx_window_select_model (self);
  /* A graph asked for at start-up (--graph) once the model is there to find it in. */
  if (showing->graph != NULL)
    gtk_widget_activate_action (GTK_WIDGET (self), "win.open-graph", "s", showing->graph);
  onyx_window_journal_offer_restore (self);
  return G_SOURCE_REMOVE;
}

static void
open_done (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (OnyxWindow) self = data;
  g_autoptr (GError) error = NULL;
  Opening *opening = g_task_get_task_data (G_TASK (result));
  Showing *showing;

  /* Another file was opened meanwhile, or the window closed. */
  if (g_task_get_cancellable (G_TASK (result)) != self->open_cancellable)
    return;
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_clear_object (&self->open_cancellable);
      show_open_error (self, error->message);
      return;
    }
  self->document = g_steal_pointer (&opening->document);
  onyx_window_notify_document (self);
  onyx_layout_session_set_graph (self->layout, self->document, g_steal_pointer (&opening->engine));
  /* The first layout's thread starts before the window's parts are filled. */
  onyx_layout_session_relayout (self->layout, FALSE);
  /* (its OnyxProblemList, made in the thread, follow "changed" before this) */
  onyx_window_follow_document (self);
  onyx_window_recent_add (self, self->file);
  gtk_stack_set_visible_child_name (self->stack, "model");
  gtk_widget_grab_focus (GTK_WIDGET (self->canvas));
  showing = g_new0 (Showing, 1);
  showing->window = g_object_ref (self);
  showing->cancellable = g_object_ref (self->open_cancellable);
  showing->diagnostics = g_steal_pointer (&opening->diagnostics);
  showing->graph = g_steal_pointer (&opening->graph);
  g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, show_opened, showing, (GDestroyNotify) showing_free);
}

void
onyx_window_open_file (OnyxWindow *self, GFile *file)
{
  onyx_window_open_file_at (self, file, NULL);
}

void
onyx_window_open_file_at (OnyxWindow *self, GFile *file, const char *graph)
{
  g_autofree char *path = g_file_get_path (file);
  g_autoptr (GTask) task = NULL;
  Opening *opening;

  g_return_if_fail (ONYX_IS_WINDOW (self));
  onyx_window_close_document (self);
  onyx_window_graphs_reset (self);
  if (self->document != NULL)
    {
      g_clear_object (&self->document);
      onyx_window_notify_document (self);
    }
  g_set_object (&self->file, file);
  if (self->open_cancellable != NULL)
    g_cancellable_cancel (self->open_cancellable);
  g_clear_object (&self->open_cancellable);
  if (path == NULL)
    {
      show_open_error (self, _("Only local files can be opened"));
      return;
    }
  opening = g_new0 (Opening, 1);
  opening->path = g_steal_pointer (&path);
  opening->graph = g_strdup (graph);
  self->open_cancellable = g_cancellable_new ();
  onyx_window_update_title (self);
  gtk_stack_set_visible_child_name (self->stack, "opening");
  task = g_task_new (NULL, self->open_cancellable, open_done, g_object_ref (self));
  g_task_set_task_data (task, opening, (GDestroyNotify) opening_free);
  g_task_run_in_thread (task, open_thread);
  onyx_window_update_state (self);
}

gboolean
onyx_window_is_opening (OnyxWindow *self)
{
  return self->open_cancellable != NULL;
}

