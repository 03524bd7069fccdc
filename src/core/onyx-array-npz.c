/* onyx-array-npz.c: numpy's .npz format, a zip of .npy entries, read and written
 * through libzip. Apart from onyx-array.c so that a program using arrays without
 * .npz files (onyx-cli's edit --simplify, whose proof runs the model) does not load
 * libzip and what it needs.
 *
 * The reader takes untrusted files: the sizes an archive claims are checked before
 * anything is allocated for them. */
#include "onyx-array-private.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include "onyx-file.h"
#include "onyx-text.h"

/* Deflate cannot expand data more than about 1032 times: an entry that claims more
 * than this many bytes per compressed byte lies about its size. */
#define DEFLATE_MAX_RATIO 1100

static gpointer
zip_fail (GError **error, const char *label, const char *what, zip_error_t *zip_error)
{
  int code = zip_error_code_zip (zip_error);
  int sys = zip_error_system_type (zip_error) == ZIP_ET_SYS ? zip_error_code_system (zip_error) : 0;
  g_autofree char *escaped = onyx_display_escape (label);
  GIOErrorEnum io_code = code == ZIP_ER_NOENT ? G_IO_ERROR_NOT_FOUND
                         : sys != 0 ? g_io_error_from_errno (sys) : G_IO_ERROR_INVALID_DATA;

  g_set_error (error, G_IO_ERROR, io_code, "%s: %s: %s", escaped, what,
               zip_error_strerror (zip_error));
  return NULL;
}

static OnyxArray *
npz_read_entry (zip_t *zip, zip_uint64_t index, guint64 archive_size, const char *base,
                GError **error)
{
  g_autofree char *label = NULL;
  g_autofree char *name = NULL;
  g_autoptr (GBytes) bytes = NULL;
  zip_stat_t st;
  zip_file_t *file;
  guint8 *buffer;
  gsize got = 0;
  guint8 extra;
  zip_int64_t n = 0;

  zip_stat_init (&st);
  if (zip_stat_index (zip, index, 0, &st) != 0)
    return zip_fail (error, base, "cannot read an entry", zip_get_error (zip));
  if ((st.valid & (ZIP_STAT_NAME | ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD))
      != (ZIP_STAT_NAME | ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD))
    return onyx_array_fail (error, base, "entry %" G_GUINT64_FORMAT " lacks its name or sizes",
                       (guint64) index);
  label = g_strdup_printf ("%s: %s", base, st.name);
  if (!g_str_has_suffix (st.name, ".npy"))
    return onyx_array_fail (error, label, "not an .npy array; an .npz holds nothing else");
  if (st.comp_method != ZIP_CM_STORE && st.comp_method != ZIP_CM_DEFLATE)
    return onyx_array_fail (error, label, "compressed with zip method %d, neither stored nor "
                       "deflated as numpy writes", st.comp_method);
  /* Sizes are the archive's claims: check them before allocating. */
  if (st.comp_size > archive_size
      || st.size > (st.comp_method == ZIP_CM_STORE ? st.comp_size
                    : MAX (st.comp_size, 1) * DEFLATE_MAX_RATIO)
      || st.size > G_MAXSIZE)
    return onyx_array_fail (error, label, "its size (%" G_GUINT64_FORMAT " bytes) is more than its "
                       "compressed data can hold", (guint64) st.size);

  buffer = g_try_malloc (MAX (st.size, 1));
  if (buffer == NULL)
    return onyx_array_fail (error, label, "not enough memory for its %" G_GUINT64_FORMAT " bytes",
                       (guint64) st.size);
  bytes = g_bytes_new_take (buffer, (gsize) st.size);
  file = zip_fopen_index (zip, index, 0);
  if (file == NULL)
    return zip_fail (error, label, "cannot read it", zip_get_error (zip));
  while (got < st.size)
    {
      n = zip_fread (file, buffer + got, st.size - got);
      if (n <= 0)
        break;
      got += (gsize) n;
    }
  /* Reading past the end makes libzip check the CRC. */
  if (got == st.size)
    n = zip_fread (file, &extra, 1);
  if (n < 0)
    zip_fail (error, label, "cannot read it", zip_file_get_error (file));
  zip_fclose (file);
  if (n < 0)
    return NULL;
  if (got != st.size || n != 0)
    return onyx_array_fail (error, label, "its data is %s than its size in the archive says",
                       got < st.size ? "shorter" : "longer");

  name = g_strndup (st.name, strlen (st.name) - 4);
  return onyx_npy_parse_in (buffer, (gsize) st.size, bytes, name, label, error);
}

/* Whether the entry's array has a name of its own: a run matches inputs by name,
 * and of two entries of one name, which one is used would be left to chance. */
static gboolean
npz_name_is_new (GHashTable *names, const OnyxArray *array, const char *base, GError **error)
{
  g_autofree char *label = NULL;

  if (array->name[0] != '\0' && g_hash_table_add (names, array->name))
    return TRUE;
  label = g_strdup_printf ("%s: %s.npy", base, array->name);
  onyx_array_fail (error, label, array->name[0] == '\0' ? "an entry needs a name before '.npy'"
                                                   : "two entries have this name");
  return FALSE;
}

/* The arrays of an opened archive of archive_size bytes (which bounds what its
 * entries may claim); closes zip. */
static GPtrArray *
npz_read_archive (zip_t *zip, guint64 archive_size, const char *base, GError **error)
{
  g_autoptr (GPtrArray) arrays = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_array_free);
  g_autoptr (GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  zip_int64_t n_entries = zip_get_num_entries (zip, 0);
  gboolean ok = TRUE;

  for (zip_int64_t i = 0; ok && i < n_entries; i++)
    {
      OnyxArray *array = npz_read_entry (zip, (zip_uint64_t) i, archive_size, base, error);

      ok = array != NULL && npz_name_is_new (names, array, base, error);
      if (array != NULL)
        g_ptr_array_add (arrays, array);
    }
  zip_discard (zip);
  return ok ? g_steal_pointer (&arrays) : NULL;
}

GPtrArray *
onyx_npz_read (const char *path, GError **error)
{
  g_autofree char *base = g_path_get_basename (path);
  zip_error_t zip_error;
  GStatBuf st;
  zip_t *zip;
  int code = 0;

  zip = zip_open (path, ZIP_RDONLY, &code);
  if (zip == NULL)
    {
      zip_error_init_with_code (&zip_error, code);
      zip_fail (error, base, "cannot open it as an .npz (a zip archive)", &zip_error);
      zip_error_fini (&zip_error);
      return NULL;
    }
  if (g_stat (path, &st) != 0)
    st.st_size = 0;
  return npz_read_archive (zip, (guint64) st.st_size, base, error);
}

/* label names the archive in messages ("archive" when NULL). */
GPtrArray *
onyx_npz_parse (const guint8 *bytes, gsize len, const char *label, GError **error)
{
  zip_error_t zip_error;
  zip_t *zip = NULL;

  g_return_val_if_fail (bytes != NULL || len == 0, NULL);
  if (label == NULL)
    label = "archive";
  /* libzip opens an empty buffer as an archive without entries, but an empty file
   * as no zip at all: bytes read as the file holding them would. */
  if (len == 0)
    zip_error_init_with_code (&zip_error, ZIP_ER_NOZIP);
  else
    {
      zip_source_t *source;

      zip_error_init (&zip_error);
      /* The source reads bytes in place: libzip neither copies nor frees them. */
      source = zip_source_buffer_create (bytes, len, 0, &zip_error);
      if (source != NULL && (zip = zip_open_from_source (source, ZIP_RDONLY, &zip_error)) == NULL)
        zip_source_free (source);
    }
  if (zip == NULL)
    {
      zip_fail (error, label, "cannot open it as an .npz (a zip archive)", &zip_error);
      zip_error_fini (&zip_error);
      return NULL;
    }
  zip_error_fini (&zip_error);
  return npz_read_archive (zip, len, label, error);
}

static gboolean
write_fail (GError **error, const char *label, const char *what, int error_number)
{
  g_autofree char *escaped = onyx_display_escape (label);

  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (error_number), "%s: %s: %s", escaped,
               what, g_strerror (error_number));
  return FALSE;
}

/* Builds the archive in tmp_path, which exists and is empty. The preambles and the
 * arrays' data are referenced by libzip until zip_close, not copied. */
static gboolean
npz_build (const char *tmp_path, GPtrArray *arrays, GPtrArray *preambles, const char *base,
           GError **error)
{
  g_autofree zip_buffer_fragment_t *fragments = g_new0 (zip_buffer_fragment_t, 2 * arrays->len);
  zip_error_t zip_error;
  gboolean failed = FALSE;
  zip_t *zip;
  int code = 0;

  zip = zip_open (tmp_path, ZIP_CREATE | ZIP_TRUNCATE, &code);
  if (zip == NULL)
    {
      zip_error_init_with_code (&zip_error, code);
      zip_fail (error, base, "cannot write", &zip_error);
      zip_error_fini (&zip_error);
      return FALSE;
    }
  for (guint i = 0; i < arrays->len; i++)
    {
      const OnyxArray *array = g_ptr_array_index (arrays, i);
      g_autofree char *entry = g_strconcat (array->name, ".npy", NULL);
      zip_buffer_fragment_t *pair = fragments + 2 * i;
      zip_source_t *source;
      zip_int64_t index;
      gsize size;

      pair[0].data = (zip_uint8_t *) g_bytes_get_data (g_ptr_array_index (preambles, i), &size);
      pair[0].length = size;
      pair[1].data = (zip_uint8_t *) g_bytes_get_data (array->data, &size);
      pair[1].length = size;
      source = zip_source_buffer_fragment (zip, pair, size > 0 ? 2 : 1, 0);
      index = source != NULL ? zip_file_add (zip, entry, source, 0) : -1;
      if (source != NULL && index < 0)
        zip_source_free (source);
      failed = index < 0
               || zip_set_file_compression (zip, (zip_uint64_t) index, ZIP_CM_STORE, 0) != 0;
      if (failed)
        break;
    }
  if (failed || zip_close (zip) != 0)
    {
      zip_fail (error, base, "cannot write", zip_get_error (zip));
      zip_discard (zip);
      return FALSE;
    }
  return TRUE;
}

gboolean
onyx_npz_write (const char *path, GPtrArray *arrays, GError **error)
{
  /* An archive with no entries: only the end of central directory record. */
  static const guint8 empty_zip[22] = { 'P', 'K', 5, 6 };
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *tmp_path = NULL;
  g_autoptr (GPtrArray) preambles = NULL;
  g_autoptr (GHashTable) names = NULL;
  const char *step = NULL;
  int saved_errno = 0;
  mode_t mode;
  int fd;

  g_return_val_if_fail (path != NULL && arrays != NULL, FALSE);

  /* Everything that can be checked is checked before the folder is touched. */
  preambles = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  names = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < arrays->len; i++)
    {
      const OnyxArray *array = g_ptr_array_index (arrays, i);
      g_autofree char *label = NULL;
      GBytes *preamble;

      if (array->name == NULL || array->name[0] == '\0')
        {
          onyx_array_fail (error, base, "array %u has no name, which an .npz entry needs", i + 1);
          return FALSE;
        }
      label = g_strdup_printf ("%s: %s", base, array->name);
      if (!g_hash_table_add (names, array->name))
        {
          onyx_array_fail (error, label, "two arrays have this name");
          return FALSE;
        }
      preamble = onyx_npy_preamble (array, label, error);
      if (preamble == NULL)
        return FALSE;
      g_ptr_array_add (preambles, preamble);
    }

  if (!onyx_file_replacing_mode (path, &mode))
    {
      onyx_array_fail (error, base, "is a folder, not a file");
      return FALSE;
    }

  /* Beside the target, so that the rename is atomic. */
  tmp_path = g_strdup_printf ("%s.XXXXXX", path);
  fd = g_mkstemp_full (tmp_path, O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0)
    return write_fail (error, base, "cannot create a file in its folder", errno);
  /* libzip deletes an archive left without entries: that one is written here. */
  if (arrays->len == 0 && write (fd, empty_zip, sizeof empty_zip) != (gssize) sizeof empty_zip)
    saved_errno = errno != 0 ? errno : EIO, step = "cannot write";
  close (fd);
  /* libzip writes the archive beside tmp_path, then renames it over tmp_path. */
  if (arrays->len > 0 && !npz_build (tmp_path, arrays, preambles, base, error))
    {
      g_unlink (tmp_path);
      return FALSE;
    }

  if (step == NULL)
    {
      fd = open (tmp_path, O_RDWR | O_CLOEXEC);
      if (fd < 0)
        saved_errno = errno, step = "cannot write";
      else
        {
          if (fchmod (fd, mode) != 0)
            saved_errno = errno, step = "cannot set permissions";
          else if (fsync (fd) != 0)
            saved_errno = errno, step = "cannot write";
          if (close (fd) != 0 && step == NULL)
            saved_errno = errno, step = "cannot write";
        }
    }
  if (step == NULL && g_rename (tmp_path, path) != 0)
    saved_errno = errno, step = "cannot replace the file";
  if (step != NULL)
    {
      g_unlink (tmp_path);
      return write_fail (error, base, step, saved_errno);
    }
  onyx_file_sync_folder (dir);
  return TRUE;
}
