/* Edges go around boxes: no edge of a laid-out graph runs through a box that is not
 * one of its ends (onyx-layout-check.h counts them), in the branches of a
 * Silero-VAD-like model (tools/make-vad-model.py: groups read the branch's outer
 * inputs deep inside, and write its outputs from deep inside) and in the main graphs
 * of tests/data, with groups as they open and with every group open.
 *
 * Run by hand as `test-layout-edges --measure MODEL [GRAPH] [all|auto|none]`, it
 * prints a graph's crossings (each one with ONYX_CHECK_VERBOSE set) and the time its
 * layout took, without the disk cache. */
#include <glib/gstdio.h>
#include <stdlib.h>
#include <time.h>

#include "onyx-layout-check.h"
#include "onyx-shapes.h"
#include "onyx-test-util.h"

typedef struct {
  TestCrossings crossings;
  guint graphs;           /* graphs laid out */
} Tally;

/* Lays graph `name` of the model out as `onyx-cli render` does (shapes inferred,
 * Constants folded) with `mode`, and counts its crossings. */
static OnyxLayout *
lay_out_graph (OnyxModel *model, const char *name, OnyxExpandMode mode, double seconds[2])
{
  g_autoptr (OnyxGraphList) graphs = onyx_graph_list_new (onyx_model_get_proto (model));
  g_autoptr (GError) error = NULL;
  const OnyxGraphEntry *entry = onyx_graph_list_find (graphs, name, &error);
  g_autoptr (OnyxShapes) shapes = NULL;
  g_autoptr (GHashTable) expanded = NULL;
  g_autoptr (OnyxLayoutEngine) engine = NULL;
  OnyxLayout *layout;
  gint64 start;
  struct timespec cpu_start, cpu_end;

  g_assert_no_error (error);
  shapes = onyx_shapes_infer (onyx_model_get_proto (model), FALSE);
  start = g_get_monotonic_time ();
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &cpu_start);
  engine = onyx_layout_engine_new_for_entry (graphs, entry);
  onyx_layout_engine_set_shapes (engine, shapes);
  expanded = onyx_layout_engine_expansion (engine, mode, NULL, NULL);
  layout = onyx_layout_engine_run (engine, expanded, NULL, NULL, NULL);
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &cpu_end);
  seconds[0] = (g_get_monotonic_time () - start) / 1e6;
  /* The machine may be shared: what this process used, too. */
  seconds[1] = (cpu_end.tv_sec - cpu_start.tv_sec) + (cpu_end.tv_nsec - cpu_start.tv_nsec) / 1e9;
  g_assert_nonnull (layout);
  return layout;
}

static void
count_graph (OnyxModel *model, const char *what, const char *name, OnyxExpandMode mode, Tally *tally)
{
  double seconds[2];
  g_autoptr (OnyxLayout) layout = lay_out_graph (model, name, mode, seconds);
  g_autofree char *label = g_strdup_printf ("%s %s %s", what, name, mode == ONYX_EXPAND_ALL ? "all" : "auto");

  test_count_crossings (layout, &tally->crossings, g_test_verbose () ? stderr : NULL, label);
  tally->graphs++;
}

static char *
make_vad_model (const char *dir)
{
  g_autofree char *data = test_data_path ("");
  g_autofree char *tool = g_build_filename (data, "..", "..", "tools", "make-vad-model.py", NULL);
  char *out = g_build_filename (dir, "vad.onnx", NULL);
  const char *argv[] = { "/usr/bin/python3", tool, out, NULL };
  g_autoptr (GError) error = NULL;
  int status;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL,
                               &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return out;
}

static void
test_vad_branches (void)
{
  g_autofree char *dir = g_dir_make_tmp ("onyx-edges-XXXXXX", NULL);
  g_autofree char *path = make_vad_model (dir);
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = onyx_model_new_from_file (path, &error);
  const char *const branches[] = { "/If:then_branch", "/If:else_branch" };
  const OnyxExpandMode modes[] = { ONYX_EXPAND_AUTO, ONYX_EXPAND_ALL };
  Tally tally = { 0 };

  g_assert_no_error (error);
  for (guint b = 0; b < G_N_ELEMENTS (branches); b++)
    for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
      count_graph (model, "vad", branches[b], modes[m], &tally);
  g_test_message ("VAD branches: %u edges, %u segments; %u boxes and %u groups crossed", tally.crossings.edges,
                  tally.crossings.segments, tally.crossings.boxes, tally.crossings.groups);
  /* The check ran: four layouts of some 170 boxes each. */
  g_assert_cmpuint (tally.graphs, ==, 4);
  g_assert_cmpuint (tally.crossings.edges, >, 400);
  g_assert_cmpuint (tally.crossings.boxes, ==, 0);
  g_assert_cmpuint (tally.crossings.groups, ==, 0);
  g_unlink (path);
  g_rmdir (dir);
}

/* Every graph of every model of tests/data, as it opens and with every group open. */
static void
test_data_models (void)
{
  g_autofree char *dir_path = test_data_path ("");
  g_autoptr (GDir) dir = g_dir_open (dir_path, 0, NULL);
  const OnyxExpandMode modes[] = { ONYX_EXPAND_AUTO, ONYX_EXPAND_ALL };
  const char *name;
  Tally tally = { 0 };
  guint n_models = 0;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autoptr (OnyxModel) model = NULL;
      g_autoptr (OnyxGraphList) graphs = NULL;
      if (!g_str_has_suffix (name, ".onnx"))
        continue;
      model = test_load_data (name);
      graphs = onyx_graph_list_new (onyx_model_get_proto (model));
      for (guint g = 0; g < onyx_graph_list_size (graphs); g++)
        for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
          count_graph (model, name, onyx_graph_list_get (graphs, g)->name, modes[m], &tally);
      n_models++;
    }
  g_test_message ("%u models, %u graphs laid out: %u edges; %u boxes and %u groups crossed", n_models,
                  tally.graphs, tally.crossings.edges, tally.crossings.boxes, tally.crossings.groups);
  g_assert_cmpuint (n_models, >=, 13);
  g_assert_cmpuint (tally.crossings.edges, >, 700);
  g_assert_cmpuint (tally.crossings.boxes, ==, 0);
  g_assert_cmpuint (tally.crossings.groups, ==, 0);
}

static guint
count_lines_at_open_groups (const OnyxLayout *layout)
{
  guint n = 0;
  for (guint e = 0; e < layout->edges->len; e++)
    {
      const OnyxLayoutEdge *edge = &g_array_index (layout->edges, OnyxLayoutEdge, e);
      const OnyxLayoutNode *from = &g_array_index (layout->nodes, OnyxLayoutNode, edge->from);
      const OnyxLayoutNode *to = &g_array_index (layout->nodes, OnyxLayoutNode, edge->to);
      n += (from->kind == ONYX_LAYOUT_GROUP && from->expanded) + (to->kind == ONYX_LAYOUT_GROUP && to->expanded);
    }
  return n;
}

/* What leaves an open group follows edits outside it: in model_foo, the open group
 * "model" (Conv, Relu) has a port for Relu's output, which FooOp reads; FooOp made to
 * read the graph input instead, nothing leaves the group, and its layout, laid out
 * again, has no line to its side. */
static void
test_ports_follow_edits (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("model_foo.onnx");
  Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  g_autoptr (OnyxLayoutEngine) engine = onyx_layout_engine_new (graph);
  g_autoptr (GHashTable) expanded = onyx_layout_engine_expansion (engine, ONYX_EXPAND_AUTO, NULL, NULL);
  g_autoptr (OnyxLayout) before = onyx_layout_engine_run (engine, expanded, NULL, NULL, NULL);
  g_autoptr (OnyxLayout) after = NULL;
  Onnx__NodeProto *foo = graph->node[2];
  guint n_from_input = 0;

  g_assert_cmpstr (foo->op_type, ==, "FooOp");
  g_assert_cmpuint (count_lines_at_open_groups (before), ==, 0);
  g_free (foo->input[0]);
  foo->input[0] = g_strdup ("input");
  onyx_layout_engine_graph_changed (engine);
  after = onyx_layout_engine_run (engine, expanded, NULL, NULL, NULL);
  g_assert_cmpuint (count_lines_at_open_groups (after), ==, 0);
  for (guint e = 0; e < after->edges->len; e++)
    {
      const OnyxLayoutEdge *edge = &g_array_index (after->edges, OnyxLayoutEdge, e);
      n_from_input += g_array_index (after->nodes, OnyxLayoutNode, edge->from).kind == ONYX_LAYOUT_INPUT;
    }
  /* To Conv inside the group, and to FooOp. */
  g_assert_cmpuint (n_from_input, ==, 2);
}

/* --measure MODEL [GRAPH] [all|auto|none]: one line of counts and seconds. */
static int
measure (int argc, char **argv)
{
  const char *name = argc > 3 ? argv[3] : "main", *mode_name = argc > 4 ? argv[4] : "auto";
  OnyxExpandMode mode = g_str_equal (mode_name, "all") ? ONYX_EXPAND_ALL
                        : g_str_equal (mode_name, "none") ? ONYX_EXPAND_NONE : ONYX_EXPAND_AUTO;
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = onyx_model_new_from_file (argv[2], &error);
  g_autoptr (OnyxLayout) layout = NULL;
  TestCrossings crossings = { 0 };
  gboolean verbose = g_getenv ("ONYX_CHECK_VERBOSE") != NULL;
  double seconds[2];

  if (model == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  onyx_layout_disk_cache_set_default (NULL);
  layout = lay_out_graph (model, name, mode, seconds);
  test_count_crossings (layout, &crossings, verbose ? stderr : NULL, argv[2]);
  printf ("%s %s %s: %u boxes, %u edges, %u segments; crossed: %u boxes, %u groups; %.3f s (CPU %.3f s), %u dot runs, "
          "%.0f × %.0f pt\n", argv[2], name, mode_name, layout->nodes->len, crossings.edges, crossings.segments,
          crossings.boxes, crossings.groups, seconds[0], seconds[1], layout->n_dot_runs, layout->bounds.width, layout->bounds.height);
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc > 2 && g_str_equal (argv[1], "--measure"))
    return measure (argc, argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/layout-edges/vad-branches", test_vad_branches);
  g_test_add_func ("/layout-edges/data-models", test_data_models);
  g_test_add_func ("/layout-edges/ports-follow-edits", test_ports_follow_edits);
  return g_test_run ();
}
