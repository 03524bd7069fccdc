/* test-app-run.c: Run with ONNX Runtime in the real window under Xvfb, as the
 * walkthrough goes: model_foo.onnx refuses to run naming FooOp; after Bypass and
 * Clean Up it runs on the export script's input and matches PyTorch's output saved
 * beside it (model_foo.npz) within 1e-5; a copy of model.onnx with one weight of
 * its second Conv perturbed, compared with the original, diverges first at that
 * Conv, which Go to First Divergence selects and Save Repro cuts out with its
 * inputs. Snapshots of the window are saved for people to look at. */
#include "onyx-app-test-util.h"
#include "onyx-canvas-private.h"

#include <glib/gstdio.h>

#include "onyx-array.h"
#include "onyx-run-pane.h"
#include "onyx-run-settings.h"
#include "onyx-run.h"
#include "onyx-schema.h"
#include "onyx-steps.h"

static void
wait_for_run (OnyxWindow *window)
{
  while (onyx_run_pane_is_running (test_run_pane (window)))
    g_main_context_iteration (NULL, TRUE);
  wait_for_layout (window);
  wait_for_revealer (window, test_revealer_of (test_run_pane (window)));
}

static char *
pane_text (OnyxWindow *window)
{
  char *text = onyx_run_pane_describe (test_run_pane (window));
  g_test_message ("run pane:\n%s", text);
  return text;
}

/* A picture of the window as it is now, for people to look at. */
static void
look (OnyxWindow *window, const char *name)
{
  wait_for_frames (window);
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), name), >, 2000);
}

static char *
run_note (const char *tensor, gpointer data)
{
  return onyx_run_pane_describe_tensor (data, tensor);
}

/* The tooltip of the edge carrying `tensor`, as the canvas composes it with the
 * run's note. */
static char *
edge_tooltip (OnyxWindow *window, const char *tensor)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (test_canvas (window));
  g_autoptr (OnyxRenderIndex) index = onyx_render_index_new (layout);

  for (guint e = 0; e < layout->edges->len; e++)
    {
      const OnyxLayoutEdge *edge = &g_array_index (layout->edges, OnyxLayoutEdge, e);
      if (g_strcmp0 (edge->tensor, tensor) == 0 && edge->points->len >= 2)
        return onyx_canvas_tooltip_text (layout, index, g_array_index (edge->points, double, 0),
                                         g_array_index (edge->points, double, 1) + 2, 3, run_note,
                                         test_run_pane (window));
    }
  return NULL;
}

static Onnx__NodeProto *
node_of_op (OnyxWindow *window, const char *op_type, guint nth)
{
  Onnx__GraphProto *graph = onyx_document_get_proto (onyx_window_get_document (window))->graph;

  for (size_t i = 0; i < graph->n_node; i++)
    if (g_str_equal (graph->node[i]->op_type, op_type) && nth-- == 0)
      return graph->node[i];
  return NULL;
}

/* A disabled action opens nothing (activating it still returns TRUE). */
static gboolean
no_dialog_after (OnyxWindow *window, const char *action)
{
  guint before = g_list_model_get_n_items (gtk_window_get_toplevels ());

  gtk_widget_activate_action (GTK_WIDGET (window), action, NULL);
  for (int i = 0; i < 100; i++)
    g_main_context_iteration (NULL, FALSE);
  return g_list_model_get_n_items (gtk_window_get_toplevels ()) == before;
}

static void
run_action (OnyxWindow *window, const char *action)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), action, NULL));
  wait_for_run (window);
}

static void
test_walkthrough (void)
{
  g_autofree char *model = test_data_path ("model_foo.onnx"), *arrays = test_data_path ("model_foo.npz");
  g_autoptr (GFile) npz = g_file_new_for_path (arrays);
  g_autoptr (GError) error = NULL;
  OnyxWindow *window = open_model_window (model);
  g_autofree char *refused = NULL, *matched = NULL;
  const OnyxRunDelta *output;

  g_assert_true (onyx_run_pane_run_with_inputs (test_run_pane (window), npz, &error));
  g_assert_no_error (error);
  wait_for_run (window);
  refused = pane_text (window);
  /* The one error the CLI gives too, naming the node. */
  g_assert_true (g_str_has_prefix (refused, "error\nONNX Runtime cannot run node '/FooOp' (devtech::FooOp): "));
  g_assert_null (onyx_run_pane_get_result (test_run_pane (window)));

  onyx_view_state_select_node (test_state (window), node_of_op (window, "FooOp", 0));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.bypass-node", NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.cleanup", NULL));
  wait_for_layout (window);
  g_assert_null (node_of_op (window, "FooOp", 0));
  g_assert_true (onyx_run_pane_compare_with (test_run_pane (window), npz, &error));
  g_assert_no_error (error);
  wait_for_run (window);
  g_assert_nonnull (onyx_run_pane_get_result (test_run_pane (window)));
  output = onyx_run_pane_lookup_delta (test_run_pane (window), "output");
  g_assert_nonnull (output);
  g_assert_null (output->mismatch);
  g_assert_cmpuint (output->n_exceeding, ==, 0);
  g_assert_cmpfloat (output->max_abs, <=, 1e-5);
  g_assert_null (onyx_run_pane_get_result (test_run_pane (window))->first_divergence_delta);
  onyx_view_state_select_tensor (test_state (window), "output");
  matched = pane_text (window);
  g_assert_nonnull (strstr (matched, "Compared with model_foo.npz: 0 of 1 tensors exceed the tolerance"));
  g_assert_nonnull (strstr (matched, "Within tolerance"));
  g_assert_false (gtk_widget_activate_action (GTK_WIDGET (window), "run.first-divergence", NULL) &&
                  onyx_run_pane_go_to_first_divergence (test_run_pane (window)));
  look (window, "app-run-walkthrough.png");
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (test_run_pane (window))), <=, 320);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* model.onnx with one weight of the second Conv changed, saved to `path`. */
static void
save_perturbed (const char *path)
{
  g_autofree char *original = test_data_path ("model.onnx");
  g_autoptr (OnyxModel) model = onyx_model_new_from_file (original, NULL);
  Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  g_autoptr (GError) error = NULL;

  for (size_t i = 0; i < graph->n_initializer; i++)
    if (g_str_equal (graph->initializer[i]->name, "onnx::Conv_25"))
      {
        Onnx__TensorProto *weight = graph->initializer[i];
        uint8_t *kept = weight->raw_data.data;
        g_autofree float *changed = g_memdup2 (kept, weight->raw_data.len);

        g_assert_cmpuint (weight->raw_data.len, >=, sizeof (float));
        changed[0] += 1.0f;
        weight->raw_data.data = (uint8_t *) changed;
        g_assert_true (onyx_model_save (model, path, &error));
        g_assert_no_error (error);
        weight->raw_data.data = kept;
        return;
      }
  g_assert_not_reached ();
}

/* A QOperator model against its float twin: its uint8 tensors are compared as the
 * values they stand for (the CLI's rule), so quantization noise is all that shows. */
static void
test_quantized_twin (void)
{
  g_autofree char *model = test_data_path ("qoperator_cnn.onnx"), *twin = test_data_path ("qdq_cnn_float.onnx");
  g_autoptr (GFile) against = g_file_new_for_path (twin);
  g_autoptr (GError) error = NULL;
  OnyxWindow *window = open_model_window (model);
  g_autofree char *text = NULL;
  const OnyxQuantAccuracy *accuracy;
  OnyxQuantAccuracy *below;
  OnyxQuantLayer *planted;
  const char *integers[] = { "/stem/Relu_output_0_quantized", "/block1/conv2/Conv_output_0_quantized",
                             "/flatten/Flatten_output_0_quantized" };

  g_assert_true (onyx_run_pane_compare_with (test_run_pane (window), against, &error));
  g_assert_no_error (error);
  wait_for_run (window);
  for (guint i = 0; i < G_N_ELEMENTS (integers); i++)
    {
      const OnyxRunDelta *delta = onyx_run_pane_lookup_delta (test_run_pane (window), integers[i]);
      g_assert_nonnull (delta);
      g_assert_null (delta->mismatch);
      g_assert_cmpfloat (delta->max_abs, >, 0);
      g_assert_cmpfloat (delta->max_abs, <, 0.2);
      /* The statistics stay the integers'. */
      g_assert_cmpint (onyx_run_pane_lookup_stats (test_run_pane (window), integers[i])->elem_type, ==,
                       ONNX__TENSOR_PROTO__DATA_TYPE__UINT8);
    }
  /* Each layer's accuracy, as onyx-cli run --compare says it, in the comparison. */
  accuracy = onyx_run_pane_get_accuracy (test_run_pane (window));
  g_assert_nonnull (accuracy);
  g_assert_cmpuint (accuracy->n_quantized, ==, 8);
  g_assert_cmpuint (accuracy->layers->len, ==, 8);
  g_assert_null (accuracy->first_below);
  onyx_view_state_select_tensor (test_state (window), integers[0]);
  text = pane_text (window);
  g_assert_nonnull (strstr (text, "\nQuantized layers compared: 8 of 8\nLeast accurate: /"));
  g_assert_nonnull (strstr (text, " dB\nNo layer under 20 dB\n"));
  /* The differences are the float values' (a hundredth), said so before them. */
  g_assert_nonnull (strstr (text, "\n  Compared as the float values it stands for\n  "));
  g_assert_nonnull (strstr (strstr (text, "stands for\n"), " values exceed: max |Δ| 0.0"));
  look (window, "app-run-quantized-twin.png");
  /* No layer under the threshold: nothing to go to, though the first layer parts. */
  g_assert_nonnull (onyx_run_pane_get_result (test_run_pane (window))->first_divergence_delta);
  g_assert_false (g_action_group_get_action_enabled (onyx_run_pane_get_actions (test_run_pane (window)),
                                                     "first-divergence"));

  /* A layer under it (a scale planted wrong): Go to First Divergence selects it. */
  planted = g_new0 (OnyxQuantLayer, 1);
  planted->node = node_of_op (window, "QLinearConv", 3);
  g_assert_cmpstr (planted->node->name, ==, "/down/Conv");
  planted->tensor = g_strdup (planted->node->output[0]);
  planted->other = g_strdup ("/down/Relu_output_0");
  planted->sqnr_db = -3;
  below = g_new0 (OnyxQuantAccuracy, 1);
  below->layers = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_quant_layer_free);
  g_ptr_array_add (below->layers, planted);
  below->first_below = planted;
  below->threshold_db = ONYX_QUANT_DEFAULT_SQNR_DB;
  below->n_quantized = 8;
  onyx_run_pane_set_accuracy (test_run_pane (window), below);
  g_free (text);
  text = pane_text (window);
  g_assert_nonnull (strstr (text, "\nFirst layer under 20 dB: /down/Conv, -3.0 dB\n"));
  g_assert_true (g_action_group_get_action_enabled (onyx_run_pane_get_actions (test_run_pane (window)),
                                                    "first-divergence"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "run.first-divergence", NULL));
  g_assert_true (onyx_view_state_get_selected_node (test_state (window)) == planted->node);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_first_divergence (void)
{
  g_autofree char *dir = g_dir_make_tmp ("onyx-run-XXXXXX", NULL);
  g_autofree char *perturbed = g_build_filename (dir, "perturbed.onnx", NULL);
  g_autofree char *repro = g_build_filename (dir, "repro.onnx", NULL);
  g_autofree char *repro_npz = g_build_filename (dir, "repro.npz", NULL);
  g_autofree char *original = test_data_path ("model.onnx");
  g_autoptr (GFile) against = g_file_new_for_path (original);
  g_autoptr (GFile) repro_file = g_file_new_for_path (repro);
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) cut = NULL;
  g_autoptr (GPtrArray) cut_inputs = NULL;
  OnyxWindow *window;
  Onnx__NodeProto *second_conv;
  const OnyxLayout *layout;
  GdkRGBA tint, low;
  g_autofree char *text = NULL;

  save_perturbed (perturbed);
  window = open_model_window (perturbed);
  second_conv = node_of_op (window, "Conv", 1);
  g_assert_cmpstr (second_conv->name, ==, "/model/model.3/Conv");

  /* A plain run first: statistics, coloured by magnitude. */
  run_action (window, "run.start");
  g_assert_nonnull (onyx_run_pane_get_result (test_run_pane (window)));
  g_assert_cmpint (onyx_run_pane_get_color_by (test_run_pane (window)), ==, ONYX_RUN_COLOR_MAX_ABS);
  onyx_view_state_select_node (test_state (window), node_of_op (window, "Relu", 0));
  text = pane_text (window);
  g_assert_nonnull (strstr (text, "/model/model.2/Relu_output_0\n  float32[1×16×"));
  g_assert_nonnull (strstr (text, "min 0   max "));
  look (window, "app-run-statistics.png");

  /* Up to the selected Relu: its part of the model only. */
  run_action (window, "run.until");
  g_assert_cmpuint (onyx_run_pane_get_result (test_run_pane (window))->stats->len, ==, 2);
  g_assert_nonnull (onyx_run_pane_lookup_stats (test_run_pane (window), "/model/model.2/Relu_output_0"));
  g_assert_null (onyx_run_pane_lookup_stats (test_run_pane (window), "output"));
  run_action (window, "run.start");
  g_assert_cmpuint (onyx_run_pane_get_result (test_run_pane (window))->stats->len, ==, 4);

  g_assert_true (onyx_run_pane_compare_with (test_run_pane (window), against, &error));
  g_assert_no_error (error);
  wait_for_run (window);
  g_assert_cmpint (onyx_run_pane_get_color_by (test_run_pane (window)), ==, ONYX_RUN_COLOR_ERROR);
  g_assert_cmpstr (onyx_run_pane_get_result (test_run_pane (window))->first_divergence_delta->name, ==,
                   "/model/model.3/Conv_output_0");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "run.first-divergence", NULL));
  g_assert_true (onyx_view_state_get_selected_node (test_state (window)) == second_conv);

  /* The graph by error: the first Conv agrees (green), the second does not. */
  layout = onyx_canvas_get_layout (test_canvas (window));
  onyx_run_pane_scale_color (-1, &low);
  g_assert_true (onyx_canvas_get_node_tint (test_canvas (window), onyx_canvas_get_selected_node (test_canvas (window)), &tint));
  g_assert_false (gdk_rgba_equal (&tint, &low));
  g_assert_cmpfloat (tint.red, >, tint.green);
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      if (node->kind == ONYX_LAYOUT_OP && node->index == 0)
        {
          g_assert_true (onyx_canvas_get_node_tint (test_canvas (window), i, &tint));
          g_assert_true (gdk_rgba_equal (&tint, &low));
        }
    }
  g_clear_pointer (&text, g_free);
  text = pane_text (window);
  g_assert_nonnull (strstr (text, "First divergence: /model/model.3/Conv_output_0"));
  g_assert_nonnull (strstr (text, "values exceed: max |Δ|"));
  look (window, "app-run-divergence.png");
  /* On the graph too: the edge's tooltip says what the run made of its tensor. */
  {
    g_autofree char *tip = edge_tooltip (window, "/model/model.3/Conv_output_0");
    g_assert_nonnull (tip);
    g_test_message ("tooltip: %s", tip);
    g_assert_nonnull (strstr (tip, "\nRan: float32[1×64×31×31]\nmin "));
    g_assert_nonnull (strstr (tip, "values exceed"));
  }

  /* Repro: the Conv alone, fed what it was fed. */
  g_assert_true (onyx_run_pane_save_repro (test_run_pane (window), repro_file));
  wait_for_run (window);
  cut = onyx_model_new_from_file (repro, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (onyx_model_get_proto (cut)->graph->n_node, ==, 1);
  g_assert_cmpstr (onyx_model_get_proto (cut)->graph->node[0]->op_type, ==, "Conv");
  cut_inputs = onyx_npz_read (repro_npz, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cut_inputs->len, ==, 1);
  g_assert_cmpstr (((OnyxArray *) cut_inputs->pdata[0])->name, ==, "/model/model.2/Relu_output_0");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "run.close", NULL));
  wait_for_revealer (window, test_revealer_of (test_run_pane (window)));
  g_assert_false (onyx_canvas_get_node_tint (test_canvas (window), onyx_canvas_get_selected_node (test_canvas (window)), NULL));
  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (repro);
  g_unlink (repro_npz);
  g_unlink (perturbed);
  g_rmdir (dir);
}

/* Run Settings: zeros as inputs, the symbolic batch dim N at 2; the run follows. */
static void
test_settings (void)
{
  g_autofree char *model = test_data_path ("model.onnx");
  OnyxWindow *window = open_model_window (model);
  OnyxRunSettings *dialog = onyx_run_pane_show_settings (test_run_pane (window));
  GtkWidget *n_row = test_find_widget (GTK_WIDGET (dialog), ADW_TYPE_ACTION_ROW, "N");
  GtkWidget *values = test_find_widget (GTK_WIDGET (dialog), ADW_TYPE_COMBO_ROW, NULL);
  GtkWidget *run = test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_BUTTON, "_Run");
  const OnyxRunStats *stats;
  g_autofree char *text = NULL;

  g_assert_nonnull (n_row);
  g_assert_nonnull (values);
  g_assert_nonnull (run);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (test_find_widget (n_row, GTK_TYPE_SPIN_BUTTON, NULL)), 2);
  adw_combo_row_set_selected (ADW_COMBO_ROW (values), 1);  /* Zeros */
  wait_for_frames (window);
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (dialog), "app-run-settings.png"), >, 2000);
  g_signal_emit_by_name (run, "clicked");
  wait_for_run (window);
  stats = onyx_run_pane_lookup_stats (test_run_pane (window), "output");
  g_assert_nonnull (stats);
  g_assert_cmpuint (stats->n_dims, ==, 4);
  g_assert_cmpint (stats->dims[0], ==, 2);
  text = pane_text (window);
  g_assert_nonnull (strstr (text, "inputs: Zeros as inputs; N = 2\n"));
  /* Kept for the next run. */
  run_action (window, "run.start");
  g_assert_cmpint (onyx_run_pane_lookup_stats (test_run_pane (window), "output")->dims[0], ==, 2);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A Log inserted after the first Conv makes NaN of its negative values: the pane says
 * so and where they first appear, not only the purple of the graph. */
static void
test_nonfinite (void)
{
  g_autofree char *model = test_data_path ("model.onnx");
  OnyxWindow *window = open_model_window (model);
  OnyxDocument *doc = onyx_window_get_document (window);
  g_autofree char *note = NULL, *text = NULL, *expected = NULL;
  g_autoptr (GError) error = NULL;
  const OnyxRunStats *first;

  g_assert_true (onyx_step_apply_noted (doc, "insert", "/model/model.0/Conv_output_0=Log", &note, &error));
  g_assert_no_error (error);
  wait_for_layout (window);
  run_action (window, "run.start");
  first = onyx_run_result_first_nonfinite (onyx_run_pane_get_result (test_run_pane (window)));
  g_assert_nonnull (first);
  g_assert_cmpuint (first->n_nan, >, 0);
  /* The node that made them first, by name, in the graph's order. */
  g_assert_cmpint (onyx_run_pane_get_result (test_run_pane (window))->first_nonfinite_node, >=, 0);
  expected = g_strdup_printf ("NaN first made by node %s (Log)", onyx_document_get_proto (doc)->graph->node[
                                onyx_run_pane_get_result (test_run_pane (window))->first_nonfinite_node]->name);
  text = pane_text (window);
  g_assert_nonnull (strstr (text, expected));
  g_assert_nonnull (strstr (first->name, "Log"));
  look (window, "app-run-nonfinite.png");
  onyx_files_discard_journal (onyx_window_get_files (window));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Run Settings of a genai-built LLM shows what Onyx makes of each input (token ids
 * within the embedding, a mask of ones, a cache whose lengths agree), and the run it
 * starts makes no NaN. */
static void
test_llm_inputs (void)
{
  g_autofree char *model = test_data_path ("llm_tiny.onnx");
  OnyxWindow *window;
  OnyxRunSettings *dialog;
  GtkWidget *ids, *run, *past, *total;
  g_autofree char *text = NULL;

  if (onyx_schema_domain_version ("") < 21)
    {
      g_test_skip ("the build's ONNX does not know opset 21");
      return;
    }
  window = open_model_window (model);
  dialog = onyx_run_pane_show_settings (test_run_pane (window));
  ids = test_find_widget (GTK_WIDGET (dialog), ADW_TYPE_ACTION_ROW, "input_ids");
  g_assert_nonnull (ids);
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (ids)), ==,
                   "token ids in [0, 128): /model/embed_tokens/Gather reads a table of 128 rows");
  past = test_find_widget (GTK_WIDGET (dialog), ADW_TYPE_ACTION_ROW, "past_sequence_length");
  g_assert_nonnull (past);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (test_find_widget (past, GTK_TYPE_SPIN_BUTTON, NULL))),
                     ==, 4);
  wait_for_frames (window);
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (dialog), "app-run-settings-llm.png"), >, 2000);
  /* A longer past: the total follows (4 new + 6 past), as the run will have it. */
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (test_find_widget (past, GTK_TYPE_SPIN_BUTTON, NULL)), 6);
  total = test_find_widget (GTK_WIDGET (dialog), ADW_TYPE_ACTION_ROW, "total_sequence_length");
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (test_find_widget (total, GTK_TYPE_SPIN_BUTTON, NULL))),
                     ==, 10);
  run = test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_BUTTON, "_Run");
  g_signal_emit_by_name (run, "clicked");
  wait_for_run (window);
  g_assert_null (onyx_run_result_first_nonfinite (onyx_run_pane_get_result (test_run_pane (window))));
  text = pane_text (window);
  g_assert_nonnull (strstr (text, "past_sequence_length = 6"));
  g_assert_nonnull (strstr (text, "total_sequence_length = 10"));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A picture of free height and width is not run at 1×1: Run opens Run Settings,
 * which asks for them (0 until given); given, it runs. */
static void
test_image_size_asked (void)
{
  g_autofree char *model = test_data_path ("paddle_style.onnx");
  OnyxWindow *window = open_model_window (model);
  OnyxRunSettings *dialog;
  GtkWidget *row, *spin;
  g_autofree char *text = NULL;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "run.start", NULL));
  dialog = find_toplevel (ONYX_TYPE_RUN_SETTINGS);
  g_assert_nonnull (dialog);
  text = pane_text (window);
  g_assert_nonnull (strstr (text, "looks like an image whose height and width are not fixed"));
  row = test_find_widget (GTK_WIDGET (dialog), ADW_TYPE_ACTION_ROW, "p2o.DynamicDimension.1");
  g_assert_nonnull (row);
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), ==,
                   "An image’s height or width: the size it is made at");
  spin = test_find_widget (row, GTK_TYPE_SPIN_BUTTON, NULL);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (spin)), ==, 0);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), 32);
  wait_for_frames (window);
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (dialog), "app-run-settings-image.png"), >, 2000);
  g_signal_emit_by_name (test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_BUTTON, "_Run"), "clicked");
  wait_for_run (window);
  g_free (text);
  text = pane_text (window);
  g_assert_null (strstr (text, "error"));
  g_assert_nonnull (strstr (text, "p2o.DynamicDimension.1 = 32"));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Run ▸ Generate Tokens… on the genai-style LLM: the dialog asks for the prompt and
 * how many tokens; twenty steps are made (the list scrolls) and each agrees with one pass over the
 * sequence. A model without a KV cache has no such item. */
static void
test_generate (void)
{
  g_autofree char *model = test_data_path ("llm_tiny.onnx");
  g_autofree char *plain = test_data_path ("model.onnx");
  OnyxWindow *window;
  AdwMessageDialog *dialog;
  GtkWidget *prompt, *count;
  g_autoptr (GError) error = NULL;
  const char *heading, *body, *steps;

  if (onyx_schema_domain_version ("") < 21)
    {
      g_test_skip ("the build's ONNX does not know opset 21");
      return;
    }
  window = open_model_window (plain);
  g_assert_true (no_dialog_after (window, "generate.show"));
  gtk_window_destroy (GTK_WINDOW (window));

  window = open_model_window (model);
  g_assert_false (onyx_generate_start (onyx_window_get_generate (window), "1, two", 2, &error));
  g_assert_nonnull (strstr (error->message, "“two” is not a token id"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "generate.show", NULL));
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Generate Tokens");
  prompt = test_find_widget (GTK_WIDGET (dialog), ADW_TYPE_ENTRY_ROW, NULL);
  count = test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_SPIN_BUTTON, NULL);
  g_assert_nonnull (prompt);
  g_assert_nonnull (count);
  gtk_editable_set_text (GTK_EDITABLE (prompt), "5, 6, 7");
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (count), 20);
  wait_for_frames (window);
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (dialog), "app-generate-ask.png"), >, 2000);
  adw_message_dialog_response (dialog, "generate");
  gtk_window_destroy (GTK_WINDOW (dialog));
  /* The report comes as a dialog of its own once the thread is done. */
  dialog = NULL;
  for (int round = 0; round < 600 && dialog == NULL; round++)
    {
      dialog = find_message_dialog ();
      if (dialog == NULL)
        g_usleep (50000);
    }
  g_assert_nonnull (dialog);
  heading = adw_message_dialog_get_heading (dialog);
  body = adw_message_dialog_get_body (dialog);
  steps = gtk_label_get_text (GTK_LABEL (test_find_widget (adw_message_dialog_get_extra_child (dialog), GTK_TYPE_LABEL, NULL)));
  g_test_message ("%s\n%s\n%s", heading, body, steps);
  g_assert_cmpstr (heading, ==, "The Cache Keeps to One Pass");
  g_assert_nonnull (strstr (body, "20 tokens generated with ONNX Runtime"));
  g_assert_nonnull (strstr (body, "after a prompt of 3."));
  g_assert_nonnull (strstr (steps, "Step 20: token "));
  g_assert_nonnull (strstr (steps, "logits within"));
  wait_for_frames (window);
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (dialog), "app-generate-report.png"), >, 2000);
  gtk_window_destroy (GTK_WINDOW (dialog));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Built without ONNX Runtime, Run says why in the pane instead of running. */
static void
test_unavailable (void)
{
  g_autofree char *model = test_data_path ("model.onnx");
  OnyxWindow *window = open_model_window (model);
  g_autofree char *text = NULL;

  run_action (window, "run.start");
  text = pane_text (window);
  g_assert_true (g_str_has_prefix (text, "error\nOnyx cannot run models: this Onyx was built without ONNX Runtime"));
  /* The other Run actions are off: Compare Run With… opens no file chooser. */
  g_assert_true (no_dialog_after (window, "run.compare"));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int argc, char **argv)
{
  g_autofree char *home = test_private_xdg_folders ("app-run");
  int status;

  g_test_init (&argc, &argv, NULL);
  /* Xvfb has no session bus, which GTK warns about; criticals stay fatal. */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  adw_init ();
  if (onyx_run_available (NULL))
    {
      g_test_add_func ("/app-run/walkthrough", test_walkthrough);
      g_test_add_func ("/app-run/first-divergence", test_first_divergence);
      g_test_add_func ("/app-run/quantized-twin", test_quantized_twin);
      g_test_add_func ("/app-run/settings", test_settings);
      g_test_add_func ("/app-run/nonfinite", test_nonfinite);
      g_test_add_func ("/app-run/llm-inputs", test_llm_inputs);
      g_test_add_func ("/app-run/generate", test_generate);
      g_test_add_func ("/app-run/image-size-asked", test_image_size_asked);
    }
  else
    g_test_add_func ("/app-run/unavailable", test_unavailable);
  status = g_test_run ();
  test_private_xdg_folders_remove (home);
  return status;
}
