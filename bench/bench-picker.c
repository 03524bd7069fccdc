/* bench-picker MODEL: the properties panel's tensor picker on a large graph, e.g.
 * transformer_96.onnx (13k nodes) from ../shared/models/export_scale_models.py. Run
 * under a display: xvfb-run -a build/bench/bench-picker /tmp/models/transformer_96.onnx
 *
 * Prints the time to show a node in the panel (what every click costs: the baseline)
 * and, as ratios to it, the time to open the picker (its list of every tensor is
 * filled then) and to filter the shown list at each keystroke of a search. */
#include <stdio.h>

#include "bench-util.h"
#include "onyx-properties.h"
#include "onyx-tensor-picker.h"

#define ROUNDS 5

int
main (int argc, char **argv)
{
  g_autoptr (OnyxModel) model = NULL;
  g_autoptr (OnyxDocument) doc = NULL;
  /* Typed one key at a time, then cleared, then another search. */
  const char *typed[] = { "l", "la", "lay", "laye", "layer", "layers", "layers.", "layers.4",
                          "layers.47", "layers.47/", "layers.47/s", "layers.47/se", "", "M", "Ma",
                          "Mat", "MatM", "MatMu", "MatMul" };
  Onnx__NodeProto *node;
  OnyxProperties *panel;
  GtkWidget *window;
  double start, show = 0, open = 0, type = 0;
  guint n_tensors = 0, n_graph_nodes;

  gtk_init ();
  model = bench_load_model (argc, argv, "bench-picker MODEL.onnx");
  if (model == NULL)
    return 2;
  doc = onyx_document_new (model);
  n_graph_nodes = onyx_document_get_proto (doc)->graph->n_node;
  node = onyx_document_get_proto (doc)->graph->node[n_graph_nodes / 2];
  panel = g_object_ref_sink (g_object_new (ONYX_TYPE_PROPERTIES, NULL));
  window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (window), 400, 600);
  gtk_window_present (GTK_WINDOW (window));

  for (int round = 0; round < ROUNDS; round++)
    {
      GtkWidget *button = onyx_tensor_picker_button_new (doc, node->input[0], "edit.reconnect-input", g_variant_new_uint32 (0));
      OnyxTensorPicker *picker = ONYX_TENSOR_PICKER (gtk_menu_button_get_popover (GTK_MENU_BUTTON (button)));

      start = bench_now ();
      onyx_properties_show_node (panel, doc, onyx_document_get_proto (doc)->graph, node);
      show += bench_now () - start;

      gtk_window_set_child (GTK_WINDOW (window), button);
      while (!gtk_widget_get_mapped (button))
        g_main_context_iteration (NULL, TRUE);
      start = bench_now ();
      gtk_menu_button_popup (GTK_MENU_BUTTON (button));
      while (!gtk_widget_get_mapped (GTK_WIDGET (picker)))
        g_main_context_iteration (NULL, TRUE);
      while (g_main_context_iteration (NULL, FALSE))
        ;
      open += bench_now () - start;
      n_tensors = g_list_model_get_n_items (onyx_tensor_picker_get_results (picker));

      /* What each keystroke costs before the next frame: filtering and rebinding rows. */
      for (guint i = 0; i < G_N_ELEMENTS (typed); i++)
        {
          start = bench_now ();
          gtk_editable_set_text (onyx_tensor_picker_get_search (picker), typed[i]);
          type += bench_now () - start;
          while (g_main_context_iteration (NULL, FALSE))
            ;
        }
      gtk_menu_button_popdown (GTK_MENU_BUTTON (button));
      gtk_window_set_child (GTK_WINDOW (window), NULL);
    }
  type /= G_N_ELEMENTS (typed);
  printf ("%u nodes, %u tensors in the picker\n", n_graph_nodes, n_tensors);
  printf ("show a node in the panel (baseline) %8.2f ms\n", show / ROUNDS * 1e3);
  printf ("open the picker                     %8.2f ms  (%.2f× baseline)\n", open / ROUNDS * 1e3, open / show);
  printf ("filter it, per keystroke            %8.2f ms  (%.2f× baseline)\n", type / ROUNDS * 1e3, type / show);
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (panel);
  return 0;
}
