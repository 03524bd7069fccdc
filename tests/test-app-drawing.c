/* test-app-drawing.c: what the canvas shows of a model as paddle2onnx writes it
 * (paddle_style.onnx: weights in Constants, dims named p2o.DynamicDimension.N, no
 * producer name) and of an LSTM of libonnx-testdata, in the real window under Xvfb:
 * a depthwise Conv's box shows its group, labels are brief ("D0×…", "?" for
 * inference placeholders), the tooltip says every line whole, and the panel leaves
 * out the blank producer; an LLM's alike layers drawn as one stack to step through.
 * Snapshots are written as PNG to look at. */
#include "onyx-app-test-util.h"

#include "onyx-canvas-private.h"
#include "onyx-frame-share.h"

static void
test_paddle_style (void)
{
  g_autofree char *path = test_data_path ("paddle_style.onnx");
  OnyxWindow *window = open_model_window (path);
  const OnyxLayout *layout = onyx_canvas_get_layout (test_canvas (window));
  g_autoptr (OnyxRenderIndex) index = onyx_render_index_new (layout);
  g_autofree char *panel = properties_text (window);
  int depthwise = -1;
  guint n_labels = 0, n_tips = 0;

  /* Nothing selected: the model's panel, with no blank Producer row. */
  g_assert_nonnull (strstr (panel, "IR version"));
  g_assert_null (strstr (panel, "Producer"));
  g_assert_true (gtk_widget_get_has_tooltip (GTK_WIDGET (test_canvas (window))));

  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      if (node->kind == ONYX_LAYOUT_OP && node->lines->len > 0 && g_strcmp0 (node->lines->pdata[0], "group = 16") == 0)
        {
          g_autofree char *tip = onyx_canvas_tooltip_text (layout, index, node->box.x + 4, node->box.y + 4, 1, NULL, NULL);
          depthwise = (int) i;
          /* Group first (it is what makes the Conv depthwise), then strides and pads. */
          g_assert_cmpuint (node->lines->len, ==, 7);
          g_assert_cmpstr (node->lines->pdata[1], ==, "strides = [1, 1]");
          g_assert_cmpstr (node->lines->pdata[2], ==, "pads = [1, 1, 1, 1]");
          g_assert_nonnull (tip);
          g_assert_nonnull (strstr (tip, "group = 16\nstrides = [1, 1]\npads = [1, 1, 1, 1]"));
          g_assert_nonnull (strstr (tip, "W ⟨16×1×3×3⟩ (p2o.Constant."));
          n_tips++;
        }
      /* Reshape writes allowzero = 0, the default: not listed. */
      if (node->kind == ONYX_LAYOUT_OP && g_strcmp0 (node->title, "Reshape") == 0)
        g_assert_cmpuint (node->lines->len, ==, 0);
    }
  g_assert_cmpint (depthwise, >=, 0);
  for (guint e = 0; e < layout->edges->len; e++)
    {
      const OnyxLayoutEdge *edge = &g_array_index (layout->edges, OnyxLayoutEdge, e);
      if (edge->label == NULL)
        continue;
      n_labels++;
      g_assert_null (strstr (edge->label, "DynamicDimension"));
      g_assert_null (strstr (edge->label, "unk__"));
      g_assert_cmpfloat (edge->label_box.width, >, 0);
      if (g_str_has_prefix (edge->label, "D0×3×D1×D1"))
        {
          /* The whole shape in the tooltip of the edge, under its label's left end. */
          g_autofree char *tip = onyx_canvas_tooltip_text (layout, index, g_array_index (edge->points, double, 0),
                                                           g_array_index (edge->points, double, 1) + 2, 3,
                                                           NULL, NULL);
          g_assert_cmpstr (tip, ==, "image\np2o.DynamicDimension.0×3×p2o.DynamicDimension.1×p2o.DynamicDimension.1");
          n_tips++;
        }
    }
  g_assert_cmpuint (n_labels, >, 10);
  g_assert_cmpuint (n_tips, ==, 2);

  onyx_canvas_center_node (test_canvas (window), depthwise);
  wait_for_frames (window);
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "test-app-drawing-paddle.png"), >, 2000);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_lstm (void)
{
  const char *path = "/usr/share/libonnx-testdata/data/node/test_lstm_with_peepholes/model.onnx";
  OnyxWindow *window;

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("libonnx-testdata is not installed");
      return;
    }
  window = open_model_window (path);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (test_canvas (window)), "canvas.zoom-fit", NULL));
  wait_for_frames (window);
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "test-app-drawing-lstm.png"), >, 2000);
  gtk_window_destroy (GTK_WINDOW (window));
}

static int
stack_node (OnyxWindow *window)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (test_canvas (window));

  for (guint i = 0; i < layout->nodes->len; i++)
    if (g_array_index (layout->nodes, OnyxLayoutNode, i).stack_size > 0)
      return (int) i;
  return -1;
}

static const OnyxLayoutNode *
layout_node (OnyxWindow *window, int node)
{
  return &g_array_index (onyx_canvas_get_layout (test_canvas (window))->nodes, OnyxLayoutNode, node);
}

/* An 8-layer LLM: its layers 1–7 drawn as one stack, opened by a click at layers.1; ‹
 * steps round to layers.7; selecting a node of a layer not shown (as a Problems row or Find does)
 * shows that layer, the node selected in it. */
static void
test_llm_stack (void)
{
  g_autofree char *path = test_data_path ("llm_stack.onnx");
  OnyxWindow *window = open_model_window (path);
  Onnx__GraphProto *graph = onyx_view_state_get_graph (test_state (window));
  g_autoptr (OnyxRenderIndex) index = NULL;
  g_autofree char *tip = NULL, *panel = NULL;
  const OnyxLayoutNode *stack;
  Onnx__NodeProto *gqa = NULL;
  int selected;

  /* It opens as one box; a click opens it at its first member. */
  stack = layout_node (window, stack_node (window));
  g_assert_false (stack->expanded);
  g_assert_cmpstr (stack->title, ==, "layers.1–7");
  onyx_canvas_center_node (test_canvas (window), stack_node (window));
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "test-app-drawing-stack-closed.png"), >, 2000);
  g_signal_emit_by_name (test_canvas (window), "item-activated", stack_node (window), -1);
  wait_for_layout (window);
  stack = layout_node (window, stack_node (window));
  g_assert_true (stack->expanded);
  g_assert_cmpstr (stack->stack_label, ==, "layers.1");
  index = onyx_render_index_new (onyx_canvas_get_layout (test_canvas (window)));
  tip = onyx_canvas_tooltip_text (onyx_canvas_get_layout (test_canvas (window)), index, stack->box.x + 10,
                                  stack->box.y + 10, 1, NULL, NULL);
  g_assert_nonnull (strstr (tip, "layers.1–7 · 7 × 11 nodes\nAlike groups drawn once"));
  onyx_canvas_center_node (test_canvas (window), stack_node (window));
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "test-app-drawing-stack.png"), >, 2000);

  g_signal_emit_by_name (test_canvas (window), "stack-stepped", stack_node (window), -1);
  wait_for_layout (window);
  stack = layout_node (window, stack_node (window));
  g_assert_cmpstr (stack->stack_label, ==, "layers.7");
  g_assert_cmpuint (stack->stack_shown, ==, 6);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (test_canvas (window)), "canvas.zoom-fit", NULL));
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "test-app-drawing-stack-fit.png"), >, 2000);

  for (size_t n = 0; n < graph->n_node; n++)
    if (g_str_equal (graph->node[n]->name, "/model/layers.3/attn/GroupQueryAttention"))
      gqa = graph->node[n];
  g_assert_nonnull (gqa);
  onyx_view_state_select_node (test_state (window), gqa);
  wait_for_layout (window);
  stack = layout_node (window, stack_node (window));
  g_assert_cmpstr (stack->stack_label, ==, "layers.3");
  selected = onyx_canvas_get_selected_node (test_canvas (window));
  g_assert_cmpint (selected, >=, 0);
  g_assert_cmpint (layout_node (window, selected)->kind, ==, ONYX_LAYOUT_OP);
  g_assert_true (graph->node[layout_node (window, selected)->index] == gqa);
  panel = properties_text (window);
  g_assert_nonnull (strstr (panel, "/model/layers.3/attn/GroupQueryAttention"));

  /* Page Down shows layers.4, the same node selected in it. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "graph.step-stack", "i", 1));
  wait_for_layout (window);
  g_assert_cmpstr (layout_node (window, stack_node (window))->stack_label, ==, "layers.4");
  selected = onyx_canvas_get_selected_node (test_canvas (window));
  g_assert_cmpint (selected, >=, 0);
  g_assert_cmpstr (graph->node[layout_node (window, selected)->index]->name, ==, "/model/layers.4/attn/GroupQueryAttention");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "graph.step-stack", "i", -1));
  wait_for_layout (window);
  selected = onyx_canvas_get_selected_node (test_canvas (window));
  g_assert_true (graph->node[layout_node (window, selected)->index] == gqa);
  onyx_canvas_center_node (test_canvas (window), selected);
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "test-app-drawing-stack-gqa.png"), >, 2000);

  /* A click on the stub of the layer before shows that layer. */
  {
    const OnyxLayout *layout = onyx_canvas_get_layout (test_canvas (window));
    g_autoptr (OnyxRenderIndex) stub_index = onyx_render_index_new (layout);
    int stub = -1;
    for (guint i = 0; i < layout->nodes->len; i++)
      if (g_array_index (layout->nodes, OnyxLayoutNode, i).kind == ONYX_LAYOUT_STUB &&
          g_str_equal (g_array_index (layout->nodes, OnyxLayoutNode, i).title, "from layers.2"))
        stub = (int) i;
    g_assert_cmpint (stub, >=, 0);
    g_clear_pointer (&tip, g_free);
    tip = onyx_canvas_tooltip_text (layout, stub_index, layout_node (window, stub)->box.x + 10,
                                    layout_node (window, stub)->box.y + 10, 1, NULL, NULL);
    g_assert_cmpstr (tip, ==, "Made by layers.2, drawn the same: click to show it");
    g_signal_emit_by_name (test_canvas (window), "item-activated", stub, -1);
    wait_for_layout (window);
    g_assert_cmpstr (layout_node (window, stack_node (window))->stack_label, ==, "layers.2");
  }

  /* A tensor of a layer not shown (a Problems row naming a KV output) shows it too. */
  onyx_view_state_select_tensor (test_state (window), "present.6.key");
  wait_for_layout (window);
  g_assert_cmpstr (layout_node (window, stack_node (window))->stack_label, ==, "layers.6");
  selected = onyx_canvas_get_selected_node (test_canvas (window));
  g_assert_cmpint (selected, >=, 0);
  g_assert_cmpstr (layout_node (window, selected)->title, ==, "present.6.key");

  /* Beside layers.6's attention, what it reads of the mask's subgraph: a click selects
   * that tensor, the panel saying where it comes from. */
  {
    const OnyxLayout *layout = onyx_canvas_get_layout (test_canvas (window));
    g_autofree char *tensor_panel = NULL;
    int stub = -1;
    for (guint i = 0; i < layout->nodes->len; i++)
      if (g_array_index (layout->nodes, OnyxLayoutNode, i).kind == ONYX_LAYOUT_STUB &&
          g_array_index (layout->nodes, OnyxLayoutNode, i).index < 0)
        stub = (int) i;
    g_assert_cmpint (stub, >=, 0);
    g_assert_cmpstr (layout_node (window, stub)->title, ==, "from attn_mask_subgraph");
    g_signal_emit_by_name (test_canvas (window), "item-activated", stub, -1);
    tensor_panel = properties_text (window);
    g_assert_nonnull (strstr (tensor_panel, "/model/attn_mask_reformat/attn_mask_subgraph/"));
  }
  gtk_window_destroy (GTK_WINDOW (window));
}

/* An edit of the layer a stack shows takes it out of the stack, the rest folding on;
 * that layer stays open, with what the edit left selected in it. */
static void
test_llm_stack_edit (void)
{
  g_autofree char *path = test_data_path ("llm_stack.onnx");
  OnyxWindow *window = open_model_window (path);
  Onnx__GraphProto *graph = onyx_view_state_get_graph (test_state (window));
  const OnyxLayout *layout;
  gboolean layer_open = FALSE, layers_2_to_7 = FALSE;

  /* Zoomed out, the closed stack is still a card on two more. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (test_canvas (window)), "canvas.zoom-fit", NULL));
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "test-app-drawing-stack-closed-fit.png"), >, 2000);
  g_signal_emit_by_name (test_canvas (window), "item-activated", stack_node (window), -1);
  wait_for_layout (window);
  for (size_t n = 0; n < graph->n_node; n++)
    if (g_str_equal (graph->node[n]->name, "/model/layers.1/mlp/act_fn/Sigmoid"))
      onyx_view_state_select_node (test_state (window), graph->node[n]);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.bypass-node", NULL));
  wait_for_layout (window);
  /* The edit applied: one Sigmoid fewer. */
  {
    g_autofree char *ops = op_types (window);
    g_auto (GStrv) sigmoids = g_strsplit (ops, "Sigmoid", -1);
    g_assert_cmpuint (g_strv_length (sigmoids) - 1, ==, 7);
  }
  layout = onyx_canvas_get_layout (test_canvas (window));
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      layer_open |= g_strcmp0 (node->scope, "model/layers.1") == 0 && node->expanded;
      layers_2_to_7 |= node->stack_size == 6 && g_str_equal (node->title, "layers.2–7");
    }
  g_assert_true (layer_open);
  g_assert_true (layers_2_to_7);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
count_call (gpointer data, gpointer unused)
{
  ++*(int *) data;
}

/* A frame filled by one part (a new page of the panel) is painted before what another
 * part shows after it (a graph's first drawing), which waits until then; a frame not
 * filled makes no one wait. */
static void
test_frame_share (void)
{
  g_autofree char *path = test_data_path ("model_foo.onnx");
  OnyxWindow *window = open_model_window (path);
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  int calls = 0;
  gint64 filled_at;

  /* The model's page, new, filled a frame of its own: done once it was painted. */
  wait_for_frames (window);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  onyx_frame_share_after (GTK_WIDGET (window), count_call, &calls, NULL);
  g_assert_cmpint (calls, ==, 1);

  onyx_frame_share_fill (GTK_WIDGET (window));
  filled_at = gdk_frame_clock_get_frame_counter (clock);
  onyx_frame_share_after (GTK_WIDGET (window), count_call, &calls, NULL);
  onyx_frame_share_after (GTK_WIDGET (window), count_call, &calls, NULL);
  g_assert_cmpint (calls, ==, 1);
  while (calls < 3)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (gdk_frame_clock_get_frame_counter (clock), >, filled_at);
  /* Once done, at once again. */
  onyx_frame_share_after (GTK_WIDGET (window), count_call, &calls, NULL);
  g_assert_cmpint (calls, ==, 4);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int argc, char **argv)
{
  g_autofree char *home = test_private_xdg_folders ("app-drawing");
  int status;

  g_test_init (&argc, &argv, NULL);
  /* Xvfb has no session bus, which GTK warns about; criticals stay fatal. */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  adw_init ();
  g_test_add_func ("/app-drawing/paddle-style", test_paddle_style);
  g_test_add_func ("/app-drawing/lstm", test_lstm);
  g_test_add_func ("/app-drawing/llm-stack", test_llm_stack);
  g_test_add_func ("/app-drawing/llm-stack-edit", test_llm_stack_edit);
  g_test_add_func ("/app-drawing/frame-share", test_frame_share);
  status = g_test_run ();
  test_private_xdg_folders_remove (home);
  return status;
}
