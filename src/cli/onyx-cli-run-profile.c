/* onyx-cli run --profile: where the time of a model goes, from ONNX Runtime's own
 * profiler, said on the nodes of the file (onyx-run-profile.h); with
 * --profile-compare, against another model run on the same inputs and settings. */
#include <stdio.h>
#include <string.h>

#include "onyx-cli.h"

/* Lines of each list the text prints (--json has them all). */
#define TOP 10
/* Names a line of the top nodes lists before "and N more". */
#define LINE_NAMES 3

static char *
cut_name (const char *name)
{
  return onyx_cli_cut (name, 80);
}

static void
print_totals (OnyxModel *model, const OnyxProfile *profile)
{
  const OnyxProfileOptions *options = &profile->options;
  g_autofree char *run = onyx_profile_format_us (profile->run_median_us);
  g_autofree char *run_min = onyx_profile_format_us (profile->run_min_us);
  g_autofree char *run_max = onyx_profile_format_us (profile->run_max_us);
  g_autofree char *kernels = onyx_profile_format_us (profile->kernels_us);
  g_autofree char *overhead = onyx_profile_format_us (profile->overhead_us);
  g_autofree char *session = onyx_profile_format_us (profile->session_init_us);
  g_autofree char *threads = options->threads > 0 ? g_strdup_printf ("%u %s", options->threads,
                                                                     ONYX_CLI_PLURAL (options->threads, "thread",
                                                                                      "threads"))
                                                  : g_strdup ("its own thread count");

  printf ("%s: profiled %u %s after %u warm-up with ONNX Runtime %s (optimizations %s, %s)\n",
          onyx_model_get_display_name (model), options->runs, ONYX_CLI_PLURAL (options->runs, "run", "runs"),
          options->warmup, profile->runtime_version, onyx_profile_opt_level_name (options->opt_level), threads);
  printf ("  run        %s median per run (min %s, max %s)\n", run, run_min, run_max);
  printf ("  kernels    %s, %.0f %% of the run; beyond them %s per run\n", kernels,
          profile->run_median_us > 0 ? MIN (profile->kernels_us / profile->run_median_us, 1) * 100 : 0, overhead);
  printf ("  session    %s to create (loading and initialisation)\n", session);
  printf ("  nodes      %u: %u with a kernel of their own, %u fused, %u folded away\n", profile->n_nodes,
          profile->n_own, profile->n_fused, profile->n_folded);
}

/* The stacks of alike layers: their time, and the parts of their median layer. */
static void
print_stacks (GPtrArray *stacks)
{
  for (guint s = 0; s < stacks->len; s++)
    {
      const OnyxProfileStack *stack = stacks->pdata[s];
      g_autofree char *path = cut_name (stack->path), *layer = cut_name (stack->layer);
      g_autofree char *time = onyx_profile_format_us (stack->us), *layer_time = onyx_profile_format_us (stack->layer_us);
      g_autoptr (GString) parts = g_string_new (NULL);

      for (guint p = 0; p < stack->parts->len && p < TOP; p++)
        {
          const OnyxProfileLayerPart *part = stack->parts->pdata[p];
          g_autofree char *name = onyx_cli_cut (part->name[0] != '\0' ? part->name : "(its own nodes)", 40);
          g_string_append_printf (parts, "%s%s %.0f %%", p > 0 ? ", " : "", name, part->share * 100);
        }
      if (stack->parts->len > TOP)
        g_string_append_printf (parts, " and %u more", stack->parts->len - TOP);
      printf ("  %s: %u layers, %s, %.1f %% of the kernels\n", path, stack->n_layers, time, stack->share * 100);
      printf ("    %s, the median layer, %s: %s\n", layer, layer_time, parts->str);
    }
}

/* "/conv/Conv (Conv) as FusedConv, with /Relu fused", "p2o.Conv.0 (Conv), p2o.Relu.0
 * (Relu) fused into p2o.Relu.0.out_nchwc (Conv)". */
static char *
describe_kernel (const OnyxProfileKernel *kernel)
{
  const OnyxProfileNode *first = kernel->nodes->pdata[0];
  g_autoptr (GString) text = g_string_new (NULL);
  g_autofree char *kernel_name = cut_name (kernel->name);
  guint listed = 0;

  for (guint n = first->status == ONYX_PROFILE_OWN ? 1 : 0; n < kernel->nodes->len && listed < LINE_NAMES; n++)
    {
      const OnyxProfileNode *node = kernel->nodes->pdata[n];
      g_autofree char *name = cut_name (node->name);
      g_string_append_printf (text, "%s%s (%s)", listed++ > 0 ? ", " : "", name, node->op_type);
    }
  if (kernel->nodes->len - (first->status == ONYX_PROFILE_OWN) > listed)
    g_string_append_printf (text, " and %u more", kernel->nodes->len - (first->status == ONYX_PROFILE_OWN) - listed);
  if (first->status == ONYX_PROFILE_OWN)
    {
      g_autofree char *name = cut_name (first->name);
      g_autofree char *fused = g_string_free (g_steal_pointer (&text), FALSE);
      /* The runtime names operators without their domain ("com.microsoft::X" runs as X). */
      const char *domain_end = strstr (first->op_type, "::");
      gboolean renamed = g_strcmp0 (kernel->op, domain_end != NULL ? domain_end + 2 : first->op_type) != 0;
      return g_strdup_printf ("%s (%s)%s%s%s%s%s", name, first->op_type, renamed ? " as " : "",
                              renamed ? kernel->op : "", fused[0] != '\0' ? ", with " : "", fused,
                              fused[0] != '\0' ? " fused" : "");
    }
  g_string_append_printf (text, " fused into %s (%s)", kernel_name, kernel->op);
  return g_string_free (g_steal_pointer (&text), FALSE);
}

static void
print_lists (const OnyxProfile *profile)
{
  guint shown = 0;

  printf ("top nodes\n");
  for (guint k = 0; k < profile->kernels->len && shown < TOP; k++)
    {
      const OnyxProfileKernel *kernel = profile->kernels->pdata[k];
      g_autofree char *time = NULL, *what = NULL, *line = NULL;

      if (kernel->nodes->len == 0 || kernel->calls == 0)
        continue;
      time = onyx_profile_format_us (kernel->median_us);
      what = describe_kernel (kernel);
      line = g_strdup_printf ("  %5.1f %%  %10s  %s", kernel->share * 100, time, what);
      onyx_cli_print_long (line, 21);
      shown++;
    }
  printf ("top operators\n");
  for (guint o = 0; o < profile->op_times->len && o < TOP; o++)
    {
      const OnyxProfileOpTime *op = profile->op_times->pdata[o];
      g_autofree char *time = onyx_profile_format_us (op->us);
      printf ("  %5.1f %%  %10s  %s (%u %s)\n", op->share * 100, time, op->op, op->n_kernels,
              ONYX_CLI_PLURAL (op->n_kernels, "kernel", "kernels"));
    }
  if (profile->added_kernels->len == 0)
    {
      printf ("no kernels added by ONNX Runtime\n");
      return;
    }
  printf ("added by ONNX Runtime (no node of the file makes them)\n");
  for (guint k = 0; k < profile->added_kernels->len && k < TOP; k++)
    {
      const OnyxProfileKernel *kernel = profile->added_kernels->pdata[k];
      g_autofree char *time = onyx_profile_format_us (kernel->median_us);
      g_autofree char *name = cut_name (kernel->name);
      printf ("  %5.1f %%  %10s  %s (%s)\n", kernel->share * 100, time, name, kernel->op);
    }
  if (profile->added_kernels->len > TOP)
    printf ("  … and %u more\n", profile->added_kernels->len - TOP);
}

/* ---- Before and after ---- */

typedef struct {
  OnyxModel *model;
  OnyxProfile *profile;
  GArray *changes;           /* OnyxProfileChange */
  const char *path;
} Other;

static int
by_difference (gconstpointer a, gconstpointer b)
{
  const OnyxProfileChange *x = a, *y = b;
  double dx = ABS (onyx_profile_node_us (x->after) - onyx_profile_node_us (x->before));
  double dy = ABS (onyx_profile_node_us (y->after) - onyx_profile_node_us (y->before));
  return (dx < dy) - (dx > dy);
}

static GPtrArray *
gone_names (const Other *other)
{
  GPtrArray *names = g_ptr_array_new ();
  for (guint c = 0; c < other->changes->len; c++)
    {
      const OnyxProfileChange *change = &g_array_index (other->changes, OnyxProfileChange, c);
      if (change->after == NULL)
        g_ptr_array_add (names, change->before->name);
    }
  return names;
}

static void
print_comparison (const OnyxProfile *before, const Other *other)
{
  g_autofree char *run = onyx_profile_describe_change (before->run_median_us, other->profile->run_median_us);
  g_autofree char *kernels = onyx_profile_describe_change (before->kernels_us, other->profile->kernels_us);
  g_autoptr (GArray) moved = g_array_new (FALSE, FALSE, sizeof (OnyxProfileChange));
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GPtrArray) gone = gone_names (other);
  guint shown = 0;

  printf ("against %s: run %s; kernels %s\n", other->path, run, kernels);
  for (guint c = 0; c < other->changes->len; c++)
    {
      const OnyxProfileChange *change = &g_array_index (other->changes, OnyxProfileChange, c);
      if (change->after != NULL && onyx_profile_node_us (change->after) != onyx_profile_node_us (change->before))
        g_array_append_val (moved, *change);
    }
  g_array_sort (moved, by_difference);
  if (moved->len > 0)
    printf ("changed the most\n");
  /* The nodes of one kernel change alike: the kernel is said once. */
  for (guint c = 0; c < moved->len && shown < TOP; c++)
    {
      const OnyxProfileChange *change = &g_array_index (moved, OnyxProfileChange, c);
      g_autofree char *key = g_strdup_printf ("%s\n%s", change->before->kernel != NULL ? change->before->kernel->name : "",
                                              change->after->kernel != NULL ? change->after->kernel->name : "");
      g_autofree char *how = NULL, *name = NULL, *line = NULL;

      if (!g_hash_table_add (seen, g_steal_pointer (&key)))
        continue;
      how = onyx_profile_describe_change (onyx_profile_node_us (change->before), onyx_profile_node_us (change->after));
      name = cut_name (change->before->name);
      line = g_strdup_printf ("  %-36s %s (%s)", how, name, change->before->op_type);
      onyx_cli_print_long (line, 4);
      shown++;
    }
  if (gone->len > 0)
    {
      g_autofree char *names = onyx_cli_join_names ((const char *const *) gone->pdata, gone->len);
      g_autofree char *line = g_strdup_printf ("gone from %s (%u %s): %s", other->path, gone->len,
                                               ONYX_CLI_PLURAL (gone->len, "node", "nodes"), names);
      onyx_cli_print_long (line, 2);
    }
  else
    printf ("no node gone\n");
}

/* ---- JSON ---- */

static void
json_operators (OnyxJson *json, const OnyxProfile *profile)
{
  onyx_json_key (json, "operators");
  onyx_json_begin_array (json);
  for (guint o = 0; o < profile->op_times->len; o++)
    {
      const OnyxProfileOpTime *op = profile->op_times->pdata[o];
      onyx_json_begin_object (json);
      onyx_json_member_string (json, "op", op->op);
      onyx_json_member_double (json, "us", op->us);
      onyx_json_member_double (json, "share", op->share);
      onyx_json_member_uint (json, "kernels", op->n_kernels);
      onyx_json_end_object (json);
    }
  onyx_json_end_array (json);
}

static void
json_comparison (OnyxJson *json, const Other *other)
{
  g_autoptr (GPtrArray) gone = gone_names (other);

  onyx_json_key (json, "compare");
  onyx_json_begin_object (json);
  onyx_json_member_string (json, "against", other->path);
  onyx_json_key (json, "profile");
  onyx_profile_write_json (other->profile, json);
  json_operators (json, other->profile);
  onyx_json_key (json, "nodes");
  onyx_json_begin_array (json);
  for (guint c = 0; c < other->changes->len; c++)
    {
      const OnyxProfileChange *change = &g_array_index (other->changes, OnyxProfileChange, c);
      onyx_json_begin_object (json);
      onyx_json_member_string (json, "name", change->before->name);
      onyx_json_member_double (json, "before_us", onyx_profile_node_us (change->before));
      onyx_json_key (json, "after_us");
      if (change->after != NULL)
        onyx_json_double (json, onyx_profile_node_us (change->after));
      else
        onyx_json_null (json);
      onyx_json_end_object (json);
    }
  onyx_json_end_array (json);
  onyx_json_member_strings (json, "disappeared", gone);
  onyx_json_end_object (json);
}

static void
json_stacks (OnyxJson *json, GPtrArray *stacks)
{
  onyx_json_key (json, "stacks");
  onyx_json_begin_array (json);
  for (guint s = 0; s < stacks->len; s++)
    {
      const OnyxProfileStack *stack = stacks->pdata[s];
      onyx_json_begin_object (json);
      onyx_json_member_string (json, "path", stack->path);
      onyx_json_member_uint (json, "layers", stack->n_layers);
      onyx_json_member_double (json, "us", stack->us);
      onyx_json_member_double (json, "share", stack->share);
      onyx_json_member_string (json, "median_layer", stack->layer);
      onyx_json_member_double (json, "median_layer_us", stack->layer_us);
      onyx_json_key (json, "parts");
      onyx_json_begin_array (json);
      for (guint p = 0; p < stack->parts->len; p++)
        {
          const OnyxProfileLayerPart *part = stack->parts->pdata[p];
          onyx_json_begin_object (json);
          onyx_json_member_string (json, "name", part->name);
          onyx_json_member_double (json, "us", part->us);
          onyx_json_member_double (json, "share", part->share);
          onyx_json_end_object (json);
        }
      onyx_json_end_array (json);
      onyx_json_end_object (json);
    }
  onyx_json_end_array (json);
}

/* An LLM's decoding step: one new token after the past the inputs had. */
static void
json_step (OnyxJson *json, const OnyxProfile *profile)
{
  const OnyxProfile *step = profile->decoding_step;

  onyx_json_key (json, "decoding_step");
  onyx_json_begin_object (json);
  onyx_json_member_int (json, "past", profile->decoding_past);
  onyx_json_member_double (json, "run_median_us", step->run_median_us);
  onyx_json_member_double (json, "kernels_us", step->kernels_us);
  json_stacks (json, step->stacks);
  onyx_json_end_object (json);
}

static void
print_json (OnyxModel *model, const OnyxProfile *profile, const Other *other)
{
  OnyxJson *json = onyx_json_new ();

  onyx_json_begin_object (json);
  onyx_json_member_string (json, "model", onyx_model_get_display_name (model));
  onyx_json_member_string (json, "onnxruntime_version", profile->runtime_version);
  onyx_json_member_uint (json, "runs", profile->options.runs);
  onyx_json_member_uint (json, "warmup", profile->options.warmup);
  onyx_json_member_uint (json, "threads", profile->options.threads);
  onyx_json_member_string (json, "opt_level", onyx_profile_opt_level_name (profile->options.opt_level));
  onyx_json_key (json, "profile");
  onyx_profile_write_json (profile, json);
  json_operators (json, profile);
  json_stacks (json, profile->stacks);
  if (profile->decoding_step != NULL)
    json_step (json, profile);
  if (other->profile != NULL)
    json_comparison (json, other);
  onyx_json_end_object (json);
  onyx_cli_print_json (json);
}

/* ---- The command ---- */

static gboolean
save_outputs (const OnyxProfile *profile, const OnyxCliProfile *args, GError **error)
{
  gsize size;
  const char *data = g_bytes_get_data (profile->trace, &size);

  if (args->trace_path != NULL && !g_file_set_contents (args->trace_path, data, (gssize) size, error))
    return FALSE;
  return args->csv_path == NULL || onyx_profile_write_csv (profile, args->csv_path, error);
}

/* The other model profiled on the same inputs: its inputs of the same names get the
 * same arrays, the rest are made alike. */
static int
profile_other (Other *other, GPtrArray *inputs, const OnyxRunInputs *how, const OnyxCliProfile *args,
               const OnyxProfile *before)
{
  g_autoptr (GPtrArray) other_inputs = NULL;
  GError *error = NULL;

  if ((other->model = onyx_model_new_from_file (args->compare_path, &error)) == NULL)
    return onyx_cli_report_error (error);
  if ((other_inputs = onyx_run_prepare_inputs (other->model, inputs, how, &error)) == NULL ||
      (other->profile = onyx_run_profile (other->model, other_inputs, &args->options, &error)) == NULL)
    return onyx_cli_report_run_error (error);
  other->changes = onyx_profile_compare (before, other->profile);
  return ONYX_EXIT_OK;
}

static void
print_step (const OnyxProfile *profile)
{
  g_autofree char *run = onyx_profile_format_us (profile->decoding_step->run_median_us);
  g_autofree char *kernels = onyx_profile_format_us (profile->decoding_step->kernels_us);

  printf ("one decoding step (1 new token after %d past)\n", profile->decoding_past);
  printf ("  run        %s median per run; kernels %s\n", run, kernels);
  print_stacks (profile->decoding_step->stacks);
}

int
onyx_cli_run_profile (OnyxModel *model, GPtrArray *inputs, const OnyxRunInputs *how, const OnyxCliProfile *args,
                      gboolean as_json)
{
  g_autoptr (OnyxProfile) profile = NULL;
  Other other = { NULL, NULL, NULL, args->compare_path };
  GError *error = NULL;
  int exit_code = ONYX_EXIT_OK;

  if ((profile = onyx_run_profile (model, inputs, &args->options, &error)) == NULL)
    return onyx_cli_report_run_error (error);
  if (!save_outputs (profile, args, &error))
    return onyx_cli_report_error (error);
  onyx_profile_find_stacks (profile, model);
  if (!args->inputs_given && !onyx_run_profile_decoding_step (profile, model, how, &error))
    return onyx_cli_report_run_error (error);
  if (args->compare_path != NULL && (exit_code = profile_other (&other, inputs, how, args, profile)) != ONYX_EXIT_OK)
    goto out;
  if (as_json)
    print_json (model, profile, &other);
  else
    {
      print_totals (model, profile);
      print_lists (profile);
      if (profile->stacks->len > 0)
        printf ("layers (stacks of alike layers, as drawn)\n");
      print_stacks (profile->stacks);
      if (profile->decoding_step != NULL)
        print_step (profile);
      if (other.profile != NULL)
        print_comparison (profile, &other);
    }
out:
  g_clear_object (&other.model);
  g_clear_pointer (&other.profile, onyx_profile_free);
  g_clear_pointer (&other.changes, g_array_unref);
  return exit_code;
}
