/* onyx-array-private.h: what onyx-array.c (.npy) shares with onyx-array-npz.c. */
#pragma once

#include "onyx-array.h"

G_BEGIN_DECLS

/* Sets a G_IO_ERROR_INVALID_DATA error "LABEL: what" (label made safe to show);
 * NULL, for returning. */
gpointer   onyx_array_fail    (GError       **error,
                               const char    *label,
                               const char    *format,
                               ...) G_GNUC_PRINTF (3, 4);
/* One .npy from bytes; owner, when given, holds them: data that needs no change is
 * referenced in it rather than copied. label names the array in messages. */
OnyxArray *onyx_npy_parse_in  (const guint8  *bytes,
                               gsize          len,
                               GBytes        *owner,
                               const char    *name,
                               const char    *label,
                               GError       **error);
/* The preamble np.save writes before the array's data: magic, version, header
 * length, the dict, spaces to the next multiple of 64 and a newline. */
GBytes    *onyx_npy_preamble  (const OnyxArray *array,
                               const char    *label,
                               GError       **error);

G_END_DECLS
