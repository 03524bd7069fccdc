/* onyx-run-pane-runs.c: Run with ONNX Runtime. The model as it is now (a snapshot:
 * the user goes on editing) runs in a job that waits for Onyx's runtime helper, on
 * random inputs or arrays from an .npz, optionally compared with another model or
 * reference arrays; the pane shows the result and the graph is coloured by it (the
 * view state's run tints). Results are keyed by tensor name, so they stay
 * meaningful across later edits. */
#include "onyx-run-pane-private.h"

#include <glib/gi18n.h>

#include "onyx-dialogs.h"
#include "onyx-onnx.h"
#include "onyx-quant.h"
#include "onyx-run-settings.h"

typedef struct _RunState RunState;
struct _RunState {
  OnyxJob *job;               /* the run or repro under way */
  GPtrArray *given;           /* OnyxArray from "Run With Inputs…", or NULL: random */
  char *given_name;
  OnyxModel *compare_model;   /* what runs are compared with, or neither */
  GPtrArray *reference;
  char *compared_with;
  GPtrArray *last_inputs;     /* what the last run was fed, for a repro */
  OnyxModel *last_snapshot;   /* the model as it ran */
};
/* A run's work, in its job. */
typedef struct {
  OnyxModel *snapshot;
  GPtrArray *inputs;
  OnyxModel *compare_model;
  GPtrArray *reference;
  char *until_node;           /* run only what this node needs, or NULL */
  int repro_node;             /* >= 0: save a repro of this node to repro_path */
  char *repro_path;
  /* How the inputs were made: a run ONNX Runtime fails at says the sizes chosen. */
  OnyxRunInputs made;         /* dims: a reference */
  GPtrArray *given;
  OnyxQuantAccuracy *accuracy;  /* made by the run of a quantized model against its float twin */
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
  g_clear_pointer (&job->made.dims, g_hash_table_unref);
  g_clear_pointer (&job->given, g_ptr_array_unref);
  g_clear_pointer (&job->accuracy, onyx_quant_accuracy_free);
  g_free (job);
}

static RunState *
run_state (OnyxRunPane *self)
{
  if (self->run == NULL)
    self->run = g_new0 (RunState, 1);
  return self->run;
}

static void
clear_comparison (RunState *run)
{
  g_clear_object (&run->compare_model);
  g_clear_pointer (&run->reference, g_ptr_array_unref);
  g_clear_pointer (&run->compared_with, g_free);
}

gboolean
onyx_run_pane_is_running (OnyxRunPane *self)
{
  return self->run != NULL && self->run->job != NULL;
}

void
onyx_run_pane_reset (OnyxRunPane *self)
{
  RunState *run = self->run;

  if (run == NULL)
    return;
  if (run->job != NULL)
    {
      onyx_job_drop (run->job);
      onyx_onnx_cancel (ONYX_ONNX_JOB_RUN);
    }
  g_clear_pointer (&run->given, g_ptr_array_unref);
  g_clear_pointer (&run->given_name, g_free);
  clear_comparison (run);
  g_clear_pointer (&run->last_inputs, g_ptr_array_unref);
  g_clear_object (&run->last_snapshot);
  g_clear_pointer (&self->run, g_free);
  onyx_run_pane_set_revealed (self, FALSE);
  if (self->state != NULL)
    onyx_view_state_set_tints (self->state, ONYX_TINT_RUN, NULL, 0);
  onyx_run_pane_update_actions (self);
}

/* ---- Colours ---- */

static void
update_tints (OnyxRunPane *self)
{
  const OnyxLayout *layout = onyx_view_state_get_layout (self->state);
  OnyxLayoutEngine *engine = onyx_view_state_get_engine (self->state);
  Onnx__GraphProto *view;
  g_autofree int *box_of = NULL;
  g_autofree double *level = NULL;
  g_autofree gboolean *nonfinite = NULL, *rated = NULL;
  g_autofree GdkRGBA *tints = NULL;
  guint n;

  /* A layout on its way brings its own colours. */
  if (self->run == NULL || layout == NULL || onyx_run_pane_get_result (self) == NULL || engine == NULL)
    return;
  if (onyx_run_pane_get_color_by (self) == ONYX_RUN_COLOR_NONE)
    {
      onyx_view_state_set_tints (self->state, ONYX_TINT_RUN, NULL, 0);
      return;
    }
  view = onyx_view_state_get_graph (self->state);
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
      if (b < 0 || !onyx_run_pane_rate_node (self, outputs, &node_level, &node_nonfinite))
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
  onyx_view_state_set_tints (self->state, ONYX_TINT_RUN, tints, n);
}

/* The selected node's outputs (or the selected tensor) in the pane. */
static void
selection_changed_cb (OnyxRunPane *self)
{
  Onnx__NodeProto *node = onyx_view_state_get_selected_node (self->state);
  const char *tensor = onyx_view_state_get_selected_tensor (self->state);
  g_autoptr (GPtrArray) names = g_ptr_array_new ();

  onyx_run_pane_update_actions (self);
  if (self->run == NULL)
    return;
  for (size_t k = 0; node != NULL && k < node->n_output; k++)
    if (node->output[k][0] != '\0')
      g_ptr_array_add (names, node->output[k]);
  if (tensor != NULL)
    g_ptr_array_add (names, (gpointer) tensor);
  g_ptr_array_add (names, NULL);
  onyx_run_pane_show_tensors (self, (const char *const *) names->pdata);
}

/* ---- Running ---- */

static gpointer
run (OnyxJob *job, gpointer data, GError **error)
{
  RunJob *work = data;
  OnyxRunOptions options = { .all = TRUE, .compare_model = work->compare_model, .reference = work->reference,
                             .atol = ONYX_RUN_DEFAULT_ATOL, .rtol = ONYX_RUN_DEFAULT_RTOL,
                             .scale_rtol = ONYX_RUN_DEFAULT_SCALE_RTOL,
                             .until_node = work->until_node, .made = &work->made, .given = work->given };
  g_autofree char *npz = NULL;
  g_auto (GStrv) pairs = NULL, dequantize = NULL;
  OnyxRunResult *result;

  /* A quantized model against its float twin: each layer's value as its readers see
   * it, integers dequantized (as onyx-cli run --compare does). */
  if (work->compare_model != NULL && work->until_node == NULL)
    pairs = onyx_quant_accuracy_pairs (work->snapshot, work->compare_model, &dequantize);
  options.pairs = (const char *const *) pairs;
  options.dequantize = (const char *const *) dequantize;
  if (work->repro_node < 0)
    {
      result = onyx_run_model (work->snapshot, work->inputs, &options, error);
      if (result != NULL && pairs != NULL)
        work->accuracy = onyx_quant_accuracy_new (work->snapshot, result, ONYX_QUANT_DEFAULT_SQNR_DB);
      return result;
    }
  if (!onyx_run_save_repro (work->snapshot, work->repro_node, work->inputs, work->repro_path, &npz, error))
    return NULL;
  return g_steal_pointer (&npz);
}

static gboolean
finished_run (OnyxRunPane *self, OnyxJob *job)
{
  /* A job the pane dropped (another model, a closed pane) never ends here. */
  g_return_val_if_fail (self->run != NULL && self->run->job == job, FALSE);
  self->run->job = NULL;
  onyx_run_pane_update_actions (self);
  return TRUE;
}

static void
run_done (OnyxJob *job, gpointer result, const GError *error, gpointer owner)
{
  OnyxRunPane *self = owner;
  RunJob *work = onyx_job_get_data (job);

  if (!finished_run (self, job))
    return;
  if (error != NULL)
    {
      onyx_run_pane_set_error (self, g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED)
                                       ? _("The run was cancelled.") : error->message);
      onyx_view_state_set_tints (self->state, ONYX_TINT_RUN, NULL, 0);
      return;
    }
  onyx_run_pane_set_result (self, onyx_job_take_result (job), work->snapshot, self->run->compared_with,
                            ONYX_RUN_DEFAULT_ATOL);
  if (work->accuracy != NULL)
    onyx_run_pane_set_accuracy (self, g_steal_pointer (&work->accuracy));
  selection_changed_cb (self);
  update_tints (self);
  /* Go to First Divergence and Save Repro depend on the result. */
  onyx_run_pane_update_actions (self);
}

static void
start_job (OnyxRunPane *self, RunJob *work, OnyxJobDone done, GDestroyNotify result_free)
{
  OnyxJobSpec spec = { .document = onyx_view_state_get_document (self->state), .owner = self, .work = run,
                       .data = work, .data_free = (GDestroyNotify) run_job_free, .result_free = result_free,
                       .done = done };

  run_state (self)->job = onyx_jobs_start (onyx_view_state_get_jobs (self->state), &spec);
  onyx_run_pane_update_actions (self);
}

/* "Random inputs in [0, 1), seed 0; N = 1", "Inputs from model_foo.npz". */
static char *
describe_inputs (RunState *run, const OnyxRunInputs *how, OnyxModel *model)
{
  g_autoptr (GPtrArray) dims = onyx_run_input_dim_params (onyx_model_get_proto (model)->graph);
  g_autoptr (GHashTable) sizes = onyx_run_plan_sizes (model, how->dims);
  GString *text = g_string_new (NULL);

  if (run->given_name != NULL)
    g_string_append_printf (text, _("Inputs from %s"), run->given_name);
  else if (how->fill == ONYX_RUN_FILL_ZEROS)
    g_string_append (text, _("Zeros as inputs"));
  else if (how->fill == ONYX_RUN_FILL_ONES)
    g_string_append (text, _("Ones as inputs"));
  else
    {
      g_autofree char *seed = g_strdup_printf ("%" G_GUINT64_FORMAT, how->seed);
      g_string_append_printf (text, _("Random inputs in [%g, %g), seed %s"), how->low, how->high, seed);
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
start_run (OnyxRunPane *self, const char *until_node)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  RunState *run = run_state (self);
  g_autoptr (GError) error = NULL;
  g_autofree char *inputs_text = NULL;
  const char *unavailable;
  RunJob *job;

  g_return_if_fail (document != NULL && run->job == NULL);
  onyx_run_pane_set_revealed (self, TRUE);
  if (!onyx_run_available (&unavailable))
    {
      g_autofree char *message = g_strdup_printf (_("Onyx cannot run models: %s."), unavailable);
      onyx_run_pane_set_running (self, "");
      onyx_run_pane_set_error (self, message);
      onyx_run_pane_update_actions (self);
      return;
    }
  g_clear_object (&run->last_snapshot);
  g_clear_pointer (&run->last_inputs, g_ptr_array_unref);
  run->last_snapshot = onyx_model_snapshot (onyx_document_get_model (document));
  inputs_text = describe_inputs (run, onyx_view_state_get_run_inputs (self->state), run->last_snapshot);
  if (until_node != NULL)
    {
      g_autofree char *part = g_strdup_printf (_("Up to node %s"), until_node);
      g_autofree char *both = g_strdup_printf ("%s\n%s", inputs_text, part);
      g_free (inputs_text);
      inputs_text = g_steal_pointer (&both);
    }
  run->last_inputs = onyx_run_prepare_inputs (run->last_snapshot, run->given,
                                              onyx_view_state_get_run_inputs (self->state), &error);
  if (run->last_inputs == NULL)
    {
      onyx_run_pane_set_running (self, inputs_text);
      onyx_run_pane_set_error (self, error->message);
      /* A picture of free size: asked for, where it is given. */
      if (g_error_matches (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_IMAGE_SIZE))
        onyx_run_pane_show_settings (self);
      return;
    }
  onyx_run_pane_set_running (self, inputs_text);
  job = g_new0 (RunJob, 1);
  job->snapshot = g_object_ref (run->last_snapshot);
  job->inputs = g_ptr_array_ref (run->last_inputs);
  job->compare_model = run->compare_model != NULL ? g_object_ref (run->compare_model) : NULL;
  job->reference = run->reference != NULL ? g_ptr_array_ref (run->reference) : NULL;
  job->until_node = g_strdup (until_node);
  job->repro_node = -1;
  job->made = *onyx_view_state_get_run_inputs (self->state);
  job->made.dims = job->made.dims != NULL ? g_hash_table_ref (job->made.dims) : NULL;
  job->given = run->given != NULL ? g_ptr_array_ref (run->given) : NULL;
  start_job (self, job, run_done, (GDestroyNotify) onyx_run_result_free);
}

gboolean
onyx_run_pane_run_with_inputs (OnyxRunPane *self, GFile *file, GError **error)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  g_autofree char *path = g_file_get_path (file);
  GPtrArray *given;
  RunState *run;

  g_return_val_if_fail (document != NULL, FALSE);
  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("Only local files can be opened"));
      return FALSE;
    }
  if ((given = onyx_npz_read (path, error)) == NULL)
    return FALSE;
  onyx_run_keep_graph_inputs (onyx_document_get_model (document), given);
  run = run_state (self);
  g_clear_pointer (&run->given, g_ptr_array_unref);
  g_free (run->given_name);
  run->given = given;
  run->given_name = g_file_get_basename (file);
  if (!onyx_run_pane_is_running (self))
    start_run (self, NULL);
  return TRUE;
}

gboolean
onyx_run_pane_compare_with (OnyxRunPane *self, GFile *file, GError **error)
{
  g_autofree char *path = g_file_get_path (file);
  OnyxModel *model;
  GPtrArray *reference;
  RunState *run;

  g_return_val_if_fail (onyx_view_state_get_document (self->state) != NULL, FALSE);
  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("Only local files can be opened"));
      return FALSE;
    }
  if (!onyx_run_open_comparison (path, &model, &reference, error))
    return FALSE;
  run = run_state (self);
  clear_comparison (run);
  run->compare_model = model;
  run->reference = reference;
  run->compared_with = g_file_get_basename (file);
  if (!onyx_run_pane_is_running (self))
    start_run (self, NULL);
  return TRUE;
}

/* ---- Going to the divergence, and its repro ---- */

int
onyx_run_pane_divergence (OnyxRunPane *self, const char **tensor)
{
  const OnyxRunResult *result = onyx_run_pane_get_result (self);
  const OnyxQuantAccuracy *accuracy = onyx_run_pane_get_accuracy (self);
  const OnyxQuantLayer *below = accuracy != NULL ? accuracy->first_below : NULL;

  *tensor = NULL;
  if (result == NULL)
    return -1;
  /* A quantized model parts from its float twin at its first layer: where it loses
   * is its first layer under the threshold, by the layer's own output. */
  if (accuracy != NULL)
    {
      if (below == NULL || below->node->n_output == 0)
        return -1;
      *tensor = below->node->output[0];
      return (int) below->index;
    }
  if (result->first_divergence_delta == NULL)
    return -1;
  *tensor = result->first_divergence_delta->name;
  return result->first_divergence;
}

gboolean
onyx_run_pane_go_to_first_divergence (OnyxRunPane *self)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  const char *tensor;
  OnyxValue *value;

  if (onyx_run_pane_divergence (self, &tensor) < 0 || document == NULL)
    return FALSE;
  /* By its output's name: the model may have been edited since the run. */
  value = onyx_graph_index_lookup (onyx_document_get_index (document), tensor);
  if (value == NULL || value->producer == NULL)
    {
      onyx_view_state_toast (self->state, _("The node that diverged is no longer in the model"), FALSE);
      return FALSE;
    }
  onyx_view_state_select_node (self->state, value->producer);
  onyx_view_state_reveal (self->state, ONYX_REVEAL_CENTER);
  return TRUE;
}

static void
repro_done (OnyxJob *job, gpointer result, const GError *error, gpointer owner)
{
  OnyxRunPane *self = owner;
  g_autofree char *base = NULL, *message = NULL;

  if (!finished_run (self, job))
    return;
  if (error != NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        onyx_show_error (onyx_view_state_get_window (self->state), _("Could Not Save the Repro"), error->message);
      return;
    }
  base = g_path_get_basename (result);
  message = g_strdup_printf (_("Saved the node with its inputs (%s)"), base);
  onyx_view_state_toast (self->state, message, FALSE);
}

gboolean
onyx_run_pane_save_repro (OnyxRunPane *self, GFile *file)
{
  RunState *run = self->run;
  /* The result is of last_snapshot: its node index is that model's. */
  const char *tensor;
  int node = onyx_run_pane_divergence (self, &tensor);
  RunJob *job;

  if (run == NULL || node < 0 || run->last_snapshot == NULL || run->job != NULL)
    return FALSE;
  job = g_new0 (RunJob, 1);
  job->snapshot = g_object_ref (run->last_snapshot);
  job->inputs = g_ptr_array_ref (run->last_inputs);
  job->repro_node = node;
  job->repro_path = g_file_get_path (file);
  start_job (self, job, repro_done, g_free);
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
    onyx_add_onnx_filter (chooser);
  if (kinds & CHOOSE_ARRAYS)
    {
      gtk_file_filter_set_name (arrays, _("NumPy Arrays (.npz)"));
      gtk_file_filter_add_suffix (arrays, "npz");
      gtk_file_chooser_add_filter (chooser, arrays);
    }
}

static gboolean
save_repro_file (gpointer self, GFile *file, GError **error)
{
  if (onyx_run_pane_save_repro (self, file))
    return TRUE;
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("There is no divergent node to save."));
  return FALSE;
}

static gboolean
run_with_inputs_file (gpointer self, GFile *file, GError **error)
{
  return onyx_run_pane_run_with_inputs (self, file, error);
}

static gboolean
compare_with_file (gpointer self, GFile *file, GError **error)
{
  return onyx_run_pane_compare_with (self, file, error);
}

static void
choose_file (OnyxRunPane *self, const char *title, const char *accept, ChooseKinds kinds, OnyxFileFunc func)
{
  gboolean save = func == save_repro_file;
  GtkFileChooserNative *chooser = onyx_file_chooser_new (onyx_view_state_get_window (self->state),
                                                         onyx_view_state_get_file (self->state), title, accept,
                                                         save ? GTK_FILE_CHOOSER_ACTION_SAVE
                                                              : GTK_FILE_CHOOSER_ACTION_OPEN);

  add_filters (GTK_FILE_CHOOSER (chooser), kinds);
  if (save)
    gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), "repro.onnx");
  onyx_file_chooser_run (chooser, func, self, save ? _("Could Not Save the Repro") : _("Could Not Open the File"));
}

/* The selected node of the main graph, when it has a name to run up to. */
static const char *
selected_main_node (OnyxRunPane *self)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  Onnx__NodeProto *node = onyx_view_state_get_selected_node (self->state);

  if (node == NULL || document == NULL || node->name == NULL || node->name[0] == '\0' ||
      onyx_document_graph_of_node (document, node) != onyx_document_get_proto (document)->graph)
    return NULL;
  return node->name;
}

static void
start_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  start_run (data, NULL);
}

static void
until_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  const char *node = selected_main_node (data);

  if (node != NULL)
    start_run (data, node);
}

static void
settings_run_cb (OnyxRunSettings *dialog, OnyxRunPane *self)
{
  OnyxRunInputs how;

  onyx_run_settings_get_inputs (dialog, &how);
  onyx_view_state_set_run_inputs (self->state, &how);
  g_clear_pointer (&how.dims, g_hash_table_unref);
  if (!onyx_run_pane_is_running (self) && onyx_view_state_get_document (self->state) != NULL)
    start_run (self, NULL);
}

OnyxRunSettings *
onyx_run_pane_show_settings (OnyxRunPane *self)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  OnyxRunSettings *dialog;

  g_return_val_if_fail (document != NULL, NULL);
  dialog = onyx_run_settings_new (onyx_view_state_get_window (self->state), onyx_document_get_model (document),
                                  onyx_view_state_get_run_inputs (self->state));
  g_signal_connect_object (dialog, "run", G_CALLBACK (settings_run_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
  return dialog;
}

static void
settings_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  onyx_run_pane_show_settings (data);
}

static void
with_inputs_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  choose_file (data, _("Run With Inputs"), _("_Run"), CHOOSE_ARRAYS, run_with_inputs_file);
}

static void
compare_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  /* A reference .npz of a PyTorch run is as likely as another model. */
  choose_file (data, _("Compare Run With Model or Reference Arrays"), _("C_ompare"),
               CHOOSE_MODELS | CHOOSE_ARRAYS, compare_with_file);
}

static void
cancel_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxRunPane *self = data;

  if (onyx_run_pane_is_running (self))
    {
      onyx_job_cancel (self->run->job);
      onyx_onnx_cancel (ONYX_ONNX_JOB_RUN);
    }
}

static void
first_divergence_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  onyx_run_pane_go_to_first_divergence (data);
}

static void
repro_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  choose_file (data, _("Save Repro of the Divergent Node"), _("_Save"), CHOOSE_MODELS, save_repro_file);
}

static void
close_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  onyx_run_pane_reset (data);
}

static void
enable (OnyxRunPane *self, const char *name, gboolean enabled)
{
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self->actions), name)),
                               enabled);
}

void
onyx_run_pane_update_actions (OnyxRunPane *self)
{
  gboolean doc = self->state != NULL && onyx_view_state_get_document (self->state) != NULL;
  gboolean running = onyx_run_pane_is_running (self);
  gboolean available = onyx_run_available (NULL);
  gboolean idle = doc && available && !running;
  const char *tensor;
  gboolean diverged = idle && onyx_run_pane_divergence (self, &tensor) >= 0;

  /* Without ONNX Runtime, Run says why in the pane; the rest is hidden. */
  enable (self, "start", doc && !running);
  enable (self, "with-inputs", idle);
  enable (self, "settings", idle);
  enable (self, "until", idle && selected_main_node (self) != NULL);
  enable (self, "compare", idle);
  enable (self, "cancel", running);
  enable (self, "first-divergence", diverged);
  enable (self, "repro", diverged);
  enable (self, "close", self->run != NULL);
}

/* An edge's tooltip says what the last run made of its tensor. */
static char *
tensor_note (const char *tensor, gpointer data)
{
  OnyxRunPane *self = data;

  return self->run != NULL ? onyx_run_pane_describe_tensor (self, tensor) : NULL;
}

/* Another model (or none): the runs were of the other one. */
static void
document_changed_cb (OnyxRunPane *self)
{
  onyx_run_pane_reset (self);
  onyx_run_pane_update_actions (self);
}

void
onyx_run_pane_set_state (OnyxRunPane *self, OnyxViewState *state)
{
  g_return_if_fail (ONYX_IS_RUN_PANE (self) && self->state == NULL);
  self->state = g_object_ref (state);
  onyx_view_state_set_tensor_note (state, tensor_note, self);
  g_signal_connect_object (state, "notify::document", G_CALLBACK (document_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "notify::selection", G_CALLBACK (selection_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "laid-out", G_CALLBACK (update_tints), self, G_CONNECT_SWAPPED);
  g_signal_connect_swapped (self, "notify::color-by", G_CALLBACK (update_tints), self);
  onyx_run_pane_update_actions (self);
}

GActionGroup *
onyx_run_pane_get_actions (OnyxRunPane *self)
{
  return G_ACTION_GROUP (self->actions);
}

void
onyx_run_pane_init_runs (OnyxRunPane *self)
{
  static const GActionEntry entries[] = {
    { .name = "start", .activate = start_activated },
    { .name = "with-inputs", .activate = with_inputs_activated },
    { .name = "settings", .activate = settings_activated },
    { .name = "until", .activate = until_activated },
    { .name = "compare", .activate = compare_activated },
    { .name = "cancel", .activate = cancel_activated },
    { .name = "first-divergence", .activate = first_divergence_activated },
    { .name = "repro", .activate = repro_activated },
    { .name = "close", .activate = close_activated },
  };

  self->actions = g_simple_action_group_new ();
  g_action_map_add_action_entries (G_ACTION_MAP (self->actions), entries, G_N_ELEMENTS (entries), self);
  onyx_run_pane_update_actions (self);
}

void
onyx_run_pane_dispose_runs (OnyxRunPane *self)
{
  /* A run under way is dropped, its helper told to stop. */
  onyx_run_pane_reset (self);
  if (self->state != NULL)
    onyx_view_state_set_tensor_note (self->state, NULL, NULL);
  g_clear_object (&self->state);
  g_clear_object (&self->actions);
}
