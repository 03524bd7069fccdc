/* onyx-onnx.h: ONNX's reference library (libonnx, C++) behind a C interface.
 *
 * Shape inference, the checker and the version converter are the ones every ONNX
 * tool trusts; this is the only place that sees C++ or protobuf's C++ types. Models
 * cross as serialized ModelProto bytes, which the callers (onyx-shapes.c) make
 * without large tensor payloads. C++ exceptions never cross this interface. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Infers types and shapes of every tensor (subgraphs included) as
 * onnx.shape_inference.infer_shapes does, and returns the inferred model,
 * serialized: its graphs' inputs, outputs and value_info, and where subgraphs are,
 * the nodes and attributes holding them (emptied) in place: nodes after a graph's
 * last holder are left out, as are the attributes of other nodes. Before inference
 * every node of every graph is renamed "onyx:N", N
 * counting nodes in pre-order (a graph's nodes in order, each node followed by the
 * graphs of its attributes, in attribute order, `g` before `graphs`): inference
 * errors name their node by that token. `check_types` is the strict mode of
 * onnx.checker's full check. Node errors go to *errors (one per line, NULL when
 * none) and leave the result complete; an error that stops inference half way is
 * there too and the result is partial. NULL with `error` set when the bytes are not
 * a model. */
GBytes   *onyx_onnx_infer_shapes     (GBytes      *model,
                                      gboolean     check_types,
                                      char       **errors,
                                      GError     **error);
/* onnx.checker.check_model: FALSE with the checker's message in *message. */
gboolean  onyx_onnx_check_model      (GBytes      *model,
                                      char       **message);
/* onnx.version_converter.convert_version to `target` of ai.onnx, serialized. Softmax,
 * LogSoftmax and Hardmax crossing opset 13 whose axis is not the last of a known
 * rank are first rewritten as Flatten, the operator over axis 1 and a Reshape back
 * to Shape of the input, which the converter then takes whatever the shapes are.
 * NULL with the converter's message in `error` when it gives up. */
GBytes   *onyx_onnx_convert_version  (GBytes      *model,
                                      int          target,
                                      GError     **error);
/* Loads the operator schemas once (done by the calls above when needed). */
void      onyx_onnx_prepare          (void);

/* libonnx crashes on some models, even ones its checker accepts (ConvTranspose of
 * mismatched ranks in 1.12); so the calls above run in Onyx's helper program,
 * onyx-onnx-helper, started once and kept for the next job (onyx-helper-client.c). A job
 * is one of a fixed set, with a number for argument and the model's bytes for input;
 * it gives bytes (or NULL) and a text (or NULL) back. A crash of the helper fails the
 * job with an internal error naming it (ONYX_MODEL_ERROR_INTERNAL), and the next job
 * starts another helper. */
typedef enum {
  ONYX_ONNX_JOB_INFER_SHAPES, /* argument: check_types; onyx_onnx_infer_shapes, errors as text */
  ONYX_ONNX_JOB_CHECK,        /* empty bytes when the checker passes, else its message */
  ONYX_ONNX_JOB_CONVERT,      /* argument: the target opset; when it gives up, a text
                                 whose first character says whose words follow */
  ONYX_ONNX_JOB_RUN,          /* ONNX Runtime: an onyx-run.h request in, its result out,
                                 or ONNX Runtime's refusal as text */
  /* For the tests of the helper itself: */
  ONYX_ONNX_JOB_ECHO,         /* the input back, and the argument as text */
  ONYX_ONNX_JOB_CRASH,        /* ends the helper as a crash of libonnx would */
  ONYX_ONNX_JOB_SLEEP,        /* argument: milliseconds to take, as a long run would */
  /* Last, so that the numbers of the others stay what they were on the wire: */
  ONYX_ONNX_JOB_PROFILE,      /* ONNX Runtime's profiler over runs: an onyx-run-profile.h
                                 request in, the trace out, or the refusal as text */
} OnyxOnnxJobKind;

/* The first character of a failed conversion's text: the converter's own words
 * (ONYX_EDIT_ERROR_LIBRARY: internals, shown on request) or a sentence of Onyx's. */
#define ONYX_ONNX_TEXT_LIBRARY 'L'
#define ONYX_ONNX_TEXT_ONYX 'O'

/* What the job does, for messages: "inferring shapes". */
const char *onyx_onnx_job_describe   (OnyxOnnxJobKind kind);

GBytes   *onyx_onnx_run_isolated     (OnyxOnnxJobKind  kind,
                                      GBytes          *input,
                                      gint64           argument,
                                      char           **text,
                                      GError         **error);

/* Starts the helper now rather than at the first job (it loads the operator
 * schemas): the first job then finds it ready. */
void      onyx_onnx_start_worker     (void);
/* Ends the helper processes and waits until they are gone (reaped): libonnx's, whose
 * socket is closed so that it exits, after the job it runs if any; and a run's. For
 * a program about to exit, so that no helper outlives it, not even as a zombie. */
void      onyx_onnx_stop_helpers     (void);
/* The same from a signal handler (SIGINT, SIGTERM), with async-signal-safe calls
 * only: each helper is killed, and waited for until it is gone. The program then
 * ends itself as the signal would have. */
void      onyx_onnx_kill_helpers_from_signal (void);

/* Ends the job running in the helper that jobs of this kind go to, if any (from any thread): its helper is
 * killed, the job fails with G_IO_ERROR_CANCELLED, and the next job starts another.
 * Runs of ONNX Runtime have a helper of their own, so cancelling one leaves libonnx's
 * jobs alone. */
void      onyx_onnx_cancel           (OnyxOnnxJobKind kind);

/* The same in two halves, to do other work while the helper does this: jobs run one
 * at a time, and the thread that starts one finishes it (it holds a lock between). */
typedef struct _OnyxOnnxJob OnyxOnnxJob;
OnyxOnnxJob *onyx_onnx_job_start     (OnyxOnnxJobKind  kind,
                                      GBytes          *input,
                                      gint64           argument);
GBytes      *onyx_onnx_job_finish    (OnyxOnnxJob  *job,
                                      char        **text,
                                      GError      **error);

/* The helper's side: serves jobs read from `fd` until it is closed. ONYX_ONNX_JOB_RUN
 * and ONYX_ONNX_JOB_PROFILE go to `run` (NULL: a helper built without ONNX Runtime),
 * which gives the result or NULL with the reason in *text. */
typedef GBytes *(*OnyxOnnxJobFunc) (OnyxOnnxJobKind kind, GBytes *input, char **text);
int          onyx_onnx_helper_serve  (int              fd,
                                      OnyxOnnxJobFunc  run);

G_END_DECLS
