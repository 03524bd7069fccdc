/* onyx-cli run: run a model with ONNX Runtime, every tensor's statistics, and where
 * it parts from a second model or from reference arrays. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onyx-cli.h"
#include "onyx-error.h"
#include "onyx-json.h"
#include "onyx-quant.h"
#include "onyx-run.h"
#include "onyx-run-profile.h"
#include "onyx-types.h"
#include "onyx-text.h"

/* An int option nobody gave. */
#define NOT_GIVEN G_MININT

typedef struct {
  char *inputs_npz;
  char **input_files;
  char *random_seed;
  char *fill;
  char *range;
  char **dims;
  gboolean all;
  gboolean allow_nonfinite;
  gboolean strict;
  double scale_rtol;
  int generate;
  char *prompt_ids;
  char *save;
  char *compare;
  double atol, rtol;
  char *until;
  char *repro;
  double sqnr_threshold;
  gboolean as_json;
  /* --profile and its options; NOT_GIVEN when not given. */
  gboolean profile;
  int runs, warmup, threads;
  char *opt_level;
  char *profile_trace;
  char *profile_csv;
  char *profile_compare;
} Options;

static gboolean
parse_range (const char *text, double *low, double *high)
{
  char *end;
  *low = g_ascii_strtod (text, &end);
  if (end == text || *end != ',')
    return FALSE;
  text = end + 1;
  *high = g_ascii_strtod (text, &end);
  return end != text && *end == '\0' && *high > *low;
}

/* How inputs nobody gave are made, from --random, --fill, --range and --dim. */
static gboolean
parse_making (const Options *options, OnyxRunInputs *how, int *exit_code)
{
  /* With no input said, Onyx makes them as the model wants them (onyx-run-plan.c). */
  how->fill = options->inputs_npz == NULL && options->input_files == NULL ? ONYX_RUN_FILL_RANDOM : ONYX_RUN_FILL_NONE;
  how->low = 0;
  how->high = 1;
  how->dims = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  if (options->random_seed != NULL)
    {
      char *end;
      how->fill = ONYX_RUN_FILL_RANDOM;
      how->seed = g_ascii_strtoull (options->random_seed, &end, 10);
      if (end == options->random_seed || *end != '\0')
        return (*exit_code = onyx_cli_usage_error ("run", "--random takes a whole number, the seed")), FALSE;
    }
  if (options->fill != NULL)
    {
      if (strcmp (options->fill, "zeros") == 0)
        how->fill = ONYX_RUN_FILL_ZEROS;
      else if (strcmp (options->fill, "ones") == 0)
        how->fill = ONYX_RUN_FILL_ONES;
      else if (strcmp (options->fill, "random") == 0)
        how->fill = ONYX_RUN_FILL_RANDOM;
      else
        return (*exit_code = onyx_cli_usage_error ("run", "--fill is zeros, ones or random")), FALSE;
    }
  if (options->range != NULL && !parse_range (options->range, &how->low, &how->high))
    return (*exit_code = onyx_cli_usage_error ("run", "--range is LOW,HIGH with LOW < HIGH")), FALSE;
  for (guint i = 0; options->dims != NULL && options->dims[i] != NULL; i++)
    {
      const char *equals = strchr (options->dims[i], '=');
      char *end;
      gint64 value = equals != NULL ? g_ascii_strtoll (equals + 1, &end, 10) : -1;
      if (equals == NULL || equals == options->dims[i] || *end != '\0' || value < 0 || value > G_MAXINT)
        return (*exit_code = onyx_cli_usage_error ("run", "--dim is NAME=SIZE or INPUT:AXIS=SIZE, e.g. --dim N=8")),
               FALSE;
      g_hash_table_insert (how->dims, g_strndup (options->dims[i], equals - options->dims[i]),
                           GINT_TO_POINTER ((int) value));
    }
  return TRUE;
}

/* The arrays of --inputs and --input NAME=FILE.npy. An .npz may hold more than the
 * inputs (a PyTorch run saved with its outputs): the rest is not for feeding. */
static GPtrArray *
read_given (OnyxModel *model, const Options *options, GError **error)
{
  g_autoptr (GPtrArray) given = NULL;

  if (options->inputs_npz != NULL)
    {
      if ((given = onyx_npz_read (options->inputs_npz, error)) == NULL)
        return NULL;
      onyx_run_keep_graph_inputs (model, given);
    }
  else
    given = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_array_free);
  for (guint i = 0; options->input_files != NULL && options->input_files[i] != NULL; i++)
    {
      const char *spec = options->input_files[i], *equals = strchr (spec, '=');
      OnyxArray *array;
      if (equals == NULL || equals == spec)
        {
          g_set_error (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_INPUT, "--input is NAME=FILE.npy, not '%s'", spec);
          return NULL;
        }
      if ((array = onyx_npy_read (equals + 1, error)) == NULL)
        return NULL;
      g_free (array->name);
      array->name = g_strndup (spec, equals - spec);
      g_ptr_array_add (given, array);
    }
  return g_steal_pointer (&given);
}

static void
print_stats_text (const OnyxRunStats *stats)
{
  g_autofree char *shape = onyx_dims_to_string (stats->dims, stats->n_dims);
  g_autofree char *name = onyx_display_escape (stats->name);

  printf ("  %-24s %s[%s]", name, onyx_elem_type_name (stats->elem_type), shape);
  if (!isnan (stats->min))
    printf ("  min %.6g  max %.6g  mean %.6g  std %.6g", stats->min, stats->max, stats->mean, stats->std);
  if (stats->n_nan > 0)
    printf ("  NaN %" G_GUINT64_FORMAT, stats->n_nan);
  if (stats->n_inf > 0)
    printf ("  Inf %" G_GUINT64_FORMAT, stats->n_inf);
  printf ("\n");
}

static const char *
node_name (OnyxModel *model, int index)
{
  return onyx_node_name_or_op (onyx_model_get_proto (model)->graph->node[index]);
}

/* The largest difference of any compared tensor against its own largest value. */
static double
largest_scaled_difference (const OnyxRunResult *result)
{
  double largest = 0;

  for (guint i = 0; i < result->deltas->len; i++)
    {
      const OnyxRunDelta *delta = result->deltas->pdata[i];
      if (delta->mismatch == NULL && delta->max_ref > 0)
        largest = MAX (largest, delta->max_abs / delta->max_ref);
    }
  return largest;
}

/* Where NaN or Inf first appear, in one line: the node that made them first. */
static void
say_nonfinite (OnyxModel *model, const OnyxRunResult *result, const Options *options)
{
  g_autofree char *where = onyx_run_result_describe_nonfinite (result, model);

  fprintf (stderr, "onyx-cli run: %s%s\n", where,
           options->allow_nonfinite ? "" : " (--allow-nonfinite lets a run make them)");
}

/* A quantized model's layers against its float twin: this many worst ones (--json
 * lists them all). */
#define MAX_LAYERS_SHOWN 20

static void
print_accuracy_text (OnyxModel *model, const OnyxQuantAccuracy *accuracy)
{
  guint n_compared = accuracy->layers->len;

  printf ("quantized layers against %s: %u of %u compared (SQNR; largest difference against the float tensor's "
          "range), worst first\n", "the float model", n_compared, accuracy->n_quantized);
  for (guint i = 0; i < n_compared && i < MAX_LAYERS_SHOWN; i++)
    {
      const OnyxQuantLayer *layer = accuracy->layers->pdata[i];
      g_autofree char *name = onyx_display_escape (node_name (model, (int) layer->index));
      printf ("  %-32s %7.1f dB  %6.2f %%\n", name, layer->sqnr_db, 100 * layer->range_error);
    }
  if (n_compared > MAX_LAYERS_SHOWN)
    printf ("  … and %u more (--json lists them all)\n", n_compared - MAX_LAYERS_SHOWN);
  if (accuracy->first_below != NULL)
    {
      g_autofree char *name = onyx_display_escape (node_name (model, (int) accuracy->first_below->index));
      printf ("first layer under %g dB: %s (%.1f dB, output %s)\n", accuracy->threshold_db, name,
              accuracy->first_below->sqnr_db, accuracy->first_below->tensor);
    }
  else
    printf ("no layer under %g dB\n", accuracy->threshold_db);
}

static void
print_text (OnyxModel *model, const OnyxRunResult *result, const Options *options, const char *repro_npz,
            const OnyxQuantAccuracy *accuracy)
{
  guint n_exceeding = onyx_run_result_n_exceeding (result);
  g_autofree char *took = onyx_format_duration (result->seconds);

  printf ("%s: ran in %s with ONNX Runtime %s, %u %s\n", onyx_model_get_display_name (model), took,
          result->runtime_version, result->stats->len, result->stats->len == 1 ? "tensor" : "tensors");
  for (guint i = 0; i < result->stats->len; i++)
    print_stats_text (result->stats->pdata[i]);
  if (options->compare == NULL)
    return;
  printf ("against %s (atol %g, rtol %g): %u %s compared, %u beyond the tolerance\n", options->compare,
          options->atol, options->rtol, result->deltas->len, ONYX_CLI_PLURAL (result->deltas->len, "tensor", "tensors"),
          n_exceeding);
  for (guint i = 0; i < result->deltas->len; i++)
    {
      const OnyxRunDelta *delta = result->deltas->pdata[i];
      g_autofree char *escaped = onyx_display_escape (delta->name);
      g_autofree char *name = delta->dequantized ? g_strdup_printf ("%s (dequantized)", escaped) : g_strdup (escaped);
      if (delta->mismatch != NULL)
        printf ("  %-24s %s\n", name, delta->mismatch);
      else if (delta->n_exceeding > 0)
        printf ("  %-24s max abs %.6g  max rel %.6g  %" G_GUINT64_FORMAT " %s beyond\n", name,
                delta->max_abs, delta->max_rel, delta->n_exceeding,
                ONYX_CLI_PLURAL (delta->n_exceeding, "value", "values"));
    }
  /* Against its float twin, a quantized model parts everywhere: its layers say where
   * it loses most. */
  if (accuracy != NULL)
    print_accuracy_text (model, accuracy);
  else if (result->first_divergence >= 0)
    printf ("first divergence: node %s, output %s (max abs %.6g, max rel %.6g)\n",
            node_name (model, result->first_divergence), result->first_divergence_delta->name,
            result->first_divergence_delta->max_abs, result->first_divergence_delta->max_rel);
  else if (n_exceeding == 0)
    printf ("no divergence\n");
  else if (!options->strict)
    printf ("no divergence beyond float noise: %u %s element by element, by at most %.3g of %s largest value "
            "(--scale-rtol %g; --strict judges element by element)\n", n_exceeding,
            n_exceeding == 1 ? "tensor differs" : "tensors differ", largest_scaled_difference (result),
            n_exceeding == 1 ? "its" : "their", options->scale_rtol);
  if (repro_npz != NULL)
    printf ("repro: %s, its inputs in %s (onyx-cli run %s --inputs %s)\n", options->repro, repro_npz,
            options->repro, repro_npz);
  else if (options->repro != NULL)
    printf ("no repro written: no single node diverged first\n");
}

static void
json_shape (OnyxJson *json, const gint64 *dims, gsize n_dims)
{
  onyx_json_key (json, "shape");
  onyx_json_begin_array (json);
  for (gsize i = 0; i < n_dims; i++)
    onyx_json_int (json, dims[i]);
  onyx_json_end_array (json);
}

static void
json_stats (OnyxJson *json, const OnyxRunStats *stats)
{
  onyx_json_begin_object (json);
  onyx_json_member_string (json, "name", stats->name);
  onyx_json_member_string (json, "dtype", onyx_elem_type_name (stats->elem_type));
  json_shape (json, stats->dims, stats->n_dims);
  onyx_json_member_uint (json, "count", stats->count);
  onyx_json_member_uint (json, "nan", stats->n_nan);
  onyx_json_member_uint (json, "inf", stats->n_inf);
  onyx_json_member_double (json, "min", stats->min);
  onyx_json_member_double (json, "max", stats->max);
  onyx_json_member_double (json, "mean", stats->mean);
  onyx_json_member_double (json, "std", stats->std);
  onyx_json_key (json, "histogram");
  onyx_json_begin_array (json);
  for (guint i = 0; i < ONYX_RUN_BINS; i++)
    onyx_json_uint (json, stats->histogram[i]);
  onyx_json_end_array (json);
  onyx_json_end_object (json);
}

static void
json_delta (OnyxJson *json, const OnyxRunDelta *delta)
{
  onyx_json_member_string (json, "tensor", delta->name);
  onyx_json_member_string (json, "other", delta->other);
  onyx_json_member_string (json, "mismatch", delta->mismatch);
  onyx_json_member_double (json, "max_abs", delta->max_abs);
  onyx_json_member_double (json, "max_rel", delta->max_rel);
  onyx_json_member_uint (json, "exceeding", delta->n_exceeding);
  if (delta->dequantized)
    onyx_json_member_bool (json, "dequantized", TRUE);
}

static void
json_layer (OnyxJson *json, OnyxModel *model, const OnyxQuantLayer *layer)
{
  onyx_json_begin_object (json);
  onyx_json_member_string (json, "node", node_name (model, (int) layer->index));
  onyx_json_member_int (json, "node_index", layer->index);
  onyx_json_member_string (json, "tensor", layer->tensor);
  onyx_json_member_string (json, "other", layer->other);
  /* +inf (equal) goes as null, as every non-finite number does. */
  onyx_json_member_double (json, "sqnr_db", layer->sqnr_db);
  onyx_json_member_double (json, "range_error", layer->range_error);
  onyx_json_member_double (json, "max_abs", layer->max_abs);
  onyx_json_end_object (json);
}

static void
json_accuracy (OnyxJson *json, OnyxModel *model, const OnyxQuantAccuracy *accuracy)
{
  onyx_json_key (json, "quantization");
  if (accuracy == NULL)
    {
      onyx_json_null (json);
      return;
    }
  onyx_json_begin_object (json);
  onyx_json_member_double (json, "threshold_db", accuracy->threshold_db);
  onyx_json_member_uint (json, "quantized_layers", accuracy->n_quantized);
  onyx_json_member_uint (json, "uncompared", accuracy->n_uncompared);
  onyx_json_key (json, "layers");
  onyx_json_begin_array (json);
  for (guint i = 0; i < accuracy->layers->len; i++)
    json_layer (json, model, accuracy->layers->pdata[i]);
  onyx_json_end_array (json);
  onyx_json_key (json, "first_below");
  if (accuracy->first_below != NULL)
    json_layer (json, model, accuracy->first_below);
  else
    onyx_json_null (json);
  onyx_json_end_object (json);
}

/* The inputs the run was fed, with what Onyx made of each. */
static void
json_inputs (OnyxJson *json, OnyxModel *model, GPtrArray *inputs)
{
  g_autoptr (GPtrArray) plans = onyx_run_plan_inputs (model);

  onyx_json_key (json, "inputs");
  onyx_json_begin_array (json);
  for (guint i = 0; i < inputs->len; i++)
    {
      const OnyxArray *array = inputs->pdata[i];
      const OnyxInputPlan *plan = onyx_run_plan_find (plans, array->name);
      onyx_json_begin_object (json);
      onyx_json_member_string (json, "name", array->name);
      onyx_json_member_string (json, "dtype", onyx_elem_type_name (array->elem_type));
      json_shape (json, array->dims, array->n_dims);
      onyx_json_member_string (json, "made_as", plan != NULL ? plan->why : NULL);
      onyx_json_end_object (json);
    }
  onyx_json_end_array (json);
}

static void
print_json (OnyxModel *model, const OnyxRunResult *result, const Options *options, const char *repro_npz,
            GPtrArray *inputs, const OnyxQuantAccuracy *accuracy)
{
  OnyxJson *json = onyx_json_new ();

  onyx_json_begin_object (json);
  onyx_json_member_string (json, "model", onyx_model_get_display_name (model));
  onyx_json_member_double (json, "seconds", result->seconds);
  onyx_json_member_string (json, "onnxruntime_version", result->runtime_version);
  json_inputs (json, model, inputs);
  onyx_json_key (json, "first_nonfinite");
  {
    const OnyxRunStats *first = onyx_run_result_first_nonfinite (result);
    int node = result->first_nonfinite_node;
    if (first == NULL)
      onyx_json_null (json);
    else
      {
        onyx_json_begin_object (json);
        onyx_json_member_string (json, "tensor", first->name);
        onyx_json_member_string (json, "node", node >= 0 ? node_name (model, node) : NULL);
        onyx_json_member_int (json, "node_index", node);
        onyx_json_member_uint (json, "nan", first->n_nan);
        onyx_json_member_uint (json, "inf", first->n_inf);
        onyx_json_end_object (json);
      }
  }
  onyx_json_key (json, "tensors");
  onyx_json_begin_array (json);
  for (guint i = 0; i < result->stats->len; i++)
    json_stats (json, result->stats->pdata[i]);
  onyx_json_end_array (json);
  if (options->compare != NULL)
    {
      onyx_json_key (json, "compare");
      onyx_json_begin_object (json);
      onyx_json_member_string (json, "against", options->compare);
      onyx_json_member_double (json, "atol", options->atol);
      onyx_json_member_double (json, "rtol", options->rtol);
      onyx_json_key (json, "tensors");
      onyx_json_begin_array (json);
      for (guint i = 0; i < result->deltas->len; i++)
        {
          onyx_json_begin_object (json);
          json_delta (json, result->deltas->pdata[i]);
          onyx_json_end_object (json);
        }
      onyx_json_end_array (json);
      onyx_json_key (json, "first_divergence");
      if (result->first_divergence >= 0)
        {
          onyx_json_begin_object (json);
          onyx_json_member_string (json, "node", node_name (model, result->first_divergence));
          onyx_json_member_int (json, "node_index", result->first_divergence);
          json_delta (json, result->first_divergence_delta);
          onyx_json_end_object (json);
        }
      else
        onyx_json_null (json);
      onyx_json_key (json, "repro");
      if (repro_npz != NULL)
        {
          onyx_json_begin_object (json);
          onyx_json_member_string (json, "model", options->repro);
          onyx_json_member_string (json, "inputs", repro_npz);
          onyx_json_end_object (json);
        }
      else
        onyx_json_null (json);
      json_accuracy (json, model, accuracy);
      onyx_json_end_object (json);
    }
  onyx_json_end_object (json);
  onyx_cli_print_json (json);
}

/* What --save keeps without --all: the graph's outputs, or those of the --until node. */
static GStrv
output_names (OnyxModel *model, const char *until)
{
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  g_autoptr (GStrvBuilder) names = g_strv_builder_new ();

  for (size_t i = 0; until == NULL && i < graph->n_output; i++)
    g_strv_builder_add (names, graph->output[i]->name != NULL ? graph->output[i]->name : "");
  for (size_t i = 0; until != NULL && i < graph->n_node; i++)
    if (g_strcmp0 (graph->node[i]->name, until) == 0)
      for (size_t k = 0; k < graph->node[i]->n_output; k++)
        g_strv_builder_add (names, graph->node[i]->output[k]);
  return g_strv_builder_end (names);
}

/* Prints a run's error and frees it; returns the exit status onyx-cli --help gives it:
 * what the command asks for that cannot be (a name that is not there, arrays that do
 * not fit, sizes not given, a model --generate cannot feed) is bad usage, a file that
 * cannot be read or written 3, a model ONNX Runtime refuses or fails at 1. */
int
onyx_cli_report_run_error (GError *error)
{
  int status = ONYX_EXIT_PROBLEMS;

  if (error->domain == G_IO_ERROR || error->domain == G_FILE_ERROR ||
      g_error_matches (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_IO))
    return onyx_cli_report_error (error);
  if (error->domain == ONYX_RUN_ERROR && error->code != ONYX_RUN_ERROR_REFUSED)
    status = onyx_cli_usage_error ("run", "%s", error->message);
  else
    fprintf (stderr, "onyx-cli run: %s\n", error->message);
  g_error_free (error);
  return status;
}

/* --repro: the first divergent node cut out, with what it was fed beside it. */
static int
save_repro (OnyxModel *model, const OnyxRunResult *result, GPtrArray *inputs, const Options *options,
            char **npz_path)
{
  GError *error = NULL;

  if (result->first_divergence < 0)
    return ONYX_EXIT_OK;
  if (!onyx_run_save_repro (model, result->first_divergence, inputs, options->repro, npz_path, &error))
    return onyx_cli_report_run_error (error);
  return ONYX_EXIT_OK;
}

static int
run_with (OnyxModel *model, Options *options)
{
  OnyxRunInputs how = { 0 };
  OnyxRunOptions run = { 0 };
  g_autoptr (GPtrArray) given = NULL, inputs = NULL, reference = NULL;
  g_autoptr (OnyxModel) other = NULL;
  g_autoptr (OnyxRunResult) result = NULL;
  g_auto (GStrv) keep = NULL, quantized_pairs = NULL, dequantize = NULL;
  g_autoptr (OnyxQuantAccuracy) accuracy = NULL;
  g_autofree char *repro_npz = NULL;
  GError *error = NULL;
  int exit_code = ONYX_EXIT_OK;

  if (!parse_making (options, &how, &exit_code))
    goto out;
  if ((given = read_given (model, options, &error)) == NULL ||
      (inputs = onyx_run_prepare_inputs (model, given, &how, &error)) == NULL)
    {
      exit_code = onyx_cli_report_run_error (error);
      goto out;
    }
  if (options->compare != NULL && !onyx_run_open_comparison (options->compare, &other, &reference, &error))
    {
      exit_code = onyx_cli_report_error (error);
      goto out;
    }
  if (options->repro != NULL && options->compare == NULL)
    {
      exit_code = onyx_cli_usage_error ("run", "--repro needs --compare: it saves the first divergent node");
      goto out;
    }
  if (options->profile)
    {
      OnyxCliProfile profile = { ONYX_PROFILE_OPTIONS_INIT, options->profile_trace, options->profile_csv,
                                 options->profile_compare, given->len > 0 };
      if (options->runs != NOT_GIVEN)
        profile.options.runs = (guint) options->runs;
      if (options->warmup != NOT_GIVEN)
        profile.options.warmup = (guint) options->warmup;
      if (options->threads != NOT_GIVEN)
        profile.options.threads = (guint) options->threads;
      if (options->opt_level != NULL)
        onyx_profile_opt_level_parse (options->opt_level, &profile.options.opt_level);
      exit_code = onyx_cli_run_profile (model, inputs, &how, &profile, options->as_json);
      goto out;
    }
  keep = options->save == NULL ? NULL : output_names (model, options->until);
  run.all = options->all || options->compare != NULL;
  run.keep = (const char *const *) keep;
  run.keep_all = options->save != NULL && options->all;
  run.compare_model = other;
  run.reference = reference;
  /* A quantized model against another: its layers' values as they are handed on. */
  if (other != NULL && options->until == NULL)
    quantized_pairs = onyx_quant_accuracy_pairs (model, other, &dequantize);
  run.pairs = (const char *const *) quantized_pairs;
  run.dequantize = (const char *const *) dequantize;
  run.atol = options->atol;
  run.rtol = options->rtol;
  run.strict = options->strict;
  run.scale_rtol = options->scale_rtol;
  run.until_node = options->until;
  run.made = &how;
  run.given = given;
  result = onyx_run_model (model, inputs, &run, &error);
  if (result == NULL)
    {
      exit_code = onyx_cli_report_run_error (error);
      goto out;
    }
  /* The inputs too: a run of made-up inputs can be repeated elsewhere. */
  for (guint i = 0; options->save != NULL && i < inputs->len; i++)
    if (onyx_array_find (result->values, ((OnyxArray *) inputs->pdata[i])->name) == NULL)
      {
        const OnyxArray *input = inputs->pdata[i];
        g_ptr_array_add (result->values, onyx_array_new (input->name, input->elem_type, input->dims,
                                                         input->n_dims, input->data));
      }
  if (options->save != NULL && !onyx_npz_write (options->save, result->values, &error))
    {
      exit_code = onyx_cli_report_error (error);
      goto out;
    }
  if (options->repro != NULL && (exit_code = save_repro (model, result, inputs, options, &repro_npz)) != ONYX_EXIT_OK)
    goto out;
  if (quantized_pairs != NULL)
    accuracy = onyx_quant_accuracy_new (model, result, options->sqnr_threshold);
  if (options->as_json)
    print_json (model, result, options, repro_npz, inputs, accuracy);
  else
    print_text (model, result, options, repro_npz, accuracy);
  /* The graph's outputs decide, element by element (--strict: every tensor); a
   * quantized model against its float twin, its layers' SQNR. */
  if (accuracy != NULL && !options->strict)
    {
      if (accuracy->first_below != NULL)
        exit_code = ONYX_EXIT_PROBLEMS;
    }
  else if ((options->strict ? onyx_run_result_n_exceeding (result)
                            : onyx_run_result_n_outputs_exceeding (result, model)) > 0)
    exit_code = ONYX_EXIT_PROBLEMS;
  if (onyx_run_result_first_nonfinite (result) != NULL)
    {
      say_nonfinite (model, result, options);
      if (!options->allow_nonfinite)
        exit_code = ONYX_EXIT_PROBLEMS;
    }
out:
  g_clear_pointer (&how.dims, g_hash_table_unref);
  return exit_code;
}

/* --generate: the tokens made, the time of each step, and whether the cache keeps to
 * one pass over the sequence (exit 1 when it does not). */
static int
generate (OnyxModel *model, const Options *options)
{
  g_autoptr (GArray) prompt = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr (OnyxGenerateReport) report = NULL;
  g_auto (GStrv) parts = g_strsplit (options->prompt_ids != NULL ? options->prompt_ids : "1,2,3,4", ",", -1);
  GError *error = NULL;

  for (guint i = 0; parts[i] != NULL; i++)
    {
      gint64 token;
      if (!g_ascii_string_to_signed (g_strstrip (parts[i]), 10, 0, G_MAXINT64, &token, NULL))
        return onyx_cli_usage_error ("run", "--prompt-ids is token ids separated by commas, e.g. 1,2,3");
      g_array_append_val (prompt, token);
    }
  if (options->generate < 1)
    return onyx_cli_usage_error ("run", "--generate takes how many tokens to make, 1 or more");
  report = onyx_run_generate (model, (const gint64 *) prompt->data, prompt->len, (guint) options->generate, &error);
  if (report == NULL)
    return onyx_cli_report_run_error (error);
  if (options->as_json)
    {
      OnyxJson *json = onyx_json_new ();
      onyx_json_begin_object (json);
      onyx_json_member_string (json, "model", onyx_model_get_display_name (model));
      onyx_json_member_string (json, "onnxruntime_version", report->runtime_version);
      onyx_json_key (json, "prompt");
      onyx_json_begin_array (json);
      for (gsize i = 0; i < report->n_prompt; i++)
        onyx_json_int (json, g_array_index (report->tokens, gint64, i));
      onyx_json_end_array (json);
      onyx_json_key (json, "steps");
      onyx_json_begin_array (json);
      for (guint s = 0; s < report->step_seconds->len; s++)
        {
          onyx_json_begin_object (json);
          onyx_json_member_int (json, "token", g_array_index (report->tokens, gint64, report->n_prompt + s));
          onyx_json_member_double (json, "seconds", g_array_index (report->step_seconds, double, s));
          if (s < report->step_differences->len)
            onyx_json_member_double (json, "max_abs_vs_full_pass", g_array_index (report->step_differences, double, s));
          onyx_json_end_object (json);
        }
      onyx_json_end_array (json);
      onyx_json_key (json, "first_bad_step");
      if (report->first_bad_step >= 0)
        onyx_json_int (json, report->first_bad_step + 1);
      else
        onyx_json_null (json);
      onyx_json_member_string (json, "first_bad_cache", report->first_bad_cache);
      onyx_json_member_string (json, "step_error", report->step_error);
      onyx_json_end_object (json);
      onyx_cli_print_json (json);
    }
  else
    {
      printf ("%s: generated %u %s with ONNX Runtime %s after a prompt of %zu\n",
              onyx_model_get_display_name (model), report->step_seconds->len,
              ONYX_CLI_PLURAL (report->step_seconds->len, "token", "tokens"), report->runtime_version,
              report->n_prompt);
      for (guint s = 0; s < report->step_seconds->len; s++)
        {
          g_autofree char *took = onyx_format_duration (g_array_index (report->step_seconds, double, s));
          printf ("  step %-3u token %-8" G_GINT64_FORMAT " %-8s", s + 1,
                  g_array_index (report->tokens, gint64, report->n_prompt + s), took);
          /* (No pass to compare with when a step was refused.) */
          if (s < report->step_differences->len)
            printf (" |logits - one pass| %.3g of %.3g", g_array_index (report->step_differences, double, s),
                    g_array_index (report->step_scales, double, s));
          printf ("\n");
        }
      if (report->step_error != NULL)
        printf ("step %d: %s: the KV cache or its lengths are wired wrongly\n", report->first_bad_step + 1,
                report->step_error);
      else if (report->first_bad_step < 0)
        printf ("the cache keeps to one pass over the whole sequence at every step\n");
      else
        printf ("step %d parts from one pass over the sequence%s%s%s: the KV cache or positions are wired "
                "wrongly\n", report->first_bad_step + 1, report->first_bad_cache != NULL ? " (first in " : "",
                report->first_bad_cache != NULL ? report->first_bad_cache : "",
                report->first_bad_cache != NULL ? ")" : "");
    }
  return report->first_bad_step < 0 ? ONYX_EXIT_OK : ONYX_EXIT_PROBLEMS;
}

/* --profile takes options of its own, and none that compare or keep values: 0, or
 * the usage error's status. */
static int
check_profile_usage (const Options *options)
{
  static const char *const profile_only[] = { "--runs", "--warmup", "--threads", "--opt-level", "--profile-trace",
                                              "--profile-csv", "--profile-compare" };
  gboolean given[] = { options->runs != NOT_GIVEN, options->warmup != NOT_GIVEN, options->threads != NOT_GIVEN,
                       options->opt_level != NULL,
                       options->profile_trace != NULL, options->profile_csv != NULL,
                       options->profile_compare != NULL };
  OnyxProfileOptLevel level;

  for (guint i = 0; !options->profile && i < G_N_ELEMENTS (given); i++)
    if (given[i])
      return onyx_cli_usage_error ("run", "%s needs --profile", profile_only[i]);
  if (!options->profile)
    return ONYX_EXIT_OK;
  if (options->all || options->save != NULL || options->compare != NULL || options->until != NULL ||
      options->repro != NULL || options->generate != 0)
    return onyx_cli_usage_error ("run", "--profile times the whole model: it takes none of --all, --save, "
                                        "--compare, --until, --repro and --generate (--profile-compare compares "
                                        "two profiles)");
  if ((options->runs != NOT_GIVEN && (options->runs < 1 || options->runs > ONYX_PROFILE_MAX_RUNS)) ||
      (options->warmup != NOT_GIVEN && (options->warmup < 0 || options->warmup > ONYX_PROFILE_MAX_RUNS)))
    return onyx_cli_usage_error ("run", "--runs takes 1 to %d runs, --warmup 0 to %d", ONYX_PROFILE_MAX_RUNS,
                                 ONYX_PROFILE_MAX_RUNS);
  if (options->threads != NOT_GIVEN && (options->threads < 0 || options->threads > ONYX_PROFILE_MAX_THREADS))
    return onyx_cli_usage_error ("run", "--threads takes 0 (ONNX Runtime's default) to %d", ONYX_PROFILE_MAX_THREADS);
  if (options->opt_level != NULL && !onyx_profile_opt_level_parse (options->opt_level, &level))
    return onyx_cli_usage_error ("run", "--opt-level is disabled, basic, extended or all");
  return ONYX_EXIT_OK;
}

int
onyx_cli_run (int argc, char **argv)
{
  Options options = { .atol = ONYX_RUN_DEFAULT_ATOL, .rtol = ONYX_RUN_DEFAULT_RTOL,
                      .scale_rtol = ONYX_RUN_DEFAULT_SCALE_RTOL, .sqnr_threshold = ONYX_QUANT_DEFAULT_SQNR_DB,
                      .runs = NOT_GIVEN, .warmup = NOT_GIVEN, .threads = NOT_GIVEN };
  GOptionEntry entries[] = {
    { "inputs", 0, 0, G_OPTION_ARG_FILENAME, &options.inputs_npz,
      "The graph inputs' arrays, by name, from an .npz (np.savez)", "IN.npz" },
    { "input", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &options.input_files,
      "One input's array from an .npy (np.save); repeatable", "NAME=FILE.npy" },
    { "random", 0, 0, G_OPTION_ARG_STRING, &options.random_seed,
      "Make the inputs not given from SEED (the default, seed 0, when no input is given): token ids within the "
      "embedding, masks of ones, positions after the past, the rest uniform random", "SEED" },
    { "fill", 0, 0, G_OPTION_ARG_STRING, &options.fill, "Make the inputs not given: zeros, ones or random",
      "HOW" },
    { "range", 0, 0, G_OPTION_ARG_STRING, &options.range, "Random values in [LOW, HIGH) (default 0,1)",
      "LOW,HIGH" },
    { "dim", 0, 0, G_OPTION_ARG_STRING_ARRAY, &options.dims,
      "Size of a dimension of the inputs made: a symbolic one by its name, any one as INPUT:AXIS (default 1; a "
      "KV cache's lengths agree: new 4, past 4, total 8); repeatable", "NAME=SIZE" },
    { "all", 0, 0, G_OPTION_ARG_NONE, &options.all, "Every tensor of the main graph, not just the outputs",
      NULL },
    { "save", 0, 0, G_OPTION_ARG_FILENAME, &options.save,
      "Save the inputs' and outputs' values (every tensor's with --all) to an .npz", "OUT.npz" },
    { "compare", 0, 0, G_OPTION_ARG_FILENAME, &options.compare,
      "Run another model on the same inputs, or compare with reference arrays of an .npz, tensor by tensor",
      "B.onnx|REF.npz" },
    { "atol", 0, 0, G_OPTION_ARG_DOUBLE, &options.atol, "Absolute tolerance (default 1e-5)", "X" },
    { "rtol", 0, 0, G_OPTION_ARG_DOUBLE, &options.rtol, "Relative tolerance (default 1e-5)", "Y" },
    { "scale-rtol", 0, 0, G_OPTION_ARG_DOUBLE, &options.scale_rtol,
      "Where the runs part: a tensor's largest difference against its largest value (default 1e-4)", "Z" },
    { "strict", 0, 0, G_OPTION_ARG_NONE, &options.strict,
      "Judge every tensor element by element (atol + rtol x |b|), and fail on any", NULL },
    { "until", 0, 0, G_OPTION_ARG_STRING, &options.until,
      "Run only the part of the model that NODE's outputs need", "NODE" },
    { "repro", 0, 0, G_OPTION_ARG_FILENAME, &options.repro,
      "With --compare: save the first divergent node as a model, its inputs beside it (OUT.npz)", "OUT.onnx" },
    { "sqnr-threshold", 0, 0, G_OPTION_ARG_DOUBLE, &options.sqnr_threshold,
      "A quantized model compared with its float twin: the SQNR under which a layer loses accuracy (default 20)",
      "DB" },
    { "generate", 0, 0, G_OPTION_ARG_INT, &options.generate,
      "Feed an LLM its own outputs for N tokens (greedy; present into past) and check each step's logits "
      "against one pass over the whole sequence", "N" },
    { "prompt-ids", 0, 0, G_OPTION_ARG_STRING, &options.prompt_ids,
      "With --generate: the prompt's token ids (default 1,2,3,4)", "ID,ID…" },
    { "allow-nonfinite", 0, 0, G_OPTION_ARG_NONE, &options.allow_nonfinite,
      "A run that makes NaN or Inf still succeeds (they are said either way)", NULL },
    { "profile", 0, 0, G_OPTION_ARG_NONE, &options.profile,
      "Time the model with ONNX Runtime's profiler: each node's own kernel, the kernel it was fused into, or "
      "folded away; the top nodes and operators, the kernels ONNX Runtime added", NULL },
    { "runs", 0, 0, G_OPTION_ARG_INT, &options.runs, "With --profile: the runs timed (default 10)", "N" },
    { "warmup", 0, 0, G_OPTION_ARG_INT, &options.warmup,
      "With --profile: the runs before them, left out (default 2)", "K" },
    { "threads", 0, 0, G_OPTION_ARG_INT, &options.threads,
      "With --profile: ONNX Runtime's intra-op threads (default 0: its own choice, one per core)", "T" },
    { "opt-level", 0, 0, G_OPTION_ARG_STRING, &options.opt_level,
      "With --profile: ONNX Runtime's graph optimizations, disabled, basic, extended or all (the default)",
      "LEVEL" },
    { "profile-trace", 0, 0, G_OPTION_ARG_FILENAME, &options.profile_trace,
      "With --profile: save ONNX Runtime's trace (Chrome trace JSON, for Perfetto)", "OUT.json" },
    { "profile-csv", 0, 0, G_OPTION_ARG_FILENAME, &options.profile_csv,
      "With --profile: save each node's times as CSV", "OUT.csv" },
    { "profile-compare", 0, 0, G_OPTION_ARG_FILENAME, &options.profile_compare,
      "With --profile: profile another model on the same inputs and settings, and say each node's change and "
      "the nodes gone", "OTHER.onnx" },
    { NULL },
  };
  g_autoptr (OnyxModel) model = NULL;
  const char *reason;
  int exit_code = ONYX_EXIT_OK;

  model = onyx_cli_open_model_with ("run", entries,
                                    "Runs MODEL with ONNX Runtime (in Onyx's helper) and prints statistics of "
                                    "its tensors; with --compare, where it parts from another model or from "
                                    "reference arrays. Compared, the graph's outputs must agree element by "
                                    "element (|a - b| <= atol + rtol x |b|); where the runs part is the first "
                                    "node whose output's largest difference exceeds atol + scale-rtol x its "
                                    "largest value while its inputs' do not, so that float noise of an "
                                    "equivalent computation is no divergence (--strict judges every tensor "
                                    "element by element). NaN or Inf are named with the node that first made them "
                                    "(found by running again with every tensor captured, when --all was not "
                                    "given). A quantized model compared with another model (its float twin) is "
                                    "judged layer by layer instead: each layer that runs quantized, its value "
                                    "as it is handed on against the float model's, as a signal-to-quantization-"
                                    "noise ratio (SQNR, in dB) and its largest difference against the float "
                                    "tensor's range, the worst first, and the first layer under --sqnr-threshold. "
                                    "Exit status 1 when ONNX Runtime cannot run it, its outputs disagree (a "
                                    "quantized model: a layer falls under the threshold), or it "
                                    "makes NaN or Inf (unless --allow-nonfinite); 2 on bad usage: an unknown --dim, "
                                    "--until or input name, arrays that do not fit the inputs, an image input's "
                                    "height and width not given, a model --generate cannot feed, or a build "
                                    "without ONNX Runtime; 3 when a file cannot be read or written. With "
                                    "--profile, the model runs K warm-up runs then N timed ones under ONNX "
                                    "Runtime's profiler, and each node of the file (If/Loop bodies too) is given "
                                    "its median, min and max time per run: its own kernel's, or the kernel ONNX "
                                    "Runtime fused it into, or none when it was folded away; each stack of "
                                    "alike layers gets its time and its median layer's parts (attn, mlp…), and "
                                    "an LLM's KV-cached run of several new tokens is followed by one decoding "
                                    "step (one new token after the same past).",
                                    &argc, &argv, &options.as_json, &exit_code);
  if (model != NULL && (exit_code = check_profile_usage (&options)) != ONYX_EXIT_OK)
    g_clear_object (&model);
  if (model != NULL && !onyx_run_available (&reason))
    {
      fprintf (stderr, "onyx-cli run: %s\n", reason);
      exit_code = ONYX_EXIT_USAGE;
    }
  else if (model != NULL && options.generate != 0)
    exit_code = generate (model, &options);
  else if (model != NULL)
    exit_code = run_with (model, &options);
  g_free (options.inputs_npz);
  g_strfreev (options.input_files);
  g_free (options.random_seed);
  g_free (options.fill);
  g_free (options.range);
  g_strfreev (options.dims);
  g_free (options.save);
  g_free (options.compare);
  g_free (options.until);
  g_free (options.repro);
  g_free (options.prompt_ids);
  g_free (options.opt_level);
  g_free (options.profile_trace);
  g_free (options.profile_csv);
  g_free (options.profile_compare);
  return exit_code;
}
