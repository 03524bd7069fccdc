/* bench-layout MODEL DOT_OUT: times Onyx's layout and rendering of MODEL and writes
 * its plain operator graph to DOT_OUT, for bench-layout.py to time `dot` on the same
 * graph in the same run. Prints "key value" lines (seconds, bytes). Layouts run
 * without the disk cache, then cold (an empty cache folder) and warm (new engines on
 * the same folder, as when the model is opened again). */
#include <glib/gstdio.h>
#include <stdio.h>
#include <sys/resource.h>

#include "bench-util.h"
#include "onyx-layout.h"
#include "onyx-model.h"
#include "onyx-render.h"

static OnyxLayout *
timed_layout (const Onnx__GraphProto *graph, OnyxLayoutDiskCache *cache, OnyxExpandMode mode, double *seconds)
{
  double start = bench_now ();
  OnyxLayoutEngine *engine = onyx_layout_engine_new (graph);
  GHashTable *expanded = onyx_layout_engine_expansion (engine, mode, NULL, NULL);
  OnyxLayout *layout;

  onyx_layout_engine_set_disk_cache (engine, cache);
  layout = onyx_layout_engine_run (engine, expanded, NULL, NULL, NULL);

  *seconds = bench_now () - start;
  g_hash_table_unref (expanded);
  onyx_layout_engine_free (engine);
  return layout;
}

/* Mean time of the canvas's costliest frame on a 1280×800 view of `layout` at `scale`,
 * centred: the one that redraws its cache, the area onyx_render_cache_area() gives
 * drawn into an image. The canvas keeps an overview as such an image
 * (onyx_render_picture()); a readable zoom it records, and GSK rasterises the
 * recording the same way. Frames that reuse the cache only copy it. */
static double
frame_time (const OnyxLayout *layout, double scale)
{
  OnyxRenderIndex *index = onyx_render_index_new (layout);
  OnyxRenderOptions options;
  OnyxRect visible = { layout->bounds.width / 2 - 640 / scale, layout->bounds.height / 2 - 400 / scale,
                       1280 / scale, 800 / scale };
  OnyxRect area;
  double start;
  const int frames = 10;

  onyx_render_options_init (&options);
  options.scale = scale;
  onyx_render_cache_area (&visible, &area);
  start = bench_now ();
  for (int i = 0; i < frames; i++)
    cairo_surface_destroy (onyx_render_picture (layout, index, &area, &options, 1.0));
  onyx_render_index_free (index);
  return (bench_now () - start) / frames;
}

/* First view and whole graph with `cache`, printed as "<label>_first", "<label>_full". */
static void
cached_layouts (const Onnx__GraphProto *graph, OnyxLayoutDiskCache *cache, const char *label)
{
  double t_first, t_full;
  OnyxLayout *first = timed_layout (graph, cache, ONYX_EXPAND_AUTO, &t_first);
  OnyxLayout *full = timed_layout (graph, cache, ONYX_EXPAND_ALL, &t_full);

  printf ("%s_first_layout %.4f\n", label, t_first);
  printf ("%s_first_dot_runs %u\n", label, first->n_dot_runs);
  printf ("%s_full_layout %.4f\n", label, t_full);
  printf ("%s_full_dot_runs %u\n", label, full->n_dot_runs);
  printf ("%s_full_disk_hits %u\n", label, full->n_disk_hits);
  onyx_layout_free (first);
  onyx_layout_free (full);
}

static void
remove_cache_dir (const char *dir)
{
  g_autoptr (GDir) handle = g_dir_open (dir, 0, NULL);
  const char *name;

  while (handle != NULL && (name = g_dir_read_name (handle)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = NULL;
  g_autofree char *dot = NULL;
  const Onnx__GraphProto *graph;
  OnyxLayout *first, *full;
  double t_first, t_full, fit;
  struct rusage usage;

  if (argc < 3)
    {
      fprintf (stderr, "usage: bench-layout MODEL DOT_OUT\n");
      return 2;
    }
  model = onyx_model_new_from_file (argv[1], &error);
  if (model == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  graph = onyx_model_get_proto (model)->graph;
  dot = onyx_layout_flat_dot (graph);
  g_file_set_contents (argv[2], dot, -1, NULL);

  first = timed_layout (graph, NULL, ONYX_EXPAND_AUTO, &t_first);
  full = timed_layout (graph, NULL, ONYX_EXPAND_ALL, &t_full);
  fit = MIN (1280 / full->bounds.width, 800 / full->bounds.height);
  printf ("nodes %zu\n", graph->n_node);
  printf ("first_layout %.4f\n", t_first);
  printf ("first_boxes %u\n", first->nodes->len);
  printf ("full_layout %.4f\n", t_full);
  printf ("full_dot_runs %u\n", full->n_dot_runs);
  printf ("frame_fit %.5f\n", frame_time (full, fit));
  printf ("frame_100 %.5f\n", frame_time (full, 1.0));
  {
    /* The part of a first view that no layout cache saves: items, sizes, groups. */
    double start = bench_now ();
    onyx_layout_engine_free (onyx_layout_engine_new (graph));
    printf ("engine_build %.4f\n", bench_now () - start);
  }
  {
    g_autofree char *dir = g_dir_make_tmp ("onyx-bench-layout-cache-XXXXXX", NULL);
    g_autoptr (OnyxLayoutDiskCache) cold = onyx_layout_disk_cache_new (dir, ONYX_LAYOUT_DISK_CACHE_MAX_BYTES);
    g_autoptr (OnyxLayoutDiskCache) warm = onyx_layout_disk_cache_new (dir, ONYX_LAYOUT_DISK_CACHE_MAX_BYTES);
    cached_layouts (graph, cold, "cold");
    cached_layouts (graph, warm, "warm");
    printf ("cache_bytes %" G_GUINT64_FORMAT "\n", onyx_layout_disk_cache_get_bytes (warm));
    remove_cache_dir (dir);
  }
  getrusage (RUSAGE_SELF, &usage);
  printf ("peak_rss %ld\n", usage.ru_maxrss * 1024L);
  onyx_layout_free (first);
  onyx_layout_free (full);
  return 0;
}
