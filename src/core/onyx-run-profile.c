/* onyx-run-profile.c: a profile made (onyx-run-profile.h): the copy of the model
 * the runtime runs, the job for the helper, the totals; looking nodes up, two
 * profiles compared, and the profile written out as CSV and JSON. The trace is read
 * in onyx-run-profile-trace.c and said on the nodes in onyx-run-profile-map.c. */
#include "onyx-run-profile-private.h"

#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include <string.h>

#include "onyx-error.h"
#include "onyx-onnx.h"
#include "onyx-run-private.h"

static const char *const level_names[] = {
  [ONYX_PROFILE_OPT_DISABLED] = "disabled", [ONYX_PROFILE_OPT_BASIC] = "basic",
  [ONYX_PROFILE_OPT_EXTENDED] = "extended", [ONYX_PROFILE_OPT_ALL] = "all",
};

const char *
onyx_profile_opt_level_name (OnyxProfileOptLevel level)
{
  return level <= ONYX_PROFILE_OPT_ALL ? level_names[level] : "?";
}

gboolean
onyx_profile_opt_level_parse (const char *name, OnyxProfileOptLevel *level)
{
  for (guint i = 0; i < G_N_ELEMENTS (level_names); i++)
    if (g_strcmp0 (name, level_names[i]) == 0)
      {
        *level = (OnyxProfileOptLevel) i;
        return TRUE;
      }
  return FALSE;
}

const char *
onyx_profile_status_name (OnyxProfileStatus status)
{
  switch (status)
    {
    case ONYX_PROFILE_OWN: return "own";
    case ONYX_PROFILE_FUSED: return "fused";
    case ONYX_PROFILE_FOLDED: return "folded";
    }
  return "?";
}

void
onyx_profile_free (OnyxProfile *profile)
{
  if (profile == NULL)
    return;
  g_free (profile->runtime_version);
  g_clear_pointer (&profile->graphs, g_ptr_array_unref);
  for (guint i = 0; profile->nodes != NULL && i < profile->n_nodes; i++)
    {
      g_free (profile->nodes[i].name);
      g_free (profile->nodes[i].op_type);
      g_clear_pointer (&profile->nodes[i].joined, g_ptr_array_unref);
    }
  g_free (profile->nodes);
  g_clear_pointer (&profile->added_kernels, g_ptr_array_unref);
  g_clear_pointer (&profile->kernels, g_ptr_array_unref);
  g_clear_pointer (&profile->op_times, g_ptr_array_unref);
  g_clear_pointer (&profile->trace, g_bytes_unref);
  g_clear_pointer (&profile->stacks, g_ptr_array_unref);
  g_clear_pointer (&profile->decoding_step, onyx_profile_free);
  g_clear_pointer (&profile->by_name, g_hash_table_unref);
  g_free (profile);
}

/* ---- Totals ---- */

static int
by_time (gconstpointer a, gconstpointer b)
{
  const OnyxProfileKernel *x = *(OnyxProfileKernel *const *) a, *y = *(OnyxProfileKernel *const *) b;
  if (x->median_us != y->median_us)
    return x->median_us < y->median_us ? 1 : -1;
  return g_strcmp0 (x->name, y->name);
}

static int
op_by_time (gconstpointer a, gconstpointer b)
{
  const OnyxProfileOpTime *x = *(OnyxProfileOpTime *const *) a, *y = *(OnyxProfileOpTime *const *) b;
  if (x->us != y->us)
    return x->us < y->us ? 1 : -1;
  return g_strcmp0 (x->op, y->op);
}

static void
op_time_free (gpointer data)
{
  OnyxProfileOpTime *op = data;
  g_free (op->op);
  g_free (op);
}

/* Shares, operators, the run's spread and what is not in kernels. */
static void
total (OnyxProfile *profile, OnyxProfileTrace *trace)
{
  g_autoptr (GHashTable) ops = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree double *runs = g_memdup2 (trace->run_us->data, MAX (trace->run_us->len, 1) * sizeof (double));

  onyx_profile_spread (runs, trace->run_us->len, &profile->run_median_us, &profile->run_min_us,
                       &profile->run_max_us);
  profile->session_init_us = trace->session_init_us;
  profile->op_times = g_ptr_array_new_with_free_func (op_time_free);
  for (guint k = 0; k < profile->kernels->len; k++)
    {
      const OnyxProfileKernel *kernel = profile->kernels->pdata[k];
      OnyxProfileOpTime *op = g_hash_table_lookup (ops, kernel->op);

      if (kernel->calls == 0)
        continue;
      profile->kernels_us += kernel->self_us;
      if (op == NULL)
        {
          op = g_new0 (OnyxProfileOpTime, 1);
          op->op = g_strdup (kernel->op);
          g_hash_table_insert (ops, op->op, op);
          g_ptr_array_add (profile->op_times, op);
        }
      op->us += kernel->self_us;
      op->n_kernels++;
    }
  profile->overhead_us = MAX (profile->run_median_us - profile->kernels_us, 0);
  for (guint k = 0; k < profile->kernels->len; k++)
    {
      OnyxProfileKernel *kernel = profile->kernels->pdata[k];
      kernel->share = profile->kernels_us > 0 ? kernel->median_us / profile->kernels_us : 0;
    }
  for (guint o = 0; o < profile->op_times->len; o++)
    {
      OnyxProfileOpTime *op = profile->op_times->pdata[o];
      op->share = profile->kernels_us > 0 ? op->us / profile->kernels_us : 0;
    }
  for (guint n = 0; n < profile->n_nodes; n++)
    {
      profile->n_own += profile->nodes[n].status == ONYX_PROFILE_OWN;
      profile->n_fused += profile->nodes[n].status == ONYX_PROFILE_FUSED;
      profile->n_folded += profile->nodes[n].status == ONYX_PROFILE_FOLDED;
    }
  g_ptr_array_sort (profile->kernels, by_time);
  g_ptr_array_sort (profile->added_kernels, by_time);
  g_ptr_array_sort (profile->op_times, op_by_time);
}

/* ---- Profiling ---- */

/* The model as the helper runs it: its nodes named as the profile names them. */
static GBytes *
model_to_run (OnyxProfile *profile, OnyxModel *model, GError **error)
{
  g_autoptr (GBytes) serialized = onyx_model_serialize (model);

  if (!onyx_profile_name_nodes (profile, onyx_model_get_proto (model)))
    return g_steal_pointer (&serialized);
  return onyx_profile_renamed_model (profile, serialized, error);
}

static GBytes *
profile_in_helper (OnyxProfile *profile, OnyxModel *model, GPtrArray *inputs, const OnyxProfileOptions *options,
                   GError **error)
{
  OnyxRunRequest run = { 0 };
  OnyxProfileRequest request = { NULL, *options };
  g_autoptr (GBytes) request_bytes = NULL;
  g_autofree char *text = NULL;
  GBytes *answer;

  if ((run.model = model_to_run (profile, model, error)) == NULL)
    return NULL;
  run.base_dir = g_strdup (onyx_model_get_base_dir (model));
  run.inputs = g_ptr_array_ref (inputs);
  request.run_request = onyx_run_request_encode (&run);
  onyx_run_request_clear (&run);
  request_bytes = onyx_profile_request_encode (&request);
  onyx_profile_request_clear (&request);
  answer = onyx_onnx_run_isolated (ONYX_ONNX_JOB_PROFILE, request_bytes, 0, &text, error);
  if (answer == NULL && text != NULL)
    {
      OnyxRunOptions plain = { 0 };
      g_autofree char *message = onyx_run_refusal_message (model, text, inputs, &plain);
      g_clear_error (error);
      g_set_error_literal (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_REFUSED, message);
    }
  return answer;
}

static gboolean
check_options (const OnyxProfileOptions *options, GError **error)
{
  if (options->runs == 0 || options->runs > ONYX_PROFILE_MAX_RUNS || options->warmup > ONYX_PROFILE_MAX_RUNS ||
      options->threads > ONYX_PROFILE_MAX_THREADS)
    g_set_error (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_INPUT,
                 _("a profile takes 1 to %u runs, up to as many warm-up runs, and up to %u threads"),
                 ONYX_PROFILE_MAX_RUNS, ONYX_PROFILE_MAX_THREADS);
  else if (options->opt_level > ONYX_PROFILE_OPT_ALL)
    g_set_error_literal (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_INPUT,
                         _("the optimization level is disabled, basic, extended or all"));
  else
    return TRUE;
  return FALSE;
}

OnyxProfile *
onyx_run_profile (OnyxModel *model, GPtrArray *inputs, const OnyxProfileOptions *options, GError **error)
{
  g_autoptr (OnyxProfile) profile = g_new0 (OnyxProfile, 1);
  g_autoptr (GBytes) answer_bytes = NULL;
  g_autoptr (OnyxProfileTrace) trace = NULL;
  g_autoptr (GError) wire_error = NULL;
  OnyxProfileAnswer answer = { 0 };
  OnyxProtoPool *pool = NULL;
  Onnx__ModelProto *optimized = NULL;
  const char *reason;

  if (!onyx_run_available (&reason))
    {
      g_set_error (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_UNAVAILABLE, _("cannot run models: %s"), reason);
      return NULL;
    }
  if (!check_options (options, error))
    return NULL;
  profile->options = *options;
  if ((answer_bytes = profile_in_helper (profile, model, inputs, options, error)) == NULL)
    return NULL;
  if (onyx_profile_answer_decode (answer_bytes, &answer, &wire_error) &&
      (trace = onyx_profile_trace_read (answer.trace, options->warmup, &wire_error)) != NULL &&
      (optimized = (Onnx__ModelProto *) onyx_proto_unpack_pooled (&onnx__model_proto__descriptor, answer.optimized,
                                                                  &pool)) == NULL)
    g_set_error_literal (&wire_error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                         _("the model as ONNX Runtime optimized it is no ONNX model"));
  if (wire_error != NULL)
    {
      g_set_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_INTERNAL,
                   _("Onyx's helper gave back a profile Onyx cannot read: %s"), wire_error->message);
      onyx_proto_pool_free (pool);
      onyx_profile_answer_clear (&answer);
      return NULL;
    }
  onyx_profile_map (profile, onyx_model_get_proto (model), trace, optimized);
  onyx_proto_pool_free (pool);
  total (profile, trace);
  profile->trace = g_steal_pointer (&answer.trace);
  profile->runtime_version = g_steal_pointer (&answer.runtime_version);
  onyx_profile_answer_clear (&answer);
  return g_steal_pointer (&profile);
}

/* ---- Looking up ---- */

const OnyxProfileNode *
onyx_profile_node_at (const OnyxProfile *profile, guint graph, guint index)
{
  const OnyxProfileGraph *entry;

  if (graph >= profile->graphs->len)
    return NULL;
  entry = profile->graphs->pdata[graph];
  return index < entry->n_nodes ? &profile->nodes[entry->first_node + index] : NULL;
}

const OnyxProfileNode *
onyx_profile_node_named (const OnyxProfile *profile, const char *name)
{
  return name != NULL ? g_hash_table_lookup (profile->by_name, name) : NULL;
}

double
onyx_profile_node_us (const OnyxProfileNode *node)
{
  double us = node->kernel != NULL ? node->kernel->median_us : 0;

  for (guint k = 0; node->joined != NULL && k < node->joined->len; k++)
    us += ((const OnyxProfileKernel *) node->joined->pdata[k])->median_us;
  return us;
}

double
onyx_profile_node_share (const OnyxProfileNode *node)
{
  double share = node->kernel != NULL ? node->kernel->share : 0;

  for (guint k = 0; node->joined != NULL && k < node->joined->len; k++)
    share += ((const OnyxProfileKernel *) node->joined->pdata[k])->share;
  return share;
}

/* ---- Before and after ---- */

GArray *
onyx_profile_compare (const OnyxProfile *before, const OnyxProfile *after)
{
  GArray *changes = g_array_sized_new (FALSE, FALSE, sizeof (OnyxProfileChange), before->n_nodes);

  for (guint n = 0; n < before->n_nodes; n++)
    {
      OnyxProfileChange change = { &before->nodes[n], onyx_profile_node_named (after, before->nodes[n].name) };
      g_array_append_val (changes, change);
    }
  return changes;
}

/* A time in the unit that reads best for `scale` (two times told in the same unit),
 * the unit said or not. */
static char *
format_scaled (double us, double scale, gboolean unit)
{
  if (scale >= 1e6)
    return g_strdup_printf ("%.2f%s", us / 1e6, unit ? " s" : "");
  if (scale >= 1e3)
    return g_strdup_printf ("%.*f%s", scale >= 1e4 ? 1 : 2, us / 1e3, unit ? " ms" : "");
  return g_strdup_printf ("%.0f%s", us, unit ? " µs" : "");
}

char *
onyx_profile_format_us (double us)
{
  return format_scaled (us, us, TRUE);
}

char *
onyx_profile_describe_change (double before_us, double after_us)
{
  double scale = MAX (before_us, after_us);
  g_autofree char *before = format_scaled (before_us, scale, FALSE), *after = format_scaled (after_us, scale, TRUE);

  if (before_us <= 0)
    return g_strdup_printf ("%s → %s", before, after);
  /* Translators: a change of time, "-23 %, 4.1 → 3.2 ms"; keep the %% of "%+.0f %%". */
  return g_strdup_printf (_("%+.0f %%, %s → %s"), (after_us - before_us) / before_us * 100, before, after);
}

/* ---- Out of Onyx ---- */

/* A CSV field, quoted when it holds a comma, a quote or a line break. */
static void
csv_field (GString *out, const char *text, gboolean last)
{
  text = text != NULL ? text : "";
  if (strpbrk (text, ",\"\r\n") == NULL)
    g_string_append (out, text);
  else
    {
      g_string_append_c (out, '"');
      for (const char *c = text; *c != '\0'; c++)
        {
          if (*c == '"')
            g_string_append_c (out, '"');
          g_string_append_c (out, *c);
        }
      g_string_append_c (out, '"');
    }
  g_string_append_c (out, last ? '\n' : ',');
}

gboolean
onyx_profile_write_csv (const OnyxProfile *profile, const char *path, GError **error)
{
  g_autoptr (GString) out = g_string_new ("node,op_type,status,kernel,kernel_op,median_us,min_us,max_us,share\n");

  for (guint n = 0; n < profile->n_nodes; n++)
    {
      const OnyxProfileNode *node = &profile->nodes[n];
      const OnyxProfileKernel *kernel = node->kernel;

      csv_field (out, node->name, FALSE);
      csv_field (out, node->op_type, FALSE);
      csv_field (out, onyx_profile_status_name (node->status), FALSE);
      csv_field (out, kernel != NULL ? kernel->name : NULL, FALSE);
      csv_field (out, kernel != NULL ? kernel->op : NULL, FALSE);
      if (kernel != NULL)
        g_string_append_printf (out, "%.3f,%.3f,%.3f,%.6f\n", kernel->median_us, kernel->min_us, kernel->max_us,
                                kernel->share);
      else
        g_string_append (out, ",,,\n");
    }
  if (!g_file_set_contents (path, out->str, (gssize) out->len, error))
    return FALSE;
  return TRUE;
}

void
onyx_profile_write_json (const OnyxProfile *profile, OnyxJson *json)
{
  onyx_json_begin_object (json);
  onyx_json_key (json, "nodes");
  onyx_json_begin_array (json);
  for (guint n = 0; n < profile->n_nodes; n++)
    {
      const OnyxProfileNode *node = &profile->nodes[n];
      const OnyxProfileKernel *kernel = node->kernel;

      onyx_json_begin_object (json);
      onyx_json_member_string (json, "name", node->name);
      onyx_json_member_string (json, "op_type", node->op_type);
      onyx_json_member_string (json, "status", onyx_profile_status_name (node->status));
      if (kernel != NULL)
        {
          onyx_json_member_string (json, "kernel", kernel->name);
          onyx_json_member_string (json, "kernel_op", kernel->op);
          onyx_json_member_double (json, "median_us", kernel->median_us);
          onyx_json_member_double (json, "min_us", kernel->min_us);
          onyx_json_member_double (json, "max_us", kernel->max_us);
          onyx_json_member_double (json, "share", kernel->share);
        }
      onyx_json_end_object (json);
    }
  onyx_json_end_array (json);
  onyx_json_key (json, "added_kernels");
  onyx_json_begin_array (json);
  for (guint k = 0; k < profile->added_kernels->len; k++)
    {
      const OnyxProfileKernel *kernel = profile->added_kernels->pdata[k];
      onyx_json_begin_object (json);
      onyx_json_member_string (json, "kernel", kernel->name);
      onyx_json_member_string (json, "kernel_op", kernel->op);
      onyx_json_member_double (json, "median_us", kernel->median_us);
      onyx_json_end_object (json);
    }
  onyx_json_end_array (json);
  onyx_json_member_double (json, "run_median_us", profile->run_median_us);
  onyx_json_member_double (json, "kernels_us", profile->kernels_us);
  onyx_json_member_double (json, "overhead_us", profile->overhead_us);
  onyx_json_member_double (json, "session_init_us", profile->session_init_us);
  onyx_json_end_object (json);
}
