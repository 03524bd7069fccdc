/* Hostile models and failing disks: a clear error or a safe display, never a crash,
 * a hang, an unbounded allocation or a lost file. */
#include <glib/gstdio.h>
#include <signal.h>
#include <sys/resource.h>

#include "onyx-diagnose.h"
#include "onyx-problem-list.h"
#include "onyx-diff.h"
#include "onyx-document.h"
#include "onyx-layout.h"
#include "onyx-summary.h"
#include "onyx-test-util.h"
#include "onyx-types.h"
#include "onyx-validate.h"
#include "onyx-text.h"

static void
test_overflowing_dims (void)
{
  Onnx__ModelProto *proto = test_model_new ();
  const int64_t small[] = { 2 };
  Onnx__TensorProto *tensor = test_initializer ("huge", 1, small);
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = NULL;
  g_autoptr (OnyxSummary) summary = NULL;

  /* Claims 2^62 × 8 elements while holding two. */
  g_free (tensor->dims);
  tensor->n_dims = 2;
  tensor->dims = g_new (int64_t, 2);
  tensor->dims[0] = G_GINT64_CONSTANT (1) << 62;
  tensor->dims[1] = 8;
  TEST_APPEND (proto->graph->initializer, proto->graph->n_initializer, tensor);
  model = test_model_load (proto, &error);
  g_assert_no_error (error);
  summary = onyx_summary_new (onyx_model_get_proto (model));
  g_assert_true (summary->parameters_overflow);
  g_assert_cmpuint (summary->n_parameters, ==, 0);
}

static void
test_hundred_thousand_inputs (void)
{
  Onnx__ModelProto *proto = test_model_new ();
  Onnx__GraphProto *graph = proto->graph;
  Onnx__NodeProto *concat = test_node ("Concat", "wide", NULL, "y", NULL);
  const int64_t dims[] = { 1 };
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = NULL;
  g_autoptr (GPtrArray) problems = NULL;
  g_autoptr (GBytes) saved = NULL;

  g_free (concat->input);
  concat->n_input = 100000;
  concat->input = g_new (char *, concat->n_input);
  for (size_t i = 0; i < concat->n_input; i++)
    concat->input[i] = g_strdup (i % 2 == 0 ? "x" : "");
  TEST_APPEND (graph->input, graph->n_input, test_value_info ("x", 1, dims));
  TEST_APPEND (graph->output, graph->n_output, test_value_info ("y", 1, dims));
  TEST_APPEND (graph->node, graph->n_node, concat);
  model = test_model_load (proto, &error);
  g_assert_no_error (error);
  problems = onyx_validate_model (onyx_model_get_proto (model));
  g_assert_cmpuint (problems->len, ==, 0);
  g_ptr_array_unref (problems);
  /* Concat's inputs are variadic: empty names and 100,000 slots are fine; only its
   * required axis is missing. */
  problems = onyx_diagnose_model (onyx_model_get_proto (model));
  g_assert_cmpuint (problems->len, ==, 1);
  g_assert_cmpint (((OnyxProblem *) problems->pdata[0])->kind, ==, ONYX_PROBLEM_MISSING_ATTRIBUTE);
  saved = onyx_model_serialize (model);
  g_assert_cmpuint (g_bytes_get_size (saved), >, 100000);
}

static gboolean
is_displayable (const char *text)
{
  if (!g_utf8_validate (text, -1, NULL))
    return FALSE;
  for (const char *p = text; *p != '\0'; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f)
      return FALSE;
  return TRUE;
}

static void
test_hostile_names (void)
{
  Onnx__ModelProto *proto = test_model_new ();
  Onnx__GraphProto *graph = proto->graph;
  const char *bad = "bad\xff\xfe\x01name\n\x1b[31mred";
  const int64_t dims[] = { 1 };
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = NULL;
  g_autoptr (GPtrArray) problems = NULL;
  g_autofree char *shown = NULL;

  TEST_APPEND (graph->input, graph->n_input, test_value_info (bad, 1, dims));
  TEST_APPEND (graph->node, graph->n_node, test_node ("Relu", bad, "missing\x02", NULL, "y", NULL));
  TEST_APPEND (graph->output, graph->n_output, test_value_info ("y", 1, dims));
  model = test_model_load (proto, &error);
  g_assert_no_error (error);

  /* The raw name is kept as is (a save writes it back unchanged)… */
  g_assert_cmpstr (onyx_model_get_proto (model)->graph->node[0]->name, ==, bad);
  /* …and shown escaped. */
  shown = onyx_display_escape (bad);
  g_assert_true (is_displayable (shown));
  g_assert_nonnull (strstr (shown, "\\x01name\\x0a\\x1b[31mred"));
  problems = onyx_validate_model (onyx_model_get_proto (model));
  g_assert_cmpuint (problems->len, ==, 1);
  g_assert_true (is_displayable (((OnyxProblem *) problems->pdata[0])->message));
}

/* A disk that fills up mid-save (simulated with RLIMIT_FSIZE: writes past the limit
 * fail with EFBIG): the old file and the model in memory survive, and the same model
 * saves once there is room again. */
static void
test_save_on_full_disk (void)
{
  g_autofree char *dir = g_dir_make_tmp ("onyx-full-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "model.onnx", NULL);
  g_autofree char *source = test_data_path ("model.onnx");
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = onyx_model_new_from_file (source, &error);
  g_autoptr (GBytes) original = NULL;
  g_autoptr (GBytes) after = NULL;
  g_autoptr (GBytes) in_memory = NULL;
  struct rlimit saved_limit, small_limit;
  void (*saved_handler) (int);

  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (path, "previous contents", -1, NULL));
  original = test_read_file (path);
  in_memory = onyx_model_serialize (model);

  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &saved_limit), ==, 0);
  small_limit = saved_limit;
  small_limit.rlim_cur = 4096;
  saved_handler = signal (SIGXFSZ, SIG_IGN);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &small_limit), ==, 0);
  g_assert_false (onyx_model_save (model, path, &error));
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &saved_limit), ==, 0);
  signal (SIGXFSZ, saved_handler);

  g_assert_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_IO);
  g_assert_true (g_str_has_prefix (error->message, "model.onnx: cannot write: "));
  after = test_read_file (path);
  g_assert_true (g_bytes_equal (original, after));
  g_assert_cmpuint (test_count_dir_entries (dir), ==, 1);
  g_clear_error (&error);

  g_assert_true (onyx_model_save (model, path, &error));
  g_assert_no_error (error);
  g_clear_pointer (&after, g_bytes_unref);
  after = test_read_file (path);
  g_assert_true (g_bytes_equal (in_memory, after));

  g_unlink (path);
  g_rmdir (dir);
}

/* Inputs the fuzzers once crashed on: each loads (or fails with a message) and then
 * goes through everything a model goes through: validation, summary, the edit index,
 * layout and serialization. */
static void
test_fuzz_regressions (void)
{
  g_autofree char *dir = test_data_path ("fuzz-regressions");
  GDir *handle = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  g_assert_nonnull (handle);
  while ((name = g_dir_read_name (handle)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (OnyxModel) model = onyx_model_new_from_file (path, &error);
      g_autoptr (OnyxDocument) doc = NULL;
      g_autoptr (GPtrArray) problems = NULL;
      g_autoptr (OnyxSummary) summary = NULL;
      g_autoptr (OnyxDiff) diff = NULL;
      g_autoptr (GBytes) saved = NULL;
      g_autoptr (GHashTable) expanded = NULL;
      g_autoptr (OnyxLayout) layout = NULL;
      OnyxLayoutEngine *engine;

      n++;
      if (model == NULL)
        {
          g_assert_nonnull (error);
          continue;
        }
      problems = onyx_diagnose_model (onyx_model_get_proto (model));
      summary = onyx_summary_new (onyx_model_get_proto (model));
      diff = onyx_diff_models (onyx_model_get_proto (model), onyx_model_get_proto (model));
      g_assert_cmpuint (diff->entries->len, ==, 0);
      doc = onyx_document_new (model);
      onyx_problem_list_free (onyx_problem_list_new (doc));
      engine = onyx_layout_engine_new (onyx_model_get_proto (model)->graph);
      expanded = onyx_layout_engine_expansion (engine, ONYX_EXPAND_ALL, NULL, NULL);
      layout = onyx_layout_engine_run (engine, expanded, NULL, NULL, NULL);
      g_assert_nonnull (layout);
      onyx_layout_engine_free (engine);
      saved = onyx_document_serialize (doc);
      g_assert_nonnull (saved);
    }
  g_dir_close (handle);
  g_assert_cmpuint (n, >, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hostile/overflowing-dims", test_overflowing_dims);
  g_test_add_func ("/hostile/100k-inputs", test_hundred_thousand_inputs);
  g_test_add_func ("/hostile/names", test_hostile_names);
  g_test_add_func ("/hostile/full-disk", test_save_on_full_disk);
  g_test_add_func ("/hostile/fuzz-regressions", test_fuzz_regressions);
  return g_test_run ();
}
