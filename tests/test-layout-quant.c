/* Quantized graphs drawn as their float twins (onyx_layout_engine_set_fold_quant), on
 * small hand-made graphs: weights behind a DequantizeLinear as lines of their reader,
 * QuantizeLinear → DequantizeLinear pairs and DynamicQuantizeLinear as marks on edges
 * (each line and mark saying which nodes it stands for, a click on it finding them),
 * a dynamic quantization chain as one box; what may not fold keeps its box; off,
 * every node has one; the two drawings cached apart; alike quantized layers stack. */
#include <math.h>

#include "onyx-layout-test-util.h"
#include "onyx-layout.h"
#include "onyx-render.h"
#include "onyx-test-util.h"

/* A tensor of `type` (float, int8, uint8, int32, int64) holding `values`. */
static Onnx__TensorProto *
tensor_of (const char *name, int32_t type, int n_dims, const int64_t *dims, const double *values)
{
  Onnx__TensorProto *tensor = g_new0 (Onnx__TensorProto, 1);
  guint64 n = 1;
  gsize size = type == ONNX__TENSOR_PROTO__DATA_TYPE__INT8 || type == ONNX__TENSOR_PROTO__DATA_TYPE__UINT8 ? 1
               : type == ONNX__TENSOR_PROTO__DATA_TYPE__INT64                                               ? 8
                                                                                                          : 4;

  onnx__tensor_proto__init (tensor);
  tensor->name = g_strdup (name);
  tensor->has_data_type = TRUE;
  tensor->data_type = type;
  tensor->n_dims = (size_t) n_dims;
  tensor->dims = g_new0 (int64_t, MAX (n_dims, 1));
  for (int i = 0; i < n_dims; i++)
    n *= (guint64) (tensor->dims[i] = dims[i]);
  tensor->has_raw_data = TRUE;
  tensor->raw_data.len = n * size;
  tensor->raw_data.data = g_malloc0 (MAX (tensor->raw_data.len, 1));
  for (guint64 i = 0; i < n; i++)
    {
      double v = values != NULL ? values[i] : (double) i;
      switch (type)
        {
        case ONNX__TENSOR_PROTO__DATA_TYPE__INT8: ((gint8 *) tensor->raw_data.data)[i] = (gint8) v; break;
        case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8: ((guint8 *) tensor->raw_data.data)[i] = (guint8) v; break;
        case ONNX__TENSOR_PROTO__DATA_TYPE__INT32: ((gint32 *) tensor->raw_data.data)[i] = (gint32) v; break;
        case ONNX__TENSOR_PROTO__DATA_TYPE__INT64: ((gint64 *) tensor->raw_data.data)[i] = (gint64) v; break;
        default: ((float *) tensor->raw_data.data)[i] = (float) v; break;
        }
    }
  return tensor;
}

/* A scalar: a scale (float) or a zero point. */
static Onnx__TensorProto *
scalar_of (const char *name, int32_t type, double value)
{
  return tensor_of (name, type, 0, NULL, &value);
}

static void
add_int_attribute (Onnx__NodeProto *node, const char *name, int64_t value)
{
  Onnx__AttributeProto *attribute = g_new0 (Onnx__AttributeProto, 1);

  onnx__attribute_proto__init (attribute);
  attribute->name = g_strdup (name);
  attribute->has_type = TRUE;
  attribute->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
  attribute->has_i = TRUE;
  attribute->i = value;
  TEST_APPEND (node->attribute, node->n_attribute, attribute);
}

typedef struct {
  Onnx__ModelProto *model;
  Onnx__GraphProto *graph;
} Build;

static Onnx__NodeProto *
add (Build *build, Onnx__NodeProto *node)
{
  TEST_APPEND (build->graph->node, build->graph->n_node, node);
  return node;
}

static void
add_tensor (Build *build, Onnx__TensorProto *tensor)
{
  TEST_APPEND (build->graph->initializer, build->graph->n_initializer, tensor);
}

static Build
build_new (const char *input, const char *output)
{
  Build build = { test_model_new () };
  const int64_t dims[] = { 1, 3, 8, 8 };

  build.graph = build.model->graph;
  TEST_APPEND (build.graph->input, build.graph->n_input, test_value_info (input, 4, dims));
  TEST_APPEND (build.graph->output, build.graph->n_output, test_value_info (output, 4, dims));
  return build;
}

/* x → QuantizeLinear → DequantizeLinear → x_dq, scale and uint8 zero point named
 * after x; in `scope` ("" for none). */
static void
add_pair (Build *build, const char *scope, const char *x, double scale, double zero)
{
  g_autofree char *s = g_strconcat (x, "_scale", NULL), *z = g_strconcat (x, "_zero_point", NULL);
  g_autofree char *q = g_strconcat (x, "_q", NULL), *dq = g_strconcat (x, "_dq", NULL);
  g_autofree char *q_name = g_strdup_printf ("%s/%s_QuantizeLinear", scope, x);
  g_autofree char *dq_name = g_strdup_printf ("%s/%s_DequantizeLinear", scope, x);

  add_tensor (build, scalar_of (s, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, scale));
  add_tensor (build, scalar_of (z, ONNX__TENSOR_PROTO__DATA_TYPE__UINT8, zero));
  add (build, test_node ("QuantizeLinear", q_name, x, s, z, NULL, q, NULL));
  add (build, test_node ("DequantizeLinear", dq_name, q, s, z, NULL, dq, NULL));
}

/* An int8 weight [4, 3, 3, 3] with a scale per output channel behind a
 * DequantizeLinear on axis 0, and an int32 bias [4] likewise: "<name>_w_dq", "<name>_b_dq". */
static void
add_conv_weights (Build *build, const char *name, double scale)
{
  const int64_t w_dims[] = { 4, 3, 3, 3 }, c_dims[] = { 4 };
  const double scales[] = { scale, scale * 2, scale * 3, scale * 4 };
  g_autofree char *w = g_strconcat (name, "_w", NULL), *ws = g_strconcat (name, "_w_scale", NULL);
  g_autofree char *wz = g_strconcat (name, "_w_zero_point", NULL), *wdq = g_strconcat (name, "_w_dq", NULL);
  g_autofree char *b = g_strconcat (name, "_b", NULL), *bs = g_strconcat (name, "_b_scale", NULL);
  g_autofree char *bdq = g_strconcat (name, "_b_dq", NULL);
  Onnx__NodeProto *node;

  add_tensor (build, tensor_of (w, ONNX__TENSOR_PROTO__DATA_TYPE__INT8, 4, w_dims, NULL));
  add_tensor (build, tensor_of (ws, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1, c_dims, scales));
  add_tensor (build, tensor_of (wz, ONNX__TENSOR_PROTO__DATA_TYPE__INT8, 1, c_dims, NULL));
  add_tensor (build, tensor_of (b, ONNX__TENSOR_PROTO__DATA_TYPE__INT32, 1, c_dims, NULL));
  add_tensor (build, tensor_of (bs, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1, c_dims, scales));
  node = add (build, test_node ("DequantizeLinear", wdq, w, ws, wz, NULL, wdq, NULL));
  add_int_attribute (node, "axis", 0);
  node = add (build, test_node ("DequantizeLinear", bdq, b, bs, NULL, bdq, NULL));
  add_int_attribute (node, "axis", 0);
}

static int
node_index (const Onnx__GraphProto *graph, const char *name)
{
  for (size_t n = 0; n < graph->n_node; n++)
    if (g_strcmp0 (graph->node[n]->name, name) == 0)
      return (int) n;
  g_error ("no node %s", name);
  return -1;
}

static OnyxModel *
load (Build *build)
{
  g_autoptr (GError) error = NULL;
  OnyxModel *model = test_model_load (build->model, &error);

  g_assert_no_error (error);
  return model;
}

/* The box of graph node `name`. */
static const OnyxLayoutNode *
box_of (const OnyxLayout *layout, const Onnx__GraphProto *graph, const char *name)
{
  int index = node_index (graph, name);

  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      if (node->kind == ONYX_LAYOUT_OP && node->index == index)
        return node;
    }
  return NULL;
}

static int
position_of (const OnyxLayout *layout, const OnyxLayoutNode *node)
{
  return (int) (node - &g_array_index (layout->nodes, OnyxLayoutNode, 0));
}

/* x → pair → Conv (weights and bias per channel) → pair → Relu → pair → out. */
static OnyxModel *
qdq_conv_model (void)
{
  Build build = build_new ("x", "out");
  Onnx__NodeProto *conv;

  add_pair (&build, "", "x", 0.0235, 128);
  add_conv_weights (&build, "conv", 0.01);
  conv = add (&build, test_node ("Conv", "/block/conv/Conv", "x_dq", "conv_w_dq", "conv_b_dq", NULL, "y", NULL));
  add_int_attribute (conv, "group", 1);
  add_pair (&build, "/block/conv", "y", 0.05, 120);
  add (&build, test_node ("Relu", "/block/relu/Relu", "y_dq", NULL, "r", NULL));
  add_pair (&build, "/block/relu", "r", 0.04, 0);
  build.graph->output[0]->name = (g_free (build.graph->output[0]->name), g_strdup ("r_dq"));
  return load (&build);
}

static void
test_qdq_folds (void)
{
  g_autoptr (OnyxModel) model = qdq_conv_model ();
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  OnyxLayoutEngine *engine = onyx_layout_engine_new (graph);
  g_autoptr (OnyxLayout) layout = test_lay_out (engine, ONYX_EXPAND_ALL);
  g_autoptr (OnyxRenderIndex) index = onyx_render_index_new (layout);
  const OnyxLayoutNode *conv = box_of (layout, graph, "/block/conv/Conv"), *relu = box_of (layout, graph, "/block/relu/Relu");
  int input = test_find_node (layout, ONYX_LAYOUT_INPUT, "x"), output = test_find_node (layout, ONYX_LAYOUT_OUTPUT, "r_dq");
  int w_line, b_line, conv_at, relu_at;
  const OnyxLayoutEdge *in, *between, *out;
  g_autofree int *boxes = onyx_layout_boxes_of_nodes (layout, engine);

  g_assert_true (onyx_layout_engine_get_fold_quant (engine));
  /* Two ops of nine nodes have boxes. */
  g_assert_cmpuint (test_count_kind (layout, ONYX_LAYOUT_OP), ==, 2);
  g_assert_nonnull (conv);
  g_assert_nonnull (relu);
  conv_at = position_of (layout, conv), relu_at = position_of (layout, relu);
  g_assert_cmpstr (conv->title, ==, "Conv · uint8/int8 → uint8");
  g_assert_cmpstr (relu->title, ==, "Relu · uint8 → uint8");
  /* The weight and bias: lines by slot, each standing for its DequantizeLinear. */
  w_line = test_line_of (conv, "W int8 ⟨4×3×3×3⟩ per-channel ×4");
  b_line = test_line_of (conv, "B int32 ⟨4⟩ per-channel ×4");
  g_assert_cmpint (w_line, ==, 1);
  g_assert_cmpint (b_line, ==, 2);
  g_assert_cmpint (g_array_index (conv->line_nodes, int, w_line), ==, node_index (graph, "conv_w_dq"));
  g_assert_cmpint (g_array_index (conv->line_nodes, int, b_line), ==, node_index (graph, "conv_b_dq"));
  g_assert_cmpint (onyx_render_line_hit_test (layout, conv_at, conv->box.x + 10,
                                              conv->box.y + 25 + w_line * 15 + 7), ==, w_line);
  g_assert_cmpint (onyx_layout_engine_folded_into (engine, node_index (graph, "conv_w_dq")), ==, conv->index);

  /* The pairs: marks on the edges, standing for their two nodes. */
  in = test_find_edge (layout, input, conv_at);
  between = test_find_edge (layout, conv_at, relu_at);
  out = test_find_edge (layout, relu_at, output);
  g_assert_nonnull (in);
  g_assert_nonnull (between);
  g_assert_nonnull (out);
  g_assert_cmpstr (in->tensor, ==, "x_dq");
  g_assert_cmpstr (in->mark, ==, "uint8 s=0.0235 zp=128");
  g_assert_cmpstr (between->mark, ==, "uint8 s=0.05 zp=120");
  g_assert_cmpstr (out->mark, ==, "uint8 s=0.04 zp=0");
  g_assert_cmpstr (in->label, ==, "1×3×8×8");
  g_assert_cmpuint (between->mark_nodes->len, ==, 2);
  g_assert_cmpint (g_array_index (between->mark_nodes, int, 0), ==, node_index (graph, "/block/conv/y_QuantizeLinear"));
  g_assert_cmpint (g_array_index (between->mark_nodes, int, 1), ==, node_index (graph, "/block/conv/y_DequantizeLinear"));
  /* Under the shape, in its label's box. */
  g_assert_cmpfloat (in->mark_box.y, >=, in->label_box.y + 12);
  g_assert_cmpfloat (in->mark_box.y + in->mark_box.height, <=, in->label_box.y + in->label_box.height + 0.01);
  g_assert_cmpfloat (in->mark_box.x + in->mark_box.width, <=, in->label_box.x + in->label_box.width + 0.01);
  /* A click on the mark finds its edge; on the shape above it, none. */
  g_assert_cmpint (onyx_render_mark_hit_test (layout, index, between->mark_box.x + 5, between->mark_box.y + 5), ==,
                   between - &g_array_index (layout->edges, OnyxLayoutEdge, 0));
  g_assert_cmpint (onyx_render_mark_hit_test (layout, index, in->label_box.x + 5, in->label_box.y + 3), ==, -1);
  /* Without a shape (none is known here), the mark is the label. */
  g_assert_null (between->label);
  g_assert_cmpfloat (between->mark_box.y, ==, between->label_box.y);
  g_assert_cmpint (onyx_layout_mark_edge_of_node (layout, node_index (graph, "/block/conv/y_DequantizeLinear")), ==,
                   between - &g_array_index (layout->edges, OnyxLayoutEdge, 0));
  g_assert_cmpint (onyx_layout_mark_edge_of_node (layout, conv->index), ==, -1);
  /* A mark's nodes are in the box of what made the tensor (of the graph input's reader). */
  g_assert_cmpint (onyx_layout_engine_folded_into (engine, node_index (graph, "/block/conv/y_QuantizeLinear")), ==,
                   conv->index);
  g_assert_cmpint (onyx_layout_engine_folded_into (engine, node_index (graph, "/x_QuantizeLinear")), ==, conv->index);
  g_assert_cmpint (boxes[node_index (graph, "/block/relu/r_DequantizeLinear")], ==, relu_at);
  g_assert_cmpstr (onyx_layout_engine_node_scope (engine, node_index (graph, "/block/relu/r_QuantizeLinear")), ==,
                   "block/relu");
  onyx_layout_engine_free (engine);
}

/* Off, every node has its box and no edge a mark; on again, the layouts are cached. */
static void
test_fold_off_and_cached (void)
{
  g_autoptr (OnyxModel) model = qdq_conv_model ();
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  OnyxLayoutEngine *engine = onyx_layout_engine_new (graph);
  g_autoptr (OnyxLayout) folded = test_lay_out (engine, ONYX_EXPAND_ALL), boxes = NULL, again = NULL;

  onyx_layout_engine_set_fold_quant (engine, FALSE);
  g_assert_false (onyx_layout_engine_get_fold_quant (engine));
  boxes = test_lay_out (engine, ONYX_EXPAND_ALL);
  g_assert_cmpuint (boxes->n_dot_runs, >, 0);
  g_assert_cmpuint (test_count_kind (boxes, ONYX_LAYOUT_OP), ==, graph->n_node);
  for (guint e = 0; e < boxes->edges->len; e++)
    {
      g_assert_null (g_array_index (boxes->edges, OnyxLayoutEdge, e).mark);
      g_assert_null (g_array_index (boxes->edges, OnyxLayoutEdge, e).mark_nodes);
    }
  for (size_t n = 0; n < graph->n_node; n++)
    g_assert_cmpint (onyx_layout_engine_folded_into (engine, n), ==, -1);
  /* As before folding was: a line per initializer. */
  g_assert_true (test_has_line (box_of (boxes, graph, "conv_w_dq"), "x ⟨4×3×3×3⟩"));
  g_assert_true (test_has_line (box_of (boxes, graph, "conv_w_dq"), "x_scale ⟨4⟩"));
  g_assert_cmpstr (box_of (boxes, graph, "/block/conv/Conv")->title, ==, "Conv");

  onyx_layout_engine_set_fold_quant (engine, TRUE);
  again = test_lay_out (engine, ONYX_EXPAND_ALL);
  g_assert_cmpuint (again->n_dot_runs, ==, 0);
  g_assert_cmpuint (again->nodes->len, ==, folded->nodes->len);
  g_assert_cmpuint (again->edges->len, ==, folded->edges->len);
  onyx_layout_engine_free (engine);
}

/* What may not fold keeps its box: a QuantizeLinear read by two DequantizeLinears, a
 * weight's DequantizeLinear read by two nodes (its box listing what it dequantizes). */
static void
test_unfoldable_keep_boxes (void)
{
  Build build = build_new ("x", "out");
  const int64_t dims[] = { 8, 8 };
  g_autoptr (OnyxModel) model = NULL;
  const Onnx__GraphProto *graph;
  OnyxLayoutEngine *engine;
  g_autoptr (OnyxLayout) layout = NULL;
  const OnyxLayoutNode *shared;

  add_pair (&build, "", "x", 0.5, 128);
  add (&build, test_node ("DequantizeLinear", "x_dq2", "x_q", "x_scale", "x_zero_point", NULL, "x_dq2", NULL));
  add_tensor (&build, tensor_of ("w", ONNX__TENSOR_PROTO__DATA_TYPE__INT8, 2, dims, NULL));
  add_tensor (&build, scalar_of ("w_scale", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 0.5));
  add (&build, test_node ("DequantizeLinear", "w_dq", "w", "w_scale", NULL, "w_dq", NULL));
  add (&build, test_node ("MatMul", "m1", "x_dq", "w_dq", NULL, "a", NULL));
  add (&build, test_node ("MatMul", "m2", "x_dq2", "w_dq", NULL, "b", NULL));
  add (&build, test_node ("Add", "add", "a", "b", NULL, "out", NULL));
  model = load (&build);
  graph = onyx_model_get_proto (model)->graph;
  engine = onyx_layout_engine_new (graph);
  layout = test_lay_out (engine, ONYX_EXPAND_ALL);
  g_assert_cmpuint (test_count_kind (layout, ONYX_LAYOUT_OP), ==, graph->n_node);
  shared = box_of (layout, graph, "w_dq");
  g_assert_nonnull (shared);
  g_assert_true (test_has_line (shared, "x int8 ⟨8×8⟩ s=0.5"));
  g_assert_cmpstr (box_of (layout, graph, "m1")->title, ==, "MatMul");
  onyx_layout_engine_free (engine);
}

/* ONNX Runtime's dynamic quantization of a Conv with a bias: one box, its weight's
 * quantization and its bias as lines standing for the Mul of the scales and the Add;
 * the DynamicQuantizeLinear a mark on the edge into it. */
static void
test_dynamic_chain (void)
{
  Build build = build_new ("x", "y");
  const int64_t w_dims[] = { 4, 3, 3, 3 }, b_dims[] = { 4 }, shape_dims[] = { 4 };
  const double shape[] = { 1, -1, 1, 1 };
  g_autoptr (OnyxModel) model = NULL;
  const Onnx__GraphProto *graph;
  OnyxLayoutEngine *engine;
  g_autoptr (OnyxLayout) layout = NULL;
  const OnyxLayoutNode *box;
  const OnyxLayoutEdge *in, *out;
  const char *const chain[] = { "/conv/Conv_quant_cast", "/conv/Conv_quant_scales_mul",
                                "/conv/Conv_quant_output_scale_mul", "bias_reshape", "y_bias_add" };
  Onnx__NodeProto *cast;
  int w_line, b_line;

  add_tensor (&build, tensor_of ("w_quantized", ONNX__TENSOR_PROTO__DATA_TYPE__INT8, 4, w_dims, NULL));
  add_tensor (&build, scalar_of ("w_scale", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 0.125));
  add_tensor (&build, scalar_of ("w_zero_point", ONNX__TENSOR_PROTO__DATA_TYPE__INT8, 0));
  add_tensor (&build, tensor_of ("b", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1, b_dims, NULL));
  add_tensor (&build, tensor_of ("shape", ONNX__TENSOR_PROTO__DATA_TYPE__INT64, 1, shape_dims, shape));
  add (&build, test_node ("DynamicQuantizeLinear", "x_QuantizeLinear", "x", NULL, "x_quantized", "x_scale",
                          "x_zero_point", NULL));
  add (&build, test_node ("ConvInteger", "/conv/Conv_quant", "x_quantized", "w_quantized", "x_zero_point",
                          "w_zero_point", NULL, "c", NULL));
  cast = add (&build, test_node ("Cast", chain[0], "c", NULL, "c_float", NULL));
  add_int_attribute (cast, "to", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
  add (&build, test_node ("Mul", chain[1], "x_scale", "w_scale", NULL, "scales", NULL));
  add (&build, test_node ("Mul", chain[2], "c_float", "scales", NULL, "scaled", NULL));
  add (&build, test_node ("Reshape", chain[3], "b", "shape", NULL, "b_reshaped", NULL));
  add (&build, test_node ("Add", chain[4], "scaled", "b_reshaped", NULL, "y", NULL));
  model = load (&build);
  graph = onyx_model_get_proto (model)->graph;
  engine = onyx_layout_engine_new (graph);
  layout = test_lay_out (engine, ONYX_EXPAND_ALL);

  g_assert_cmpuint (test_count_kind (layout, ONYX_LAYOUT_OP), ==, 1);
  box = box_of (layout, graph, "/conv/Conv_quant");
  g_assert_nonnull (box);
  g_assert_cmpstr (box->title, ==, "Conv (dynamic int8)");
  w_line = test_line_of (box, "W int8 ⟨4×3×3×3⟩ s=0.125 zp=0");
  b_line = test_line_of (box, "B ⟨4⟩");
  g_assert_cmpint (w_line, >=, 0);
  g_assert_cmpint (b_line, ==, w_line + 1);
  g_assert_cmpint (g_array_index (box->line_nodes, int, w_line), ==, node_index (graph, chain[1]));
  g_assert_cmpint (g_array_index (box->line_nodes, int, b_line), ==, node_index (graph, chain[4]));
  for (guint c = 0; c < G_N_ELEMENTS (chain); c++)
    g_assert_cmpint (onyx_layout_engine_folded_into (engine, node_index (graph, chain[c])), ==, box->index);
  in = test_find_edge (layout, test_find_node (layout, ONYX_LAYOUT_INPUT, "x"), position_of (layout, box));
  out = test_find_edge (layout, position_of (layout, box), test_find_node (layout, ONYX_LAYOUT_OUTPUT, "y"));
  g_assert_nonnull (in);
  g_assert_nonnull (out);
  g_assert_cmpstr (in->tensor, ==, "x_quantized");
  g_assert_cmpstr (in->mark, ==, "uint8 dynamic");
  g_assert_cmpuint (in->mark_nodes->len, ==, 1);
  g_assert_cmpint (g_array_index (in->mark_nodes, int, 0), ==, node_index (graph, "x_QuantizeLinear"));
  g_assert_cmpint (onyx_layout_engine_folded_into (engine, node_index (graph, "x_QuantizeLinear")), ==, box->index);
  g_assert_cmpstr (out->tensor, ==, "y");
  g_assert_null (out->mark);
  /* No other edge: the scale and zero point it also makes are inside. */
  g_assert_cmpuint (layout->edges->len, ==, 2);
  onyx_layout_engine_free (engine);
}

/* Three alike quantized layers, each with its own scales, are one stack. */
static void
test_quantized_layers_stack (void)
{
  Build build = build_new ("h0", "h3");
  g_autoptr (OnyxModel) model = NULL;
  OnyxLayoutEngine *engine;
  g_autoptr (OnyxLayout) layout = NULL;

  for (guint n = 0; n < 3; n++)
    {
      g_autofree char *scope = g_strdup_printf ("/layers.%u/conv", n), *conv = g_strdup_printf ("%s/Conv", scope);
      g_autofree char *weights = g_strdup_printf ("layers.%u", n), *in = g_strdup_printf ("h%u", n);
      g_autofree char *in_dq = g_strdup_printf ("h%u_dq", n), *out = g_strdup_printf ("h%u", n + 1);
      g_autofree char *w = g_strdup_printf ("layers.%u_w_dq", n), *b = g_strdup_printf ("layers.%u_b_dq", n);
      g_autofree char *c = g_strdup_printf ("c%u", n), *c_dq = g_strdup_printf ("c%u_dq", n);
      g_autofree char *relu = g_strdup_printf ("/layers.%u/relu/Relu", n);
      add_pair (&build, scope, in, 0.01 * (n + 1), 100 + n);
      add_conv_weights (&build, weights, 0.001 * (n + 1));
      add (&build, test_node ("Conv", conv, in_dq, w, b, NULL, c, NULL));
      add_pair (&build, scope, c, 0.02 * (n + 1), 110 + n);
      add (&build, test_node ("Relu", relu, c_dq, NULL, out, NULL));
    }
  model = load (&build);
  engine = onyx_layout_engine_new (onyx_model_get_proto (model)->graph);
  layout = test_lay_out (engine, ONYX_EXPAND_AUTO);
  g_assert_cmpuint (onyx_layout_engine_stack_size (engine, "layers.0–2"), ==, 3);
  g_assert_cmpstr (g_array_index (layout->nodes, OnyxLayoutNode, test_find_node (layout, ONYX_LAYOUT_GROUP, "layers.0–2")).subtitle,
                   ==, "3 × 2 nodes");
  onyx_layout_engine_free (engine);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* These count dot runs of fresh engines. */
  onyx_layout_disk_cache_set_default (NULL);
  g_test_add_func ("/layout/quant/qdq-folds", test_qdq_folds);
  g_test_add_func ("/layout/quant/fold-off-and-cached", test_fold_off_and_cached);
  g_test_add_func ("/layout/quant/unfoldable-keep-boxes", test_unfoldable_keep_boxes);
  g_test_add_func ("/layout/quant/dynamic-chain", test_dynamic_chain);
  g_test_add_func ("/layout/quant/quantized-layers-stack", test_quantized_layers_stack);
  return g_test_run ();
}
