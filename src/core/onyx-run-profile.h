/* onyx-run-profile.h: where a model's time goes, from ONNX Runtime's own profiler,
 * said on the nodes of the file.
 *
 * The model runs K warm-up runs then N measured runs in Onyx's helper with the
 * runtime's profiler on (onyx-ort.c); its Chrome trace comes back with the model as
 * the runtime optimized it. The trace times kernels of that optimized graph: fused
 * kernels (FusedConv, FusedGemm, "X_nchwc"…), nodes folded into constants or
 * eliminated, and kernels the file never had (ReorderOutput, Memcpy). Each node of
 * the file, in every graph (If/Loop/Scan bodies too), is given its own kernel, the
 * kernel it was fused into, or none: folded away (onyx-run-profile-map.c says how).
 * Times are µs per run: a kernel run several times in one run (a Loop's body) is
 * summed within the run, then the median, min and max over the N runs are kept. */
#pragma once

#include <glib.h>

#include "onyx-json.h"
#include "onyx-model.h"
#include "onyx-run.h"

G_BEGIN_DECLS

#define ONYX_PROFILE_DEFAULT_RUNS 10
#define ONYX_PROFILE_DEFAULT_WARMUP 2

/* ONNX Runtime's graph optimization levels (ORT_DISABLE_ALL … ORT_ENABLE_ALL). */
typedef enum {
  ONYX_PROFILE_OPT_DISABLED,
  ONYX_PROFILE_OPT_BASIC,
  ONYX_PROFILE_OPT_EXTENDED,
  ONYX_PROFILE_OPT_ALL,
} OnyxProfileOptLevel;

/* "disabled", "basic", "extended", "all"; parse takes the same. */
const char *onyx_profile_opt_level_name  (OnyxProfileOptLevel  level);
gboolean    onyx_profile_opt_level_parse (const char          *name,
                                          OnyxProfileOptLevel *level);

/* The most runs (and warm-up runs) a profile takes: a trace of more would not fit in
 * memory on a big model. More threads than a machine Onyx runs on has cores. */
#define ONYX_PROFILE_MAX_RUNS 100000
#define ONYX_PROFILE_MAX_THREADS 4096

typedef struct {
  guint runs;                  /* N measured runs, 1 to ONYX_PROFILE_MAX_RUNS */
  guint warmup;                /* K runs before them, left out */
  guint threads;               /* the runtime's intra-op threads; 0: its default (one per core) */
  OnyxProfileOptLevel opt_level;
} OnyxProfileOptions;

/* ONNX Runtime's defaults: all optimizations, its own thread count. */
#define ONYX_PROFILE_OPTIONS_INIT \
  { ONYX_PROFILE_DEFAULT_RUNS, ONYX_PROFILE_DEFAULT_WARMUP, 0, ONYX_PROFILE_OPT_ALL }

typedef enum {
  ONYX_PROFILE_OWN,     /* a kernel of its own name runs it */
  ONYX_PROFILE_FUSED,   /* a kernel named after another node, or a fused op, covers it */
  ONYX_PROFILE_FOLDED,  /* nothing of it runs: folded into constants or eliminated */
} OnyxProfileStatus;

/* "own", "fused", "folded": the words of --json. */
const char *onyx_profile_status_name (OnyxProfileStatus status);

typedef struct _OnyxProfileKernel OnyxProfileKernel;
typedef struct _OnyxProfileNode OnyxProfileNode;

/* A kernel of the optimized graph as the trace timed it. */
struct _OnyxProfileKernel {
  char *name;                  /* the runtime's node name ("fused /lin/Gemm") */
  char *op;                    /* its operator ("FusedGemm"); the optimized graph's when it never ran */
  char *provider;              /* "CPUExecutionProvider"; NULL when it never ran */
  char *input_shapes;          /* as run, "float[1×3×8×8], float[16×3×3×3]"; NULL when it never ran */
  char *output_shapes;
  const OnyxProfileKernel *parent; /* the If/Loop/Scan kernel whose body it ran in; NULL at the top */
  guint calls;                 /* times it ran over the N runs (0: never, like an If branch not taken) */
  /* Per run: with the kernels of its bodies for a control-flow kernel. */
  double median_us, min_us, max_us;
  double self_us;              /* median per run without its bodies' kernels: what totals add */
  double share;                /* median_us of kernels_us */
  GPtrArray *nodes;            /* const OnyxProfileNode *: the file's nodes it runs (own, then fused) */
};

/* A node of the file. */
struct _OnyxProfileNode {
  guint graph;                 /* index in profile->graphs */
  guint index;                 /* position in its graph's node list */
  char *name;                  /* its name, or for a node without a unique one its reference
                                * ("#3", "If_25:then_branch#0", as onyx_graph_list_node_reference) */
  char *op_type;               /* "Conv", "devtech::FooOp" */
  OnyxProfileStatus status;
  const OnyxProfileKernel *kernel; /* own or fused into (the one making its output); NULL when folded */
  GPtrArray *joined;           /* const OnyxProfileKernel *: more kernels that run for it (the
                                * nodes of an inlined function but the last); NULL: none */
};

typedef struct {
  char *name;                  /* "main", "If_25:then_branch" (onyx-graph-names.h) */
  guint first_node, n_nodes;   /* its nodes: profile->nodes[first_node …] */
} OnyxProfileGraph;

/* The time of one operator of the runtime's (kernels' op names). */
typedef struct {
  char *op;
  double us;                   /* its kernels' self_us added */
  double share;                /* of kernels_us */
  guint n_kernels;
} OnyxProfileOpTime;

typedef struct _OnyxProfile {
  OnyxProfileOptions options;
  char *runtime_version;
  GPtrArray *graphs;           /* OnyxProfileGraph: main, then subgraphs as onyx_graph_list_new
                                * lists them (model-local functions left out: the runtime inlines them) */
  OnyxProfileNode *nodes;      /* every node of every graph, graph after graph */
  guint n_nodes;
  GPtrArray *kernels;          /* OnyxProfileKernel, the most time first (median_us) */
  GPtrArray *added_kernels;    /* const OnyxProfileKernel *: those no node of the file makes
                                * (ReorderInput/Output, Memcpy), the most time first */
  GPtrArray *op_times;         /* OnyxProfileOpTime, the most time first */
  guint n_own, n_fused, n_folded;
  /* Per run, medians over the N runs: model_run; the kernels' self times added (each
   * µs once); what the run spent beyond them (the runtime's per-node overhead, large
   * on small inputs); and the session's creation (loading and initialisation). */
  double run_median_us, run_min_us, run_max_us;
  double kernels_us;
  double overhead_us;
  double session_init_us;
  GBytes *trace;               /* the runtime's trace as it wrote it: JSON that Perfetto opens */
  GPtrArray *stacks;           /* OnyxProfileStack (below), the most time first: set by
                                * onyx_profile_find_stacks, NULL before */
  /* An LLM's decoding step, profiled after this pass of several new tokens
   * (onyx_run_profile_decoding_step), with the same options; NULL: none. */
  struct _OnyxProfile *decoding_step;
  int decoding_past;           /* the step's past tokens */
  int prompt_tokens;           /* this pass's new tokens */
  /* private */
  GHashTable *by_name;
} OnyxProfile;

void onyx_profile_free (OnyxProfile *profile);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxProfile, onyx_profile_free)

/* The node at `index` of graph `graph`, or NULL. */
const OnyxProfileNode *onyx_profile_node_at    (const OnyxProfile *profile,
                                                guint              graph,
                                                guint              index);
/* The node of that name (or reference, for nodes without a unique name), or NULL. */
const OnyxProfileNode *onyx_profile_node_named (const OnyxProfile *profile,
                                                const char        *name);
/* A node's time per run (its kernel's median and its joined kernels', a fused
 * kernel's on each node it covers) and its share of the kernels' total; 0 for a
 * folded node. */
double                 onyx_profile_node_us    (const OnyxProfileNode *node);
double                 onyx_profile_node_share (const OnyxProfileNode *node);

/* Profiles the model on `inputs` (onyx_run_prepare_inputs) in Onyx's helper, reading
 * the model throughout (a snapshot, from a job's thread). The profile keeps no
 * pointer into the model: it outlives the edits made after. A model ONNX Runtime
 * refuses is one error (ONYX_RUN_ERROR_REFUSED) naming the node when the runtime
 * named one; options out of range, ONYX_RUN_ERROR_INPUT. */
OnyxProfile *onyx_run_profile (OnyxModel                *model,
                               GPtrArray                *inputs,
                               const OnyxProfileOptions *options,
                               GError                  **error);

/* A node of one profile against the same node (by name or reference) of another. */
typedef struct {
  const OnyxProfileNode *before;
  const OnyxProfileNode *after;  /* NULL: gone from the model after */
} OnyxProfileChange;

/* Every node of `before` matched in `after`, in before's order; the ones gone from
 * after have after = NULL. */
GArray *onyx_profile_compare (const OnyxProfile *before,
                              const OnyxProfile *after);
/* "4.12 ms", "230 µs", "1.25 s": a time per run (µs in) in the unit that reads best. */
char   *onyx_profile_format_us (double us);
/* "-23 %, 4.1 → 3.2 ms": a change of time said for a person (µs in). */
char   *onyx_profile_describe_change (double before_us,
                                      double after_us);

/* A stack of alike layers, as the layout draws it ("model/layers.0–31"), and where its
 * time goes: all its layers', and the parts of its layer of median time. */
typedef struct {
  char *name;                  /* a group of the layer ("attn", "mlp"), or "" for the nodes
                                * directly in it */
  double us;                   /* per run, each kernel once */
  double share;                /* of the layer's */
} OnyxProfileLayerPart;

typedef struct {
  char *path;                  /* the stack's scope path, "model/layers.0–31" */
  guint n_layers;
  double us;                   /* its layers' time per run, added */
  double share;                /* of the kernels' total */
  char *layer;                 /* the layer of median time, "model/layers.15" */
  double layer_us;
  GPtrArray *parts;            /* OnyxProfileLayerPart of that layer, the most time first */
} OnyxProfileStack;

void onyx_profile_stack_free (OnyxProfileStack *stack);

/* Sets profile->stacks: the stacks of the main graph of `model` (the one profiled;
 * it builds a layout engine, so a job's thread calls it on a big model), an empty
 * array when it has none. */
void onyx_profile_find_stacks (OnyxProfile *profile,
                               OnyxModel   *model);

/* Profiles a KV-cached model's decoding step into profile->decoding_step (its stacks
 * found) when `how`, the inputs the profile was made on, are for more than one new
 * token: made again alike, for one new token after the same past (a job's thread).
 * TRUE with nothing set for a model without such a cache, inputs of one new token
 * already, or a profile of the user's arrays (the caller does not ask). */
gboolean onyx_run_profile_decoding_step (OnyxProfile         *profile,
                                         OnyxModel           *model,
                                         const OnyxRunInputs *how,
                                         GError             **error);

/* One line per node: node, op_type, status, kernel, kernel_op, median_us, min_us,
 * max_us, share (a header line first): the kernel making the node's output, as
 * the JSON has it. */
gboolean onyx_profile_write_csv  (const OnyxProfile *profile,
                                  const char        *path,
                                  GError           **error);
/* The profile as one JSON object: nodes[] (name, op_type, status, and for own and
 * fused kernel, kernel_op, median_us, min_us, max_us, share), added_kernels[]
 * (kernel, kernel_op, median_us), run_median_us, kernels_us, overhead_us,
 * session_init_us. */
void     onyx_profile_write_json (const OnyxProfile *profile,
                                  OnyxJson          *json);

G_END_DECLS
