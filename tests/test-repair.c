/* test-repair.c: replacing a node's operator and inserting a node (issue 16): one undo
 * step each, undone and redone byte for byte, reporting the nodes they touched, and
 * replayed from their journal entries to the same model. */
#include "onyx-edits.h"
#include "onyx-schema.h"
#include "onyx-steps.h"
#include "onyx-steps.h"
#include "onyx-test-util.h"

typedef struct {
  GPtrArray *nodes;  /* the last change's nodes */
  gboolean whole_model;
} Seen;

static void
changed_cb (OnyxDocument *doc, const OnyxChange *change, Seen *seen)
{
  if (change == NULL)
    return;
  g_clear_pointer (&seen->nodes, g_ptr_array_unref);
  seen->nodes = g_ptr_array_copy (change->nodes, NULL, NULL);
  seen->whole_model = change->whole_model;
}

static void
assert_same_bytes (GBytes *expected, GBytes *actual)
{
  g_assert_true (g_bytes_equal (expected, actual));
}

/* Undoes everything: the document is `before` again, byte for byte. */
static void
undo_all_to (OnyxDocument *doc, GBytes *before, Seen *seen)
{
  g_autoptr (GBytes) undone = NULL;

  while (onyx_document_undo (doc))
    ;
  undone = onyx_document_serialize (doc);
  assert_same_bytes (before, undone);
  g_signal_handlers_disconnect_by_data (doc, seen);
  g_clear_pointer (&seen->nodes, g_ptr_array_unref);
}

/* Undo gives back `before`, redo `after`, each a step. */
static void
assert_undo_redo (OnyxDocument *doc, GBytes *before, GBytes *after)
{
  g_autoptr (GBytes) undone = NULL;
  g_autoptr (GBytes) redone = NULL;

  g_assert_true (onyx_document_undo (doc));
  undone = onyx_document_serialize (doc);
  assert_same_bytes (before, undone);
  g_assert_true (onyx_document_redo (doc));
  redone = onyx_document_serialize (doc);
  assert_same_bytes (after, redone);
}

/* The replay entries of `doc` applied to a fresh copy of `name` give the same model. */
static void
assert_replays (OnyxDocument *doc, const char *name)
{
  g_autoptr (OnyxDocument) fresh = test_open_data (name);
  GPtrArray *replay = onyx_document_get_replay (doc);
  g_autoptr (GBytes) expected = onyx_document_serialize (doc);
  g_autoptr (GBytes) actual = NULL;
  g_autoptr (GError) error = NULL;

  for (guint i = 0; i < replay->len; i++)
    {
      g_assert_true (onyx_edit_replay (fresh, replay->pdata[i], &error));
      g_assert_no_error (error);
    }
  actual = onyx_document_serialize (fresh);
  assert_same_bytes (expected, actual);
}

static void
test_replace (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("model_foo.onnx");
  g_autoptr (GBytes) before = onyx_document_serialize (doc);
  g_autoptr (GBytes) after = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) dropped = NULL;
  Seen seen = { NULL, FALSE };
  Onnx__NodeProto *foo = onyx_document_find_node (doc, "/FooOp", &error);
  Onnx__NodeProto *conv = onyx_document_find_node (doc, "#0", &error);

  g_signal_connect (doc, "changed", G_CALLBACK (changed_cb), &seen);
  g_assert_true (onyx_edit_replace_operator (doc, foo, "", "Identity", &dropped, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (foo->op_type, ==, "Identity");
  g_assert_cmpstr (foo->domain, ==, "");
  g_assert_cmpuint (g_strv_length (dropped), ==, 0);
  g_assert_cmpstr (onyx_document_get_undo_label (doc), ==, "Replace /FooOp with Identity");
  g_assert_cmpuint (seen.nodes->len, ==, 1);
  g_assert_true (seen.nodes->pdata[0] == foo);
  after = onyx_document_serialize (doc);
  assert_undo_redo (doc, before, after);
  g_assert_cmpuint (seen.nodes->len, ==, 1);
  g_assert_true (seen.nodes->pdata[0] == foo);

  /* Conv's attributes are unknown to Relu; a custom operator keeps them all. */
  g_clear_pointer (&dropped, g_strfreev);
  g_assert_true (onyx_edit_replace_operator (doc, conv, "acme", "FastConv", &dropped, &error));
  g_assert_cmpuint (g_strv_length (dropped), ==, 0);
  g_assert_cmpuint (conv->n_attribute, ==, 5);
  g_assert_false (onyx_edit_replace_operator (doc, conv, NULL, "Relu", NULL, &error));
  g_assert_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID);  /* 3 inputs */
  g_clear_error (&error);
  g_clear_pointer (&dropped, g_strfreev);
  g_assert_true (onyx_edit_replace_operator (doc, conv, "", "Conv", &dropped, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (conv->n_attribute, ==, 5);
  assert_replays (doc, "model_foo.onnx");
  undo_all_to (doc, before, &seen);
}

static void
test_replace_errors (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("model_foo.onnx");
  g_autoptr (GBytes) before = onyx_document_serialize (doc);
  g_autoptr (GBytes) after = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *domain = NULL;
  g_autofree char *op_type = NULL;
  Onnx__NodeProto *foo = onyx_document_find_node (doc, "/FooOp", &error);

  g_assert_false (onyx_edit_replace_operator (doc, foo, "", "LeakyRelux", NULL, &error));
  g_assert_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_NOT_FOUND);
  g_assert_cmpstr (error->message, ==, "LeakyRelux is not an operator of ai.onnx opset 13");
  g_clear_error (&error);
  g_assert_false (onyx_edit_replace_operator (doc, foo, "", "Add", NULL, &error));
  g_assert_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID);
  g_clear_error (&error);
  after = onyx_document_serialize (doc);
  assert_same_bytes (before, after);
  g_assert_cmpuint (onyx_document_get_n_undo (doc), ==, 0);

  g_assert_true (onyx_parse_operator ("ai.onnx::Relu", &domain, &op_type, &error));
  g_assert_cmpstr (domain, ==, "");
  g_assert_cmpstr (op_type, ==, "Relu");
  g_clear_pointer (&domain, g_free);
  g_clear_pointer (&op_type, g_free);
  g_assert_true (onyx_parse_operator ("devtech::FooOp", &domain, &op_type, &error));
  g_assert_cmpstr (domain, ==, "devtech");
  g_assert_false (onyx_parse_operator ("devtech::", &domain, &op_type, &error));
  g_clear_error (&error);
  g_assert_false (onyx_parse_operator ("", &domain, &op_type, &error));
  g_clear_error (&error);
}

static void
test_insert (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("model_foo.onnx");
  g_autoptr (GBytes) before = onyx_document_serialize (doc);
  g_autoptr (GBytes) after = NULL;
  g_autoptr (GError) error = NULL;
  Onnx__GraphProto *graph = onyx_document_get_proto (doc)->graph;
  const char *const extras[] = { "", "input", NULL };
  Seen seen = { NULL, FALSE };
  Onnx__NodeProto *inserted;
  Onnx__NodeProto *relu = graph->node[1];

  g_signal_connect (doc, "changed", G_CALLBACK (changed_cb), &seen);
  inserted = onyx_edit_insert_node (doc, relu->output[0], "", "Identity", NULL, &error);
  g_assert_no_error (error);
  g_assert_true (graph->node[2] == inserted);
  g_assert_cmpstr (inserted->name, ==, "/model/model.2/Relu_output_0/Identity");
  g_assert_cmpstr (graph->node[3]->input[0], ==, inserted->output[0]);
  g_assert_cmpstr (onyx_document_get_undo_label (doc), ==, "Insert Identity after /model/model.2/Relu_output_0");
  /* The new node and the reader that now reads it. */
  g_assert_cmpuint (seen.nodes->len, ==, 2);
  g_assert_true (g_ptr_array_find (seen.nodes, inserted, NULL));
  g_assert_true (g_ptr_array_find (seen.nodes, graph->node[3], NULL));
  after = onyx_document_serialize (doc);
  assert_undo_redo (doc, before, after);

  /* On the graph output: the output keeps its name, the producer writes another. */
  inserted = onyx_edit_insert_node (doc, "output", "", "Identity", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (inserted->output[0], ==, "output");
  g_assert_cmpstr (inserted->input[0], ==, "output/Identity_output");
  g_assert_cmpstr (graph->node[3]->output[0], ==, "output/Identity_output");
  /* The same name again is made unique; a Clip with an omitted min. */
  inserted = onyx_edit_insert_node (doc, "input", "", "Clip", extras, &error);
  g_assert_no_error (error);
  g_assert_true (graph->node[0] == inserted);
  g_assert_cmpuint (inserted->n_input, ==, 3);
  g_assert_cmpstr (inserted->input[1], ==, "");
  inserted = onyx_edit_insert_node (doc, "input", "", "Clip", NULL, &error);
  g_assert_cmpstr (inserted->name, ==, "input/Clip_1");
  /* A custom operator: its opset is imported at version 1. */
  inserted = onyx_edit_insert_node (doc, "input", "acme", "Probe", extras, &error);
  g_assert_no_error (error);
  g_assert_cmpint (onyx_opset_version (onyx_document_get_proto (doc)->opset_import,
                                       onyx_document_get_proto (doc)->n_opset_import, "acme"), ==, 1);
  assert_replays (doc, "model_foo.onnx");

  g_assert_null (onyx_edit_insert_node (doc, "ghost", "", "Identity", NULL, &error));
  g_assert_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_null (onyx_edit_insert_node (doc, "input", "", "Relu", extras, &error));
  g_assert_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID);
  g_clear_error (&error);
  undo_all_to (doc, before, &seen);
}

/* A tensor of an If's branch: the node goes into that branch, whose output count stays. */
static void
test_insert_in_subgraph (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("control_if.onnx");
  g_autoptr (GBytes) before = onyx_document_serialize (doc);
  g_autoptr (GBytes) after = NULL;
  g_autoptr (GError) error = NULL;
  Seen seen = { NULL, FALSE };
  Onnx__NodeProto *if_node = onyx_document_find_node (doc, "/If", &error);
  Onnx__GraphProto *branch = if_node->attribute[0]->g;
  size_t n_outputs = branch->n_output;
  Onnx__NodeProto *inserted;

  g_signal_connect (doc, "changed", G_CALLBACK (changed_cb), &seen);
  inserted = onyx_edit_insert_node (doc, "/conv/Conv_output_0", "", "Identity", NULL, &error);
  g_assert_no_error (error);
  g_assert_true (onyx_document_graph_of_node (doc, inserted) == branch);
  g_assert_true (branch->node[1] == inserted);
  g_assert_cmpuint (branch->n_output, ==, n_outputs);
  /* Reported by the main-graph node holding the branch. */
  g_assert_true (g_ptr_array_find (seen.nodes, if_node, NULL));
  after = onyx_document_serialize (doc);
  assert_undo_redo (doc, before, after);
  assert_replays (doc, "control_if.onnx");
  g_signal_handlers_disconnect_by_data (doc, &seen);
  g_clear_pointer (&seen.nodes, g_ptr_array_unref);
}

/* The steps' notes: what each did, with what the user has to do next. */
static void
test_step_notes (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("model.onnx");
  g_autoptr (GError) error = NULL;
  g_autofree char *note = NULL;

  g_assert_true (onyx_step_apply_noted (doc, "insert", "input=Cast", &note, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (note, ==, "inserted the new node input/Cast (Cast), reading input; Cast requires to (set with "
                             "set-attr)");
  g_clear_pointer (&note, g_free);
  g_assert_true (onyx_step_apply_noted (doc, "set-attr", "input/Cast.to=1", &note, &error));
  g_assert_cmpstr (note, ==, "input/Cast.to = FLOAT (new)");
  g_clear_pointer (&note, g_free);
  g_assert_true (onyx_step_apply_noted (doc, "replace", "input/Cast=Identity", &note, &error));
  g_assert_cmpstr (note, ==, "input/Cast now computes Identity; dropped its attribute to");
}

/* Applies `steps` ({ name, argument } pairs, NULL-ended) as `onyx-cli edit` does,
 * checks that the replay entries give the same model again, and adds their step
 * names to `recorded`. */
static void
assert_steps_replay (const char *name, const char *const (*steps)[2], GHashTable *recorded)
{
  g_autoptr (OnyxDocument) doc = test_open_data (name);
  GPtrArray *replay;

  for (guint i = 0; steps[i][0] != NULL; i++)
    {
      g_autoptr (GError) error = NULL;
      guint before = onyx_document_get_n_undo (doc);

      g_test_message ("%s %s", steps[i][0], steps[i][1] ? steps[i][1] : "");
      g_assert_true (onyx_step_apply (doc, steps[i][0], steps[i][1], &error));
      g_assert_no_error (error);
      g_assert_cmpuint (onyx_document_get_n_undo (doc), ==, before + 1);
    }
  replay = onyx_document_get_replay (doc);
  for (guint i = 0; i < replay->len; i++)
    g_hash_table_add (recorded, g_strdup (((char **) replay->pdata[i])[0]));
  assert_replays (doc, name);
}

/* Every step an edit records is read back by the journal: what each writer puts in
 * an entry, its reader takes (onyx-replay.c). */
static void
test_every_step_replays (void)
{
  static const char *const on_model[][2] = {
    { "set-name", "#1=relu_a" },
    { "set-attr", "#0.dilations=[1,1]" },
    { "set-dim", "input:0=batch" },
    { "insert", "/model/model.2/Relu_output_0=Identity" },
    { "replace", "relu_a=Sigmoid" },
    { "reconnect", "/model/model.3/Conv:0=/model/model.0/Conv_output_0" },
    { "delete-tree", "relu_a" },
    { "add-output", "/model/model.0/Conv_output_0" },
    { "remove-output", "/model/model.0/Conv_output_0" },
    { "rename", "output=result" },
    { "convert-opset", "14" },
    { "infer-shapes", NULL },
    { "bypass", "/model/model.5/Relu" },
    { "delete", "/model/model.3/Conv" },
    { "cleanup", NULL },
    { "remove-input", "input" },
    { NULL, NULL },
  };
  static const char *const ancestors[][2] = {
    { "delete-ancestors", "/model/model.5/Relu" },
    { NULL, NULL },
  };
  static const char *const functions[][2] = {
    { "inline-functions", NULL },
    { NULL, NULL },
  };
  /* toposort records only when the order changes, which no step here unsorts. */
  static const char *const expected[] = {
    "set-name", "set-attr", "set-dim", "insert", "replace", "reconnect", "delete-tree", "add-output",
    "remove-output", "rename", "convert-opset", "infer-shapes", "bypass", "delete", "cleanup",
    "remove-input", "delete-ancestors", "inline-functions",
  };
  g_autoptr (GHashTable) recorded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  assert_steps_replay ("model.onnx", on_model, recorded);
  assert_steps_replay ("model.onnx", ancestors, recorded);
  assert_steps_replay ("function_modules.onnx", functions, recorded);
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_true (g_hash_table_contains (recorded, expected[i]));
  g_assert_cmpuint (g_hash_table_size (recorded), ==, G_N_ELEMENTS (expected));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/repair/replace", test_replace);
  g_test_add_func ("/repair/replace-errors", test_replace_errors);
  g_test_add_func ("/repair/insert", test_insert);
  g_test_add_func ("/repair/insert-in-subgraph", test_insert_in_subgraph);
  g_test_add_func ("/repair/step-notes", test_step_notes);
  g_test_add_func ("/repair/every-step-replays", test_every_step_replays);
  return g_test_run ();
}
