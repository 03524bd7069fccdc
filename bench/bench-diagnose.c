/* bench-diagnose MODEL [N]: the diagnostics after an edit, kept up to date node by
 * node (OnyxProblemList), against the full pass (onyx_diagnose_model) each edit would
 * otherwise run; and how much of an update is the graph-wide validation it repeats.
 * N (default 200) random edits (set an attribute, bypass, rename a node), each
 * followed by the diagnostics' own update and the assembled list. Run by hand
 * on a large model, e.g.
 * transformer_96.onnx from ../shared/models/export_scale_models.py. */
#include <stdio.h>

#include "bench-util.h"
#include "onyx-diagnose.h"
#include "onyx-problem-list.h"
#include "onyx-edits.h"
#include "onyx-memory.h"

int
main (int argc, char **argv)
{
  g_autoptr (OnyxModel) model = NULL;
  g_autoptr (OnyxDocument) doc = NULL;
  g_autoptr (OnyxProblemList) diagnostics = NULL;
  guint n_edits = argc > 2 ? (guint) g_ascii_strtoull (argv[2], NULL, 10) : 200;
  GRand *rand = g_rand_new_with_seed (42);
  Onnx__GraphProto *graph;
  double start, full, validate = 0, update = 0;
  guint applied = 0, found = 0;

  onyx_memory_keep_freed ();  /* as the app does */
  model = bench_load_model (argc, argv, "bench-diagnose MODEL [N]");
  if (model == NULL)
    return 2;
  graph = onyx_model_get_proto (model)->graph;
  doc = onyx_document_new (model);

  start = bench_now ();
  for (guint i = 0; i < 10; i++)
    g_ptr_array_unref (onyx_diagnose_model (onyx_document_get_proto (doc)));
  full = (bench_now () - start) / 10;

  diagnostics = onyx_problem_list_new (doc);
  /* Bypasses and deletes may empty a small graph: then there is nothing left to edit. */
  for (guint i = 0; i < n_edits && graph->n_node > 0; i++)
    {
      Onnx__NodeProto *node = graph->node[g_rand_int_range (rand, 0, (gint32) graph->n_node)];
      g_autofree char *text = g_strdup_printf ("bench_%u", i);
      gboolean done;

      /* The diagnostics follow the edit inside the call (bench-edit times the edit
       * alone: ~0.1 ms). */
      start = bench_now ();
      switch (i % 3)
        {
        case 0: done = onyx_edit_set_attribute (doc, node, "bench", "1", NULL); break;
        case 1: done = onyx_edit_bypass_node (doc, node, 0, NULL); break;
        default: done = onyx_edit_set_node_name (doc, node, text, NULL); break;
        }
      if (!done)
        continue;
      applied++;
      found = onyx_problem_list_get (diagnostics)->len;
      update += bench_now () - start;
      /* The validation an update repeats, timed on the same state. */
      start = bench_now ();
      g_ptr_array_unref (onyx_validate_model (onyx_document_get_proto (doc)));
      validate += bench_now () - start;
    }
  update /= MAX (applied, 1);
  validate /= MAX (applied, 1);

  printf ("%s: %zu nodes, %u edits, %u problems at the end\n", argv[1], graph->n_node, applied, found);
  printf ("full pass (onyx_diagnose_model):     %8.2f ms\n", full * 1e3);
  printf ("update after one edit:               %8.2f ms  (%.1fx less than the full pass)\n",
          update * 1e3, full / update);
  printf ("  of which the validation it re-runs: %7.2f ms\n", validate * 1e3);
  printf ("  the rest:                           %7.2f ms  (%.1fx less than the full pass)\n",
          (update - validate) * 1e3, full / MAX (update - validate, 1e-6));
  g_rand_free (rand);
  return 0;
}
