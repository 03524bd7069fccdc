/* make-external-model.c: writes a model whose weights live in a file beside it, a few
 * GB of them, for bench-stalls (issue 26: open, edit, save and compare such a model
 * without the window stalling):
 *
 *   _build/bench/make-external-model OUT_DIR [LAYERS [HIDDEN]]
 *
 * writes OUT_DIR/external.onnx and OUT_DIR/external.weights: LAYERS blocks of
 * MatMul (HIDDEN×HIDDEN float weights, external), Add (bias, inline) and Relu; by
 * default 48 blocks of 4096, 3.2 GB. The weights are a cheap pseudo-random pattern,
 * written once. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "onyx-proto.h"

static char *
name_of (const char *what, int layer)
{
  return g_strdup_printf ("%s.%d", what, layer);
}

static Onnx__NodeProto *
node_new (const char *op_type, char *name, char *in0, char *in1, char *out)
{
  Onnx__NodeProto *node = g_new0 (Onnx__NodeProto, 1);

  onnx__node_proto__init (node);
  node->op_type = g_strdup (op_type);
  node->domain = g_strdup ("");
  node->name = name;
  node->n_input = in1 != NULL ? 2 : 1;
  node->input = g_new0 (char *, 2);
  node->input[0] = in0;
  node->input[1] = in1;
  node->n_output = 1;
  node->output = g_new0 (char *, 1);
  node->output[0] = out;
  return node;
}

static Onnx__StringStringEntryProto *
entry_new (const char *key, char *value)
{
  Onnx__StringStringEntryProto *entry = g_new0 (Onnx__StringStringEntryProto, 1);

  onnx__string_string_entry_proto__init (entry);
  entry->key = g_strdup (key);
  entry->value = value;
  return entry;
}

static Onnx__TensorProto *
tensor_new (char *name, int n_dims, gint64 d0, gint64 d1)
{
  Onnx__TensorProto *tensor = g_new0 (Onnx__TensorProto, 1);

  onnx__tensor_proto__init (tensor);
  tensor->name = name;
  tensor->has_data_type = TRUE;
  tensor->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  tensor->n_dims = n_dims;
  tensor->dims = g_new0 (int64_t, 2);
  tensor->dims[0] = d0;
  tensor->dims[1] = d1;
  return tensor;
}

static Onnx__ValueInfoProto *
value_new (const char *name, gint64 hidden)
{
  Onnx__ValueInfoProto *info = g_new0 (Onnx__ValueInfoProto, 1);
  Onnx__TypeProto *type = g_new0 (Onnx__TypeProto, 1);
  Onnx__TypeProto__Tensor *tensor = g_new0 (Onnx__TypeProto__Tensor, 1);
  Onnx__TensorShapeProto *shape = g_new0 (Onnx__TensorShapeProto, 1);

  onnx__value_info_proto__init (info);
  onnx__type_proto__init (type);
  onnx__type_proto__tensor__init (tensor);
  onnx__tensor_shape_proto__init (shape);
  shape->n_dim = 2;
  shape->dim = g_new0 (Onnx__TensorShapeProto__Dimension *, 2);
  for (int i = 0; i < 2; i++)
    {
      shape->dim[i] = g_new0 (Onnx__TensorShapeProto__Dimension, 1);
      onnx__tensor_shape_proto__dimension__init (shape->dim[i]);
    }
  shape->dim[0]->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
  shape->dim[0]->dim_param = g_strdup ("N");
  shape->dim[1]->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
  shape->dim[1]->dim_value = hidden;
  tensor->has_elem_type = TRUE;
  tensor->elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  tensor->shape = shape;
  type->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  type->tensor_type = tensor;
  info->name = g_strdup (name);
  info->type = type;
  return info;
}

int
main (int argc, char **argv)
{
  int layers = argc > 2 ? atoi (argv[2]) : 48;
  gint64 hidden = argc > 3 ? g_ascii_strtoll (argv[3], NULL, 10) : 4096;
  gsize block = (gsize) hidden * hidden * sizeof (float);
  g_autofree char *model_path = NULL, *weights_path = NULL;
  g_autofree guint32 *pattern = NULL;
  Onnx__ModelProto model = ONNX__MODEL_PROTO__INIT;
  Onnx__GraphProto graph = ONNX__GRAPH_PROTO__INIT;
  Onnx__OperatorSetIdProto opset = ONNX__OPERATOR_SET_ID_PROTO__INIT;
  Onnx__OperatorSetIdProto *opsets[] = { &opset };
  g_autofree guint8 *packed = NULL;
  gsize packed_len;
  char *previous = g_strdup ("x");
  guint32 state = 2463534242u;
  FILE *weights;

  if (argc < 2 || layers < 1 || hidden < 1)
    {
      fprintf (stderr, "usage: make-external-model OUT_DIR [LAYERS [HIDDEN]]\n");
      return 2;
    }
  g_mkdir_with_parents (argv[1], 0755);
  model_path = g_build_filename (argv[1], "external.onnx", NULL);
  weights_path = g_build_filename (argv[1], "external.weights", NULL);
  weights = g_fopen (weights_path, "wb");
  if (weights == NULL)
    {
      fprintf (stderr, "%s: %s\n", weights_path, g_strerror (errno));
      return 1;
    }
  pattern = g_malloc (block);
  graph.name = "external_weights";
  graph.node = g_new0 (Onnx__NodeProto *, 3 * layers);
  graph.initializer = g_new0 (Onnx__TensorProto *, 2 * layers);
  for (int l = 0; l < layers; l++)
    {
      Onnx__TensorProto *w = tensor_new (name_of ("W", l), 2, hidden, hidden);
      Onnx__TensorProto *b = tensor_new (name_of ("B", l), 1, hidden, 0);
      char *mm = name_of ("mm", l), *add = name_of ("add", l), *out = name_of ("h", l);

      /* A different pattern per layer, so that no two weights compare equal. */
      for (gsize i = 0; i < block / sizeof (guint32); i++)
        {
          state ^= state << 13;
          state ^= state >> 17;
          state ^= state << 5;
          pattern[i] = (state & 0x007fffff) | 0x3c000000;  /* small positive floats */
        }
      if (fwrite (pattern, 1, block, weights) != block)
        {
          fprintf (stderr, "%s: %s\n", weights_path, g_strerror (errno));
          return 1;
        }
      w->has_data_location = TRUE;
      w->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
      w->n_external_data = 3;
      w->external_data = g_new0 (Onnx__StringStringEntryProto *, 3);
      w->external_data[0] = entry_new ("location", g_strdup ("external.weights"));
      w->external_data[1] = entry_new ("offset", g_strdup_printf ("%" G_GSIZE_FORMAT, (gsize) l * block));
      w->external_data[2] = entry_new ("length", g_strdup_printf ("%" G_GSIZE_FORMAT, block));
      b->n_float_data = hidden;
      b->float_data = g_new0 (float, hidden);
      graph.initializer[graph.n_initializer++] = w;
      graph.initializer[graph.n_initializer++] = b;
      graph.node[graph.n_node++] = node_new ("MatMul", g_strdup_printf ("/block.%d/MatMul", l), previous,
                                             g_strdup (w->name), mm);
      graph.node[graph.n_node++] = node_new ("Add", g_strdup_printf ("/block.%d/Add", l), g_strdup (mm),
                                             g_strdup (b->name), add);
      previous = l + 1 < layers ? out : g_strdup ("y");
      graph.node[graph.n_node++] = node_new ("Relu", g_strdup_printf ("/block.%d/Relu", l), g_strdup (add),
                                             NULL, g_strdup (previous));
    }
  fclose (weights);
  graph.n_input = 1;
  graph.input = g_new0 (Onnx__ValueInfoProto *, 1);
  graph.input[0] = value_new ("x", hidden);
  graph.n_output = 1;
  graph.output = g_new0 (Onnx__ValueInfoProto *, 1);
  graph.output[0] = value_new ("y", hidden);
  opset.domain = "";
  opset.has_version = TRUE;
  opset.version = 17;
  model.has_ir_version = TRUE;
  model.ir_version = 8;
  model.producer_name = "make-external-model";
  model.n_opset_import = 1;
  model.opset_import = opsets;
  model.graph = &graph;
  packed_len = protobuf_c_message_get_packed_size (&model.base);
  packed = g_malloc (packed_len);
  protobuf_c_message_pack (&model.base, packed);
  if (!g_file_set_contents (model_path, (const char *) packed, (gssize) packed_len, NULL))
    return 1;
  printf ("%s: %d layers, %.1f GB of weights in %s\n", model_path, layers,
          (double) block * layers / 1e9, weights_path);
  return 0;
}
