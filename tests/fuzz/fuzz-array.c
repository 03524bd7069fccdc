/* libFuzzer target for numpy's .npy and .npz readers (onyx-array.h), where Run's
 * inputs and reference arrays come from. Each input is read as both: whatever the
 * bytes, a clear error, or arrays whose element type, dims and data agree, which
 * write (.npy bytes; an .npz file) and read back the same. Read from a file (as
 * onyx-cli and the app read them), the same bytes give the same arrays. */
#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "fuzz-checks.h"
#include "onyx-array.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t len);

/* A folder of this process's own for the files read and written. */
static char *folder;
static char *npy_path, *npz_path, *npz_again_path;

static void
remove_folder (void)
{
  g_unlink (npy_path);
  g_unlink (npz_path);
  g_unlink (npz_again_path);
  g_rmdir (folder);
}

/* The path of the file, in the folder made on the first call: in memory where
 * Linux has a file system there (/dev/shm), since on a disk, writing each input and
 * reading it back took two thirds of the run. */
static const char *
in_folder (char **path, const char *name)
{
  if (folder == NULL)
    {
      const char *base = g_access ("/dev/shm", W_OK) == 0 ? "/dev/shm" : g_get_tmp_dir ();

      folder = g_build_filename (base, "onyx-fuzz-array-XXXXXX", NULL);
      if (g_mkdtemp (folder) == NULL)
        g_error ("fuzz-array needs a temporary folder in %s: %s", base, g_strerror (errno));
      atexit (remove_folder);
    }
  if (*path == NULL)
    *path = g_build_filename (folder, name, NULL);
  return *path;
}

static void
write_file (const char *path, const guint8 *data, size_t len)
{
  GError *error = NULL;

  /* Not synced: it is read back at once, and a sync per input would be most of the
   * run. Written anew: GLib 2.74 writes over an existing file in place without
   * cutting it short. */
  g_unlink (path);
  if (!g_file_set_contents_full (path, (const char *) data, (gssize) len, G_FILE_SET_CONTENTS_NONE, 0600,
                                 &error))
    g_error ("fuzz-array cannot write its input: %s", error->message);
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
assert_same_list (GPtrArray *a, GPtrArray *b)
{
  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    assert_same (a->pdata[i], b->pdata[i]);
}

static void
fuzz_npy (const guint8 *data, size_t len)
{
  GError *error = NULL;
  OnyxArray *array = onyx_npy_parse (data, len, "fuzz", &error);
  OnyxArray *again, *from_file;
  GBytes *saved;

  /* A file's data is referenced in place where it needs no change, not copied: the
   * same bytes from a file take that path (a file that is no .npy is no news). */
  if (len >= 6 && memcmp (data, "\x93NUMPY", 6) == 0)
    {
      write_file (in_folder (&npy_path, "fuzz.npy"), data, len);
      from_file = onyx_npy_read (npy_path, NULL);
      g_assert_true ((from_file == NULL) == (array == NULL));
      if (from_file != NULL)
        assert_same (array, from_file);
      onyx_array_free (from_file);
    }
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
  GPtrArray *from_file, *again;

  if (arrays == NULL)
    {
      assert_clear_error (error);
      return;
    }
  for (guint i = 0; i < arrays->len; i++)
    assert_whole (arrays->pdata[i]);
  write_file (in_folder (&npz_path, "fuzz.npz"), data, len);
  from_file = onyx_npz_read (npz_path, &error);
  g_assert_no_error (error);
  assert_same_list (arrays, from_file);
  if (!onyx_npz_write (in_folder (&npz_again_path, "again.npz"), arrays, &error))
    g_error ("arrays read from an .npz do not write: %s", error->message);
  again = onyx_npz_read (npz_again_path, &error);
  g_assert_no_error (error);
  assert_same_list (arrays, again);
  g_ptr_array_unref (again);
  g_ptr_array_unref (from_file);
  g_ptr_array_unref (arrays);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t len)
{
  fuzz_npy (data, len);
  fuzz_npz (data, len);
  return 0;
}
