/* onyx-external.h: tensors whose data lives in files beside the model
 * (TensorProto.data_location = EXTERNAL). The data is referenced, never copied into
 * the model; a location that leaves the model's folder is refused. */
#pragma once

#include <glib.h>

#include "onyx-proto.h"
#include "onyx-types.h"

G_BEGIN_DECLS

gboolean     onyx_tensor_is_external       (const Onnx__TensorProto *tensor);
/* The "location" entry of external_data, or NULL. */
const char  *onyx_tensor_external_location (const Onnx__TensorProto *tensor);
/* Where its bytes are: location, offset (0 when not given) and length (G_MAXUINT64
 * when not given: to the end of the file). FALSE when it is not external, names no
 * location, or its offset or length is not a number. */
gboolean     onyx_tensor_external_span     (const Onnx__TensorProto *tensor,
                                            const char             **location,
                                            guint64                 *offset,
                                            guint64                 *length);

/* Refuses absolute locations, ".." components, and files that resolve (symlinks
 * included) outside `base_dir` or are not regular files. */
gboolean     onyx_external_check_model     (Onnx__ModelProto *model,
                                            const char       *display_name,
                                            const char       *base_dir,
                                            GError          **error);

/* A model saved into another folder takes its external data with it: each data file
 * it names is copied to the same place under `target_dir` (a reflink where the file
 * system can, else copied by the kernel, never through memory), complete or not at
 * all; the originals are only read. Nothing to do in the model's own folder.
 * `progress` (or NULL) follows the bytes copied. */
gboolean     onyx_external_copy_for_save   (Onnx__ModelProto *model,
                                            const char       *display_name,
                                            const char       *base_dir,
                                            const char       *target_dir,
                                            OnyxProgressFunc  progress,
                                            gpointer          progress_data,
                                            GError          **error);

/* Maps the tensor's bytes (offset/length honoured) without copying them. */
GBytes      *onyx_external_read            (const Onnx__TensorProto *tensor,
                                            const char              *base_dir,
                                            GError                 **error);

G_END_DECLS
