/* onyx-model-save.c: writing an OnyxModel out atomically (a temporary file beside
 * it, fsynced, renamed over it), streamed without a second copy of the payloads; its
 * external data copied when it goes to another folder, its payloads moved to a data
 * file when it is too large for one protobuf. */
#include "onyx-model.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onyx-external.h"
#include "onyx-file.h"

/* Streams the packed message to a file descriptor through a small buffer, so saving
 * never holds a second copy of the tensor payloads in memory. */
typedef struct {
  ProtobufCBuffer base;
  int fd;
  guint8 chunk[1 << 16];
  gsize used;
  int error_number;
} FdBuffer;

static void
fd_buffer_write (FdBuffer *buffer, const uint8_t *data, size_t len)
{
  while (len > 0 && buffer->error_number == 0)
    {
      ssize_t written = write (buffer->fd, data, len);
      if (written < 0)
        {
          if (errno != EINTR)
            buffer->error_number = errno;
          continue;
        }
      data += written;
      len -= (size_t) written;
    }
}

static void
fd_buffer_flush (FdBuffer *buffer)
{
  fd_buffer_write (buffer, buffer->chunk, buffer->used);
  buffer->used = 0;
}

static void
fd_buffer_append (ProtobufCBuffer *base, size_t len, const uint8_t *data)
{
  FdBuffer *buffer = (FdBuffer *) base;

  if (buffer->used + len > sizeof buffer->chunk)
    fd_buffer_flush (buffer);
  if (len >= sizeof buffer->chunk)
    {
      fd_buffer_write (buffer, data, len);
      return;
    }
  memcpy (buffer->chunk + buffer->used, data, len);
  buffer->used += len;
}

/* Up to this size a model is packed into one buffer and written at once: faster
 * than protobuf-c's streaming, which sizes every submessage again at each level of
 * nesting (saving transformer_96's 13,000 nodes: 10 ms against 16). Bigger models
 * stream, so that their payloads are never held twice. */
#define FLAT_PACK_LIMIT (64 << 20)

/* `size`: the message's packed size, which the caller knows already (sizing a model
 * walks all of it). */
static void
fd_buffer_pack (FdBuffer *buffer, const ProtobufCMessage *message, size_t size)
{
  guint8 *flat = size <= FLAT_PACK_LIMIT ? g_try_malloc (MAX (size, 1)) : NULL;

  if (flat == NULL)
    {
      protobuf_c_message_pack_to_buffer (message, &buffer->base);
      return;
    }
  protobuf_c_message_pack (message, flat);
  fd_buffer_append (&buffer->base, size, flat);
  g_free (flat);
}

/* Past this a model's protobuf cannot be read back (protobuf's 2 GiB limit): its
 * large payloads go to a data file beside it, as onnx.save_model does with
 * save_as_external_data. Tests lower it (onyx_model_set_proto_limit). */
static guint64 proto_limit = G_MAXINT32;
#define EXTERNAL_MIN_BYTES 1024
#define EXTERNAL_ALIGN 4096

void
onyx_model_set_proto_limit (guint64 limit)
{
  proto_limit = limit != 0 ? limit : G_MAXINT32;
}

/* A tensor whose payload went to the data file for the time of a save. */
typedef struct {
  Onnx__TensorProto *tensor;
  Onnx__TensorProto saved;      /* its fields as they were */
  Onnx__StringStringEntryProto entries[3];
  Onnx__StringStringEntryProto *pointers[3];
  char offset[24], length[24];
} Moved;

typedef struct {
  GArray *moved;                /* Moved */
  int fd;
  guint64 at;
  const char *location;
  int error_number;
} Externalize;

static guint64
aligned (guint64 at)
{
  return (at + EXTERNAL_ALIGN - 1) / EXTERNAL_ALIGN * EXTERNAL_ALIGN;
}

static void
externalize_tensor (Onnx__TensorProto *tensor, gpointer user_data)
{
  Externalize *ext = user_data;
  Moved moved = { tensor, *tensor };
  guint64 start = aligned (ext->at);
  gsize written = 0;

  if (ext->error_number != 0 || onyx_tensor_is_external (tensor) || !tensor->has_raw_data ||
      tensor->raw_data.len < EXTERNAL_MIN_BYTES)
    return;
  while (written < tensor->raw_data.len)
    {
      ssize_t n = pwrite (ext->fd, tensor->raw_data.data + written, tensor->raw_data.len - written,
                          (off_t) (start + written));
      if (n <= 0)
        {
          ext->error_number = n < 0 ? errno : EIO;
          return;
        }
      written += (gsize) n;
    }
  ext->at = start + written;
  g_array_append_val (ext->moved, moved);
}

/* Points the moved tensors at their place in the data file (once the array stopped
 * growing: the entries live in it). */
static void
point_moved (Externalize *ext)
{
  guint64 at = 0;

  for (guint i = 0; i < ext->moved->len; i++)
    {
      Moved *m = &g_array_index (ext->moved, Moved, i);
      Onnx__TensorProto *t = m->tensor;
      at = aligned (at);
      g_snprintf (m->offset, sizeof m->offset, "%" G_GUINT64_FORMAT, at);
      g_snprintf (m->length, sizeof m->length, "%zu", m->saved.raw_data.len);
      at += m->saved.raw_data.len;
      for (guint e = 0; e < 3; e++)
        {
          onnx__string_string_entry_proto__init (&m->entries[e]);
          m->pointers[e] = &m->entries[e];
        }
      m->entries[0].key = (char *) "location", m->entries[0].value = (char *) ext->location;
      m->entries[1].key = (char *) "offset", m->entries[1].value = m->offset;
      m->entries[2].key = (char *) "length", m->entries[2].value = m->length;
      t->has_raw_data = FALSE;
      t->raw_data.len = 0;
      t->raw_data.data = NULL;
      t->has_data_location = TRUE;
      t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
      t->n_external_data = 3;
      t->external_data = m->pointers;
    }
}

static void
restore_moved (GArray *moved)
{
  for (guint i = 0; i < moved->len; i++)
    {
      Moved *m = &g_array_index (moved, Moved, i);
      *m->tensor = m->saved;
    }
}

/* The model's payloads over EXTERNAL_MIN_BYTES into the temporary file `data_tmp`,
 * synced; the tensors then point there (restore_moved undoes it). */
static int
externalize (Onnx__ModelProto *proto, Externalize *ext, const char *location, const char *data_tmp_template,
             char **data_tmp)
{
  *data_tmp = g_strdup (data_tmp_template);
  ext->location = location;
  ext->moved = g_array_new (FALSE, FALSE, sizeof (Moved));
  ext->fd = g_mkstemp_full (*data_tmp, O_WRONLY | O_CLOEXEC, 0644);
  if (ext->fd < 0)
    return errno;
  onyx_proto_foreach_tensor (&proto->base, externalize_tensor, ext);
  if (ext->error_number == 0 && fsync (ext->fd) != 0)
    ext->error_number = errno;
  if (close (ext->fd) != 0 && ext->error_number == 0)
    ext->error_number = errno;
  if (ext->error_number != 0)
    {
      restore_moved (ext->moved);
      g_unlink (*data_tmp);
      return ext->error_number;
    }
  point_moved (ext);
  return 0;
}

static gboolean
save_fail (GError **error, const char *path, const char *what, int error_number)
{
  char *name = g_path_get_basename (path);
  g_set_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_IO, "%s: %s: %s", name, what,
               g_strerror (error_number));
  g_free (name);
  return FALSE;
}

gboolean
onyx_model_save (OnyxModel *self, const char *path, GError **error)
{
  return onyx_model_save_with_progress (self, path, NULL, NULL, error);
}

gboolean
onyx_model_save_with_progress (OnyxModel *self, const char *path, OnyxProgressFunc progress,
                               gpointer progress_data, GError **error)
{
  g_autofree char *abs_path = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  g_autofree char *tmp_path = NULL;
  FdBuffer *buffer;
  mode_t mode;
  int saved_errno = 0;
  const char *step = NULL;
  g_autofree char *data_location = NULL, *data_tmp = NULL;
  Externalize ext = { NULL, -1, 0, NULL, 0 };
  size_t size;

  g_return_val_if_fail (ONYX_IS_MODEL (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  abs_path = g_canonicalize_filename (path, NULL);
  dir = g_path_get_dirname (abs_path);
  base = g_path_get_basename (abs_path);

  if (!onyx_external_copy_for_save (onyx_model_get_proto (self), onyx_model_get_display_name (self), onyx_model_get_base_dir (self), dir, progress,
                                    progress_data, error))
    return FALSE;

  if (!onyx_file_replacing_mode (abs_path, &mode))
    {
      g_set_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_IO, _("%s: is a folder, not a model file"), base);
      return FALSE;
    }

  tmp_path = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  buffer = g_new0 (FdBuffer, 1);
  buffer->base.append = fd_buffer_append;
  buffer->fd = g_mkstemp_full (tmp_path, O_WRONLY | O_CLOEXEC, 0600);
  if (buffer->fd < 0)
    {
      saved_errno = errno;
      g_free (buffer);
      return save_fail (error, abs_path, _("cannot create a file in its folder"), saved_errno);
    }

  /* Too large for one protobuf: the payloads to BASE.data first (a temporary file,
   * renamed with the model), the tensors pointing there for the time of the pack. */
  size = protobuf_c_message_get_packed_size (&onyx_model_get_proto (self)->base);
  if (size > proto_limit)
    {
      g_autofree char *template = NULL;
      data_location = g_strdup_printf ("%s.data", base);
      template = g_strdup_printf ("%s/.%s.XXXXXX", dir, data_location);
      if ((saved_errno = externalize (onyx_model_get_proto (self), &ext, data_location, template, &data_tmp)) != 0)
        {
          g_clear_pointer (&ext.moved, g_array_unref);
          close (buffer->fd);
          g_free (buffer);
          g_unlink (tmp_path);
          return save_fail (error, abs_path, _("cannot write its external data"), saved_errno);
        }
      size = protobuf_c_message_get_packed_size (&onyx_model_get_proto (self)->base);
    }
  fd_buffer_pack (buffer, &onyx_model_get_proto (self)->base, size);
  if (ext.moved != NULL)
    {
      restore_moved (ext.moved);
      g_clear_pointer (&ext.moved, g_array_unref);
    }
  fd_buffer_flush (buffer);
  if (buffer->error_number != 0)
    saved_errno = buffer->error_number, step = _("cannot write");
  else if (fchmod (buffer->fd, mode) != 0)
    saved_errno = errno, step = _("cannot set permissions");
  else if (fsync (buffer->fd) != 0)
    saved_errno = errno, step = _("cannot write");
  if (close (buffer->fd) != 0 && step == NULL)
    saved_errno = errno, step = _("cannot write");
  g_free (buffer);

  if (step == NULL && data_tmp != NULL)
    {
      g_autofree char *data_path = g_build_filename (dir, data_location, NULL);
      if (g_rename (data_tmp, data_path) != 0)
        saved_errno = errno, step = _("cannot write its external data");
    }
  if (step == NULL && g_rename (tmp_path, abs_path) != 0)
    saved_errno = errno, step = _("cannot replace the file");
  if (step != NULL)
    {
      g_unlink (tmp_path);
      if (data_tmp != NULL)
        g_unlink (data_tmp);
      return save_fail (error, abs_path, step, saved_errno);
    }
  onyx_file_sync_folder (dir);
  return TRUE;
}
