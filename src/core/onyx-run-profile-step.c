/* onyx-run-profile-step.c: an LLM's decoding step profiled beside its prompt pass.
 * A KV-cached model run on several new tokens is profiled again on one, after the
 * same past: the two passes differ (attention reads the whole past for one query;
 * the projections become matrix-vector products), and people ask about the step. */
#include "onyx-run-profile-private.h"

#include "onyx-run-plan.h"

gboolean
onyx_run_profile_decoding_step (OnyxProfile *profile, OnyxModel *model, const OnyxRunInputs *how, GError **error)
{
  g_autoptr (GPtrArray) plans = onyx_run_plan_inputs (model);
  g_autoptr (GHashTable) dims = NULL, sizes = NULL;
  g_autoptr (GPtrArray) inputs = NULL;
  OnyxRunInputs one = *how;
  OnyxSequenceDims names;
  OnyxProfile *step;

  g_return_val_if_fail (profile != NULL && profile->decoding_step == NULL, FALSE);
  if (!onyx_run_plan_sequence_dims (plans, model, &names) || names.new_tokens == NULL)
    return TRUE;
  /* The sizes the prompt's pass had, from the plans at hand. */
  sizes = onyx_run_copy_dims (how->dims);
  onyx_run_plan_dims (plans, model, sizes);
  if (GPOINTER_TO_INT (g_hash_table_lookup (sizes, names.new_tokens)) == 1)
    return TRUE;  /* the pass profiled was a decoding step already */
  dims = onyx_run_copy_dims (how->dims);
  g_hash_table_insert (dims, g_strdup (names.new_tokens), GINT_TO_POINTER (1));
  if (names.total != NULL)
    g_hash_table_remove (dims, names.total);  /* made again: the past and one */
  one.dims = dims;
  if ((inputs = onyx_run_prepare_inputs (model, NULL, &one, error)) == NULL ||
      (step = onyx_run_profile (model, inputs, &profile->options, error)) == NULL)
    return FALSE;
  onyx_profile_find_stacks (step, model);
  profile->decoding_step = step;
  profile->decoding_past = GPOINTER_TO_INT (g_hash_table_lookup (sizes, names.past));
  profile->prompt_tokens = GPOINTER_TO_INT (g_hash_table_lookup (sizes, names.new_tokens));
  return TRUE;
}
