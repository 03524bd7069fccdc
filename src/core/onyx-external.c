#define _GNU_SOURCE  /* copy_file_range */
#include "onyx-external.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/fs.h>  /* FICLONE */
#endif

#include "onyx-error.h"

gboolean
onyx_tensor_is_external (const Onnx__TensorProto *tensor)
{
  return tensor->has_data_location &&
         tensor->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
}

static const char *
external_entry (const Onnx__TensorProto *tensor, const char *key)
{
  for (size_t i = 0; i < tensor->n_external_data; i++)
    {
      const Onnx__StringStringEntryProto *entry = tensor->external_data[i];
      if (entry->key != NULL && strcmp (entry->key, key) == 0)
        return entry->value;
    }
  return NULL;
}

const char *
onyx_tensor_external_location (const Onnx__TensorProto *tensor)
{
  return external_entry (tensor, "location");
}

static gboolean
has_parent_component (const char *location)
{
  g_auto (GStrv) parts = g_regex_split_simple ("[/\\\\]", location, 0, 0);
  for (guint i = 0; parts[i] != NULL; i++)
    if (strcmp (parts[i], "..") == 0)
      return TRUE;
  return FALSE;
}

static gboolean
looks_absolute (const char *location)
{
  /* Windows drive letters and UNC paths are absolute too, whatever this OS says. */
  return g_path_is_absolute (location) || location[0] == '\\' ||
         (g_ascii_isalpha (location[0]) && location[1] == ':');
}

static gboolean
external_fail (GError **error, const char *display_name, const Onnx__TensorProto *tensor,
               const char *location, const char *why)
{
  g_set_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_EXTERNAL_DATA,
               _("%s: external data of tensor '%s' at '%s' refused: %s"), display_name,
               tensor->name != NULL ? tensor->name : "", location != NULL ? location : "", why);
  return FALSE;
}

/* Resolves `location` inside `base_dir`. Returns NULL with `why` set when refused;
 * a file that does not exist yet is not refused (it is reported when read). */
static char *
resolve_location (const char *base_dir, const char *location, const char **why)
{
  g_autofree char *joined = NULL;
  g_autofree char *real_dir = NULL;
  char *real_file;
  GStatBuf st;

  if (location == NULL || *location == '\0')
    return (*why = _("it has no location"), NULL);
  if (base_dir == NULL)
    return (*why = _("the model was not loaded from a file"), NULL);
  if (looks_absolute (location))
    return (*why = _("absolute paths are not allowed"), NULL);
  if (has_parent_component (location))
    return (*why = _("the path leaves the model's folder"), NULL);

  joined = g_build_filename (base_dir, location, NULL);
  if (g_stat (joined, &st) != 0)
    return g_steal_pointer (&joined);
  if (!S_ISREG (st.st_mode))
    return (*why = _("it is not a regular file"), NULL);
  real_dir = realpath (base_dir, NULL);
  real_file = realpath (joined, NULL);
  if (real_dir == NULL || real_file == NULL ||
      !g_str_has_prefix (real_file, real_dir) || real_file[strlen (real_dir)] != '/')
    {
      free (real_file);
      return (*why = _("it links outside the model's folder"), NULL);
    }
  free (real_file);
  return g_steal_pointer (&joined);
}

typedef struct {
  const char *display_name;
  const char *base_dir;
  GError *error;
} CheckModel;

static void
check_tensor (Onnx__TensorProto *tensor, gpointer user_data)
{
  CheckModel *check = user_data;
  const char *why = NULL;
  char *resolved;

  if (check->error != NULL || !onyx_tensor_is_external (tensor))
    return;
  resolved = resolve_location (check->base_dir, onyx_tensor_external_location (tensor), &why);
  if (resolved == NULL)
    external_fail (&check->error, check->display_name, tensor,
                   onyx_tensor_external_location (tensor), why);
  g_free (resolved);
}

gboolean
onyx_external_check_model (Onnx__ModelProto *model, const char *display_name,
                           const char *base_dir, GError **error)
{
  CheckModel check = { display_name, base_dir, NULL };

  onyx_proto_foreach_tensor (&model->base, check_tensor, &check);
  if (check.error != NULL)
    {
      g_propagate_error (error, check.error);
      return FALSE;
    }
  return TRUE;
}


typedef struct {
  GHashTable *locations;     /* distinct locations (borrowed) */
} Locations;

static void
collect_location (Onnx__TensorProto *tensor, gpointer user_data)
{
  Locations *found = user_data;
  const char *location;

  if (onyx_tensor_is_external (tensor) && (location = onyx_tensor_external_location (tensor)) != NULL)
    g_hash_table_add (found->locations, (gpointer) location);
}

/* Bytes copied of all the files to copy, for the caller's progress. */
typedef struct {
  OnyxProgressFunc func;
  gpointer data;
  guint64 done, total;
} CopyProgress;

static void
copied (CopyProgress *progress, guint64 bytes)
{
  progress->done += bytes;
  if (progress->func != NULL)
    progress->func (progress->done, progress->total, progress->data);
}

/* Pieces small enough for progress to move, large enough to cost nothing. */
#define COPY_PIECE ((gint64) 64 << 20)

/* `from` into `to`, whole or not at all: a reflink where the file system shares blocks,
 * else copied by the kernel in pieces (copy_file_range: no buffer of ours), into a
 * temporary file beside `to`, synced, then renamed over it. */
static gboolean
copy_data_file (const char *from, const char *to, CopyProgress *progress, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (to);
  g_autofree char *base = g_path_get_basename (to);
  g_autofree char *tmp = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  int in = -1, out = -1, saved_errno = 0;
  GStatBuf st;
  gboolean done = FALSE;

  if (g_mkdir_with_parents (dir, 0755) != 0 || (in = g_open (from, O_RDONLY | O_CLOEXEC, 0)) < 0 ||
      fstat (in, &st) != 0 || (out = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0644)) < 0)
    saved_errno = errno;
#ifdef FICLONE
  if (saved_errno == 0 && ioctl (out, FICLONE, in) == 0)
    {
      done = TRUE;
      copied (progress, (guint64) st.st_size);
    }
#endif
  for (gint64 left = st.st_size; saved_errno == 0 && !done && left > 0;)
    {
      ssize_t n = copy_file_range (in, NULL, out, NULL, (size_t) MIN (left, COPY_PIECE), 0);
      if (n <= 0)
        saved_errno = n < 0 ? errno : EIO;
      else
        {
          left -= n;
          copied (progress, (guint64) n);
        }
    }
  if (saved_errno == 0 && fsync (out) != 0)
    saved_errno = errno;
  if (out >= 0 && close (out) != 0 && saved_errno == 0)
    saved_errno = errno;
  if (in >= 0)
    close (in);
  if (saved_errno == 0 && g_rename (tmp, to) != 0)
    saved_errno = errno;
  if (saved_errno != 0)
    {
      if (out >= 0)
        g_unlink (tmp);
      g_set_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_EXTERNAL_DATA,
                   _("%s: cannot copy the model's external data there: %s"), base, g_strerror (saved_errno));
      return FALSE;
    }
  return TRUE;
}

/* Whether two paths name one file (a save into the model's own folder). */
static gboolean
same_file (const char *a, const char *b)
{
  GStatBuf sa, sb;
  return g_stat (a, &sa) == 0 && g_stat (b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

gboolean
onyx_external_copy_for_save (Onnx__ModelProto *model, const char *display_name, const char *base_dir,
                             const char *target_dir, OnyxProgressFunc progress_func, gpointer progress_data,
                             GError **error)
{
  g_autoptr (GHashTable) locations = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GPtrArray) from_paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) to_paths = g_ptr_array_new_with_free_func (g_free);
  CopyProgress progress = { progress_func, progress_data, 0, 0 };
  Locations found = { locations };
  GHashTableIter iter;
  gpointer location;

  onyx_proto_foreach_tensor (&model->base, collect_location, &found);
  if (g_hash_table_size (locations) == 0)
    return TRUE;
  /* All refusals and sizes first: progress is over the whole copy. */
  g_hash_table_iter_init (&iter, locations);
  while (g_hash_table_iter_next (&iter, &location, NULL))
    {
      const char *why = NULL;
      g_autofree char *from = resolve_location (base_dir, location, &why);
      g_autofree char *to = g_build_filename (target_dir, (const char *) location, NULL);
      GStatBuf st;
      if (from == NULL)
        {
          g_set_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_EXTERNAL_DATA,
                       _("%s: external data at '%s' refused: %s"), display_name, (const char *) location, why);
          return FALSE;
        }
      if (same_file (from, to))
        continue;
      if (g_stat (from, &st) == 0)
        progress.total += (guint64) st.st_size;
      g_ptr_array_add (from_paths, g_steal_pointer (&from));
      g_ptr_array_add (to_paths, g_steal_pointer (&to));
    }
  for (guint i = 0; i < from_paths->len; i++)
    if (!copy_data_file (from_paths->pdata[i], to_paths->pdata[i], &progress, error))
      return FALSE;
  return TRUE;
}

static gboolean
parse_size (const char *text, guint64 *value)
{
  return text == NULL || g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, value, NULL);
}

gboolean
onyx_tensor_external_span (const Onnx__TensorProto *tensor, const char **location, guint64 *offset,
                           guint64 *length)
{
  *location = onyx_tensor_external_location (tensor);
  *offset = 0;
  *length = G_MAXUINT64;
  return onyx_tensor_is_external (tensor) && *location != NULL &&
         parse_size (external_entry (tensor, "offset"), offset) &&
         parse_size (external_entry (tensor, "length"), length);
}

GBytes *
onyx_external_read (const Onnx__TensorProto *tensor, const char *base_dir, GError **error)
{
  const char *location = onyx_tensor_external_location (tensor);
  const char *why = NULL;
  g_autofree char *path = resolve_location (base_dir, location, &why);
  guint64 offset, length;
  GMappedFile *mapping;
  GBytes *whole, *part;
  GError *local_error = NULL;
  gsize size;

  if (path == NULL)
    return external_fail (error, "model", tensor, location, why), NULL;
  if (!onyx_tensor_external_span (tensor, &location, &offset, &length))
    return external_fail (error, "model", tensor, location, _("offset or length is not a number")), NULL;
  mapping = g_mapped_file_new (path, FALSE, &local_error);
  if (mapping == NULL)
    {
      external_fail (error, "model", tensor, location, local_error->message);
      g_error_free (local_error);
      return NULL;
    }
  whole = g_mapped_file_get_bytes (mapping);
  g_mapped_file_unref (mapping);
  size = g_bytes_get_size (whole);
  if (length == G_MAXUINT64)
    length = offset <= size ? size - offset : 0;
  if (offset > size || length > size - offset)
    {
      g_bytes_unref (whole);
      external_fail (error, "model", tensor, location, _("offset and length run past the end of the file"));
      return NULL;
    }
  part = g_bytes_new_from_bytes (whole, offset, length);
  g_bytes_unref (whole);
  return part;
}
