/* Profile's core (onyx-run-profile.h): the trace reader on traces written here (runs,
 * warm-up, a body's kernels nested in their Loop, escapes, bytes that are no trace),
 * what crosses to the helper, and a real profile of a model with a Loop and an If,
 * looked up as the app looks it up. (tests/test_profile_cli.py checks what is read
 * against ONNX Runtime's own traces.) */
#include <gio/gio.h>
#include <string.h>

#include "onyx-array.h"
#include "onyx-run.h"
#include "onyx-run-profile-private.h"

static GBytes *
text_bytes (const char *text)
{
  return g_bytes_new (text, strlen (text));
}

static const OnyxProfileKernel *
find_kernel (const OnyxProfileTrace *trace, const char *name, const char *parent)
{
  for (guint k = 0; k < trace->kernels->len; k++)
    {
      const OnyxProfileKernel *kernel = trace->kernels->pdata[k];
      if (g_strcmp0 (kernel->name, name) == 0 &&
          g_strcmp0 (kernel->parent != NULL ? kernel->parent->name : NULL, parent) == 0)
        return kernel;
    }
  return NULL;
}

#define NODE(name, ts, dur, op) \
  "{\"cat\":\"Node\",\"pid\":1,\"tid\":7,\"dur\":" #dur ",\"ts\":" #ts ",\"ph\":\"X\",\"name\":\"" name "\"," \
  "\"args\":{\"op_name\":\"" op "\",\"provider\":\"CPUExecutionProvider\",\"thread_scheduling_stats\":{\"main\":1}," \
  "\"input_type_shape\":[{\"float\":[1,3,8,8]},{\"int64\":[]}],\"output_type_shape\":[{\"float\":[2]}]}}"
#define RUN(ts, dur) "{\"cat\":\"Session\",\"tid\":7,\"dur\":" #dur ",\"ts\":" #ts ",\"ph\":\"X\",\"name\":\"model_run\",\"args\":{}}"

/* Three runs, the first a warm-up; a Loop whose body runs "x" once or twice a run, and
 * an "x" of the main graph apart from the body's. Events come as the runtime writes
 * them: each when it ends, a body's before its Loop. */
static const char nested_trace[] =
  "[\n"
  "{\"cat\":\"Session\",\"dur\":500,\"ts\":1,\"name\":\"model_loading_array\",\"args\":{}},\n"
  "{\"cat\":\"Session\",\"dur\":250,\"ts\":600,\"name\":\"session_initialization\",\"args\":{}},\n"
  NODE ("x_kernel_time", 1010, 5, "Relu") ",\n"
  NODE ("x_kernel_time", 1020, 4, "Relu") ",\n"
  NODE ("loop_kernel_time", 1005, 30, "Loop") ",\n"
  NODE ("x_kernel_time", 1040, 50, "Relu") ",\n"
  RUN (1000, 100) ",\n"
  NODE ("x_kernel_time", 2010, 7, "Relu") ",\n"
  NODE ("x_fence_before", 2018, 1, "Relu") ",\n"
  NODE ("x_kernel_time", 2020, 9, "Relu") ",\n"
  NODE ("loop_kernel_time", 2005, 40, "Loop") ",\n"
  NODE ("x_kernel_time", 2050, 20, "Relu") ",\n"
  NODE ("q\\\"\\u00e9\\ud83d\\ude00/\\n_kernel_time", 2080, 2, "Neg") ",\n"
  RUN (2000, 90) ",\n"
  NODE ("x_kernel_time", 3010, 3, "Relu") ",\n"
  NODE ("loop_kernel_time", 3005, 10, "Loop") ",\n"
  NODE ("x_kernel_time", 3050, 30, "Relu") ",\n"
  RUN (3000, 70) "\n"
  "]\n";

static void
test_trace_nests_and_times_runs (void)
{
  g_autoptr (GBytes) bytes = text_bytes (nested_trace);
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxProfileTrace) trace = onyx_profile_trace_read (bytes, 1, &error);
  const OnyxProfileKernel *loop, *body, *top, *escaped;

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  g_assert_cmpuint (trace->n_runs, ==, 3);
  g_assert_cmpuint (trace->run_us->len, ==, 2);
  g_assert_cmpfloat (g_array_index (trace->run_us, double, 0), ==, 90);
  g_assert_cmpfloat (g_array_index (trace->run_us, double, 1), ==, 70);
  g_assert_cmpfloat (trace->session_init_us, ==, 750);
  /* The fence is no kernel; the body's x and the main graph's are two. */
  g_assert_cmpuint (trace->kernels->len, ==, 4);
  loop = find_kernel (trace, "loop", NULL);
  body = find_kernel (trace, "x", "loop");
  top = find_kernel (trace, "x", NULL);
  escaped = find_kernel (trace, "q\"é😀/\n", NULL);
  g_assert_nonnull (loop);
  g_assert_nonnull (body);
  g_assert_nonnull (top);
  g_assert_nonnull (escaped);
  g_assert_true (body->parent == loop);
  /* Measured runs only, a run's calls summed: the body 7 + 9 and 3. */
  g_assert_cmpuint (body->calls, ==, 3);
  g_assert_cmpfloat (body->min_us, ==, 3);
  g_assert_cmpfloat (body->max_us, ==, 16);
  g_assert_cmpfloat (body->median_us, ==, 9.5);
  g_assert_cmpfloat (loop->median_us, ==, 25);
  /* The Loop's own time, its body's taken out: 40 - 16 and 10 - 3. */
  g_assert_cmpfloat (loop->self_us, ==, 15.5);
  g_assert_cmpfloat (top->median_us, ==, 25);
  /* A kernel that ran in one run only is 0 in the other. */
  g_assert_cmpfloat (escaped->median_us, ==, 1);
  g_assert_cmpfloat (escaped->min_us, ==, 0);
  g_assert_cmpstr (loop->op, ==, "Loop");
  g_assert_cmpstr (loop->provider, ==, "CPUExecutionProvider");
  g_assert_cmpstr (loop->input_shapes, ==, "float[1×3×8×8], int64[]");
  g_assert_cmpstr (loop->output_shapes, ==, "float[2]");
}

static void
test_trace_bytes_that_are_no_trace (void)
{
  static const char *const bad[] = {
    "", "   ", "[", "{}", "[1]", "[{\"cat\":}]", "[{\"cat\" \"Node\"}]", "[{\"name\":\"a\\x\"}]",
    "[{\"name\":\"a\\u12\"}]", "[{\"name\":\"a\x01\"}]", "[{\"name\":\"a", "[{\"ts\":-}]", "[{\"ts\":1e400e}]",
    "[{\"args\":{\"input_type_shape\":[{\"float\":[1,]}]}}]", "[{\"args\":tru}]", "[{}] x", "[{},]",
    "[{\"cat\":\"Session\",\"name\":\"model_run\",\"ts\":1,\"dur\":2}", "[\"\\ud800\\udbff\"]",
  };
  g_autoptr (GString) deep = g_string_new ("[{\"args\":");
  guint refused = 0;

  for (guint i = 0; i < 200; i++)
    g_string_append_c (deep, '[');
  for (guint i = 0; i <= G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GBytes) bytes = text_bytes (i < G_N_ELEMENTS (bad) ? bad[i] : deep->str);
      g_autoptr (GError) error = NULL;
      g_autoptr (OnyxProfileTrace) trace = onyx_profile_trace_read (bytes, 0, &error);

      g_assert_null (trace);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      g_assert_nonnull (strstr (error->message, "ONNX Runtime's trace"));
      refused++;
    }
  g_assert_cmpuint (refused, ==, G_N_ELEMENTS (bad) + 1);
}

static void
test_trace_without_runs_left (void)
{
  g_autoptr (GBytes) empty = text_bytes ("[]");
  g_autoptr (GBytes) nested = text_bytes (nested_trace);
  g_autoptr (GError) error = NULL, too_few = NULL;

  g_assert_null (onyx_profile_trace_read (empty, 0, &error));
  g_assert_cmpstr (error->message, ==, "ONNX Runtime's trace holds no run");
  g_assert_null (onyx_profile_trace_read (nested, 3, &too_few));
  g_assert_cmpstr (too_few->message, ==, "ONNX Runtime's trace holds 3 runs, no more than the warm-up ones");
}

/* Many runs of many kernels, as a big model's trace has them. */
static void
test_trace_of_many_events (void)
{
  const guint runs = 50, kernels = 400;
  g_autoptr (GString) text = g_string_new ("[\n");
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxProfileTrace) trace = NULL;
  double ts = 0;
  gint64 start;

  for (guint r = 0; r < runs; r++)
    {
      double run_start = ts;
      for (guint k = 0; k < kernels; k++, ts += 10)
        g_string_append_printf (text, "{\"cat\":\"Node\",\"pid\":1,\"tid\":1,\"dur\":%u,\"ts\":%.0f,\"ph\":\"X\","
                                "\"name\":\"/layers.%u/MatMul_kernel_time\",\"args\":{\"op_name\":\"MatMul\","
                                "\"input_type_shape\":[{\"float\":[16,128,64]},{\"float\":[64,64]}],"
                                "\"output_type_shape\":[{\"float\":[16,128,64]}],\"provider\":\"CPUExecutionProvider\","
                                "\"thread_scheduling_stats\":\"\"}},\n",
                                1 + (k + r) % 7, ts + 1, k);
      g_string_append_printf (text, "{\"cat\":\"Session\",\"tid\":1,\"dur\":%.0f,\"ts\":%.0f,\"name\":\"model_run\"}%s\n",
                              ts - run_start + 5, run_start, r + 1 < runs ? "," : "");
      ts += 100;
    }
  g_string_append (text, "]");
  bytes = g_bytes_new (text->str, text->len);
  start = g_get_monotonic_time ();
  trace = onyx_profile_trace_read (bytes, 2, &error);
  g_test_message ("%u events (%" G_GSIZE_FORMAT " bytes) read in %.3f s", runs * (kernels + 1), text->len,
                  (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC);
  g_assert_no_error (error);
  g_assert_cmpuint (trace->kernels->len, ==, kernels);
  g_assert_cmpuint (trace->run_us->len, ==, runs - 2);
  for (guint k = 0; k < kernels; k++)
    {
      const OnyxProfileKernel *kernel = trace->kernels->pdata[k];
      g_assert_cmpuint (kernel->calls, ==, runs - 2);
      g_assert_cmpfloat (kernel->min_us, ==, 1);
      g_assert_cmpfloat (kernel->max_us, ==, 7);
    }
}

static void
test_wire_checks_what_it_reads (void)
{
  g_autoptr (GBytes) run = text_bytes ("a run request");
  OnyxProfileRequest request = { run, { 10, 2, 4, ONYX_PROFILE_OPT_EXTENDED } }, read = { 0 };
  OnyxProfileAnswer answer = { text_bytes ("[]"), text_bytes ("model"), g_strdup ("1.31.1") }, back = { 0 };
  g_autoptr (GBytes) request_bytes = onyx_profile_request_encode (&request);
  g_autoptr (GBytes) answer_bytes = onyx_profile_answer_encode (&answer);
  const OnyxProfileOptions refused[] = { { 0, 2, 0, ONYX_PROFILE_OPT_ALL }, { ONYX_PROFILE_MAX_RUNS + 1, 0, 0, 0 },
                                         { 1, 0, 100000, 0 }, { 1, 0, 0, 7 } };
  guint n_refused = 0;

  g_assert_true (onyx_profile_request_decode (request_bytes, &read, NULL));
  g_assert_true (g_bytes_equal (read.run_request, run));
  g_assert_cmpmem (&read.options, sizeof read.options, &request.options, sizeof request.options);
  onyx_profile_request_clear (&read);
  g_assert_true (onyx_profile_answer_decode (answer_bytes, &back, NULL));
  g_assert_true (g_bytes_equal (back.trace, answer.trace));
  g_assert_true (g_bytes_equal (back.optimized, answer.optimized));
  g_assert_cmpstr (back.runtime_version, ==, "1.31.1");
  onyx_profile_answer_clear (&back);
  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      OnyxProfileRequest bad = { run, refused[i] };
      g_autoptr (GBytes) bytes = onyx_profile_request_encode (&bad);
      g_autoptr (GError) error = NULL;

      g_assert_false (onyx_profile_request_decode (bytes, &read, &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      g_assert_null (read.run_request);
      n_refused++;
    }
  g_assert_cmpuint (n_refused, ==, G_N_ELEMENTS (refused));
  /* Bytes of another type are read as empty values, and refused. */
  {
    g_autoptr (GError) error = NULL;
    g_assert_false (onyx_profile_answer_decode (run, &back, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  }
  onyx_profile_answer_clear (&answer);
}

static void
test_change_said_for_a_person (void)
{
  g_autofree char *slower = onyx_profile_describe_change (4100, 3200);
  g_autofree char *faster = onyx_profile_describe_change (150, 300);
  g_autofree char *from_nothing = onyx_profile_describe_change (0, 12000);
  g_autofree char *seconds = onyx_profile_format_us (1250000);

  g_assert_cmpstr (slower, ==, "-22 %, 4.10 → 3.20 ms");
  g_assert_cmpstr (faster, ==, "+100 %, 150 → 300 µs");
  g_assert_cmpstr (from_nothing, ==, "0.0 → 12.0 ms");
  g_assert_cmpstr (seconds, ==, "1.25 s");
}

/* control_loop.onnx: a Loop whose body holds an If; profiled for real. */
static void
test_profile_looked_up_by_position_and_name (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("ONYX_TEST_DATA"), "control_loop.onnx", NULL);
  g_autoptr (OnyxModel) model = NULL;
  g_autoptr (GPtrArray) given = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_array_free);
  g_autoptr (GPtrArray) inputs = NULL;
  g_autoptr (OnyxProfile) profile = NULL, again = NULL;
  g_autoptr (GArray) changes = NULL;
  g_autoptr (GError) error = NULL;
  OnyxRunInputs how = { .fill = ONYX_RUN_FILL_RANDOM, .high = 1 };
  OnyxProfileOptions options = ONYX_PROFILE_OPTIONS_INIT;
  const gint64 three = 3, x_dims[] = { 2, 8 };
  const Onnx__GraphProto *main_graph;
  guint own = 0, fused = 0, folded = 0, in_kernels = 0;

  if (!onyx_run_available (NULL))
    {
      g_test_skip ("this build runs no models");
      return;
    }
  model = onyx_model_new_from_file (path, &error);
  g_assert_no_error (error);
  main_graph = onyx_model_get_proto (model)->graph;
  {
    g_autoptr (GBytes) n = g_bytes_new (&three, sizeof three);
    g_autoptr (GBytes) x = g_bytes_new_take (g_new0 (float, 16), 16 * sizeof (float));
    g_ptr_array_add (given, onyx_array_new ("n", 7, NULL, 0, n));
    g_ptr_array_add (given, onyx_array_new ("x", 1, x_dims, 2, x));
  }
  inputs = onyx_run_prepare_inputs (model, given, &how, &error);
  g_assert_no_error (error);
  options.runs = 3;
  options.warmup = 1;
  profile = onyx_run_profile (model, inputs, &options, &error);
  g_assert_no_error (error);
  g_assert_nonnull (profile->trace);

  /* Graphs as the graph list names them, the Loop's body and its If's branches. */
  g_assert_cmpuint (profile->graphs->len, ==, 4);
  g_assert_cmpstr (((OnyxProfileGraph *) profile->graphs->pdata[0])->name, ==, "main");
  g_assert_cmpstr (((OnyxProfileGraph *) profile->graphs->pdata[1])->name, ==, "/Loop:body");
  g_assert_cmpuint (((OnyxProfileGraph *) profile->graphs->pdata[0])->n_nodes, ==, main_graph->n_node);
  for (guint g = 0; g < profile->graphs->len; g++)
    {
      const OnyxProfileGraph *graph = profile->graphs->pdata[g];
      for (guint i = 0; i < graph->n_nodes; i++)
        {
          const OnyxProfileNode *node = onyx_profile_node_at (profile, g, i);
          g_assert_nonnull (node);
          g_assert_cmpuint (node->graph, ==, g);
          g_assert_cmpuint (node->index, ==, i);
          g_assert_true (onyx_profile_node_named (profile, node->name) == node);
          g_assert_true ((node->kernel == NULL) == (node->status == ONYX_PROFILE_FOLDED));
          if (node->kernel != NULL)
            {
              g_assert_true (g_ptr_array_find (node->kernel->nodes, node, NULL));
              g_assert_cmpfloat (onyx_profile_node_us (node), ==, node->kernel->median_us);
              in_kernels++;
            }
          own += node->status == ONYX_PROFILE_OWN;
          fused += node->status == ONYX_PROFILE_FUSED;
          folded += node->status == ONYX_PROFILE_FOLDED;
        }
      g_assert_null (onyx_profile_node_at (profile, g, graph->n_nodes));
    }
  g_assert_null (onyx_profile_node_at (profile, 4, 0));
  g_assert_cmpuint (own + fused + folded, ==, profile->n_nodes);
  g_assert_cmpuint (own, ==, profile->n_own);
  g_assert_cmpuint (fused, ==, profile->n_fused);
  g_assert_cmpuint (in_kernels, ==, own + fused);
  g_assert_cmpuint (profile->n_nodes, ==, 13);
  g_assert_cmpstr (onyx_profile_node_at (profile, 0, 1)->name, ==, "/Loop");
  g_assert_cmpint (onyx_profile_node_named (profile, "/Mod")->status, ==, ONYX_PROFILE_OWN);
  g_assert_cmpstr (onyx_profile_node_named (profile, "/Mod")->kernel->parent->name, ==, "/Loop");
  g_assert_cmpint (onyx_profile_node_named (profile, "/Tanh")->status, ==, ONYX_PROFILE_FUSED);
  g_assert_null (onyx_profile_node_named (profile, "no such node"));
  /* The most time first, and shares of the kernels' total. */
  for (guint k = 1; k < profile->kernels->len; k++)
    g_assert_cmpfloat (((OnyxProfileKernel *) profile->kernels->pdata[k - 1])->median_us, >=,
                       ((OnyxProfileKernel *) profile->kernels->pdata[k])->median_us);
  g_assert_cmpfloat (profile->kernels_us, >, 0);
  g_assert_cmpfloat_with_epsilon (onyx_profile_node_share (onyx_profile_node_named (profile, "/Mod")),
                                  onyx_profile_node_us (onyx_profile_node_named (profile, "/Mod")) /
                                    profile->kernels_us, 1e-12);

  /* Against itself, every node is found. */
  again = onyx_run_profile (model, inputs, &options, &error);
  g_assert_no_error (error);
  changes = onyx_profile_compare (profile, again);
  g_assert_cmpuint (changes->len, ==, profile->n_nodes);
  for (guint c = 0; c < changes->len; c++)
    {
      const OnyxProfileChange *change = &g_array_index (changes, OnyxProfileChange, c);
      g_assert_true (change->before == &profile->nodes[c]);
      g_assert_nonnull (change->after);
      g_assert_cmpstr (change->after->name, ==, change->before->name);
    }
}

/* local_function.onnx: one call of a function of two nodes, which the runtime inlines
 * into two kernels; both run for the call. */
static void
test_inlined_function_joins_its_kernels (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("ONYX_TEST_DATA"), "local_function.onnx", NULL);
  g_autoptr (OnyxModel) model = NULL;
  g_autoptr (GPtrArray) inputs = NULL;
  g_autoptr (OnyxProfile) profile = NULL;
  g_autoptr (GError) error = NULL;
  OnyxRunInputs how = { .fill = ONYX_RUN_FILL_RANDOM, .high = 1 };
  OnyxProfileOptions options = { 2, 1, 1, ONYX_PROFILE_OPT_ALL };
  const OnyxProfileNode *call;
  const OnyxProfileKernel *joined;

  if (!onyx_run_available (NULL))
    {
      g_test_skip ("this build runs no models");
      return;
    }
  model = onyx_model_new_from_file (path, &error);
  g_assert_no_error (error);
  inputs = onyx_run_prepare_inputs (model, NULL, &how, &error);
  g_assert_no_error (error);
  profile = onyx_run_profile (model, inputs, &options, &error);
  g_assert_no_error (error);
  call = onyx_profile_node_named (profile, "call");
  g_assert_nonnull (call);
  g_assert_cmpint (call->status, ==, ONYX_PROFILE_FUSED);
  g_assert_nonnull (call->joined);
  g_assert_cmpuint (call->joined->len, ==, 1);
  joined = call->joined->pdata[0];
  g_assert_true (joined != call->kernel);
  g_assert_true (g_ptr_array_find (joined->nodes, call, NULL));
  g_assert_cmpfloat_with_epsilon (onyx_profile_node_us (call), call->kernel->median_us + joined->median_us, 1e-9);
  g_assert_cmpuint (profile->added_kernels->len, ==, 0);
  g_assert_cmpuint (profile->kernels->len, ==, 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/profile/trace/nests-and-times-runs", test_trace_nests_and_times_runs);
  g_test_add_func ("/profile/trace/bytes-that-are-no-trace", test_trace_bytes_that_are_no_trace);
  g_test_add_func ("/profile/trace/without-runs-left", test_trace_without_runs_left);
  g_test_add_func ("/profile/trace/many-events", test_trace_of_many_events);
  g_test_add_func ("/profile/wire/checks-what-it-reads", test_wire_checks_what_it_reads);
  g_test_add_func ("/profile/change-said-for-a-person", test_change_said_for_a_person);
  g_test_add_func ("/profile/looked-up-by-position-and-name", test_profile_looked_up_by_position_and_name);
  g_test_add_func ("/profile/inlined-function-joins-its-kernels", test_inlined_function_joins_its_kernels);
  return g_test_run ();
}
