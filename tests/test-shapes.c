/* Shapes inferred while a model opens (onyx_document_open_with_shapes: libonnx works
 * on the loader's bytes) are the ones inference on the loaded model gives: every
 * tensor's type, and the errors on the same nodes; other work can be done meanwhile. And the worker process libonnx
 * runs in: a crash fails one job, a worker killed while idle is replaced. */
#include <dirent.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "onyx-analysis.h"
#include "onyx-edits.h"
#include "onyx-graph-names.h"
#include "onyx-problem-list.h"
#include "onyx-onnx.h"
#include "onyx-shapes.h"
#include "onyx-test-util.h"

static void
assert_same_type (OnyxShapes *opened, OnyxShapes *later, const Onnx__GraphProto *graph,
                  const char *name, guint *n_compared)
{
  gboolean recorded_opened, recorded_later;
  const Onnx__TypeProto *a = onyx_shapes_lookup (opened, graph, name, &recorded_opened);
  const Onnx__TypeProto *b = onyx_shapes_lookup (later, graph, name, &recorded_later);

  g_assert_true ((a == NULL) == (b == NULL));
  g_assert_cmpint (recorded_opened, ==, recorded_later);
  if (a == NULL)
    return;
  g_assert_true (onyx_proto_equal (&a->base, &b->base));
  (*n_compared)++;
}

/* The number of typed tensors compared. */
static guint
assert_open_matches_later (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxDocument) doc = onyx_document_open_with_shapes (path, &error);
  Onnx__ModelProto *model;
  OnyxShapes *opened;
  g_autoptr (OnyxShapes) later = NULL;
  g_autoptr (GPtrArray) graphs = NULL;
  GPtrArray *errors_opened, *errors_later;
  guint n_compared = 0;

  g_assert_no_error (error);
  model = onyx_document_get_proto (doc);
  opened = onyx_document_get_shapes (doc);
  later = onyx_shapes_infer (model, FALSE);
  graphs = onyx_graph_list_graphs (model);
  for (guint g = 0; g < graphs->len; g++)
    {
      const Onnx__GraphProto *graph = graphs->pdata[g];
      for (size_t n = 0; n < graph->n_node; n++)
        {
          for (size_t i = 0; i < graph->node[n]->n_input; i++)
            assert_same_type (opened, later, graph, graph->node[n]->input[i], &n_compared);
          for (size_t i = 0; i < graph->node[n]->n_output; i++)
            assert_same_type (opened, later, graph, graph->node[n]->output[i], &n_compared);
        }
      for (size_t i = 0; i < graph->n_input; i++)
        assert_same_type (opened, later, graph, graph->input[i]->name, &n_compared);
      for (size_t i = 0; i < graph->n_output; i++)
        assert_same_type (opened, later, graph, graph->output[i]->name, &n_compared);
    }
  errors_opened = onyx_shapes_get_errors (opened);
  errors_later = onyx_shapes_get_errors (later);
  g_assert_cmpuint (errors_opened->len, ==, errors_later->len);
  for (guint i = 0; i < errors_opened->len; i++)
    {
      const OnyxShapeError *a = errors_opened->pdata[i], *b = errors_later->pdata[i];
      g_assert_true (a->node == b->node);
      g_assert_true (a->graph == b->graph);
      g_assert_cmpstr (a->message, ==, b->message);
    }
  return n_compared;
}

static void
count_open_matches_later (const char *path, OnyxModel *model, gpointer n_compared)
{
  (void) model;  /* opened again by the path, the way under test */
  *(guint *) n_compared += assert_open_matches_later (path);
}

static void
test_open_matches_later_on_models (void)
{
  guint n_compared = 0;
  guint n_models = test_on_data_and_corpus (9, count_open_matches_later, &n_compared);

  g_assert_cmpuint (n_models, >, 7);
  g_assert_cmpuint (n_compared, >, 5 * n_models);
}

static char *
save_to_temp (Onnx__ModelProto *proto, const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = test_model_load (proto, &error);
  char *path = g_build_filename (g_get_tmp_dir (), name, NULL);

  g_assert_no_error (error);
  g_assert_true (onyx_model_save (model, path, &error));
  g_assert_no_error (error);
  return path;
}

/* Reshape reads its small shape initializer; a 1 KiB initializer travels as the
 * loader's marker and an Add of incompatible shapes is an error on its node. */
static void
test_open_matches_later_on_values_and_errors (void)
{
  static const int64_t x_dims[] = { 2, 3 }, y_dims[] = { 3, 2 }, big_dims[] = { 16, 16 }, shape_dims[] = { 2 };
  Onnx__ModelProto *proto = test_model_new ();
  Onnx__GraphProto *graph = proto->graph;
  Onnx__TensorProto *shape = test_initializer ("shape", 1, shape_dims);
  g_autofree char *path = NULL;
  g_autoptr (OnyxDocument) doc = NULL;
  OnyxShapes *shapes;
  const Onnx__TypeProto *type;

  shape->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
  g_free (shape->raw_data.data);
  shape->raw_data.len = 2 * sizeof (int64_t);
  shape->raw_data.data = g_memdup2 ((int64_t[]) { 3, 2 }, shape->raw_data.len);
  graph->n_input = 1;
  graph->input = g_new0 (Onnx__ValueInfoProto *, 1);
  graph->input[0] = test_value_info ("x", 2, x_dims);
  graph->n_initializer = 2;
  graph->initializer = g_new0 (Onnx__TensorProto *, 2);
  graph->initializer[0] = test_initializer ("big", 2, big_dims);
  graph->initializer[1] = shape;
  graph->n_node = 3;
  graph->node = g_new0 (Onnx__NodeProto *, 3);
  graph->node[0] = test_node ("Reshape", "reshape", "x", "shape", NULL, "r", NULL);
  graph->node[1] = test_node ("Relu", "relu", "r", NULL, "y", NULL);
  graph->node[2] = test_node ("Add", "add", "r", "big", NULL, "z", NULL);
  graph->n_output = 1;
  graph->output = g_new0 (Onnx__ValueInfoProto *, 1);
  graph->output[0] = test_value_info ("y", 2, y_dims);
  path = save_to_temp (proto, "onyx-test-shapes.onnx");

  g_assert_cmpuint (assert_open_matches_later (path), >=, 4);
  doc = onyx_document_open_with_shapes (path, NULL);
  shapes = onyx_document_get_shapes (doc);
  type = onyx_shapes_lookup (shapes, onyx_document_get_proto (doc)->graph, "r", NULL);
  g_assert_nonnull (type);
  g_assert_cmpuint (type->tensor_type->shape->n_dim, ==, 2);
  g_assert_cmpint (type->tensor_type->shape->dim[0]->dim_value, ==, 3);
  g_assert_cmpint (type->tensor_type->shape->dim[1]->dim_value, ==, 2);
  g_assert_cmpuint (onyx_shapes_get_errors (shapes)->len, ==, 1);
  g_assert_cmpstr (((OnyxShapeError *) onyx_shapes_get_errors (shapes)->pdata[0])->node->name, ==,
                   "add");
  g_unlink (path);
}

/* A file that fails after the loader's scan (no graph) leaves the worker free for
 * the next model. */
/* An analysis made in a thread while the document is frozen becomes its snapshot and
 * validation; one made before an edit is refused and leaves nothing behind. */
static gpointer
analyse_thread (gpointer document)
{
  return onyx_analysis_run (document);
}

static void
test_analysis_offered_for_its_revision (void)
{
  g_autoptr (OnyxDocument) doc = test_open_data ("model_foo.onnx");
  g_autoptr (OnyxProblemList) problems = onyx_problem_list_new (doc);
  g_autoptr (OnyxAnalysis) analysis = NULL, stale = NULL;
  Onnx__GraphProto *graph = onyx_document_get_proto (doc)->graph;
  gboolean recorded;

  onyx_problem_list_set_whole_model_later (problems, TRUE);
  g_assert_true (onyx_edit_bypass_node (doc, onyx_document_find_node (doc, "/FooOp", NULL), 0, NULL));
  g_assert_null (onyx_document_peek_shapes (doc));
  onyx_document_freeze (doc);
  analysis = g_thread_join (g_thread_new ("analysis", analyse_thread, doc));
  onyx_document_thaw (doc);
  g_assert_cmpuint (onyx_analysis_get_revision (analysis), ==, onyx_document_get_revision (doc));
  g_assert_true (onyx_analysis_offer (analysis, doc));
  g_assert_nonnull (onyx_document_peek_shapes (doc));
  g_assert_nonnull (onyx_shapes_lookup (onyx_document_peek_shapes (doc), graph, graph->node[0]->output[0],
                                        &recorded));
  /* What is left: the devtech import no node uses any more, no error nor warning. */
  onyx_problem_list_update_whole_model (problems);
  g_assert_cmpuint (onyx_problems_count (onyx_problem_list_get (problems), ONYX_PROBLEM_ERROR), ==, 0);
  g_assert_cmpuint (onyx_problems_count (onyx_problem_list_get (problems), ONYX_PROBLEM_WARNING), ==, 0);
  g_assert_cmpuint (onyx_problems_count (onyx_problem_list_get (problems), ONYX_PROBLEM_INFO), ==, 1);

  onyx_document_freeze (doc);
  stale = onyx_analysis_run (doc);
  onyx_document_thaw (doc);
  g_assert_true (onyx_document_undo (doc));
  g_assert_false (onyx_analysis_offer (stale, doc));
  g_assert_null (onyx_document_peek_shapes (doc));
}

static void
test_failed_open_releases_the_worker (void)
{
  Onnx__ModelProto *proto = test_model_new ();
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), "onyx-test-no-graph.onnx", NULL);
  g_autofree char *good = test_data_path ("model.onnx");
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxDocument) doc = NULL;

  protobuf_c_message_free_unpacked (&proto->graph->base, NULL);
  proto->graph = NULL;
  bytes = test_model_pack (proto);
  protobuf_c_message_free_unpacked (&proto->base, NULL);
  g_assert_true (g_file_set_contents (path, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), NULL));
  g_assert_null (onyx_document_open_with_shapes (path, &error));
  g_assert_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_NOT_A_MODEL);
  g_unlink (path);
  doc = onyx_document_open_with_shapes (good, NULL);
  g_assert_nonnull (doc);
  g_assert_cmpuint (assert_open_matches_later (good), >, 3);
}

/* What the CLI does while libonnx infers: the document is there, its shapes not yet. */
typedef struct {
  OnyxDocument *document;
  guint n_calls;
  gboolean had_shapes;
} Meanwhile;

static void
note_meanwhile (OnyxDocument *document, gpointer data)
{
  Meanwhile *seen = data;

  seen->document = document;
  seen->n_calls++;
  seen->had_shapes = onyx_document_peek_shapes (document) != NULL;
  g_assert_nonnull (onyx_document_get_index (document));
}

static void
test_open_with_work_meanwhile (void)
{
  g_autofree char *path = test_data_path ("model.onnx");
  g_autofree char *missing = g_build_filename (g_get_tmp_dir (), "onyx-test-no-such-model.onnx", NULL);
  Meanwhile seen = { NULL, 0, TRUE };
  g_autoptr (OnyxDocument) doc = onyx_document_open_with_shapes_full (path, note_meanwhile, &seen, NULL);
  g_autoptr (GError) error = NULL;

  g_assert_nonnull (doc);
  g_assert_cmpuint (seen.n_calls, ==, 1);
  g_assert_true (seen.document == doc);
  g_assert_false (seen.had_shapes);
  g_assert_nonnull (onyx_document_peek_shapes (doc));
  g_assert_null (onyx_document_open_with_shapes_full (missing, note_meanwhile, &seen, &error));
  g_assert_nonnull (error);
  g_assert_cmpuint (seen.n_calls, ==, 1);
}

/* ---- the worker libonnx runs in ---- */

static void
assert_echo (gint64 argument)
{
  g_autoptr (GBytes) input = g_bytes_new_static ("model", 5);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *expected = g_strdup_printf ("%" G_GINT64_FORMAT, argument);
  g_autoptr (GBytes) output = onyx_onnx_run_isolated (ONYX_ONNX_JOB_ECHO, input, argument, &text, &error);

  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (output, input));
  g_assert_cmpstr (text, ==, expected);
}

/* The pid of this process's only child, the worker. */
static pid_t
worker_pid (void)
{
  DIR *proc = opendir ("/proc");
  struct dirent *entry;
  pid_t found = 0;
  guint n = 0;

  while ((entry = readdir (proc)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc", entry->d_name, "stat", NULL);
      g_autofree char *stat = NULL;
      const char *after_name;
      int parent;
      if (!g_ascii_isdigit (entry->d_name[0]) || !g_file_get_contents (path, &stat, NULL, NULL) ||
          (after_name = strrchr (stat, ')')) == NULL ||
          sscanf (after_name, ") %*c %d", &parent) != 1 || parent != getpid ())
        continue;
      found = (pid_t) atoi (entry->d_name);
      n++;
    }
  closedir (proc);
  g_assert_cmpuint (n, ==, 1);
  return found;
}

/* The descriptors the worker holds, each below `limit`: how many. */
static guint
worker_descriptors_below (int limit)
{
  g_autofree char *folder = g_strdup_printf ("/proc/%d/fd", (int) worker_pid ());
  g_autoptr (GDir) dir = g_dir_open (folder, 0, NULL);
  const char *name;
  guint n = 0;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_assert_cmpint (atoi (name), <, limit);
      n++;
    }
  return n;
}

/* A large input crosses in a memory file passed with the request, a small one on the
 * socket: both come back whole, and the helper keeps no file of them. */
static void
test_worker_large_input (void)
{
  static const gsize sizes[] = { 5, 100 << 10, 1 << 20, 3 << 20 };
  guint n_echoed = 0;

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      g_autofree guint8 *data = g_malloc (sizes[i]);
      g_autoptr (GBytes) input = NULL, output = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree char *text = NULL;

      for (gsize k = 0; k < sizes[i]; k++)
        data[k] = (guint8) (k * 7 + i);
      input = g_bytes_new (data, sizes[i]);
      output = onyx_onnx_run_isolated (ONYX_ONNX_JOB_ECHO, input, (gint64) i, &text, &error);
      g_assert_no_error (error);
      g_assert_true (g_bytes_equal (output, input));
      g_assert_cmpint (g_ascii_strtoll (text, NULL, 10), ==, i);
      g_assert_cmpuint (worker_descriptors_below (4), ==, 4);
      n_echoed++;
    }
  g_assert_cmpuint (n_echoed, ==, G_N_ELEMENTS (sizes));
}

/* A crash fails its job with a message; the next job gets a new helper. */
static void
test_worker_crash_fails_the_job_only (void)
{
  g_autoptr (GBytes) input = g_bytes_new_static ("model", 5);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  g_autoptr (GBytes) output = NULL;

  assert_echo (1);
  output = onyx_onnx_run_isolated (ONYX_ONNX_JOB_CRASH, input, 0, &text, &error);
  g_assert_null (output);
  g_assert_null (text);
  /* Onyx's own failure, named by its job: never the file's. */
  g_assert_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_INTERNAL);
  g_assert_nonnull (strstr (error->message, "crashed while crashing on purpose"));
  g_assert_nonnull (strstr (error->message, "not a fault of the file"));
  assert_echo (2);
}

/* The helper holds its socket and the standard streams, none of the descriptors the
 * app had open when it was started (spawned inheriting them, to spare the app a fork). */
static void
test_worker_keeps_no_descriptors (void)
{
  g_autoptr (GBytes) input = g_bytes_new_static ("", 0);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  int pipe_fds[2];

  /* Not close-on-exec, as a careless library would leave one. */
  g_assert_cmpint (pipe (pipe_fds), ==, 0);
  /* Crashed, the helper is replaced by one started with the pipe open. */
  g_assert_null (onyx_onnx_run_isolated (ONYX_ONNX_JOB_CRASH, input, 0, &text, &error));
  assert_echo (3);
  g_assert_cmpuint (worker_descriptors_below (4), ==, 4);
  close (pipe_fds[0]);
  close (pipe_fds[1]);
}

static gpointer
sleep_job (gpointer data)
{
  g_autoptr (GBytes) input = g_bytes_new_static ("", 0);
  g_autofree char *text = NULL;
  GError **error = data;
  GBytes *output = onyx_onnx_run_isolated (ONYX_ONNX_JOB_SLEEP, input, 30000, &text, error);

  return output;
}

/* Cancelling ends the running job at once (its helper is killed), says so, and the
 * next job gets a new helper. */
static void
test_worker_cancel (void)
{
  g_autoptr (GError) error = NULL;
  GThread *thread;
  gint64 start = g_get_monotonic_time ();
  GBytes *output;

  assert_echo (6);
  thread = g_thread_new ("sleeper", sleep_job, &error);
  /* Until the job has reached the helper: before that there is nothing to cancel. */
  while (error == NULL && g_get_monotonic_time () - start < 20 * G_USEC_PER_SEC)
    {
      onyx_onnx_cancel (ONYX_ONNX_JOB_SLEEP);
      g_usleep (20000);
    }
  output = g_thread_join (thread);
  g_assert_null (output);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 20 * G_USEC_PER_SEC);
  assert_echo (7);
}

/* Started ahead of time, the worker is the one the next job runs in. */
static void
test_worker_warm_up (void)
{
  pid_t started;

  onyx_shapes_warm_up ();
  started = worker_pid ();
  onyx_shapes_warm_up ();
  g_assert_cmpint (worker_pid (), ==, started);
  assert_echo (5);
  g_assert_cmpint (worker_pid (), ==, started);
}

/* The threads the process has left (a zombie's main thread included). */
static guint
n_threads (pid_t pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/task", pid);
  g_autoptr (GDir) tasks = g_dir_open (path, 0, NULL);
  guint n = 0;

  while (tasks != NULL && g_dir_read_name (tasks) != NULL)
    n++;
  return n;
}

/* Until the process has ended, every thread of it, so that its descriptors are closed:
 * reaped, or a zombie with its main thread only (the helper's schemas may still be
 * loading in a thread of their own). FALSE after 2 s. */
static gboolean
wait_until_ended (pid_t pid)
{
  for (int i = 0; i < 200; i++)
    {
      g_autofree char *path = g_strdup_printf ("/proc/%d/stat", pid);
      g_autofree char *stat = NULL;
      if (!g_file_get_contents (path, &stat, NULL, NULL) ||
          (strstr (stat, ") Z ") != NULL && n_threads (pid) <= 1))
        return TRUE;
      g_usleep (10000);
    }
  return FALSE;
}

/* A worker killed while idle fails the next send: another is started for that job. */
static void
test_worker_killed_idle_is_replaced (void)
{
  pid_t first;

  assert_echo (3);
  first = worker_pid ();
  g_assert_cmpint (kill (first, SIGKILL), ==, 0);
  /* Until the kernel has closed its end of the socket. */
  g_assert_true (wait_until_ended (first));
  assert_echo (4);
  g_assert_cmpint (worker_pid (), !=, first);
}

/* Released, the idle worker exits by itself; a job after that has another. */
static void
test_worker_release (void)
{
  pid_t first;

  assert_echo (8);
  first = worker_pid ();
  onyx_onnx_release_helpers ();
  g_assert_true (wait_until_ended (first));
  assert_echo (9);
  g_assert_cmpint (worker_pid (), !=, first);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/shapes/open/models", test_open_matches_later_on_models);
  g_test_add_func ("/shapes/open/values-and-errors", test_open_matches_later_on_values_and_errors);
  g_test_add_func ("/shapes/open/failed", test_failed_open_releases_the_worker);
  g_test_add_func ("/shapes/open/meanwhile", test_open_with_work_meanwhile);
  g_test_add_func ("/shapes/analysis/revision", test_analysis_offered_for_its_revision);
  g_test_add_func ("/shapes/worker/crash", test_worker_crash_fails_the_job_only);
  g_test_add_func ("/shapes/worker/large-input", test_worker_large_input);
  g_test_add_func ("/shapes/worker/descriptors", test_worker_keeps_no_descriptors);
  g_test_add_func ("/shapes/worker/killed-idle", test_worker_killed_idle_is_replaced);
  g_test_add_func ("/shapes/worker/release", test_worker_release);
  g_test_add_func ("/shapes/worker/warm-up", test_worker_warm_up);
  g_test_add_func ("/shapes/worker/cancel", test_worker_cancel);
  return g_test_run ();
}
