#define _GNU_SOURCE /* memmem */
/* Loading and saving models: the walkthrough models, fields that must survive,
 * malformed and hostile input, external data and atomic saving. */
#include <errno.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onyx-attribute.h"
#include "onyx-external.h"
#include "onyx-model.h"
#include "onyx-name-family.h"
#include "onyx-test-util.h"
#include "onyx-types.h"
#include "onyx-text.h"

static GBytes *
read_data_file (const char *name)
{
  g_autofree char *path = test_data_path (name);
  return test_read_file (path);
}

static void
test_walkthrough_model (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("model.onnx");
  Onnx__ModelProto *proto = onyx_model_get_proto (model);
  g_autofree char *input_type = NULL;

  g_assert_cmpint (proto->ir_version, ==, 7);
  g_assert_cmpuint (proto->n_opset_import, ==, 1);
  g_assert_cmpint (proto->opset_import[0]->version, ==, 13);
  g_assert_cmpstr (proto->producer_name, ==, "pytorch");
  g_assert_cmpuint (proto->graph->n_input, ==, 1);
  g_assert_cmpstr (proto->graph->input[0]->name, ==, "input");
  input_type = onyx_type_to_string (proto->graph->input[0]->type);
  g_assert_cmpstr (input_type, ==, "float32[N×3×128×128]");
  g_assert_cmpuint (proto->graph->n_node, ==, 4);
  g_assert_cmpstr (proto->graph->node[0]->op_type, ==, "Conv");
  g_assert_cmpstr (proto->graph->node[1]->op_type, ==, "Relu");
  /* The conv weights are kilobytes: they stay in the mapped file. */
  g_assert_cmpuint (onyx_model_get_n_mapped_tensors (model), >=, 2);
}

static void
test_custom_domain (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("model_foo.onnx");
  Onnx__ModelProto *proto = onyx_model_get_proto (model);
  gboolean found = FALSE;

  for (size_t i = 0; i < proto->n_opset_import; i++)
    if (g_strcmp0 (proto->opset_import[i]->domain, "devtech") == 0)
      {
        g_assert_cmpint (proto->opset_import[i]->version, ==, 1);
        found = TRUE;
      }
  g_assert_true (found);
  g_assert_cmpstr (proto->graph->node[proto->graph->n_node - 1]->op_type, ==, "FooOp");
  g_assert_cmpstr (proto->graph->node[proto->graph->n_node - 1]->domain, ==, "devtech");
}

/* The files were written by python's protobuf, which writes canonical bytes; an
 * unchanged model must come back byte for byte, mapped payloads included. */
static void
test_serialize_is_identity (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (test_walkthrough_models); i++)
    {
      g_autoptr (OnyxModel) model = test_load_data (test_walkthrough_models[i]);
      g_autoptr (GBytes) original = read_data_file (test_walkthrough_models[i]);
      g_autoptr (GBytes) saved = onyx_model_serialize (model);
      g_assert_true (g_bytes_equal (original, saved));
    }
}

static void
append_varint (GByteArray *out, guint64 value)
{
  do
    {
      guint8 byte = (value & 0x7f) | (value > 0x7f ? 0x80 : 0);
      g_byte_array_append (out, &byte, 1);
      value >>= 7;
    }
  while (value != 0);
}

static void
append_bytes_field (GByteArray *out, guint field, const guint8 *data, gsize len)
{
  append_varint (out, (field << 3) | 2);
  append_varint (out, len);
  g_byte_array_append (out, data, len);
}

static void
assert_copy_is_equal (const Onnx__ModelProto *proto)
{
  ProtobufCMessage *copy = onyx_proto_copy (&proto->base);
  g_assert_true (onyx_proto_equal (copy, &proto->base));
  protobuf_c_message_free_unpacked (copy, NULL);
}

static void
assert_model_copies_equal (const char *path, OnyxModel *model, gpointer unused)
{
  (void) path, (void) unused;
  assert_copy_is_equal (onyx_model_get_proto (model));
}

/* Every kind of field (strings, bytes, oneofs, repeated scalars and messages,
 * subgraphs, functions) copies to an equal message: the tests' models and a sample
 * of the corpus. */
static void
test_copy_is_equal (void)
{
  g_assert_cmpuint (test_on_data_and_corpus (7, assert_model_copies_equal, NULL), >, 7);
}

/* Fields from newer ONNX releases (unknown to Debian's onnx.proto) must survive a
 * load/save, at the top level and inside the graph. */
static void
test_unknown_fields_survive (void)
{
  Onnx__ModelProto *proto = test_model_new ();
  Onnx__GraphProto *graph = proto->graph;
  g_autoptr (GByteArray) graph_bytes = g_byte_array_new ();
  g_autoptr (GByteArray) file = g_byte_array_new ();
  const guint8 unknown_graph_field[] = { 0xa2, 0x06, 0x03, 'n', 'e', 'w' }; /* field 100, "new" */
  const guint8 unknown_model_field[] = { 0xf8, 0x07, 0x2a };                 /* field 127 = 42 */
  g_autoptr (OnyxModel) model = NULL;
  g_autoptr (GBytes) saved = NULL;
  g_autoptr (GError) error = NULL;
  gsize len;

  g_byte_array_set_size (graph_bytes, protobuf_c_message_get_packed_size (&graph->base));
  protobuf_c_message_pack (&graph->base, graph_bytes->data);
  g_byte_array_append (graph_bytes, unknown_graph_field, sizeof unknown_graph_field);
  proto->graph = NULL;
  len = protobuf_c_message_get_packed_size (&proto->base);
  g_byte_array_set_size (file, len);
  protobuf_c_message_pack (&proto->base, file->data);
  append_bytes_field (file, 7, graph_bytes->data, graph_bytes->len);
  g_byte_array_append (file, unknown_model_field, sizeof unknown_model_field);
  protobuf_c_message_free_unpacked (&graph->base, NULL);
  protobuf_c_message_free_unpacked (&proto->base, NULL);

  model = onyx_model_new_from_data (file->data, file->len, "unknown.onnx", NULL, &error);
  g_assert_no_error (error);
  saved = onyx_model_serialize (model);
  g_assert_nonnull (memmem (g_bytes_get_data (saved, NULL), g_bytes_get_size (saved),
                            unknown_graph_field, sizeof unknown_graph_field));
  g_assert_nonnull (memmem (g_bytes_get_data (saved, NULL), g_bytes_get_size (saved),
                            unknown_model_field, sizeof unknown_model_field));
  assert_copy_is_equal (onyx_model_get_proto (model));
}

static void
assert_load_fails (const guint8 *data, gsize len, OnyxModelError code)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = onyx_model_new_from_data (data, len, "bad.onnx", NULL, &error);

  g_assert_null (model);
  g_assert_error (error, ONYX_MODEL_ERROR, (gint) code);
  /* One clear message that names the file. */
  g_assert_true (g_str_has_prefix (error->message, "bad.onnx: "));
  g_assert_null (strchr (error->message, '\n'));
}

static void
test_empty_file (void)
{
  g_autofree char *dir = g_dir_make_tmp ("onyx-test-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "empty.onnx", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = NULL;

  g_assert_true (g_file_set_contents (path, "", 0, NULL));
  model = onyx_model_new_from_file (path, &error);
  g_assert_null (model);
  g_assert_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_EMPTY);
  g_assert_cmpstr (error->message, ==, "empty.onnx: the file is empty");
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_missing_file_and_folder (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = onyx_model_new_from_file ("/nonexistent/x.onnx", &error);

  g_assert_null (model);
  g_assert_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_IO);
  g_assert_true (g_str_has_prefix (error->message, "x.onnx: "));
  g_clear_error (&error);
  model = onyx_model_new_from_file ("/tmp", &error);
  g_assert_null (model);
  g_assert_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_IO);
}

/* Every prefix of a real model either fails with a message or decodes: no crash. */
static void
test_truncated (void)
{
  g_autoptr (GBytes) bytes = read_data_file ("model_foo.onnx");
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);
  guint n_failed = 0;

  for (gsize cut = 1; cut < len; cut++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (OnyxModel) model = onyx_model_new_from_data (data, cut, "cut.onnx", NULL, &error);
      if (model == NULL)
        {
          g_assert_nonnull (error);
          g_assert_true (g_str_has_prefix (error->message, "cut.onnx: "));
          n_failed++;
        }
    }
  g_assert_cmpuint (n_failed, >, len / 2);
  /* Cutting inside the graph field is reported as truncation. */
  assert_load_fails (data, len / 2, ONYX_MODEL_ERROR_TRUNCATED);
}

static void
test_not_protobuf (void)
{
  const char *text = "{\"this\": \"is json, not a model\"}";
  const char *more_text = "hello world, this is plain text\n";

  assert_load_fails ((const guint8 *) text, strlen (text), ONYX_MODEL_ERROR_MALFORMED);
  /* Text can happen to be valid protobuf; it still has no graph. */
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (OnyxModel) model = onyx_model_new_from_data ((const guint8 *) more_text,
                                                            strlen (more_text), "bad.onnx", NULL,
                                                            &error);
    g_assert_null (model);
    g_assert_nonnull (error);
  }
}

static void
test_random_bytes (void)
{
  GRand *rand = g_rand_new_with_seed (1234);
  guint8 buffer[512];

  for (guint round = 0; round < 2000; round++)
    {
      gsize len = 1 + g_rand_int_range (rand, 0, sizeof buffer);
      g_autoptr (GError) error = NULL;
      g_autoptr (OnyxModel) model = NULL;

      for (gsize i = 0; i < len; i++)
        buffer[i] = (guint8) g_rand_int_range (rand, 0, 256);
      model = onyx_model_new_from_data (buffer, len, "random.onnx", NULL, &error);
      g_assert_true ((model == NULL) == (error != NULL));
    }
  g_rand_free (rand);
}

static void
test_wrong_field_type (void)
{
  /* Field 7 (graph) encoded as a varint. */
  const guint8 data[] = { 0x08, 0x07, 0x38, 0x05 };
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = onyx_model_new_from_data (data, sizeof data, "bad.onnx", NULL, &error);

  g_assert_null (model);
  g_assert_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_MALFORMED);
  g_assert_nonnull (strstr (error->message, "'graph'"));
  g_assert_nonnull (strstr (error->message, "ModelProto"));
}

static void
test_huge_declared_size (void)
{
  /* graph claims 4 GiB - 1 bytes; initializer raw_data claims more than exists. */
  const guint8 huge_graph[] = { 0x08, 0x07, 0x3a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00 };
  const guint8 huge_varint_length[] = { 0x3a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
  g_autoptr (GByteArray) nested = g_byte_array_new ();
  const guint8 tensor[] = { 0x4a, 0xff, 0xff, 0x7f, 0x01, 0x02 }; /* raw_data of 2 MiB, 2 bytes given */

  assert_load_fails (huge_graph, sizeof huge_graph, ONYX_MODEL_ERROR_TRUNCATED);
  assert_load_fails (huge_varint_length, sizeof huge_varint_length, ONYX_MODEL_ERROR_TRUNCATED);
  /* graph { initializer { raw_data … } } */
  {
    g_autoptr (GByteArray) graph = g_byte_array_new ();
    append_bytes_field (graph, 5, tensor, sizeof tensor);
    append_bytes_field (nested, 7, graph->data, graph->len);
  }
  assert_load_fails (nested->data, nested->len, ONYX_MODEL_ERROR_TRUNCATED);
}

/* Graph > node > attribute > graph, thousands deep: refused, not a stack overflow. */
static void
test_deep_nesting (void)
{
  g_autoptr (GByteArray) inner = g_byte_array_new ();

  for (guint level = 0; level < 3000; level++)
    {
      g_autoptr (GByteArray) attribute = g_byte_array_new ();
      g_autoptr (GByteArray) node = g_byte_array_new ();
      g_autoptr (GByteArray) graph = g_byte_array_new ();

      append_bytes_field (attribute, 6, inner->data, inner->len); /* AttributeProto.g */
      append_bytes_field (node, 5, attribute->data, attribute->len); /* NodeProto.attribute */
      append_bytes_field (graph, 1, node->data, node->len);          /* GraphProto.node */
      g_byte_array_set_size (inner, 0);
      g_byte_array_append (inner, graph->data, graph->len);
    }
  {
    g_autoptr (GByteArray) model = g_byte_array_new ();
    append_bytes_field (model, 7, inner->data, inner->len);
    assert_load_fails (model->data, model->len, ONYX_MODEL_ERROR_TOO_DEEP);
  }
}

static void
test_no_graph (void)
{
  const guint8 data[] = { 0x08, 0x07 }; /* ir_version 7 only */
  assert_load_fails (data, sizeof data, ONYX_MODEL_ERROR_NOT_A_MODEL);
}

/* A model with one initializer "w" whose data is external at `location`. */
static GBytes *
external_model (const char *location, const char *offset, const char *length)
{
  Onnx__ModelProto *proto = test_model_new ();
  const int64_t dims[] = { 4 };
  Onnx__TensorProto *tensor = test_initializer ("w", 1, dims);
  const char *keys[] = { "location", "offset", "length" };
  const char *values[] = { location, offset, length };
  GBytes *bytes;

  g_clear_pointer (&tensor->raw_data.data, g_free);
  tensor->raw_data.len = 0;
  tensor->has_raw_data = FALSE;
  tensor->has_data_location = TRUE;
  tensor->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      Onnx__StringStringEntryProto *entry;
      if (values[i] == NULL)
        continue;
      entry = g_new0 (Onnx__StringStringEntryProto, 1);
      onnx__string_string_entry_proto__init (entry);
      entry->key = g_strdup (keys[i]);
      entry->value = g_strdup (values[i]);
      TEST_APPEND (tensor->external_data, tensor->n_external_data, entry);
    }
  TEST_APPEND (proto->graph->initializer, proto->graph->n_initializer, tensor);
  bytes = test_model_pack (proto);
  protobuf_c_message_free_unpacked (&proto->base, NULL);
  return bytes;
}

static OnyxModel *
write_and_load (const char *dir, GBytes *bytes, GError **error)
{
  g_autofree char *path = g_build_filename (dir, "ext.onnx", NULL);
  g_assert_true (g_file_set_contents (path, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), NULL));
  return onyx_model_new_from_file (path, error);
}

static void
assert_external_refused (const char *dir, const char *location)
{
  g_autoptr (GBytes) bytes = external_model (location, NULL, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = write_and_load (dir, bytes, &error);

  g_assert_null (model);
  g_assert_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_EXTERNAL_DATA);
  g_assert_true (g_str_has_prefix (error->message, "ext.onnx: "));
}

static void
test_external_data (void)
{
  g_autofree char *root = g_dir_make_tmp ("onyx-ext-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (root, "model", NULL);
  g_autofree char *weights = g_build_filename (dir, "weights.bin", NULL);
  g_autofree char *outside = g_build_filename (root, "secret.bin", NULL);
  g_autofree char *link_out = g_build_filename (dir, "link.bin", NULL);
  g_autofree char *link_dev = g_build_filename (dir, "dev.bin", NULL);
  const float values[] = { 0, 1, 2, 3, 4, 5 };

  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (weights, (const char *) values, sizeof values, NULL));
  g_assert_true (g_file_set_contents (outside, "secret", 6, NULL));
  g_assert_cmpint (symlink (outside, link_out), ==, 0);
  g_assert_cmpint (symlink ("/dev/zero", link_dev), ==, 0);

  /* Inside the folder: loads, and reads the right slice without copying the file. */
  {
    g_autoptr (GBytes) bytes = external_model ("weights.bin", "8", "16");
    g_autoptr (GError) error = NULL;
    g_autoptr (OnyxModel) model = write_and_load (dir, bytes, &error);
    g_autoptr (GBytes) data = NULL;
    const Onnx__TensorProto *tensor;

    g_assert_no_error (error);
    tensor = onyx_model_get_proto (model)->graph->initializer[0];
    g_assert_true (onyx_tensor_is_external (tensor));
    data = onyx_external_read (tensor, onyx_model_get_base_dir (model), &error);
    g_assert_no_error (error);
    g_assert_cmpuint (g_bytes_get_size (data), ==, 16);
    g_assert_cmpfloat (((const float *) g_bytes_get_data (data, NULL))[0], ==, 2.0f);
  }
  /* A length past the end of the file is an error when read, not a crash. */
  {
    g_autoptr (GBytes) bytes = external_model ("weights.bin", "8", "4096");
    g_autoptr (GError) error = NULL;
    g_autoptr (OnyxModel) model = write_and_load (dir, bytes, &error);
    g_autoptr (GBytes) data = NULL;

    g_assert_no_error (error);
    data = onyx_external_read (onyx_model_get_proto (model)->graph->initializer[0],
                               onyx_model_get_base_dir (model), &error);
    g_assert_null (data);
    g_assert_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_EXTERNAL_DATA);
  }

  assert_external_refused (dir, "../secret.bin");
  assert_external_refused (dir, "sub/../../secret.bin");
  assert_external_refused (dir, "..\\secret.bin");
  assert_external_refused (dir, outside);
  assert_external_refused (dir, "C:\\weights.bin");
  assert_external_refused (dir, "link.bin");
  assert_external_refused (dir, "dev.bin");
  assert_external_refused (dir, "");

  /* Saved into another folder, a model takes its external data with it: the file is
   * copied beside it, the original left as it was, and the saved model reads the
   * same values there. */
  {
    g_autoptr (GBytes) bytes = external_model ("weights.bin", NULL, NULL);
    g_autoptr (GError) error = NULL;
    g_autoptr (OnyxModel) model = write_and_load (dir, bytes, &error);
    g_autofree char *elsewhere = g_build_filename (root, "moved.onnx", NULL);
    g_autofree char *copied = g_build_filename (root, "weights.bin", NULL);
    g_autoptr (OnyxModel) moved = NULL;
    g_autoptr (GBytes) data = NULL;
    g_autofree char *original = NULL;
    gsize length = 0;

    g_assert_no_error (error);
    g_assert_true (onyx_model_save (model, elsewhere, &error));
    g_assert_no_error (error);
    g_assert_true (g_file_test (copied, G_FILE_TEST_IS_REGULAR));
    g_assert_true (g_file_get_contents (weights, &original, &length, NULL));
    g_assert_cmpmem (original, length, values, sizeof values);
    moved = onyx_model_new_from_file (elsewhere, &error);
    g_assert_no_error (error);
    data = onyx_external_read (onyx_model_get_proto (moved)->graph->initializer[0], onyx_model_get_base_dir (moved),
                               &error);
    g_assert_no_error (error);
    g_assert_cmpmem (g_bytes_get_data (data, NULL), g_bytes_get_size (data), values, sizeof values);
    /* Again over the copy: it is replaced whole. */
    g_assert_true (onyx_model_save (model, elsewhere, &error));
    g_assert_no_error (error);
    g_clear_pointer (&data, g_bytes_unref);
    g_clear_object (&moved);
    g_unlink (elsewhere);
    g_unlink (copied);
  }

  g_unlink (link_dev);
  g_unlink (link_out);
  g_unlink (outside);
  g_unlink (weights);
  {
    g_autofree char *ext = g_build_filename (dir, "ext.onnx", NULL);
    g_unlink (ext);
  }
  g_rmdir (dir);
  g_rmdir (root);
}

static void
test_save_atomic (void)
{
  g_autofree char *dir = g_dir_make_tmp ("onyx-save-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "model.onnx", NULL);
  g_autofree char *sub = g_build_filename (dir, "folder.onnx", NULL);
  g_autofree char *missing = g_build_filename (dir, "no-such-folder", "m.onnx", NULL);
  g_autoptr (OnyxModel) model = test_load_data ("model.onnx");
  g_autoptr (OnyxModel) reloaded = NULL;
  g_autoptr (GBytes) before = NULL;
  g_autoptr (GBytes) again = NULL;
  g_autoptr (GError) error = NULL;
  GStatBuf st;

  /* New file: written completely, with the usual permissions. */
  g_assert_true (onyx_model_save (model, path, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (path, 0640), ==, 0);

  /* Overwriting keeps the original's permissions and leaves no temporary file. */
  reloaded = onyx_model_new_from_file (path, &error);
  g_assert_no_error (error);
  before = onyx_model_serialize (reloaded);
  g_assert_true (onyx_model_save (reloaded, path, &error));
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0640);
  g_assert_cmpuint (test_count_dir_entries (dir), ==, 1);
  /* The model saved over its own file still reads its (old, mapped) payloads. */
  again = onyx_model_serialize (reloaded);
  g_assert_true (g_bytes_equal (before, again));

  /* A folder in the way and a missing folder: clear errors, nothing left behind. */
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  g_assert_false (onyx_model_save (model, sub, &error));
  g_assert_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_IO);
  g_assert_true (g_str_has_prefix (error->message, "folder.onnx: "));
  g_clear_error (&error);
  g_assert_false (onyx_model_save (model, missing, &error));
  g_assert_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_IO);
  g_clear_error (&error);
  g_assert_cmpuint (test_count_dir_entries (dir), ==, 2);

  g_rmdir (sub);
  g_unlink (path);
  g_rmdir (dir);
}

/* A model too large for one protobuf is saved with its large payloads in NAME.data
 * beside it (the limit lowered to 1,000 bytes for the test): it loads back with the
 * same values, and the model in memory is as it was. */
static void
test_save_too_large_for_protobuf (void)
{
  g_autofree char *source = test_data_path ("model.onnx");
  g_autofree char *dir = g_dir_make_tmp ("onyx-big-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "big.onnx", NULL);
  g_autofree char *data = g_build_filename (dir, "big.onnx.data", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = onyx_model_new_from_file (source, &error);
  g_autoptr (OnyxModel) loaded = NULL;
  g_autoptr (GBytes) before = NULL, after = NULL;
  Onnx__GraphProto *graph;
  guint n_external = 0;

  g_assert_no_error (error);
  before = onyx_model_serialize (model);
  onyx_model_set_proto_limit (1000);
  g_assert_true (onyx_model_save (model, path, &error));
  onyx_model_set_proto_limit (0);
  g_assert_no_error (error);
  after = onyx_model_serialize (model);
  g_assert_true (g_bytes_equal (before, after));
  g_assert_true (g_file_test (data, G_FILE_TEST_IS_REGULAR));
  loaded = onyx_model_new_from_file (path, &error);
  g_assert_no_error (error);
  graph = onyx_model_get_proto (loaded)->graph;
  for (size_t i = 0; i < graph->n_initializer; i++)
    {
      const Onnx__TensorProto *original = onyx_model_get_proto (model)->graph->initializer[i];
      if (!onyx_tensor_is_external (graph->initializer[i]))
        continue;
      g_autoptr (GBytes) values = onyx_external_read (graph->initializer[i], dir, &error);
      g_assert_no_error (error);
      g_assert_cmpmem (g_bytes_get_data (values, NULL), g_bytes_get_size (values), original->raw_data.data,
                       original->raw_data.len);
      n_external++;
    }
  g_assert_cmpuint (n_external, >=, 2);
  g_unlink (path);
  g_unlink (data);
  g_rmdir (dir);
}

/* Durations read as a person reads them; a graph attribute of one node is "1 node". */
static void
test_text_durations_and_plurals (void)
{
  const struct { double seconds; const char *text; } durations[] = {
    { 0.00042, "0.42 ms" }, { 0.0042, "4.2 ms" }, { 0.012, "12 ms" }, { 0.9994, "999 ms" },
    { 0.9996, "1.0 s" }, { 1.26, "1.3 s" }, { 12.4, "12 s" }, { 125.2, "2 min 05 s" },
  };
  Onnx__GraphProto body = ONNX__GRAPH_PROTO__INIT;
  Onnx__NodeProto node = ONNX__NODE_PROTO__INIT, *nodes[] = { &node };
  Onnx__AttributeProto attribute = ONNX__ATTRIBUTE_PROTO__INIT;
  Onnx__GraphProto *bodies[] = { &body, &body };
  g_autofree char *one = NULL, *two = NULL, *graphs = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (durations); i++)
    {
      g_autofree char *text = onyx_format_duration (durations[i].seconds);
      g_assert_cmpstr (text, ==, durations[i].text);
    }
  attribute.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
  attribute.g = &body;
  body.n_node = 1;
  body.node = nodes;
  one = onyx_attribute_to_string (&attribute);
  g_assert_cmpstr (one, ==, "graph (1 node)");
  body.n_node = 2;
  two = onyx_attribute_to_string (&attribute);
  g_assert_cmpstr (two, ==, "graph (2 nodes)");
  attribute.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS;
  attribute.g = NULL;
  attribute.n_graphs = 1;
  attribute.graphs = bodies;
  graphs = onyx_attribute_to_string (&attribute);
  g_assert_cmpstr (graphs, ==, "1 graph");
}

/* Names are gathered by the text before their first number: a KV cache's 64 inputs
 * are one family, names without a number or with another prefix stand alone, and too
 * few of a kind stay separate. */
static void
test_name_families (void)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) families = NULL;
  const OnyxNameFamily *f;

  g_ptr_array_add (names, g_strdup ("input_ids"));
  g_ptr_array_add (names, g_strdup ("attention_mask"));
  for (int layer = 0; layer < 32; layer++)
    {
      g_ptr_array_add (names, g_strdup_printf ("past_key_values.%d.key", layer));
      g_ptr_array_add (names, g_strdup_printf ("past_key_values.%d.value", layer));
    }
  g_ptr_array_add (names, g_strdup ("state0"));
  g_ptr_array_add (names, g_strdup ("state1"));
  for (int i = 0; i < 5; i++)
    g_ptr_array_add (names, g_strdup_printf ("h%d%s", 10 + i, i == 4 ? ".bias" : ""));
  families = onyx_name_families ((const char *const *) names->pdata, names->len, 4);
  g_assert_cmpuint (families->len, ==, 6);
  f = &g_array_index (families, OnyxNameFamily, 0);
  g_assert_cmpuint (f->n, ==, 1);
  g_assert_null (f->title);
  f = &g_array_index (families, OnyxNameFamily, 2);
  g_assert_cmpuint (f->first, ==, 2);
  g_assert_cmpuint (f->n, ==, 64);
  g_assert_cmpstr (f->title, ==, "past_key_values.0–31.key/value");
  /* Two of a kind are fewer than four: each on its own. */
  f = &g_array_index (families, OnyxNameFamily, 3);
  g_assert_cmpuint (f->n, ==, 1);
  g_assert_null (f->title);
  f = &g_array_index (families, OnyxNameFamily, 5);
  g_assert_cmpuint (f->first, ==, 68);
  g_assert_cmpuint (f->n, ==, 5);
  g_assert_cmpstr (f->title, ==, "h10–14…");
  f = &g_array_index (families, OnyxNameFamily, 4);
  g_assert_cmpuint (f->first, ==, 67);
  g_assert_null (f->title);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/walkthrough", test_walkthrough_model);
  g_test_add_func ("/model/custom-domain", test_custom_domain);
  g_test_add_func ("/model/serialize-identity", test_serialize_is_identity);
  g_test_add_func ("/model/unknown-fields", test_unknown_fields_survive);
  g_test_add_func ("/model/copy", test_copy_is_equal);
  g_test_add_func ("/model/bad/empty", test_empty_file);
  g_test_add_func ("/model/bad/missing", test_missing_file_and_folder);
  g_test_add_func ("/model/bad/truncated", test_truncated);
  g_test_add_func ("/model/bad/not-protobuf", test_not_protobuf);
  g_test_add_func ("/model/bad/random", test_random_bytes);
  g_test_add_func ("/model/bad/wrong-type", test_wrong_field_type);
  g_test_add_func ("/model/bad/huge-size", test_huge_declared_size);
  g_test_add_func ("/model/bad/deep-nesting", test_deep_nesting);
  g_test_add_func ("/model/bad/no-graph", test_no_graph);
  g_test_add_func ("/model/external-data", test_external_data);
  g_test_add_func ("/model/save-atomic", test_save_atomic);
  g_test_add_func ("/model/text/durations-plurals", test_text_durations_and_plurals);
  g_test_add_func ("/model/save-too-large-for-protobuf", test_save_too_large_for_protobuf);
  g_test_add_func ("/model/name-families", test_name_families);
  return g_test_run ();
}
