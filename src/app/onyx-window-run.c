/* onyx-window-run.c: Run with ONNX Runtime. The model as it is now (a snapshot: the
 * user goes on editing) runs in a thread that waits for Onyx's runtime helper, on
 * random inputs or arrays from an .npz, optionally compared with another model or
 * reference arrays; the Run pane shows the result and the graph is coloured by it.
 * Results are keyed by tensor name, so they stay meaningful across later edits. */
#include "onyx-window-private.h"

#include <glib/gi18n.h>

#include "onyx-onnx.h"
#include "onyx-run-pane.h"
#include "onyx-run-settings.h"

/* Run's part of the window: its pane, and what the runs were told. */
struct _OnyxWindowRun {
  GtkRevealer *revealer;
  OnyxRunPane *pane;
  struct _RunState *state;        /* NULL until the first run */
};

typedef struct _RunState RunState;
struct _RunState {
  GCancellable *cancellable;  /* of the run or repro under way */
  OnyxRunInputs how;          /* the inputs not given (Run Settings) */
  GPtrArray *given;           /* OnyxArray from "Run With Inputs…", or NULL: random */
  char *given_name;
  OnyxModel *compare_model;   /* what runs are compared with, or neither */
  GPtrArray *reference;
  char *compared_with;
  GPtrArray *last_inputs;     /* what the last run was fed, for a repro */
  OnyxModel *last_snapshot;   /* the model as it ran */
};

/* A run's work, in its thread. */
typedef struct {
  OnyxModel *snapshot;
  GPtrArray *inputs;
  OnyxModel *compare_model;
  GPtrArray *reference;
  char *until_node;           /* run only what this node needs, or NULL */
  int repro_node;             /* >= 0: save a repro of this node to repro_path */
  char *repro_path;
} RunJob;

static void
run_job_free (RunJob *job)
{
  g_clear_object (&job->snapshot);
  g_clear_pointer (&job->inputs, g_ptr_array_unref);
  g_clear_object (&job->compare_model);
  g_clear_pointer (&job->reference, g_ptr_array_unref);
  g_free (job->until_node);
  g_free (job->repro_path);
  g_free (job);
}

static RunState *
state (OnyxWindow *self)
{
  if (self->run->state == NULL)
    {
      self->run->state = g_new0 (RunState, 1);
      self->run->state->how = (OnyxRunInputs) { .fill = ONYX_RUN_FILL_RANDOM, .seed = 0, .low = 0, .high = 1 };
    }
  return self->run->state;
}

static void
clear_comparison (RunState *run)
{
  g_clear_object (&run->compare_model);
  g_clear_pointer (&run->reference, g_ptr_array_unref);
  g_clear_pointer (&run->compared_with, g_free);
}

void
onyx_window_run_reset (OnyxWindow *self)
{
  RunState *run = self->run->state;

  if (run == NULL)
    return;
  if (run->cancellable != NULL)
    {
      g_cancellable_cancel (run->cancellable);
      onyx_onnx_cancel (ONYX_ONNX_JOB_RUN);
    }
  g_clear_object (&run->cancellable);
  g_clear_pointer (&run->given, g_ptr_array_unref);
  g_clear_pointer (&run->given_name, g_free);
  clear_comparison (run);
  g_clear_pointer (&run->last_inputs, g_ptr_array_unref);
  g_clear_object (&run->last_snapshot);
  g_clear_pointer (&run->how.dims, g_hash_table_unref);
  g_clear_pointer (&self->run->state, g_free);
  gtk_revealer_set_reveal_child (self->run->revealer, FALSE);
  onyx_canvas_set_node_tints (self->canvas, NULL, 0);
  onyx_window_compare_update_tints (self);
}

gboolean
onyx_window_run_is_running (OnyxWindow *self)
{
  return self->run->state != NULL && self->run->state->cancellable != NULL;
}

/* ---- Colours ---- */

void
onyx_window_run_update_tints (OnyxWindow *self)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (self->canvas);
  OnyxLayoutEngine *engine = onyx_layout_session_get_engine (self->layout);
  Onnx__GraphProto *view;
  g_autofree int *box_of = NULL;
  g_autofree double *level = NULL;
  g_autofree gboolean *nonfinite = NULL, *rated = NULL;
  g_autofree GdkRGBA *tints = NULL;
  guint n;

  /* A layout on its way brings its own colours. */
  if (self->run->state == NULL || layout == NULL || onyx_run_pane_get_result (self->run->pane) == NULL ||
      engine == NULL)
    return;
  if (onyx_run_pane_get_color_by (self->run->pane) == ONYX_RUN_COLOR_NONE)
    {
      onyx_canvas_set_node_tints (self->canvas, NULL, 0);
      onyx_window_compare_update_tints (self);
      return;
    }
  view = onyx_window_get_graph (self);
  n = layout->nodes->len;
  box_of = onyx_layout_boxes_of_nodes (layout, engine);
  level = g_new (double, n);
  nonfinite = g_new0 (gboolean, n);
  rated = g_new0 (gboolean, n);
  /* A box showing several nodes (a closed group) takes the highest of them. */
  for (size_t i = 0; i < view->n_node; i++)
    {
      g_autofree const char **outputs = g_new0 (const char *, view->node[i]->n_output + 1);
      double node_level;
      gboolean node_nonfinite;
      int b = box_of[i];

      for (size_t k = 0; k < view->node[i]->n_output; k++)
        outputs[k] = view->node[i]->output[k];
      if (b < 0 || !onyx_run_pane_rate_node (self->run->pane, outputs, &node_level, &node_nonfinite))
        continue;
      level[b] = rated[b] ? MAX (level[b], node_level) : node_level;
      nonfinite[b] |= node_nonfinite;
      rated[b] = TRUE;
    }
  tints = g_new0 (GdkRGBA, n);
  for (guint b = 0; b < n; b++)
    if (nonfinite[b])
      onyx_run_pane_nonfinite_color (&tints[b]);
    else if (rated[b])
      onyx_run_pane_scale_color (level[b], &tints[b]);
  onyx_canvas_set_node_tints (self->canvas, tints, n);
}

/* The selected node's outputs (or the selected tensor) in the pane. */
void
onyx_window_run_selection_changed (OnyxWindow *self)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new ();

  if (self->run->state == NULL)
    return;
  if (self->selection == ONYX_SELECTION_NODE && self->selected_node != NULL)
    for (size_t k = 0; k < self->selected_node->n_output; k++)
      if (self->selected_node->output[k][0] != '\0')
        g_ptr_array_add (names, self->selected_node->output[k]);
  if (self->selection == ONYX_SELECTION_TENSOR && self->selected_tensor != NULL)
    g_ptr_array_add (names, self->selected_tensor);
  g_ptr_array_add (names, NULL);
  onyx_run_pane_show_tensors (self->run->pane, (const char *const *) names->pdata);
}

/* ---- Running ---- */

static void
run_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  RunJob *job = data;
  OnyxRunOptions options = { .all = TRUE, .compare_model = job->compare_model, .reference = job->reference,
                             .atol = ONYX_RUN_DEFAULT_ATOL, .rtol = ONYX_RUN_DEFAULT_RTOL,
                             .scale_rtol = ONYX_RUN_DEFAULT_SCALE_RTOL,
                             .until_node = job->until_node };
  GError *error = NULL;

  if (job->repro_node >= 0)
    {
      g_autofree char *npz = NULL;
      if (onyx_run_save_repro (job->snapshot, job->repro_node, job->inputs, job->repro_path, &npz, &error))
        g_task_return_pointer (task, g_steal_pointer (&npz), g_free);
      else
        g_task_return_error (task, error);
      return;
    }
  {
    OnyxRunResult *result = onyx_run_model (job->snapshot, job->inputs, &options, &error);
    if (result != NULL)
      g_task_return_pointer (task, result, (GDestroyNotify) onyx_run_result_free);
    else
      g_task_return_error (task, error);
  }
}

static gboolean
finished_run (OnyxWindow *self, GAsyncResult *result)
{
  /* Dropped when the window reset the run meanwhile (another model, closed pane). */
  if (self->run->state == NULL || self->run->state->cancellable != g_task_get_cancellable (G_TASK (result)))
    return FALSE;
  g_clear_object (&self->run->state->cancellable);
  onyx_window_update_state (self);
  return TRUE;
}

static void
run_done (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (OnyxWindow) self = data;
  g_autoptr (GError) error = NULL;
  OnyxRunResult *run_result = g_task_propagate_pointer (G_TASK (result), &error);

  if (!finished_run (self, result))
    {
      g_clear_pointer (&run_result, onyx_run_result_free);
      return;
    }
  if (run_result == NULL)
    {
      onyx_run_pane_set_error (self->run->pane, g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED)
                                                 ? _("The run was cancelled.") : error->message);
      onyx_canvas_set_node_tints (self->canvas, NULL, 0);
      return;
    }
  onyx_run_pane_set_result (self->run->pane, run_result, self->run->state->compared_with, ONYX_RUN_DEFAULT_ATOL);
  onyx_window_run_selection_changed (self);
  /* Go to First Divergence and Save Repro depend on the result. */
  onyx_window_update_state (self);
}

static void
start_task (OnyxWindow *self, RunJob *job, GAsyncReadyCallback done)
{
  RunState *run = state (self);
  g_autoptr (GTask) task = NULL;

  run->cancellable = g_cancellable_new ();
  task = g_task_new (NULL, run->cancellable, done, g_object_ref (self));
  g_task_set_task_data (task, job, (GDestroyNotify) run_job_free);
  g_task_run_in_thread (task, run_thread);
  onyx_window_update_state (self);
}

/* "Random inputs in [0, 1), seed 0; N = 1", "Inputs from model_foo.npz". */
static char *
describe_inputs (RunState *run, OnyxModel *model)
{
  g_autoptr (GPtrArray) dims = onyx_run_input_dim_params (onyx_model_get_proto (model)->graph);
  g_autoptr (GHashTable) sizes = onyx_run_plan_sizes (model, run->how.dims);
  GString *text = g_string_new (NULL);

  if (run->given_name != NULL)
    g_string_append_printf (text, _("Inputs from %s"), run->given_name);
  else if (run->how.fill == ONYX_RUN_FILL_ZEROS)
    g_string_append (text, _("Zeros as inputs"));
  else if (run->how.fill == ONYX_RUN_FILL_ONES)
    g_string_append (text, _("Ones as inputs"));
  else
    {
      g_autofree char *seed = g_strdup_printf ("%" G_GUINT64_FORMAT, run->how.seed);
      g_string_append_printf (text, _("Random inputs in [%g, %g), seed %s"), run->how.low, run->how.high, seed);
    }
  for (guint i = 0; i < dims->len; i++)
    {
      gpointer chosen;
      int size = g_hash_table_lookup_extended (sizes, dims->pdata[i], NULL, &chosen) ? GPOINTER_TO_INT (chosen) : 1;
      g_string_append_printf (text, "%s%s = %d", i == 0 ? "; " : ", ", (char *) dims->pdata[i], size);
    }
  return g_string_free (text, FALSE);
}

/* `until_node`: run only the part of the model that this node of the main graph
 * needs (NULL: all of it). */
static void
start_run (OnyxWindow *self, const char *until_node)
{
  RunState *run = state (self);
  g_autoptr (GError) error = NULL;
  g_autofree char *inputs_text = NULL;
  const char *unavailable;
  RunJob *job;

  g_return_if_fail (self->document != NULL && run->cancellable == NULL);
  gtk_revealer_set_reveal_child (self->run->revealer, TRUE);
  if (!onyx_run_available (&unavailable))
    {
      g_autofree char *message = g_strdup_printf (_("Onyx cannot run models: %s."), unavailable);
      onyx_run_pane_set_running (self->run->pane, "");
      onyx_run_pane_set_error (self->run->pane, message);
      onyx_window_update_state (self);
      return;
    }
  g_clear_object (&run->last_snapshot);
  g_clear_pointer (&run->last_inputs, g_ptr_array_unref);
  run->last_snapshot = onyx_model_snapshot (onyx_document_get_model (self->document));
  inputs_text = describe_inputs (run, run->last_snapshot);
  if (until_node != NULL)
    {
      g_autofree char *part = g_strdup_printf (_("Up to node %s"), until_node);
      g_autofree char *both = g_strdup_printf ("%s\n%s", inputs_text, part);
      g_free (inputs_text);
      inputs_text = g_steal_pointer (&both);
    }
  run->last_inputs = onyx_run_prepare_inputs (run->last_snapshot, run->given, &run->how, &error);
  if (run->last_inputs == NULL)
    {
      onyx_run_pane_set_running (self->run->pane, inputs_text);
      onyx_run_pane_set_error (self->run->pane, error->message);
      /* A picture of free size: asked for, where it is given. */
      if (g_error_matches (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_IMAGE_SIZE))
        onyx_window_run_show_settings (self);
      return;
    }
  onyx_run_pane_set_running (self->run->pane, inputs_text);
  job = g_new0 (RunJob, 1);
  job->snapshot = g_object_ref (run->last_snapshot);
  job->inputs = g_ptr_array_ref (run->last_inputs);
  job->compare_model = run->compare_model != NULL ? g_object_ref (run->compare_model) : NULL;
  job->reference = run->reference != NULL ? g_ptr_array_ref (run->reference) : NULL;
  job->until_node = g_strdup (until_node);
  job->repro_node = -1;
  start_task (self, job, run_done);
}

gboolean
onyx_window_run_with_inputs (OnyxWindow *self, GFile *file, GError **error)
{
  g_autofree char *path = g_file_get_path (file);
  GPtrArray *given;
  RunState *run;

  g_return_val_if_fail (self->document != NULL, FALSE);
  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("Only local files can be opened"));
      return FALSE;
    }
  if ((given = onyx_npz_read (path, error)) == NULL)
    return FALSE;
  onyx_run_keep_graph_inputs (onyx_document_get_model (self->document), given);
  run = state (self);
  g_clear_pointer (&run->given, g_ptr_array_unref);
  g_free (run->given_name);
  run->given = given;
  run->given_name = g_file_get_basename (file);
  if (!onyx_window_run_is_running (self))
    start_run (self, NULL);
  return TRUE;
}

gboolean
onyx_window_run_compare_with (OnyxWindow *self, GFile *file, GError **error)
{
  g_autofree char *path = g_file_get_path (file);
  OnyxModel *model;
  GPtrArray *reference;
  RunState *run;

  g_return_val_if_fail (self->document != NULL, FALSE);
  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("Only local files can be opened"));
      return FALSE;
    }
  if (!onyx_run_open_comparison (path, &model, &reference, error))
    return FALSE;
  run = state (self);
  clear_comparison (run);
  run->compare_model = model;
  run->reference = reference;
  run->compared_with = g_file_get_basename (file);
  if (!onyx_window_run_is_running (self))
    start_run (self, NULL);
  return TRUE;
}

/* ---- Going to the divergence, and its repro ---- */

static const char *
divergent_tensor (OnyxWindow *self)
{
  const OnyxRunResult *result = self->run->state != NULL ? onyx_run_pane_get_result (self->run->pane) : NULL;
  return result != NULL && result->first_divergence_delta != NULL ? result->first_divergence_delta->name : NULL;
}

gboolean
onyx_window_run_go_to_first_divergence (OnyxWindow *self)
{
  const char *tensor = divergent_tensor (self);
  OnyxValue *value;

  if (tensor == NULL || self->document == NULL)
    return FALSE;
  /* By its output's name: the model may have been edited since the run. */
  value = onyx_graph_index_lookup (onyx_document_get_index (self->document), tensor);
  if (value == NULL || value->producer == NULL)
    {
      onyx_window_toast (self, _("The node that diverged is no longer in the model"), FALSE);
      return FALSE;
    }
  onyx_window_select_node (self, value->producer);
  onyx_canvas_center_node (self->canvas, onyx_canvas_get_selected_node (self->canvas));
  return TRUE;
}

static void
repro_done (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (OnyxWindow) self = data;
  g_autoptr (GError) error = NULL;
  g_autofree char *npz = g_task_propagate_pointer (G_TASK (result), &error);
  g_autofree char *base = NULL, *message = NULL;

  if (!finished_run (self, result))
    return;
  if (npz == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        onyx_window_show_error (self, _("Could Not Save the Repro"), error->message);
      return;
    }
  base = g_path_get_basename (npz);
  message = g_strdup_printf (_("Saved the node with its inputs (%s)"), base);
  onyx_window_toast (self, message, FALSE);
}

gboolean
onyx_window_run_save_repro (OnyxWindow *self, GFile *file)
{
  RunState *run = self->run->state;
  /* The result is of last_snapshot: its node index is that model's. */
  const OnyxRunResult *result = run != NULL ? onyx_run_pane_get_result (self->run->pane) : NULL;
  RunJob *job;

  if (result == NULL || result->first_divergence < 0 || run->last_snapshot == NULL || run->cancellable != NULL)
    return FALSE;
  job = g_new0 (RunJob, 1);
  job->snapshot = g_object_ref (run->last_snapshot);
  job->inputs = g_ptr_array_ref (run->last_inputs);
  job->repro_node = result->first_divergence;
  job->repro_path = g_file_get_path (file);
  start_task (self, job, repro_done);
  return TRUE;
}

/* ---- Actions ---- */

typedef enum {
  CHOOSE_MODELS = 1 << 0,
  CHOOSE_ARRAYS = 1 << 1,
} ChooseKinds;

static void
add_filters (GtkFileChooser *chooser, ChooseKinds kinds)
{
  g_autoptr (GtkFileFilter) arrays = gtk_file_filter_new ();

  if (kinds == (CHOOSE_MODELS | CHOOSE_ARRAYS))
    {
      g_autoptr (GtkFileFilter) both = gtk_file_filter_new ();
      gtk_file_filter_set_name (both, _("ONNX Models and NumPy Arrays"));
      gtk_file_filter_add_suffix (both, "onnx");
      gtk_file_filter_add_suffix (both, "npz");
      gtk_file_chooser_add_filter (chooser, both);
    }
  if (kinds & CHOOSE_MODELS)
    onyx_window_add_onnx_filter (chooser);
  if (kinds & CHOOSE_ARRAYS)
    {
      gtk_file_filter_set_name (arrays, _("NumPy Arrays (.npz)"));
      gtk_file_filter_add_suffix (arrays, "npz");
      gtk_file_chooser_add_filter (chooser, arrays);
    }
}

static gboolean
save_repro_file (OnyxWindow *self, GFile *file, GError **error)
{
  if (onyx_window_run_save_repro (self, file))
    return TRUE;
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("There is no divergent node to save."));
  return FALSE;
}

static void
choose_file (OnyxWindow *self, const char *title, const char *accept, ChooseKinds kinds, OnyxWindowFileFunc func)
{
  gboolean save = func == save_repro_file;
  GtkFileChooserNative *chooser = onyx_window_file_chooser_new (self, title, accept,
                                    save ? GTK_FILE_CHOOSER_ACTION_SAVE : GTK_FILE_CHOOSER_ACTION_OPEN, func,
                                    save ? _("Could Not Save the Repro") : _("Could Not Open the File"));

  add_filters (GTK_FILE_CHOOSER (chooser), kinds);
  if (save)
    gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), "repro.onnx");
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
run_action (GtkWidget *widget, const char *name, GVariant *param)
{
  start_run (ONYX_WINDOW (widget), NULL);
}

/* The selected node of the main graph, when it has a name to run up to. */
static const char *
selected_main_node (OnyxWindow *self)
{
  Onnx__NodeProto *node = self->selection == ONYX_SELECTION_NODE ? self->selected_node : NULL;

  if (node == NULL || self->document == NULL || node->name == NULL || node->name[0] == '\0' ||
      onyx_document_graph_of_node (self->document, node) != onyx_document_get_proto (self->document)->graph)
    return NULL;
  return node->name;
}

static void
run_until_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);
  const char *node = selected_main_node (self);

  if (node != NULL)
    start_run (self, node);
}

static void
settings_run_cb (OnyxRunSettings *dialog, OnyxWindow *self)
{
  RunState *run = state (self);

  g_clear_pointer (&run->how.dims, g_hash_table_unref);
  onyx_run_settings_get_inputs (dialog, &run->how);
  if (!onyx_window_run_is_running (self) && self->document != NULL)
    start_run (self, NULL);
}

OnyxRunSettings *
onyx_window_run_show_settings (OnyxWindow *self)
{
  OnyxRunSettings *dialog;

  g_return_val_if_fail (self->document != NULL, NULL);
  dialog = onyx_run_settings_new (GTK_WINDOW (self), onyx_document_get_model (self->document), &state (self)->how);
  g_signal_connect_object (dialog, "run", G_CALLBACK (settings_run_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
  return dialog;
}

static void
run_settings_action (GtkWidget *widget, const char *name, GVariant *param)
{
  onyx_window_run_show_settings (ONYX_WINDOW (widget));
}

static void
run_with_inputs_action (GtkWidget *widget, const char *name, GVariant *param)
{
  choose_file (ONYX_WINDOW (widget), _("Run With Inputs"), _("_Run"), CHOOSE_ARRAYS, onyx_window_run_with_inputs);
}

static void
run_compare_action (GtkWidget *widget, const char *name, GVariant *param)
{
  /* A reference .npz of a PyTorch run is as likely as another model. */
  choose_file (ONYX_WINDOW (widget), _("Compare Run With Model or Reference Arrays"), _("C_ompare"),
               CHOOSE_MODELS | CHOOSE_ARRAYS, onyx_window_run_compare_with);
}

static void
run_cancel_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);

  if (onyx_window_run_is_running (self))
    {
      g_cancellable_cancel (self->run->state->cancellable);
      onyx_onnx_cancel (ONYX_ONNX_JOB_RUN);
    }
}

static void
run_first_divergence_action (GtkWidget *widget, const char *name, GVariant *param)
{
  onyx_window_run_go_to_first_divergence (ONYX_WINDOW (widget));
}

static void
run_repro_action (GtkWidget *widget, const char *name, GVariant *param)
{
  choose_file (ONYX_WINDOW (widget), _("Save Repro of the Divergent Node"), _("_Save"), CHOOSE_MODELS,
               save_repro_file);
}

static void
run_close_action (GtkWidget *widget, const char *name, GVariant *param)
{
  onyx_window_run_reset (ONYX_WINDOW (widget));
  onyx_window_update_state (ONYX_WINDOW (widget));
}

void
onyx_window_run_update_state (OnyxWindow *self, gboolean doc)
{
  GtkWidget *widget = GTK_WIDGET (self);
  gboolean available = onyx_run_available (NULL);
  gboolean idle = doc && available && !onyx_window_run_is_running (self);
  gboolean diverged = idle && divergent_tensor (self) != NULL;

  /* Without ONNX Runtime, Run says why in the pane; the rest is hidden. */
  gtk_widget_action_set_enabled (widget, "win.run", doc && !onyx_window_run_is_running (self));
  gtk_widget_action_set_enabled (widget, "win.run-with-inputs", idle);
  gtk_widget_action_set_enabled (widget, "win.run-settings", idle);
  gtk_widget_action_set_enabled (widget, "win.run-until", idle && selected_main_node (self) != NULL);
  gtk_widget_action_set_enabled (widget, "win.run-compare", idle);
  gtk_widget_action_set_enabled (widget, "win.run-cancel", onyx_window_run_is_running (self));
  gtk_widget_action_set_enabled (widget, "win.run-first-divergence", diverged);
  gtk_widget_action_set_enabled (widget, "win.run-repro", diverged);
  gtk_widget_action_set_enabled (widget, "win.run-close", self->run->state != NULL);
}

void
onyx_window_class_init_run (GtkWidgetClass *widget_class)
{
  g_type_ensure (ONYX_TYPE_RUN_PANE);
  gtk_widget_class_bind_template_child_full (widget_class, "run_revealer", FALSE, 0);
  gtk_widget_class_bind_template_child_full (widget_class, "run_pane", FALSE, 0);
  gtk_widget_class_install_action (widget_class, "win.run", NULL, run_action);
  gtk_widget_class_install_action (widget_class, "win.run-with-inputs", NULL, run_with_inputs_action);
  gtk_widget_class_install_action (widget_class, "win.run-settings", NULL, run_settings_action);
  gtk_widget_class_install_action (widget_class, "win.run-until", NULL, run_until_action);
  gtk_widget_class_install_action (widget_class, "win.run-compare", NULL, run_compare_action);
  gtk_widget_class_install_action (widget_class, "win.run-cancel", NULL, run_cancel_action);
  gtk_widget_class_install_action (widget_class, "win.run-first-divergence", NULL, run_first_divergence_action);
  gtk_widget_class_install_action (widget_class, "win.run-repro", NULL, run_repro_action);
  gtk_widget_class_install_action (widget_class, "win.run-close", NULL, run_close_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F5, 0, "win.run", NULL);
}

/* An edge's tooltip says what the last run made of its tensor. */
static char *
tensor_note (const char *tensor, gpointer data)
{
  OnyxWindow *self = data;

  return self->run->state != NULL ? onyx_run_pane_describe_tensor (self->run->pane, tensor) : NULL;
}

void
onyx_window_init_run (OnyxWindow *self)
{
  self->run = g_new0 (OnyxWindowRun, 1);
  self->run->revealer = GTK_REVEALER (onyx_window_template_child (self, "run_revealer"));
  self->run->pane = ONYX_RUN_PANE (onyx_window_template_child (self, "run_pane"));
  onyx_canvas_set_tensor_note (self->canvas, tensor_note, self);
  g_signal_connect_swapped (self->run->pane, "notify::color-by", G_CALLBACK (onyx_window_run_update_tints), self);
}
