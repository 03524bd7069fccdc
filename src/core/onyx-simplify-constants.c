/* Simplify's first pass: Constant nodes become initializers of the same name. Onyx
 * draws both the same way, but the file, its counts and every other tool see a
 * leaner graph (most of what ONNX Runtime removes from a paddle2onnx model). */
#include <stdlib.h>
#include <string.h>

#include "onyx-simplify-private.h"

#include <glib/gi18n-lib.h>

#include "onyx-tensor-values.h"

static Onnx__TensorProto *
constant_as_initializer (OnyxSimplifyContext *ctx, const Onnx__NodeProto *node)
{
  const Onnx__TensorProto *tensor = onyx_simplify_constant_tensor (node);
  Onnx__TensorProto *copy;
  g_autoptr (OnyxArray) value = NULL;

  if (tensor != NULL)
    {
      /* The payload stays where it is (the model's mapping or its data file). */
      copy = (Onnx__TensorProto *) onyx_model_copy_sharing (ctx->model, &tensor->base);
      free (copy->name);
      copy->name = strdup (node->output[0]);
      return copy;
    }
  value = onyx_simplify_constant_node_value (ctx, node, G_MAXSIZE, NULL);
  return value != NULL ? onyx_tensor_new_from_array (value, node->output[0]) : NULL;
}

static guint
constants_run (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, GError **error)
{
  g_autoptr (GPtrArray) constants = g_ptr_array_new ();
  guint n_changed = 0;

  for (size_t n = 0; n < graph->n_node; n++)
    {
      Onnx__NodeProto *node = graph->node[n];
      /* A graph output keeps its node: some runtimes take no initializer as an output. */
      if (onyx_simplify_is_op (node, "Constant") && node->n_output == 1 && node->output[0][0] != '\0' &&
          node->n_attribute == 1 && !onyx_simplify_is_output (graph, node->output[0]))
        g_ptr_array_add (constants, node);
    }
  for (guint i = 0; i < constants->len; i++)
    {
      Onnx__NodeProto *node = constants->pdata[i];
      Onnx__TensorProto *tensor = constant_as_initializer (ctx, node);
      if (tensor == NULL)
        continue;
      onyx_simplify_remove_node (ctx, node);
      onyx_simplify_add_initializer (ctx, graph, tensor);
      n_changed++;
    }
  return n_changed;
}

const OnyxSimplifyPass onyx_simplify_constants_pass = {
  .name = "constants",
  .title = N_("Constant nodes to initializers"),
  .flag = ONYX_SIMPLIFY_CONSTANTS,
  .run = constants_run,
};
