/* onyx-run.h: running a model with ONNX Runtime and seeing where its numbers go.
 *
 * ONNX Runtime runs in Onyx's helper program (onyx-onnx.h), never in the app: a
 * crash or a huge allocation of the runtime fails the run, not the window. A run
 * captures every tensor of the main graph (a copy of the model whose graph outputs
 * are all of them) and gives back statistics of each, and the values of the tensors
 * asked for only: a 12k-node model's arrays do not all cross to the caller. A run
 * may compare with a second model run on the same inputs, or with reference arrays
 * (an .npz of a PyTorch run), tensor by tensor, in the helper. */
#pragma once

#include <glib.h>

#include "onyx-array.h"
#include "onyx-model.h"
#include "onyx-run-plan.h"

G_BEGIN_DECLS

/* Whether this build runs models; when not, *reason says why in one line. */
gboolean onyx_run_available (const char **reason);

#define ONYX_RUN_BINS 32

/* What became of one tensor. Statistics are of the finite values (NaN when there
 * are none); the histogram spreads them over [min, max] in ONYX_RUN_BINS bins. */
typedef struct {
  char *name;
  int elem_type;
  gint64 *dims;
  gsize n_dims;
  guint64 count;
  guint64 n_nan;
  guint64 n_inf;
  double min, max, mean, std;
  guint32 histogram[ONYX_RUN_BINS];
} OnyxRunStats;

/* Bytes of one element of the arrays a run takes and gives: numpy's element types
 * (onyx_array_element_size), and bfloat16 that models give back; 0 for others. */
gsize onyx_run_element_size (int elem_type);

/* The statistics of an array (any element type numpy has). */
void onyx_run_stats_compute (const OnyxArray *array,
                             OnyxRunStats    *stats);
void onyx_run_stats_clear   (OnyxRunStats    *stats);
/* A copy to keep, freed with onyx_run_stats_clear () then g_free (). */
OnyxRunStats *onyx_run_stats_copy (const OnyxRunStats *stats);

/* One tensor of the run compared with its counterpart. |a - b| > atol + rtol × |b|
 * counts as exceeding, as numpy.isclose and Polygraphy judge; NaN against NaN is
 * equal, NaN against a number exceeds. */
typedef struct {
  char *name;          /* the tensor of the model run */
  char *other;         /* its counterpart's name (tensor of B, or the .npz entry) */
  char *mismatch;      /* shapes or types that cannot be compared; NULL when compared */
  double max_abs;
  double max_rel;      /* |a - b| / |b| at its largest, over b ≠ 0 */
  double max_ref;      /* max |b|: the tensor's own scale */
  guint64 n_exceeding;
  /* Over the elements where both are finite: Σ b² and Σ (a − b)², whose ratio is the
   * signal-to-noise ratio a quantized model keeps (onyx-quant.h). */
  double sum_sq_ref;
  double sum_sq_diff;
  /* An integer tensor compared as the float values it stands for
   * (OnyxRunOptions.dequantize): the differences are the float values'. */
  gboolean dequantized;
} OnyxRunDelta;

/* Whether the tensor is beyond the tolerance element by element (or could not be
 * compared); FALSE for NULL. */
gboolean onyx_run_delta_exceeds (const OnyxRunDelta *delta);
/* Whether it parts from its counterpart by more than float noise: the largest
 * difference against the tensor's own scale, max |a - b| > atol + scale_rtol × max |b|
 * (a different but equivalent computation, a converted opset, moves intermediate
 * values by a few units of their largest's last digits); or could not be compared. */
gboolean onyx_run_delta_diverges (const OnyxRunDelta *delta,
                                  double              atol,
                                  double              scale_rtol);

void onyx_run_delta_compute (const OnyxArray *a,
                             const OnyxArray *b,
                             double           atol,
                             double           rtol,
                             OnyxRunDelta    *delta);

#define ONYX_RUN_DEFAULT_ATOL 1e-5
#define ONYX_RUN_DEFAULT_RTOL 1e-5
/* Against a tensor's largest magnitude: float32 accumulations of another order differ
 * by about 1e-6 of it; a wrong weight or wiring by far more. */
#define ONYX_RUN_DEFAULT_SCALE_RTOL 1e-4

/* How inputs nobody gave are made. */
typedef enum {
  ONYX_RUN_FILL_NONE,    /* an error names the missing input */
  ONYX_RUN_FILL_RANDOM,  /* uniform in [low, high), from seed; whole numbers for ints */
  ONYX_RUN_FILL_ZEROS,
  ONYX_RUN_FILL_ONES,
} OnyxRunFill;

typedef struct {
  OnyxRunFill fill;
  guint64 seed;
  double low, high;
  /* Sizes of dims (char * → GINT_TO_POINTER (value)): symbolic ones by name, any by
   * "INPUT:AXIS" (dims without a name). Others: a KV-cached model's sequence dims as
   * onyx-run-plan.c chooses them, the rest 1. */
  GHashTable *dims;
} OnyxRunInputs;

typedef struct {
  /* Every tensor of the main graph, not just the graph's outputs. */
  gboolean all;
  /* Names of tensors whose values come back (NULL-terminated; NULL: none); keep_all
   * brings every captured tensor's. */
  const char *const *keep;
  gboolean keep_all;
  /* A second model to run on the same inputs, or reference arrays (by tensor name),
   * or neither. */
  OnyxModel *compare_model;
  GPtrArray *reference;      /* of OnyxArray */
  /* Tensors to compare besides those the models' matching pairs, first (NULL-terminated:
   * a name in the model, its counterpart's, …): a quantized layer's dequantized value
   * against the float model's (onyx_quant_accuracy_pairs). NULL: none. */
  const char *const *pairs;
  /* Tensors of the model compared as the float values they stand for (a QOperator
   * layer's uint8 output against the float model's): each an integer tensor, then its
   * scale's and its zero point's names ("": none), … NULL-terminated; with another
   * model only. The run adds a DequantizeLinear after each (the model is left as it
   * is) and the comparison keeps the integer tensor's name. NULL: none. */
  const char *const *dequantize;
  double atol, rtol;
  /* Where the runs part: every tensor judged element by element (strict), or the
   * graph's intermediate tensors against their own scale (onyx_run_delta_diverges). */
  gboolean strict;
  double scale_rtol;
  /* Run only as far as this node of the main graph (by name): the part of the model
   * its outputs need. NULL: the whole model. */
  const char *until_node;
  /* How the inputs were made (onyx_run_prepare_inputs's `how` and `given`; NULL: all
   * given): a run ONNX Runtime fails at on inputs Onyx made says the sizes Onyx chose
   * for the free dims no one sized, and how to set them. */
  const OnyxRunInputs *made;
  GPtrArray *given;
  /* NaN or Inf in the outputs of a run that captures only those are not traced to
   * the node that made them (which takes a second run, capturing every tensor). */
  gboolean untraced;
} OnyxRunOptions;

typedef struct {
  GPtrArray *stats;          /* OnyxRunStats of the model run, in the order produced */
  GPtrArray *other_stats;    /* of the second model, when one was run */
  GPtrArray *values;         /* OnyxArray kept */
  GPtrArray *deltas;         /* OnyxRunDelta, when compared */
  double seconds;            /* ONNX Runtime's run alone, of the model */
  char *runtime_version;     /* of the ONNX Runtime that ran it ("1.31.1") */
  /* The first node in topological order whose output exceeds the tolerance while
   * none of its inputs did (-1: none), and that output. */
  int first_divergence;
  const OnyxRunDelta *first_divergence_delta;
  /* Where NaN or Inf first appear: the statistics of the first tensor holding them,
   * and the node of the main graph that made it, the first in the graph's order
   * (-1: none known, as when the run that would have found it failed). NULL and -1
   * when the run made none. */
  OnyxRunStats *first_nonfinite;
  int first_nonfinite_node;
} OnyxRunResult;

void onyx_run_result_free (OnyxRunResult *result);
/* result->first_nonfinite: the first tensor holding NaN or Inf, or NULL. */
const OnyxRunStats *onyx_run_result_first_nonfinite (const OnyxRunResult *result);
/* One line saying where NaN or Inf first appear ("NaN first made by node the_div
 * (Div), in q: 4 NaN, 0 Inf of 4 values"; without a node known, "NaN in y: …"), for
 * the model run; NULL when the run made none. */
char *onyx_run_result_describe_nonfinite (const OnyxRunResult *result,
                                          OnyxModel           *model);
/* The deltas of the model's graph outputs that exceed element by element: what
 * decides whether two runs agree. */
guint onyx_run_result_n_outputs_exceeding (const OnyxRunResult *result,
                                           OnyxModel           *model);
/* How many of the compared tensors exceed (onyx_run_delta_exceeds); 0 uncompared. */
guint onyx_run_result_n_exceeding (const OnyxRunResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxRunResult, onyx_run_result_free)

/* The heights and widths of image inputs (4-D floats that are no token ids, mask or
 * cache) that the model leaves free and a run must be given
 * (ONYX_RUN_ERROR_IMAGE_SIZE): each by its dim name, or INPUT:AXIS when it has none;
 * each once, in order. Owned strings. */
GPtrArray *onyx_run_image_dims (OnyxModel *model);

/* The arrays the model's graph inputs take: `given` (OnyxArray by name, may be NULL)
 * checked against the inputs' element types and ranks, the rest made as `how` says
 * (random values as each input's OnyxInputPlan wants them). Names in `given` or in
 * how->dims that are no input or dim of the model are an error naming those there
 * are; so is an image-like input (4 float dims) whose height and width no one gave. */
GPtrArray *onyx_run_prepare_inputs (OnyxModel           *model,
                                    GPtrArray           *given,
                                    const OnyxRunInputs *how,
                                    GError             **error);

/* Drops the arrays that are no graph input of the model: an .npz of a PyTorch run
 * may hold its outputs too. */
void           onyx_run_keep_graph_inputs (OnyxModel *model,
                                           GPtrArray *arrays);

/* What a run is compared with, from a file: another model (.onnx) in *model, or
 * reference arrays keyed by tensor name (.npz) in *reference. */
gboolean       onyx_run_open_comparison   (const char  *path,
                                           OnyxModel  **model,
                                           GPtrArray  **reference,
                                           GError     **error);

/* Greedy generation with the model's own KV cache (onyx-run-generate.c), checked
 * against one pass over the whole sequence without a cache. */
typedef struct {
  GArray *tokens;            /* gint64: the prompt's, then one per step */
  gsize n_prompt;
  GArray *step_seconds;      /* double: ONNX Runtime's time of each step */
  GArray *step_differences;  /* double: each step's logits against the pass's, largest |Δ| */
  GArray *step_scales;       /* double: the pass's logits there, largest |value| */
  int first_bad_step;        /* the first step whose logits part from the pass's (0-based), or -1 */
  char *first_bad_cache;     /* at that step, the first present output that differs from the
                              * pass's, in the graph's order (a layer), or NULL */
  char *step_error;          /* ONNX Runtime refused that step (its message), or NULL */
  char *runtime_version;
} OnyxGenerateReport;

void onyx_generate_report_free (OnyxGenerateReport *report);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxGenerateReport, onyx_generate_report_free)

/* Whether the graph gives a KV cache back (some output named present*): what
 * Generate feeds back. onyx_run_generate says what else it needs. */
gboolean onyx_run_has_present_outputs (const Onnx__GraphProto *graph);

/* Feeds the model `prompt` then its own arg-max token `n_new` times (present → past),
 * then the prompt and the tokens made but the last in one pass without a cache, and
 * compares each step's logits with the pass's at the same position. The model takes
 * token ids, past_* inputs and gives logits first and as many present* outputs; a
 * mask and position_ids are fed when it takes them. */
OnyxGenerateReport *onyx_run_generate (OnyxModel     *model,
                                       const gint64  *prompt,
                                       gsize          n_prompt,
                                       guint          n_new,
                                       GError       **error);

/* Runs the model on `inputs` (from onyx_run_prepare_inputs) in the helper. A model
 * ONNX Runtime refuses is one error (ONYX_RUN_ERROR_REFUSED) naming the node
 * when the runtime named one (and, when it failed at a node on inputs Onyx made,
 * the sizes options->made chose); a --until node that is not there,
 * ONYX_RUN_ERROR_INPUT.
 * NaN or Inf in the outputs are traced to the node that made them first
 * (result->first_nonfinite_node), running the model again when only the outputs
 * were captured (unless options->untraced). */
OnyxRunResult *onyx_run_model (OnyxModel            *model,
                               GPtrArray            *inputs,
                               const OnyxRunOptions *options,
                               GError              **error);

/* A reproducer of one node of the main graph (index `node`), as the run saw it: the
 * model cut to that node (onyx_model_extract) saved to `path`, and the arrays its
 * inputs had in the run on `inputs` saved beside it as an .npz of the same name
 * (model.onnx → model.npz), so that `onyx-cli run path --inputs that.npz` repeats it.
 * *npz_path is set to the arrays' file. */
gboolean onyx_run_save_repro (OnyxModel   *model,
                              int          node,
                              GPtrArray   *inputs,
                              const char  *path,
                              char       **npz_path,
                              GError     **error);

/* ---- Between the caller and the helper (onyx-run-wire.c owns the format) ---- */

typedef struct {
  GBytes *model;             /* serialized, every captured tensor a graph output */
  char *base_dir;            /* where its external data lives; may be NULL */
  GBytes *other_model;       /* NULL: none */
  char *other_base_dir;
  GPtrArray *inputs;         /* OnyxArray */
  GPtrArray *reference;      /* OnyxArray */
  GPtrArray *pairs;          /* char *, name in the model then its counterpart's, … */
  GStrv keep;                /* names whose values come back */
  gboolean keep_all;
  double atol, rtol;
} OnyxRunRequest;

/* The decoders take whatever bytes arrive: an error (G_IO_ERROR_INVALID_DATA, the
 * request left cleared) or values that agree with themselves: every array holds
 * the bytes its element type and dims need, statistics count what their dims hold,
 * pairs come in twos, a request has its models. */
void           onyx_run_request_clear  (OnyxRunRequest *request);
GBytes        *onyx_run_request_encode (const OnyxRunRequest *request);
gboolean       onyx_run_request_decode (GBytes         *bytes,
                                        OnyxRunRequest *request,
                                        GError        **error);
GBytes        *onyx_run_result_encode  (const OnyxRunResult *result);
OnyxRunResult *onyx_run_result_decode  (GBytes         *bytes,
                                        GError        **error);

/* Empty lists that free OnyxRunStats and OnyxRunDelta, for building a result. */
GPtrArray     *onyx_run_stats_list_new (void);
GPtrArray     *onyx_run_delta_list_new (void);

G_END_DECLS
