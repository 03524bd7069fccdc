/* Tensor values for display: every storage form, and data that does not match its dims. */
#include <math.h>

#include "onyx-tensor-values.h"
#include "onyx-test-util.h"

static Onnx__TensorProto *
raw_tensor (int32_t type, int n_dims, const int64_t *dims, const void *raw, gsize raw_len)
{
  /* A scalar, then the dims: dims may claim far more than the data holds. */
  Onnx__TensorProto *tensor = test_initializer ("t", 0, NULL);
  tensor->data_type = type;
  g_free (tensor->dims);
  tensor->dims = g_memdup2 (dims, sizeof *dims * (gsize) n_dims);
  tensor->n_dims = (size_t) n_dims;
  g_free (tensor->raw_data.data);
  tensor->raw_data.data = g_memdup2 (raw, MAX (raw_len, 1));
  tensor->raw_data.len = raw_len;
  return tensor;
}

static OnyxTensorValues *
read_ok (Onnx__TensorProto *tensor, guint64 limit)
{
  g_autoptr (GError) error = NULL;
  OnyxTensorValues *values = onyx_tensor_values_read (tensor, NULL, limit, &error);
  g_assert_no_error (error);
  g_assert_nonnull (values);
  return values;
}

static void
assert_refused (Onnx__TensorProto *tensor, const char *expected)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxTensorValues) values = onyx_tensor_values_read (tensor, NULL, 100, &error);
  g_assert_null (values);
  g_assert_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_TENSOR_DATA);
  g_assert_nonnull (strstr (error->message, expected));
  g_assert_true (g_str_has_prefix (error->message, "tensor 't': "));
}

static void
test_float_raw_and_stats (void)
{
  const int64_t dims[] = { 2, 3 };
  Onnx__TensorProto *tensor = test_initializer ("t", 2, dims); /* 0 … 5 */
  g_autoptr (OnyxTensorValues) values = read_ok (tensor, 100);
  g_autofree char *text = onyx_tensor_values_format (values, 4);

  g_assert_cmpuint (values->n_elements, ==, 6);
  g_assert_cmpuint (values->n_values, ==, 6);
  g_assert_true (values->has_stats);
  g_assert_cmpfloat (values->min, ==, 0);
  g_assert_cmpfloat (values->max, ==, 5);
  g_assert_cmpfloat (values->mean, ==, 2.5);
  g_assert_cmpstr (text, ==, "[0, 1, 2, 3, …]");
  protobuf_c_message_free_unpacked (&tensor->base, NULL);
}

static void
test_limit (void)
{
  const int64_t dims[] = { 1000 };
  Onnx__TensorProto *tensor = test_initializer ("t", 1, dims);
  g_autoptr (OnyxTensorValues) values = read_ok (tensor, 10);

  g_assert_cmpuint (values->n_elements, ==, 1000);
  g_assert_cmpuint (values->n_values, ==, 10);
  g_assert_cmpfloat (values->max, ==, 9);
  protobuf_c_message_free_unpacked (&tensor->base, NULL);
}

static void
test_small_types (void)
{
  const int64_t four[] = { 4 };
  const guint16 halves[] = { 0x3c00, 0xc000, 0x3555, 0x7c00 }; /* 1, -2, ~0.333, inf */
  const guint16 bfloats[] = { 0x3f80, 0xc000, 0x0000, 0x4040 }; /* 1, -2, 0, 3 */
  const guint8 nibbles[] = { 0xf1, 0x87 };                       /* int4: 1, -1, 7, -8 */
  g_autoptr (OnyxTensorValues) h = NULL, b = NULL, n = NULL;
  Onnx__TensorProto *half = raw_tensor (10, 1, four, halves, sizeof halves);
  Onnx__TensorProto *bf = raw_tensor (16, 1, four, bfloats, sizeof bfloats);
  Onnx__TensorProto *int4 = raw_tensor (22, 1, four, nibbles, sizeof nibbles);

  h = read_ok (half, 100);
  g_assert_cmpfloat (h->values[0], ==, 1);
  g_assert_cmpfloat (h->values[1], ==, -2);
  g_assert_cmpfloat_with_epsilon (h->values[2], 1.0 / 3, 1e-3);
  g_assert_true (isinf (h->values[3]));
  g_assert_cmpfloat (h->max, ==, 1); /* infinities are left out of the stats */
  b = read_ok (bf, 100);
  g_assert_cmpfloat (b->values[3], ==, 3);
  n = read_ok (int4, 100);
  g_assert_cmpfloat (n->values[0], ==, 1);
  g_assert_cmpfloat (n->values[1], ==, -1);
  g_assert_cmpfloat (n->values[2], ==, 7);
  g_assert_cmpfloat (n->values[3], ==, -8);
  protobuf_c_message_free_unpacked (&half->base, NULL);
  protobuf_c_message_free_unpacked (&bf->base, NULL);
  protobuf_c_message_free_unpacked (&int4->base, NULL);
}

/* Every finite half goes to a double and back to the same bits; between two halves
 * the nearer wins, a tie the even one; too large is infinite. */
static void
test_double_to_half (void)
{
  guint n_checked = 0;

  for (guint32 bits = 0; bits < 0x10000; bits++)
    if (((bits >> 10) & 0x1f) != 0x1f)
      {
        g_assert_cmphex (onyx_double_to_half (onyx_half_to_double ((guint16) bits)), ==, bits);
        n_checked++;
      }
  g_assert_cmpuint (n_checked, ==, 2 * 31 * 1024);
  /* 1 + 2^-11 lies halfway between 1 (0x3c00, even) and 1 + 2^-10 (0x3c01). */
  g_assert_cmphex (onyx_double_to_half (1.0 + 0x1p-11), ==, 0x3c00);
  g_assert_cmphex (onyx_double_to_half (1.0 + 0x1p-10 + 0x1p-11), ==, 0x3c02);
  g_assert_cmphex (onyx_double_to_half (1.0 + 0x1p-11 + 0x1p-20), ==, 0x3c01);
  g_assert_cmphex (onyx_double_to_half (-0.1), ==, 0xae66);
  g_assert_cmphex (onyx_double_to_half (65519.0), ==, 0x7bff);
  g_assert_cmphex (onyx_double_to_half (65520.0), ==, 0x7c00);
  g_assert_cmphex (onyx_double_to_half (-1e9), ==, 0xfc00);
  g_assert_cmphex (onyx_double_to_half (0x1p-25), ==, 0x0000);
  g_assert_cmphex (onyx_double_to_half (0x1p-25 + 0x1p-30), ==, 0x0001);
  g_assert_cmphex (onyx_double_to_half (0x1p-14 - 0x1p-26), ==, 0x0400);
  g_assert_true (isnan (onyx_half_to_double (onyx_double_to_half (NAN))));
}

static void
test_typed_fields (void)
{
  const int64_t dims[] = { 3 };
  Onnx__TensorProto *tensor = test_initializer ("t", 1, dims);
  g_autoptr (OnyxTensorValues) values = NULL;
  g_autofree char *text = NULL;

  g_clear_pointer (&tensor->raw_data.data, g_free);
  tensor->raw_data.len = 0;
  tensor->has_raw_data = FALSE;
  tensor->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
  tensor->n_int64_data = 3;
  tensor->int64_data = g_new (int64_t, 3);
  tensor->int64_data[0] = -1;
  tensor->int64_data[1] = G_GINT64_CONSTANT (1) << 40;
  tensor->int64_data[2] = 7;
  values = read_ok (tensor, 100);
  text = onyx_tensor_values_format (values, 10);
  g_assert_cmpstr (text, ==, "[-1, 1099511627776, 7]");

  /* Fewer values than the dims claim. */
  tensor->n_int64_data = 2;
  assert_refused (tensor, "holds 2 values but its dims claim 3 elements");
  /* One is one value, not "1 values". */
  tensor->n_int64_data = 1;
  assert_refused (tensor, "holds 1 value but its dims claim 3 elements");
  tensor->n_int64_data = 3;
  protobuf_c_message_free_unpacked (&tensor->base, NULL);
}

static void
test_hostile (void)
{
  const int64_t dims[] = { 8 };
  const int64_t huge[] = { G_MAXINT64, 4 };
  const int64_t negative[] = { -3 };
  const float few[] = { 1, 2 };
  Onnx__TensorProto *short_raw = raw_tensor (1, 1, dims, few, sizeof few);
  Onnx__TensorProto *overflow = raw_tensor (1, 2, huge, few, sizeof few);
  Onnx__TensorProto *neg = raw_tensor (1, 1, negative, few, sizeof few);
  Onnx__TensorProto *float8 = raw_tensor (17, 1, dims, few, sizeof few);

  assert_refused (short_raw, "8 bytes of data but its dims need 32 bytes");
  assert_refused (overflow, "overflows");
  assert_refused (neg, "negative");
  assert_refused (float8, "float8e4m3fn");
  protobuf_c_message_free_unpacked (&short_raw->base, NULL);
  protobuf_c_message_free_unpacked (&overflow->base, NULL);
  protobuf_c_message_free_unpacked (&neg->base, NULL);
  protobuf_c_message_free_unpacked (&float8->base, NULL);
}

static void
test_strings (void)
{
  const int64_t dims[] = { 2 };
  Onnx__TensorProto *tensor = test_initializer ("t", 1, dims);
  g_autoptr (OnyxTensorValues) values = NULL;
  g_autofree char *text = NULL;

  g_clear_pointer (&tensor->raw_data.data, g_free);
  tensor->has_raw_data = FALSE;
  tensor->raw_data.len = 0;
  tensor->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__STRING;
  tensor->n_string_data = 2;
  tensor->string_data = g_new0 (ProtobufCBinaryData, 2);
  tensor->string_data[0].data = (uint8_t *) g_strdup ("cat");
  tensor->string_data[0].len = 3;
  tensor->string_data[1].data = (uint8_t *) g_strdup ("d\x01g");
  tensor->string_data[1].len = 3;
  values = read_ok (tensor, 100);
  text = onyx_tensor_values_format (values, 10);
  g_assert_cmpstr (text, ==, "[\"cat\", \"d\\x01g\"]");
  protobuf_c_message_free_unpacked (&tensor->base, NULL);
}

static void
test_walkthrough_initializers (void)
{
  g_autofree char *path = test_data_path ("model.onnx");
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = onyx_model_new_from_file (path, &error);
  Onnx__GraphProto *graph;

  g_assert_no_error (error);
  graph = onyx_model_get_proto (model)->graph;
  for (size_t i = 0; i < graph->n_initializer; i++)
    {
      g_autoptr (OnyxTensorValues) values = onyx_tensor_values_read (graph->initializer[i], NULL,
                                                                     10000, &error);
      g_assert_no_error (error);
      g_assert_true (values->has_stats);
      g_assert_cmpfloat (values->min, <=, values->max);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/tensor-values/float-raw", test_float_raw_and_stats);
  g_test_add_func ("/tensor-values/limit", test_limit);
  g_test_add_func ("/tensor-values/small-types", test_small_types);
  g_test_add_func ("/tensor-values/double-to-half", test_double_to_half);
  g_test_add_func ("/tensor-values/typed-fields", test_typed_fields);
  g_test_add_func ("/tensor-values/hostile", test_hostile);
  g_test_add_func ("/tensor-values/strings", test_strings);
  g_test_add_func ("/tensor-values/walkthrough", test_walkthrough_initializers);
  return g_test_run ();
}
