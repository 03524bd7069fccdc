/* onyx_model_extract in the core: payloads shared with the source (which is left as
 * it was and may go first), and its errors. The node sets and their running against
 * onnx.utils.extract_model are checked by test_extract_cli.py. */
#include "onyx-extract.h"
#include "onyx-test-util.h"

static OnyxModel *
load_walkthrough_model (void)
{
  g_autofree char *path = test_data_path ("model.onnx");
  g_autoptr (GError) error = NULL;
  OnyxModel *model = onyx_model_new_from_file (path, &error);
  g_assert_no_error (error);
  return model;
}

static Onnx__TensorProto *
find_initializer (Onnx__GraphProto *graph, const char *name)
{
  for (size_t i = 0; i < graph->n_initializer; i++)
    if (g_strcmp0 (graph->initializer[i]->name, name) == 0)
      return graph->initializer[i];
  return NULL;
}

static void
test_payloads_are_shared (void)
{
  OnyxModel *model = load_walkthrough_model ();
  const char *const inputs[] = { "/model/model.2/Relu_output_0", NULL };
  const char *const outputs[] = { "output", NULL };
  g_autoptr (GBytes) before = onyx_model_serialize (model);
  g_autoptr (GBytes) after = NULL;
  g_autoptr (GBytes) saved_bytes = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) cut = onyx_model_extract (model, inputs, outputs, &error);
  Onnx__GraphProto *graph;
  Onnx__TensorProto *weight, *source_weight;
  g_autofree guint8 *weight_copy = NULL;

  g_assert_no_error (error);
  graph = onyx_model_get_proto (cut)->graph;
  g_assert_cmpuint (graph->n_node, ==, 2);
  g_assert_cmpstr (graph->node[0]->op_type, ==, "Conv");
  g_assert_cmpuint (graph->n_initializer, ==, 2);
  g_assert_cmpstr (graph->input[0]->name, ==, inputs[0]);
  g_assert_nonnull (graph->input[0]->type);
  g_assert_cmpstr (graph->output[0]->name, ==, "output");

  /* The 36 KB weight is the very bytes of the source's mapping; its 256-byte bias was
   * copied at load already, and is copied again. */
  weight = find_initializer (graph, "onnx::Conv_25");
  source_weight = find_initializer (onyx_model_get_proto (model)->graph, "onnx::Conv_25");
  g_assert_true (weight->raw_data.data == source_weight->raw_data.data);
  g_assert_cmpuint (weight->raw_data.len, ==, 36864);
  g_assert_cmpuint (onyx_model_get_n_mapped_tensors (cut), ==, 1);
  g_assert_true (find_initializer (graph, "onnx::Conv_26")->raw_data.data !=
                 find_initializer (onyx_model_get_proto (model)->graph, "onnx::Conv_26")->raw_data.data);

  after = onyx_model_serialize (model);
  g_assert_true (g_bytes_equal (before, after));

  /* The cut keeps the mapping alive after the source is gone. */
  weight_copy = g_memdup2 (weight->raw_data.data, weight->raw_data.len);
  g_object_unref (model);
  saved_bytes = onyx_model_serialize (cut);
  g_assert_cmpuint (g_bytes_get_size (saved_bytes), >, weight->raw_data.len);
  g_assert_cmpmem (weight->raw_data.data, weight->raw_data.len, weight_copy, 36864);
}

static void
test_errors (void)
{
  g_autoptr (OnyxModel) model = load_walkthrough_model ();
  const char *const relu[] = { "/model/model.2/Relu_output_0", NULL };
  const char *const none[] = { NULL };
  const char *const unknown[] = { "nope", NULL };
  const char *const output[] = { "output", NULL };
  GError *error = NULL;

  g_assert_null (onyx_model_extract (model, relu, unknown, &error));
  g_assert_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_NOT_FOUND);
  g_assert_cmpstr (error->message, ==, "'nope' is not a tensor of the main graph");
  g_clear_error (&error);

  g_assert_null (onyx_model_extract (model, none, output, &error));
  g_assert_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID);
  g_assert_cmpstr (error->message, ==,
                   "'output' cannot be computed from the given inputs: it needs 'input', "
                   "a graph input that is not listed");
  g_clear_error (&error);

  g_assert_null (onyx_model_extract (model, relu, none, &error));
  g_assert_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID);
  g_clear_error (&error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/extract/payloads-are-shared", test_payloads_are_shared);
  g_test_add_func ("/extract/errors", test_errors);
  return g_test_run ();
}
