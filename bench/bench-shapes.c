/* bench-shapes MODEL [PYTHON]: ONNX's shape inference as Onyx runs it, against
 * python's onnx.load + onnx.shape_inference.infer_shapes + onnx.save of the same
 * model, measured in the same run (in-process, without the interpreter's start).
 * Prints each step and the ratio; exits 1 when Onyx is not at least 2x faster.
 * Run by hand on transformer_96.onnx (../shared/models/export_scale_models.py). */
#include <glib/gstdio.h>
#include <stdio.h>

#include "bench-util.h"
#include "onyx-document.h"
#include "onyx-edits.h"
#include "onyx-shapes.h"

static double
python_seconds (const char *python, const char *model, const char *out)
{
  g_autofree char *quoted_model = g_shell_quote (model), *quoted_out = g_shell_quote (out);
  g_autofree char *script = g_strdup_printf (
    "import time, onnx, onnx.shape_inference as si\n"
    "best = 1e9\n"
    "for _ in range(3):\n"
    "    t = time.perf_counter()\n"
    "    m = si.infer_shapes(onnx.load(%s))\n"
    "    onnx.save(m, %s)\n"
    "    best = min(best, time.perf_counter() - t)\n"
    "print(best)\n", quoted_model, quoted_out);
  const char *argv[] = { python, "-c", script, NULL };
  g_autofree char *output = NULL;
  g_autoptr (GError) error = NULL;
  int status;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &output, NULL,
                     &status, &error) || !g_spawn_check_wait_status (status, NULL))
    return -1;
  return g_ascii_strtod (output, NULL);
}

int
main (int argc, char **argv)
{
  const char *python = argc > 2 ? argv[2] : "/usr/bin/python3";
  g_autofree char *out = g_build_filename (g_get_tmp_dir (), "bench-shapes.onnx", NULL);
  double best = 1e9, best_infer = 1e9, py;

  if (argc < 2)
    {
      fprintf (stderr, "usage: bench-shapes MODEL [PYTHON]\n");
      return 2;
    }
  for (int run = 0; run < 3; run++)
    {
      double start = bench_now (), inferred;
      g_autoptr (OnyxModel) model = bench_load_model (argc, argv, "bench-shapes MODEL [PYTHON]");
      g_autoptr (OnyxDocument) doc = NULL;
      g_autoptr (GError) error = NULL;
      guint n_written = 0;
      if (model == NULL)
        return 2;
      doc = onyx_document_new (model);
      inferred = bench_now ();
      onyx_document_get_shapes (doc);
      best_infer = MIN (best_infer, bench_now () - inferred);
      if (!onyx_edit_infer_shapes (doc, &n_written, &error) || !onyx_document_save (doc, out, &error))
        {
          fprintf (stderr, "%s\n", error->message);
          return 2;
        }
      best = MIN (best, bench_now () - start);
      if (run == 0)
        printf ("value_info written:         %u\n", n_written);
    }
  py = python_seconds (python, argv[1], out);
  g_unlink (out);
  printf ("onyx inference alone:       %8.1f ms\n", best_infer * 1e3);
  printf ("onyx load + infer + save:   %8.1f ms\n", best * 1e3);
  if (py < 0)
    {
      printf ("python: could not run %s with onnx\n", python);
      return 2;
    }
  printf ("python load + infer + save: %8.1f ms\n", py * 1e3);
  printf ("ratio: %.1fx (goal: at least 2x)\n", py / best);
  return py / best >= 2.0 ? 0 : 1;
}
