/* The layout caches: on disk, shared by engines and processes, keyed by dot's input
 * (hits, misses, eviction by size, corrupt files, what changes the key), and the
 * engine's bounded memory cache. gvLayout calls are counted by OnyxLayout.n_dot_runs. */
#include <glib/gstdio.h>
#include <string.h>

#include "onyx-layout.h"
#include "onyx-model.h"
#include "onyx-test-util.h"

#define N_BLOCKS 3

/* x → block.0 → block.1 → block.2 → y; each block MatMul, Add, Relu, Mul(Relu, MatMul). */
typedef struct {
  Onnx__GraphProto graph;
  Onnx__NodeProto nodes[N_BLOCKS * 4];
  Onnx__NodeProto *node_list[N_BLOCKS * 4];
  Onnx__ValueInfoProto input, output;
  Onnx__ValueInfoProto *input_list[1], *output_list[1];
  GPtrArray *strings;
} Blocks;

static char *
keep (Blocks *blocks, char *text)
{
  g_ptr_array_add (blocks->strings, text);
  return text;
}

static void
add_node (Blocks *blocks, guint at, const char *name, const char *op, const char *a, const char *b, const char *out)
{
  Onnx__NodeProto *node = &blocks->nodes[at];
  char **inputs = (char **) keep (blocks, (char *) g_new0 (char *, 2));
  char **outputs = (char **) keep (blocks, (char *) g_new0 (char *, 1));

  onnx__node_proto__init (node);
  node->name = keep (blocks, g_strdup (name));
  node->op_type = (char *) op;
  node->domain = (char *) "";
  inputs[0] = keep (blocks, g_strdup (a));
  inputs[1] = b != NULL ? keep (blocks, g_strdup (b)) : NULL;
  outputs[0] = keep (blocks, g_strdup (out));
  node->input = inputs;
  node->n_input = b != NULL ? 2 : 1;
  node->output = outputs;
  node->n_output = 1;
  blocks->node_list[at] = node;
}

static Blocks *
blocks_new (void)
{
  Blocks *blocks = g_new0 (Blocks, 1);
  g_autofree char *previous = g_strdup ("x");

  blocks->strings = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < N_BLOCKS; i++)
    {
      g_autofree char *scope = g_strdup_printf ("/block.%u/", i);
      g_autofree char *matmul = g_strconcat (scope, "MatMul", NULL), *add = g_strconcat (scope, "Add", NULL);
      g_autofree char *relu = g_strconcat (scope, "Relu", NULL), *mul = g_strconcat (scope, "Mul", NULL);
      g_autofree char *matmul_out = g_strconcat (matmul, "_output_0", NULL);
      g_autofree char *add_out = g_strconcat (add, "_output_0", NULL);
      g_autofree char *relu_out = g_strconcat (relu, "_output_0", NULL);
      g_autofree char *mul_out = g_strconcat (mul, "_output_0", NULL);
      add_node (blocks, 4 * i, matmul, "MatMul", previous, previous, matmul_out);
      add_node (blocks, 4 * i + 1, add, "Add", matmul_out, matmul_out, add_out);
      add_node (blocks, 4 * i + 2, relu, "Relu", add_out, NULL, relu_out);
      add_node (blocks, 4 * i + 3, mul, "Mul", relu_out, matmul_out, mul_out);
      g_free (previous);
      previous = g_strdup (mul_out);
    }
  onnx__graph_proto__init (&blocks->graph);
  onnx__value_info_proto__init (&blocks->input);
  onnx__value_info_proto__init (&blocks->output);
  blocks->input.name = (char *) "x";
  blocks->output.name = keep (blocks, g_strdup (previous));
  blocks->input_list[0] = &blocks->input;
  blocks->output_list[0] = &blocks->output;
  blocks->graph.node = blocks->node_list;
  blocks->graph.n_node = N_BLOCKS * 4;
  blocks->graph.input = blocks->input_list;
  blocks->graph.n_input = 1;
  blocks->graph.output = blocks->output_list;
  blocks->graph.n_output = 1;
  return blocks;
}

static void
blocks_free (Blocks *blocks)
{
  g_ptr_array_unref (blocks->strings);
  g_free (blocks);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Blocks, blocks_free)

static OnyxLayout *
lay_out_with (const Onnx__GraphProto *graph, OnyxLayoutDiskCache *cache, OnyxExpandMode mode)
{
  g_autoptr (OnyxLayoutEngine) engine = onyx_layout_engine_new (graph);
  g_autoptr (GHashTable) expanded = onyx_layout_engine_expansion (engine, mode, NULL, NULL);
  OnyxLayout *layout;

  onyx_layout_engine_set_disk_cache (engine, cache);
  layout = onyx_layout_engine_run (engine, expanded, NULL, NULL, NULL);
  g_assert_nonnull (layout);
  return layout;
}

static void
assert_same_layout (const OnyxLayout *a, const OnyxLayout *b)
{
  g_assert_cmpuint (a->nodes->len, ==, b->nodes->len);
  g_assert_cmpuint (a->edges->len, ==, b->edges->len);
  g_assert_cmpmem (&a->bounds, sizeof a->bounds, &b->bounds, sizeof b->bounds);
  for (guint i = 0; i < a->nodes->len; i++)
    {
      const OnyxLayoutNode *x = &g_array_index (a->nodes, OnyxLayoutNode, i);
      const OnyxLayoutNode *y = &g_array_index (b->nodes, OnyxLayoutNode, i);
      g_assert_cmpmem (&x->box, sizeof x->box, &y->box, sizeof y->box);
      g_assert_cmpstr (x->title, ==, y->title);
    }
  for (guint e = 0; e < a->edges->len; e++)
    {
      const OnyxLayoutEdge *x = &g_array_index (a->edges, OnyxLayoutEdge, e);
      const OnyxLayoutEdge *y = &g_array_index (b->edges, OnyxLayoutEdge, e);
      g_assert_cmpint (x->from, ==, y->from);
      g_assert_cmpint (x->to, ==, y->to);
      g_assert_cmpstr (x->tensor, ==, y->tensor);
      g_assert_cmpmem (x->points->data, x->points->len * sizeof (double), y->points->data,
                       y->points->len * sizeof (double));
    }
}

static char *
make_cache_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("onyx-layout-cache-XXXXXX", &error);
  g_assert_no_error (error);
  return dir;
}

static GPtrArray *
cache_files (const char *dir)
{
  GPtrArray *files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) handle = g_dir_open (dir, 0, NULL);
  const char *name;

  while (handle != NULL && (name = g_dir_read_name (handle)) != NULL)
    g_ptr_array_add (files, g_build_filename (dir, name, NULL));
  g_ptr_array_sort (files, test_compare_paths);
  return files;
}

static void
remove_dir (const char *dir)
{
  g_autoptr (GPtrArray) files = cache_files (dir);
  for (guint i = 0; i < files->len; i++)
    g_unlink (files->pdata[i]);
  g_rmdir (dir);
}

/* A cold run lays every distinct group out once (the blocks look alike: dot runs
 * once for all three); a second engine over another cache object on the same
 * folder, as another process would, lays nothing out and draws the same. */
static void
test_hits_across_engines (void)
{
  g_autoptr (Blocks) blocks = blocks_new ();
  g_autofree char *dir = make_cache_dir ();
  g_autoptr (OnyxLayoutDiskCache) first_cache = onyx_layout_disk_cache_new (dir, ONYX_LAYOUT_DISK_CACHE_MAX_BYTES);
  g_autoptr (OnyxLayoutDiskCache) second_cache = onyx_layout_disk_cache_new (dir, ONYX_LAYOUT_DISK_CACHE_MAX_BYTES);
  g_autoptr (OnyxLayout) uncached = lay_out_with (&blocks->graph, NULL, ONYX_EXPAND_ALL);
  g_autoptr (OnyxLayout) cold = lay_out_with (&blocks->graph, first_cache, ONYX_EXPAND_ALL);
  g_autoptr (OnyxLayout) warm = NULL;
  g_autoptr (GPtrArray) files = NULL;
  OnyxLayoutCacheStats stats;

  /* The root and three blocks; the blocks' inputs to dot are the same. */
  g_assert_cmpuint (uncached->n_dot_runs, ==, 1 + N_BLOCKS);
  g_assert_cmpuint (cold->n_dot_runs, ==, 2);
  g_assert_cmpuint (cold->n_disk_hits, ==, N_BLOCKS - 1);
  onyx_layout_disk_cache_get_stats (first_cache, &stats);
  g_assert_cmpuint (stats.stores, ==, 2);
  g_assert_cmpuint (stats.misses, ==, 2);
  g_assert_cmpuint (stats.hits, ==, N_BLOCKS - 1);
  files = cache_files (dir);
  g_assert_cmpuint (files->len, ==, 2);
  assert_same_layout (uncached, cold);

  warm = lay_out_with (&blocks->graph, second_cache, ONYX_EXPAND_ALL);
  g_assert_cmpuint (warm->n_dot_runs, ==, 0);
  g_assert_cmpuint (warm->n_disk_hits, ==, 1 + N_BLOCKS);
  onyx_layout_disk_cache_get_stats (second_cache, &stats);
  g_assert_cmpuint (stats.misses, ==, 0);
  g_assert_cmpuint (stats.stores, ==, 0);
  assert_same_layout (uncached, warm);
  remove_dir (dir);
}

/* Cold, then warm from the disk: the same layout, no dot run the second time. */
static void
assert_round_trip (const Onnx__GraphProto *graph)
{
  g_autofree char *dir = make_cache_dir ();
  g_autoptr (OnyxLayoutDiskCache) first_cache = onyx_layout_disk_cache_new (dir, ONYX_LAYOUT_DISK_CACHE_MAX_BYTES);
  g_autoptr (OnyxLayoutDiskCache) second_cache = onyx_layout_disk_cache_new (dir, ONYX_LAYOUT_DISK_CACHE_MAX_BYTES);
  g_autoptr (OnyxLayout) cold = lay_out_with (graph, first_cache, ONYX_EXPAND_ALL);
  g_autoptr (OnyxLayout) warm = lay_out_with (graph, second_cache, ONYX_EXPAND_ALL);

  g_assert_cmpuint (warm->n_dot_runs, ==, 0);
  g_assert_cmpuint (warm->n_disk_hits, ==, cold->n_dot_runs + cold->n_disk_hits);
  assert_same_layout (cold, warm);
  remove_dir (dir);
}

/* Every graph of the suite's models, subgraphs of the main graph's nodes too: groups
 * with no edge inside (a branch of one node) are stored and read back like the
 * others (an empty list is no array). */
static void
test_every_test_model (void)
{
  g_autoptr (GDir) data = g_dir_open (g_getenv ("ONYX_TEST_DATA"), 0, NULL);
  const char *name;
  guint graphs = 0;

  g_assert_nonnull (data);
  while ((name = g_dir_read_name (data)) != NULL)
    {
      g_autoptr (OnyxModel) model = NULL;
      const Onnx__GraphProto *graph;

      if (!g_str_has_suffix (name, ".onnx"))
        continue;
      model = test_load_data (name);
      graph = onyx_model_get_proto (model)->graph;
      assert_round_trip (graph);
      graphs++;
      for (size_t i = 0; i < graph->n_node; i++)
        for (size_t a = 0; a < graph->node[i]->n_attribute; a++)
          if (graph->node[i]->attribute[a]->g != NULL)
            {
              assert_round_trip (graph->node[i]->attribute[a]->g);
              graphs++;
            }
    }
  /* The models and the bodies of control_if and control_loop. */
  g_assert_cmpuint (graphs, >=, 12);
}

/* Removing a node of block.0 renumbers the items of the blocks after it: their
 * layouts still come from the memory cache (same contents), and must name the items
 * as they are numbered now, as a new engine lays the graph out. */
static void
test_renumbered_items (void)
{
  g_autoptr (Blocks) blocks = blocks_new ();
  g_autoptr (OnyxLayoutEngine) engine = onyx_layout_engine_new (&blocks->graph);
  g_autoptr (GHashTable) expanded = onyx_layout_engine_expansion (engine, ONYX_EXPAND_ALL, NULL, NULL);
  g_autoptr (OnyxLayout) first = onyx_layout_engine_run (engine, expanded, NULL, NULL, NULL);
  g_autoptr (OnyxLayout) edited = NULL, fresh = NULL;

  g_assert_nonnull (first);
  /* Drop block.0's Relu (its reader now reads a tensor nobody makes). */
  memmove (&blocks->node_list[2], &blocks->node_list[3], (N_BLOCKS * 4 - 3) * sizeof (Onnx__NodeProto *));
  blocks->graph.n_node--;
  onyx_layout_engine_graph_changed (engine);
  g_hash_table_unref (expanded);
  expanded = onyx_layout_engine_expansion (engine, ONYX_EXPAND_ALL, NULL, NULL);
  edited = onyx_layout_engine_run (engine, expanded, NULL, NULL, NULL);
  fresh = lay_out_with (&blocks->graph, NULL, ONYX_EXPAND_ALL);
  g_assert_nonnull (edited);
  /* block.1 and block.2 were not laid out again. */
  g_assert_cmpuint (edited->n_dot_runs, <, fresh->n_dot_runs);
  g_assert_cmpuint (edited->nodes->len, ==, fresh->nodes->len);
  for (guint i = 0; i < fresh->nodes->len; i++)
    {
      const OnyxLayoutNode *a = &g_array_index (edited->nodes, OnyxLayoutNode, i);
      const OnyxLayoutNode *b = &g_array_index (fresh->nodes, OnyxLayoutNode, i);
      g_assert_cmpint (a->kind, ==, b->kind);
      g_assert_cmpint (a->index, ==, b->index);
      g_assert_cmpstr (a->title, ==, b->title);
      g_assert_cmpfloat (a->box.x, ==, b->box.x);
      g_assert_cmpfloat (a->box.y, ==, b->box.y);
    }
  g_assert_cmpuint (edited->edges->len, ==, fresh->edges->len);
}

/* A group with one box and no edge inside or across (a dead node in a scope of its
 * own), and one with nothing in it at all (an empty graph). */
static void
test_groups_without_edges (void)
{
  Onnx__ModelProto *proto = test_model_new ();
  Onnx__GraphProto *empty = g_new0 (Onnx__GraphProto, 1);
  const int64_t dims[] = { 4 };
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = NULL;

  TEST_APPEND (proto->graph->input, proto->graph->n_input, test_value_info ("x", 1, dims));
  TEST_APPEND (proto->graph->output, proto->graph->n_output, test_value_info ("y", 1, dims));
  TEST_APPEND (proto->graph->node, proto->graph->n_node, test_node ("Relu", "/used/Relu", "x", NULL, "y", NULL));
  TEST_APPEND (proto->graph->node, proto->graph->n_node,
               test_node ("RandomNormal", "/dead/RandomNormal", NULL, "unused", NULL));
  model = test_model_load (proto, &error);
  g_assert_no_error (error);
  assert_round_trip (onyx_model_get_proto (model)->graph);
  onnx__graph_proto__init (empty);
  assert_round_trip (empty);
  g_free (empty);
}

/* The same across processes: a child process fills the folder named by
 * ONYX_LAYOUT_CACHE_DIR (the default cache), this one only reads it. */
static void
test_hits_across_processes (void)
{
  g_autoptr (Blocks) blocks = blocks_new ();
  g_autofree char *dir = NULL;
  g_autoptr (OnyxLayoutDiskCache) cache = NULL;
  g_autoptr (OnyxLayout) layout = NULL;

  if (g_test_subprocess ())
    {
      OnyxLayoutDiskCache *fill = onyx_layout_disk_cache_get_default ();
      g_assert_nonnull (fill);
      layout = lay_out_with (&blocks->graph, fill, ONYX_EXPAND_ALL);
      g_assert_cmpuint (layout->n_dot_runs, ==, 2);
      return;
    }
  dir = make_cache_dir ();
  g_setenv ("ONYX_LAYOUT_CACHE_DIR", dir, TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  cache = onyx_layout_disk_cache_new (dir, ONYX_LAYOUT_DISK_CACHE_MAX_BYTES);
  layout = lay_out_with (&blocks->graph, cache, ONYX_EXPAND_ALL);
  g_assert_cmpuint (layout->n_dot_runs, ==, 0);
  g_assert_cmpuint (layout->n_disk_hits, ==, 1 + N_BLOCKS);
  remove_dir (dir);
}

/* Only the edited block and the root around it (its size changed) are laid out
 * again, by the same engine (memory cache) and by a new one (disk cache). */
static void
test_edited_group_misses (void)
{
  g_autoptr (Blocks) blocks = blocks_new ();
  g_autofree char *dir = make_cache_dir ();
  g_autoptr (OnyxLayoutDiskCache) cache = onyx_layout_disk_cache_new (dir, ONYX_LAYOUT_DISK_CACHE_MAX_BYTES);
  g_autoptr (OnyxLayoutEngine) engine = onyx_layout_engine_new (&blocks->graph);
  g_autoptr (GHashTable) all = onyx_layout_engine_expansion (engine, ONYX_EXPAND_ALL, NULL, NULL);
  g_autoptr (OnyxLayout) before = NULL;
  g_autoptr (OnyxLayout) after = NULL;
  g_autoptr (OnyxLayout) fresh = NULL;
  Onnx__NodeProto *mul = &blocks->nodes[4 * 1 + 3];
  OnyxLayoutCacheStats stats, earlier;

  onyx_layout_engine_set_disk_cache (engine, cache);
  before = onyx_layout_engine_run (engine, all, NULL, NULL, NULL);
  g_assert_cmpuint (before->n_dot_runs, ==, 2);
  onyx_layout_engine_get_memory_stats (engine, &earlier);

  /* block.1's Mul now reads Add instead of MatMul: its edges change. */
  mul->input[1] = blocks->nodes[4 * 1 + 1].output[0];
  onyx_layout_engine_graph_changed (engine);
  after = onyx_layout_engine_run (engine, all, NULL, NULL, NULL);
  onyx_layout_engine_get_memory_stats (engine, &stats);
  g_assert_cmpuint (after->n_dot_runs + after->n_disk_hits, ==, 2);
  g_assert_cmpuint (after->n_dot_runs, >=, 1);
  /* block.1 and the root miss the memory cache; block.0 and block.2 hit. */
  g_assert_cmpuint (stats.misses - earlier.misses, ==, 2);
  g_assert_cmpuint (stats.hits - earlier.hits, >=, N_BLOCKS - 1);

  fresh = lay_out_with (&blocks->graph, cache, ONYX_EXPAND_ALL);
  g_assert_cmpuint (fresh->n_dot_runs, ==, 0);
  g_assert_cmpuint (fresh->n_disk_hits, ==, 1 + N_BLOCKS);
  assert_same_layout (after, fresh);
  remove_dir (dir);
}

/* What dot is given is the key: folding constants or another expansion lays out
 * anew. */
static void
test_options_change_key (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("flat_constants.onnx");
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  g_autofree char *dir = make_cache_dir ();
  g_autoptr (OnyxLayoutDiskCache) cache = onyx_layout_disk_cache_new (dir, ONYX_LAYOUT_DISK_CACHE_MAX_BYTES);
  g_autoptr (OnyxLayout) folded = lay_out_with (graph, cache, ONYX_EXPAND_ALL);
  g_autoptr (OnyxLayout) again = lay_out_with (graph, cache, ONYX_EXPAND_ALL);
  g_autoptr (Blocks) blocks = blocks_new ();
  g_autoptr (OnyxLayout) open_blocks = lay_out_with (&blocks->graph, cache, ONYX_EXPAND_ALL);
  g_autoptr (OnyxLayout) collapsed = lay_out_with (&blocks->graph, cache, ONYX_EXPAND_NONE);
  g_autoptr (OnyxLayoutEngine) engine = onyx_layout_engine_new (graph);
  g_autoptr (GHashTable) all = onyx_layout_engine_expansion (engine, ONYX_EXPAND_ALL, NULL, NULL);
  g_autoptr (OnyxLayout) unfolded = NULL;

  g_assert_cmpuint (folded->n_dot_runs, >, 0);
  g_assert_cmpuint (again->n_dot_runs, ==, 0);
  g_assert_cmpuint (open_blocks->n_dot_runs, >, 0);
  g_assert_cmpuint (collapsed->n_dot_runs, >, 0);
  onyx_layout_engine_set_disk_cache (engine, cache);
  onyx_layout_engine_set_fold_constants (engine, FALSE);
  unfolded = onyx_layout_engine_run (engine, all, NULL, NULL, NULL);
  g_assert_cmpuint (unfolded->n_dot_runs, >, 0);
  remove_dir (dir);
}

/* Truncated, cut or scribbled files are ignored and removed, never trusted; the
 * group is laid out again and the file written anew. */
static void
test_corrupt_files_ignored (void)
{
  g_autoptr (Blocks) blocks = blocks_new ();
  g_autofree char *dir = make_cache_dir ();
  g_autoptr (OnyxLayout) reference = NULL;
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GPtrArray) contents = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  const gsize cuts[] = { 0, 1, 7, 8, 12, 60, 79, 80, 81, 100 };

  {
    g_autoptr (OnyxLayoutDiskCache) cache = onyx_layout_disk_cache_new (dir, ONYX_LAYOUT_DISK_CACHE_MAX_BYTES);
    reference = lay_out_with (&blocks->graph, cache, ONYX_EXPAND_ALL);
  }
  files = cache_files (dir);
  g_assert_cmpuint (files->len, ==, 2);
  for (guint f = 0; f < files->len; f++)
    {
      char *data;
      gsize length;
      g_assert_true (g_file_get_contents (files->pdata[f], &data, &length, NULL));
      g_ptr_array_add (contents, g_bytes_new_take (data, length));
    }

  /* Each damage to every file; sizes counted from either end. */
  for (guint c = 0; c < 2 * G_N_ELEMENTS (cuts) + 3; c++)
    {
      g_autoptr (OnyxLayoutDiskCache) cache = onyx_layout_disk_cache_new (dir, ONYX_LAYOUT_DISK_CACHE_MAX_BYTES);
      g_autoptr (OnyxLayout) layout = NULL;
      OnyxLayoutCacheStats stats;
      for (guint f = 0; f < files->len; f++)
        {
          gsize length;
          const char *original = g_bytes_get_data (contents->pdata[f], &length);
          g_autofree char *damaged = g_memdup2 (original, length);
          gsize keep_bytes = length;
          if (c < G_N_ELEMENTS (cuts))
            keep_bytes = MIN (cuts[c], length - 1);
          else if (c < 2 * G_N_ELEMENTS (cuts))
            keep_bytes = length - 1 - MIN (cuts[c - G_N_ELEMENTS (cuts)], length - 1);
          else if (c == 2 * G_N_ELEMENTS (cuts))
            damaged[0] ^= 0x20;                       /* magic */
          else if (c == 2 * G_N_ELEMENTS (cuts) + 1)
            damaged[8] ^= 0x01;                       /* version */
          else
            memset (damaged + 80, 0xff, 8 * 4);       /* the first box: NaN */
          g_assert_true (g_file_set_contents (files->pdata[f], damaged, keep_bytes, NULL));
        }
      layout = lay_out_with (&blocks->graph, cache, ONYX_EXPAND_ALL);
      onyx_layout_disk_cache_get_stats (cache, &stats);
      g_assert_cmpuint (stats.rejected, ==, files->len);
      g_assert_cmpuint (layout->n_dot_runs, ==, 2);
      assert_same_layout (reference, layout);
    }
  remove_dir (dir);
}

/* Over its bound, the folder loses its least recently used files. */
static void
test_disk_eviction_by_size (void)
{
  g_autoptr (Blocks) blocks = blocks_new ();
  g_autofree char *dir = make_cache_dir ();
  g_autoptr (OnyxLayoutDiskCache) probe = onyx_layout_disk_cache_new (dir, ONYX_LAYOUT_DISK_CACHE_MAX_BYTES);
  g_autoptr (OnyxLayout) layout = lay_out_with (&blocks->graph, probe, ONYX_EXPAND_ALL);
  g_autoptr (GPtrArray) files = cache_files (dir);
  guint64 total = onyx_layout_disk_cache_get_bytes (probe);
  g_autoptr (OnyxLayoutDiskCache) small = NULL;
  g_autoptr (OnyxLayout) collapsed = NULL;
  OnyxLayoutCacheStats stats;
  GStatBuf info;

  g_assert_cmpuint (layout->n_dot_runs, >, 0);
  g_assert_cmpuint (files->len, ==, 2);
  g_assert_cmpuint (total, >, 0);
  /* Room for what is there and a little more: the next files push the oldest out. */
  small = onyx_layout_disk_cache_new (dir, total + 1);
  collapsed = lay_out_with (&blocks->graph, small, ONYX_EXPAND_NONE);
  g_assert_cmpuint (collapsed->n_dot_runs, >, 0);
  onyx_layout_disk_cache_get_stats (small, &stats);
  g_assert_cmpuint (stats.evictions, >, 0);
  g_assert_cmpuint (onyx_layout_disk_cache_get_bytes (small), <=, total + 1);
  g_clear_pointer (&files, g_ptr_array_unref);
  files = cache_files (dir);
  for (guint i = 0; i < files->len; i++)
    g_assert_cmpint (g_stat (files->pdata[i], &info), ==, 0);
  remove_dir (dir);
}

/* The engine's memory cache stays within its bound and what it drops still draws
 * the same: from disk when there is one, else by dot again. */
static void
test_memory_eviction (void)
{
  g_autoptr (Blocks) blocks = blocks_new ();
  g_autofree char *dir = make_cache_dir ();
  g_autoptr (OnyxLayoutDiskCache) cache = onyx_layout_disk_cache_new (dir, ONYX_LAYOUT_DISK_CACHE_MAX_BYTES);
  g_autoptr (OnyxLayout) reference = lay_out_with (&blocks->graph, NULL, ONYX_EXPAND_ALL);
  g_autoptr (OnyxLayoutEngine) engine = onyx_layout_engine_new (&blocks->graph);
  g_autoptr (GHashTable) all = onyx_layout_engine_expansion (engine, ONYX_EXPAND_ALL, NULL, NULL);
  OnyxLayoutCacheStats stats;

  onyx_layout_engine_set_disk_cache (engine, NULL);
  onyx_layout_engine_set_memory_limit (engine, 1);
  for (guint round = 0; round < 2; round++)
    {
      g_autoptr (OnyxLayout) layout = onyx_layout_engine_run (engine, all, NULL, NULL, NULL);
      /* Only the newest entry stays: the blocks are laid out again. */
      g_assert_cmpuint (layout->n_dot_runs, >=, N_BLOCKS);
      assert_same_layout (reference, layout);
    }
  onyx_layout_engine_get_memory_stats (engine, &stats);
  g_assert_cmpuint (stats.evictions, ==, stats.stores - 1);

  onyx_layout_engine_set_disk_cache (engine, cache);
  {
    g_autoptr (OnyxLayout) filled = onyx_layout_engine_run (engine, all, NULL, NULL, NULL);
    g_autoptr (OnyxLayout) from_disk = onyx_layout_engine_run (engine, all, NULL, NULL, NULL);
    g_assert_nonnull (filled);
    g_assert_cmpuint (from_disk->n_dot_runs, ==, 0);
    assert_same_layout (reference, from_disk);
  }
  onyx_layout_engine_set_memory_limit (engine, ONYX_LAYOUT_MEMORY_CACHE_MAX_BYTES);
  {
    g_autoptr (OnyxLayout) filled = onyx_layout_engine_run (engine, all, NULL, NULL, NULL);
    g_autoptr (OnyxLayout) from_memory = onyx_layout_engine_run (engine, all, NULL, NULL, NULL);
    g_assert_nonnull (filled);
    g_assert_cmpuint (from_memory->n_dot_runs + from_memory->n_disk_hits, ==, 0);
  }
  remove_dir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/layout-cache/hits-across-engines", test_hits_across_engines);
  g_test_add_func ("/layout-cache/hits-across-processes", test_hits_across_processes);
  g_test_add_func ("/layout-cache/every-test-model", test_every_test_model);
  g_test_add_func ("/layout-cache/groups-without-edges", test_groups_without_edges);
  g_test_add_func ("/layout-cache/edited-group-misses", test_edited_group_misses);
  g_test_add_func ("/layout-cache/renumbered-items", test_renumbered_items);
  g_test_add_func ("/layout-cache/options-change-key", test_options_change_key);
  g_test_add_func ("/layout-cache/corrupt-files-ignored", test_corrupt_files_ignored);
  g_test_add_func ("/layout-cache/disk-eviction-by-size", test_disk_eviction_by_size);
  g_test_add_func ("/layout-cache/memory-eviction", test_memory_eviction);
  return g_test_run ();
}
