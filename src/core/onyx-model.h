/* onyx-model.h: an ONNX model loaded from a file, and saving it back.
 *
 * The file is mapped, not read: large TensorProto.raw_data payloads stay in the mapping
 * and the decoded message points at them, so a 300 MB model is not held twice.
 * Everything protobuf-c decodes (unknown fields included) is written back on save.
 */
#pragma once

#include <glib-object.h>

#include "onyx-error.h"
#include "onyx-proto.h"
#include "onyx-types.h"

G_BEGIN_DECLS

#define ONYX_TYPE_MODEL (onyx_model_get_type ())
G_DECLARE_FINAL_TYPE (OnyxModel, onyx_model, ONYX, MODEL, GObject)

/* Errors name the file and the problem: "model.onnx: truncated: …". */
OnyxModel        *onyx_model_new_from_file   (const char  *path,
                                              GError     **error);
/* onyx_model_new_from_file, calling `scanned` once the file has been read and
 * checked, before it is decoded, with the bytes as the loader rewrote them: a
 * serialized model of the same structure whose raw_data payloads of 1 KiB and more
 * are a 24-byte marker each. Work on the model's structure can start there while
 * decoding goes on. Loading may still fail after the call. */
typedef void (*OnyxModelScannedFunc) (GBytes *scanned, gpointer user_data);
OnyxModel        *onyx_model_new_from_file_scanned (const char          *path,
                                                    OnyxModelScannedFunc scanned,
                                                    gpointer             user_data,
                                                    GError             **error);
/* From memory (tests, fuzzing). `display_name` prefixes error messages; external
 * data is resolved against `base_dir`, or refused when it is NULL. */
OnyxModel        *onyx_model_new_from_data   (const guint8 *data,
                                              gsize         len,
                                              const char   *display_name,
                                              const char   *base_dir,
                                              GError      **error);

Onnx__ModelProto *onyx_model_get_proto       (OnyxModel   *self);
/* Absolute path of the file, or NULL for a model made from memory. */
const char       *onyx_model_get_path        (OnyxModel   *self);
/* Basename used in messages. */
const char       *onyx_model_get_display_name (OnyxModel  *self);
/* Folder external data is resolved against, or NULL. */
const char       *onyx_model_get_base_dir    (OnyxModel   *self);
/* Number of raw_data payloads left in the mapping instead of copied. */
guint             onyx_model_get_n_mapped_tensors (OnyxModel *self);

/* Gives back the memory of the whole pages of the mapped file under [data, data +
 * len), for a caller that has read them and will not again soon (a diff's payload
 * comparison): a later read maps them again from the page cache, maybe from a file
 * changed since. Anything outside the mapping is left alone; `self` may be NULL. */
void              onyx_model_release_pages   (OnyxModel     *self,
                                              gconstpointer  data,
                                              gsize          len);

/* For tests: the size past which a save moves payloads to a data file (0: 2 GiB). */
void              onyx_model_set_proto_limit (guint64 limit);

/* Serialize to memory (tests, fuzzing). */
GBytes           *onyx_model_serialize       (OnyxModel   *self);

/* Atomic: writes a temporary file beside `path`, fsyncs it and renames it over `path`
 * keeping the original's permissions. On failure the old file is untouched. Saved
 * into another folder, the model's external data files are copied there; a model too
 * large for one protobuf (2 GiB) keeps its large payloads in PATH.data beside it. */
gboolean          onyx_model_save            (OnyxModel   *self,
                                              const char  *path,
                                              GError     **error);
/* The same, `progress` (or NULL) following the external data copied. */
gboolean          onyx_model_save_with_progress (OnyxModel        *self,
                                                 const char       *path,
                                                 OnyxProgressFunc  progress,
                                                 gpointer          progress_data,
                                                 GError          **error);

/* A deep copy of a message of this model's tree in which the raw_data payloads that
 * live in the model's file point at the same bytes instead of being copied (the
 * message is changed while it is copied and restored before returning: call it from
 * the thread that owns the model). Give the copy to a model made by
 * onyx_model_new_derived, which keeps those bytes alive. */
ProtobufCMessage *onyx_model_copy_sharing    (OnyxModel              *self,
                                              const ProtobufCMessage *message);
/* A model of `proto` (taken over), whose payloads may point into the file of `source`
 * (through onyx_model_copy_sharing): it keeps that file mapped. It has no path of its
 * own; messages and external data go by `source`'s name and folder. */
OnyxModel        *onyx_model_new_derived     (OnyxModel        *source,
                                              Onnx__ModelProto *proto);
/* The whole model as it is now, payloads shared (the two above): another thread may
 * read it while this one goes on editing. Call it from the thread that owns `self`. */
OnyxModel        *onyx_model_snapshot        (OnyxModel        *self);

/* Frees a message that was detached from this model's tree (e.g. by an edit),
 * leaving alone payloads that live in the model's mapped file. */
void              onyx_model_free_detached   (OnyxModel        *self,
                                              ProtobufCMessage *message);

G_END_DECLS
