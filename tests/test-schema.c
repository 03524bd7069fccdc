/* Operator schemas: lookups by opset, variadic slots, defaults, docs links, and the
 * type strings that the diagnostics compare. */
#include <string.h>

#include "onyx-attribute.h"
#include "onyx-schema.h"
#include "onyx-types.h"

static void
test_lookup_by_opset (void)
{
  const OnyxSchema *conv = onyx_schema_lookup ("", "Conv", 13);
  guint n = 0;

  g_assert_nonnull (conv);
  g_assert_cmpint (conv->since_version, ==, 11);
  g_assert_cmpint (onyx_schema_lookup ("ai.onnx", "Conv", 10)->since_version, ==, 1);
  g_assert_cmpint (onyx_schema_lookup ("", "Conv", 11)->since_version, ==, 11);
  g_assert_null (onyx_schema_lookup ("", "HardSwish", 13));
  g_assert_cmpint (onyx_schema_lookup ("", "HardSwish", 14)->since_version, ==, 14);
  g_assert_null (onyx_schema_lookup ("", "NoSuchOp", 13));
  g_assert_null (onyx_schema_lookup ("devtech", "FooOp", 1));
  g_assert_true (onyx_schema_lookup ("", "Upsample", 13)->deprecated);
  g_assert_false (onyx_schema_lookup ("", "Upsample", 9)->deprecated);
  g_assert_nonnull (onyx_schema_lookup ("ai.onnx.ml", "LinearClassifier", 3));

  g_assert_nonnull (onyx_schema_history ("", "Conv", &n));
  /* Conv-1, Conv-11, and Conv-22 from ONNX 1.17 on. */
  g_assert_cmpuint (n, ==, onyx_schema_domain_version ("") >= 22 ? 3 : 2);
  g_assert_cmpint (onyx_schema_domain_version (""), >=, 17);
  g_assert_cmpint (onyx_schema_domain_version ("ai.onnx"), ==, onyx_schema_domain_version (""));
  g_assert_cmpint (onyx_schema_domain_version ("ai.onnx.ml"), >=, 3);
  g_assert_cmpint (onyx_schema_domain_version ("devtech"), ==, 0);
  g_assert_nonnull (strstr (conv->doc, "convolution"));
  g_assert_cmpint (conv->min_input, ==, 2);
  g_assert_cmpint (conv->max_input, ==, 3);
}

/* What the table knows is what the linked library knows, whichever release it is. */
static void
test_library_limits (void)
{
  int known = onyx_schema_domain_version ("");
  g_autofree char *summary = onyx_schema_library_summary ();
  g_autofree char *newer = onyx_schema_newer_opset_text ("", known + 1);
  g_autofree char *newer_ml = onyx_schema_newer_opset_text ("ai.onnx.ml", 99);
  g_autofree char *custom = onyx_schema_newer_opset_text ("devtech", 99);
  g_autofree char *current = onyx_schema_newer_opset_text ("ai.onnx", known);
  g_autofree char *ir = onyx_schema_newer_ir_text (onyx_schema_ir_version () + 1);
  g_autofree char *expected = g_strdup_printf ("ai.onnx opset %d is newer than ONNX %s knows (%d): "
                                               "operator checks and shapes of this domain are limited",
                                               known + 1, onyx_schema_onnx_version (), known);

  g_assert_cmpstr (newer, ==, expected);
  g_assert_nonnull (strstr (newer_ml, "ai.onnx.ml opset 99 is newer than ONNX"));
  g_assert_null (custom);
  g_assert_null (current);
  g_assert_null (onyx_schema_newer_ir_text (onyx_schema_ir_version ()));
  g_assert_nonnull (strstr (ir, "the fields added since are kept but not checked"));
  g_assert_true (g_str_has_prefix (summary, "ONNX "));
  g_assert_nonnull (strstr (summary, "ai.onnx.ml opset"));
  g_assert_cmpint (onyx_schema_ir_version (), >=, 8);
  /* Past the library's newest opset no schema is offered for a node: it may have
     changed since. */
  {
    Onnx__NodeProto node = ONNX__NODE_PROTO__INIT;
    Onnx__OperatorSetIdProto opset = ONNX__OPERATOR_SET_ID_PROTO__INIT;
    Onnx__OperatorSetIdProto *opsets[] = { &opset };

    node.op_type = (char *) "ReduceMean";
    opset.has_version = TRUE;
    opset.version = known;
    g_assert_nonnull (onyx_schema_for_node (&node, opsets, 1));
    opset.version = known + 1;
    g_assert_null (onyx_schema_for_node (&node, opsets, 1));
  }
  /* Gelu is opset 20's, RMSNormalization 23's (1.12 knows 17, 1.17 22, 1.22 27). */
  if (known >= 20)
    g_assert_cmpint (onyx_schema_lookup ("", "Gelu", known)->since_version, ==, 20);
  else
    g_assert_null (onyx_schema_lookup ("", "Gelu", known));
  if (known >= 23)
    {
      g_assert_cmpint (onyx_schema_lookup ("", "RMSNormalization", 23)->since_version, ==, 23);
      g_assert_cmpint (onyx_schema_lookup ("", "ReduceMean", 23)->max_input, ==, 2);
    }
  else
    g_assert_null (onyx_schema_lookup ("", "RMSNormalization", known));
}

/* Element types by the names ONNX's type strings and Onyx's panels give them, the newest
 * ones (float8, 4- and 2-bit) included. */
static void
test_element_types (void)
{
  g_autofree char *e8m0 = onyx_elem_type_schema_string (24);
  g_autofree char *int2 = onyx_elem_type_schema_string (26);

  g_assert_cmpstr (e8m0, ==, "tensor(float8e8m0)");
  g_assert_cmpstr (int2, ==, "tensor(int2)");
  g_assert_cmpint (onyx_elem_type_from_schema_string ("tensor(uint2)"), ==, 25);
  g_assert_cmpint (onyx_elem_type_from_schema_string ("tensor(float4e2m1)"), ==, 23);
  g_assert_cmpint (onyx_elem_type_from_schema_string ("tensor(float)"), ==, 1);
  g_assert_cmpint (onyx_elem_type_from_schema_string ("tensor(nosuch)"), ==, 0);
  g_assert_cmpstr (onyx_elem_type_name (24), ==, "float8e8m0");
  g_assert_cmpstr (onyx_elem_type_name (26), ==, "int2");
  g_assert_cmpuint (onyx_elem_type_bits (25), ==, 2);
  g_assert_cmpstr (onyx_elem_type_name (1), ==, "float32");
  g_assert_cmpstr (onyx_elem_type_proto_name (1), ==, "float");
  g_assert_cmpstr (onyx_elem_type_name (200), ==, "type 200");
}

static void
test_slot_names (void)
{
  const OnyxSchema *conv = onyx_schema_lookup ("", "Conv", 13);
  const OnyxSchema *concat = onyx_schema_lookup ("", "Concat", 13);
  const OnyxSchema *loop = onyx_schema_lookup ("", "Loop", 13);
  g_autofree char *x = onyx_schema_input_name (conv, 0);
  g_autofree char *b = onyx_schema_input_name (conv, 2);
  g_autofree char *none = onyx_schema_input_name (conv, 3);
  g_autofree char *c0 = onyx_schema_input_name (concat, 0);
  g_autofree char *c4 = onyx_schema_input_name (concat, 4);
  g_autofree char *l1 = onyx_schema_input_name (loop, 1);
  g_autofree char *l3 = onyx_schema_input_name (loop, 3);
  g_autofree char *y = onyx_schema_output_name (conv, 0);

  g_assert_cmpstr (x, ==, "X");
  g_assert_cmpstr (b, ==, "B");
  g_assert_null (none);
  g_assert_cmpint (onyx_schema_input (conv, 2)->option, ==, ONYX_PARAM_OPTIONAL);
  g_assert_cmpstr (c0, ==, "inputs[0]");
  g_assert_cmpstr (c4, ==, "inputs[4]");
  g_assert_true (onyx_schema_input (concat, 7)->homogeneous);
  g_assert_cmpstr (l1, ==, "cond");
  g_assert_cmpstr (l3, ==, "v_initial[1]");
  g_assert_false (onyx_schema_input (loop, 3)->homogeneous);
  g_assert_cmpstr (y, ==, "Y");
}

static void
test_attributes (void)
{
  const OnyxSchema *conv = onyx_schema_lookup ("", "Conv", 13);
  const OnyxSchema *cast = onyx_schema_lookup ("", "Cast", 13);
  const OnyxSchema *elu = onyx_schema_lookup ("", "LeakyRelu", 13);
  const OnyxSchemaAttribute *auto_pad = onyx_schema_find_attribute (conv, "auto_pad");
  const OnyxSchemaAttribute *group = onyx_schema_find_attribute (conv, "group");
  const OnyxSchemaAttribute *alpha = onyx_schema_find_attribute (elu, "alpha");
  g_autofree char *pad_text = onyx_schema_attribute_default_text (auto_pad);
  g_autofree char *group_text = onyx_schema_attribute_default_text (group);
  g_autofree char *alpha_text = onyx_schema_attribute_default_text (alpha);
  Onnx__AttributeProto *value = onyx_schema_attribute_default (group);

  g_assert_nonnull (auto_pad);
  g_assert_cmpint (auto_pad->type, ==, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
  g_assert_cmpstr (pad_text, ==, "\"NOTSET\"");
  g_assert_cmpstr (group_text, ==, "1");
  g_assert_cmpstr (alpha_text, ==, "0.01");
  g_assert_nonnull (value);
  g_assert_cmpint (value->i, ==, 1);
  protobuf_c_message_free_unpacked (&value->base, NULL);
  /* No default: computed from the input (kernel_shape) or required (Cast's to). */
  g_assert_null (onyx_schema_attribute_default_text (onyx_schema_find_attribute (conv, "kernel_shape")));
  g_assert_true (onyx_schema_find_attribute (cast, "to")->required);
  g_assert_null (onyx_schema_find_attribute (conv, "dilation"));
  g_assert_nonnull (onyx_schema_find_attribute (conv, "dilations")->doc);
}

/* Which attributes name an element type, as the schemas' type inference tells: by
 * name on the screen, "INT64" for Cast's to = 7, and read back from that name. */
static void
test_data_type_attributes (void)
{
  const struct { const char *op; int opset; const char *attribute; gboolean data_type; } cases[] = {
    { "Cast", 13, "to", TRUE }, { "EyeLike", 13, "dtype", TRUE }, { "RandomNormal", 13, "dtype", TRUE },
    { "RandomNormalLike", 13, "dtype", TRUE }, { "RandomUniform", 13, "dtype", TRUE },
    { "Multinomial", 13, "dtype", TRUE }, { "Bernoulli", 15, "dtype", TRUE }, { "SequenceEmpty", 13, "dtype", TRUE },
    { "LayerNormalization", 17, "stash_type", TRUE }, { "HannWindow", 17, "output_datatype", TRUE },
    { "QuantizeLinear", 21, "output_dtype", TRUE }, { "GroupNormalization", 21, "stash_type", TRUE },
    { "Cast", 19, "saturate", FALSE }, { "Conv", 13, "group", FALSE }, { "Gather", 13, "axis", FALSE },
    { "ConstantOfShape", 13, "value", FALSE }, { "TopK", 13, "largest", FALSE },
  };
  const OnyxSchema *cast = onyx_schema_lookup ("", "Cast", 13);
  const OnyxSchema *random = onyx_schema_lookup ("", "RandomNormal", 13);
  Onnx__AttributeProto to = ONNX__ATTRIBUTE_PROTO__INIT;
  g_autofree char *int64 = NULL, *unknown = NULL, *plain = NULL, *random_default = NULL;
  guint n_checked = 0;
  int value = 0;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const OnyxSchema *schema = onyx_schema_lookup ("", cases[i].op, cases[i].opset);
      /* (Newer operators than the linked library knows are left out.) */
      if (cases[i].opset > onyx_schema_domain_version (""))
        continue;
      g_assert_nonnull (schema);
      g_assert_nonnull (onyx_schema_find_attribute (schema, cases[i].attribute));
      g_assert_cmpint (onyx_schema_find_attribute (schema, cases[i].attribute)->data_type, ==, cases[i].data_type);
      n_checked++;
    }
  g_assert_cmpuint (n_checked, >=, 14);
  /* ONNX Runtime's DequantizeWithOrder has no inference for its `to`: named like Cast's. */
  g_assert_true (onyx_schema_find_attribute (onyx_schema_lookup ("com.microsoft", "DequantizeWithOrder", 1),
                                             "to")->data_type);

  to.name = (char *) "to";
  to.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
  to.i = 7;
  int64 = onyx_attribute_describe (&to, cast);
  g_assert_cmpstr (int64, ==, "INT64");
  g_assert_cmpstr (onyx_attribute_data_type_name (&to, onyx_schema_find_attribute (cast, "to")), ==, "INT64");
  plain = onyx_attribute_describe (&to, NULL);
  g_assert_cmpstr (plain, ==, "7");
  to.i = 9999;
  unknown = onyx_attribute_describe (&to, cast);
  g_assert_cmpstr (unknown, ==, "9999");
  random_default = onyx_schema_attribute_default_text (onyx_schema_find_attribute (random, "dtype"));
  g_assert_cmpstr (random_default, ==, "FLOAT");
  g_assert_true (onyx_data_type_from_name ("int64", &value));
  g_assert_cmpint (value, ==, 7);
  g_assert_true (onyx_data_type_from_name ("float32", &value));
  g_assert_cmpint (value, ==, 1);
  g_assert_false (onyx_data_type_from_name ("7", &value));
}

static void
test_types (void)
{
  const OnyxSchema *conv = onyx_schema_lookup ("", "Conv", 13);
  const OnyxSchema *shape = onyx_schema_lookup ("", "Shape", 13);
  g_autofree char *f = onyx_elem_type_schema_string (ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
  g_autofree char *unknown = onyx_elem_type_schema_string (999);

  g_assert_cmpstr (f, ==, "tensor(float)");
  g_assert_null (unknown);
  g_assert_true (onyx_schema_param_allows (conv, onyx_schema_input (conv, 1), "tensor(float)"));
  g_assert_false (onyx_schema_param_allows (conv, onyx_schema_input (conv, 1), "tensor(int64)"));
  g_assert_true (onyx_schema_param_allows (shape, onyx_schema_output (shape, 0), "tensor(int64)"));
  g_assert_false (onyx_schema_param_allows (shape, onyx_schema_output (shape, 0), "tensor(int32)"));

  /* seq(tensor(int64)) and map(int64, float) as schemas write them. */
  {
    Onnx__TypeProto inner = ONNX__TYPE_PROTO__INIT, seq = ONNX__TYPE_PROTO__INIT, map = ONNX__TYPE_PROTO__INIT;
    Onnx__TypeProto__Tensor tensor = ONNX__TYPE_PROTO__TENSOR__INIT;
    Onnx__TypeProto__Sequence sequence = ONNX__TYPE_PROTO__SEQUENCE__INIT;
    Onnx__TypeProto__Map map_type = ONNX__TYPE_PROTO__MAP__INIT;
    g_autofree char *seq_text = NULL, *map_text = NULL;

    tensor.has_elem_type = TRUE;
    tensor.elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
    inner.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    inner.tensor_type = &tensor;
    sequence.elem_type = &inner;
    seq.value_case = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
    seq.sequence_type = &sequence;
    seq_text = onyx_type_schema_string (&seq);
    g_assert_cmpstr (seq_text, ==, "seq(tensor(int64))");

    tensor.elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    map_type.has_key_type = TRUE;
    map_type.key_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
    map_type.value_type = &inner;
    map.value_case = ONNX__TYPE_PROTO__VALUE_MAP_TYPE;
    map.map_type = &map_type;
    map_text = onyx_type_schema_string (&map);
    g_assert_cmpstr (map_text, ==, "map(int64, float)");
    g_assert_null (onyx_type_schema_string (NULL));
  }
}

static void
test_docs_url (void)
{
  g_autofree char *conv = onyx_schema_docs_url ("", "Conv");
  g_autofree char *ai_onnx = onyx_schema_docs_url ("ai.onnx", "Relu");
  g_autofree char *ml = onyx_schema_docs_url ("ai.onnx.ml", "LinearClassifier");
  g_autofree char *custom = onyx_schema_docs_url ("devtech", "FooOp");

  g_assert_cmpstr (conv, ==, "https://onnx.ai/onnx/operators/onnx__Conv.html");
  g_assert_cmpstr (ai_onnx, ==, "https://onnx.ai/onnx/operators/onnx__Relu.html");
  g_assert_cmpstr (ml, ==, "https://onnx.ai/onnx/operators/onnx_aionnxml_LinearClassifier.html");
  g_assert_null (custom);
}

/* Every version in the table is what a lookup at its own opset finds, and the one
 * before it is what the opset just below finds. */
static void
test_table_consistent (void)
{
  const char *ops[] = { "Conv", "Relu", "Resize", "Clip", "Concat", "Loop", "If", "Softmax",
                        "Reshape", "BatchNormalization", "Split", "Slice", "Pad" };

  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    {
      guint n = 0;
      const OnyxSchema *versions = onyx_schema_history ("", ops[i], &n);
      g_assert_nonnull (versions);
      for (guint v = 0; v < n; v++)
        {
          g_assert_cmpstr (versions[v].name, ==, ops[i]);
          g_assert_true (onyx_schema_lookup ("", ops[i], versions[v].since_version) == &versions[v]);
          if (v > 0)
            {
              g_assert_cmpint (versions[v].since_version, >, versions[v - 1].since_version);
              g_assert_true (onyx_schema_lookup ("", ops[i], versions[v].since_version - 1) == &versions[v - 1]);
            }
          for (guint a = 1; a < versions[v].n_attributes; a++)
            g_assert_cmpstr (versions[v].attributes[a - 1].name, <, versions[v].attributes[a].name);
        }
    }
}

/* One schema per op in force at the opset: LeakyRelu-6 at 13, no op of a later opset. */
static void
test_list_ops (void)
{
  g_autoptr (GPtrArray) ops = onyx_schema_list_ops ("ai.onnx", 13);
  gboolean leaky = FALSE;

  g_assert_cmpuint (ops->len, >, 100);
  for (guint i = 0; i < ops->len; i++)
    {
      const OnyxSchema *schema = ops->pdata[i];
      g_assert_cmpstr (schema->domain, ==, "");
      g_assert_cmpint (schema->since_version, <=, 13);
      g_assert_false (schema->deprecated);
      g_assert_true (onyx_schema_lookup ("", schema->name, 13) == schema);
      if (i > 0)
        g_assert_cmpint (strcmp (((const OnyxSchema *) ops->pdata[i - 1])->name, schema->name), <, 0);
      if (g_str_equal (schema->name, "LeakyRelu"))
        leaky = schema->since_version == 6;
    }
  g_assert_true (leaky);
  g_ptr_array_unref (ops);
  ops = onyx_schema_list_ops ("com.example", 1);
  g_assert_cmpuint (ops->len, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/schema/lookup-by-opset", test_lookup_by_opset);
  g_test_add_func ("/schema/slot-names", test_slot_names);
  g_test_add_func ("/schema/library-limits", test_library_limits);
  g_test_add_func ("/schema/element-types", test_element_types);
  g_test_add_func ("/schema/attributes", test_attributes);
  g_test_add_func ("/schema/data-type-attributes", test_data_type_attributes);
  g_test_add_func ("/schema/types", test_types);
  g_test_add_func ("/schema/docs-url", test_docs_url);
  g_test_add_func ("/schema/table-consistent", test_table_consistent);
  g_test_add_func ("/schema/list-ops", test_list_ops);
  return g_test_run ();
}
