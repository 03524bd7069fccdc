/* Simplify's driver: one undo step, its replay entry, a pass whose outputs differ
 * refused by the proof, and a recorded run replayed on a copy making the same model. */
#include <string.h>

#include "onyx-document-private.h"
#include "onyx-run.h"
#include "onyx-simplify-private.h"
#include "onyx-steps.h"
#include "onyx-test-util.h"

#define BREAK_FLAG (1 << 7)

/* A pass that changes what the model computes: its first Add subtracts. */
static guint
break_run (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, GError **error)
{
  for (size_t n = 0; n < graph->n_node; n++)
    if (onyx_simplify_is_op (graph->node[n], "Add"))
      {
        onyx_document_set_node_field (ctx->doc, graph->node[n], "op_type", "Sub");
        return 1;
      }
  return 0;
}

static const OnyxSimplifyPass break_pass = {
  .name = "break",
  .title = "Break",
  .flag = BREAK_FLAG,
  .run = break_run,
};

static guint
count_ops (Onnx__GraphProto *graph, const char *op_type)
{
  guint n = 0;

  for (size_t i = 0; i < graph->n_node; i++)
    n += g_strcmp0 (graph->node[i]->op_type, op_type) == 0;
  return n;
}

static gboolean
bytes_equal (GBytes *a, GBytes *b)
{
  return g_bytes_equal (a, b);
}

static void
test_one_undo_step_and_its_replay (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("paddle_style.onnx");
  g_autoptr (OnyxDocument) again = test_open_data ("paddle_style.onnx");
  g_autoptr (GBytes) original = onyx_document_serialize (doc);
  g_autoptr (GBytes) simplified = NULL, replayed = NULL;
  g_autoptr (OnyxSimplifyReport) report = NULL;
  g_autoptr (GPtrArray) entries = NULL;
  g_autoptr (GError) error = NULL;
  OnyxSimplifyOptions options = { .passes = ONYX_SIMPLIFY_CONSTANTS };
  guint n_constants = count_ops (onyx_document_get_proto (doc)->graph, "Constant");

  g_assert_cmpuint (n_constants, >, 0);
  g_assert_true (onyx_edit_simplify (doc, &options, &report, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (count_ops (onyx_document_get_proto (doc)->graph, "Constant"), ==, 0);
  g_assert_cmpuint (report->n_nodes_before - report->n_nodes_after, ==, n_constants);
  g_assert_cmpuint (g_array_index (report->passes, OnyxSimplifyPassReport, 0).n_initializers_added, ==,
                    n_constants);
  g_assert_cmpint (report->verdict, ==, ONYX_SIMPLIFY_NOT_PROVEN);
  g_assert_cmpuint (onyx_document_get_n_undo (doc), ==, 1);
  g_assert_cmpstr (onyx_document_get_undo_label (doc), ==, "Simplify");

  /* One entry for the whole, which makes the same model from the file. */
  entries = onyx_document_get_replay (doc);
  g_assert_cmpuint (entries->len, ==, 1);
  g_assert_cmpstr (((char **) entries->pdata[0])[0], ==, "simplify");
  g_assert_cmpstr (((char **) entries->pdata[0])[1], ==, "constants");
  g_assert_true (onyx_edit_replay (again, (const char *const *) entries->pdata[0], &error));
  g_assert_no_error (error);
  simplified = onyx_document_serialize (doc);
  replayed = onyx_document_serialize (again);
  g_assert_true (bytes_equal (simplified, replayed));

  g_assert_true (onyx_document_undo (doc));
  g_clear_pointer (&simplified, g_bytes_unref);
  simplified = onyx_document_serialize (doc);
  g_assert_true (bytes_equal (original, simplified));
}

static void
test_pass_changing_outputs_is_refused (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("paddle_style.onnx");
  g_autoptr (OnyxSimplifyReport) report = NULL;
  g_autoptr (GError) error = NULL;
  OnyxSimplifyOptions options = { .passes = ONYX_SIMPLIFY_CONSTANTS | BREAK_FLAG, .prove = TRUE };
  Onnx__GraphProto *graph = onyx_document_get_proto (doc)->graph;
  guint n_adds = count_ops (graph, "Add");
  const OnyxSimplifyPassReport *constants, *broken;

  if (!onyx_run_available (NULL))
    {
      g_test_skip ("this build runs no models");
      return;
    }
  g_assert_cmpuint (n_adds, >, 0);
  onyx_simplify_set_test_pass (&break_pass);
  g_assert_true (onyx_edit_simplify (doc, &options, &report, &error));
  onyx_simplify_set_test_pass (NULL);
  g_assert_no_error (error);

  /* The constants stand; the Add is an Add again. */
  g_assert_cmpuint (count_ops (graph, "Constant"), ==, 0);
  g_assert_cmpuint (count_ops (graph, "Add"), ==, n_adds);
  g_assert_cmpuint (count_ops (graph, "Sub"), ==, 0);
  g_assert_cmpint (report->verdict, ==, ONYX_SIMPLIFY_PROVEN);
  constants = &g_array_index (report->passes, OnyxSimplifyPassReport, 0);
  broken = &g_array_index (report->passes, OnyxSimplifyPassReport, 1);
  g_assert_cmpstr (constants->name, ==, "constants");
  g_assert_null (constants->refused);
  g_assert_cmpstr (broken->name, ==, "break");
  g_assert_nonnull (broken->refused);
  g_assert_nonnull (strstr (broken->refused, "outputs differ"));

  /* With force, the broken pass is kept and the verdict says so. */
  g_assert_true (onyx_document_undo (doc));
  g_clear_pointer (&report, onyx_simplify_report_free);
  options.force = TRUE;
  onyx_simplify_set_test_pass (&break_pass);
  g_assert_true (onyx_edit_simplify (doc, &options, &report, &error));
  onyx_simplify_set_test_pass (NULL);
  g_assert_cmpint (report->verdict, ==, ONYX_SIMPLIFY_DIFFERS);
  /* A round each: every Add. */
  g_assert_cmpuint (count_ops (graph, "Sub"), ==, n_adds);
}

static void
test_recorded_run_replays_on_a_copy (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("paddle_style.onnx");
  g_autoptr (OnyxModel) copy_model = onyx_model_snapshot (onyx_document_get_model (doc));
  g_autoptr (OnyxDocument) copy = onyx_document_new (copy_model);
  g_autoptr (OnyxSimplifyTape) tape = onyx_simplify_tape_new ();
  g_autoptr (OnyxSimplifyReport) recorded = NULL, replayed = NULL;
  g_autoptr (GBytes) a = NULL, b = NULL;
  g_autoptr (GError) error = NULL;
  OnyxSimplifyOptions record = { .passes = ONYX_SIMPLIFY_ALL, .prove = TRUE, .tape = tape };
  OnyxSimplifyOptions replay = { .passes = ONYX_SIMPLIFY_ALL, .tape = tape, .replay = TRUE };

  g_assert_true (onyx_edit_simplify (copy, &record, &recorded, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (recorded->n_nodes_after, <, recorded->n_nodes_before);
  g_assert_true (onyx_edit_simplify (doc, &replay, &replayed, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (replayed->n_nodes_after, ==, recorded->n_nodes_after);
  g_assert_cmpuint (replayed->n_initializers_after, ==, recorded->n_initializers_after);
  a = onyx_document_serialize (copy);
  b = onyx_document_serialize (doc);
  g_assert_true (bytes_equal (a, b));
}

/* Pass names read back as written: "none" is Clean Up alone (the replay entry of a
 * Simplify whose every pass was refused), not every pass. */
static void
test_pass_names_read_back (void)
{
  const OnyxSimplifyPasses cases[] = { 0, ONYX_SIMPLIFY_CONSTANTS, ONYX_SIMPLIFY_CONSTANTS | ONYX_SIMPLIFY_FOLD,
                                       ONYX_SIMPLIFY_ALL };
  g_autoptr (OnyxDocument) doc = test_open_data ("paddle_style.onnx");
  g_autoptr (OnyxSimplifyReport) report = NULL;
  g_autoptr (GError) error = NULL;
  OnyxSimplifyOptions options = { 0 };
  guint n_constants = count_ops (onyx_document_get_proto (doc)->graph, "Constant");
  guint n_checked = 0;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = onyx_simplify_passes_text (cases[i]);
      OnyxSimplifyPasses read = G_MAXUINT;
      g_assert_true (onyx_simplify_parse_passes (text, &read, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (read, ==, cases[i]);
      n_checked++;
    }
  g_assert_cmpuint (n_checked, ==, G_N_ELEMENTS (cases));
  g_assert_true (onyx_simplify_parse_passes ("none", &options.passes, &error));
  g_assert_cmpuint (options.passes, ==, 0);

  g_assert_cmpuint (n_constants, >, 0);
  g_assert_true (onyx_edit_simplify (doc, &options, &report, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (count_ops (onyx_document_get_proto (doc)->graph, "Constant"), ==, n_constants);
  g_assert_cmpuint (report->passes->len, ==, 1);
  g_assert_cmpstr (g_array_index (report->passes, OnyxSimplifyPassReport, 0).name, ==, "cleanup");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/simplify/one-undo-step-and-its-replay", test_one_undo_step_and_its_replay);
  g_test_add_func ("/simplify/pass-changing-outputs-is-refused", test_pass_changing_outputs_is_refused);
  g_test_add_func ("/simplify/recorded-run-replays-on-a-copy", test_recorded_run_replays_on_a_copy);
  g_test_add_func ("/simplify/pass-names-read-back", test_pass_names_read_back);
  return g_test_run ();
}
