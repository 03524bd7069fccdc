/* Edits with undo/redo: each edit on small graphs, the walkthrough's repair, and the
 * undo laws as a property test on real models. */
#include "onyx-attribute.h"
#include "onyx-document.h"
#include "onyx-edits.h"
#include "onyx-steps.h"
#include "onyx-steps-private.h"
#include "onyx-test-util.h"
#include "onyx-types.h"
#include "onyx-validate.h"

static OnyxDocument *
document_from_proto (Onnx__ModelProto *proto)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = test_model_load (proto, &error);
  g_assert_no_error (error);
  return onyx_document_new (model);
}

/* ---- index consistency: the live index equals one built from scratch ---- */

static void
assert_index_consistent (OnyxDocument *doc)
{
  test_assert_index_fresh (onyx_document_get_index (doc), onyx_document_get_proto (doc)->graph);
}

static void
assert_bytes_equal (GBytes *a, GBytes *b)
{
  g_assert_cmpuint (g_bytes_get_size (a), ==, g_bytes_get_size (b));
  g_assert_true (g_bytes_equal (a, b));
}

/* ---- the walkthrough ---- */

static void
test_walkthrough_bypass (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("model_foo.onnx");
  g_autoptr (GBytes) original = onyx_document_serialize (doc);
  g_autoptr (GBytes) edited = NULL;
  g_autoptr (GBytes) undone = NULL;
  g_autoptr (GBytes) redone = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) problems = NULL;
  Onnx__ModelProto *proto = onyx_document_get_proto (doc);

  g_assert_false (onyx_document_is_modified (doc));
  g_assert_true (onyx_step_apply (doc, "bypass-op", "devtech::FooOp", &error));
  g_assert_no_error (error);
  g_assert_cmpstr (onyx_document_get_undo_label (doc), ==, "Bypass node /FooOp");
  g_assert_true (onyx_document_is_modified (doc));
  g_assert_true (onyx_edit_cleanup (doc, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (onyx_document_get_undo_label (doc), ==, "Clean up");

  g_assert_cmpuint (proto->graph->n_node, ==, 2);
  g_assert_cmpstr (proto->graph->node[0]->op_type, ==, "Conv");
  g_assert_cmpstr (proto->graph->node[1]->op_type, ==, "Relu");
  /* The graph output keeps its name: Relu now writes it. */
  g_assert_cmpstr (proto->graph->node[1]->output[0], ==, "output");
  g_assert_cmpstr (proto->graph->output[0]->name, ==, "output");
  g_assert_cmpuint (proto->n_opset_import, ==, 1);
  problems = onyx_validate_model (proto);
  g_assert_cmpuint (problems->len, ==, 0);
  assert_index_consistent (doc);

  edited = onyx_document_serialize (doc);
  g_assert_true (onyx_document_undo (doc));
  g_assert_true (onyx_document_undo (doc));
  g_assert_false (onyx_document_can_undo (doc));
  g_assert_false (onyx_document_is_modified (doc));
  undone = onyx_document_serialize (doc);
  assert_bytes_equal (original, undone);
  assert_index_consistent (doc);
  g_assert_cmpstr (onyx_document_get_redo_label (doc), ==, "Bypass node /FooOp");
  g_assert_true (onyx_document_redo (doc));
  g_assert_true (onyx_document_redo (doc));
  redone = onyx_document_serialize (doc);
  assert_bytes_equal (edited, redone);
  assert_index_consistent (doc);
}

/* x → A(Relu) → a → B(Neg) → b → C(Abs) → y, plus D(Exp) reading a → z (second output). */
static Onnx__ModelProto *
branchy_model (void)
{
  Onnx__ModelProto *proto = test_model_new ();
  Onnx__GraphProto *graph = proto->graph;
  const int64_t dims[] = { -1, 4 };

  TEST_APPEND (graph->input, graph->n_input, test_value_info ("x", 2, dims));
  TEST_APPEND (graph->output, graph->n_output, test_value_info ("y", 2, dims));
  TEST_APPEND (graph->output, graph->n_output, test_value_info ("z", 2, dims));
  TEST_APPEND (graph->value_info, graph->n_value_info, test_value_info ("a", 2, dims));
  TEST_APPEND (graph->value_info, graph->n_value_info, test_value_info ("b", 2, dims));
  TEST_APPEND (graph->node, graph->n_node, test_node ("Relu", "A", "x", NULL, "a", NULL));
  TEST_APPEND (graph->node, graph->n_node, test_node ("Neg", "B", "a", NULL, "b", NULL));
  TEST_APPEND (graph->node, graph->n_node, test_node ("Abs", "C", "b", NULL, "y", NULL));
  TEST_APPEND (graph->node, graph->n_node, test_node ("Exp", "D", "a", NULL, "z", NULL));
  return proto;
}

static Onnx__NodeProto *
node (OnyxDocument *doc, const char *name)
{
  g_autoptr (GError) error = NULL;
  Onnx__NodeProto *found = onyx_document_find_node (doc, name, &error);
  g_assert_no_error (error);
  return found;
}

static void
test_bypass_keeps_other_readers (void)
{
  g_autoptr (OnyxDocument) doc = document_from_proto (branchy_model ());
  g_autoptr (GError) error = NULL;
  Onnx__GraphProto *graph = onyx_document_get_proto (doc)->graph;

  /* Bypass B: A now writes "b", and D, which read "a", reads "b" too. */
  g_assert_true (onyx_edit_bypass_node (doc, node (doc, "B"), 0, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (graph->n_node, ==, 3);
  g_assert_cmpstr (node (doc, "A")->output[0], ==, "b");
  g_assert_cmpstr (node (doc, "D")->input[0], ==, "b");
  g_assert_cmpstr (node (doc, "C")->input[0], ==, "b");
  assert_index_consistent (doc);
  {
    g_autoptr (GPtrArray) problems = onyx_validate_model (onyx_document_get_proto (doc));
    g_assert_cmpuint (problems->len, ==, 0);
  }
}

static void
test_bypass_graph_input (void)
{
  g_autoptr (OnyxDocument) doc = document_from_proto (branchy_model ());
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) problems = NULL;

  /* A reads the graph input x: its readers read x instead. */
  g_assert_true (onyx_edit_bypass_node (doc, node (doc, "A"), 0, &error));
  g_assert_cmpstr (node (doc, "B")->input[0], ==, "x");
  g_assert_cmpstr (node (doc, "D")->input[0], ==, "x");
  problems = onyx_validate_model (onyx_document_get_proto (doc));
  g_assert_cmpuint (problems->len, ==, 0);
  assert_index_consistent (doc);

  /* C writes the graph output y from B's b: B now writes y itself. */
  g_assert_true (onyx_edit_bypass_node (doc, node (doc, "C"), 0, &error));
  g_assert_cmpstr (node (doc, "B")->output[0], ==, "y");
  g_assert_cmpstr (onyx_document_get_proto (doc)->graph->output[0]->name, ==, "y");
  /* D writes the graph output z from the graph input x: the output becomes x. */
  g_assert_true (onyx_edit_bypass_node (doc, node (doc, "D"), 0, &error));
  g_assert_cmpstr (onyx_document_get_proto (doc)->graph->output[1]->name, ==, "x");
  g_clear_pointer (&problems, g_ptr_array_unref);
  problems = onyx_validate_model (onyx_document_get_proto (doc));
  g_assert_cmpuint (problems->len, ==, 0);
  assert_index_consistent (doc);
}

static void
test_bypass_refusals (void)
{
  g_autoptr (OnyxDocument) doc = document_from_proto (branchy_model ());
  g_autoptr (GBytes) before = onyx_document_serialize (doc);
  g_autoptr (GBytes) after = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_false (onyx_edit_bypass_node (doc, node (doc, "B"), 3, &error));
  g_assert_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_NOT_FOUND);
  g_assert_cmpstr (error->message, ==, "B has no input 3");
  g_clear_error (&error);
  g_assert_null (onyx_document_find_node (doc, "nope", &error));
  g_assert_cmpstr (error->message, ==, "there is no node named 'nope'");
  g_clear_error (&error);
  g_assert_null (onyx_document_find_node (doc, "#9", &error));
  g_assert_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_NOT_FOUND);
  g_assert_true (node (doc, "#1") == node (doc, "B"));
  after = onyx_document_serialize (doc);
  assert_bytes_equal (before, after);
  g_assert_false (onyx_document_can_undo (doc));
}

static void
test_delete_reports_dangling (void)
{
  g_autoptr (OnyxDocument) doc = document_from_proto (branchy_model ());
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) problems = NULL;

  g_assert_true (onyx_edit_delete_node (doc, node (doc, "B"), &error));
  g_assert_cmpstr (onyx_document_get_undo_label (doc), ==, "Delete node B");
  problems = onyx_validate_model (onyx_document_get_proto (doc));
  g_assert_cmpuint (problems->len, ==, 1);
  g_assert_cmpint (((OnyxProblem *) problems->pdata[0])->kind, ==, ONYX_PROBLEM_DANGLING_INPUT);
  g_assert_cmpstr (((OnyxProblem *) problems->pdata[0])->node, ==, "C");
  assert_index_consistent (doc);
}

static void
test_delete_tree_and_ancestors (void)
{
  g_autoptr (OnyxDocument) doc = document_from_proto (branchy_model ());
  g_autoptr (GError) error = NULL;
  Onnx__GraphProto *graph = onyx_document_get_proto (doc)->graph;

  /* A feeds everything: all four go, and so do the outputs y and z. */
  g_assert_true (onyx_edit_delete_descendants (doc, node (doc, "A"), &error));
  g_assert_cmpstr (onyx_document_get_undo_label (doc), ==, "Delete node A and 3 descendants");
  g_assert_cmpuint (graph->n_node, ==, 0);
  g_assert_cmpuint (graph->n_output, ==, 0);
  assert_index_consistent (doc);
  g_assert_true (onyx_document_undo (doc));
  g_assert_cmpuint (graph->n_node, ==, 4);

  /* C's exclusive ancestors: B only (A also feeds D). */
  g_assert_true (onyx_edit_delete_ancestors (doc, node (doc, "C"), &error));
  g_assert_cmpuint (graph->n_node, ==, 2);
  g_assert_nonnull (onyx_graph_index_node_by_name (onyx_document_get_index (doc), "A"));
  g_assert_nonnull (onyx_graph_index_node_by_name (onyx_document_get_index (doc), "D"));
  assert_index_consistent (doc);
}

static void
test_reconnect_and_cycles (void)
{
  g_autoptr (OnyxDocument) doc = document_from_proto (branchy_model ());
  g_autoptr (GError) error = NULL;

  g_assert_true (onyx_edit_reconnect (doc, node (doc, "C"), 0, "a", &error));
  g_assert_cmpstr (node (doc, "C")->input[0], ==, "a");
  g_assert_cmpuint (onyx_graph_index_n_uses (onyx_document_get_index (doc), "b"), ==, 0);
  assert_index_consistent (doc);
  /* A reading y (made by C, which depends on A) would be a cycle. */
  g_assert_false (onyx_edit_reconnect (doc, node (doc, "A"), 0, "y", &error));
  g_assert_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_CYCLE);
  g_clear_error (&error);
  g_assert_false (onyx_edit_reconnect (doc, node (doc, "A"), 0, "ghost", &error));
  g_assert_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_NOT_FOUND);
}

static void
test_rename_everywhere (void)
{
  g_autoptr (OnyxDocument) doc = document_from_proto (branchy_model ());
  g_autoptr (GError) error = NULL;
  Onnx__GraphProto *graph = onyx_document_get_proto (doc)->graph;

  g_assert_true (onyx_edit_rename_tensor (doc, "a", "renamed", &error));
  g_assert_cmpstr (node (doc, "A")->output[0], ==, "renamed");
  g_assert_cmpstr (node (doc, "B")->input[0], ==, "renamed");
  g_assert_cmpstr (node (doc, "D")->input[0], ==, "renamed");
  g_assert_cmpstr (graph->value_info[0]->name, ==, "renamed");
  g_assert_true (onyx_edit_rename_tensor (doc, "x", "input", &error));
  g_assert_cmpstr (graph->input[0]->name, ==, "input");
  g_assert_cmpstr (node (doc, "A")->input[0], ==, "input");
  g_assert_true (onyx_edit_rename_tensor (doc, "y", "output", &error));
  g_assert_cmpstr (graph->output[0]->name, ==, "output");
  assert_index_consistent (doc);
  g_assert_false (onyx_edit_rename_tensor (doc, "b", "z", &error));
  g_assert_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_EXISTS);
}

static void
test_outputs_inputs_and_saved_value_info (void)
{
  g_autoptr (OnyxDocument) doc = document_from_proto (branchy_model ());
  g_autoptr (GError) error = NULL;
  Onnx__GraphProto *graph = onyx_document_get_proto (doc)->graph;
  g_autoptr (GBytes) saved = NULL;
  g_autoptr (OnyxModel) reloaded = NULL;

  g_assert_true (onyx_edit_add_output (doc, "b", &error));
  g_assert_cmpuint (graph->n_output, ==, 3);
  /* The new output's type comes from the value_info of b. */
  {
    g_autofree char *type = onyx_type_to_string (graph->output[2]->type);
    g_assert_cmpstr (type, ==, "float32[N×4]");
  }
  g_assert_false (onyx_edit_add_output (doc, "b", &error));
  g_clear_error (&error);
  g_assert_true (onyx_edit_remove_output (doc, "z", &error));
  g_assert_true (onyx_edit_remove_input (doc, "x", &error));
  g_assert_cmpuint (graph->n_input, ==, 0);

  /* After deleting B and cleaning up, "a"'s and "b"'s value_info only go from the
   * saved file when the tensors are gone. */
  g_assert_true (onyx_edit_remove_output (doc, "b", &error));
  g_assert_true (onyx_edit_delete_descendants (doc, node (doc, "B"), &error));
  saved = onyx_document_serialize (doc);
  reloaded = onyx_model_new_from_data (g_bytes_get_data (saved, NULL), g_bytes_get_size (saved),
                                       "saved.onnx", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (onyx_model_get_proto (reloaded)->graph->n_value_info, ==, 1);
  g_assert_cmpstr (onyx_model_get_proto (reloaded)->graph->value_info[0]->name, ==, "a");
  /* The document itself still has both (undo needs them). */
  g_assert_cmpuint (graph->n_value_info, ==, 2);
}

static void
test_attributes_names_dims (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("model.onnx");
  g_autoptr (GError) error = NULL;
  Onnx__NodeProto *conv = node (doc, "#0");
  Onnx__GraphProto *graph = onyx_document_get_proto (doc)->graph;
  Onnx__AttributeProto *attr;

  g_assert_true (onyx_edit_set_attribute (doc, conv, "strides", "[1, 1]", &error));
  g_assert_no_error (error);
  attr = onyx_node_find_attribute (conv, "strides", NULL);
  g_assert_cmpint (attr->type, ==, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
  g_assert_cmpuint (attr->n_ints, ==, 2);
  g_assert_cmpint (attr->ints[0], ==, 1);
  /* An existing INTS attribute does not become a string. */
  g_assert_false (onyx_edit_set_attribute (doc, conv, "strides", "wide", &error));
  g_assert_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_true (onyx_edit_set_attribute (doc, conv, "alpha", "0.25", &error));
  g_assert_true (onyx_edit_set_attribute (doc, conv, "mode", "\"same\"", &error));
  g_assert_true (onyx_edit_set_attribute (doc, conv, "names", "[\"a, b\", \"c\"]", &error));
  g_assert_true (onyx_edit_set_attribute (doc, conv, "scales", "[0.5, 2]", &error));
  {
    g_autofree char *alpha = onyx_attribute_to_string (onyx_node_find_attribute (conv, "alpha", NULL));
    g_autofree char *mode = onyx_attribute_to_string (onyx_node_find_attribute (conv, "mode", NULL));
    g_autofree char *names = onyx_attribute_to_string (onyx_node_find_attribute (conv, "names", NULL));
    g_autofree char *scales = onyx_attribute_to_string (onyx_node_find_attribute (conv, "scales", NULL));
    g_assert_cmpstr (alpha, ==, "0.25");
    g_assert_cmpstr (mode, ==, "\"same\"");
    g_assert_cmpstr (names, ==, "[\"a, b\", \"c\"]");
    g_assert_cmpstr (scales, ==, "[0.5, 2.0]");
  }
  g_assert_true (onyx_edit_set_node_name (doc, conv, "first_conv", &error));
  g_assert_true (node (doc, "first_conv") == conv);

  g_assert_true (onyx_edit_set_input_dim (doc, "input", 0, "1", &error));
  {
    g_autofree char *type = onyx_type_to_string (graph->input[0]->type);
    g_assert_cmpstr (type, ==, "float32[1×3×128×128]");
  }
  g_assert_true (onyx_edit_set_input_dim (doc, "input", 2, "H", &error));
  {
    g_autofree char *type = onyx_type_to_string (graph->input[0]->type);
    g_assert_cmpstr (type, ==, "float32[1×3×H×128]");
  }
  g_assert_false (onyx_edit_set_input_dim (doc, "input", 4, "1", &error));
  g_clear_error (&error);
  assert_index_consistent (doc);

  while (onyx_document_undo (doc))
    ;
  {
    g_autofree char *type = onyx_type_to_string (graph->input[0]->type);
    g_assert_cmpstr (type, ==, "float32[N×3×128×128]");
  }
}

static void
test_toposort (void)
{
  Onnx__ModelProto *proto = branchy_model ();
  Onnx__NodeProto **nodes = proto->graph->node;
  Onnx__NodeProto *first = nodes[0];
  g_autoptr (OnyxDocument) doc = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) problems = NULL;

  /* A moved to the end. */
  memmove (nodes, nodes + 1, 3 * sizeof *nodes);
  nodes[3] = first;
  doc = document_from_proto (proto);
  problems = onyx_validate_model (onyx_document_get_proto (doc));
  g_assert_cmpuint (problems->len, ==, 1);
  g_assert_true (onyx_edit_toposort (doc, &error));
  g_assert_no_error (error);
  g_clear_pointer (&problems, g_ptr_array_unref);
  problems = onyx_validate_model (onyx_document_get_proto (doc));
  g_assert_cmpuint (problems->len, ==, 0);
  /* Stable: the rest keeps its order. */
  g_assert_cmpstr (onyx_document_get_proto (doc)->graph->node[0]->name, ==, "A");
  g_assert_cmpstr (onyx_document_get_proto (doc)->graph->node[1]->name, ==, "B");
  g_assert_cmpstr (onyx_document_get_proto (doc)->graph->node[2]->name, ==, "C");
  g_assert_cmpstr (onyx_document_get_proto (doc)->graph->node[3]->name, ==, "D");
  /* Sorted already: no step recorded. */
  g_assert_true (onyx_edit_toposort (doc, &error));
  g_assert_cmpuint (onyx_document_get_n_undo (doc), ==, 1);
}

static void
test_groups_and_saved_mark (void)
{
  g_autoptr (OnyxDocument) doc = document_from_proto (branchy_model ());
  g_autoptr (GError) error = NULL;

  onyx_document_begin_group (doc, "Two renames");
  g_assert_true (onyx_edit_rename_tensor (doc, "a", "a2", &error));
  g_assert_true (onyx_edit_rename_tensor (doc, "b", "b2", &error));
  /* A failing edit inside a group undoes only itself. */
  g_assert_false (onyx_edit_rename_tensor (doc, "a2", "b2", &error));
  g_clear_error (&error);
  onyx_document_end_group (doc);
  g_assert_cmpuint (onyx_document_get_n_undo (doc), ==, 1);
  g_assert_cmpstr (onyx_document_get_undo_label (doc), ==, "Two renames");
  g_assert_cmpstr (node (doc, "B")->output[0], ==, "b2");

  onyx_document_mark_saved (doc);
  g_assert_false (onyx_document_is_modified (doc));
  g_assert_true (onyx_document_undo (doc));
  g_assert_true (onyx_document_is_modified (doc));
  g_assert_true (onyx_document_redo (doc));
  g_assert_false (onyx_document_is_modified (doc));
  /* A new edit after undoing past the save drops that state for good. */
  g_assert_true (onyx_document_undo (doc));
  g_assert_true (onyx_edit_delete_node (doc, node (doc, "D"), &error));
  g_assert_false (onyx_document_can_redo (doc));
  g_assert_true (onyx_document_undo (doc));
  g_assert_true (onyx_document_is_modified (doc));
}

/* An If node whose branch reads the outer tensor "a": renaming and bypassing reach
 * inside the branch, and undo restores both the branch and the index. */
static void
test_subgraph_reads (void)
{
  Onnx__ModelProto *proto = branchy_model ();
  Onnx__GraphProto *branch = g_new0 (Onnx__GraphProto, 1);
  Onnx__AttributeProto *attr = g_new0 (Onnx__AttributeProto, 1);
  Onnx__NodeProto *if_node = test_node ("If", "If", "x", NULL, "w", NULL);
  const int64_t dims[] = { 4 };
  g_autoptr (OnyxDocument) doc = NULL;
  g_autoptr (GBytes) before = NULL;
  g_autoptr (GBytes) after = NULL;
  g_autoptr (GError) error = NULL;

  onnx__graph_proto__init (branch);
  onnx__attribute_proto__init (attr);
  branch->name = g_strdup ("then");
  TEST_APPEND (branch->node, branch->n_node, test_node ("Identity", "inner", "a", NULL, "t", NULL));
  TEST_APPEND (branch->output, branch->n_output, test_value_info ("t", 1, dims));
  attr->name = g_strdup ("then_branch");
  attr->has_type = TRUE;
  attr->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
  attr->g = branch;
  TEST_APPEND (if_node->attribute, if_node->n_attribute, attr);
  TEST_APPEND (proto->graph->node, proto->graph->n_node, if_node);
  TEST_APPEND (proto->graph->output, proto->graph->n_output, test_value_info ("w", 1, dims));
  doc = document_from_proto (proto);
  before = onyx_document_serialize (doc);
  /* The document holds its own decoded copy of the branch. */
  branch = node (doc, "If")->attribute[0]->g;

  g_assert_cmpuint (onyx_graph_index_n_uses (onyx_document_get_index (doc), "a"), ==, 3);
  g_assert_true (onyx_edit_rename_tensor (doc, "a", "a_renamed", &error));
  g_assert_cmpstr (branch->node[0]->input[0], ==, "a_renamed");
  assert_index_consistent (doc);
  /* Cleanup keeps A: only the branch of If (and B, D) read it. */
  g_assert_true (onyx_edit_cleanup (doc, &error));
  g_assert_nonnull (onyx_graph_index_node_by_name (onyx_document_get_index (doc), "A"));
  g_assert_true (onyx_edit_bypass_node (doc, node (doc, "A"), 0, &error));
  g_assert_cmpstr (branch->node[0]->input[0], ==, "x");
  assert_index_consistent (doc);
  while (onyx_document_undo (doc))
    ;
  assert_index_consistent (doc);
  after = onyx_document_serialize (doc);
  assert_bytes_equal (before, after);
}

/* ---- the undo laws, on real models ---- */

/* Errors after an edit that were not there before: only dangling readers and unsorted
 * nodes, and only from the edits that may leave them. Counted by kind and graph, as
 * edits rename the nodes and tensors that messages name (renaming a dangling tensor
 * keeps it dangling). */
static char *
problem_key (const OnyxProblem *problem)
{
  return g_strdup_printf ("%d|%s", problem->kind, problem->graph);
}

static void
assert_no_new_errors (GPtrArray *before, GPtrArray *after, const TestEdit *edit)
{
  g_autoptr (GHashTable) counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < before->len; i++)
    {
      char *key = problem_key (before->pdata[i]);
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (counts, key));
      g_hash_table_insert (counts, key, GUINT_TO_POINTER (n + 1));
    }
  for (guint i = 0; i < after->len; i++)
    {
      const OnyxProblem *problem = after->pdata[i];
      g_autofree char *key = problem_key (problem);
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (counts, key));
      if (n > 0)
        {
          g_hash_table_insert (counts, g_steal_pointer (&key), GUINT_TO_POINTER (n - 1));
          continue;
        }
      if (problem->severity != ONYX_PROBLEM_ERROR)
        continue;
      if (edit->may_dangle && (problem->kind == ONYX_PROBLEM_DANGLING_INPUT ||
                               problem->kind == ONYX_PROBLEM_DANGLING_OUTPUT))
        continue;
      if (edit->may_unsort && problem->kind == ONYX_PROBLEM_NOT_SORTED)
        continue;
      g_error ("--%s %s introduced: %s", edit->step, edit->argument != NULL ? edit->argument : "",
               problem->message);
    }
}

static guint
check_undo_laws (const char *path, guint32 seed, guint n_edits)
{
  g_autoptr (OnyxDocument) doc = test_open_document (path);
  g_autoptr (GBytes) original = onyx_document_serialize (doc);
  g_autoptr (GBytes) edited = NULL;
  GRand *rand = g_rand_new_with_seed (seed);
  guint n_applied = 0;

  for (guint i = 0; i < n_edits; i++)
    {
      g_autoptr (GBytes) before = onyx_document_serialize (doc);
      g_autoptr (GPtrArray) problems_before = onyx_validate_model (onyx_document_get_proto (doc));
      guint undo_before = onyx_document_get_n_undo (doc);
      g_auto (TestEdit) edit = test_random_edit (doc, TEST_EDITS_ANY, test_pick_from_rand, rand, i);

      if (edit.error == NULL)
        {
          g_autoptr (GPtrArray) problems_after = onyx_validate_model (onyx_document_get_proto (doc));
          assert_no_new_errors (problems_before, problems_after, &edit);
          n_applied += edit.applied;
        }
      else
        {
          /* A refused edit changes nothing. */
          g_autoptr (GBytes) after = onyx_document_serialize (doc);
          g_assert_cmpuint (onyx_document_get_n_undo (doc), ==, undo_before);
          assert_bytes_equal (before, after);
        }
      assert_index_consistent (doc);
    }
  edited = onyx_document_serialize (doc);
  g_assert_cmpuint (onyx_document_get_n_undo (doc), ==, n_applied);
  g_test_message ("%s: %u of %u random edits applied", path, n_applied, n_edits);

  while (onyx_document_undo (doc))
    assert_index_consistent (doc);
  {
    g_autoptr (GBytes) undone = onyx_document_serialize (doc);
    assert_bytes_equal (original, undone);
  }
  while (onyx_document_redo (doc))
    ;
  {
    g_autoptr (GBytes) redone = onyx_document_serialize (doc);
    assert_bytes_equal (edited, redone);
  }
  assert_index_consistent (doc);
  g_rand_free (rand);
  return n_applied;
}

static void
test_undo_laws_walkthrough (void)
{
  guint n_applied = test_on_walkthrough_seeds (check_undo_laws, 12);

  /* Of 3 × 20 × 12 = 720 edits, about 400 apply (the rest are refused or change
   * nothing). */
  g_assert_cmpuint (n_applied, >=, 300);
}

static void
test_undo_laws_testdata (void)
{
  guint n_checked = test_on_testdata_sample (check_undo_laws, 30, 10);

  g_test_message ("undo laws held on %u libonnx-testdata models", n_checked);
  g_assert_cmpuint (n_checked, >=, 30);
}

/* bypass-op is all or nothing: when one of its nodes cannot be bypassed, those
 * before it are taken back and no undo step is left. */
static void
test_bypass_op_all_or_nothing (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("model.onnx");
  g_autoptr (GBytes) before = NULL;
  g_autoptr (GBytes) after = NULL;
  g_autoptr (GError) error = NULL;

  /* Without the second Conv, the second Relu's input is produced by nothing. */
  g_assert_true (onyx_step_apply (doc, "delete", "#2", &error));
  g_assert_no_error (error);
  before = onyx_document_serialize (doc);
  g_assert_false (onyx_step_apply (doc, "bypass-op", "Relu", &error));
  g_assert_nonnull (error);
  after = onyx_document_serialize (doc);
  assert_bytes_equal (before, after);
  g_assert_cmpuint (onyx_document_get_n_undo (doc), ==, 1);
  g_assert_false (onyx_document_can_redo (doc));
  assert_index_consistent (doc);
  /* The document goes on as usual. */
  g_assert_true (onyx_document_undo (doc));
  g_assert_cmpuint (onyx_document_get_proto (doc)->graph->n_node, ==, 4);
}

/* Each step says what it did, in a line (and names it all when asked), counted from
 * the model before and after; a step that changed nothing says nothing. */
static void
test_step_reports (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("model_foo.onnx");
  g_autoptr (GError) error = NULL;
  g_autofree char *bypassed = NULL, *cleaned = NULL, *details = NULL, *again = NULL, *again_details = NULL;
  g_autofree char *attribute = NULL, *deleted = NULL, *deleted_details = NULL;

  g_assert_true (onyx_step_apply_reported (doc, "bypass-op", "devtech::FooOp", &bypassed, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (bypassed, ==, "bypassed /FooOp: /model/model.2/Relu_output_0 now feeds output");
  g_assert_true (onyx_step_apply_reported (doc, "cleanup", NULL, &cleaned, &details, &error));
  g_assert_cmpstr (cleaned, ==, "removed the opset import devtech");
  g_assert_cmpstr (details, ==, "removed opset imports: devtech");
  g_assert_true (onyx_step_apply_reported (doc, "cleanup", NULL, &again, &again_details, &error));
  g_assert_null (again);
  g_assert_null (again_details);
  g_assert_true (onyx_step_apply_reported (doc, "set-attr", "/model/model.0/Conv.group=1", &attribute, NULL, &error));
  g_assert_cmpstr (attribute, ==, "/model/model.0/Conv.group = 1 (was 1)");
  g_assert_true (onyx_step_apply_reported (doc, "delete-ancestors", "/model/model.2/Relu", &deleted, &deleted_details,
                                           &error));
  g_assert_cmpstr (deleted, ==, "deleted /model/model.2/Relu and what only it reads: removed 2 nodes and 2 initializers");
  g_assert_cmpstr (deleted_details, ==, "removed nodes: /model/model.0/Conv, /model/model.2/Relu\n"
                                        "removed initializers: onnx::Conv_13, onnx::Conv_14");
}

/* The problems' kinds and messages, one line each. */
static char *
problems_text (OnyxDocument *doc)
{
  g_autoptr (GPtrArray) problems = onyx_validate_model (onyx_document_get_proto (doc));
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < problems->len; i++)
    {
      const OnyxProblem *problem = problems->pdata[i];
      g_string_append_printf (text, "%s: %s\n", onyx_problem_kind_name (problem->kind), problem->message);
    }
  return g_string_free (text, FALSE);
}

/* Steps that change types only are not counted around, and onyx-cli does not validate
 * again after them: what they change is nothing a count or validation would find, so
 * their reports and the model's problems are the same. (The model has lost a node,
 * for problems to compare.) */
static void
test_types_only_steps_change_nothing_counted (void)
{
  static const char *const applied[][3] = {
    { "set-dim", "input:0=B", "dim 0 of input is now B (was N)" },
    { "infer-shapes", NULL, "wrote 2 inferred types (value_info)" },
  };
  g_autoptr (OnyxDocument) doc = test_open_data ("model_foo.onnx");
  guint n_checked = 0;

  g_assert_true (onyx_step_apply (doc, "delete", "/FooOp", NULL));
  for (guint i = 0; i < G_N_ELEMENTS (applied); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *report = NULL, *details = NULL, *counted = NULL;
      g_autofree char *problems_before = problems_text (doc), *problems_after = NULL;
      g_autoptr (GString) counted_details = g_string_new (NULL);
      OnyxStepCensus *before = onyx_step_census_new (doc);

      g_assert_true (onyx_step_find (applied[i][0])->types_only);
      g_assert_true (onyx_step_apply_reported (doc, applied[i][0], applied[i][1], &report, &details, &error));
      g_assert_no_error (error);
      g_assert_cmpstr (report, ==, applied[i][2]);
      g_assert_null (details);
      counted = onyx_step_census_changes (before, doc, counted_details);
      onyx_step_census_free (before);
      g_assert_null (counted);
      g_assert_cmpuint (counted_details->len, ==, 0);
      problems_after = problems_text (doc);
      g_assert_cmpstr (problems_before, !=, "");
      g_assert_cmpstr (problems_after, ==, problems_before);
      n_checked++;
    }
  g_assert_cmpuint (n_checked, ==, G_N_ELEMENTS (applied));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/edit/walkthrough-bypass", test_walkthrough_bypass);
  g_test_add_func ("/edit/bypass-other-readers", test_bypass_keeps_other_readers);
  g_test_add_func ("/edit/bypass-graph-input", test_bypass_graph_input);
  g_test_add_func ("/edit/bypass-refusals", test_bypass_refusals);
  g_test_add_func ("/edit/bypass-op-all-or-nothing", test_bypass_op_all_or_nothing);
  g_test_add_func ("/edit/delete-dangling", test_delete_reports_dangling);
  g_test_add_func ("/edit/delete-tree-ancestors", test_delete_tree_and_ancestors);
  g_test_add_func ("/edit/reconnect", test_reconnect_and_cycles);
  g_test_add_func ("/edit/rename", test_rename_everywhere);
  g_test_add_func ("/edit/outputs-inputs", test_outputs_inputs_and_saved_value_info);
  g_test_add_func ("/edit/attributes-names-dims", test_attributes_names_dims);
  g_test_add_func ("/edit/toposort", test_toposort);
  g_test_add_func ("/edit/groups-saved-mark", test_groups_and_saved_mark);
  g_test_add_func ("/edit/subgraph-reads", test_subgraph_reads);
  g_test_add_func ("/edit/undo-laws/walkthrough", test_undo_laws_walkthrough);
  g_test_add_func ("/edit/undo-laws/testdata", test_undo_laws_testdata);
  g_test_add_func ("/edit/step-reports", test_step_reports);
  g_test_add_func ("/edit/step-reports/types-only", test_types_only_steps_change_nothing_counted);
  return g_test_run ();
}
