/* Simplify's fusions as one undo step: the BatchNormalizations of a paddle2onnx-style
 * model folded into their Convs (weights and biases replaced under their own names),
 * then undone to the very bytes of the original and redone to those of the result.
 * (test-document covers the undo of an input slot added, a bias made.) */
#include "onyx-simplify.h"
#include "onyx-test-util.h"

static guint
count_ops (Onnx__GraphProto *graph, const char *op_type, guint n_inputs)
{
  guint n = 0;

  for (size_t i = 0; i < graph->n_node; i++)
    n += g_strcmp0 (graph->node[i]->op_type, op_type) == 0 && (n_inputs == 0 || graph->node[i]->n_input == n_inputs);
  return n;
}

/* The weights and biases the Convs read, by name. */
static char *
conv_inputs (Onnx__GraphProto *graph)
{
  GString *names = g_string_new (NULL);

  for (size_t i = 0; i < graph->n_node; i++)
    if (g_strcmp0 (graph->node[i]->op_type, "Conv") == 0)
      for (size_t k = 1; k < graph->node[i]->n_input; k++)
        g_string_append_printf (names, "%s ", graph->node[i]->input[k]);
  return g_string_free (names, FALSE);
}

static void
test_fusions_undo_and_redo (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("paddle_style.onnx");
  g_autoptr (GBytes) original = onyx_document_serialize (doc);
  g_autoptr (GBytes) simplified = NULL, undone = NULL, redone = NULL;
  g_autoptr (OnyxSimplifyReport) report = NULL;
  g_autoptr (GError) error = NULL;
  OnyxSimplifyOptions options = { .passes = ONYX_SIMPLIFY_CONSTANTS | ONYX_SIMPLIFY_FUSIONS };
  Onnx__GraphProto *graph = onyx_document_get_proto (doc)->graph;
  guint n_norms = count_ops (graph, "BatchNormalization", 0);
  guint n_convs = count_ops (graph, "Conv", 0), n_biased = count_ops (graph, "Conv", 3);
  g_autofree char *inputs_before = conv_inputs (graph), *inputs_after = NULL;

  g_assert_cmpuint (n_norms, >, 0);
  g_assert_true (onyx_edit_simplify (doc, &options, &report, &error));
  g_assert_no_error (error);
  graph = onyx_document_get_proto (doc)->graph;
  g_assert_cmpuint (count_ops (graph, "BatchNormalization", 0), ==, 0);
  g_assert_cmpuint (count_ops (graph, "Conv", 0), ==, n_convs);
  g_assert_cmpuint (count_ops (graph, "Conv", 3), ==, n_biased);
  inputs_after = conv_inputs (graph);
  g_assert_cmpstr (inputs_after, ==, inputs_before);
  g_assert_cmpuint (report->n_nodes_before - report->n_nodes_after, >=, n_norms);
  g_assert_cmpuint (onyx_document_get_n_undo (doc), ==, 1);
  simplified = onyx_document_serialize (doc);

  g_assert_true (onyx_document_undo (doc));
  undone = onyx_document_serialize (doc);
  g_assert_true (g_bytes_equal (undone, original));
  g_assert_true (onyx_document_redo (doc));
  redone = onyx_document_serialize (doc);
  g_assert_true (g_bytes_equal (redone, simplified));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/simplify/fusions-undo-and-redo", test_fusions_undo_and_redo);
  return g_test_run ();
}
