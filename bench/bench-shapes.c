/* bench-shapes MODEL [PYTHON]: ONNX's shape inference as Onyx runs it, against
 * python's onnx.load + onnx.shape_inference.infer_shapes + onnx.save of the same
 * model, measured in the same run (in-process, without the interpreter's start; best
 * of RUNS each). Prints Onyx's steps (each its best) and the ratio of the totals;
 * exits 1 when Onyx is not at least 2x faster.
 * Run by hand on transformer_96.onnx (../shared/models/export_scale_models.py). */
#include <glib/gstdio.h>
#include <stdio.h>

#include "bench-util.h"
#include "onyx-document.h"
#include "onyx-edits.h"
#include "onyx-memory.h"
#include "onyx-shapes.h"

/* Best of RUNS on both sides: this machine's timings swing by half from run to run. */
#define RUNS 5

static double
python_seconds (const char *python, const char *model, const char *out)
{
  g_autofree char *quoted_model = g_shell_quote (model), *quoted_out = g_shell_quote (out);
  g_autofree char *script = g_strdup_printf (
    "import time, onnx, onnx.shape_inference as si\n"
    "best = 1e9\n"
    "for _ in range(%d):\n"
    "    t = time.perf_counter()\n"
    "    m = si.infer_shapes(onnx.load(%s))\n"
    "    onnx.save(m, %s)\n"
    "    best = min(best, time.perf_counter() - t)\n"
    "print(best)\n", RUNS, quoted_model, quoted_out);
  const char *argv[] = { python, "-c", script, NULL };
  g_autofree char *output = NULL;
  g_autoptr (GError) error = NULL;
  int status;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &output, NULL,
                     &status, &error) || !g_spawn_check_wait_status (status, NULL))
    return -1;
  return g_ascii_strtod (output, NULL);
}

enum { STEP_OPEN, STEP_WRITE, STEP_SAVE, N_STEPS };

int
main (int argc, char **argv)
{
  static const char *const step_names[N_STEPS] = {
    "load + document + inference", "write value_info", "save" };
  const char *python = argc > 2 ? argv[2] : "/usr/bin/python3";
  g_autofree char *out = g_build_filename (g_get_tmp_dir (), "bench-shapes.onnx", NULL);
  double best = 1e9, best_step[N_STEPS] = { 1e9, 1e9, 1e9 }, py;

  if (argc < 2)
    {
      fprintf (stderr, "usage: bench-shapes MODEL [PYTHON]\n");
      return 2;
    }
  onyx_memory_keep_freed ();  /* as the app and onyx-cli do */
  for (int run = 0; run < RUNS; run++)
    {
      double times[N_STEPS + 1];
      g_autoptr (OnyxDocument) doc = NULL;
      g_autoptr (GError) error = NULL;
      guint n_written = 0;

      /* As onyx-cli edit --infer-shapes opens it. */
      times[STEP_OPEN] = bench_now ();
      if ((doc = onyx_document_open_with_shapes (argv[1], &error)) == NULL)
        goto failed;
      times[STEP_WRITE] = bench_now ();
      if (!onyx_edit_infer_shapes (doc, &n_written, &error))
        goto failed;
      times[STEP_SAVE] = bench_now ();
      if (!onyx_document_save (doc, out, &error))
        goto failed;
      times[N_STEPS] = bench_now ();
      for (int step = 0; step < N_STEPS; step++)
        best_step[step] = MIN (best_step[step], times[step + 1] - times[step]);
      best = MIN (best, times[N_STEPS] - times[STEP_OPEN]);
      if (run == 0)
        printf ("value_info written:         %u\n", n_written);
      continue;
    failed:
      fprintf (stderr, "%s\n", error->message);
      return 2;
    }
  py = python_seconds (python, argv[1], out);
  g_unlink (out);
  for (int step = 0; step < N_STEPS; step++)
    printf ("onyx %-29s %8.1f ms\n", step_names[step], best_step[step] * 1e3);
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
