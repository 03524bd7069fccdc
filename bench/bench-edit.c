/* bench-edit MODEL [N]: applies N (default 1,000) edits to MODEL through the core's
 * steps, undoes them all and redoes them all, and prints the time per edit next to
 * the time of rebuilding the graph index from scratch — what each edit would cost if
 * it walked the whole graph. Run by hand on a large model, e.g. transformer_96.onnx
 * from ../shared/models/export_scale_models.py. */
#include <stdio.h>

#include "bench-util.h"
#include "onyx-document.h"
#include "onyx-steps.h"

int
main (int argc, char **argv)
{
  g_autoptr (OnyxModel) model = NULL;
  g_autoptr (OnyxDocument) doc = NULL;
  guint n_edits = argc > 2 ? (guint) g_ascii_strtoull (argv[2], NULL, 10) : 1000;
  GRand *rand = g_rand_new_with_seed (42);
  Onnx__GraphProto *graph;
  double start, rebuild, apply, undo, redo;
  guint applied = 0;

  start = bench_now ();
  model = bench_load_model (argc, argv, "bench-edit MODEL [N]");
  if (model == NULL)
    return 2;
  printf ("load:                 %8.1f ms\n", (bench_now () - start) * 1e3);
  graph = onyx_model_get_proto (model)->graph;

  start = bench_now ();
  for (guint i = 0; i < 10; i++)
    onyx_graph_index_free (onyx_graph_index_new (graph));
  rebuild = (bench_now () - start) / 10;
  doc = onyx_document_new (model);

  start = bench_now ();
  /* Bypasses and deletes may empty a small graph: then there is nothing left to edit. */
  for (guint i = 0; i < n_edits && graph->n_node > 0; i++)
    {
      Onnx__NodeProto *node = graph->node[g_rand_int_range (rand, 0, (gint32) graph->n_node)];
      g_autofree char *argument = NULL;
      const char *step;

      switch (i % 4)
        {
        case 0:
          step = "rename";
          argument = g_strdup_printf ("%s=bench_%u", node->output[0], i);
          break;
        case 1:
          step = "set-attr";
          argument = g_strdup_printf ("#%u.bench=%u", g_rand_int_range (rand, 0, (gint32) graph->n_node), i);
          break;
        case 2:
          step = "bypass";
          argument = g_strdup_printf ("#%u", g_rand_int_range (rand, 0, (gint32) graph->n_node));
          break;
        default:
          step = "set-name";
          argument = g_strdup_printf ("#%u=bench_node_%u", g_rand_int_range (rand, 0, (gint32) graph->n_node), i);
          break;
        }
      if (onyx_step_apply (doc, step, argument, NULL))
        applied++;
    }
  apply = bench_now () - start;
  start = bench_now ();
  while (onyx_document_undo (doc))
    ;
  undo = bench_now () - start;
  start = bench_now ();
  while (onyx_document_redo (doc))
    ;
  redo = bench_now () - start;

  printf ("model:                %zu nodes, %zu initializers\n", graph->n_node, graph->n_initializer);
  printf ("index from scratch:   %8.3f ms   (the cost of an edit that walks the whole graph)\n", rebuild * 1e3);
  printf ("edits applied:        %u of %u tried (rename, set-attr, bypass, set-name)\n", applied, n_edits);
  printf ("per edit:             %8.3f ms   (%.0fx less than a rebuild)\n", apply / n_edits * 1e3,
          rebuild / (apply / n_edits));
  printf ("per undo:             %8.3f ms\n", undo / MAX (applied, 1) * 1e3);
  printf ("per redo:             %8.3f ms\n", redo / MAX (applied, 1) * 1e3);
  g_rand_free (rand);
  return 0;
}
