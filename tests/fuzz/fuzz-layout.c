/* libFuzzer target for what the graph view builds from any file it opens, before
 * Graphviz runs (left out: slow, and not ours): each graph's boxes, edges and the
 * folding of constants, Q/DQ pairs and dynamic quantization chains — the main graph,
 * every subgraph and every function, folded and unfolded. */
#include "fuzz-checks.h"
#include "onyx-graph-names.h"
#include "onyx-layout.h"
#include "onyx-model.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t len);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t len)
{
  GError *error = NULL;
  OnyxModel *model = onyx_model_new_from_data (data, len, "fuzz.onnx", NULL, &error);
  OnyxGraphList *list;

  if (model == NULL)
    {
      assert_clear_error (error);
      return 0;
    }
  list = onyx_graph_list_new (onyx_model_get_proto (model));
  g_assert (onyx_graph_list_size (list) > 0);
  for (guint i = 0; i < onyx_graph_list_size (list); i++)
    {
      OnyxLayoutEngine *engine = onyx_layout_engine_new_for_entry (list, onyx_graph_list_get (list, i));
      /* As the view's menu turns folding off: every node its own box again. */
      onyx_layout_engine_set_fold_quant (engine, FALSE);
      onyx_layout_engine_set_fold_constants (engine, FALSE);
      for (guint n = 0; n < onyx_graph_list_get (list, i)->graph->n_node; n++)
        g_assert (onyx_layout_engine_folded_into (engine, n) == -1);
      onyx_layout_engine_free (engine);
    }
  onyx_graph_list_unref (list);
  g_object_unref (model);
  return 0;
}
