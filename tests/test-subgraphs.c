/* test-subgraphs.c: the graphs inside If and Loop nodes, as torch.jit.script exports
 * them (control_if.onnx: an If with a Conv branch; control_loop.onnx: a Loop whose
 * body holds an If), and in libonnx-testdata models with If/Loop/Scan: their names,
 * problem nodes anywhere, edits inside branches with undo and redo, the index of
 * every graph kept equal to a fresh one, and the diagnostics following. */
#include <string.h>

#include "onyx-diagnose.h"
#include "onyx-problem-list.h"
#include "onyx-edits.h"
#include "onyx-graph-names.h"
#include "onyx-steps.h"
#include "onyx-steps.h"
#include "onyx-test-util.h"

/* Every graph's index (built now if it was not) equals one built from scratch. */
static guint
assert_all_indexes_fresh (OnyxDocument *doc)
{
  g_autoptr (OnyxGraphList) graphs = onyx_graph_list_new (onyx_document_get_proto (doc));
  guint n = 0;

  for (guint i = 0; i < onyx_graph_list_size (graphs); i++)
    {
      const OnyxGraphEntry *entry = onyx_graph_list_get (graphs, i);
      if (entry->function != NULL)
        continue;
      test_assert_index_fresh (onyx_document_get_graph_index (doc, entry->graph), entry->graph);
      n++;
    }
  return n;
}

static void
assert_same_problems (OnyxProblemList *diagnostics, OnyxDocument *doc)
{
  g_autoptr (GPtrArray) full = onyx_diagnose_model (onyx_document_get_proto (doc));
  GPtrArray *kept = onyx_problem_list_get (diagnostics);

  g_assert_cmpuint (kept->len, ==, full->len);
  for (guint i = 0; i < full->len; i++)
    {
      const OnyxProblem *a = full->pdata[i], *b = kept->pdata[i];
      g_assert_cmpint (a->kind, ==, b->kind);
      g_assert_true (a->node_proto == b->node_proto);
      g_assert_cmpstr (a->graph, ==, b->graph);
    }
}

static void
test_names (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("control_loop.onnx");
  g_autoptr (OnyxGraphList) graphs = onyx_graph_list_new (onyx_document_get_proto (doc));
  g_autoptr (GError) error = NULL;
  const char *expected[] = { "main", "/Loop:body", "/If:then_branch", "/If:else_branch" };
  const OnyxGraphEntry *body, *then_branch;
  const OnyxGraphEntry *in = NULL;
  Onnx__NodeProto *tanh;
  g_autoptr (GPtrArray) children = NULL;

  g_assert_cmpuint (onyx_graph_list_size (graphs), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpstr (onyx_graph_list_get (graphs, i)->name, ==, expected[i]);
  body = onyx_graph_list_find (graphs, "/Loop:body", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (body->owner->op_type, ==, "Loop");
  g_assert_cmpint (body->parent, ==, 0);
  then_branch = onyx_graph_list_find (graphs, "/If:then_branch", &error);
  g_assert_cmpuint (then_branch->depth, ==, 2);
  g_assert_true (onyx_graph_list_get (graphs, (guint) then_branch->parent) == body);
  g_assert_true (onyx_graph_list_find (graphs, "", NULL) == onyx_graph_list_get (graphs, 0));
  g_assert_true (onyx_graph_list_find (graphs, "main graph", NULL) == onyx_graph_list_get (graphs, 0));

  /* Nodes anywhere, by name or by position in their graph. */
  tanh = onyx_graph_list_find_node (graphs, "/Tanh", &in, &error);
  g_assert_no_error (error);
  g_assert_true (in == then_branch);
  g_assert_true (onyx_graph_list_find_node (graphs, "/If:then_branch#1", NULL, NULL) == tanh);
  g_assert_true (onyx_graph_list_find_node (graphs, "#1", NULL, NULL) == body->owner);
  g_assert_null (onyx_graph_list_find_node (graphs, "/If:then_branch#9", NULL, &error));
  g_assert_error (error, ONYX_GRAPH_PATH_ERROR, ONYX_GRAPH_PATH_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_null (onyx_graph_list_find (graphs, "/Tanh:body", &error));
  g_assert_nonnull (strstr (error->message, "holds no graph attribute"));
  g_clear_error (&error);
  g_assert_null (onyx_graph_list_find (graphs, "nothing", &error));
  g_assert_error (error, ONYX_GRAPH_PATH_ERROR, ONYX_GRAPH_PATH_ERROR_NOT_FOUND);
  g_clear_error (&error);

  children = onyx_graph_list_children (graphs, then_branch->owner);
  g_assert_cmpuint (children->len, ==, 2);
  g_assert_cmpstr (((OnyxGraphEntry *) children->pdata[0])->name, ==, "/If:then_branch");
  g_assert_cmpstr (((OnyxGraphEntry *) children->pdata[1])->name, ==, "/If:else_branch");
}

/* Two nodes named alike: names of their graphs and references by name are refused
 * with the candidates; positions still reach them. */
static void
test_ambiguous (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("control_loop.onnx");
  Onnx__ModelProto *proto = onyx_document_get_proto (doc);
  g_autoptr (GError) error = NULL;
  Onnx__NodeProto *loop = proto->graph->node[1];
  Onnx__NodeProto *inner_if = NULL;
  g_autofree char *saved = g_strdup (loop->name);
  Onnx__GraphProto *body = loop->attribute[0]->g;

  for (size_t i = 0; i < body->n_node; i++)
    if (g_strcmp0 (body->node[i]->op_type, "If") == 0)
      inner_if = body->node[i];
  g_assert_nonnull (inner_if);
  /* Renamed behind the document's back: only the name list is looked at here. */
  free (loop->name);
  loop->name = strdup (inner_if->name);
  {
    g_autoptr (OnyxGraphList) graphs = onyx_graph_list_new (proto);
    g_assert_cmpstr (onyx_graph_list_get (graphs, 1)->name, ==, "#1:body");
    g_assert_cmpstr (onyx_graph_list_get (graphs, 2)->name, ==, "#1:body#5:then_branch");
    g_assert_null (onyx_graph_list_find (graphs, "/If:then_branch", &error));
    g_assert_error (error, ONYX_GRAPH_PATH_ERROR, ONYX_GRAPH_PATH_ERROR_AMBIGUOUS);
    g_assert_nonnull (strstr (error->message, "#1:body#5:then_branch"));
    g_clear_error (&error);
    g_assert_null (onyx_graph_list_find_node (graphs, "/If", NULL, &error));
    g_assert_error (error, ONYX_GRAPH_PATH_ERROR, ONYX_GRAPH_PATH_ERROR_AMBIGUOUS);
    g_assert_nonnull (strstr (error->message, "#1"));
    g_assert_nonnull (strstr (error->message, "#1:body#5"));
    g_clear_error (&error);
    g_assert_true (onyx_graph_list_find_node (graphs, "#1:body#5", NULL, NULL) == inner_if);
  }
  free (loop->name);
  loop->name = strdup (saved);
}

/* Bypassing Relu inside the If's then branch: Conv writes the branch's output. */
static void
test_bypass_in_branch (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("control_if.onnx");
  g_autoptr (OnyxProblemList) diagnostics = onyx_problem_list_new (doc);
  g_autoptr (GBytes) original = onyx_document_serialize (doc);
  g_autoptr (GBytes) edited = NULL, redone = NULL, undone = NULL;
  g_autoptr (GError) error = NULL;
  Onnx__NodeProto *relu = onyx_document_find_node (doc, "/Relu", &error);
  Onnx__NodeProto *if_node = onyx_document_find_node (doc, "/If", &error);
  Onnx__GraphProto *branch;

  g_assert_no_error (error);
  branch = onyx_document_graph_of_node (doc, relu);
  g_assert_true (onyx_document_graph_owner (doc, branch) == if_node);
  g_assert_cmpuint (assert_all_indexes_fresh (doc), ==, 3);
  g_assert_true (onyx_step_apply (doc, "bypass", "/Relu", &error));
  g_assert_no_error (error);
  g_assert_cmpstr (onyx_document_get_undo_label (doc), ==, "Bypass node /Relu");
  g_assert_cmpuint (branch->n_node, ==, 1);
  g_assert_cmpstr (branch->node[0]->output[0], ==, branch->output[0]->name);
  assert_all_indexes_fresh (doc);
  assert_same_problems (diagnostics, doc);
  g_assert_cmpuint (onyx_validate_model (onyx_document_get_proto (doc))->len, ==, 0);
  edited = onyx_document_serialize (doc);

  g_assert_true (onyx_document_undo (doc));
  undone = onyx_document_serialize (doc);
  g_assert_true (g_bytes_equal (undone, original));
  assert_all_indexes_fresh (doc);
  assert_same_problems (diagnostics, doc);
  g_assert_true (onyx_document_redo (doc));
  redone = onyx_document_serialize (doc);
  g_assert_true (g_bytes_equal (redone, edited));
  assert_all_indexes_fresh (doc);
}

/* What would leave a branch without its results is refused, changing nothing. */
static void
test_branch_refusals (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("control_loop.onnx");
  g_autoptr (GError) error = NULL;

  /* The body's first output is Identity of an outer tensor. */
  g_assert_false (onyx_step_apply (doc, "bypass", "/Identity", &error));
  g_assert_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "an output of its graph"));
  g_clear_error (&error);
  /* Mod feeds the If whose result is a body output. */
  g_assert_false (onyx_step_apply (doc, "delete-tree", "/Mod", &error));
  g_assert_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (onyx_step_apply (doc, "reconnect", "/Add:0=nowhere", &error));
  g_assert_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_cmpuint (onyx_document_get_n_undo (doc), ==, 0);
}

/* Two levels down, reading names from the body and from the main graph. */
static void
test_nested_edits (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("control_loop.onnx");
  g_autoptr (OnyxProblemList) diagnostics = onyx_problem_list_new (doc);
  g_autoptr (GError) error = NULL;
  Onnx__NodeProto *loop = onyx_document_find_node (doc, "/Loop", NULL);
  g_autoptr (GBytes) original = onyx_document_serialize (doc);
  const char *steps[][2] = {
    { "bypass", "/Tanh" },
    { "reconnect", "/Add:0=/Constant_output_0" },  /* of the main graph */
    { "reconnect", "/Mod:0=x.29" },                /* a body input */
    { "set-attr", "/lin/Gemm.alpha=0.5" },
    { "set-name", "/Mod=/Mod_renamed" },
    { "delete", "/If:else_branch#0" },             /* leaves Add dangling */
  };
  GPtrArray *outer_reads = g_ptr_array_new ();
  guint n_steps = G_N_ELEMENTS (steps);

  for (guint i = 0; i < n_steps; i++)
    {
      g_test_message ("%s %s", steps[i][0], steps[i][1]);
      g_assert_true (onyx_step_apply (doc, steps[i][0], steps[i][1], &error));
      g_assert_no_error (error);
      assert_all_indexes_fresh (doc);
      assert_same_problems (diagnostics, doc);
    }
  /* The Loop now reads /Constant_output_0 in its body twice, still once as a use. */
  onyx_node_collect_reads (loop, outer_reads);
  g_assert_true (g_ptr_array_find_with_equal_func (outer_reads, "/Constant_output_0", g_str_equal, NULL));
  g_ptr_array_unref (outer_reads);
  {
    g_autoptr (GPtrArray) problems = onyx_validate_model (onyx_document_get_proto (doc));
    g_assert_cmpuint (problems->len, ==, 1);
    g_assert_cmpint (((OnyxProblem *) problems->pdata[0])->kind, ==, ONYX_PROBLEM_DANGLING_INPUT);
    g_assert_cmpstr (((OnyxProblem *) problems->pdata[0])->graph, ==, "/If:else_branch");
  }
  for (guint i = 0; i < n_steps; i++)
    {
      g_assert_true (onyx_document_undo (doc));
      assert_all_indexes_fresh (doc);
      assert_same_problems (diagnostics, doc);
    }
  {
    g_autoptr (GBytes) undone = onyx_document_serialize (doc);
    g_assert_true (g_bytes_equal (undone, original));
  }
}

/* Names are looked up model-wide without walking it: kept through renames, deletes
 * (of a node holding a graph too) and their undo. */
static void
test_names_followed (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("control_loop.onnx");
  Onnx__NodeProto *tanh = onyx_document_find_node (doc, "/Tanh", NULL);
  Onnx__NodeProto *loop = onyx_document_find_node (doc, "/Loop", NULL);
  guint n = 0;

  g_assert_true (onyx_document_find_named_node (doc, "/Tanh", &n) == tanh && n == 1);
  g_assert_true (onyx_step_apply (doc, "set-name", "/Tanh=/Mod", NULL));
  g_assert_null (onyx_document_find_named_node (doc, "/Tanh", &n));
  g_assert_cmpuint (n, ==, 0);
  g_assert_null (onyx_document_find_named_node (doc, "/Mod", &n));
  g_assert_cmpuint (n, ==, 2);
  g_assert_null (onyx_document_find_node (doc, "/Mod", NULL));  /* ambiguous */
  g_assert_true (onyx_edit_delete_node (doc, loop, NULL));
  /* The body's nodes went with the Loop. */
  g_assert_null (onyx_document_find_named_node (doc, "/Mod", &n));
  g_assert_cmpuint (n, ==, 0);
  g_assert_true (onyx_document_undo (doc));
  g_assert_cmpuint ((onyx_document_find_named_node (doc, "/Mod", &n), n), ==, 2);
  g_assert_true (onyx_document_undo (doc));
  g_assert_true (onyx_document_find_named_node (doc, "/Tanh", &n) == tanh && n == 1);
  /* The other /Mod is the one node of its name again. */
  g_assert_nonnull (onyx_document_find_named_node (doc, "/Mod", &n));
  g_assert_cmpuint (n, ==, 1);
  g_assert_true (onyx_document_redo (doc));
  g_assert_null (onyx_document_find_named_node (doc, "/Tanh", &n));
  g_assert_cmpuint ((onyx_document_find_named_node (doc, "/Mod", &n), n), ==, 2);
}

/* The crash journal's replay entries name nested nodes GRAPH#N: replayed on the
 * original file they give the edited model again. */
static void
test_replay (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("control_loop.onnx");
  g_autoptr (OnyxDocument) again = test_open_data ("control_loop.onnx");
  g_autoptr (GBytes) edited = NULL, replayed = NULL;
  g_autoptr (GPtrArray) entries = NULL;
  g_autoptr (GError) error = NULL;
  gboolean nested_ref = FALSE;

  /* By position: the inner If's else branch's Add is anonymous to the journal. */
  g_assert_true (onyx_step_apply (doc, "bypass", "/Tanh", &error));
  g_assert_true (onyx_step_apply (doc, "set-attr", "/If:else_branch#1.onyx_test=7", &error));
  g_assert_true (onyx_step_apply (doc, "set-name", "/Mod=", &error));  /* now anonymous */
  g_assert_true (onyx_step_apply (doc, "reconnect", "/Loop:body#1:0=x.29", &error));
  g_assert_no_error (error);
  entries = onyx_document_get_replay (doc);
  g_assert_cmpuint (entries->len, ==, 4);
  for (guint i = 0; i < entries->len; i++)
    {
      char **entry = entries->pdata[i];
      nested_ref |= strstr (entry[1], ":body#") != NULL;
      g_assert_true (onyx_edit_replay (again, (const char *const *) entry, &error));
      g_assert_no_error (error);
    }
  g_assert_true (nested_ref);
  edited = onyx_document_serialize (doc);
  replayed = onyx_document_serialize (again);
  g_assert_true (g_bytes_equal (edited, replayed));
}

/* Random node edits in every graph of models with subgraphs: each applied edit
 * keeps every index fresh and the diagnostics equal to a full pass; undoing all
 * gives the original bytes back. */
static guint
check_random_subgraph_edits (const char *path, guint32 seed, guint n_edits)
{
  g_autoptr (OnyxDocument) doc = test_open_document (path);
  g_autoptr (OnyxProblemList) diagnostics = onyx_problem_list_new (doc);
  g_autoptr (GBytes) original = onyx_document_serialize (doc);
  g_autoptr (GBytes) undone = NULL;
  GRand *rand = g_rand_new_with_seed (seed);
  guint n_applied = 0;

  for (guint i = 0; i < n_edits; i++)
    {
      g_autoptr (OnyxGraphList) graphs = onyx_graph_list_new (onyx_document_get_proto (doc));
      const OnyxGraphEntry *entry = onyx_graph_list_get (graphs, (guint) g_rand_int_range (rand, 0, (gint32) onyx_graph_list_size (graphs)));
      Onnx__NodeProto *node;
      g_autofree char *reference = NULL;
      g_autofree char *argument = NULL;
      guint n_undo = onyx_document_get_n_undo (doc);
      const char *step;

      if (entry->function != NULL || entry->graph->n_node == 0)
        continue;
      node = entry->graph->node[g_rand_int_range (rand, 0, (gint32) entry->graph->n_node)];
      reference = onyx_graph_list_node_reference (graphs, node);
      switch (g_rand_int_range (rand, 0, 5))
        {
        case 0: step = "bypass"; argument = g_strdup (reference); break;
        case 1: step = "delete"; argument = g_strdup (reference); break;
        case 2: step = "set-name"; argument = g_strdup_printf ("%s=renamed_%u", reference, i); break;
        case 3: step = "set-attr"; argument = g_strdup_printf ("%s.onyx_test=%u", reference, i); break;
        default:
          {
            /* An input of another node of the same graph, or an outer name. */
            Onnx__NodeProto *other = entry->graph->node[g_rand_int_range (rand, 0, (gint32) entry->graph->n_node)];
            if (node->n_input == 0 || other->n_input == 0 || other->input[0][0] == '\0')
              continue;
            step = "reconnect";
            argument = g_strdup_printf ("%s:0=%s", reference, other->input[0]);
          }
        }
      if (!onyx_step_apply (doc, step, argument, NULL) || onyx_document_get_n_undo (doc) == n_undo)
        continue;
      n_applied++;
      assert_all_indexes_fresh (doc);
      assert_same_problems (diagnostics, doc);
    }
  while (onyx_document_undo (doc))
    assert_all_indexes_fresh (doc);
  assert_same_problems (diagnostics, doc);
  undone = onyx_document_serialize (doc);
  g_assert_true (g_bytes_equal (undone, original));
  g_rand_free (rand);
  return n_applied;
}

static gboolean
has_subgraphs (const char *path)
{
  g_autoptr (OnyxDocument) doc = test_open_document (path);
  g_autoptr (OnyxGraphList) graphs = onyx_graph_list_new (onyx_document_get_proto (doc));
  return onyx_graph_list_size (graphs) > 1 && onyx_graph_list_get (graphs, 1)->function == NULL;
}

static void
test_random_edits (void)
{
  g_autoptr (GPtrArray) paths = test_testdata_models ();
  guint n_models = 0, n_applied = 0;

  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *path = test_data_path (i == 0 ? "control_if.onnx" : "control_loop.onnx");
      for (guint32 seed = 1; seed <= 10; seed++)
        n_applied += check_random_subgraph_edits (path, seed, 12);
      n_models++;
    }
  for (guint i = 0; paths != NULL && i < paths->len; i++)
    if (has_subgraphs (paths->pdata[i]))
      {
        n_applied += check_random_subgraph_edits (paths->pdata[i], i, 12);
        n_models++;
      }
  g_test_message ("%u edits applied in the subgraphs of %u models", n_applied, n_models);
  /* 22 testdata models have If/Loop/Scan/SequenceMap bodies. */
  g_assert_cmpuint (n_models, >=, 20);
  g_assert_cmpuint (n_applied, >=, 150);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/subgraphs/names", test_names);
  g_test_add_func ("/subgraphs/ambiguous", test_ambiguous);
  g_test_add_func ("/subgraphs/bypass-in-branch", test_bypass_in_branch);
  g_test_add_func ("/subgraphs/branch-refusals", test_branch_refusals);
  g_test_add_func ("/subgraphs/nested-edits", test_nested_edits);
  g_test_add_func ("/subgraphs/names-followed", test_names_followed);
  g_test_add_func ("/subgraphs/replay", test_replay);
  g_test_add_func ("/subgraphs/random-edits", test_random_edits);
  return g_test_run ();
}
