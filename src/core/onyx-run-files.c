/* onyx-run-files.c: Run's .npz files (onyx-run.h): the reference a run is compared
 * with, and the repro's inputs. Apart from onyx-run.c so that a program that runs
 * models without them (onyx-cli's edit --simplify, whose proof runs the model) does
 * not load libzip (onyx-array-npz.c). */
#include "onyx-run.h"

#include <string.h>

#include "onyx-extract.h"

gboolean
onyx_run_open_comparison (const char *path, OnyxModel **model, GPtrArray **reference, GError **error)
{
  *model = NULL;
  *reference = NULL;
  if (g_str_has_suffix (path, ".npz"))
    *reference = onyx_npz_read (path, error);
  else
    *model = onyx_model_new_from_file (path, error);
  return *model != NULL || *reference != NULL;
}

gboolean
onyx_run_save_repro (OnyxModel *model, int node, GPtrArray *inputs, const char *path, char **npz_path,
                     GError **error)
{
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  const Onnx__NodeProto *target;
  g_autoptr (GPtrArray) cut_inputs = g_ptr_array_new ();
  g_autoptr (GPtrArray) cut_outputs = g_ptr_array_new ();
  g_autoptr (OnyxModel) cut = NULL;
  g_autoptr (OnyxRunResult) result = NULL;
  g_autofree char *stem = NULL;
  OnyxRunOptions options = { .all = TRUE, .atol = ONYX_RUN_DEFAULT_ATOL, .rtol = ONYX_RUN_DEFAULT_RTOL,
                             .scale_rtol = ONYX_RUN_DEFAULT_SCALE_RTOL };

  g_return_val_if_fail (node >= 0 && (size_t) node < graph->n_node, FALSE);
  target = graph->node[node];
  /* Its inputs that the run makes (not initializers, which the cut keeps). */
  for (size_t k = 0; k < target->n_input; k++)
    if (target->input[k][0] != '\0' && !onyx_run_is_initializer (graph, target->input[k]))
      g_ptr_array_add (cut_inputs, target->input[k]);
  g_ptr_array_add (cut_inputs, NULL);
  for (size_t k = 0; k < target->n_output; k++)
    if (target->output[k][0] != '\0')
      g_ptr_array_add (cut_outputs, target->output[k]);
  g_ptr_array_add (cut_outputs, NULL);
  cut = onyx_model_extract (model, (const char *const *) cut_inputs->pdata,
                            (const char *const *) cut_outputs->pdata, error);
  if (cut == NULL)
    return FALSE;
  options.keep = (const char *const *) cut_inputs->pdata;
  options.until_node = target->name != NULL && target->name[0] != '\0' ? target->name : NULL;
  result = onyx_run_model (model, inputs, &options, error);
  if (result == NULL)
    return FALSE;
  stem = g_str_has_suffix (path, ".onnx") ? g_strndup (path, strlen (path) - 5) : g_strdup (path);
  *npz_path = g_strconcat (stem, ".npz", NULL);
  if (!onyx_model_save (cut, path, error) || !onyx_npz_write (*npz_path, result->values, error))
    {
      g_clear_pointer (npz_path, g_free);
      return FALSE;
    }
  return TRUE;
}
