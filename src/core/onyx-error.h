/* onyx-error.h: the error domains of the core, in one low module so that any file can
 * report a model or edit error without including the model or the edit layer. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define ONYX_MODEL_ERROR (onyx_model_error_quark ())

typedef enum {
  ONYX_MODEL_ERROR_IO,            /* cannot open, read or write the file */
  ONYX_MODEL_ERROR_EMPTY,         /* zero bytes */
  ONYX_MODEL_ERROR_TRUNCATED,     /* a field runs past the end of its message */
  ONYX_MODEL_ERROR_MALFORMED,     /* not protobuf, or the wrong wire type for a field */
  ONYX_MODEL_ERROR_TOO_DEEP,      /* messages nested beyond what any real model needs */
  ONYX_MODEL_ERROR_NOT_A_MODEL,   /* valid protobuf but no ONNX graph in it */
  ONYX_MODEL_ERROR_EXTERNAL_DATA, /* external tensor data outside the model's folder */
  ONYX_MODEL_ERROR_TENSOR_DATA,   /* a tensor's data does not match its dims or type */
  ONYX_MODEL_ERROR_INTERNAL,      /* Onyx itself failed (its helper crashed), not the file */
} OnyxModelError;

GQuark onyx_model_error_quark (void);

#define ONYX_EDIT_ERROR (onyx_edit_error_quark ())

typedef enum {
  ONYX_EDIT_ERROR_NOT_FOUND,  /* no such node, tensor, input, output or attribute */
  ONYX_EDIT_ERROR_INVALID,    /* the edit does not apply to this node or value */
  ONYX_EDIT_ERROR_EXISTS,     /* a name already in use */
  ONYX_EDIT_ERROR_CYCLE,      /* the edit would make the graph cyclic */
  ONYX_EDIT_ERROR_LIBRARY,    /* ONNX's library gave up; the message is its own */
} OnyxEditError;

GQuark onyx_edit_error_quark (void);

#define ONYX_RUN_ERROR (onyx_run_error_quark ())

typedef enum {
  ONYX_RUN_ERROR_UNAVAILABLE, /* built without ONNX Runtime */
  ONYX_RUN_ERROR_INPUT,       /* an input array is missing or does not fit the model */
  ONYX_RUN_ERROR_REFUSED,     /* ONNX Runtime cannot load or run the model */
  ONYX_RUN_ERROR_IMAGE_SIZE,  /* an image input's height or width must be given */
} OnyxRunError;

GQuark onyx_run_error_quark (void);

/* An edit error says what went wrong in one sentence; the text it was made from (a
 * library's own message, file and line included) rides along for those who ask for
 * it (onyx-cli edit --verbose). NULL when there is none. */
void        onyx_edit_error_set_details (GError     *error,
                                         const char *details);
const char *onyx_edit_error_get_details (const GError *error);

G_END_DECLS
