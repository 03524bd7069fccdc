/* onyx-run-profile-private.h: what the files of Profile share, and the helper: the
 * trace reader, the mapping to the file's nodes, and the job crossing to the helper. */
#pragma once

#include "onyx-run-profile.h"
#include "onyx-proto.h"

G_BEGIN_DECLS

/* ---- The trace's events (onyx-run-profile-json.c) ---- */

/* A kernel's name as first seen, with what its first event said of it. */
typedef struct {
  char *name, *op, *provider;
  char *inputs, *outputs;      /* "float[1×3×8×8], int64[2]"; NULL when not said */
} OnyxProfileNamed;

/* A kernel's event. */
typedef struct {
  double ts, dur, tid;
  guint named;                 /* in names */
  int kernel;                  /* once nested (onyx-run-profile-trace.c) */
} OnyxProfileEvent;

typedef struct {
  double ts, dur;
} OnyxProfileSpan;

typedef struct {
  GPtrArray *names;            /* OnyxProfileNamed */
  GHashTable *name_index;      /* name → its index + 1 */
  GArray *events;              /* OnyxProfileEvent: the kernels' ("NAME_kernel_time") */
  GArray *runs;                /* OnyxProfileSpan of each model_run, as they come */
  double session_us;           /* model loading and session_initialization */
} OnyxProfileEvents;

void     onyx_profile_events_init  (OnyxProfileEvents *events);
void     onyx_profile_events_clear (OnyxProfileEvents *events);
/* Adds the trace's events; FALSE with an error saying what is wrong with the bytes
 * and where. */
gboolean onyx_profile_events_scan  (GBytes            *bytes,
                                    OnyxProfileEvents *events,
                                    GError           **error);

/* ---- The trace (onyx-run-profile-trace.c) ---- */

/* What a trace says of the measured runs: the kernels (share, nodes and the kernels
 * that never ran left to the mapping), model_run of each run. */
typedef struct {
  GPtrArray *kernels;          /* OnyxProfileKernel, in the order first seen */
  GArray *run_us;              /* double: model_run of each measured run, in order */
  guint n_runs;                /* model_run events, warm-up ones included */
  double session_init_us;      /* model loading and session_initialization */
} OnyxProfileTrace;

/* Reads ONNX Runtime's Chrome trace (a JSON array of events) leaving out the first
 * `warmup` runs (their model_run events in time order, and the kernels timed within
 * them). Kernels nest by time within their thread: a kernel timed within an If,
 * Loop or Scan kernel ran in its body. Kernels of the same name under the same
 * parent are one, summed within each run. An error says what is wrong with the
 * bytes, or that no run is left once the warm-up ones are. */
OnyxProfileTrace *onyx_profile_trace_read (GBytes  *trace,
                                           guint    warmup,
                                           GError **error);
void              onyx_profile_trace_free (OnyxProfileTrace *trace);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxProfileTrace, onyx_profile_trace_free)

/* Median, min and max of n values (sorted in place); 0 for none. */
void onyx_profile_spread (double *values,
                          guint   n,
                          double *median,
                          double *min,
                          double *max);

OnyxProfileKernel *onyx_profile_kernel_new  (const char        *name,
                                             const char        *op,
                                             const OnyxProfileKernel *parent);
void               onyx_profile_kernel_free (OnyxProfileKernel *kernel);

/* ---- Names (onyx-run-profile-names.c) ---- */

/* profile->graphs and profile->nodes for `model`: each node named by its name, or by
 * its reference when it has none or shares it (the names the copy run is given, so
 * that every kernel of the trace names one node). TRUE when some node is so renamed. */
gboolean onyx_profile_name_nodes (OnyxProfile      *profile,
                                  Onnx__ModelProto *model);
/* The serialized model with the names onyx_profile_name_nodes gave. */
GBytes  *onyx_profile_renamed_model (const OnyxProfile *profile,
                                     GBytes            *serialized,
                                     GError           **error);
/* "Conv", "com.microsoft::FusedConv": the operator with its domain but the standard one's. */
char    *onyx_profile_qualified_op  (const Onnx__NodeProto *node);

/* ---- The mapping (onyx-run-profile-map.c) ---- */
/* Takes the trace's kernels into profile->kernels and gives each node of `model` its
 * status and kernel, through `optimized` (the model as the runtime optimized it):
 * the kernels that no node makes are added kernels. */
void     onyx_profile_map       (OnyxProfile      *profile,
                                 Onnx__ModelProto *model,
                                 OnyxProfileTrace *trace,
                                 Onnx__ModelProto *optimized);

/* ---- Between the caller and the helper (onyx-run-profile-wire.c) ---- */

typedef struct {
  GBytes *run_request;         /* an onyx-run.h request: the model, its folder, the inputs */
  OnyxProfileOptions options;
} OnyxProfileRequest;

typedef struct {
  GBytes *trace;               /* the runtime's JSON */
  GBytes *optimized;           /* the model as it optimized it (its large weights left out) */
  char *runtime_version;
} OnyxProfileAnswer;

GBytes  *onyx_profile_request_encode (const OnyxProfileRequest *request);
/* FALSE with an error saying what does not agree; *request is cleared then. */
gboolean onyx_profile_request_decode (GBytes             *bytes,
                                      OnyxProfileRequest *request,
                                      GError            **error);
void     onyx_profile_request_clear  (OnyxProfileRequest *request);
GBytes  *onyx_profile_answer_encode  (const OnyxProfileAnswer *answer);
gboolean onyx_profile_answer_decode  (GBytes            *bytes,
                                      OnyxProfileAnswer *answer,
                                      GError           **error);
void     onyx_profile_answer_clear   (OnyxProfileAnswer *answer);

G_END_DECLS
