/* metadata_props read from declared and unknown fields; the dynamo exporter's module
 * entries parsed, malformed ones included; layout groups made of modules. */
#define _GNU_SOURCE  /* memmem */
#include <string.h>

#include "onyx-layout-private.h"
#include "onyx-metadata.h"
#include "onyx-test-util.h"

/* The node with `key`=`value` pairs (NULL-terminated) appended as field 9, as the
 * dynamo exporter writes them; unpacked again, so that an onnx.proto without the
 * field keeps them as unknown fields. */
static Onnx__NodeProto *
with_metadata (Onnx__NodeProto *node, ...)
{
  g_autoptr (GBytes) packed = onyx_proto_pack (&node->base);
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  Onnx__NodeProto *result;
  va_list args;

  g_byte_array_append (bytes, g_bytes_get_data (packed, NULL), g_bytes_get_size (packed));
  va_start (args, node);
  for (const char *key = va_arg (args, const char *); key != NULL; key = va_arg (args, const char *))
    {
      Onnx__StringStringEntryProto entry = ONNX__STRING_STRING_ENTRY_PROTO__INIT;
      g_autoptr (GBytes) body = NULL;
      guint8 head[6] = { 0x4a };  /* field 9, length-delimited; then the length varint */
      guint used = 1;
      gsize n;

      entry.key = (char *) key;
      entry.value = va_arg (args, char *);
      body = onyx_proto_pack (&entry.base);
      n = g_bytes_get_size (body);
      for (; n >= 0x80; n >>= 7)
        head[used++] = (guint8) (n | 0x80);
      head[used++] = (guint8) n;
      g_byte_array_append (bytes, head, used);
      g_byte_array_append (bytes, g_bytes_get_data (body, NULL), g_bytes_get_size (body));
    }
  va_end (args);
  protobuf_c_message_free_unpacked (&node->base, NULL);
  result = onnx__node_proto__unpack (NULL, bytes->len, bytes->data);
  g_assert_nonnull (result);
  return result;
}

static void
test_python_list (void)
{
  const struct { const char *text; const char *joined; } good[] = {
    { "['', 'network', 'network.0', 'linear']", "|network|network.0|linear" },
    { "[]", "" },
    { "  [ 'a' ,\"b\" , ]  ", "a|b" },
    { "[\"it's\", 'say \"hi\"']", "it's|say \"hi\"" },
    { "['back\\\\slash', 'quote\\'', 'tab\\t', 'caf\\xe9', '\\u00e9t\\u00e9', '\\d']",
      "back\\slash|quote'|tab\t|café|été|\\d" },
  };
  const char *bad[] = {
    NULL, "", "[", "]", "['a'", "['a' 'b']", "[1, 2]", "['a'] x", "('a',)", "['a\\x4']",
    "['a\\x00']", "['a\\", "['a\nb']", "[,]", "['a',,]", "['\\U00110000']", "[\xff'a']", "['a'",
  };

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_auto (GStrv) items = onyx_python_str_list_parse (good[i].text);
      g_autofree char *joined = NULL;
      g_assert_nonnull (items);
      joined = g_strjoinv ("|", items);
      g_assert_cmpstr (joined, ==, good[i].joined);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    if (onyx_python_str_list_parse (bad[i]) != NULL)
      g_error ("accepted malformed list %s", bad[i]);
}

#define TRACE \
  "  File \"/home/u/proj/train.py\", line 96, in forward\n" \
  "    x = self.block(x)\n" \
  "  File \"/usr/lib/python3/dist-packages/torch/nn/modules/module.py\", line 1775, in _call_impl\n" \
  "    return forward_call(*args, **kwargs)\n" \
  "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n" \
  "  File \"/home/u/proj/blocks.py\", line 12, in forward\n" \
  "    return self.fc(x)\n" \
  "  File \"/home/u/src/pytorch/torch/nn/modules/linear.py\", line 125, in forward\n" \
  "    return F.linear(input, self.weight, self.bias)"

static void
test_stack_trace (void)
{
  g_autoptr (GPtrArray) frames = onyx_python_stack_parse (TRACE);
  const OnyxSourceFrame *f;
  const char *other[] = {
    "C:\\Users\\u\\venv\\Lib\\site-packages\\torch\\nn\\functional.py", "<frozen runpy>",
    "/usr/lib/python3.11/contextlib.py", "/home/u/.venv/lib/python3.11/site-packages/x.py",
  };

  g_assert_cmpuint (frames->len, ==, 4);
  f = frames->pdata[0];
  g_assert_cmpstr (f->file, ==, "/home/u/proj/train.py");
  g_assert_cmpint (f->line, ==, 96);
  g_assert_cmpstr (f->function, ==, "forward");
  g_assert_cmpstr (f->code, ==, "x = self.block(x)");
  g_assert_true (f->user);
  f = frames->pdata[1];
  g_assert_cmpstr (f->function, ==, "_call_impl");
  g_assert_cmpstr (f->code, ==, "return forward_call(*args, **kwargs)");
  g_assert_false (f->user);
  g_assert_true (((OnyxSourceFrame *) frames->pdata[2])->user);
  /* A torch source checkout is torch's, not the user's. */
  g_assert_false (((OnyxSourceFrame *) frames->pdata[3])->user);
  for (guint i = 0; i < G_N_ELEMENTS (other); i++)
    {
      g_autofree char *text = g_strdup_printf ("File \"%s\", line 1, in f", other[i]);
      g_autoptr (GPtrArray) one = onyx_python_stack_parse (text);
      g_assert_cmpuint (one->len, ==, 1);
      if (((OnyxSourceFrame *) one->pdata[0])->user)
        g_error ("%s taken for the user's file", other[i]);
      g_assert_null (((OnyxSourceFrame *) one->pdata[0])->code);
    }
  /* Malformed frames are left out, never half read. */
  {
    const char *bad[] = { "File \"a.py\", line x, in f", "File \"a.py\"", "File a.py, line 3",
                          "File \"a.py\", line -3, in f", "File \"a.py\", line 99999999999, in f",
                          "", "garbage\n\n\xff" };
    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        g_autoptr (GPtrArray) none = onyx_python_stack_parse (bad[i]);
        g_assert_cmpuint (none->len, ==, 0);
      }
  }
}

static void
test_module_info (void)
{
  g_autoptr (OnyxModuleInfo) info = onyx_module_info_parse (
    "['', 'block', 'block.fc', 'linear']",
    "['__main__.Net', '__main__.Block', 'torch.nn.modules.linear.Linear', 'aten.linear.default']", NULL, TRACE);
  g_autoptr (OnyxModuleInfo) from_namespace = NULL, no_classes = NULL, root_op = NULL, only_trace = NULL;
  g_autofree char *label = NULL, *chain = NULL, *where = NULL;
  const OnyxSourceFrame *first;

  g_assert_nonnull (info);
  g_assert_cmpuint (g_strv_length (info->path), ==, 2);
  g_assert_cmpstr (info->path[1], ==, "block.fc");
  g_assert_cmpstr (info->classes[1], ==, "torch.nn.modules.linear.Linear");
  g_assert_cmpstr (info->root_class, ==, "__main__.Net");
  g_assert_cmpstr (info->op, ==, "linear");
  g_assert_cmpstr (info->op_class, ==, "aten.linear.default");
  label = onyx_module_info_label (info, 1);
  g_assert_cmpstr (label, ==, "block.fc · Linear");
  chain = onyx_module_info_class_chain (info);
  g_assert_cmpstr (chain, ==, "Net › Block › Linear › aten.linear.default");
  /* The innermost user frame (the line that made the op) first, then the trace's order. */
  first = info->frames->pdata[0];
  g_assert_cmpstr (first->file, ==, "/home/u/proj/blocks.py");
  g_assert_cmpstr (((OnyxSourceFrame *) info->frames->pdata[1])->file, ==, "/home/u/proj/train.py");
  where = onyx_source_frame_location (first);
  g_assert_cmpstr (where, ==, "blocks.py:12 in forward");

  /* No name_scopes (or a malformed one): the namespace entry says the same. */
  from_namespace = onyx_module_info_parse ("['', 'block'", NULL,
                                           ": __main__.Net/block: __main__.Block/relu: aten.relu.default", NULL);
  g_assert_nonnull (from_namespace);
  g_assert_cmpuint (g_strv_length (from_namespace->path), ==, 1);
  g_assert_cmpstr (from_namespace->path[0], ==, "block");
  g_assert_cmpstr (onyx_class_short_name (from_namespace->classes[0]), ==, "Block");
  g_assert_cmpstr (from_namespace->op_class, ==, "aten.relu.default");
  g_assert_cmpuint (from_namespace->frames->len, ==, 0);

  /* Classes that do not pair with the scopes are dropped, the path kept. */
  no_classes = onyx_module_info_parse ("['', 'a', 'op']", "['Net', 'A']", NULL, NULL);
  g_assert_nonnull (no_classes);
  g_assert_null (no_classes->classes);
  g_clear_pointer (&label, g_free);
  label = onyx_module_info_label (no_classes, 0);
  g_assert_cmpstr (label, ==, "a");

  root_op = onyx_module_info_parse ("['', 'add']", "['__main__.Net', 'aten.add.Tensor']", NULL, NULL);
  g_assert_cmpuint (g_strv_length (root_op->path), ==, 0);
  g_assert_cmpstr (root_op->op, ==, "add");

  only_trace = onyx_module_info_parse (NULL, NULL, "no colon here", TRACE);
  g_assert_nonnull (only_trace);
  g_assert_cmpuint (g_strv_length (only_trace->path), ==, 0);
  g_assert_cmpuint (only_trace->frames->len, ==, 4);

  g_assert_null (onyx_module_info_parse (NULL, NULL, NULL, NULL));
  g_assert_null (onyx_module_info_parse ("[1]", "['a']", "a/b", "not a trace"));
  g_assert_null (onyx_module_info_parse ("", "", "", ""));
}

/* Field 9 of a node read as the build's onnx.proto has it (unknown on Debian 12's). */
static void
test_node_entries (void)
{
  Onnx__NodeProto *node = with_metadata (test_node ("Relu", "node_relu", "x", NULL, "y", NULL),
                                         "pkg.torch.onnx.name_scopes", "['', 'net', 'relu']",
                                         "pkg.torch.onnx.fx_node", "%relu", NULL);
  g_autoptr (GPtrArray) entries = onyx_metadata_get (&node->base);
  g_autoptr (OnyxModuleInfo) info = onyx_module_info_new_for_node (node, TRUE);
  g_autoptr (GBytes) again = onyx_proto_pack (&node->base);

  g_assert_cmpuint (entries->len, ==, 2);
  g_assert_cmpstr (((OnyxMetadataEntry *) entries->pdata[1])->key, ==, "pkg.torch.onnx.fx_node");
  g_assert_cmpstr (onyx_metadata_lookup (entries, "pkg.torch.onnx.fx_node"), ==, "%relu");
  g_assert_null (onyx_metadata_lookup (entries, "namespace"));
  g_assert_nonnull (info);
  g_assert_cmpstr (info->path[0], ==, "net");
  g_assert_true (onyx_metadata_key_is_module ("pkg.torch.onnx.name_scopes"));
  g_assert_false (onyx_metadata_key_is_module ("pkg.torch.onnx.fx_node"));
  /* Written back as read. */
  g_assert_nonnull (g_bytes_get_data (again, NULL));
  g_assert_true (memmem (g_bytes_get_data (again, NULL), g_bytes_get_size (again),
                         "['', 'net', 'relu']", 19) != NULL);
  protobuf_c_message_free_unpacked (&node->base, NULL);
}

/* ModelProto.metadata_props is declared in every onnx.proto: read through the
 * descriptor's offsets. */
static void
test_declared_entries (void)
{
  Onnx__ModelProto *model = test_model_new ();
  Onnx__StringStringEntryProto *entry = g_new0 (Onnx__StringStringEntryProto, 1);
  g_autoptr (GPtrArray) entries = NULL;
  g_autoptr (GPtrArray) none = NULL;
  Onnx__TensorProto tensor = ONNX__TENSOR_PROTO__INIT;

  onnx__string_string_entry_proto__init (entry);
  entry->key = g_strdup ("author");
  entry->value = g_strdup ("u");
  TEST_APPEND (model->metadata_props, model->n_metadata_props, entry);
  entries = onyx_metadata_get (&model->base);
  g_assert_cmpuint (entries->len, ==, 1);
  g_assert_cmpstr (onyx_metadata_lookup (entries, "author"), ==, "u");
  /* A type this reader does not cover has none. */
  none = onyx_metadata_get (&tensor.base);
  g_assert_cmpuint (none->len, ==, 0);
  protobuf_c_message_free_unpacked (&model->base, NULL);
}

/* Broken field-9 bytes are skipped: a truncated entry, a varint with tag 9. */
static void
test_malformed_unknown (void)
{
  /* op_type "Relu", then field 9 holding 3 bytes of a 5-byte string, then a field 9
   * written as a varint, then a good entry {key "k", value "v"}. */
  static const guint8 bytes[] = { 0x22, 4, 'R', 'e', 'l', 'u', 0x4a, 3, 0x0a, 5, 'a', 0x48, 7,
                                  0x4a, 6, 0x0a, 1, 'k', 0x12, 1, 'v' };
  Onnx__NodeProto *node;
  g_autoptr (GPtrArray) entries = NULL;

  if (protobuf_c_message_descriptor_get_field (&onnx__node_proto__descriptor, 9) != NULL)
    {
      g_test_skip ("NodeProto.metadata_props is declared in this build's onnx.proto");
      return;
    }
  node = onnx__node_proto__unpack (NULL, sizeof bytes, bytes);
  g_assert_nonnull (node);
  g_assert_cmpuint (node->base.n_unknown_fields, ==, 3);
  entries = onyx_metadata_get (&node->base);
  g_assert_cmpuint (entries->len, ==, 1);
  g_assert_cmpstr (onyx_metadata_lookup (entries, "k"), ==, "v");
  g_assert_null (onyx_module_info_new_for_node (node, TRUE));
  protobuf_c_message_free_unpacked (&node->base, NULL);
}

/* The exporter's model: entries of nodes, a value_info, inputs and the graph. */
static void
test_dynamo_model_entries (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("dynamo_metadata.onnx");
  Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  g_autoptr (GPtrArray) node_entries = onyx_metadata_get (&graph->node[0]->base);
  g_autoptr (GPtrArray) input_entries = onyx_metadata_get (&graph->input[0]->base);
  g_autoptr (GPtrArray) info_entries = onyx_metadata_get (&graph->value_info[0]->base);
  g_autoptr (GPtrArray) graph_entries = onyx_metadata_get (&graph->base);
  g_autoptr (OnyxModuleInfo) info = onyx_module_info_new_for_node (graph->node[0], TRUE);
  const OnyxSourceFrame *frame;

  g_assert_cmpuint (node_entries->len, ==, 5);
  g_assert_nonnull (onyx_metadata_lookup (node_entries, "pkg.torch.onnx.fx_node"));
  g_assert_cmpstr (onyx_metadata_lookup (input_entries, "pkg.torch.export.graph_signature.InputSpec.kind"),
                   ==, "USER_INPUT");
  g_assert_cmpstr (onyx_metadata_lookup (info_entries, "pkg.torch.onnx.original_node_name"), ==, "relu");
  g_assert_cmpstr (onyx_metadata_lookup (graph_entries, "made_by"), ==, "tools/make-dynamo-model.py");
  g_assert_nonnull (info);
  g_assert_cmpuint (g_strv_length (info->path), ==, 2);
  g_assert_cmpstr (info->path[1], ==, "network.0");
  frame = info->frames->pdata[0];
  g_assert_true (frame->user);
  g_assert_cmpint (frame->line, ==, 96);
  g_assert_cmpstr (frame->code, ==, "x = self.network(x)");
}

static const OnyxLayoutNode *
find_group (const OnyxLayout *layout, const char *scope)
{
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      if (node->kind == ONYX_LAYOUT_GROUP && g_strcmp0 (node->scope, scope) == 0)
        return node;
    }
  g_error ("no group %s in the layout", scope);
}

/* Modules are the groups, nested as the module tree, titled with their class. */
static void
test_layout_groups (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("dynamo_metadata.onnx");
  Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  g_autoptr (OnyxLayoutEngine) engine = onyx_layout_engine_new (graph);
  g_autoptr (GHashTable) expanded = onyx_layout_engine_expansion (engine, ONYX_EXPAND_ALL, NULL, NULL);
  g_autoptr (OnyxLayout) layout = onyx_layout_engine_run (engine, expanded, NULL, NULL, NULL);
  const char *scopes[] = { "network/network.0", "network/network.0", "network/network.1",
                           "network/network.2", "network/network.2", "" };
  const OnyxLayoutNode *network, *first;

  g_assert_cmpuint (graph->n_node, ==, G_N_ELEMENTS (scopes));
  for (guint n = 0; n < graph->n_node; n++)
    g_assert_cmpstr (onyx_layout_engine_node_scope (engine, n), ==, scopes[n]);
  g_assert_nonnull (layout);
  network = find_group (layout, "network");
  first = find_group (layout, "network/network.0");
  g_assert_cmpstr (network->title, ==, "network · Sequential");
  g_assert_cmpstr (first->title, ==, "network.0 · Linear");
  g_assert_cmpstr (first->subtitle, ==, "2 nodes");
  /* network.0 is drawn inside network. */
  g_assert_true (first->parent >= 0);
  g_assert_true (&g_array_index (layout->nodes, OnyxLayoutNode, first->parent) == network);
  g_assert_cmpstr (find_group (layout, "network/network.2")->title, ==, "network.2 · Linear");
  /* An open group is as wide as its header line ("network.0 · Linear · 2 nodes"),
   * here wider than the column of boxes inside it. */
  {
    Group *group = g_hash_table_lookup (engine->groups, "network/network.0");
    const OnyxLayoutNode *matmul = NULL;
    for (guint i = 0; i < layout->nodes->len && matmul == NULL; i++)
      if (g_array_index (layout->nodes, OnyxLayoutNode, i).kind == ONYX_LAYOUT_OP)
        matmul = &g_array_index (layout->nodes, OnyxLayoutNode, i);
    g_assert_nonnull (matmul);
    g_assert_cmpfloat (group->open_min_width, >, matmul->box.width + 2 * GROUP_PADDING);
    g_assert_cmpfloat (first->box.width, >=, group->open_min_width - 1);
  }
}

/* 1,000 nodes exported by dynamo, nearly all at the top of the module tree: they
 * are where the metadata says, not cut into "nodes 120–247" blocks. */
static void
test_no_blocks_with_modules (void)
{
  Onnx__ModelProto *proto = test_model_new ();
  Onnx__GraphProto *graph = proto->graph;
  const int64_t dims[] = { 4 };
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = NULL;
  g_autoptr (OnyxLayoutEngine) engine = NULL;
  char *previous = g_strdup ("x");

  TEST_APPEND (graph->input, graph->n_input, test_value_info ("x", 1, dims));
  for (guint i = 0; i < 1000; i++)
    {
      g_autofree char *name = g_strdup_printf ("node_relu_%u", i);
      char *out = g_strdup_printf ("relu_%u", i);
      Onnx__NodeProto *node = test_node ("Relu", name, previous, NULL, out, NULL);
      TEST_APPEND (graph->node, graph->n_node,
                   with_metadata (node, "pkg.torch.onnx.name_scopes",
                                  i < 10 ? "['', 'head', 'relu']" : "['', 'relu']", NULL));
      g_free (previous);
      previous = out;
    }
  TEST_APPEND (graph->output, graph->n_output, test_value_info (previous, 1, dims));
  g_free (previous);
  model = test_model_load (proto, &error);
  g_assert_no_error (error);
  engine = onyx_layout_engine_new (onyx_model_get_proto (model)->graph);
  for (guint n = 0; n < 1000; n++)
    g_assert_cmpstr (onyx_layout_engine_node_scope (engine, n), ==, n < 10 ? "head" : "");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/metadata/python-list", test_python_list);
  g_test_add_func ("/metadata/stack-trace", test_stack_trace);
  g_test_add_func ("/metadata/module-info", test_module_info);
  g_test_add_func ("/metadata/node-entries", test_node_entries);
  g_test_add_func ("/metadata/declared-entries", test_declared_entries);
  g_test_add_func ("/metadata/malformed-unknown", test_malformed_unknown);
  g_test_add_func ("/metadata/dynamo-model", test_dynamo_model_entries);
  g_test_add_func ("/metadata/layout-groups", test_layout_groups);
  g_test_add_func ("/metadata/no-blocks-with-modules", test_no_blocks_with_modules);
  return g_test_run ();
}
