#include "onyx-model.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onyx-external.h"
#include "onyx-file.h"

/* raw_data payloads at least this large stay in the mapped file. */
#define SPAN_THRESHOLD 1024
/* Real models nest Graph > Node > Attribute > Graph a few times; thousands of levels
 * only come from hostile files and would exhaust protobuf-c's recursive decoder. */
#define MAX_NESTING 100
/* Lengths in the rewritten buffer are written as padded 5-byte varints, so a nested
 * message can be copied in one pass and its length patched afterwards. */
#define PADDED_VARINT_LEN 5
#define MARKER_NONCE_LEN 16
#define MARKER_LEN (MARKER_NONCE_LEN + 8)
/* The scan's copy is about the file's size less its large payloads: room for that is
 * made at once (up to this much), rather than by doubling, which copied and touched
 * twice the bytes. */
#define SCAN_RESERVE_MAX (64 << 20)
#define TENSOR_RAW_DATA_FIELD 9

struct _OnyxModel {
  GObject parent_instance;

  char *path;
  char *display_name;
  char *base_dir;
  GMappedFile *mapping; /* NULL for models made from memory */
  GBytes *data;         /* the bytes raw_data views point into */
  Onnx__ModelProto *proto;
  guint n_mapped_tensors;
};

G_DEFINE_FINAL_TYPE (OnyxModel, onyx_model, G_TYPE_OBJECT)

typedef struct {
  goffset offset;
  gsize len;
} Span;

typedef struct {
  const guint8 *data;
  gsize len;
  const char *display_name;
  GByteArray *out;
  GArray *spans;
  guint8 nonce[MARKER_NONCE_LEN];
  GError *error;
} Scan;

static gboolean
scan_fail (Scan *scan, OnyxModelError code, gsize at, const char *format, ...) G_GNUC_PRINTF (4, 5);

static gboolean
scan_fail (Scan *scan, OnyxModelError code, gsize at, const char *format, ...)
{
  va_list args;
  char *what;

  if (scan->error != NULL)
    return FALSE;
  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (&scan->error, ONYX_MODEL_ERROR, code, _("%s: %s (at byte %zu)"),
               scan->display_name, what, at);
  g_free (what);
  return FALSE;
}

static gboolean
read_varint (const guint8 *data, gsize *pos, gsize end, guint64 *value)
{
  guint64 result = 0;

  for (guint shift = 0; shift < 64; shift += 7)
    {
      guint8 byte;
      if (*pos >= end)
        return FALSE;
      byte = data[(*pos)++];
      result |= (guint64) (byte & 0x7f) << shift;
      if ((byte & 0x80) == 0)
        {
          *value = result;
          return TRUE;
        }
    }
  return FALSE;
}

static void
append_varint (GByteArray *out, guint64 value)
{
  guint8 buf[10];
  guint n = 0;

  do
    {
      buf[n] = value & 0x7f;
      value >>= 7;
      if (value != 0)
        buf[n] |= 0x80;
      n++;
    }
  while (value != 0);
  g_byte_array_append (out, buf, n);
}

static void
patch_padded_varint (GByteArray *out, gsize at, guint64 value)
{
  for (guint i = 0; i < PADDED_VARINT_LEN; i++)
    {
      out->data[at + i] = (value & 0x7f) | (i + 1 < PADDED_VARINT_LEN ? 0x80 : 0);
      value >>= 7;
    }
}

static const char *
field_label (const ProtobufCFieldDescriptor *field, guint32 number, char *buf, gsize buf_len)
{
  if (field != NULL)
    return field->name;
  g_snprintf (buf, buf_len, "#%u", number);
  return buf;
}

/* Which wire types protobuf accepts for a field of this type (packed repeated
 * scalars come as length-delimited). */
static gboolean
wire_type_fits (const ProtobufCFieldDescriptor *field, guint wire)
{
  gboolean repeated = field->label == PROTOBUF_C_LABEL_REPEATED;

  switch (field->type)
    {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_BOOL:
    case PROTOBUF_C_TYPE_ENUM:
      return wire == 0 || (repeated && wire == 2);
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_FLOAT:
      return wire == 5 || (repeated && wire == 2);
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
      return wire == 1 || (repeated && wire == 2);
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_BYTES:
    case PROTOBUF_C_TYPE_MESSAGE:
    default:
      return wire == 2;
    }
}

/* Checks the wire structure of one message (recursing into known sub-messages) and
 * copies it to scan->out, replacing large TensorProto.raw_data payloads with a marker
 * that names their span in the file. This is the narrow scan DESIGN.md allows: the
 * message structure itself is decoded by protobuf-c afterwards. */
static gboolean
scan_message (Scan *scan, const ProtobufCMessageDescriptor *desc, gsize pos, gsize end, guint depth)
{
  char label_buf[32];

  if (depth > MAX_NESTING)
    return scan_fail (scan, ONYX_MODEL_ERROR_TOO_DEEP, pos,
                      _("messages are nested more than %d levels deep"), MAX_NESTING);

  while (pos < end)
    {
      gsize field_start = pos;
      guint64 key, length;
      guint32 number;
      guint wire;
      const ProtobufCFieldDescriptor *field;
      const char *label;

      if (!read_varint (scan->data, &pos, end, &key))
        return scan_fail (scan, ONYX_MODEL_ERROR_MALFORMED, field_start,
                          _("not a protobuf message: unreadable field key in %s"),
                          onyx_proto_type_name (desc));
      number = (guint32) (key >> 3);
      wire = key & 7;
      if (number == 0 || (key >> 3) > G_MAXINT32)
        return scan_fail (scan, ONYX_MODEL_ERROR_MALFORMED, field_start,
                          _("not a protobuf message: invalid field number in %s"),
                          onyx_proto_type_name (desc));
      field = protobuf_c_message_descriptor_get_field (desc, number);
      label = field_label (field, number, label_buf, sizeof label_buf);
      if (field != NULL && !wire_type_fits (field, wire))
        return scan_fail (scan, ONYX_MODEL_ERROR_MALFORMED, field_start,
                          _("field '%s' of %s has the wrong type (wire type %u)"),
                          label, onyx_proto_type_name (desc), wire);

      switch (wire)
        {
        case 0:
          if (!read_varint (scan->data, &pos, end, &length))
            return scan_fail (scan, ONYX_MODEL_ERROR_TRUNCATED, field_start,
                              _("truncated: field '%s' of %s ends early"),
                              label, onyx_proto_type_name (desc));
          break;
        case 1:
        case 5:
          {
            gsize size = wire == 1 ? 8 : 4;
            if (end - pos < size)
              return scan_fail (scan, ONYX_MODEL_ERROR_TRUNCATED, field_start,
                                _("truncated: field '%s' of %s ends early"),
                                label, onyx_proto_type_name (desc));
            pos += size;
          }
          break;
        case 2:
          if (!read_varint (scan->data, &pos, end, &length))
            return scan_fail (scan, ONYX_MODEL_ERROR_TRUNCATED, field_start,
                              _("truncated: length of field '%s' of %s ends early"),
                              label, onyx_proto_type_name (desc));
          if (length > end - pos)
            return scan_fail (scan, ONYX_MODEL_ERROR_TRUNCATED, field_start,
                              _("truncated: field '%s' of %s claims %llu bytes but only %zu remain"),
                              label, onyx_proto_type_name (desc), (unsigned long long) length, end - pos);
          if (length > G_MAXINT32)
            return scan_fail (scan, ONYX_MODEL_ERROR_MALFORMED, field_start,
                              _("field '%s' of %s is larger than protobuf's 2 GiB limit"),
                              label, onyx_proto_type_name (desc));
          if (field != NULL && field->type == PROTOBUF_C_TYPE_MESSAGE)
            {
              gsize length_at;

              /* The length prefix is rewritten padded: the copy may be shorter. */
              append_varint (scan->out, key);
              length_at = scan->out->len;
              g_byte_array_set_size (scan->out, length_at + PADDED_VARINT_LEN);
              if (!scan_message (scan, field->descriptor, pos, pos + length, depth + 1))
                return FALSE;
              patch_padded_varint (scan->out, length_at, scan->out->len - length_at - PADDED_VARINT_LEN);
              pos += length;
              continue;
            }
          if (desc == &onnx__tensor_proto__descriptor && number == TENSOR_RAW_DATA_FIELD &&
              length >= SPAN_THRESHOLD)
            {
              Span span = { (goffset) pos, length };
              guint64 index = scan->spans->len;
              guint8 index_le[8];

              for (guint i = 0; i < 8; i++)
                index_le[i] = (index >> (8 * i)) & 0xff;
              g_array_append_val (scan->spans, span);
              append_varint (scan->out, key);
              append_varint (scan->out, MARKER_LEN);
              g_byte_array_append (scan->out, scan->nonce, MARKER_NONCE_LEN);
              g_byte_array_append (scan->out, index_le, 8);
              pos += length;
              continue;
            }
          pos += length;
          break;
        case 3:
        case 4:
          return scan_fail (scan, ONYX_MODEL_ERROR_MALFORMED, field_start,
                            _("not an ONNX model: field '%s' of %s uses protobuf groups"),
                            label, onyx_proto_type_name (desc));
        default:
          return scan_fail (scan, ONYX_MODEL_ERROR_MALFORMED, field_start,
                            _("not a protobuf message: invalid wire type %u in %s"),
                            wire, onyx_proto_type_name (desc));
        }
      g_byte_array_append (scan->out, scan->data + field_start, pos - field_start);
    }
  return TRUE;
}

typedef struct {
  Scan *scan;
  const guint8 *base;
  gboolean *claimed;
  guint n_resolved;
} Resolve;

static void
resolve_marker (Onnx__TensorProto *tensor, gpointer user_data)
{
  Resolve *resolve = user_data;
  guint64 index = 0;

  if (!tensor->has_raw_data || tensor->raw_data.len != MARKER_LEN ||
      memcmp (tensor->raw_data.data, resolve->scan->nonce, MARKER_NONCE_LEN) != 0)
    return;
  for (guint i = 0; i < 8; i++)
    index |= (guint64) tensor->raw_data.data[MARKER_NONCE_LEN + i] << (8 * i);
  if (index >= resolve->scan->spans->len || resolve->claimed[index])
    return;
  resolve->claimed[index] = TRUE;
  free (tensor->raw_data.data);
  tensor->raw_data.data = (uint8_t *) resolve->base + g_array_index (resolve->scan->spans, Span, index).offset;
  tensor->raw_data.len = g_array_index (resolve->scan->spans, Span, index).len;
  resolve->n_resolved++;
}

static gboolean
points_into (OnyxModel *self, const void *ptr)
{
  gsize len;
  const guint8 *base;

  if (self->data == NULL || ptr == NULL)
    return FALSE;
  base = g_bytes_get_data (self->data, &len);
  return (const guint8 *) ptr >= base && (const guint8 *) ptr < base + len;
}

static void
unhook_mapped_payload (Onnx__TensorProto *tensor, gpointer user_data)
{
  OnyxModel *self = user_data;

  if (tensor->has_raw_data && points_into (self, tensor->raw_data.data))
    {
      tensor->raw_data.data = NULL;
      tensor->raw_data.len = 0;
    }
}

void
onyx_model_free_detached (OnyxModel *self, ProtobufCMessage *message)
{
  if (message == NULL)
    return;
  onyx_proto_foreach_tensor (message, unhook_mapped_payload, self);
  protobuf_c_message_free_unpacked (message, NULL);
}

static void
onyx_model_finalize (GObject *object)
{
  OnyxModel *self = ONYX_MODEL (object);

  if (self->proto != NULL)
    onyx_model_free_detached (self, &self->proto->base);
  g_clear_pointer (&self->data, g_bytes_unref);
  g_clear_pointer (&self->mapping, g_mapped_file_unref);
  g_free (self->path);
  g_free (self->display_name);
  g_free (self->base_dir);
  G_OBJECT_CLASS (onyx_model_parent_class)->finalize (object);
}

static void
onyx_model_class_init (OnyxModelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = onyx_model_finalize;
}

static void
onyx_model_init (OnyxModel *self)
{
}

/* Decodes self->data into self->proto. */
static gboolean
decode (OnyxModel *self, OnyxModelScannedFunc scanned_func, gpointer user_data, GError **error)
{
  gsize len;
  const guint8 *data = g_bytes_get_data (self->data, &len);
  Scan scan = { 0 };
  Resolve resolve = { 0 };
  g_autoptr (GBytes) scanned = NULL;
  gboolean ok;

  if (len == 0)
    {
      g_set_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_EMPTY,
                   _("%s: the file is empty"), self->display_name);
      return FALSE;
    }
  scan.data = data;
  scan.len = len;
  scan.display_name = self->display_name;
  scan.out = g_byte_array_sized_new ((guint) MIN (len + len / 16, SCAN_RESERVE_MAX));
  scan.spans = g_array_new (FALSE, FALSE, sizeof (Span));
  for (guint i = 0; i < MARKER_NONCE_LEN; i += 4)
    {
      guint32 r = g_random_int ();
      memcpy (scan.nonce + i, &r, 4);
    }

  ok = scan_message (&scan, &onnx__model_proto__descriptor, 0, len, 0);
  /* As bytes that outlive decoding: `scanned_func` may keep them. */
  scanned = g_byte_array_free_to_bytes (g_steal_pointer (&scan.out));
  if (ok && scanned_func != NULL)
    scanned_func (scanned, user_data);
  if (ok)
    {
      gsize scanned_len;
      const guint8 *scanned_data = g_bytes_get_data (scanned, &scanned_len);
      self->proto = onnx__model_proto__unpack (NULL, scanned_len, scanned_data);
      if (self->proto == NULL)
        {
          ok = FALSE;
          g_set_error (&scan.error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_MALFORMED,
                       _("%s: not a valid ONNX protobuf message"), self->display_name);
        }
    }
  if (ok && scan.spans->len > 0)
    {
      resolve.scan = &scan;
      resolve.base = data;
      resolve.claimed = g_new0 (gboolean, scan.spans->len);
      onyx_proto_foreach_tensor (&self->proto->base, resolve_marker, &resolve);
      self->n_mapped_tensors = resolve.n_resolved;
      g_free (resolve.claimed);
    }
  if (ok && self->proto->graph == NULL)
    {
      ok = FALSE;
      g_set_error (&scan.error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_NOT_A_MODEL,
                   _("%s: not an ONNX model: it has no graph"), self->display_name);
    }
  g_array_unref (scan.spans);
  if (!ok)
    {
      g_propagate_error (error, scan.error);
      return FALSE;
    }
  return onyx_external_check_model (self->proto, self->display_name, self->base_dir, error);
}

OnyxModel *
onyx_model_new_from_data (const guint8 *data, gsize len, const char *display_name,
                          const char *base_dir, GError **error)
{
  OnyxModel *self = g_object_new (ONYX_TYPE_MODEL, NULL);

  self->display_name = g_strdup (display_name != NULL ? display_name : "model");
  self->base_dir = g_strdup (base_dir);
  self->data = g_bytes_new (data, len);
  if (!decode (self, NULL, NULL, error))
    g_clear_object (&self);
  return self;
}

OnyxModel *
onyx_model_new_from_file (const char *path, GError **error)
{
  return onyx_model_new_from_file_scanned (path, NULL, NULL, error);
}

OnyxModel *
onyx_model_new_from_file_scanned (const char *path, OnyxModelScannedFunc scanned, gpointer user_data,
                                  GError **error)
{
  OnyxModel *self;
  GError *local_error = NULL;
  GStatBuf st;

  g_return_val_if_fail (path != NULL, NULL);

  self = g_object_new (ONYX_TYPE_MODEL, NULL);
  self->path = g_canonicalize_filename (path, NULL);
  self->display_name = g_path_get_basename (path);
  self->base_dir = g_path_get_dirname (self->path);

  if (g_stat (path, &st) != 0)
    {
      int saved = errno;
      g_set_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_IO, "%s: %s",
                   self->display_name, g_strerror (saved));
      g_object_unref (self);
      return NULL;
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_IO,
                   S_ISDIR (st.st_mode) ? _("%s: is a folder, not a model file") : _("%s: is not a regular file"),
                   self->display_name);
      g_object_unref (self);
      return NULL;
    }

  /* MAP_PRIVATE: a file changed by someone else while open does not change our view
   * of pages already read, and the mapping is never written through. */
  self->mapping = g_mapped_file_new (path, FALSE, &local_error);
  if (self->mapping == NULL)
    {
      g_set_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_IO, "%s: %s",
                   self->display_name, local_error->message);
      g_error_free (local_error);
      g_object_unref (self);
      return NULL;
    }
  self->data = g_mapped_file_get_bytes (self->mapping);
  if (!decode (self, scanned, user_data, error))
    g_clear_object (&self);
  return self;
}

void
onyx_model_release_pages (OnyxModel *self, gconstpointer data, gsize len)
{
  const guint8 *map, *bytes = data;
  guintptr page = (guintptr) sysconf (_SC_PAGESIZE), start, end;

  if (self == NULL || self->mapping == NULL || data == NULL)
    return;
  map = (const guint8 *) g_mapped_file_get_contents (self->mapping);
  if (bytes < map || len > g_mapped_file_get_length (self->mapping) - (gsize) (bytes - map))
    return;
  start = ((guintptr) bytes + page - 1) & ~(page - 1);
  end = ((guintptr) bytes + len) & ~(page - 1);
  /* The mapping is private and read-only: no page of it was ever written, so
   * dropping one loses nothing. */
  if (end > start)
    madvise ((void *) start, end - start, MADV_DONTNEED);
}

Onnx__ModelProto *
onyx_model_get_proto (OnyxModel *self)
{
  g_return_val_if_fail (ONYX_IS_MODEL (self), NULL);
  return self->proto;
}

const char *
onyx_model_get_path (OnyxModel *self)
{
  g_return_val_if_fail (ONYX_IS_MODEL (self), NULL);
  return self->path;
}

const char *
onyx_model_get_display_name (OnyxModel *self)
{
  g_return_val_if_fail (ONYX_IS_MODEL (self), NULL);
  return self->display_name;
}

const char *
onyx_model_get_base_dir (OnyxModel *self)
{
  g_return_val_if_fail (ONYX_IS_MODEL (self), NULL);
  return self->base_dir;
}

guint
onyx_model_get_n_mapped_tensors (OnyxModel *self)
{
  g_return_val_if_fail (ONYX_IS_MODEL (self), 0);
  return self->n_mapped_tensors;
}

/* Payloads lent out of the source tree while it is copied: each tensor is known by
 * its position in onyx_proto_foreach_tensor's walk, which is the same in the copy. */
typedef struct {
  guint position;
  Onnx__TensorProto *tensor;
  ProtobufCBinaryData payload;
} LentPayload;

typedef struct {
  OnyxModel *self;
  GArray *lent;
  guint position;
  guint next_lent;
} PayloadSharing;

static void
lend_payload (Onnx__TensorProto *tensor, gpointer user_data)
{
  PayloadSharing *sharing = user_data;

  if (tensor->has_raw_data && points_into (sharing->self, tensor->raw_data.data))
    {
      LentPayload lent = { sharing->position, tensor, tensor->raw_data };
      g_array_append_val (sharing->lent, lent);
      tensor->raw_data.data = NULL;
      tensor->raw_data.len = 0;
    }
  sharing->position++;
}

static void
share_payload (Onnx__TensorProto *copy, gpointer user_data)
{
  PayloadSharing *sharing = user_data;
  const LentPayload *lent;

  if (sharing->next_lent >= sharing->lent->len)
    return;
  lent = &g_array_index (sharing->lent, LentPayload, sharing->next_lent);
  if (lent->position == sharing->position++)
    {
      free (copy->raw_data.data);
      copy->has_raw_data = TRUE;
      copy->raw_data = lent->payload;
      sharing->next_lent++;
    }
}

ProtobufCMessage *
onyx_model_copy_sharing (OnyxModel *self, const ProtobufCMessage *message)
{
  PayloadSharing sharing = { self, g_array_new (FALSE, FALSE, sizeof (LentPayload)), 0, 0 };
  ProtobufCMessage *copy;

  g_return_val_if_fail (ONYX_IS_MODEL (self) && message != NULL, NULL);
  onyx_proto_foreach_tensor ((ProtobufCMessage *) message, lend_payload, &sharing);
  copy = onyx_proto_copy (message);
  for (guint i = 0; i < sharing.lent->len; i++)
    {
      const LentPayload *lent = &g_array_index (sharing.lent, LentPayload, i);
      lent->tensor->raw_data = lent->payload;
    }
  sharing.position = 0;
  onyx_proto_foreach_tensor (copy, share_payload, &sharing);
  g_array_unref (sharing.lent);
  return copy;
}

static void
count_mapped (Onnx__TensorProto *tensor, gpointer user_data)
{
  OnyxModel *self = user_data;

  if (tensor->has_raw_data && points_into (self, tensor->raw_data.data))
    self->n_mapped_tensors++;
}

OnyxModel *
onyx_model_new_derived (OnyxModel *source, Onnx__ModelProto *proto)
{
  OnyxModel *self;

  g_return_val_if_fail (ONYX_IS_MODEL (source) && proto != NULL, NULL);
  self = g_object_new (ONYX_TYPE_MODEL, NULL);
  self->display_name = g_strdup (source->display_name);
  self->base_dir = g_strdup (source->base_dir);
  self->mapping = source->mapping != NULL ? g_mapped_file_ref (source->mapping) : NULL;
  self->data = g_bytes_ref (source->data);
  self->proto = proto;
  onyx_proto_foreach_tensor (&proto->base, count_mapped, self);
  return self;
}

OnyxModel *
onyx_model_snapshot (OnyxModel *self)
{
  g_return_val_if_fail (ONYX_IS_MODEL (self), NULL);
  return onyx_model_new_derived (self, (Onnx__ModelProto *) onyx_model_copy_sharing (self, &self->proto->base));
}

GBytes *
onyx_model_serialize (OnyxModel *self)
{
  g_return_val_if_fail (ONYX_IS_MODEL (self), NULL);
  return onyx_proto_pack (&self->proto->base);
}
