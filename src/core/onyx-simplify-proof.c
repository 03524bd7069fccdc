/* Simplify's proof: the model before and after, run in ONNX Runtime on the same
 * inputs, their graph outputs compared as Run compares them.
 *
 * The model before runs in a thread of its own from the start, while the passes work
 * (opening an ONNX Runtime session on a big graph is most of what the proof costs);
 * the model after runs once the passes are done, as often as the driver asks (a pass
 * refused, then the others again). Each run is a helper process of its own: the two
 * models' weights are never in one process together. */
#include "onyx-simplify-private.h"

#include <glib/gi18n-lib.h>

#include "onyx-run-plan.h"
#include "onyx-text.h"

/* The height and width of images whose model leaves them free. */
#define PROOF_IMAGE_SIZE 224

/* Free dims Run sizes 1 may be too small for the model (a reflect Pad, a window):
 * these are tried in turn when ONNX Runtime refuses the model before on them. */
static const int larger_sizes[] = { 64, 512 };

struct _OnyxSimplifyProof {
  OnyxModel *before;
  OnyxRunInputs how;            /* the caller's, or the proof's own */
  gboolean made_here;           /* `how` is the proof's own: it may size free dims */
  GThread *thread;
  /* Set by the thread: */
  GPtrArray *inputs;
  OnyxRunResult *result;
  GError *error;
};

/* The names of a model's graph outputs, NULL-terminated (borrowed strings). */
static GPtrArray *
output_names (OnyxModel *model)
{
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  GPtrArray *names = g_ptr_array_new ();

  for (size_t i = 0; i < graph->n_output; i++)
    g_ptr_array_add (names, graph->output[i]->name);
  g_ptr_array_add (names, NULL);
  return names;
}

static OnyxRunResult *
run_keeping_outputs (OnyxModel *model, GPtrArray *inputs, GError **error)
{
  g_autoptr (GPtrArray) names = output_names (model);
  OnyxRunOptions options = { .keep = (const char *const *) names->pdata, .untraced = TRUE };

  return onyx_run_model (model, inputs, &options, error);
}

/* Every free dim of the model's inputs (by name, or INPUT:AXIS) sized `size`. */
static GHashTable *
free_dims_sized (OnyxModel *model, int size)
{
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  g_autoptr (GPtrArray) inputs = onyx_run_runtime_inputs (graph);
  GHashTable *dims = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < inputs->len; i++)
    {
      const Onnx__ValueInfoProto *input = inputs->pdata[i];
      const Onnx__TypeProto__Tensor *tensor = input->type != NULL ? input->type->tensor_type : NULL;
      for (size_t d = 0; tensor != NULL && tensor->shape != NULL && d < tensor->shape->n_dim; d++)
        {
          const Onnx__TensorShapeProto__Dimension *dim = tensor->shape->dim[d];
          if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
            continue;
          g_hash_table_insert (dims,
                               dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
                                   dim->dim_param != NULL && dim->dim_param[0] != '\0'
                                 ? g_strdup (dim->dim_param)
                                 : g_strdup_printf ("%s:%zu", input->name, d),
                               GINT_TO_POINTER (size));
        }
    }
  return dims;
}

/* Inputs as Run makes them; an image's free height and width the proof's own. */
static GPtrArray *
make_inputs (OnyxSimplifyProof *proof, GError **error)
{
  g_autoptr (GError) local_error = NULL;
  GPtrArray *inputs = onyx_run_prepare_inputs (proof->before, NULL, &proof->how, &local_error);

  if (inputs == NULL && proof->made_here && g_error_matches (local_error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_IMAGE_SIZE))
    {
      g_autoptr (GPtrArray) image_dims = onyx_run_image_dims (proof->before);
      if (proof->how.dims == NULL)
        proof->how.dims = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      for (guint i = 0; i < image_dims->len; i++)
        g_hash_table_insert (proof->how.dims, g_strdup (image_dims->pdata[i]), GINT_TO_POINTER (PROOF_IMAGE_SIZE));
      g_clear_error (&local_error);
      inputs = onyx_run_prepare_inputs (proof->before, NULL, &proof->how, &local_error);
    }
  if (inputs == NULL)
    g_propagate_error (error, g_steal_pointer (&local_error));
  return inputs;
}

static gpointer
run_before (gpointer data)
{
  OnyxSimplifyProof *proof = data;

  proof->inputs = make_inputs (proof, &proof->error);
  if (proof->inputs == NULL)
    return NULL;
  proof->result = run_keeping_outputs (proof->before, proof->inputs, &proof->error);
  /* Refused on the sizes Run chose (1 for every free dim): larger ones, in turn. */
  for (guint i = 0; proof->result == NULL && proof->made_here && i < G_N_ELEMENTS (larger_sizes) &&
                    g_error_matches (proof->error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_REFUSED);
       i++)
    {
      g_autoptr (GHashTable) dims = free_dims_sized (proof->before, larger_sizes[i]);
      g_autoptr (GPtrArray) inputs = NULL;

      if (g_hash_table_size (dims) == 0)
        break;
      g_clear_pointer (&proof->how.dims, g_hash_table_unref);
      proof->how.dims = g_steal_pointer (&dims);
      if ((inputs = make_inputs (proof, NULL)) == NULL)
        break;
      g_clear_error (&proof->error);
      g_clear_pointer (&proof->inputs, g_ptr_array_unref);
      proof->inputs = g_steal_pointer (&inputs);
      proof->result = run_keeping_outputs (proof->before, proof->inputs, &proof->error);
    }
  return NULL;
}

OnyxSimplifyProof *
onyx_simplify_proof_start (OnyxModel *before, const OnyxRunInputs *inputs)
{
  OnyxSimplifyProof *proof = g_new0 (OnyxSimplifyProof, 1);

  proof->before = g_object_ref (before);
  if (inputs != NULL)
    {
      proof->how = *inputs;
      if (inputs->dims != NULL)
        proof->how.dims = g_hash_table_ref (inputs->dims);
    }
  else
    {
      proof->how = (OnyxRunInputs) { .fill = ONYX_RUN_FILL_RANDOM, .low = 0, .high = 1 };
      proof->made_here = TRUE;
    }
  proof->thread = g_thread_new ("onyx-simplify-proof", run_before, proof);
  return proof;
}

static void
join (OnyxSimplifyProof *proof)
{
  if (proof->thread != NULL)
    g_thread_join (g_steal_pointer (&proof->thread));
}

void
onyx_simplify_proof_free (OnyxSimplifyProof *proof)
{
  if (proof == NULL)
    return;
  join (proof);
  g_object_unref (proof->before);
  g_clear_pointer (&proof->how.dims, g_hash_table_unref);
  g_clear_pointer (&proof->inputs, g_ptr_array_unref);
  g_clear_pointer (&proof->result, onyx_run_result_free);
  g_clear_error (&proof->error);
  g_free (proof);
}

/* How far an output may part from the original's, against its own scale: float
 * noise in its element type. A 16-bit float holds 3 digits (float32 7): a weight
 * rounded once into it moves an output by a few units of its last digit. */
static double
scale_rtol_of (int elem_type)
{
  if (elem_type == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16)
    return 8 * 0x1p-10;
  if (elem_type == ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16)
    return 8 * 0x1p-7;
  return ONYX_RUN_DEFAULT_SCALE_RTOL;
}

/* "y (largest |Δ| 0.2 against values up to 1)" when `after` parts from `before`. */
static char *
compare_output (const OnyxArray *after, const OnyxArray *before)
{
  OnyxRunDelta delta = { 0 };
  g_autofree char *name = onyx_display_escape (after->name);
  char *differs = NULL;

  onyx_run_delta_compute (after, before, ONYX_RUN_DEFAULT_ATOL, ONYX_RUN_DEFAULT_RTOL, &delta);
  if (onyx_run_delta_diverges (&delta, ONYX_RUN_DEFAULT_ATOL, scale_rtol_of (before->elem_type)))
    differs = delta.mismatch != NULL
                ? g_strdup_printf ("%s (%s)", name, delta.mismatch)
                : g_strdup_printf ("%s (largest |Δ| %g against values up to %g)", name, delta.max_abs, delta.max_ref);
  g_free (delta.name);
  g_free (delta.other);
  g_free (delta.mismatch);
  return differs;
}

OnyxProofOutcome
onyx_simplify_proof_check (OnyxSimplifyProof *proof, OnyxModel *after, char **note)
{
  const Onnx__GraphProto *graph = onyx_model_get_proto (after)->graph;
  g_autoptr (OnyxRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) differing = g_string_new (NULL);
  guint n_compared = 0;

  join (proof);
  if (proof->inputs == NULL)
    {
      *note = g_strdup_printf (_("The outputs were not compared: no inputs could be made (%s)."),
                               proof->error->message);
      return ONYX_PROOF_NOT_RUN;
    }
  if (proof->result == NULL)
    {
      *note = g_strdup_printf (_("The outputs were not compared: ONNX Runtime cannot run the model (%s)."),
                               proof->error->message);
      return ONYX_PROOF_NOT_RUN;
    }
  if ((result = run_keeping_outputs (after, proof->inputs, &error)) == NULL)
    {
      *note = g_strdup_printf (_("ONNX Runtime cannot run the simplified model: %s"), error->message);
      return ONYX_PROOF_DIFFERS;
    }
  for (size_t o = 0; o < graph->n_output; o++)
    {
      const OnyxArray *now = onyx_array_find (result->values, graph->output[o]->name);
      const OnyxArray *was = onyx_array_find (proof->result->values, graph->output[o]->name);
      g_autofree char *differs = NULL;
      if (now == NULL || was == NULL)
        continue;
      n_compared++;
      if ((differs = compare_output (now, was)) != NULL)
        g_string_append_printf (differing, "%s%s", differing->len > 0 ? ", " : "", differs);
    }
  if (differing->len > 0)
    {
      *note = g_strdup_printf (_("The outputs differ: %s."), differing->str);
      return ONYX_PROOF_DIFFERS;
    }
  if (n_compared < graph->n_output)
    {
      *note = g_strdup_printf (_("The outputs could not all be compared (%u of %zu were)."), n_compared,
                               graph->n_output);
      return ONYX_PROOF_NOT_RUN;
    }
  *note = g_strdup_printf (_("The outputs are equal before and after (%zu compared; ONNX Runtime %s, on "
                             "inputs made as Run makes them)."),
                           graph->n_output, result->runtime_version);
  return ONYX_PROOF_EQUAL;
}
