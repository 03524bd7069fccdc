/* onyx-run-generate.c: an LLM fed its own outputs, as it runs in an application:
 * greedy decoding step by step (the arg-max of the last logits is the next token, each
 * present.N the next past), then one pass over the whole sequence without a cache, whose
 * logits each step must match. Where they part, the step and the first present whose
 * values differ from the pass's are named: a KV cache wired wrongly (a length taken
 * from the new tokens instead of the mask) agrees at the first step and parts at the
 * second. */
#include "onyx-run.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "onyx-error.h"

/* Logits of a step against the pass's: within this of the pass's largest. MatMulNBits
 * with int8 activations (accuracy_level 4, the builder's choice for CPUs) computes one
 * token and eight differently: 1.5 % on a 4-layer model; a cache wired wrongly parts by
 * the whole of it. */
#define LOGITS_SCALE_RTOL 5e-2
#define LOGITS_ATOL 1e-4

typedef struct {
  GPtrArray *plans;
  const Onnx__ValueInfoProto *ids;        /* token ids */
  const Onnx__ValueInfoProto *mask;       /* or NULL */
  const Onnx__ValueInfoProto *positions;  /* or NULL */
  GPtrArray *past;                        /* Onnx__ValueInfoProto*, in the graph's order */
  GPtrArray *present;                     /* output names, in the graph's order */
  const char *logits;
} Cache;

static void
cache_clear (Cache *cache)
{
  g_clear_pointer (&cache->plans, g_ptr_array_unref);
  g_clear_pointer (&cache->past, g_ptr_array_unref);
  g_clear_pointer (&cache->present, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Cache, cache_clear)

/* A KV cache's output, the next step's past: "present.0.key", "present_value_3". */
static gboolean
is_present (const char *name)
{
  return name != NULL && g_str_has_prefix (name, "present");
}

gboolean
onyx_run_has_present_outputs (const Onnx__GraphProto *graph)
{
  for (size_t o = 0; graph != NULL && o < graph->n_output; o++)
    if (is_present (graph->output[o]->name))
      return TRUE;
  return FALSE;
}

/* The model's cache: its past inputs and present outputs pair up in order. */
static gboolean
find_cache (OnyxModel *model, Cache *cache, GError **error)
{
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  g_autoptr (GPtrArray) inputs = onyx_run_runtime_inputs (graph);

  cache->plans = onyx_run_plan_inputs (model);
  cache->past = g_ptr_array_new ();
  cache->present = g_ptr_array_new ();
  for (guint i = 0; i < inputs->len; i++)
    {
      const Onnx__ValueInfoProto *info = inputs->pdata[i];
      const OnyxInputPlan *plan = onyx_run_plan_find (cache->plans, info->name);
      switch (plan->role)
        {
        case ONYX_INPUT_TOKEN_IDS:
          cache->ids = cache->ids != NULL ? cache->ids : info;
          break;
        case ONYX_INPUT_MASK:
          cache->mask = info;
          break;
        case ONYX_INPUT_POSITIONS:
          cache->positions = info;
          break;
        case ONYX_INPUT_PAST:
          g_ptr_array_add (cache->past, (gpointer) info);
          break;
        default:
          g_set_error (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_INPUT,
                       _("Generate feeds token ids, a mask, positions and a KV cache: input '%s' is none of them"),
                       info->name);
          return FALSE;
        }
    }
  for (size_t o = 0; o < graph->n_output; o++)
    {
      const char *name = graph->output[o]->name;
      if (is_present (name))
        g_ptr_array_add (cache->present, (gpointer) name);
      else if (cache->logits == NULL && name != NULL)
        cache->logits = name;
    }
  if (cache->ids == NULL || cache->past->len == 0 || cache->past->len != cache->present->len || cache->logits == NULL)
    {
      g_set_error (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_INPUT,
                   _("%s has no KV cache to generate with: token ids, past_* inputs and as many present* "
                     "outputs"), onyx_model_get_display_name (model));
      return FALSE;
    }
  return TRUE;
}

static OnyxArray *
int64_array (const char *name, const gint64 *values, gsize n, int elem_type)
{
  gint64 dims[2] = { 1, (gint64) n };
  gsize size = onyx_array_element_size (elem_type);
  guint8 *data = g_malloc0 (MAX (n * size, 1));

  for (gsize i = 0; i < n; i++)
    {
      if (size == 4)
        ((gint32 *) data)[i] = (gint32) values[i];
      else
        ((gint64 *) data)[i] = values[i];
    }
  return onyx_array_new (name, elem_type, dims, 2, g_bytes_new_take (data, n * size));
}

/* A past input with its sequence axis (2) `length` long, batch 1; the other dims fixed
 * in the model. */
static OnyxArray *
empty_past (const Onnx__ValueInfoProto *info, GError **error)
{
  const Onnx__TensorShapeProto *shape = onyx_run_input_shape (info);
  gint64 dims[4] = { 1, 0, 0, 0 };

  for (gsize d = 1; d < 4; d++)
    {
      if (d == 2)
        continue;
      if (shape->dim[d]->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
        {
          g_set_error (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_INPUT,
                       _("the size of dim %zu of '%s' is not fixed in the model"), d, info->name);
          return NULL;
        }
      dims[d] = shape->dim[d]->dim_value;
    }
  return onyx_array_new (info->name, onyx_run_input_elem_type (info), dims, 4, g_bytes_new (NULL, 0));
}

/* One run: `tokens` new after the cache `past` (NULL: an empty one); its logits and,
 * in `present`, its cache. */
static OnyxRunResult *
step (OnyxModel *model, const Cache *cache, const gint64 *tokens, gsize n_tokens, gsize n_past,
      GPtrArray *past, GError **error)
{
  g_autoptr (GPtrArray) inputs = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_array_free);
  g_autoptr (GPtrArray) keep = g_ptr_array_new ();
  /* (NaN in an LLM's logits is not traced: every tensor of its step would be held.) */
  OnyxRunOptions options = { .atol = ONYX_RUN_DEFAULT_ATOL, .rtol = ONYX_RUN_DEFAULT_RTOL,
                             .scale_rtol = ONYX_RUN_DEFAULT_SCALE_RTOL, .untraced = TRUE };
  g_autofree gint64 *ones = g_new (gint64, n_past + n_tokens);
  g_autofree gint64 *positions = g_new (gint64, n_tokens);

  for (gsize i = 0; i < n_past + n_tokens; i++)
    ones[i] = 1;
  for (gsize i = 0; i < n_tokens; i++)
    positions[i] = (gint64) (n_past + i);
  g_ptr_array_add (inputs, int64_array (cache->ids->name, tokens, n_tokens, onyx_run_input_elem_type (cache->ids)));
  if (cache->mask != NULL)
    g_ptr_array_add (inputs, int64_array (cache->mask->name, ones, n_past + n_tokens,
                                          onyx_run_input_elem_type (cache->mask)));
  if (cache->positions != NULL)
    g_ptr_array_add (inputs, int64_array (cache->positions->name, positions, n_tokens,
                                          onyx_run_input_elem_type (cache->positions)));
  for (guint i = 0; i < cache->past->len; i++)
    {
      const Onnx__ValueInfoProto *info = cache->past->pdata[i];
      OnyxArray *array;
      if (past != NULL)
        {
          const OnyxArray *present = past->pdata[i];
          array = onyx_array_new (info->name, present->elem_type, present->dims, present->n_dims, present->data);
        }
      else if ((array = empty_past (info, error)) == NULL)
        return NULL;
      g_ptr_array_add (inputs, array);
    }
  g_ptr_array_add (keep, (gpointer) cache->logits);
  for (guint i = 0; i < cache->present->len; i++)
    g_ptr_array_add (keep, cache->present->pdata[i]);
  g_ptr_array_add (keep, NULL);
  options.keep = (const char *const *) keep->pdata;
  return onyx_run_model (model, inputs, &options, error);
}

/* Row `position` of float logits [1, L, V] (or the last row of [1, V]) as doubles. */
static gboolean
logits_row (const OnyxArray *logits, gint64 position, double **row, gsize *n)
{
  const float *data;
  gint64 rows, width;

  if (logits == NULL || logits->elem_type != 1 || logits->n_dims < 2)
    return FALSE;
  width = logits->dims[logits->n_dims - 1];
  rows = logits->n_dims == 3 ? logits->dims[1] : 1;
  if (position < 0)
    position = rows - 1;
  if (position >= rows || width <= 0)
    return FALSE;
  data = (const float *) g_bytes_get_data (logits->data, NULL) + position * width;
  *row = g_new (double, width);
  for (gint64 i = 0; i < width; i++)
    (*row)[i] = data[i];
  *n = (gsize) width;
  return TRUE;
}

static gint64
arg_max (const double *row, gsize n)
{
  gsize best = 0;
  for (gsize i = 1; i < n; i++)
    if (row[i] > row[best])
      best = i;
  return (gint64) best;
}

/* The largest difference of a step's cache (length Lk along axis 2) from the first Lk
 * positions of the pass's; +∞ when their other dims differ. */
static double
cache_difference (const OnyxArray *stepped, const OnyxArray *pass)
{
  const float *a, *b;
  double largest = 0;
  gint64 heads, length, width, full;

  if (stepped->n_dims != 4 || pass->n_dims != 4 || stepped->elem_type != 1 || pass->elem_type != 1 ||
      stepped->dims[0] != pass->dims[0] || stepped->dims[1] != pass->dims[1] || stepped->dims[3] != pass->dims[3] ||
      stepped->dims[2] > pass->dims[2])
    return INFINITY;
  a = g_bytes_get_data (stepped->data, NULL);
  b = g_bytes_get_data (pass->data, NULL);
  heads = stepped->dims[0] * stepped->dims[1];
  length = stepped->dims[2];
  full = pass->dims[2];
  width = stepped->dims[3];
  for (gint64 h = 0; h < heads; h++)
    for (gint64 t = 0; t < length; t++)
      for (gint64 w = 0; w < width; w++)
        largest = MAX (largest, fabs ((double) a[(h * length + t) * width + w] - b[(h * full + t) * width + w]));
  return largest;
}

void
onyx_generate_report_free (OnyxGenerateReport *report)
{
  g_array_unref (report->tokens);
  g_array_unref (report->step_seconds);
  g_array_unref (report->step_differences);
  g_array_unref (report->step_scales);
  g_free (report->first_bad_cache);
  g_free (report->step_error);
  g_free (report->runtime_version);
  g_free (report);
}

OnyxGenerateReport *
onyx_run_generate (OnyxModel *model, const gint64 *prompt, gsize n_prompt, guint n_new, GError **error)
{
  g_auto (Cache) cache = { 0 };
  g_autoptr (OnyxGenerateReport) report = g_new0 (OnyxGenerateReport, 1);
  g_autoptr (GPtrArray) logits = g_ptr_array_new_with_free_func (g_free);   /* double* per step */
  g_autoptr (OnyxRunResult) pass = NULL;
  g_autoptr (GArray) widths = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_autoptr (GPtrArray) past = NULL;
  g_autoptr (OnyxRunResult) last = NULL;

  g_return_val_if_fail (n_prompt > 0 && n_new > 0, NULL);
  if (!find_cache (model, &cache, error))
    return NULL;
  report->tokens = g_array_new (FALSE, FALSE, sizeof (gint64));
  report->step_seconds = g_array_new (FALSE, FALSE, sizeof (double));
  report->step_differences = g_array_new (FALSE, FALSE, sizeof (double));
  report->step_scales = g_array_new (FALSE, FALSE, sizeof (double));
  report->n_prompt = n_prompt;
  report->first_bad_step = -1;
  g_array_append_vals (report->tokens, prompt, n_prompt);

  /* Step by step: the prompt, then one token at a time on the cache. */
  for (guint s = 0; s < n_new; s++)
    {
      const gint64 *tokens = &g_array_index (report->tokens, gint64, s == 0 ? 0 : report->tokens->len - 1);
      gsize n_tokens = s == 0 ? n_prompt : 1, n_past = s == 0 ? 0 : report->tokens->len - 1, width = 0;
      g_autoptr (GError) refused = NULL;
      g_autoptr (OnyxRunResult) result = step (model, &cache, tokens, n_tokens, n_past, past, &refused);
      double *row = NULL;
      gint64 next;

      /* Refused once it has a past: its cache is what the runtime cannot take. */
      if (result == NULL && s > 0 && g_error_matches (refused, ONYX_RUN_ERROR, ONYX_RUN_ERROR_REFUSED))
        {
          report->first_bad_step = (int) s;
          report->step_error = g_strdup (refused->message);
          return g_steal_pointer (&report);
        }
      if (result == NULL)
        {
          g_propagate_error (error, g_steal_pointer (&refused));
          return NULL;
        }
      if (!logits_row (onyx_array_find (result->values, cache.logits), -1, &row, &width))
        {
          g_set_error (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_INPUT,
                       _("the first output, '%s', is no float logits [batch, sequence, vocabulary]"), cache.logits);
          return NULL;
        }
      next = arg_max (row, width);
      g_ptr_array_add (logits, row);
      g_array_append_val (widths, width);
      g_array_append_val (report->step_seconds, result->seconds);
      g_array_append_val (report->tokens, next);
      /* This step's cache is the next one's past. */
      g_clear_pointer (&past, g_ptr_array_unref);
      past = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_array_free);
      for (guint i = 0; i < cache.present->len; i++)
        {
          const OnyxArray *present = onyx_array_find (result->values, cache.present->pdata[i]);
          if (present == NULL)
            return NULL;
          g_ptr_array_add (past, onyx_array_new (present->name, present->elem_type, present->dims, present->n_dims,
                                                 present->data));
        }
      if (report->runtime_version == NULL)
        report->runtime_version = g_strdup (result->runtime_version);
    }

  /* One pass over the prompt and every token but the last made: the logits each step
   * saw, at once. */
  pass = step (model, &cache, (const gint64 *) report->tokens->data, report->tokens->len - 1, 0, NULL, error);
  if (pass == NULL)
    return NULL;
  for (guint s = 0; s < n_new; s++)
    {
      double *row = NULL, difference = 0, scale = 0;
      gsize width = 0;
      const double *stepped = logits->pdata[s];
      if (!logits_row (onyx_array_find (pass->values, cache.logits), (gint64) (n_prompt + s - 1), &row, &width) ||
          width != g_array_index (widths, gsize, s))
        difference = INFINITY;
      for (gsize i = 0; row != NULL && i < width; i++)
        {
          difference = MAX (difference, fabs (stepped[i] - row[i]));
          scale = MAX (scale, fabs (row[i]));
        }
      g_free (row);
      g_array_append_val (report->step_differences, difference);
      g_array_append_val (report->step_scales, scale);
      if (report->first_bad_step < 0 && !(difference <= LOGITS_ATOL + LOGITS_SCALE_RTOL * scale))
        report->first_bad_step = (int) s;
    }

  /* Where the cache went wrong: that step again, its caches against the pass's. */
  if (report->first_bad_step >= 0)
    {
      for (guint s = 0; s <= (guint) report->first_bad_step; s++)
        {
          const gint64 *tokens = &g_array_index (report->tokens, gint64, s == 0 ? 0 : n_prompt + s - 1);
          OnyxRunResult *result = step (model, &cache, tokens, s == 0 ? n_prompt : 1, s == 0 ? 0 : n_prompt + s - 1,
                                        past != NULL && s > 0 ? past : NULL, error);
          if (result == NULL)
            return NULL;
          g_clear_pointer (&last, onyx_run_result_free);
          last = result;
          g_clear_pointer (&past, g_ptr_array_unref);
          past = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_array_free);
          for (guint i = 0; i < cache.present->len; i++)
            {
              const OnyxArray *present = onyx_array_find (result->values, cache.present->pdata[i]);
              g_ptr_array_add (past, onyx_array_new (present->name, present->elem_type, present->dims,
                                                     present->n_dims, present->data));
            }
        }
      for (guint i = 0; i < cache.present->len && report->first_bad_cache == NULL; i++)
        {
          const OnyxArray *stepped = onyx_array_find (last->values, cache.present->pdata[i]);
          const OnyxArray *full = onyx_array_find (pass->values, cache.present->pdata[i]);
          if (stepped != NULL && full != NULL && !(cache_difference (stepped, full) <= LOGITS_ATOL * 10))
            report->first_bad_cache = g_strdup (cache.present->pdata[i]);
        }
    }
  return g_steal_pointer (&report);
}
