/* libFuzzer target for the model loader: whatever the bytes, loading either fails
 * with a message or gives a model that validates, summarises and serializes; and
 * what was serialized loads again to the same bytes. */
#include "onyx-diagnose.h"
#include "onyx-problem-list.h"
#include "onyx-diff.h"
#include "onyx-document.h"
#include "onyx-model.h"
#include "onyx-summary.h"
#include "onyx-validate.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t len);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t len)
{
  GError *error = NULL;
  OnyxModel *model = onyx_model_new_from_data (data, len, "fuzz.onnx", NULL, &error);
  OnyxModel *again;
  GBytes *saved, *saved_again;

  if (model == NULL)
    {
      g_assert (error != NULL && error->message[0] != '\0');
      g_error_free (error);
      return 0;
    }
  g_ptr_array_unref (onyx_diagnose_model (onyx_model_get_proto (model)));
  /* Whatever the model, it is the same as itself. */
  {
    OnyxDiff *diff = onyx_diff_models (onyx_model_get_proto (model), onyx_model_get_proto (model));
    g_assert (diff->entries->len == 0);
    onyx_diff_free (diff);
  }
  onyx_summary_free (onyx_summary_new (onyx_model_get_proto (model)));
  /* The edit index, as the app and onyx-cli edit build it for any file they open,
   * and the diagnostics kept beside it. */
  {
    OnyxDocument *doc = onyx_document_new (model);
    onyx_problem_list_free (onyx_problem_list_new (doc));
    g_object_unref (doc);
  }
  saved = onyx_model_serialize (model);
  again = onyx_model_new_from_data (g_bytes_get_data (saved, NULL), g_bytes_get_size (saved),
                                    "fuzz-saved.onnx", NULL, &error);
  if (again == NULL)
    g_error ("a saved model does not load again: %s", error->message);
  saved_again = onyx_model_serialize (again);
  g_assert (g_bytes_equal (saved, saved_again));
  g_bytes_unref (saved_again);
  g_bytes_unref (saved);
  g_object_unref (again);
  g_object_unref (model);
  return 0;
}
