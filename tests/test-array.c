/* numpy's .npy and .npz files: Onyx reads what numpy writes, numpy reads back what
 * Onyx writes (both checked against /usr/bin/python3's numpy), and broken or hostile
 * files give an error that names the problem, never a crash. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <zip.h>

#include "onyx-array.h"
#include "onyx-test-util.h"

#define PYTHON "/usr/bin/python3"

typedef struct {
  const char *code;
  int elem_type;
} DType;

static const DType dtypes[] = {
  { "f2", 10 }, { "f4", 1 }, { "f8", 11 }, { "i1", 3 }, { "i2", 5 }, { "i4", 6 }, { "i8", 7 },
  { "u1", 2 }, { "u2", 4 }, { "u4", 12 }, { "u8", 13 }, { "b1", 9 },
};

/* The values both sides expect at index i, by numpy kind: small enough for every
 * size, exact in float16. The Python below computes the same. */
static double
expected (char kind, guint64 i)
{
  switch (kind)
    {
    case 'f': return ((double) i - 2.5) * 0.5;
    case 'i': return (double) i * 37 - 100;
    case 'u': return (double) i * 11 + 200;
    default: return (double) (i % 2);
    }
}

static const char python_values[] =
  "import sys, os, io, zipfile\n"
  "import numpy as np\n"
  "d = sys.argv[1]\n"
  "CODES = ['f2', 'f4', 'f8', 'i1', 'i2', 'i4', 'i8', 'u1', 'u2', 'u4', 'u8', 'b1']\n"
  "def values(code, n):\n"
  "    i = np.arange(n)\n"
  "    k = code.lstrip('<>|=')[0]\n"
  "    v = {'f': (i - 2.5) * 0.5, 'i': i * 37 - 100, 'u': i * 11 + 200}.get(k, i % 2)\n"
  "    return v.astype(code)\n"
  "def p(name):\n"
  "    return os.path.join(d, name)\n";

/* numpy writes every dtype Onyx reads, in every byte order and layout it meets. */
static const char python_writes[] =
  "for c in CODES:\n"
  "    np.save(p(c + '.npy'), values(c, 6).reshape(2, 3))\n"
  "    if c[1] != '1':\n"
  "        a = values('>' + c, 6).reshape(3, 2)\n"
  "        assert a.dtype.byteorder == '>'\n"
  "        np.save(p('be-' + c + '.npy'), a)\n"
  "a = np.asfortranarray(np.arange(24, dtype='<i4').reshape(2, 3, 4))\n"
  "assert a.flags.f_contiguous and not a.flags.c_contiguous\n"
  "np.save(p('fortran.npy'), a)\n"
  "np.save(p('fortran-be.npy'), np.asfortranarray(values('>f8', 6).reshape(2, 3)))\n"
  "np.save(p('scalar.npy'), np.float64(3.5))\n"
  "np.save(p('empty.npy'), np.zeros((0, 3), '<f4'))\n"
  "np.save(p('vector.npy'), np.arange(5, dtype='<i8'))\n"
  "np.save(p('extremes.npy'), np.array([-2**63, 2**63 - 1], '<i8'))\n"
  "np.save(p('extremes-u.npy'), np.array([2**64 - 1, 0], '<u8'))\n"
  "for v in [(2, 0), (3, 0)]:\n"
  "    with open(p('v%d.npy' % v[0]), 'wb') as f:\n"
  "        np.lib.format.write_array(f, values('f4', 6).reshape(2, 3), version=v)\n"
  "arrays = dict(first=values('f4', 6).reshape(2, 3), second=np.arange(5, dtype='i8'),\n"
  "              third=np.float64(3.5), big=np.arange(100000, dtype='i4'))\n"
  "np.savez(p('plain.npz'), **arrays)\n"
  "np.savez_compressed(p('compressed.npz'), **arrays)\n"
  "np.savez(p('positional.npz'), np.arange(3, dtype='u1'))\n"
  "with zipfile.ZipFile(p('compressed.npz')) as z:\n"
  "    assert all(i.compress_type == zipfile.ZIP_DEFLATED for i in z.infolist())\n"
  "np.save(p('strings.npy'), np.array(['abc', 'de'], dtype='<U5'))\n"
  "np.save(p('bytes.npy'), np.array([b'abc'], dtype='S3'))\n"
  "np.save(p('complex.npy'), np.zeros(2, '<c8'))\n"
  "np.save(p('objects.npy'), np.array([{}, None], dtype=object), allow_pickle=True)\n"
  "np.save(p('record.npy'), np.zeros(2, dtype=[('a', '<i4'), ('b', '<f4')]))\n"
  "np.save(p('dates.npy'), np.array(['2020-01-01'], dtype='M8[D]'))\n";

/* numpy loads what Onyx wrote and finds the bytes np.save would have written. */
static const char python_reads[] =
  "def same_bytes(name, a):\n"
  "    buf = io.BytesIO()\n"
  "    np.save(buf, a)\n"
  "    with open(p(name), 'rb') as f:\n"
  "        got = f.read()\n"
  "    assert got == buf.getvalue(), (name, got[:160], buf.getvalue()[:160])\n"
  "    return buf.getvalue()\n"
  "def check(name, e):\n"
  "    a = np.load(p(name))\n"
  "    assert a.dtype == e.dtype and a.shape == e.shape, (name, a.dtype, a.shape)\n"
  "    assert (a == e).all(), (name, a, e)\n"
  "    same_bytes(name, e)\n"
  "for c in CODES:\n"
  "    check('out-' + c + '.npy', values(c, 6).reshape(2, 3))\n"
  "check('out-scalar.npy', values('f8', 1).reshape(()))\n"
  "check('out-vector.npy', values('i8', 5))\n"
  "check('out-empty.npy', values('f4', 0).reshape(0, 3))\n"
  "expect = {'a': values('f4', 6).reshape(2, 3), 'b': values('i8', 5),\n"
  "          'c': values('f8', 1).reshape(()), 'd': values('f4', 0).reshape(0, 3)}\n"
  "with np.load(p('out.npz')) as z:\n"
  "    assert list(z.keys()) == list(expect), list(z.keys())\n"
  "    for k, e in expect.items():\n"
  "        assert z[k].dtype == e.dtype and z[k].shape == e.shape and (z[k] == e).all(), k\n"
  "with zipfile.ZipFile(p('out.npz')) as z:\n"
  "    assert z.testzip() is None\n"
  "    assert [i.filename for i in z.infolist()] == [k + '.npy' for k in expect]\n"
  "    assert all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist())\n"
  "    for k, e in expect.items():\n"
  "        buf = io.BytesIO()\n"
  "        np.save(buf, e)\n"
  "        assert z.read(k + '.npy') == buf.getvalue(), k\n"
  "with np.load(p('out-none.npz')) as z:\n"
  "    assert len(z.files) == 0\n"
  "print('numpy read everything back')\n";

static gboolean
run_python (const char *script, const char *dir)
{
  g_autofree char *program = g_strconcat (python_values, script, NULL);
  const char *argv[] = { PYTHON, "-c", program, dir, NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr (GError) error = NULL;
  int status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
                &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    {
      g_printerr ("python3 failed:\n%s%s", out, err);
      return FALSE;
    }
  g_test_message ("%s", out);
  return TRUE;
}

static gboolean
have_numpy (void)
{
  const char *argv[] = { PYTHON, "-c", "import numpy", NULL };
  int status = 1;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL
                     | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, NULL)
      || !g_spawn_check_wait_status (status, NULL))
    {
      g_test_skip (PYTHON " cannot import numpy");
      return FALSE;
    }
  return TRUE;
}

static void
remove_tree (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        remove_tree (child);
      else
        g_unlink (child);
    }
  if (dir != NULL)
    g_dir_close (dir);
  g_rmdir (path);
}

static char *
make_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("onyx-array-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static guint16
half_from_double (double value)
{
  float f = (float) value;
  guint32 bits;
  int exponent;

  memcpy (&bits, &f, 4);
  if ((bits & 0x7fffffff) == 0)
    return (guint16) (bits >> 16);
  exponent = (int) ((bits >> 23) & 0xff) - 127 + 15; /* normal, exact values only */
  return (guint16) ((bits >> 16 & 0x8000) | exponent << 10 | (bits >> 13 & 0x3ff));
}

static double
element (const OnyxArray *array, guint64 i)
{
  gsize size = onyx_array_element_size (array->elem_type);
  const guint8 *p = (const guint8 *) g_bytes_get_data (array->data, NULL) + i * size;
  union { guint8 u8; gint8 i8; guint16 u16; gint16 i16; guint32 u32; gint32 i32;
          guint64 u64; gint64 i64; float f; double d; } v;
  int exponent;

  memcpy (&v, p, size);
  switch (array->elem_type)
    {
    case 1: return v.f;
    case 11: return v.d;
    case 10:
      exponent = (v.u16 >> 10) & 0x1f;
      g_assert_cmpint (exponent, !=, 31);
      return (v.u16 & 0x8000 ? -1 : 1)
             * (exponent == 0 ? ldexp (v.u16 & 0x3ff, -24)
                : ldexp ((v.u16 & 0x3ff) + 1024, exponent - 25));
    case 2: case 9: return v.u8;
    case 3: return v.i8;
    case 4: return v.u16;
    case 5: return v.i16;
    case 12: return v.u32;
    case 6: return v.i32;
    case 13: return (double) v.u64;
    case 7: return (double) v.i64;
    default: g_assert_not_reached ();
    }
}

static OnyxArray *
make_array (const char *name, const DType *dtype, const gint64 *dims, gsize n_dims)
{
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (OnyxArray) probe = NULL;
  gsize size = onyx_array_element_size (dtype->elem_type);
  guint64 count;
  guint8 *data;

  bytes = g_bytes_new (NULL, 0);
  probe = onyx_array_new (NULL, dtype->elem_type, dims, n_dims, bytes);
  count = onyx_array_count (probe);
  data = g_malloc0 (MAX (count * size, 1));
  for (guint64 i = 0; i < count; i++)
    {
      double value = expected (dtype->code[0], i);
      guint8 *p = data + i * size;
      gint64 whole = (gint64) value;

      if (dtype->elem_type == 1)
        {
          float f = (float) value;
          memcpy (p, &f, 4);
        }
      else if (dtype->elem_type == 11)
        memcpy (p, &value, 8);
      else if (dtype->elem_type == 10)
        {
          guint16 half = half_from_double (value);
          memcpy (p, &half, 2);
        }
      else
        memcpy (p, &whole, size); /* little-endian: the low bytes */
    }
  g_clear_pointer (&bytes, g_bytes_unref);
  bytes = g_bytes_new_take (data, count * size);
  return onyx_array_new (name, dtype->elem_type, dims, n_dims, bytes);
}

static void
assert_array (const OnyxArray *array, const DType *dtype, const gint64 *dims, gsize n_dims)
{
  guint64 count;

  g_assert_nonnull (array);
  g_assert_cmpint (array->elem_type, ==, dtype->elem_type);
  g_assert_cmpuint (array->n_dims, ==, n_dims);
  for (gsize i = 0; i < n_dims; i++)
    g_assert_cmpint (array->dims[i], ==, dims[i]);
  count = onyx_array_count (array);
  g_assert_cmpuint (g_bytes_get_size (array->data), ==,
                    count * onyx_array_element_size (dtype->elem_type));
  for (guint64 i = 0; i < count; i++)
    g_assert_cmpfloat (element (array, i), ==, expected (dtype->code[0], i));
}

static const DType *
dtype_of (const char *code)
{
  for (gsize i = 0; i < G_N_ELEMENTS (dtypes); i++)
    if (strcmp (dtypes[i].code, code) == 0)
      return &dtypes[i];
  g_assert_not_reached ();
}

static OnyxArray *
read_ok (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) error = NULL;
  OnyxArray *array = onyx_npy_read (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (array);
  return array;
}

static void
assert_read_error (const char *dir, const char *name, const char *expected_text)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxArray) array = onyx_npy_read (path, &error);

  g_assert_null (array);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_true (g_str_has_prefix (error->message, name));
  g_assert_nonnull (strstr (error->message, expected_text));
  g_assert_nonnull (strstr (error->message, "Onyx cannot use"));
}

static void
test_basics (void)
{
  const gint64 dims[] = { 2, 3 }, negative[] = { 2, -1 }, huge[] = { G_MAXINT64, G_MAXINT64 };
  const gint64 empty[] = { G_MAXINT64, 0, G_MAXINT64 };
  g_autoptr (GBytes) bytes = g_bytes_new (NULL, 0);
  g_autoptr (OnyxArray) scalar = onyx_array_new ("s", 1, NULL, 0, bytes);
  g_autoptr (OnyxArray) matrix = onyx_array_new ("m", 1, dims, 2, bytes);
  g_autoptr (OnyxArray) bad = onyx_array_new (NULL, 1, negative, 2, bytes);
  g_autoptr (OnyxArray) big = onyx_array_new (NULL, 1, huge, 2, bytes);
  g_autoptr (OnyxArray) none = onyx_array_new (NULL, 1, empty, 3, bytes);

  for (gsize i = 0; i < G_N_ELEMENTS (dtypes); i++)
    g_assert_cmpuint (onyx_array_element_size (dtypes[i].elem_type), ==,
                      (gsize) (dtypes[i].code[1] - '0'));
  g_assert_cmpuint (onyx_array_element_size (16), ==, 0); /* bfloat16 */
  g_assert_cmpuint (onyx_array_element_size (8), ==, 0);  /* strings */
  g_assert_cmpuint (onyx_array_count (scalar), ==, 1);
  g_assert_cmpuint (onyx_array_count (matrix), ==, 6);
  g_assert_cmpuint (onyx_array_count (bad), ==, G_MAXUINT64);
  g_assert_cmpuint (onyx_array_count (big), ==, G_MAXUINT64);
  g_assert_cmpuint (onyx_array_count (none), ==, 0);
  g_assert_cmpstr (scalar->name, ==, "s");
  g_assert_null (scalar->dims);
}

static void
test_serialize (void)
{
  static const char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  const gint64 dims[] = { 2, 3 }, five[] = { 5 };
  g_autoptr (OnyxArray) array = make_array ("m", dtype_of ("f4"), dims, 2);
  g_autoptr (OnyxArray) vector = make_array ("v", dtype_of ("i8"), five, 1);
  g_autoptr (OnyxArray) scalar = make_array ("s", dtype_of ("b1"), NULL, 0);
  g_autoptr (OnyxArray) back = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = onyx_npy_serialize (array, &error);
  g_autoptr (GBytes) vector_bytes = onyx_npy_serialize (vector, &error);
  g_autoptr (GBytes) scalar_bytes = onyx_npy_serialize (scalar, &error);
  const guint8 *data;
  gsize len;

  g_assert_no_error (error);
  data = g_bytes_get_data (bytes, &len);
  /* Magic, 1.0, a header padded to 128 bytes in all, as np.save writes it. */
  g_assert_cmpuint (len, ==, 128 + 24);
  g_assert_cmpmem (data, 10, "\x93NUMPY\x01\x00\x76\x00", 10);
  g_assert_cmpmem (data + 10, strlen (dict), dict, strlen (dict));
  for (gsize i = 10 + strlen (dict); i < 127; i++)
    g_assert_cmpint (data[i], ==, ' ');
  g_assert_cmpint (data[127], ==, '\n');
  back = onyx_npy_parse (data, len, "m", &error);
  g_assert_no_error (error);
  assert_array (back, dtype_of ("f4"), dims, 2);
  g_assert_cmpstr (back->name, ==, "m");

  data = g_bytes_get_data (vector_bytes, &len);
  g_assert_nonnull (g_strstr_len ((const char *) data + 10, 118, "'descr': '<i8'"));
  g_assert_nonnull (g_strstr_len ((const char *) data + 10, 118, "'shape': (5,), }"));
  g_clear_pointer (&back, onyx_array_free);
  back = onyx_npy_parse (data, len, "v", &error);
  g_assert_no_error (error);
  assert_array (back, dtype_of ("i8"), five, 1);

  data = g_bytes_get_data (scalar_bytes, &len);
  g_assert_cmpuint (len, ==, 128 + 1);
  g_assert_cmpint (data[127], ==, '\n');
  g_assert_nonnull (g_strstr_len ((const char *) data + 10, 118, "'descr': '|b1'"));
  g_assert_nonnull (g_strstr_len ((const char *) data + 10, 118, "'shape': (), }"));
  g_clear_pointer (&back, onyx_array_free);
  back = onyx_npy_parse (data, len, NULL, &error);
  g_assert_no_error (error);
  assert_array (back, dtype_of ("b1"), NULL, 0);
  g_assert_null (back->name);
}

/* A .npy with a hand-written header dict and data_len zero bytes. */
static GBytes *
npy_with_header (const char *dict, guint8 major, const void *data, gsize data_len)
{
  GByteArray *out = g_byte_array_new ();
  gsize header_len = strlen (dict) + 1;
  guint8 len_bytes[4] = { header_len & 0xff, header_len >> 8, 0, 0 };

  g_byte_array_append (out, (const guint8 *) "\x93NUMPY", 6);
  g_byte_array_append (out, (const guint8[]) { major, 0 }, 2);
  g_byte_array_append (out, len_bytes, major == 1 ? 2 : 4);
  g_byte_array_append (out, (const guint8 *) dict, (guint) strlen (dict));
  g_byte_array_append (out, (const guint8 *) "\n", 1);
  for (gsize i = 0; i < data_len; i++)
    g_byte_array_append (out, data != NULL ? (const guint8 *) data + i : (const guint8 *) "", 1);
  return g_byte_array_free_to_bytes (out);
}

static OnyxArray *
parse_header (const char *dict, guint8 major, const void *data, gsize data_len, GError **error)
{
  g_autoptr (GBytes) bytes = npy_with_header (dict, major, data, data_len);
  gsize len;
  const guint8 *raw = g_bytes_get_data (bytes, &len);

  return onyx_npy_parse (raw, len, "x.npy", error);
}

static void
test_headers (void)
{
  /* Any key order, quotes and spacing, no trailing comma, Python 2's 3L, '=' and '|'. */
  const char *ok[] = {
    "{'shape': (2, 3), 'fortran_order': False, 'descr': '<i2'}",
    "{ \"descr\" : \"=i2\" , \"fortran_order\":False,\"shape\":(2,3,) , }",
    "{'descr':'<i2','fortran_order':False,'shape':(2L, 3L)}",
    "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }   ",
  };
  const gint16 ramp[] = { 0, 1, 2, 3, 4, 5 };
  const guint8 big_endian[] = { 0, 1, 0, 2, 1, 0 };  /* '>i2' 1, 2, 256 */
  const gint16 fortran[] = { 0, 3, 1, 4, 2, 5 };     /* (2, 3) by columns */
  const guint8 bools[] = { 0, 1 };

  for (gsize i = 0; i < G_N_ELEMENTS (ok); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (OnyxArray) array = parse_header (ok[i], 1, ramp, sizeof ramp, &error);

      g_assert_no_error (error);
      g_assert_cmpint (array->elem_type, ==, 5);
      g_assert_cmpuint (array->n_dims, ==, 2);
      g_assert_cmpmem (g_bytes_get_data (array->data, NULL), 12, ramp, 12);
    }
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (OnyxArray) be = parse_header ("{'descr': '>i2', 'fortran_order': False, "
                                             "'shape': (3,), }", 2, big_endian, 6, &error);
    g_autoptr (OnyxArray) f = parse_header ("{'descr': '<i2', 'fortran_order': True, "
                                            "'shape': (2, 3), }", 3, fortran, 12, &error);
    g_autoptr (OnyxArray) b = parse_header ("{'descr': '|b1', 'fortran_order': False, "
                                            "'shape': (2,), }", 1, bools, 2, &error);
    const gint16 swapped[] = { 1, 2, 256 };

    g_assert_no_error (error);
    g_assert_cmpmem (g_bytes_get_data (be->data, NULL), 6, swapped, 6);
    g_assert_cmpmem (g_bytes_get_data (f->data, NULL), 12, ramp, 12);
    g_assert_cmpint (b->elem_type, ==, 9);
  }
}

static void
assert_parse_error (const void *bytes, gsize len, const char *expected_text)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxArray) array = onyx_npy_parse (bytes, len, "x.npy", &error);

  g_assert_null (array);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_true (g_str_has_prefix (error->message, "x.npy: "));
  if (strstr (error->message, expected_text) == NULL)
    g_error ("“%s” does not say “%s”", error->message, expected_text);
}

static void
assert_header_error (const char *dict, gsize data_len, const char *expected_text)
{
  g_autoptr (GBytes) bytes = npy_with_header (dict, 1, NULL, data_len);

  assert_parse_error (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), expected_text);
}

static void
test_errors (void)
{
  const gint64 dims[] = { 2, 3 };
  g_autoptr (OnyxArray) array = make_array ("m", dtype_of ("f4"), dims, 2);
  g_autoptr (GBytes) good = onyx_npy_serialize (array, NULL);
  g_autofree guint8 *bad_magic = NULL;
  g_autoptr (GString) many = g_string_new ("{'descr': '<f4', 'fortran_order': False, 'shape': (");
  gsize len;
  const guint8 *data = g_bytes_get_data (good, &len);

  /* Every prefix of a good file, down to nothing: an error, never a read past it. */
  for (gsize cut = 0; cut < len; cut++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree guint8 *prefix = g_memdup2 (data, cut);
      g_autoptr (OnyxArray) none = onyx_npy_parse (prefix, cut, "x.npy", &error);
      g_assert_null (none);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    }
  assert_parse_error (data, len - 1, "truncated: shape (2, 3) of '<f4' needs 24 bytes");
  assert_parse_error (data, 100, "truncated: its header claims");
  bad_magic = g_memdup2 (data, len);
  bad_magic[5] = 'Z';
  assert_parse_error (bad_magic, len, "not a .npy file");
  bad_magic[5] = 'Y';
  bad_magic[6] = 4;
  assert_parse_error (bad_magic, len, "format version");

  assert_header_error ("{'descr': '<U5', 'fortran_order': False, 'shape': (2,), }", 40,
                       "Onyx cannot use dtype '<U5' (unicode strings)");
  assert_header_error ("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16,
                       "'<c8' (complex numbers)");
  assert_header_error ("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (2,), }", 8,
                       "structured");
  assert_header_error ("{'descr': '<f4', 'fortran_order': False, "
                       "'shape': (9223372036854775807, 9223372036854775807), }", 0, "too large");
  assert_header_error ("{'descr': '<f4', 'fortran_order': False, "
                       "'shape': (4611686018427387904,), }", 0, "too large");
  assert_header_error ("{'descr': '<f4', 'fortran_order': False, "
                       "'shape': (99999999999999999999999,), }", 0, "too large");
  assert_header_error ("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", 0,
                       "negative");
  assert_header_error ("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 12,
                       "12 bytes of data where shape (2,) of '<f4' needs 8");
  assert_header_error ("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}", 24,
                       "key other");
  assert_header_error ("{'descr': '<f4', 'fortran_order': False}", 4, "no 'shape'");
  assert_header_error ("{'descr': '<f4', 'fortran_order': Maybe, 'shape': ()}", 4,
                       "fortran_order");
  assert_header_error ("{'descr': '<f4, 'fortran_order': False, 'shape': ()}", 4,
                       "not a Python dict");
  assert_header_error ("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3}", 24,
                       "not a tuple of integers");
  assert_header_error ("{'descr': '<f4', 'fortran_order': False, 'shape': (), } x", 4,
                       "more after the dict");
  assert_header_error ("['descr']", 4, "not a Python dict");
  for (int i = 0; i < 65; i++)
    g_string_append (many, "1, ");
  g_string_append (many, "), }");
  assert_header_error (many->str, 4, "too many dimensions");
}

/* Random bytes changed in a good .npy and .npz: whatever comes out, no crash (the
 * sanitizer build checks every read). */
static void
test_mangled (void)
{
  const gint64 dims[] = { 4, 3 };
  g_autoptr (OnyxArray) array = make_array ("m", dtype_of ("f8"), dims, 2);
  g_autoptr (GBytes) good = onyx_npy_serialize (array, NULL);
  g_autoptr (GPtrArray) arrays = g_ptr_array_new ();
  g_autofree char *dir = make_dir ();
  g_autofree char *npz = g_build_filename (dir, "m.npz", NULL);
  g_autofree char *mangled = g_build_filename (dir, "mangled.npz", NULL);
  g_autofree guint8 *zip_bytes = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  gsize len, zip_len;
  const guint8 *data = g_bytes_get_data (good, &len);

  for (int round = 0; round < 2000; round++)
    {
      g_autofree guint8 *copy = g_memdup2 (data, len);
      g_autoptr (OnyxArray) out = NULL;
      g_autoptr (GError) ignored = NULL;

      for (int k = g_rand_int_range (rand, 1, 4); k > 0; k--)
        copy[g_rand_int_range (rand, 0, 128)] = (guint8) g_rand_int_range (rand, 0, 256);
      out = onyx_npy_parse (copy, len, "x", &ignored);
      g_assert_true ((out == NULL) != (ignored == NULL));
    }

  g_ptr_array_add (arrays, array);
  g_assert_true (onyx_npz_write (npz, arrays, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (npz, (char **) &zip_bytes, &zip_len, NULL));
  for (int round = 0; round < 300; round++)
    {
      g_autofree guint8 *copy = g_memdup2 (zip_bytes, zip_len);
      g_autoptr (GPtrArray) out = NULL;
      g_autoptr (GError) ignored = NULL;

      copy[g_rand_int_range (rand, 0, (gint32) zip_len)] = (guint8) g_rand_int_range (rand, 0, 256);
      g_assert_true (g_file_set_contents (mangled, (const char *) copy, (gssize) zip_len, NULL));
      out = onyx_npz_read (mangled, &ignored);
      g_assert_true ((out == NULL) != (ignored == NULL));
    }
  remove_tree (dir);
}

static void
test_numpy_writes (void)
{
  g_autofree char *dir = NULL;
  const char *npz_names[] = { "plain.npz", "compressed.npz" };

  if (!have_numpy ())
    return;
  dir = make_dir ();
  g_assert_true (run_python (python_writes, dir));

  for (gsize i = 0; i < G_N_ELEMENTS (dtypes); i++)
    {
      const gint64 dims[] = { 2, 3 }, be_dims[] = { 3, 2 };
      g_autofree char *name = g_strconcat (dtypes[i].code, ".npy", NULL);
      g_autofree char *be_name = g_strconcat ("be-", dtypes[i].code, ".npy", NULL);
      g_autoptr (OnyxArray) array = read_ok (dir, name);
      g_autoptr (OnyxArray) be = NULL;

      assert_array (array, &dtypes[i], dims, 2);
      g_assert_cmpstr (array->name, ==, dtypes[i].code);
      if (dtypes[i].code[1] == '1')
        continue;
      be = read_ok (dir, be_name);
      assert_array (be, &dtypes[i], be_dims, 2);
    }
  {
    const gint64 cube[] = { 2, 3, 4 }, matrix[] = { 2, 3 }, empty[] = { 0, 3 }, five[] = { 5 };
    g_autoptr (OnyxArray) fortran = read_ok (dir, "fortran.npy");
    g_autoptr (OnyxArray) fortran_be = read_ok (dir, "fortran-be.npy");
    g_autoptr (OnyxArray) scalar = read_ok (dir, "scalar.npy");
    g_autoptr (OnyxArray) none = read_ok (dir, "empty.npy");
    g_autoptr (OnyxArray) vector = read_ok (dir, "vector.npy");
    g_autoptr (OnyxArray) extremes = read_ok (dir, "extremes.npy");
    g_autoptr (OnyxArray) extremes_u = read_ok (dir, "extremes-u.npy");
    g_autoptr (OnyxArray) v2 = read_ok (dir, "v2.npy");
    g_autoptr (OnyxArray) v3 = read_ok (dir, "v3.npy");
    const gint64 *ints = g_bytes_get_data (extremes->data, NULL);
    const guint64 *uints = g_bytes_get_data (extremes_u->data, NULL);

    g_assert_cmpuint (fortran->n_dims, ==, 3);
    g_assert_cmpmem (fortran->dims, sizeof cube, cube, sizeof cube);
    for (guint64 i = 0; i < 24; i++)
      g_assert_cmpfloat (element (fortran, i), ==, (double) i);
    assert_array (fortran_be, dtype_of ("f8"), matrix, 2);
    g_assert_cmpuint (scalar->n_dims, ==, 0);
    g_assert_cmpint (scalar->elem_type, ==, 11);
    g_assert_cmpfloat (element (scalar, 0), ==, 3.5);
    assert_array (none, dtype_of ("f4"), empty, 2);
    g_assert_cmpuint (vector->n_dims, ==, 1);
    g_assert_cmpmem (vector->dims, sizeof five, five, sizeof five);
    g_assert_cmpint (ints[0], ==, G_MININT64);
    g_assert_cmpint (ints[1], ==, G_MAXINT64);
    g_assert_cmpuint (uints[0], ==, G_MAXUINT64);
    assert_array (v2, dtype_of ("f4"), matrix, 2);
    assert_array (v3, dtype_of ("f4"), matrix, 2);
  }
  for (gsize n = 0; n < G_N_ELEMENTS (npz_names); n++)
    {
      g_autofree char *path = g_build_filename (dir, npz_names[n], NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (GPtrArray) arrays = onyx_npz_read (path, &error);
      const gint64 matrix[] = { 2, 3 };
      OnyxArray *big;

      g_assert_no_error (error);
      g_assert_cmpuint (arrays->len, ==, 4);
      assert_array (g_ptr_array_index (arrays, 0), dtype_of ("f4"), matrix, 2);
      g_assert_cmpstr (((OnyxArray *) g_ptr_array_index (arrays, 0))->name, ==, "first");
      g_assert_cmpstr (((OnyxArray *) g_ptr_array_index (arrays, 1))->name, ==, "second");
      g_assert_cmpstr (((OnyxArray *) g_ptr_array_index (arrays, 2))->name, ==, "third");
      g_assert_cmpfloat (element (g_ptr_array_index (arrays, 2), 0), ==, 3.5);
      big = g_ptr_array_index (arrays, 3);
      g_assert_cmpstr (big->name, ==, "big");
      g_assert_cmpuint (onyx_array_count (big), ==, 100000);
      for (guint64 i = 0; i < 100000; i++)
        g_assert_cmpfloat (element (big, i), ==, (double) i);
    }
  {
    g_autofree char *path = g_build_filename (dir, "positional.npz", NULL);
    g_autoptr (GPtrArray) arrays = onyx_npz_read (path, NULL);

    g_assert_cmpuint (arrays->len, ==, 1);
    g_assert_cmpstr (((OnyxArray *) g_ptr_array_index (arrays, 0))->name, ==, "arr_0");
  }
  assert_read_error (dir, "strings.npy", "dtype '<U5' (unicode strings)");
  assert_read_error (dir, "bytes.npy", "dtype '|S3' (byte strings)");
  assert_read_error (dir, "complex.npy", "dtype '<c8' (complex numbers)");
  assert_read_error (dir, "objects.npy", "dtype '|O' (Python objects)");
  assert_read_error (dir, "record.npy", "structured");
  assert_read_error (dir, "dates.npy", "dtype '<M8[D]'");
  remove_tree (dir);
}

static void
test_numpy_reads (void)
{
  const gint64 matrix[] = { 2, 3 }, five[] = { 5 }, empty[] = { 0, 3 };
  g_autoptr (GPtrArray) arrays = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_array_free);
  g_autoptr (GPtrArray) none = g_ptr_array_new ();
  g_autoptr (GPtrArray) back = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *npz = NULL;
  g_autofree char *npz_none = NULL;
  struct { const char *name; OnyxArray *array; } singles[] = {
    { "out-vector.npy", make_array ("b", dtype_of ("i8"), five, 1) },
    { "out-scalar.npy", make_array ("c", dtype_of ("f8"), NULL, 0) },
    { "out-empty.npy", make_array ("d", dtype_of ("f4"), empty, 2) },
  };

  /* Onyx's own round trip first: it needs no numpy. */
  dir = make_dir ();
  npz = g_build_filename (dir, "out.npz", NULL);
  npz_none = g_build_filename (dir, "out-none.npz", NULL);
  g_ptr_array_add (arrays, make_array ("a", dtype_of ("f4"), matrix, 2));
  for (gsize i = 0; i < G_N_ELEMENTS (singles); i++)
    g_ptr_array_add (arrays, singles[i].array);
  g_assert_true (onyx_npz_write (npz, arrays, &error));
  g_assert_no_error (error);
  g_assert_true (onyx_npz_write (npz_none, none, &error));
  g_assert_no_error (error);
  back = onyx_npz_read (npz, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->len, ==, 4);
  assert_array (g_ptr_array_index (back, 0), dtype_of ("f4"), matrix, 2);
  assert_array (g_ptr_array_index (back, 1), dtype_of ("i8"), five, 1);
  assert_array (g_ptr_array_index (back, 2), dtype_of ("f8"), NULL, 0);
  g_assert_cmpstr (((OnyxArray *) g_ptr_array_index (back, 3))->name, ==, "d");
  assert_array (g_ptr_array_index (back, 3), dtype_of ("f4"), empty, 2);
  g_clear_pointer (&back, g_ptr_array_unref);
  back = onyx_npz_read (npz_none, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->len, ==, 0);

  for (gsize i = 0; i < G_N_ELEMENTS (dtypes); i++)
    {
      g_autoptr (OnyxArray) array = make_array (dtypes[i].code, &dtypes[i], matrix, 2);
      g_autoptr (GBytes) bytes = onyx_npy_serialize (array, &error);
      g_autofree char *path = g_strdup_printf ("%s/out-%s.npy", dir, dtypes[i].code);

      g_assert_no_error (error);
      g_assert_true (g_file_set_contents (path, g_bytes_get_data (bytes, NULL),
                                          (gssize) g_bytes_get_size (bytes), NULL));
    }
  for (gsize i = 0; i < G_N_ELEMENTS (singles); i++)
    {
      g_autoptr (GBytes) bytes = onyx_npy_serialize (singles[i].array, &error);
      g_autofree char *path = g_build_filename (dir, singles[i].name, NULL);

      g_assert_no_error (error);
      g_assert_true (g_file_set_contents (path, g_bytes_get_data (bytes, NULL),
                                          (gssize) g_bytes_get_size (bytes), NULL));
    }
  if (have_numpy ())
    g_assert_true (run_python (python_reads, dir));
  remove_tree (dir);
}

static void
assert_npz_error (const char *path, GIOErrorEnum code, const char *expected_text)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) arrays = onyx_npz_read (path, &error);

  g_assert_null (arrays);
  g_assert_error (error, G_IO_ERROR, (gint) code);
  if (strstr (error->message, expected_text) == NULL)
    g_error ("“%s” does not say “%s”", error->message, expected_text);
}

static void
test_npz_errors (void)
{
  const gint64 dims[] = { 2, 3 };
  g_autoptr (OnyxArray) array = make_array ("a", dtype_of ("f4"), dims, 2);
  g_autoptr (GBytes) good = onyx_npy_serialize (array, NULL);
  g_autoptr (GBytes) strings = npy_with_header ("{'descr': '<U5', 'fortran_order': False, "
                                                "'shape': (1,), }", 1, NULL, 20);
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "mixed.npz", NULL);
  g_autofree char *text = g_build_filename (dir, "text.npz", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing.npz", NULL);
  gsize good_len, strings_len;
  const void *good_data = g_bytes_get_data (good, &good_len);
  const void *strings_data = g_bytes_get_data (strings, &strings_len);
  zip_t *zip;
  int code = 0;

  /* A good array first, then a file that is no array: the first is freed again. */
  zip = zip_open (path, ZIP_CREATE | ZIP_TRUNCATE, &code);
  g_assert_nonnull (zip);
  g_assert_cmpint (zip_file_add (zip, "a.npy", zip_source_buffer (zip, good_data, good_len, 0), 0),
                   ==, 0);
  g_assert_cmpint (zip_file_add (zip, "readme.txt", zip_source_buffer (zip, "hello", 5, 0), 0),
                   ==, 1);
  g_assert_cmpint (zip_close (zip), ==, 0);
  assert_npz_error (path, G_IO_ERROR_INVALID_DATA, "mixed.npz: readme.txt: not an .npy array");

  zip = zip_open (path, ZIP_CREATE | ZIP_TRUNCATE, &code);
  g_assert_cmpint (zip_file_add (zip, "s.npy", zip_source_buffer (zip, strings_data, strings_len,
                                                                  0), 0), ==, 0);
  g_assert_cmpint (zip_close (zip), ==, 0);
  assert_npz_error (path, G_IO_ERROR_INVALID_DATA,
                    "mixed.npz: s.npy: Onyx cannot use dtype '<U5' (unicode strings)");

  /* numpy writes an array named "" as ".npy"; Onyx writes no unnamed array. */
  zip = zip_open (path, ZIP_CREATE | ZIP_TRUNCATE, &code);
  g_assert_cmpint (zip_file_add (zip, ".npy", zip_source_buffer (zip, good_data, good_len, 0), 0),
                   ==, 0);
  g_assert_cmpint (zip_close (zip), ==, 0);
  assert_npz_error (path, G_IO_ERROR_INVALID_DATA, "mixed.npz: .npy: an entry needs a name");

  g_assert_true (g_file_set_contents (text, "not a zip at all", -1, NULL));
  assert_npz_error (text, G_IO_ERROR_INVALID_DATA, "text.npz: cannot open it as an .npz");
  assert_npz_error (missing, G_IO_ERROR_NOT_FOUND, "missing.npz");
  remove_tree (dir);
}

/* Two entries of one name, which libzip writes no archive with: made by renaming one
 * in the archive's bytes. Which one a run would take is not left to chance. */
static void
test_npz_duplicate_names (void)
{
  const gint64 dims[] = { 3 };
  g_autoptr (GPtrArray) arrays = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_array_free);
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "twice.npz", NULL);
  g_autofree char *contents = NULL;
  g_autoptr (GError) error = NULL;
  guint renamed = 0;
  gsize len;

  g_ptr_array_add (arrays, make_array ("a", dtype_of ("f4"), dims, 1));
  g_ptr_array_add (arrays, make_array ("b", dtype_of ("i8"), dims, 1));
  g_assert_true (onyx_npz_write (path, arrays, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  /* The name is in the entry's local header and in the central directory; the CRC
   * covers the data only. */
  for (char *at = contents; (at = memchr (at, 'b', len - (gsize) (at - contents))) != NULL; at++)
    if ((gsize) (contents + len - at) >= 5 && memcmp (at, "b.npy", 5) == 0)
      *at = 'a', renamed++;
  g_assert_cmpuint (renamed, ==, 2);
  g_assert_true (g_file_set_contents (path, contents, (gssize) len, NULL));
  assert_npz_error (path, G_IO_ERROR_INVALID_DATA, "twice.npz: a.npy: two entries have this name");
  remove_tree (dir);
}

/* An .npz in memory reads as the same file does, and its errors name the label. */
static void
test_npz_bytes (void)
{
  const gint64 dims[] = { 2, 3 };
  g_autoptr (GPtrArray) arrays = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_array_free);
  g_autoptr (GPtrArray) from_file = NULL, from_bytes = NULL, none = NULL;
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "in-memory.npz", NULL);
  g_autofree char *contents = NULL;
  g_autoptr (GError) error = NULL;
  gsize len;

  g_ptr_array_add (arrays, make_array ("x", dtype_of ("f8"), dims, 2));
  g_ptr_array_add (arrays, make_array ("mask", dtype_of ("b1"), dims, 2));
  g_assert_true (onyx_npz_write (path, arrays, &error));
  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  from_file = onyx_npz_read (path, &error);
  g_assert_no_error (error);
  from_bytes = onyx_npz_parse ((const guint8 *) contents, len, "in-memory.npz", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (from_bytes->len, ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      const OnyxArray *a = from_file->pdata[i], *b = from_bytes->pdata[i];
      g_assert_cmpstr (a->name, ==, b->name);
      g_assert_cmpint (a->elem_type, ==, b->elem_type);
      g_assert_cmpmem (a->dims, a->n_dims * sizeof *a->dims, b->dims, b->n_dims * sizeof *b->dims);
      g_assert_true (g_bytes_equal (a->data, b->data));
    }

  none = onyx_npz_parse ((const guint8 *) contents, len / 2, NULL, &error);
  g_assert_null (none);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_true (g_str_has_prefix (error->message, "archive: cannot open it as an .npz"));
  g_clear_error (&error);

  /* No bytes are no archive, as an empty file is none (libzip would take an empty
   * buffer for an archive without entries). */
  none = onyx_npz_parse ((const guint8 *) "", 0, "empty.npz", &error);
  g_assert_null (none);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_true (g_str_has_prefix (error->message, "empty.npz: cannot open it as an .npz"));
  g_assert_true (g_file_set_contents (path, "", 0, NULL));
  assert_npz_error (path, G_IO_ERROR_INVALID_DATA, "in-memory.npz: cannot open it as an .npz");
  remove_tree (dir);
}

/* A write that fails leaves the old file as it was and no temporary file beside it. */
static void
test_npz_write_fails (void)
{
  const gint64 dims[] = { 2, 3 };
  g_autoptr (GPtrArray) arrays = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_array_free);
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "keep.npz", NULL);
  g_autofree char *nowhere = g_build_filename (dir, "no-such-folder", "x.npz", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) short_data = g_bytes_new ("abc", 3);
  gsize before_len, after_len;

  g_ptr_array_add (arrays, make_array ("a", dtype_of ("f4"), dims, 2));
  g_assert_true (onyx_npz_write (path, arrays, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &before, &before_len, NULL));

  g_ptr_array_add (arrays, make_array (NULL, dtype_of ("i4"), dims, 2));
  g_assert_false (onyx_npz_write (path, arrays, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "keep.npz: array 2 has no name"));
  g_clear_error (&error);

  g_ptr_array_remove_index (arrays, 1);
  g_ptr_array_add (arrays, make_array ("a", dtype_of ("i4"), dims, 2));
  g_assert_false (onyx_npz_write (path, arrays, &error));
  g_assert_nonnull (strstr (error->message, "keep.npz: a: two arrays have this name"));
  g_clear_error (&error);

  g_ptr_array_remove_index (arrays, 1);
  g_ptr_array_add (arrays, onyx_array_new ("short", 1, dims, 2, short_data));
  g_assert_false (onyx_npz_write (path, arrays, &error));
  g_assert_nonnull (strstr (error->message, "short: it has 3 bytes of data where its shape"));
  g_clear_error (&error);

  g_ptr_array_remove_index (arrays, 1);
  g_assert_false (onyx_npz_write (nowhere, arrays, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "cannot create a file in its folder"));
  g_clear_error (&error);

  g_assert_true (g_file_get_contents (path, &after, &after_len, NULL));
  g_assert_cmpmem (before, before_len, after, after_len);
  g_assert_cmpuint (test_count_dir_entries (dir), ==, 1);
  remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/array/basics", test_basics);
  g_test_add_func ("/array/serialize", test_serialize);
  g_test_add_func ("/array/headers", test_headers);
  g_test_add_func ("/array/errors", test_errors);
  g_test_add_func ("/array/mangled", test_mangled);
  g_test_add_func ("/array/numpy-writes", test_numpy_writes);
  g_test_add_func ("/array/numpy-reads", test_numpy_reads);
  g_test_add_func ("/array/npz-errors", test_npz_errors);
  g_test_add_func ("/array/npz-duplicate-names", test_npz_duplicate_names);
  g_test_add_func ("/array/npz-bytes", test_npz_bytes);
  g_test_add_func ("/array/npz-write-fails", test_npz_write_fails);
  return g_test_run ();
}
