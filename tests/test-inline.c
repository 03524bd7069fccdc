/* test-inline.c: Inline Functions on a function-per-module export and on hand-made
 * models: the calls are gone, names stay unique, attribute references resolve, undo
 * gives back the bytes and redo the inlined ones; recursion and opset conflicts are
 * refused without a change. */
#include "onyx-edits.h"
#include "onyx-graph-names.h"
#include "onyx-steps.h"
#include "onyx-steps.h"
#include "onyx-test-util.h"

#define TORCH_DOMAIN "pkg.torch.__subgraph__"

static void
changed_cb (OnyxDocument *doc, const OnyxChange *change, gboolean *whole_model)
{
  *whole_model = change != NULL && change->whole_model;
}

/* Every node of the model's graphs (main and subgraphs), into `nodes`. */
static void
collect_nodes (OnyxDocument *doc, GPtrArray *nodes)
{
  g_autoptr (GPtrArray) graphs = onyx_graph_list_graphs (onyx_document_get_proto (doc));

  for (guint g = 0; g < graphs->len; g++)
    {
      Onnx__GraphProto *graph = graphs->pdata[g];
      for (size_t n = 0; n < graph->n_node; n++)
        g_ptr_array_add (nodes, graph->node[n]);
    }
}

static Onnx__NodeProto *
node_named (GPtrArray *nodes, const char *name)
{
  for (guint i = 0; i < nodes->len; i++)
    if (g_strcmp0 (((Onnx__NodeProto *) nodes->pdata[i])->name, name) == 0)
      return nodes->pdata[i];
  return NULL;
}

static void
test_function_model (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("function_modules.onnx");
  g_autoptr (OnyxDocument) fresh = test_open_data ("function_modules.onnx");
  g_autoptr (GBytes) before = onyx_document_serialize (doc);
  g_autoptr (GBytes) after = NULL;
  g_autoptr (GBytes) undone = NULL;
  g_autoptr (GBytes) redone = NULL;
  g_autoptr (GBytes) replayed = NULL;
  g_autoptr (GPtrArray) nodes = g_ptr_array_new ();
  g_autoptr (GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) outputs = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GError) error = NULL;
  Onnx__ModelProto *model = onyx_document_get_proto (doc);
  g_autoptr (GPtrArray) replay = NULL;
  Onnx__NodeProto *leaky;
  gboolean whole_model = FALSE;
  guint n_outputs = 0;

  g_assert_cmpuint (model->n_functions, ==, 4);
  g_signal_connect (doc, "changed", G_CALLBACK (changed_cb), &whole_model);
  g_assert_true (onyx_edit_inline_functions (doc, &error));
  g_assert_no_error (error);
  g_assert_true (whole_model);
  g_assert_cmpstr (onyx_document_get_undo_label (doc), ==, "Inline functions");
  g_assert_cmpuint (model->n_functions, ==, 0);
  /* The calls' domain went with them; ai.onnx stayed. */
  g_assert_cmpuint (model->n_opset_import, ==, 1);
  g_assert_cmpstr (model->opset_import[0]->domain, ==, "");

  /* 6 nodes of Sequential, Sub, 2 of Head, If, Neg, 2 of Head; Relu and Neg in the If. */
  collect_nodes (doc, nodes);
  g_assert_cmpuint (nodes->len, ==, 15);
  g_assert_cmpuint (model->graph->n_node, ==, 13);
  for (guint i = 0; i < nodes->len; i++)
    {
      Onnx__NodeProto *node = nodes->pdata[i];
      g_assert_cmpstr (node->domain != NULL ? node->domain : "", !=, TORCH_DOMAIN);
      g_assert_true (g_hash_table_add (names, node->name));
      for (size_t k = 0; k < node->n_output; k++, n_outputs++)
        g_assert_true (g_hash_table_add (outputs, node->output[k]));
    }
  g_assert_cmpuint (n_outputs, ==, 15);
  /* Both Linear calls wrote `tmp`: each has its own. */
  g_assert_cmpstr (node_named (nodes, "Sequential_0/Linear_0/MatMul")->output[0], ==, "Sequential_0/Linear_0/tmp");
  g_assert_cmpstr (node_named (nodes, "Sequential_0/Linear_2/MatMul")->output[0], ==, "Sequential_0/Linear_2/tmp");
  g_assert_cmpstr (node_named (nodes, "Sequential_0/Linear_2/MatMul")->input[1], ==, "seq.2.weight");
  g_assert_cmpstr (node_named (nodes, "Sequential_0/ReLU_3/Relu")->output[0], ==, "sequential_0");
  g_assert_nonnull (node_named (nodes, "ReLU_branch/Relu"));
  /* alpha by reference: the call's value; not set by the call, dropped. */
  leaky = node_named (nodes, "Head_2/LeakyRelu");
  g_assert_cmpuint (leaky->n_attribute, ==, 1);
  g_assert_cmpstr (leaky->attribute[0]->name, ==, "alpha");
  g_assert_cmpstr (leaky->attribute[0]->ref_attr_name, ==, NULL);
  g_assert_cmpfloat_with_epsilon (leaky->attribute[0]->f, 0.2, 1e-6);
  g_assert_cmpuint (node_named (nodes, "Head_5/LeakyRelu")->n_attribute, ==, 0);
  /* Optional inputs left out: "" in the body, whether "" or missing in the call. */
  g_assert_cmpstr (node_named (nodes, "Head_2/Clip")->input[1], ==, "");
  g_assert_cmpstr (node_named (nodes, "Head_5/Clip")->input[2], ==, "");

  after = onyx_document_serialize (doc);
  g_assert_true (onyx_document_undo (doc));
  undone = onyx_document_serialize (doc);
  g_assert_true (g_bytes_equal (before, undone));
  g_assert_cmpuint (model->n_functions, ==, 4);
  g_assert_true (onyx_document_redo (doc));
  redone = onyx_document_serialize (doc);
  g_assert_true (g_bytes_equal (after, redone));

  /* The journal's entry replays to the same model. */
  replay = onyx_document_get_replay (doc);
  g_assert_cmpuint (replay->len, ==, 1);
  g_assert_true (onyx_edit_replay (fresh, replay->pdata[0], &error));
  g_assert_no_error (error);
  replayed = onyx_document_serialize (fresh);
  g_assert_true (g_bytes_equal (after, replayed));
  g_signal_handlers_disconnect_by_data (doc, &whole_model);
}

/* A function of TEST_DOMAIN with `nodes` (taken), one input x and one output y. */
static Onnx__FunctionProto *
test_function (const char *name, gint64 ai_onnx_version, Onnx__NodeProto **nodes, size_t n_nodes)
{
  Onnx__FunctionProto *function = g_new0 (Onnx__FunctionProto, 1);
  Onnx__OperatorSetIdProto *opset = g_new0 (Onnx__OperatorSetIdProto, 1);

  onnx__function_proto__init (function);
  onnx__operator_set_id_proto__init (opset);
  function->name = g_strdup (name);
  function->domain = g_strdup ("local");
  function->n_input = function->n_output = 1;
  function->input = g_new0 (char *, 1);
  function->input[0] = g_strdup ("x");
  function->output = g_new0 (char *, 1);
  function->output[0] = g_strdup ("y");
  function->n_node = n_nodes;
  function->node = g_memdup2 (nodes, n_nodes * sizeof *nodes);
  opset->domain = g_strdup ("");
  opset->has_version = TRUE;
  opset->version = ai_onnx_version;
  function->n_opset_import = 1;
  function->opset_import = g_new0 (Onnx__OperatorSetIdProto *, 1);
  function->opset_import[0] = opset;
  return function;
}

static Onnx__NodeProto *
call_node (const char *function, const char *name, const char *input, const char *output)
{
  Onnx__NodeProto *node = test_node (function, name, input, NULL, output, NULL);
  g_free (node->domain);
  node->domain = g_strdup ("local");
  return node;
}

/* main: x → call of `first` → y, the model importing ai.onnx 13 and "local". */
static OnyxDocument *
document_with_functions (const char *first, Onnx__FunctionProto **functions, size_t n_functions)
{
  Onnx__ModelProto *model = test_model_new ();
  Onnx__OperatorSetIdProto *local = g_new0 (Onnx__OperatorSetIdProto, 1);
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) loaded = NULL;
  const int64_t dims[] = { 2 };

  onnx__operator_set_id_proto__init (local);
  local->domain = g_strdup ("local");
  local->has_version = TRUE;
  local->version = 1;
  TEST_APPEND (model->opset_import, model->n_opset_import, local);
  TEST_APPEND (model->graph->input, model->graph->n_input, test_value_info ("x", 1, dims));
  TEST_APPEND (model->graph->output, model->graph->n_output, test_value_info ("y", 1, dims));
  TEST_APPEND (model->graph->node, model->graph->n_node, call_node (first, "Call_0", "x", "y"));
  model->functions = g_memdup2 (functions, n_functions * sizeof *functions);
  model->n_functions = n_functions;
  loaded = test_model_load (model, &error);
  g_assert_no_error (error);
  return onyx_document_new (loaded);
}

/* The edit fails with `code` and leaves the model as it was. */
static void
assert_refused (OnyxDocument *doc, int code, const char *message_part)
{
  g_autoptr (GBytes) before = onyx_document_serialize (doc);
  g_autoptr (GBytes) after = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_false (onyx_edit_inline_functions (doc, &error));
  g_assert_error (error, ONYX_EDIT_ERROR, code);
  g_assert_nonnull (strstr (error->message, message_part));
  after = onyx_document_serialize (doc);
  g_assert_true (g_bytes_equal (before, after));
  g_assert_false (onyx_document_can_undo (doc));
}

static void
test_recursion_refused (void)
{
  Onnx__NodeProto *a_body[] = { call_node ("B", "CallB", "x", "y") };
  Onnx__NodeProto *b_body[] = { test_node ("Relu", "Relu", "x", NULL, "r", NULL), call_node ("A", "CallA", "r", "y") };
  Onnx__FunctionProto *functions[] = { test_function ("A", 13, a_body, 1), test_function ("B", 13, b_body, 2) };
  g_autoptr (OnyxDocument) doc = document_with_functions ("A", functions, 2);

  assert_refused (doc, ONYX_EDIT_ERROR_CYCLE, "local function A calls itself (A → B → A)");
}

static void
test_opset_conflict_refused (void)
{
  Onnx__NodeProto *body[] = { test_node ("Relu", "Relu", "x", NULL, "y", NULL) };
  Onnx__FunctionProto *functions[] = { test_function ("F", 14, body, 1) };
  g_autoptr (OnyxDocument) doc = document_with_functions ("F", functions, 1);

  assert_refused (doc, ONYX_EDIT_ERROR_INVALID, "imports ai.onnx version 14, the model version 13");
}

static void
test_no_functions_refused (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("model_foo.onnx");

  assert_refused (doc, ONYX_EDIT_ERROR_NOT_FOUND, "no local functions");
}

/* FunctionProto.attribute_proto (field 11, unknown to Debian's onnx.proto) holding
 * alpha = 0.3, as an IR 9 exporter writes it. */
static void
add_default_alpha (Onnx__FunctionProto *function)
{
  Onnx__AttributeProto attribute;
  ProtobufCMessageUnknownField *field;
  size_t size;

  onnx__attribute_proto__init (&attribute);
  attribute.name = (char *) "alpha";
  attribute.has_type = TRUE;
  attribute.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
  attribute.has_f = TRUE;
  attribute.f = 0.3f;
  function->base.n_unknown_fields = 1;
  function->base.unknown_fields = field = g_new0 (ProtobufCMessageUnknownField, 1);
  field->tag = 11;
  field->wire_type = PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
  /* As protobuf-c keeps it: the length varint (one byte here), then the message. */
  size = onnx__attribute_proto__get_packed_size (&attribute);
  g_assert_cmpuint (size, <, 128);
  field->len = size + 1;
  field->data = g_malloc (field->len);
  field->data[0] = (guint8) size;
  onnx__attribute_proto__pack (&attribute, field->data + 1);
}

static Onnx__NodeProto *
leaky_with_reference (const char *name, const char *input, const char *output)
{
  Onnx__NodeProto *node = test_node ("LeakyRelu", name, input, NULL, output, NULL);
  Onnx__AttributeProto *reference = g_new0 (Onnx__AttributeProto, 1);

  onnx__attribute_proto__init (reference);
  reference->name = g_strdup ("alpha");
  reference->ref_attr_name = g_strdup ("alpha");
  reference->has_type = TRUE;
  reference->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
  TEST_APPEND (node->attribute, node->n_attribute, reference);
  return node;
}

/* The default of attribute_proto fills a reference the call leaves unset; a function
 * output that is its input becomes an Identity; an unnamed call names the body after
 * the function. */
static void
test_default_and_pass_through (void)
{
  Onnx__NodeProto *outer_body[] = { call_node ("Leaky", "", "x", "h"), call_node ("Pass", "", "h", "y") };
  Onnx__NodeProto *leaky_body[] = { leaky_with_reference ("Leaky", "x", "y") };
  Onnx__FunctionProto *functions[] = { test_function ("Outer", 13, outer_body, 2),
                                       test_function ("Leaky", 13, leaky_body, 1),
                                       test_function ("Pass", 13, NULL, 0) };
  g_autoptr (OnyxDocument) doc = NULL;
  g_autoptr (GError) error = NULL;
  Onnx__GraphProto *graph;

  add_default_alpha (functions[1]);
  g_free (functions[2]->output[0]);
  functions[2]->output[0] = g_strdup ("x");
  doc = document_with_functions ("Outer", functions, 3);
  g_assert_true (onyx_edit_inline_functions (doc, &error));
  g_assert_no_error (error);
  graph = onyx_document_get_proto (doc)->graph;
  g_assert_cmpuint (graph->n_node, ==, 2);
  g_assert_cmpstr (graph->node[0]->name, ==, "Call_0/Leaky/Leaky");
  g_assert_cmpstr (graph->node[0]->input[0], ==, "x");
  g_assert_cmpstr (graph->node[0]->output[0], ==, "Call_0/h");
  g_assert_cmpuint (graph->node[0]->n_attribute, ==, 1);
  g_assert_cmpfloat_with_epsilon (graph->node[0]->attribute[0]->f, 0.3, 1e-6);
  g_assert_cmpstr (graph->node[1]->op_type, ==, "Identity");
  g_assert_cmpstr (graph->node[1]->input[0], ==, "Call_0/h");
  g_assert_cmpstr (graph->node[1]->output[0], ==, "y");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/inline/function-model", test_function_model);
  g_test_add_func ("/inline/recursion-refused", test_recursion_refused);
  g_test_add_func ("/inline/opset-conflict-refused", test_opset_conflict_refused);
  g_test_add_func ("/inline/no-functions-refused", test_no_functions_refused);
  g_test_add_func ("/inline/default-and-pass-through", test_default_and_pass_through);
  return g_test_run ();
}
