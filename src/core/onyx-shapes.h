/* onyx-shapes.h: the element type and shape of every tensor, as ONNX's own shape
 * inference (onyx-onnx.h) works them out, and the errors it finds on the way.
 *
 * Exporters rarely record value_info for intermediate tensors; this fills them in
 * exactly as onnx.shape_inference.infer_shapes does, subgraphs included. The model
 * is handed over without its large tensor payloads. An OnyxShapes is a snapshot of
 * one state of the model: immutable, so other threads may read it, and reference
 * counted. */
#pragma once

#include "onyx-document.h"

G_BEGIN_DECLS

typedef struct _OnyxShapes OnyxShapes;

typedef struct {
  const Onnx__NodeProto *node;    /* the node inference failed on, or NULL */
  const Onnx__GraphProto *graph;  /* its graph (NULL with no node) */
  char *message;                  /* "shape inference: Incompatible dimensions" */
} OnyxShapeError;

/* `check_types` adds the type checks of onnx.checker's full check (strict mode). */
OnyxShapes *onyx_shapes_infer        (const Onnx__ModelProto *model,
                                      gboolean                check_types);
OnyxShapes *onyx_shapes_ref          (OnyxShapes *shapes);
void        onyx_shapes_unref        (OnyxShapes *shapes);

/* The type of `name` as seen from `graph` (a graph of the model the snapshot was
 * made of; outer graphs' names are in scope of subgraphs): recorded or inferred,
 * merged as ONNX merges them. *recorded (nullable) tells whether the file itself
 * gives a type (value_info, graph input/output, initializer). NULL when nothing is
 * known. */
const Onnx__TypeProto *onyx_shapes_lookup (OnyxShapes             *shapes,
                                           const Onnx__GraphProto *graph,
                                           const char             *name,
                                           gboolean               *recorded);
/* A copy of what onyx_shapes_lookup finds (malloc-allocated, like protobuf-c's), or
 * NULL. */
Onnx__TypeProto *onyx_shapes_new_type (OnyxShapes             *shapes,
                                       const Onnx__GraphProto *graph,
                                       const char             *name);
/* OnyxShapeError*, in the order inference met them. */
GPtrArray  *onyx_shapes_get_errors   (OnyxShapes *shapes);
/* New ValueInfoProtos (malloc-allocated, like protobuf-c's) for every tensor of
 * `graph` that has an inferred type and no recorded one, in graph order. */
GPtrArray  *onyx_shapes_new_value_infos (OnyxShapes             *shapes,
                                         const Onnx__GraphProto *graph);

/* The snapshot of the document's current model, inferred at the first call after
 * each change. Borrowed: valid until the document changes. */
OnyxShapes *onyx_document_get_shapes (OnyxDocument *document);
/* The same when it is made already, NULL otherwise: never waits for libonnx. */
OnyxShapes *onyx_document_peek_shapes (OnyxDocument *document);
/* Keeps `shapes`, made by onyx_shapes_infer of the document's model at `revision`
 * (in a thread, the document frozen meanwhile), as the document's snapshot: FALSE,
 * and nothing kept, when the document has changed since. */
gboolean    onyx_document_offer_shapes (OnyxDocument *document,
                                        OnyxShapes   *shapes,
                                        guint64       revision);

/* Opens the model at `path` as a document whose first snapshot is made while it
 * loads: libonnx starts on the loader's bytes (onyx_model_new_from_file_scanned) and
 * infers in its worker process while the model is decoded and indexed. For callers
 * that want shapes at once (the app's first view, onyx-cli edit --infer-shapes); the
 * snapshot is the one asking afterwards gives. NULL with `error` set as
 * onyx_model_new_from_file sets it. */
OnyxDocument *onyx_document_open_with_shapes (const char *path,
                                              GError    **error);
/* The same, calling `meanwhile` on the document (decoded and indexed, its shapes not
 * yet there) while libonnx infers: work that needs no shapes, done there, costs no
 * time (the model's validation before onyx-cli's edits). */
typedef void (*OnyxDocumentFunc) (OnyxDocument *document, gpointer data);
OnyxDocument *onyx_document_open_with_shapes_full (const char       *path,
                                                   OnyxDocumentFunc  meanwhile,
                                                   gpointer          data,
                                                   GError          **error);

/* Starts the process libonnx infers in ahead of the first snapshot (the app does,
 * idle after start-up), so that the first model opens without waiting for it. */
void onyx_shapes_warm_up (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxShapes, onyx_shapes_unref)

G_END_DECLS
