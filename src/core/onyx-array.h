/* onyx-array.h: dense arrays as numpy keeps them, for running models.
 *
 * A model's inputs come from, and its tensors are saved to, numpy's own formats:
 * `.npy` (one array, what np.save writes) and `.npz` (a zip of `.npy` entries, what
 * np.savez / np.savez_compressed write), read and written with libzip. In memory an
 * array is C-ordered, little-endian, elements packed, typed by ONNX's element type
 * (onnx.proto's TensorProto.DataType numbers). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  char *name;       /* the tensor's name: an .npz entry without ".npy"; may be NULL */
  int elem_type;    /* TensorProto.DataType: 1 float, 10 float16, 11 double, 9 bool, ints */
  gint64 *dims;
  gsize n_dims;     /* 0: a scalar */
  GBytes *data;     /* element count × element size bytes, C order, little-endian */
} OnyxArray;

/* Takes a reference to data; copies name and dims. */
OnyxArray *onyx_array_new            (const char    *name,
                                      int            elem_type,
                                      const gint64  *dims,
                                      gsize          n_dims,
                                      GBytes        *data);
void       onyx_array_free           (OnyxArray     *array);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxArray, onyx_array_free)

/* Bytes of one element of an ONNX element type numpy has (0: none, e.g. bfloat16,
 * strings). */
gsize      onyx_array_element_size   (int            elem_type);
/* The array of that name in a list of arrays (NULL entries allowed), or NULL. */
OnyxArray *onyx_array_find           (GPtrArray     *arrays,
                                      const char    *name);
/* The product of the dims (1 for a scalar); G_MAXUINT64 on overflow or a negative dim. */
guint64    onyx_array_count          (const OnyxArray *array);
guint64    onyx_array_dims_count     (const gint64  *dims,
                                      gsize          n_dims);

/* One .npy, from bytes or a file. Big-endian data is swapped and Fortran order
 * transposed into C order; a dtype ONNX has no element type for (strings, objects,
 * complex, structured) is an error naming it. Errors are G_IO_ERROR_INVALID_DATA
 * (or the file's), with messages that name the file and what is wrong. */
OnyxArray *onyx_npy_parse            (const guint8  *bytes,
                                      gsize          len,
                                      const char    *name,
                                      GError       **error);
OnyxArray *onyx_npy_read             (const char    *path,
                                      GError       **error);
/* Version 1.0 .npy bytes (2.0 when the header needs it), as np.save writes them. */
GBytes    *onyx_npy_serialize        (const OnyxArray *array,
                                      GError       **error);

/* Every entry of an .npz, stored or deflated, in the zip's order (GPtrArray of
 * OnyxArray, owning them); names are the entry names without ".npy", none empty,
 * each once. From a file, or bytes (label names them in messages; may be NULL). */
GPtrArray *onyx_npz_read             (const char    *path,
                                      GError       **error);
GPtrArray *onyx_npz_parse            (const guint8  *bytes,
                                      gsize          len,
                                      const char    *label,
                                      GError       **error);
/* An .npz numpy reads back: entries "<name>.npy", stored uncompressed; written to a
 * temporary file beside path, synced and renamed over it, so that a failure leaves
 * any old file whole. Arrays must be named. */
gboolean   onyx_npz_write            (const char    *path,
                                      GPtrArray     *arrays,
                                      GError       **error);

G_END_DECLS
