/* libFuzzer target for numpy's .npy and .npz readers (onyx-array.h), where Run's
 * inputs and reference arrays come from. Each input is read as both: whatever the
 * bytes, a clear error, or arrays whose element type, dims and data agree, which
 * write (.npy bytes; an .npz file) and read back the same. */
#include <glib/gstdio.h>
#include <string.h>

#include "onyx-array.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t len);

/* A folder of this process's own for the .npz written back, and that file. */
static char *folder;
static char *npz_path;

static void
remove_folder (void)
{
  g_unlink (npz_path);
  g_rmdir (folder);
}

static void
make_folder (void)
{
  GError *error = NULL;

  folder = g_dir_make_tmp ("onyx-fuzz-array-XXXXXX", &error);
  if (folder == NULL)
    g_error ("fuzz-array needs a temporary folder: %s", error->message);
  npz_path = g_build_filename (folder, "again.npz", NULL);
  atexit (remove_folder);
}

static void
assert_whole (const OnyxArray *array)
{
  gsize size = onyx_array_element_size (array->elem_type);
  guint64 count = onyx_array_count (array);

  g_assert_cmpuint (size, >, 0);
  g_assert_cmpuint (count, <=, G_MAXSIZE / size);
  g_assert_cmpuint (count * size, ==, g_bytes_get_size (array->data));
}

static void
assert_same (const OnyxArray *a, const OnyxArray *b)
{
  g_assert_cmpstr (a->name, ==, b->name);
  g_assert_cmpint (a->elem_type, ==, b->elem_type);
  g_assert_cmpuint (a->n_dims, ==, b->n_dims);
  g_assert_true (a->n_dims == 0 || memcmp (a->dims, b->dims, a->n_dims * sizeof *a->dims) == 0);
  g_assert_true (g_bytes_equal (a->data, b->data));
}

static void
assert_clear_error (GError *error)
{
  g_assert_nonnull (error);
  g_assert_cmpuint (strlen (error->message), >, 0);
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
  g_error_free (error);
}

static void
fuzz_npy (const guint8 *data, size_t len)
{
  GError *error = NULL;
  OnyxArray *array = onyx_npy_parse (data, len, "fuzz", &error);
  OnyxArray *again;
  GBytes *saved;

  if (array == NULL)
    {
      assert_clear_error (error);
      return;
    }
  assert_whole (array);
  saved = onyx_npy_serialize (array, &error);
  g_assert_no_error (error);
  again = onyx_npy_parse (g_bytes_get_data (saved, NULL), g_bytes_get_size (saved), "fuzz", &error);
  g_assert_no_error (error);
  assert_same (array, again);
  onyx_array_free (again);
  g_bytes_unref (saved);
  onyx_array_free (array);
}

static void
fuzz_npz (const guint8 *data, size_t len)
{
  GError *error = NULL;
  GPtrArray *arrays = onyx_npz_parse (data, len, "fuzz.npz", &error);
  GPtrArray *again;

  if (arrays == NULL)
    {
      assert_clear_error (error);
      return;
    }
  for (guint i = 0; i < arrays->len; i++)
    assert_whole (arrays->pdata[i]);
  if (folder == NULL)
    make_folder ();
  if (!onyx_npz_write (npz_path, arrays, &error))
    g_error ("arrays read from an .npz do not write: %s", error->message);
  again = onyx_npz_read (npz_path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (again->len, ==, arrays->len);
  for (guint i = 0; i < arrays->len; i++)
    assert_same (arrays->pdata[i], again->pdata[i]);
  g_ptr_array_unref (again);
  g_ptr_array_unref (arrays);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t len)
{
  fuzz_npy (data, len);
  fuzz_npz (data, len);
  return 0;
}
