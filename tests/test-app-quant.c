/* test-app-quant.c: a QDQ model in the window under Xvfb, as a person reads it: the
 * QuantizeLinear → DequantizeLinear pairs drawn as marks on edges and the weights'
 * DequantizeLinear as lines of their Conv, so there are far fewer boxes than nodes;
 * a click on a mark selects its QuantizeLinear and the edge stays selected; the
 * panel says how the model, a node and a tensor are quantized; Preferences ▸ Fold
 * Quantization off draws every node. The window is rendered into the build dir. */
#include <adwaita.h>
#include <string.h>

#include "onyx-app-test-util.h"

/* Layout nodes that are op boxes, and of them QuantizeLinear or DequantizeLinear. */
static guint
count_boxes (OnyxWindow *window, guint *n_qdq)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (test_canvas (window));
  Onnx__GraphProto *graph = onyx_view_state_get_graph (test_state (window));
  guint n = 0;

  *n_qdq = 0;
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *box = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      const char *op;
      if (box->kind != ONYX_LAYOUT_OP)
        continue;
      n++;
      op = graph->node[box->index]->op_type;
      *n_qdq += g_str_equal (op, "QuantizeLinear") || g_str_equal (op, "DequantizeLinear");
    }
  return n;
}

static int
first_marked_edge (OnyxWindow *window)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (test_canvas (window));

  for (guint i = 0; i < layout->edges->len; i++)
    if (g_array_index (layout->edges, OnyxLayoutEdge, i).mark != NULL)
      return (int) i;
  return -1;
}

static char *
panel_text (OnyxWindow *window)
{
  GString *text = g_string_new (NULL);

  onyx_view_state_settle (test_state (window));
  wait_for_frames (window);
  collect_text (test_properties_page (window), text);
  return g_string_free (text, FALSE);
}

static void
test_folded (void)
{
  g_autofree char *path = test_data_path ("qdq_cnn.onnx");
  OnyxWindow *window = open_model_window (path);
  OnyxViewState *state = test_state (window);
  Onnx__GraphProto *graph = onyx_view_state_get_graph (state);
  GSettings *settings = onyx_view_state_get_settings (state);
  g_autofree char *model_page = NULL, *node_page = NULL, *tensor_page = NULL;
  Onnx__NodeProto *selected;
  guint n_boxes, n_qdq;
  int edge, box;

  g_settings_set_string (settings, "group-expansion", "all");
  wait_for_layout (window);
  /* Folded: no Q or DQ box, each pair a mark on an edge. */
  n_boxes = count_boxes (window, &n_qdq);
  g_test_message ("%zu nodes, %u boxes", graph->n_node, n_boxes);
  g_assert_cmpuint (n_qdq, ==, 0);
  g_assert_cmpuint (n_boxes * 2, <, graph->n_node);
  edge = first_marked_edge (window);
  g_assert_cmpint (edge, >=, 0);
  g_assert_nonnull (strstr (g_array_index (onyx_canvas_get_layout (test_canvas (window))->edges, OnyxLayoutEdge,
                                           edge).mark, "s="));

  /* The model's page sums it up. */
  model_page = panel_text (window);
  g_assert_nonnull (strstr (model_page, "Quantization\n"));
  g_assert_nonnull (strstr (model_page, "Runs quantized"));
  g_assert_nonnull (strstr (model_page, "Conv 5"));
  g_assert_nonnull (strstr (model_page, "Bits per weight"));
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "app-quant.png"), >, 10000);

  /* A click on the mark: its QuantizeLinear, the edge selected, the panel on it. */
  g_signal_emit_by_name (test_canvas (window), "mark-activated", edge);
  selected = onyx_view_state_get_selected_node (state);
  g_assert_nonnull (selected);
  g_assert_cmpstr (selected->op_type, ==, "QuantizeLinear");
  node_page = panel_text (window);
  g_assert_cmpint (onyx_canvas_get_selected_node (test_canvas (window)), ==, -1);
  g_assert_cmpint (onyx_canvas_get_selected_edge (test_canvas (window)), ==, edge);
  g_assert_nonnull (strstr (node_page, "Runs as"));
  g_assert_nonnull (strstr (node_page, "QuantizeLinear · float → uint8"));
  g_assert_nonnull (strstr (node_page, "uint8 s="));
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "app-quant-mark.png"), >, 10000);

  /* A quantized tensor's page: its quantization, its scale one click away. */
  onyx_view_state_select_tensor (state, selected->output[0]);
  tensor_page = panel_text (window);
  g_assert_nonnull (strstr (tensor_page, "Quantized as"));
  g_assert_nonnull (strstr (tensor_page, selected->input[1]));

  /* A weight's DequantizeLinear selected (as Find does): its Conv's box, which shows it. */
  onyx_view_state_select_node (state, graph->node[2]);
  g_assert_cmpstr (graph->node[2]->op_type, ==, "DequantizeLinear");
  wait_for_frames (window);
  box = onyx_canvas_get_selected_node (test_canvas (window));
  g_assert_cmpint (box, >=, 0);
  g_assert_cmpint (g_array_index (onyx_canvas_get_layout (test_canvas (window))->nodes, OnyxLayoutNode, box).index, ==,
                   4);
  g_assert_cmpstr (graph->node[4]->name, ==, "/stem/Conv");

  /* Fold Quantization off: every node has its box. */
  g_settings_set_boolean (settings, "fold-quant", FALSE);
  wait_for_layout (window);
  n_boxes = count_boxes (window, &n_qdq);
  g_assert_cmpuint (n_boxes, ==, graph->n_node);
  g_assert_cmpint (first_marked_edge (window), ==, -1);
  g_assert_cmpuint (n_qdq, >, 20);
  g_settings_reset (settings, "fold-quant");
  g_settings_reset (settings, "group-expansion");
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int argc, char *argv[])
{
  g_autofree char *home = test_private_xdg_folders ("app-quant");
  int status;

  g_test_init (&argc, &argv, NULL);
  /* Xvfb has no session bus, which GTK warns about; criticals stay fatal. */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  adw_init ();
  g_test_add_func ("/app-quant/folded", test_folded);
  status = g_test_run ();
  test_private_xdg_folders_remove (home);
  return status;
}
