/* Validation: each defect is found once, on the right node; clean models are clean. */
#include "onyx-test-util.h"
#include "onyx-validate.h"

static GPtrArray *
validate (Onnx__ModelProto *proto)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = test_model_load (proto, &error);
  g_assert_no_error (error);
  return onyx_validate_model (onyx_model_get_proto (model));
}

static const OnyxProblem *
only_problem (GPtrArray *problems, OnyxProblemKind kind)
{
  for (guint i = 0; i < problems->len; i++)
    g_test_message ("problem: %s", ((OnyxProblem *) problems->pdata[i])->message);
  g_assert_cmpuint (problems->len, ==, 1);
  g_assert_cmpint (((OnyxProblem *) problems->pdata[0])->kind, ==, kind);
  return problems->pdata[0];
}

/* x → Relu(a) → y → Neg(b) → z, with x input and z output. */
static Onnx__ModelProto *
chain_model (void)
{
  Onnx__ModelProto *proto = test_model_new ();
  Onnx__GraphProto *graph = proto->graph;
  const int64_t dims[] = { -1, 4 };

  TEST_APPEND (graph->input, graph->n_input, test_value_info ("x", 2, dims));
  TEST_APPEND (graph->output, graph->n_output, test_value_info ("z", 2, dims));
  TEST_APPEND (graph->node, graph->n_node, test_node ("Relu", "a", "x", NULL, "y", NULL));
  TEST_APPEND (graph->node, graph->n_node, test_node ("Neg", "b", "y", NULL, "z", NULL));
  return proto;
}

static void
test_clean (void)
{
  g_autoptr (GPtrArray) problems = validate (chain_model ());
  g_assert_cmpuint (problems->len, ==, 0);
}

static void
test_walkthrough_models_clean (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (test_walkthrough_models); i++)
    {
      g_autofree char *path = test_data_path (test_walkthrough_models[i]);
      g_autoptr (GError) error = NULL;
      g_autoptr (OnyxModel) model = onyx_model_new_from_file (path, &error);
      g_autoptr (GPtrArray) problems = NULL;

      g_assert_no_error (error);
      problems = onyx_validate_model (onyx_model_get_proto (model));
      g_assert_cmpuint (problems->len, ==, 0);
    }
}

static void
test_dangling_input (void)
{
  Onnx__ModelProto *proto = chain_model ();
  Onnx__NodeProto *neg = proto->graph->node[1];
  g_autoptr (GPtrArray) problems = NULL;
  const OnyxProblem *problem;

  g_free (neg->input[0]);
  neg->input[0] = g_strdup ("nowhere");
  /* y is now unused, which is fine; "nowhere" is not. */
  problems = validate (proto);
  problem = only_problem (problems, ONYX_PROBLEM_DANGLING_INPUT);
  g_assert_cmpstr (problem->node, ==, "b");
  g_assert_cmpint (problem->node_index, ==, 1);
  g_assert_cmpstr (problem->tensor, ==, "nowhere");
  g_assert_cmpint (problem->severity, ==, ONYX_PROBLEM_ERROR);
}

static void
test_optional_empty_input (void)
{
  Onnx__ModelProto *proto = chain_model ();
  Onnx__NodeProto *neg = proto->graph->node[1];
  g_autoptr (GPtrArray) problems = NULL;

  TEST_APPEND (neg->input, neg->n_input, g_strdup (""));
  problems = validate (proto);
  g_assert_cmpuint (problems->len, ==, 0);
}

static void
test_dangling_output (void)
{
  Onnx__ModelProto *proto = chain_model ();
  g_autoptr (GPtrArray) problems = NULL;
  const OnyxProblem *problem;

  g_free (proto->graph->output[0]->name);
  proto->graph->output[0]->name = g_strdup ("zz");
  problems = validate (proto);
  problem = only_problem (problems, ONYX_PROBLEM_DANGLING_OUTPUT);
  g_assert_cmpstr (problem->tensor, ==, "zz");
}

static void
test_cycle (void)
{
  Onnx__ModelProto *proto = chain_model ();
  Onnx__NodeProto *relu = proto->graph->node[0];
  g_autoptr (GPtrArray) problems = NULL;
  const OnyxProblem *problem;

  /* Relu reads Neg's output: a → b → a. */
  g_free (relu->input[0]);
  relu->input[0] = g_strdup ("z");
  problems = validate (proto);
  problem = only_problem (problems, ONYX_PROBLEM_CYCLE);
  g_assert_nonnull (strstr (problem->message, "2 nodes"));
}

static void
test_self_loop (void)
{
  Onnx__ModelProto *proto = chain_model ();
  Onnx__NodeProto *neg = proto->graph->node[1];
  g_autoptr (GPtrArray) problems = NULL;

  g_free (neg->input[0]);
  neg->input[0] = g_strdup ("z");
  problems = validate (proto);
  only_problem (problems, ONYX_PROBLEM_CYCLE);
}

static void
test_not_sorted (void)
{
  Onnx__ModelProto *proto = chain_model ();
  Onnx__NodeProto *first = proto->graph->node[0];
  g_autoptr (GPtrArray) problems = NULL;
  const OnyxProblem *problem;

  proto->graph->node[0] = proto->graph->node[1];
  proto->graph->node[1] = first;
  problems = validate (proto);
  problem = only_problem (problems, ONYX_PROBLEM_NOT_SORTED);
  g_assert_cmpstr (problem->node, ==, "b");
  g_assert_cmpstr (problem->tensor, ==, "y");
}

static void
test_duplicate_output (void)
{
  Onnx__ModelProto *proto = chain_model ();
  Onnx__GraphProto *graph = proto->graph;
  g_autoptr (GPtrArray) problems = NULL;
  const OnyxProblem *problem;

  TEST_APPEND (graph->node, graph->n_node, test_node ("Abs", "c", "x", NULL, "y", NULL));
  problems = validate (proto);
  problem = only_problem (problems, ONYX_PROBLEM_DUPLICATE_NAME);
  g_assert_cmpstr (problem->node, ==, "c");
  g_assert_cmpstr (problem->tensor, ==, "y");
}

static void
test_output_shadows_input (void)
{
  Onnx__ModelProto *proto = chain_model ();
  Onnx__GraphProto *graph = proto->graph;
  g_autoptr (GPtrArray) problems = NULL;

  TEST_APPEND (graph->node, graph->n_node, test_node ("Abs", "c", "z", NULL, "x", NULL));
  problems = validate (proto);
  only_problem (problems, ONYX_PROBLEM_DUPLICATE_NAME);
}

static void
test_missing_opset (void)
{
  Onnx__ModelProto *proto = chain_model ();
  g_autoptr (GPtrArray) problems = NULL;
  const OnyxProblem *problem;

  g_free (proto->graph->node[1]->domain);
  proto->graph->node[1]->domain = g_strdup ("devtech");
  problems = validate (proto);
  problem = only_problem (problems, ONYX_PROBLEM_MISSING_OPSET);
  g_assert_cmpstr (problem->node, ==, "b");
  g_assert_nonnull (strstr (problem->message, "devtech"));
}

static void
test_initializer_listed_as_input (void)
{
  Onnx__ModelProto *proto = chain_model ();
  Onnx__GraphProto *graph = proto->graph;
  const int64_t dims[] = { 4 };
  g_autoptr (GPtrArray) problems = NULL;

  /* IR 3 style: the initializer is also a graph input. */
  TEST_APPEND (graph->initializer, graph->n_initializer, test_initializer ("w", 1, dims));
  TEST_APPEND (graph->input, graph->n_input, test_value_info ("w", 1, dims));
  TEST_APPEND (graph->node, graph->n_node, test_node ("Add", "c", "z", "w", NULL, "sum", NULL));
  problems = validate (proto);
  g_assert_cmpuint (problems->len, ==, 0);
}

/* An If node whose branch reads a tensor of the outer graph, and one that reads
 * a tensor defined nowhere. */
static void
test_subgraph_scope (void)
{
  for (int broken = 0; broken <= 1; broken++)
    {
      Onnx__ModelProto *proto = chain_model ();
      Onnx__GraphProto *branch = g_new0 (Onnx__GraphProto, 1);
      Onnx__AttributeProto *attr = g_new0 (Onnx__AttributeProto, 1);
      Onnx__NodeProto *if_node = test_node ("If", "if", "x", NULL, "w", NULL);
      const int64_t dims[] = { 4 };
      g_autoptr (GPtrArray) problems = NULL;

      onnx__graph_proto__init (branch);
      onnx__attribute_proto__init (attr);
      branch->name = g_strdup ("then");
      TEST_APPEND (branch->node, branch->n_node,
                   test_node ("Identity", "inner", broken ? "missing" : "y", NULL, "t", NULL));
      TEST_APPEND (branch->output, branch->n_output, test_value_info ("t", 1, dims));
      attr->name = g_strdup ("then_branch");
      attr->has_type = TRUE;
      attr->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
      attr->g = branch;
      TEST_APPEND (if_node->attribute, if_node->n_attribute, attr);
      TEST_APPEND (proto->graph->node, proto->graph->n_node, if_node);

      problems = validate (proto);
      if (!broken)
        g_assert_cmpuint (problems->len, ==, 0);
      else
        {
          const OnyxProblem *problem = only_problem (problems, ONYX_PROBLEM_DANGLING_INPUT);
          g_assert_cmpstr (problem->node, ==, "inner");
          g_assert_cmpstr (problem->graph, ==, "if:then_branch");
        }
    }
}

static void
test_no_opset_no_ir (void)
{
  Onnx__ModelProto *proto = chain_model ();
  g_autoptr (GPtrArray) problems = NULL;

  proto->has_ir_version = FALSE;
  problems = validate (proto);
  only_problem (problems, ONYX_PROBLEM_NO_IR_VERSION);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/validate/clean", test_clean);
  g_test_add_func ("/validate/walkthrough-clean", test_walkthrough_models_clean);
  g_test_add_func ("/validate/dangling-input", test_dangling_input);
  g_test_add_func ("/validate/optional-input", test_optional_empty_input);
  g_test_add_func ("/validate/dangling-output", test_dangling_output);
  g_test_add_func ("/validate/cycle", test_cycle);
  g_test_add_func ("/validate/self-loop", test_self_loop);
  g_test_add_func ("/validate/not-sorted", test_not_sorted);
  g_test_add_func ("/validate/duplicate-output", test_duplicate_output);
  g_test_add_func ("/validate/output-shadows-input", test_output_shadows_input);
  g_test_add_func ("/validate/missing-opset", test_missing_opset);
  g_test_add_func ("/validate/initializer-as-input", test_initializer_listed_as_input);
  g_test_add_func ("/validate/subgraph-scope", test_subgraph_scope);
  g_test_add_func ("/validate/no-ir-version", test_no_opset_no_ir);
  return g_test_run ();
}
