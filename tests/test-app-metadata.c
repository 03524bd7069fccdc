/* test-app-metadata.c: a model as PyTorch's dynamo exporter writes it
 * (dynamo_metadata.onnx, flat node names, modules in metadata_props) in the real
 * window under Xvfb: the canvas groups are the modules with their classes, and the
 * panel shows a node's module, class chain and source line, its other entries, and
 * the entries of tensors and of the graph. Snapshots are written as PNG. */
#include "onyx-app-test-util.h"

#include "onyx-edits.h"

static void
assert_contains (const char *text, const char *part)
{
  if (strstr (text, part) == NULL)
    g_error ("panel lacks \"%s\"; it reads:\n%s", part, text);
}

static const OnyxLayoutNode *
group_titled (OnyxWindow *window, const char *title)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (test_canvas (window));

  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      if (node->kind == ONYX_LAYOUT_GROUP && g_strcmp0 (node->title, title) == 0)
        return node;
    }
  g_error ("no group titled %s on the canvas", title);
}

static void
test_modules (void)
{
  g_autofree char *path = test_data_path ("dynamo_metadata.onnx");
  OnyxWindow *window = open_model_window (path);
  const OnyxLayout *layout = onyx_canvas_get_layout (test_canvas (window));
  const OnyxLayoutNode *network, *first, *second;
  g_autofree char *text = NULL;

  /* The modules with their class, network.0 and network.2 open inside network. */
  network = group_titled (window, "network · Sequential");
  first = group_titled (window, "network.0 · Linear");
  second = group_titled (window, "network.2 · Linear");
  g_assert_true (network->expanded && first->expanded && second->expanded);
  g_assert_true (&g_array_index (layout->nodes, OnyxLayoutNode, first->parent) == network);
  g_assert_true (&g_array_index (layout->nodes, OnyxLayoutNode, second->parent) == network);
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "test-app-metadata-graph.png"), >, 2000);

  /* The node panel: module, classes, the user's line first, then the stack. */
  onyx_view_state_select_node (test_state (window), onyx_document_find_node (onyx_window_get_document (window), "node_MatMul_0", NULL));
  g_assert_nonnull (onyx_view_state_get_selected_node (test_state (window)));
  text = properties_text (window);
  assert_contains (text, "\nPyTorch Module\n");
  assert_contains (text, "\nModule\nnetwork.0 · Linear\n");
  assert_contains (text, "\nPath\nnetwork › network.0\n");
  assert_contains (text, "\nClasses\nNet › Sequential › Linear › aten.linear.default\n");
  assert_contains (text, "\nSource\ntrain.py:96 in forward\n<tt>x = self.network(x)</tt>\n");
  assert_contains (text, "\nStack\ncontainer.py:250 in forward\n<tt>input = module(input)</tt>\n");
  /* Entries the Module section is not made of, as they are. */
  assert_contains (text, "\nMetadata\n");
  assert_contains (text, "\npkg.torch.onnx.fx_node\n%linear : [num_users=1]");
  g_assert_null (strstr (text, "pkg.torch.onnx.stack_trace"));
  g_assert_null (strstr (text, "pkg.torch.onnx.name_scopes"));
  wait_for_frames (window);
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "test-app-metadata-node.png"), >, 2000);
  snapshot_to_png (GTK_WIDGET (test_properties (window)), "test-app-metadata-node-panel.png");

  /* An op at the top of the module tree. */
  onyx_view_state_select_node (test_state (window), onyx_document_find_node (onyx_window_get_document (window), "node_add", NULL));
  g_free (text);
  text = properties_text (window);
  assert_contains (text, "\nModule\nthe model itself (top level)\n");
  assert_contains (text, "\nSource\ntrain.py:97 in forward\n<tt>return x + self.offset</tt>\n");

  /* Tensors: a graph input's entries, a value_info's. */
  onyx_view_state_select_tensor (test_state (window), "x");
  g_free (text);
  text = properties_text (window);
  assert_contains (text, "\npkg.torch.export.graph_signature.InputSpec.kind\nUSER_INPUT\n");
  onyx_view_state_select_tensor (test_state (window), "relu");
  g_free (text);
  text = properties_text (window);
  assert_contains (text, "\npkg.torch.onnx.original_node_name\nrelu\n");

  /* The graph's own, with the model. */
  onyx_view_state_select_model (test_state (window));
  g_free (text);
  text = properties_text (window);
  assert_contains (text, "\nGraph Metadata\n");
  assert_contains (text, "\nmade_by\ntools/make-dynamo-model.py\n");

  onyx_files_discard_journal (onyx_window_get_files (window));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int argc, char **argv)
{
  g_autofree char *home = test_private_xdg_folders ("app-metadata");
  int status;

  g_test_init (&argc, &argv, NULL);
  /* Xvfb has no session bus, which GTK warns about; criticals stay fatal. */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  adw_init ();
  g_test_add_func ("/app-metadata/modules", test_modules);
  status = g_test_run ();
  test_private_xdg_folders_remove (home);
  return status;
}
