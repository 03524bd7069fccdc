/* torch 2.1–2.4's function names read as module paths and classes, with the names of
 * real exports (ir-py's test data: Speech2Text2ForCausalLM, resnet18, mobilenetv2 by
 * torch 2.2); and titles cut to their end. */
#include "onyx-layout-private.h"
#include "onyx-torch-names.h"
#include "onyx-test-util.h"

static OnyxTorchModules *
modules_of (const char *const *parameters)
{
  OnyxTorchModules *modules = onyx_torch_modules_new ();

  for (guint i = 0; parameters[i] != NULL; i++)
    onyx_torch_modules_add_name (modules, parameters[i]);
  return modules;
}

/* "path · Class" and the call counter of `name`, or NULL when it is not read. */
static char *
parsed (const OnyxTorchModules *modules, const char *name, guint n_counters)
{
  OnyxTorchCall call = { NULL };
  char *text;

  if (!onyx_torch_call_parse (modules, name, n_counters, &call))
    return NULL;
  text = g_strdup_printf ("%s · %s #%u", call.path, call.class_name, call.call);
  onyx_torch_call_clear (&call);
  return text;
}

#define assert_parsed(modules, name, n, expected)                  \
  G_STMT_START {                                                   \
    g_autofree char *text_ = parsed ((modules), (name), (n));       \
    g_assert_cmpstr (text_, ==, (expected));                        \
  } G_STMT_END

static void
test_module_paths_from_parameters (void)
{
  const char *const parameters[] = { "model.decoder.embed_tokens.weight",
                                     "model.decoder.layers.0.self_attn.q_proj.weight",
                                     "model.decoder.layers.0.fc1.bias", "l_input_ids_", NULL };
  g_autoptr (OnyxTorchModules) modules = modules_of (parameters);
  const char *layer = "transformers_models_speech_to_text_2_modeling_speech_to_text_2_"
                      "Speech2Text2DecoderLayer_model_decoder_layers_0_1";
  g_autofree char *call = g_strconcat (layer, "_38", NULL);

  /* A function's name ends in one counter, its call's in two. */
  assert_parsed (modules, layer, 1, "model.decoder.layers.0 · Speech2Text2DecoderLayer #1");
  assert_parsed (modules, call, 2, "model.decoder.layers.0 · Speech2Text2DecoderLayer #1");
  assert_parsed (modules,
                 "transformers_models_speech_to_text_2_modeling_speech_to_text_2_Speech2Text2Attention_"
                 "model_decoder_layers_0_self_attn_1_0", 2,
                 "model.decoder.layers.0.self_attn · Speech2Text2Attention #1");
  assert_parsed (modules, "torch_nn_modules_linear_Linear_model_decoder_layers_0_self_attn_q_proj_1_11", 2,
                 "model.decoder.layers.0.self_attn.q_proj · Linear #1");
  /* A module without parameters: the known path around it, then its name. */
  assert_parsed (modules, "torch_nn_modules_activation_ReLU_model_decoder_layers_0_activation_fn_1_5", 2,
                 "model.decoder.layers.0.activation_fn · ReLU #1");
  /* Nothing known: the underscores stay. */
  assert_parsed (modules, "torch_nn_modules_linear_Linear_lm_head_1_8", 2, "lm_head · Linear #1");
  assert_parsed (NULL, "torch_nn_modules_linear_Linear_lm_head_1", 1, "lm_head · Linear #1");
}

static void
test_dynamo_attribute_paths (void)
{
  const char *const parameters[] = { "layer1.0.conv1.weight", "layer2.0.downsample.0.weight",
                                     "blocks.0.0.conv_dw.weight", NULL };
  g_autoptr (OnyxTorchModules) modules = modules_of (parameters);

  assert_parsed (modules, "torch_nn_modules_conv_Conv2d_getattr_L__self___layer1___0___conv1_1", 1,
                 "layer1.0.conv1 · Conv2d #1");
  /* The second call of one module. */
  assert_parsed (modules, "torch_nn_modules_activation_ReLU_getattr_L__self___layer1___0___relu_2_6", 2,
                 "layer1.0.relu · ReLU #2");
  assert_parsed (modules, "torch_nn_modules_container_Sequential_getattr_L__self___layer2___0___downsample_1_5", 2,
                 "layer2.0.downsample · Sequential #1");
  assert_parsed (modules, "torch_nn_modules_conv_Conv2d_getattr_getattr_L__self___blocks___0_____0___conv_dw_1", 1,
                 "blocks.0.0.conv_dw · Conv2d #1");
  assert_parsed (modules, "timm_models__efficientnet_blocks_InvertedResidual_blocks_1_0_1", 1,
                 "blocks.1.0 · InvertedResidual #1");
  assert_parsed (modules, "torchvision_models_resnet_BasicBlock_layer1_0_1_0", 2, "layer1.0 · BasicBlock #1");
}

static void
test_other_names_left_alone (void)
{
  const char *const not_calls[] = {
    "aten_view_3", "Constant_2", "StatefulPartitionedCall", "Sequential_0", "p2o.Conv.0", "layers.0",
    "model_1", "Linear_model_layers_0_1",   /* no package before the class */
    "torch_nn_modules_linear_Linear_1",     /* no module path */
    "torch_nn_modules_linear_Linear_fc_x",  /* no counter */
    "",
  };

  for (guint i = 0; i < G_N_ELEMENTS (not_calls); i++)
    {
      g_autofree char *text = parsed (NULL, not_calls[i], 1);
      g_autofree char *call_text = parsed (NULL, not_calls[i], 2);
      g_assert_null (text);
      g_assert_null (call_text);
    }
}

static void
test_operator_calls (void)
{
  const char *const cases[][2] = {
    { "aten_view_3", "aten_view" }, { "_aten_convolution_onnx_0", "_aten_convolution_onnx" },
    { "prims_convert_element_type_12", "prims_convert_element_type" }, { "aten_view", NULL },
    { "Constant_2", NULL }, { "torch_nn_modules_linear_Linear_fc_1_2", NULL }, { "aten_View_3", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *function = onyx_torch_op_call_function (cases[i][0]);
      g_assert_cmpstr (function, ==, cases[i][1]);
    }
}

static void
test_titles_cut_at_a_path_part (void)
{
  g_autofree char *short_title = onyx_layout_cut_title (g_strdup ("model.decoder · Speech2Text2Decoder"));
  g_autofree char *long_title = onyx_layout_cut_title (
      g_strdup ("model.decoder.embed_positions · Speech2Text2SinusoidalPositionalEmbedding"));
  g_autofree char *no_dot = onyx_layout_cut_title (g_strnfill (80, 'x'));

  g_assert_cmpstr (short_title, ==, "model.decoder · Speech2Text2Decoder");
  g_assert_cmpstr (long_title, ==, "…embed_positions · Speech2Text2SinusoidalPositionalEmbedding");
  g_assert_cmpint (g_utf8_strlen (long_title, -1), <=, MAX_GROUP_TITLE);
  g_assert_cmpint (g_utf8_strlen (no_dot, -1), ==, MAX_GROUP_TITLE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/torch-names/module-paths", test_module_paths_from_parameters);
  g_test_add_func ("/torch-names/attribute-paths", test_dynamo_attribute_paths);
  g_test_add_func ("/torch-names/other-names", test_other_names_left_alone);
  g_test_add_func ("/torch-names/operator-calls", test_operator_calls);
  g_test_add_func ("/torch-names/titles", test_titles_cut_at_a_path_part);
  return g_test_run ();
}
