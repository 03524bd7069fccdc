/* Layout sanity on real models: boxes inside the bounds and inside their groups,
 * siblings never overlap, edges run from box to box; plus caching, cancellation and
 * hit testing. */
#include <glib/gstdio.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <stdio.h>

#include "onyx-layout.h"
#include "onyx-render.h"
#include "onyx-shapes.h"
#include "onyx-layout-test-util.h"
#include "onyx-test-util.h"

/* Graphviz rounds coordinates to hundredths of a point. */
#define SLACK 1.0

static gboolean
inside (const OnyxRect *inner, const OnyxRect *outer)
{
  return inner->x >= outer->x - SLACK && inner->y >= outer->y - SLACK &&
         inner->x + inner->width <= outer->x + outer->width + SLACK &&
         inner->y + inner->height <= outer->y + outer->height + SLACK;
}

static gboolean
overlap (const OnyxRect *a, const OnyxRect *b)
{
  return a->x + SLACK < b->x + b->width && b->x + SLACK < a->x + a->width &&
         a->y + SLACK < b->y + b->height && b->y + SLACK < a->y + a->height;
}

static double
distance_to_box (double x, double y, const OnyxRect *box)
{
  double dx = MAX (MAX (box->x - x, 0), x - (box->x + box->width));
  double dy = MAX (MAX (box->y - y, 0), y - (box->y + box->height));
  return hypot (dx, dy);
}

static void
assert_sane (const OnyxLayout *layout, const char *what)
{
  g_assert_cmpuint (layout->nodes->len, >, 0);
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      g_assert_cmpfloat (node->box.width, >, 0);
      g_assert_cmpfloat (node->box.height, >, 0);
      if (!inside (&node->box, &layout->bounds))
        g_error ("%s: box of %s lies outside the bounds", what, node->title);
      if (node->parent >= 0)
        {
          const OnyxLayoutNode *parent = &g_array_index (layout->nodes, OnyxLayoutNode, node->parent);
          g_assert_true (parent->kind == ONYX_LAYOUT_GROUP && parent->expanded);
          if (!inside (&node->box, &parent->box))
            g_error ("%s: %s lies outside its group %s", what, node->title, parent->title);
        }
      for (guint j = i + 1; j < layout->nodes->len; j++)
        {
          const OnyxLayoutNode *other = &g_array_index (layout->nodes, OnyxLayoutNode, j);
          if (other->parent == node->parent && overlap (&node->box, &other->box))
            g_error ("%s: %s and %s overlap", what, node->title, other->title);
        }
    }
  for (guint e = 0; e < layout->edges->len; e++)
    {
      const OnyxLayoutEdge *edge = &g_array_index (layout->edges, OnyxLayoutEdge, e);
      const GArray *pts = edge->points;
      guint n = pts->len / 2;
      g_assert_cmpuint (n, >=, 4);
      g_assert_cmpuint ((n - 1) % 3, ==, 0);
      g_assert_cmpfloat (distance_to_box (g_array_index (pts, double, 0), g_array_index (pts, double, 1),
                                          &g_array_index (layout->nodes, OnyxLayoutNode, edge->from).box), <, 3.0);
      g_assert_cmpfloat (distance_to_box (g_array_index (pts, double, 2 * n - 2), g_array_index (pts, double, 2 * n - 1),
                                          &g_array_index (layout->nodes, OnyxLayoutNode, edge->to).box), <, 3.0);
    }
}

static void
check_model (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = onyx_model_new_from_file (path, &error);
  const OnyxExpandMode modes[] = { ONYX_EXPAND_ALL, ONYX_EXPAND_NONE, ONYX_EXPAND_AUTO };
  OnyxLayoutEngine *engine;
  Onnx__GraphProto *graph;

  g_assert_no_error (error);
  graph = onyx_model_get_proto (model)->graph;
  engine = onyx_layout_engine_new (graph);
  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_autoptr (OnyxLayout) layout = test_lay_out (engine, modes[m]);
      assert_sane (layout, path);
      if (modes[m] == ONYX_EXPAND_ALL)
        {
          /* Every node, graph input (not initializer) and output has its box, but
           * for the Constants shown as lines of their readers. */
          guint n_folded = 0;
          for (size_t n = 0; n < graph->n_node; n++)
            n_folded += onyx_layout_engine_folded_into (engine, n) >= 0;
          g_assert_cmpuint (test_count_kind (layout, ONYX_LAYOUT_OP), ==, graph->n_node - n_folded);
          g_assert_cmpuint (test_count_kind (layout, ONYX_LAYOUT_OUTPUT), ==, graph->n_output);
        }
    }
  onyx_layout_engine_free (engine);
}

static void
test_walkthrough (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (test_walkthrough_models); i++)
    {
      g_autofree char *path = test_data_path (test_walkthrough_models[i]);
      check_model (path);
    }
}

static void
test_testdata_sample (void)
{
  g_autoptr (GPtrArray) paths = test_testdata_models ();
  guint n = 0;

  g_assert_cmpuint (paths->len, >, 100);
  for (guint i = 0; i < paths->len; i += 25, n++)
    check_model (paths->pdata[i]);
  g_test_message ("laid out %u libonnx-testdata models", n);
}

static void
test_groups_cache_and_hits (void)
{
  g_autofree char *path = test_data_path ("model.onnx");
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = onyx_model_new_from_file (path, &error);
  OnyxLayoutEngine *engine = onyx_layout_engine_new (onyx_model_get_proto (model)->graph);
  g_autoptr (OnyxLayout) collapsed = test_lay_out (engine, ONYX_EXPAND_NONE);
  g_autoptr (OnyxLayout) again = NULL;
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GHashTable) all = onyx_layout_engine_expansion (engine, ONYX_EXPAND_ALL, NULL, NULL);
  const OnyxLayoutNode *group = NULL;
  int hit;

  /* Collapsed: input, the "model" group with its 4 nodes, output. */
  g_assert_cmpuint (collapsed->nodes->len, ==, 3);
  for (guint i = 0; i < collapsed->nodes->len; i++)
    if (g_array_index (collapsed->nodes, OnyxLayoutNode, i).kind == ONYX_LAYOUT_GROUP)
      group = &g_array_index (collapsed->nodes, OnyxLayoutNode, i);
  g_assert_nonnull (group);
  g_assert_cmpstr (group->subtitle, ==, "4 nodes");
  g_assert_false (group->expanded);
  hit = onyx_layout_hit_test (collapsed, group->box.x + group->box.width / 2, group->box.y + group->box.height / 2);
  g_assert_true (&g_array_index (collapsed->nodes, OnyxLayoutNode, hit) == group);
  g_assert_cmpint (onyx_layout_hit_test (collapsed, -100, -100), ==, -1);

  /* The same request again comes from the cache. */
  again = test_lay_out (engine, ONYX_EXPAND_NONE);
  g_assert_cmpuint (again->n_dot_runs, ==, 0);
  g_assert_cmpuint (again->nodes->len, ==, collapsed->nodes->len);

  /* Cancelled before it starts: no layout. */
  g_cancellable_cancel (cancellable);
  g_assert_null (onyx_layout_engine_run (engine, all, NULL, NULL, cancellable));
  onyx_layout_engine_free (engine);
}

static void
progress_seen (double fraction, gpointer user_data)
{
  double *last = user_data;
  g_assert_cmpfloat (fraction, >=, *last);
  g_assert_cmpfloat (fraction, <=, 1.0);
  *last = fraction;
}

static void
test_progress_and_render_index (void)
{
  g_autofree char *path = test_data_path ("model_scripted.onnx");
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = onyx_model_new_from_file (path, &error);
  OnyxLayoutEngine *engine = onyx_layout_engine_new (onyx_model_get_proto (model)->graph);
  g_autoptr (GHashTable) all = onyx_layout_engine_expansion (engine, ONYX_EXPAND_ALL, NULL, NULL);
  double last = 0;
  g_autoptr (OnyxLayout) layout = onyx_layout_engine_run (engine, all, progress_seen, &last, NULL);
  OnyxRenderIndex *index = onyx_render_index_new (layout);
  const OnyxLayoutEdge *edge = &g_array_index (layout->edges, OnyxLayoutEdge, 0);

  g_assert_cmpfloat (last, >, 0);
  /* A point on an edge's curve picks that edge. */
  g_assert_cmpint (onyx_render_edge_hit_test (layout, index, g_array_index (edge->points, double, 0),
                                              g_array_index (edge->points, double, 1), 4), >=, 0);
  onyx_render_index_free (index);
  onyx_layout_engine_free (engine);
}

/* Initializer lines: the schema's slot for standard ops (Conv's W, B, as in Netron),
 * the tensor's own name for custom ops that have no schema; after the attributes. */
static void
test_initializer_lines_named_by_slot (void)
{
  g_autofree char *path = test_data_path ("model_foo.onnx");
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = onyx_model_new_from_file (path, &error);
  Onnx__ModelProto *proto;
  OnyxLayoutEngine *engine;
  g_autoptr (OnyxLayout) layout = NULL;
  guint n_conv = 0;

  g_assert_no_error (error);
  proto = onyx_model_get_proto (model);
  engine = onyx_layout_engine_new (proto->graph);
  layout = test_lay_out (engine, ONYX_EXPAND_ALL);
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      if (node->kind != ONYX_LAYOUT_OP || g_strcmp0 (node->title, "Conv") != 0)
        continue;
      n_conv++;
      /* After its attributes, "group" first. */
      g_assert_cmpuint (node->lines->len, ==, 7);
      g_assert_cmpstr (node->lines->pdata[0], ==, "group = 1");
      g_assert_cmpstr (node->lines->pdata[5], ==, "W ⟨16×3×3×3⟩");
      g_assert_cmpstr (node->lines->pdata[6], ==, "B ⟨16⟩");
    }
  g_assert_cmpuint (n_conv, ==, 1);
  onyx_layout_engine_free (engine);
}

/* In model_foo, Conv and Relu sit in the open group "model": the edge from the input
 * ends at Conv inside it, and the edge to FooOp starts at Relu, not at the group's box. */
static void
test_edges_reach_inner_nodes (void)
{
  g_autofree char *path = test_data_path ("model_foo.onnx");
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = onyx_model_new_from_file (path, &error);
  g_autoptr (OnyxLayoutEngine) engine = NULL;
  g_autoptr (OnyxLayout) layout = NULL;
  guint n_checked = 0;

  g_assert_no_error (error);
  engine = onyx_layout_engine_new (onyx_model_get_proto (model)->graph);
  layout = test_lay_out (engine, ONYX_EXPAND_AUTO);
  for (guint e = 0; e < layout->edges->len; e++)
    {
      const OnyxLayoutEdge *edge = &g_array_index (layout->edges, OnyxLayoutEdge, e);
      const OnyxLayoutNode *from = &g_array_index (layout->nodes, OnyxLayoutNode, edge->from);
      const OnyxLayoutNode *to = &g_array_index (layout->nodes, OnyxLayoutNode, edge->to);
      guint n = edge->points->len;
      /* No edge ends at an open group any more. */
      g_assert_false (from->kind == ONYX_LAYOUT_GROUP && from->expanded);
      g_assert_false (to->kind == ONYX_LAYOUT_GROUP && to->expanded);
      g_assert_cmpuint (n % 2, ==, 0);
      g_assert_cmpuint ((n / 2 - 1) % 3, ==, 0);  /* still 1 + 3k points */
      if (from->kind == ONYX_LAYOUT_INPUT)
        {
          g_assert_cmpstr (to->title, ==, "Conv");
          /* It ends on Conv's top edge (where dot ends it: within a point). */
          g_assert_cmpfloat_with_epsilon (g_array_index (edge->points, double, n - 1), to->box.y, SLACK);
          n_checked++;
        }
      if (g_strcmp0 (to->title, "FooOp") == 0)
        {
          g_assert_cmpstr (from->title, ==, "Relu");
          /* And starts on Relu's bottom edge. */
          g_assert_cmpfloat_with_epsilon (g_array_index (edge->points, double, 1),
                                          from->box.y + from->box.height, SLACK);
          n_checked++;
        }
    }
  g_assert_cmpuint (n_checked, ==, 2);
}

/* A chain of `n` Relu nodes named flat ("p2o.Relu.7"), every tenth one an Add that
 * also reads a Constant written at the start of the file. */
static OnyxModel *
flat_chain (guint n)
{
  Onnx__ModelProto *proto = test_model_new ();
  Onnx__GraphProto *graph = proto->graph;
  const int64_t dims[] = { 4 };
  g_autoptr (GError) error = NULL;
  OnyxModel *model;
  char *previous = g_strdup ("x");

  TEST_APPEND (graph->input, graph->n_input, test_value_info ("x", 1, dims));
  TEST_APPEND (graph->node, graph->n_node, test_node ("Constant", "p2o.Constant.0", NULL, "c", NULL));
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = g_strdup_printf ("p2o.Op.%u", i);
      char *out = g_strdup_printf ("t%u", i);
      TEST_APPEND (graph->node, graph->n_node,
                   i % 10 == 9 ? test_node ("Add", name, previous, "c", NULL, out, NULL)
                               : test_node ("Relu", name, previous, NULL, out, NULL));
      g_free (previous);
      previous = out;
    }
  TEST_APPEND (graph->output, graph->n_output, test_value_info (previous, 1, dims));
  g_free (previous);
  model = test_model_load (proto, &error);
  g_assert_no_error (error);
  return model;
}

/* Large flat graphs are cut into blocks of consecutive nodes; small ones stay flat. */
static void
test_flat_blocks (void)
{
  g_autoptr (OnyxModel) small = flat_chain (300);
  g_autoptr (OnyxModel) large = flat_chain (1200);
  g_autoptr (OnyxLayoutEngine) flat = onyx_layout_engine_new (onyx_model_get_proto (small)->graph);
  g_autoptr (OnyxLayoutEngine) blocks = onyx_layout_engine_new (onyx_model_get_proto (large)->graph);
  Onnx__GraphProto *graph = onyx_model_get_proto (large)->graph;
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (OnyxLayout) layout = NULL;
  guint n_blocks = 0;

  for (guint i = 0; i < onyx_model_get_proto (small)->graph->n_node; i++)
    g_assert_cmpstr (onyx_layout_engine_node_scope (flat, i), ==, "");
  for (guint i = 0; i < graph->n_node; i++)
    {
      const char *scope = onyx_layout_engine_node_scope (blocks, i);
      guint first, last;
      g_assert_cmpint (sscanf (scope, "nodes %u–%u", &first, &last), ==, 2);
      /* Each node is in the block its position falls in; the Constant at the start
       * joins the first block that reads it. */
      g_assert_cmpuint (first, <=, i);
      g_assert_cmpuint (i, <=, last);
      g_assert_cmpuint (last - first + 1, <=, 120 * 14 / 10);
      if (g_hash_table_add (seen, (gpointer) scope))
        n_blocks++;
    }
  g_assert_cmpuint (n_blocks, >=, 1201 / 168);
  g_assert_cmpuint (n_blocks, <=, 1201 / 72 + 1);
  /* Laid out as groups: the first view shows them closed, not 1,200 boxes. */
  layout = test_lay_out (blocks, ONYX_EXPAND_NONE);
  g_assert_cmpuint (test_count_kind (layout, ONYX_LAYOUT_GROUP), ==, n_blocks);
  g_assert_cmpuint (test_count_kind (layout, ONYX_LAYOUT_OP), ==, 0);
}

/* HEADER_HEIGHT of onyx-layout-items.c and onyx-render.c: the coloured band of an op box. */
#define OP_HEADER_HEIGHT 22.0

/* An op with no lines is drawn as its header alone; one with lines keeps its body. */
static void
test_header_only_boxes (void)
{
  g_autofree char *path = test_data_path ("model.onnx");
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = onyx_model_new_from_file (path, &error);
  OnyxLayoutEngine *engine;
  g_autoptr (OnyxLayout) layout = NULL;
  guint n_relu = 0, n_conv = 0;

  g_assert_no_error (error);
  engine = onyx_layout_engine_new (onyx_model_get_proto (model)->graph);
  layout = test_lay_out (engine, ONYX_EXPAND_ALL);
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      if (node->kind != ONYX_LAYOUT_OP)
        continue;
      if (g_strcmp0 (node->title, "Relu") == 0)
        {
          n_relu++;
          g_assert_cmpuint (node->lines->len, ==, 0);
          g_assert_cmpfloat_with_epsilon (node->box.height, OP_HEADER_HEIGHT, 0.01);
        }
      else if (g_strcmp0 (node->title, "Conv") == 0)
        {
          n_conv++;
          g_assert_cmpuint (node->lines->len, >, 0);
          g_assert_cmpfloat (node->box.height, >, OP_HEADER_HEIGHT + 10);
        }
    }
  g_assert_cmpuint (n_relu, ==, 2);
  g_assert_cmpuint (n_conv, ==, 2);
  onyx_layout_engine_free (engine);
}

static int
fresh_text_width (const char *text, const char *font_name)
{
  PangoFontMap *font_map = pango_cairo_font_map_new ();
  PangoContext *context = pango_font_map_create_context (font_map);
  PangoLayout *pango;
  PangoFontDescription *font = pango_font_description_from_string (font_name);
  int width, height;

  onyx_layout_text_context_setup (context);
  pango = pango_layout_new (context);

  pango_layout_set_font_description (pango, font);
  pango_layout_set_text (pango, text, -1);
  pango_layout_get_pixel_size (pango, &width, &height);
  pango_font_description_free (font);
  g_object_unref (pango);
  g_object_unref (context);
  g_object_unref (font_map);
  return width;
}

/* The engine measures each distinct text once: every box is as wide as its texts
 * measured afresh (up to dot's rounding of inches). */
/* Each op box as wide as its widest text measured afresh, and the count of op boxes. */
static gpointer
check_box_widths (gpointer graph)
{
  OnyxLayoutEngine *engine = onyx_layout_engine_new (graph);
  g_autoptr (OnyxLayout) layout = test_lay_out (engine, ONYX_EXPAND_ALL);
  guint n_ops = 0;

  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      int widest;
      if (node->kind != ONYX_LAYOUT_OP)
        continue;
      n_ops++;
      widest = fresh_text_width (node->title, "Sans Bold 9");
      if (node->subtitle != NULL)
        widest = MAX (widest, fresh_text_width (node->subtitle, "Sans 8"));
      for (guint k = 0; k < node->lines->len; k++)
        widest = MAX (widest, fresh_text_width (node->lines->pdata[k], "Sans 8"));
      g_assert_cmpfloat_with_epsilon (node->box.width, MAX (widest + 20.0, 64.0), 0.05);
    }
  onyx_layout_engine_free (engine);
  return GUINT_TO_POINTER (n_ops);
}

/* As measured on first build, on builds after it (which reuse the thread's widths)
 * and on another thread (where edits are laid out). */
static void
test_box_widths_as_measured (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("model.onnx");
  Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;

  g_assert_cmpuint (GPOINTER_TO_UINT (check_box_widths (graph)), ==, 4);
  g_assert_cmpuint (GPOINTER_TO_UINT (check_box_widths (graph)), ==, 4);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_thread_join (g_thread_new ("layout", check_box_widths, graph))), ==, 4);
}

/* A PNG at any scale cuts no text that 100 % does not cut ("float32[D0×3×D1×…" at
 * 50 % and 70 %, when glyph advances were rounded to device pixels), shapes on the
 * edges and in the boxes included. */
static void
test_no_text_cut_at_other_scales (void)
{
  const char *names[] = { "model.onnx", "model_foo.onnx", "paddle_style.onnx", "control_loop.onnx",
                          "dynamo_metadata.onnx", "flat_constants.onnx" };
  const double scales[] = { 0.3, 0.5, 0.7, 1.5, 2.0, 3.0 };
  guint n_compared = 0;

  for (guint m = 0; m < G_N_ELEMENTS (names); m++)
    {
      g_autofree char *path = test_data_path (names[m]);
      g_autoptr (GError) error = NULL;
      g_autoptr (OnyxModel) model = onyx_model_new_from_file (path, &error);
      OnyxShapes *shapes;
      OnyxLayoutEngine *engine;
      g_autoptr (OnyxLayout) layout = NULL;
      guint at_100;

      g_assert_no_error (error);
      engine = onyx_layout_engine_new (onyx_model_get_proto (model)->graph);
      shapes = onyx_shapes_infer (onyx_model_get_proto (model), FALSE);
      onyx_layout_engine_set_shapes (engine, shapes);
      layout = test_lay_out (engine, ONYX_EXPAND_ALL);
      at_100 = onyx_render_count_cut_texts (layout, 1.0);
      for (guint s = 0; s < G_N_ELEMENTS (scales); s++, n_compared++)
        if (onyx_render_count_cut_texts (layout, scales[s]) != at_100)
          g_error ("%s at %g: %u texts cut, %u at 100 %%", names[m], scales[s],
                   onyx_render_count_cut_texts (layout, scales[s]), at_100);
      onyx_layout_engine_free (engine);
      onyx_shapes_unref (shapes);
    }
  g_assert_cmpuint (n_compared, ==, G_N_ELEMENTS (names) * G_N_ELEMENTS (scales));
}

/* ---- Subgraphs: names from outside, and the reads of a node's subgraphs ---- */

/* Draws the layout into a PNG: into $ONYX_TEST_SCREENSHOTS to look at, else a
 * scratch file. */
static void
render_png (const OnyxLayout *layout, const char *name)
{
  const char *dir = g_getenv ("ONYX_TEST_SCREENSHOTS");
  g_autofree char *scratch = dir == NULL ? g_dir_make_tmp ("onyx-layout-XXXXXX", NULL) : NULL;
  g_autofree char *path = g_build_filename (dir != NULL ? dir : scratch, name, NULL);
  g_autoptr (GError) error = NULL;

  g_assert_true (onyx_render_to_file (layout, path, 1.5, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  if (scratch != NULL)
    {
      g_unlink (path);
      g_rmdir (scratch);
    }
}

/* An If reads x and the Conv weights only inside its branches: a dashed edge from x's
 * box into it, none from the initializers (they show inside, on Conv), and an edit in
 * a branch that changes what it reads lays the holder's group out again. */
static void
test_implicit_edges_into_holder (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("control_if.onnx");
  Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  OnyxLayoutEngine *engine = onyx_layout_engine_new (graph);
  g_autoptr (OnyxLayout) layout = test_lay_out (engine, ONYX_EXPAND_ALL);
  g_autoptr (OnyxLayout) edited = NULL;
  Onnx__NodeProto *relu = NULL;
  const OnyxLayoutEdge *edge;
  int x, holder, cast, reduce;
  char *saved;

  assert_sane (layout, "control_if.onnx");
  x = test_find_node (layout, ONYX_LAYOUT_INPUT, "x");
  holder = test_find_node (layout, ONYX_LAYOUT_OP, "If");
  cast = test_find_node (layout, ONYX_LAYOUT_OP, "Cast");
  edge = test_find_edge (layout, x, holder);
  g_assert_nonnull (edge);
  g_assert_true (edge->implicit);
  g_assert_cmpstr (edge->tensor, ==, "x");
  g_assert_cmpstr (edge->label, ==, "1×3×8×8");
  g_assert_nonnull (test_find_edge (layout, cast, holder));
  g_assert_false (test_find_edge (layout, cast, holder)->implicit);
  /* Cast's to = 9 reads as the type it names, as the schema says it names one. */
  g_assert_true (test_has_line (&g_array_index (layout->nodes, OnyxLayoutNode, cast), "to = BOOL"));
  /* Only x: initializers have no box, and the If's own lines stay its attributes. */
  for (guint e = 0; e < layout->edges->len; e++)
    {
      const OnyxLayoutEdge *other = &g_array_index (layout->edges, OnyxLayoutEdge, e);
      g_assert_true (other->implicit == (other == edge));
    }
  g_assert_cmpuint (test_count_kind (layout, ONYX_LAYOUT_OUTER), ==, 0);
  g_assert_false (test_has_line (&g_array_index (layout->nodes, OnyxLayoutNode, holder), "W ⟨3×3×3×3⟩"));
  render_png (layout, "subgraph-holder.png");

  /* The then branch's Relu now reads the ReduceSum of the main graph. */
  for (size_t a = 0; a < graph->node[4]->n_attribute; a++)
    if (g_str_equal (graph->node[4]->attribute[a]->name, "then_branch"))
      relu = graph->node[4]->attribute[a]->g->node[1];
  g_assert_cmpstr (relu->op_type, ==, "Relu");
  saved = relu->input[0];
  relu->input[0] = (char *) "/ReduceSum_output_0";
  onyx_layout_engine_graph_changed (engine);
  edited = test_lay_out (engine, ONYX_EXPAND_ALL);
  g_assert_cmpuint (edited->n_dot_runs, >, 0);
  reduce = test_find_node (edited, ONYX_LAYOUT_OP, "ReduceSum");
  holder = test_find_node (edited, ONYX_LAYOUT_OP, "If");
  g_assert_nonnull (test_find_edge (edited, reduce, holder));
  g_assert_true (test_find_edge (edited, reduce, holder)->implicit);
  relu->input[0] = saved;
  onyx_layout_engine_free (engine);
}

/* In a branch, x comes from outside: a box of its own, dashed, with an edge to Conv;
 * the main graph's initializers show on Conv as in the main graph. */
static void
test_outer_boxes_in_branch (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("control_if.onnx");
  Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  const Onnx__GraphProto *enclosing[] = { graph, NULL };
  Onnx__GraphProto *branch = NULL;
  OnyxLayoutEngine *engine;
  g_autoptr (OnyxLayout) layout = NULL;
  const OnyxLayoutNode *conv;
  const OnyxLayoutEdge *edge;
  int x, conv_index;

  for (size_t a = 0; a < graph->node[4]->n_attribute; a++)
    if (g_str_equal (graph->node[4]->attribute[a]->name, "then_branch"))
      branch = graph->node[4]->attribute[a]->g;
  g_assert_nonnull (branch);
  engine = onyx_layout_engine_new_nested (branch, enclosing);
  layout = test_lay_out (engine, ONYX_EXPAND_ALL);
  assert_sane (layout, "/If:then_branch");
  g_assert_cmpuint (test_count_kind (layout, ONYX_LAYOUT_OUTER), ==, 1);
  x = test_find_node (layout, ONYX_LAYOUT_OUTER, "x");
  g_assert_cmpstr (g_array_index (layout->nodes, OnyxLayoutNode, x).subtitle, ==, "from outside");
  g_assert_cmpstr (onyx_layout_engine_outer_name (engine, g_array_index (layout->nodes, OnyxLayoutNode, x).index), ==, "x");
  conv_index = test_find_node (layout, ONYX_LAYOUT_OP, "Conv");
  conv = &g_array_index (layout->nodes, OnyxLayoutNode, conv_index);
  g_assert_true (test_has_line (conv, "W ⟨3×3×3×3⟩"));
  g_assert_true (test_has_line (conv, "B ⟨3⟩"));
  edge = test_find_edge (layout, x, conv_index);
  g_assert_nonnull (edge);
  g_assert_false (edge->implicit);
  g_assert_cmpstr (edge->label, ==, "1×3×8×8");
  /* Its box sits above its reader, as a graph input would. */
  g_assert_cmpfloat (g_array_index (layout->nodes, OnyxLayoutNode, x).box.y, <, conv->box.y);
  render_png (layout, "subgraph-branch.png");
  onyx_layout_engine_free (engine);
}

/* A Loop body's If: its then branch reads x.29, an input of the body, from outside,
 * and the main graph's weights, shown on Gemm; in the body the If gets x.29 dashed. */
static void
test_outer_boxes_nested (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("control_loop.onnx");
  g_autoptr (OnyxGraphList) list = onyx_graph_list_new (onyx_model_get_proto (model));
  g_autoptr (GError) error = NULL;
  const OnyxGraphEntry *entry = onyx_graph_list_find (list, "/If:then_branch", &error);
  OnyxLayoutEngine *engine;
  g_autoptr (OnyxLayout) layout = NULL;
  g_autoptr (OnyxLayout) body = NULL;
  int x, gemm, holder;

  g_assert_no_error (error);
  g_assert_cmpuint (entry->depth, ==, 2);
  engine = onyx_layout_engine_new_for_entry (list, entry);
  layout = test_lay_out (engine, ONYX_EXPAND_ALL);
  assert_sane (layout, "/If:then_branch");
  g_assert_cmpuint (test_count_kind (layout, ONYX_LAYOUT_OUTER), ==, 1);
  x = test_find_node (layout, ONYX_LAYOUT_OUTER, "x.29");
  gemm = test_find_node (layout, ONYX_LAYOUT_OP, "Gemm");
  g_assert_nonnull (test_find_edge (layout, x, gemm));
  g_assert_true (test_has_line (&g_array_index (layout->nodes, OnyxLayoutNode, gemm), "B ⟨8×8⟩"));
  render_png (layout, "subgraph-nested.png");
  onyx_layout_engine_free (engine);

  entry = onyx_graph_list_find (list, "/Loop:body", &error);
  g_assert_no_error (error);
  engine = onyx_layout_engine_new_for_entry (list, entry);
  body = test_lay_out (engine, ONYX_EXPAND_ALL);
  assert_sane (body, "/Loop:body");
  /* x.29 is the body's own input: a plain input box, read by the If implicitly. */
  g_assert_cmpuint (test_count_kind (body, ONYX_LAYOUT_OUTER), ==, 1); /* /Constant_output_0 */
  x = test_find_node (body, ONYX_LAYOUT_INPUT, "x.29");
  holder = test_find_node (body, ONYX_LAYOUT_OP, "If");
  g_assert_nonnull (test_find_edge (body, x, holder));
  g_assert_true (test_find_edge (body, x, holder)->implicit);
  render_png (body, "subgraph-body.png");
  onyx_layout_engine_free (engine);
}

/* ---- Constant nodes folded into their reader ---- */

static gboolean
is_constant (const Onnx__NodeProto *node)
{
  return g_strcmp0 (node->op_type, "Constant") == 0;
}

/* The graph node producing `name`, or -1. */
static int
producer_of (const Onnx__GraphProto *graph, const char *name)
{
  for (size_t n = 0; n < graph->n_node; n++)
    for (size_t k = 0; k < graph->node[n]->n_output; k++)
      if (g_strcmp0 (graph->node[n]->output[k], name) == 0)
        return (int) n;
  return -1;
}

/* flat_constants.onnx keeps its weights in 20 Constants, as paddle2onnx writes: the
 * 19 read once are lines of their readers ("scale ⟨8⟩" on BatchNormalization), each
 * line saying which Constant it stands for; the one both Adds read keeps its box.
 * Folding off, every Constant has a box; on again, the cached layouts come back. */
static void
test_folded_constants (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("flat_constants.onnx");
  Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  OnyxLayoutEngine *engine = onyx_layout_engine_new (graph);
  g_autoptr (OnyxLayout) folded = NULL, boxes = NULL, again = NULL;
  g_autoptr (GHashTable) lines_of = g_hash_table_new (NULL, NULL);
  const char *const slots[] = { "scale", "B", "input_mean", "input_var" };
  guint n_constants = 0, n_bn = 0;
  int shared;

  for (size_t n = 0; n < graph->n_node; n++)
    n_constants += is_constant (graph->node[n]);
  g_assert_cmpuint (n_constants, ==, 20);
  g_assert_true (onyx_layout_engine_get_fold_constants (engine));
  folded = test_lay_out (engine, ONYX_EXPAND_ALL);
  assert_sane (folded, "flat_constants.onnx folded");
  render_png (folded, "flat-constants-folded.png");

  g_assert_cmpuint (test_count_kind (folded, ONYX_LAYOUT_OP), ==, graph->n_node - 19);
  shared = test_find_node (folded, ONYX_LAYOUT_OP, "Constant");
  g_assert_cmpstr (graph->node[g_array_index (folded->nodes, OnyxLayoutNode, shared).index]->output[0], ==,
                   graph->node[producer_of (graph, "p2o.Add.0.out")]->input[1]);
  for (guint i = 0, n_from_shared = 0; i < folded->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (folded->nodes, OnyxLayoutNode, i);
      g_assert_cmpuint (node->line_nodes->len, ==, node->lines->len);
      if (node->kind != ONYX_LAYOUT_OP)
        continue;
      g_assert_true (i == (guint) shared || !is_constant (graph->node[node->index]));
      for (guint l = 0; l < node->line_nodes->len; l++)
        {
          int constant = g_array_index (node->line_nodes, int, l);
          if (constant < 0)
            continue;
          /* The line stands for the Constant that feeds this node. */
          g_assert_true (is_constant (graph->node[constant]));
          g_assert_cmpint (onyx_layout_engine_folded_into (engine, constant), ==, node->index);
          g_assert_cmpstr (onyx_layout_engine_node_scope (engine, constant), ==,
                           onyx_layout_engine_node_scope (engine, node->index));
          g_assert_false (g_hash_table_contains (lines_of, GINT_TO_POINTER (constant)));
          g_hash_table_insert (lines_of, GINT_TO_POINTER (constant), GINT_TO_POINTER (i));
        }
      if (g_strcmp0 (node->title, "BatchNormalization") == 0)
        {
          const Onnx__NodeProto *bn = graph->node[node->index];
          guint width = n_bn++ == 0 ? 8 : 16;
          /* Its attribute first: the four folded lines do not push it out. */
          g_assert_cmpuint (node->lines->len, ==, 5);
          g_assert_true (g_str_has_prefix (node->lines->pdata[0], "epsilon = "));
          g_assert_cmpint (g_array_index (node->line_nodes, int, 0), ==, -1);
          for (guint l = 0; l < 4; l++)
            {
              g_autofree char *expected = g_strdup_printf ("%s ⟨%u⟩", slots[l], width);
              g_assert_cmpstr (node->lines->pdata[l + 1], ==, expected);
              g_assert_cmpint (g_array_index (node->line_nodes, int, l + 1), ==, producer_of (graph, bn->input[l + 1]));
            }
          /* A click on the third line's row hits that line; on the title, none. */
          g_assert_cmpint (onyx_render_line_hit_test (folded, i, node->box.x + 10, node->box.y + 25 + 2 * 15 + 7), ==, 2);
          g_assert_cmpint (onyx_render_line_hit_test (folded, i, node->box.x + 10, node->box.y + 5), ==, -1);
        }
      if (g_strcmp0 (node->title, "Conv") == 0 && g_strcmp0 (graph->node[node->index]->name, "p2o.Conv.1") == 0)
        {
          g_assert_cmpstr (node->lines->pdata[0], ==, "strides = [2, 2]");
          g_assert_cmpstr (node->lines->pdata[1], ==, "pads = [1, 1, 1, 1]");
          g_assert_cmpstr (node->lines->pdata[2], ==, "W ⟨16×8×3×3⟩");
          g_assert_cmpstr (node->lines->pdata[3], ==, "B ⟨16⟩");
        }
      if (g_strcmp0 (node->title, "MatMul") == 0)
        g_assert_true (test_has_line (node, "B ⟨16×10⟩"));
      if (test_find_edge (folded, shared, (int) i) != NULL)
        n_from_shared++;
      if (g_strcmp0 (node->title, "Softmax") == 0)
        g_assert_cmpuint (n_from_shared, ==, 2);
    }
  g_assert_cmpuint (n_bn, ==, 3);
  g_assert_cmpuint (g_hash_table_size (lines_of), ==, 19);
  /* No edge from a folded Constant: its output is not drawn. */
  for (guint e = 0; e < folded->edges->len; e++)
    {
      int from = producer_of (graph, g_array_index (folded->edges, OnyxLayoutEdge, e).tensor);
      g_assert_false (from >= 0 && g_hash_table_contains (lines_of, GINT_TO_POINTER (from)));
    }

  onyx_layout_engine_set_fold_constants (engine, FALSE);
  boxes = test_lay_out (engine, ONYX_EXPAND_ALL);
  assert_sane (boxes, "flat_constants.onnx unfolded");
  render_png (boxes, "flat-constants-boxes.png");
  g_assert_cmpuint (test_count_kind (boxes, ONYX_LAYOUT_OP), ==, graph->n_node);
  for (guint i = 0; i < boxes->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (boxes->nodes, OnyxLayoutNode, i);
      for (guint l = 0; l < node->line_nodes->len; l++)
        g_assert_cmpint (g_array_index (node->line_nodes, int, l), ==, -1);
    }
  for (size_t n = 0; n < graph->n_node; n++)
    g_assert_cmpint (onyx_layout_engine_folded_into (engine, n), ==, -1);

  onyx_layout_engine_set_fold_constants (engine, TRUE);
  again = test_lay_out (engine, ONYX_EXPAND_ALL);
  g_assert_cmpuint (again->n_dot_runs, ==, 0);
  g_assert_cmpuint (again->nodes->len, ==, folded->nodes->len);
  onyx_layout_engine_free (engine);
}

static const OnyxLayoutNode *
node_titled (const OnyxLayout *layout, OnyxLayoutKind kind, const char *title)
{
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      if (node->kind == kind && g_str_equal (node->title, title))
        return node;
    }
  return NULL;
}

/* A decoder's KV cache is drawn beside its layers: each past_key_values.N input and
 * present.N output in the group of layer N that reads or makes it, so that the
 * top and bottom rows keep only the model's own inputs and outputs; input_ids, on
 * its own, stays at the top. */
static void
test_kv_cache_beside_layers (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("llm_tiny.onnx");
  OnyxLayoutEngine *engine = onyx_layout_engine_new (onyx_model_get_proto (model)->graph);
  g_autoptr (OnyxLayout) collapsed = test_lay_out (engine, ONYX_EXPAND_NONE);
  g_autoptr (OnyxLayout) open = test_lay_out (engine, ONYX_EXPAND_ALL);
  const char *values[][2] = { { "past_key_values.0.key", "layers.0" }, { "past_key_values.1.value", "layers.1" },
                              { "present.0.value", "layers.0" }, { "present.1.key", "layers.1" } };
  const OnyxLayoutNode *ids;

  g_assert_cmpuint (test_count_kind (collapsed, ONYX_LAYOUT_INPUT), ==, 2);
  g_assert_cmpuint (test_count_kind (collapsed, ONYX_LAYOUT_OUTPUT), ==, 1);
  g_assert_cmpuint (test_count_kind (open, ONYX_LAYOUT_INPUT), ==, 6);
  g_assert_cmpuint (test_count_kind (open, ONYX_LAYOUT_OUTPUT), ==, 5);
  for (guint v = 0; v < G_N_ELEMENTS (values); v++)
    {
      gboolean input = g_str_has_prefix (values[v][0], "past");
      const OnyxLayoutNode *node = node_titled (open, input ? ONYX_LAYOUT_INPUT : ONYX_LAYOUT_OUTPUT, values[v][0]);
      const OnyxLayoutNode *group;
      g_assert_nonnull (node);
      g_assert_cmpint (node->parent, >=, 0);
      group = &g_array_index (open->nodes, OnyxLayoutNode, node->parent);
      g_test_message ("%s in %s", values[v][0], group->scope);
      g_assert_nonnull (strstr (group->scope, values[v][1]));
      g_assert_cmpfloat (node->box.x, >=, group->box.x);
      g_assert_cmpfloat (node->box.x + node->box.width, <=, group->box.x + group->box.width);
    }
  ids = node_titled (open, ONYX_LAYOUT_INPUT, "input_ids");
  g_assert_nonnull (ids);
  g_assert_true (ids->parent < 0 ||
                 strstr (g_array_index (open->nodes, OnyxLayoutNode, ids->parent).scope, "layers") == NULL);
  onyx_layout_engine_free (engine);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* These count dot runs of fresh engines: test-layout-cache covers the disk cache. */
  onyx_layout_disk_cache_set_default (NULL);
  g_test_add_func ("/layout/walkthrough", test_walkthrough);
  g_test_add_func ("/layout/testdata-sample", test_testdata_sample);
  g_test_add_func ("/layout/groups-cache-hits", test_groups_cache_and_hits);
  g_test_add_func ("/layout/initializer-lines", test_initializer_lines_named_by_slot);
  g_test_add_func ("/layout/edges-reach-inner-nodes", test_edges_reach_inner_nodes);
  g_test_add_func ("/layout/flat-blocks", test_flat_blocks);
  g_test_add_func ("/layout/header-only-boxes", test_header_only_boxes);
  g_test_add_func ("/layout/box-widths-as-measured", test_box_widths_as_measured);
  g_test_add_func ("/layout/no-text-cut-at-other-scales", test_no_text_cut_at_other_scales);
  g_test_add_func ("/layout/folded-constants", test_folded_constants);
  g_test_add_func ("/layout/progress-render-index", test_progress_and_render_index);
  g_test_add_func ("/layout/subgraph/implicit-edges", test_implicit_edges_into_holder);
  g_test_add_func ("/layout/subgraph/outer-boxes", test_outer_boxes_in_branch);
  g_test_add_func ("/layout/subgraph/nested", test_outer_boxes_nested);
  g_test_add_func ("/layout/kv-cache-beside-layers", test_kv_cache_beside_layers);
  return g_test_run ();
}
