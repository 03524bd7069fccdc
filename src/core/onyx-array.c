/* onyx-array.c: arrays, and numpy's .npy format read and written (.npz, a zip of
 * them, is onyx-array-npz.c's).
 *
 * The reader takes untrusted files: every length is checked against the bytes that
 * are there before it is used, and sizes are multiplied with overflow checks. */
#include "onyx-array-private.h"

#include <gio/gio.h>
#include <stdarg.h>
#include <string.h>

#include "onyx-types.h"
#include "onyx-text.h"

enum {
  T_FLOAT = 1, T_UINT8, T_INT8, T_UINT16, T_INT16, T_INT32, T_INT64, T_STRING, T_BOOL,
  T_FLOAT16, T_DOUBLE, T_UINT32, T_UINT64,
};

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
/* np.save pads the preamble to this, so that data can be mapped aligned. */
#define NPY_ALIGN 64
/* numpy allows 32 dims (64 since numpy 2); more only come from hostile headers. */
#define NPY_MAX_DIMS 64
/* np.save leaves room for the first dim to grow to this many digits in place. */
#define NPY_GROWTH_DIGITS 21

typedef struct {
  char kind;
  gsize size;
  int elem_type;
} NpyType;

static const NpyType npy_types[] = {
  { 'f', 2, T_FLOAT16 }, { 'f', 4, T_FLOAT }, { 'f', 8, T_DOUBLE },
  { 'i', 1, T_INT8 }, { 'i', 2, T_INT16 }, { 'i', 4, T_INT32 }, { 'i', 8, T_INT64 },
  { 'u', 1, T_UINT8 }, { 'u', 2, T_UINT16 }, { 'u', 4, T_UINT32 }, { 'u', 8, T_UINT64 },
  { 'b', 1, T_BOOL },
};

OnyxArray *
onyx_array_new (const char *name, int elem_type, const gint64 *dims, gsize n_dims, GBytes *data)
{
  OnyxArray *array;

  g_return_val_if_fail (data != NULL && (dims != NULL || n_dims == 0), NULL);
  array = g_new0 (OnyxArray, 1);
  array->name = g_strdup (name);
  array->elem_type = elem_type;
  array->dims = n_dims > 0 ? g_memdup2 (dims, n_dims * sizeof *dims) : NULL;
  array->n_dims = n_dims;
  array->data = g_bytes_ref (data);
  return array;
}

void
onyx_array_free (OnyxArray *array)
{
  if (array == NULL)
    return;
  g_free (array->name);
  g_free (array->dims);
  g_bytes_unref (array->data);
  g_free (array);
}

static const NpyType *
npy_type_for_elem (int elem_type)
{
  for (gsize i = 0; i < G_N_ELEMENTS (npy_types); i++)
    if (npy_types[i].elem_type == elem_type)
      return &npy_types[i];
  return NULL;
}

gsize
onyx_array_element_size (int elem_type)
{
  const NpyType *type = npy_type_for_elem (elem_type);
  return type != NULL ? type->size : 0;
}

OnyxArray *
onyx_array_find (GPtrArray *arrays, const char *name)
{
  for (guint i = 0; arrays != NULL && i < arrays->len; i++)
    if (arrays->pdata[i] != NULL && g_strcmp0 (((OnyxArray *) arrays->pdata[i])->name, name) == 0)
      return arrays->pdata[i];
  return NULL;
}

/* A zero dim makes the product 0 however large the others are. */
guint64
onyx_array_dims_count (const gint64 *dims, gsize n_dims)
{
  guint64 count = 1;
  gboolean empty = FALSE;

  for (gsize i = 0; i < n_dims; i++)
    {
      if (dims[i] < 0)
        return G_MAXUINT64;
      empty |= dims[i] == 0;
    }
  if (empty)
    return 0;
  for (gsize i = 0; i < n_dims; i++)
    {
      if (count >= G_MAXUINT64 / (guint64) dims[i])
        return G_MAXUINT64;
      count *= (guint64) dims[i];
    }
  return count;
}

guint64
onyx_array_count (const OnyxArray *array)
{
  g_return_val_if_fail (array != NULL, G_MAXUINT64);
  return onyx_array_dims_count (array->dims, array->n_dims);
}

/* count × size, or FALSE when it does not fit in memory. */
static gboolean
byte_size (guint64 count, gsize size, gsize *out)
{
  if (count == G_MAXUINT64 || (size != 0 && count > G_MAXSIZE / size))
    return FALSE;
  *out = (gsize) count * size;
  return TRUE;
}

gpointer
onyx_array_fail (GError **error, const char *label, const char *format, ...)
{
  g_autofree char *escaped = onyx_display_escape (label);
  g_autofree char *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: %s", escaped, what);
  return NULL;
}

/* ---- The header: a Python dict literal ---------------------------------- */

typedef struct {
  const char *p;
  const char *end;
} Cursor;

static void
skip_space (Cursor *c)
{
  while (c->p < c->end && g_ascii_isspace (*c->p))
    c->p++;
}

static gboolean
peek (Cursor *c, char ch)
{
  skip_space (c);
  return c->p < c->end && *c->p == ch;
}

static gboolean
accept (Cursor *c, char ch)
{
  if (!peek (c, ch))
    return FALSE;
  c->p++;
  return TRUE;
}

/* A quoted string without escapes: numpy's keys and type strings have none. */
static char *
read_string (Cursor *c)
{
  const char *start;
  char quote;

  skip_space (c);
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
    return NULL;
  quote = *c->p++;
  start = c->p;
  while (c->p < c->end && *c->p != quote)
    {
      if (*c->p == '\\' || *c->p == '\0')
        return NULL;
      c->p++;
    }
  if (c->p >= c->end)
    return NULL;
  c->p++;
  return g_strndup (start, (gsize) (c->p - 1 - start));
}

static gboolean
read_word (Cursor *c, const char *word)
{
  gsize len = strlen (word);

  skip_space (c);
  if ((gsize) (c->end - c->p) < len || memcmp (c->p, word, len) != 0)
    return FALSE;
  if ((gsize) (c->end - c->p) > len && (g_ascii_isalnum (c->p[len]) || c->p[len] == '_'))
    return FALSE;
  c->p += len;
  return TRUE;
}

typedef struct {
  char *descr;
  gboolean structured;
  int fortran_order; /* -1: absent */
  gboolean has_shape;
  gint64 dims[NPY_MAX_DIMS];
  gsize n_dims;
} NpyHeader;

/* "(2, 3)", "(5,)", "()"; Python 2's "3L" too. NULL on success, else what is wrong. */
static const char *
read_shape (Cursor *c, NpyHeader *header)
{
  header->n_dims = 0;
  if (!accept (c, '('))
    return "its shape is not a tuple";
  while (!accept (c, ')'))
    {
      guint64 dim = 0;
      gboolean digits = FALSE;

      if (accept (c, '-'))
        return "its shape has a negative dimension";
      while (c->p < c->end && g_ascii_isdigit (*c->p))
        {
          guint digit = (guint) (*c->p++ - '0');
          if (dim > ((guint64) G_MAXINT64 - digit) / 10)
            return "its shape has a dimension too large for any array";
          dim = dim * 10 + digit;
          digits = TRUE;
        }
      if (!digits)
        return "its shape is not a tuple of integers";
      if (c->p < c->end && (*c->p == 'L' || *c->p == 'l'))
        c->p++;
      if (header->n_dims == NPY_MAX_DIMS)
        return "its shape has too many dimensions";
      header->dims[header->n_dims++] = (gint64) dim;
      if (!accept (c, ',') && !peek (c, ')'))
        return "its shape is not a tuple of integers";
    }
  return NULL;
}

/* NULL on success, else what is wrong with the header. */
static const char *
read_header (Cursor *c, NpyHeader *header)
{
  if (!accept (c, '{'))
    return "its header is not a Python dict";
  while (!accept (c, '}'))
    {
      g_autofree char *key = read_string (c);
      const char *problem = NULL;

      if (key == NULL || !accept (c, ':'))
        return "its header is not a Python dict";
      if (strcmp (key, "descr") == 0)
        {
          g_clear_pointer (&header->descr, g_free);
          /* A list of fields is a structured dtype: nothing more to read. */
          if (peek (c, '['))
            {
              header->structured = TRUE;
              return NULL;
            }
          header->descr = read_string (c);
          if (header->descr == NULL)
            return "its header's 'descr' is not a type string";
        }
      else if (strcmp (key, "fortran_order") == 0)
        {
          header->fortran_order = read_word (c, "True") ? 1 : read_word (c, "False") ? 0 : -1;
          if (header->fortran_order < 0)
            return "its header's 'fortran_order' is neither True nor False";
        }
      else if (strcmp (key, "shape") == 0)
        {
          if ((problem = read_shape (c, header)) != NULL)
            return problem;
          header->has_shape = TRUE;
        }
      else
        return "its header has a key other than 'descr', 'fortran_order' and 'shape'";
      if (!accept (c, ',') && !peek (c, '}'))
        return "its header is not a Python dict";
    }
  skip_space (c);
  if (c->p != c->end)
    return "its header has more after the dict";
  if (header->descr == NULL)
    return "its header has no 'descr'";
  if (header->fortran_order < 0)
    return "its header has no 'fortran_order'";
  if (!header->has_shape)
    return "its header has no 'shape'";
  return NULL;
}

static const char *
kind_description (char kind)
{
  static const char *const kinds[][2] = {
    { "U", "unicode strings" }, { "Sa", "byte strings" }, { "O", "Python objects" },
    { "c", "complex numbers" }, { "V", "raw bytes or records" }, { "M", "dates and times" },
    { "m", "time spans" }, { "f", "floats of a size ONNX lacks" },
    { "iu", "integers of a size ONNX lacks" },
  };

  for (gsize i = 0; kind != '\0' && i < G_N_ELEMENTS (kinds); i++)
    if (strchr (kinds[i][0], kind) != NULL)
      return kinds[i][1];
  return "a type numpy rarely writes";
}

/* '<f4' → float, with *swap set when the data's byte order is not the host's. */
static const NpyType *
decode_descr (const char *descr, gboolean *swap)
{
  const char *p = descr;
  char order = '=';
  char kind;
  gsize size = 0;

  if (*p == '<' || *p == '>' || *p == '|' || *p == '=')
    order = *p++;
  kind = *p++;
  if (kind == '?')
    kind = 'b', size = 1;
  else if (kind == '\0')
    return NULL;
  else
    {
      if (!g_ascii_isdigit (*p))
        return NULL;
      for (int i = 0; i < 3 && g_ascii_isdigit (*p); i++)
        size = size * 10 + (gsize) (*p++ - '0');
    }
  if (*p != '\0')
    return NULL;
  *swap = (G_BYTE_ORDER == G_LITTLE_ENDIAN && order == '>')
          || (G_BYTE_ORDER == G_BIG_ENDIAN && order == '<');
  for (gsize i = 0; i < G_N_ELEMENTS (npy_types); i++)
    if (npy_types[i].kind == kind && npy_types[i].size == size)
      return &npy_types[i];
  return NULL;
}

static void
swap_bytes (guint8 *data, gsize n_bytes, gsize size)
{
  for (gsize at = 0; at + size <= n_bytes; at += size)
    for (gsize i = 0; i < size / 2; i++)
      {
        guint8 byte = data[at + i];
        data[at + i] = data[at + size - 1 - i];
        data[at + size - 1 - i] = byte;
      }
}

/* Fortran order has the first index moving fastest: walk the source in that order
 * and drop each element at its C-order place. */
static void
fortran_to_c (guint8 *dst, const guint8 *src, const gint64 *dims, gsize n_dims, gsize size,
              guint64 count)
{
  gsize index[NPY_MAX_DIMS] = { 0 };
  gsize stride[NPY_MAX_DIMS];
  gsize offset = 0;

  stride[n_dims - 1] = size;
  for (gsize k = n_dims - 1; k > 0; k--)
    stride[k - 1] = stride[k] * (gsize) dims[k];
  for (guint64 i = 0; i < count; i++)
    {
      memcpy (dst + offset, src + i * size, size);
      for (gsize k = 0; k < n_dims; k++)
        {
          offset += stride[k];
          if (++index[k] < (gsize) dims[k])
            break;
          offset -= stride[k] * index[k];
          index[k] = 0;
        }
    }
}

static char *
shape_repr (const gint64 *dims, gsize n_dims)
{
  GString *text = g_string_new ("(");

  for (gsize i = 0; i < n_dims; i++)
    g_string_append_printf (text, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", dims[i]);
  g_string_append (text, n_dims == 1 ? ",)" : ")");
  return g_string_free (text, FALSE);
}

OnyxArray *
onyx_npy_parse_in (const guint8 *bytes, gsize len, GBytes *owner, const char *name, const char *label,
           GError **error)
{
  NpyHeader header = { .fortran_order = -1 };
  g_autofree char *descr = NULL;
  g_autofree char *shape = NULL;
  g_autoptr (GBytes) data = NULL;
  const NpyType *type;
  const char *problem;
  Cursor cursor;
  gsize header_len, start, n_bytes;
  guint64 count;
  gboolean swap = FALSE;

  if (len < NPY_MAGIC_LEN || memcmp (bytes, NPY_MAGIC, NPY_MAGIC_LEN) != 0)
    return onyx_array_fail (error, label, "not a .npy file: it does not start with numpy's magic bytes");
  if (len < 8 || bytes[6] < 1 || bytes[6] > 3)
    return onyx_array_fail (error, label, len < 8 ? "truncated: the file ends inside its preamble"
                       : "its .npy format version is not one Onyx knows");
  /* Version 1.0 has a 16-bit header length, 2.0 and 3.0 a 32-bit one. */
  start = bytes[6] == 1 ? 10 : 12;
  if (len < start)
    return onyx_array_fail (error, label, "truncated: the file ends inside its preamble");
  header_len = (gsize) bytes[8] | (gsize) bytes[9] << 8;
  if (start == 12)
    header_len |= (gsize) bytes[10] << 16 | (gsize) bytes[11] << 24;
  if (header_len > len - start)
    return onyx_array_fail (error, label,
                       "truncated: its header claims %" G_GSIZE_FORMAT " bytes, the file has %"
                       G_GSIZE_FORMAT " after the preamble", header_len, len - start);

  cursor.p = (const char *) bytes + start;
  cursor.end = cursor.p + header_len;
  problem = read_header (&cursor, &header);
  descr = header.descr;
  if (problem != NULL)
    return onyx_array_fail (error, label, "%s", problem);
  if (header.structured)
    return onyx_array_fail (error, label, "Onyx cannot use its dtype, a structured one (a record of "
                       "fields): ONNX has no element type for it");
  type = decode_descr (descr, &swap);
  if (type == NULL)
    {
      char kind = descr[0] != '\0' && strchr ("<>|=", descr[0]) != NULL ? descr[1] : descr[0];
      g_autofree char *shown = onyx_display_escape (descr);
      return onyx_array_fail (error, label, "Onyx cannot use dtype '%s' (%s): ONNX has no element "
                         "type for it", shown, kind_description (kind));
    }

  count = onyx_array_dims_count (header.dims, header.n_dims);
  shape = shape_repr (header.dims, header.n_dims);
  if (!byte_size (count, type->size, &n_bytes))
    return onyx_array_fail (error, label, "its shape %s is too large for any array", shape);
  start += header_len;
  if (n_bytes > len - start)
    return onyx_array_fail (error, label, "truncated: shape %s of '%s' needs %" G_GSIZE_FORMAT
                       " bytes of data, the file has %" G_GSIZE_FORMAT,
                       shape, descr, n_bytes, len - start);
  if (n_bytes < len - start)
    return onyx_array_fail (error, label, "it has %" G_GSIZE_FORMAT " bytes of data where shape %s "
                       "of '%s' needs %" G_GSIZE_FORMAT, len - start, shape, descr, n_bytes);

  if (n_bytes == 0)
    data = g_bytes_new (NULL, 0);
  else if (!swap && (header.fortran_order == 0 || header.n_dims < 2) && owner != NULL)
    data = g_bytes_new_from_bytes (owner, (gsize) (bytes + start - (const guint8 *)
                                                   g_bytes_get_data (owner, NULL)), n_bytes);
  else
    {
      guint8 *copy = g_try_malloc (n_bytes);

      if (copy == NULL)
        return onyx_array_fail (error, label, "not enough memory for its %" G_GSIZE_FORMAT " bytes",
                           n_bytes);
      if (header.fortran_order == 1 && header.n_dims >= 2)
        fortran_to_c (copy, bytes + start, header.dims, header.n_dims, type->size, count);
      else
        memcpy (copy, bytes + start, n_bytes);
      if (swap)
        swap_bytes (copy, n_bytes, type->size);
      data = g_bytes_new_take (copy, n_bytes);
    }
  return onyx_array_new (name, type->elem_type, header.dims, header.n_dims, data);
}

/* name is the array's name and names it in messages ("array" when NULL). */
OnyxArray *
onyx_npy_parse (const guint8 *bytes, gsize len, const char *name, GError **error)
{
  g_return_val_if_fail (bytes != NULL || len == 0, NULL);
  return onyx_npy_parse_in (bytes, len, NULL, name, name != NULL ? name : "array", error);
}

/* The array is named after the file, without ".npy". */
OnyxArray *
onyx_npy_read (const char *path, GError **error)
{
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *name = NULL;
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GError) local = NULL;
  char *contents;
  gsize len;

  if (!g_file_get_contents (path, &contents, &len, &local))
    {
      g_set_error_literal (error, G_IO_ERROR, g_io_error_from_file_error (local->code),
                           local->message);
      return NULL;
    }
  bytes = g_bytes_new_take (contents, len);
  name = g_str_has_suffix (base, ".npy") ? g_strndup (base, strlen (base) - 4) : g_strdup (base);
  return onyx_npy_parse_in ((const guint8 *) contents, len, bytes, name, base, error);
}

GBytes *
onyx_npy_preamble (const OnyxArray *array, const char *label, GError **error)
{
  const NpyType *type = npy_type_for_elem (array->elem_type);
  g_autofree char *shape = NULL;
  GString *text;
  gsize n_bytes, total, prefix;
  guint8 version, head[12];

  if (type == NULL)
    return onyx_array_fail (error, label, "element type %d has no numpy dtype", array->elem_type);
  shape = shape_repr (array->dims, array->n_dims);
  if (!byte_size (onyx_array_count (array), type->size, &n_bytes))
    return onyx_array_fail (error, label, "its shape %s is not one of an array", shape);
  if (g_bytes_get_size (array->data) != n_bytes)
    return onyx_array_fail (error, label, "it has %" G_GSIZE_FORMAT " bytes of data where its shape "
                       "%s needs %" G_GSIZE_FORMAT, g_bytes_get_size (array->data), shape, n_bytes);

  text = g_string_new (NULL);
  g_string_append_printf (text, "{'descr': '%c%c%" G_GSIZE_FORMAT "', 'fortran_order': False, "
                          "'shape': %s, }", type->size == 1 ? '|' : '<', type->kind, type->size,
                          shape);
  if (array->n_dims > 0)
    {
      g_autofree char *first = g_strdup_printf ("%" G_GINT64_FORMAT, array->dims[0]);
      for (gsize i = strlen (first); i < NPY_GROWTH_DIGITS; i++)
        g_string_append_c (text, ' ');
    }
  /* As numpy: version 1.0 unless its 16-bit header length cannot hold the header;
   * then 2.0, with a 32-bit one. Padding is never empty, as in numpy. */
  for (version = 1;; version++)
    {
      prefix = NPY_MAGIC_LEN + (version == 1 ? 4 : 6);
      total = prefix + text->len + 1 + NPY_ALIGN - (prefix + text->len + 1) % NPY_ALIGN;
      if (version == 2 || total - prefix <= G_MAXUINT16)
        break;
    }
  while (text->len + 1 < total - prefix)
    g_string_append_c (text, ' ');
  g_string_append_c (text, '\n');
  memcpy (head, NPY_MAGIC, NPY_MAGIC_LEN);
  head[6] = version, head[7] = 0;
  for (gsize i = 0; i < prefix - 8; i++)
    head[8 + i] = (guint8) (text->len >> (8 * i));
  g_string_prepend_len (text, (const char *) head, (gssize) prefix);
  return g_string_free_to_bytes (text);
}

GBytes *
onyx_npy_serialize (const OnyxArray *array, GError **error)
{
  g_autoptr (GBytes) preamble = NULL;
  gsize size, preamble_size;
  gconstpointer data;
  guint8 *out;

  g_return_val_if_fail (array != NULL, NULL);

  preamble = onyx_npy_preamble (array, array->name != NULL ? array->name : "array", error);
  if (preamble == NULL)
    return NULL;
  data = g_bytes_get_data (array->data, &size);
  preamble_size = g_bytes_get_size (preamble);
  /* Not a GByteArray: its guint length would cap arrays at 4 GiB. */
  out = g_try_malloc (preamble_size + size);
  if (out == NULL)
    return onyx_array_fail (error, array->name != NULL ? array->name : "array",
                       "not enough memory for %" G_GSIZE_FORMAT " bytes", preamble_size + size);
  memcpy (out, g_bytes_get_data (preamble, NULL), preamble_size);
  if (size > 0)
    memcpy (out + preamble_size, data, size);
  return g_bytes_new_take (out, preamble_size + size);
}
