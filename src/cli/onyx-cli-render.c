/* onyx-cli render: the laid-out graph as a PNG, SVG or PDF file. */
#include <stdio.h>
#include <string.h>

#include "onyx-cli.h"
#include "onyx-layout.h"
#include "onyx-render.h"

int
onyx_cli_render (int argc, char **argv)
{
  char *output = NULL;
  char **expand = NULL;
  double scale = 1.0;
  gboolean no_fold_constants = FALSE, no_fold_quant = FALSE;
  g_autofree char *graph_name = NULL;
  GOptionEntry entries[] = {
    ONYX_CLI_GRAPH_OPTION (&graph_name),
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Image to write: .png, .svg or .pdf", "OUT" },
    { "expand", 0, 0, G_OPTION_ARG_STRING_ARRAY, &expand,
      "Groups to open: all, none, auto (the default: as many as stay readable) or a scope such "
      "as /layers.0/self_attn; may be repeated", "WHAT" },
    { "scale", 0, 0, G_OPTION_ARG_DOUBLE, &scale, "Zoom (1 = 100 %, the default; more than 0.01, at most 16)", "S" },
    { "no-fold-constants", 0, 0, G_OPTION_ARG_NONE, &no_fold_constants,
      "Draw every Constant node as a box of its own, not as a line of the node reading it", NULL },
    { "no-fold-quant", 0, 0, G_OPTION_ARG_NONE, &no_fold_quant,
      "Draw every quantization node as a box of its own: DequantizeLinear of weights, QuantizeLinear → "
      "DequantizeLinear pairs, dynamic quantization chains (by default drawn as lines, edge marks and one box)",
      NULL },
    { NULL }
  };
  g_autoptr (OnyxModel) model = NULL;
  g_autoptr (GPtrArray) scopes = g_ptr_array_new ();
  g_autoptr (OnyxGraphList) graphs = NULL;
  const OnyxGraphEntry *entry;
  OnyxExpandMode mode = ONYX_EXPAND_AUTO;
  OnyxLayoutEngine *engine;
  OnyxShapes *shapes;
  GHashTable *expanded;
  OnyxLayout *layout;
  GError *error = NULL;
  int exit_code = ONYX_EXIT_OK;

  if (!onyx_cli_parse ("render", "MODEL -o OUT", "Lay the graph out with Graphviz and draw it.", entries,
                       &argc, &argv, 1, &exit_code))
    goto out;
  if (output == NULL)
    {
      exit_code = onyx_cli_usage_error ("render", "expects -o OUT.png, OUT.svg or OUT.pdf");
      goto out;
    }
  if (!(scale > 0.01 && scale <= 16))
    {
      exit_code = onyx_cli_usage_error ("render", "--scale must be between 0.01 and 16");
      goto out;
    }
  for (guint i = 0; expand != NULL && expand[i] != NULL; i++)
    {
      if (strcmp (expand[i], "all") == 0)
        mode = ONYX_EXPAND_ALL;
      else if (strcmp (expand[i], "none") == 0)
        mode = ONYX_EXPAND_NONE;
      else if (strcmp (expand[i], "auto") == 0)
        mode = ONYX_EXPAND_AUTO;
      else
        g_ptr_array_add (scopes, expand[i]);
    }
  g_ptr_array_add (scopes, NULL);
  model = onyx_model_new_from_file (argv[2], &error);
  if (model == NULL)
    {
      exit_code = onyx_cli_report_error (error);
      goto out;
    }
  graphs = onyx_graph_list_new (onyx_model_get_proto (model));
  if ((entry = onyx_cli_find_graph ("render", graphs, graph_name, &exit_code)) == NULL)
    goto out;
  /* A name that says no format is the command's misuse, not the disk's: said before
   * the layout is made. */
  if (!onyx_render_file_format_known (output))
    {
      exit_code = onyx_cli_usage_error ("render", "expects -o OUT.png, OUT.svg or OUT.pdf (not %s)", output);
      goto out;
    }
  engine = onyx_layout_engine_new_for_entry (graphs, entry);
  onyx_layout_engine_set_fold_constants (engine, !no_fold_constants);
  onyx_layout_engine_set_fold_quant (engine, !no_fold_quant);
  shapes = onyx_shapes_infer (onyx_model_get_proto (model), FALSE);
  onyx_layout_engine_set_shapes (engine, shapes);
  expanded = onyx_layout_engine_expansion (engine, mode, (const char *const *) scopes->pdata, NULL);
  layout = onyx_layout_engine_run (engine, expanded, NULL, NULL, NULL);
  if (!onyx_render_graph_to_file (layout, entry->graph, output, scale, &error))
    exit_code = onyx_cli_report_error (error);
  else
    {
      int width, height;
      guint n_columns;
      double used = onyx_render_file_scale (layout, output, scale, &width, &height, &n_columns);
      /* Said, not silent: the picture is smaller than asked. */
      if (used < scale)
        fprintf (stderr, "onyx-cli: render: drawn at scale %.3g (%d × %d pixels) instead of %g: a PNG is at "
                 "most 32000 pixels a side (16000 in columns); an SVG keeps any scale\n", used, width, height, scale);
      if (n_columns > 1)
        printf ("%s: the graph is %u columns side by side, read from left to right\n", output, n_columns);
    }
  onyx_layout_free (layout);
  g_hash_table_unref (expanded);
  onyx_layout_engine_free (engine);
  onyx_shapes_unref (shapes);
out:
  g_free (output);
  g_strfreev (expand);
  return exit_code;
}
