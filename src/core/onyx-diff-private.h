/* onyx-diff-private.h: what the matching stage (onyx-diff-match.c) hands to the
 * comparing one (onyx-diff.c). The short type names are seen by these two files only. */
#pragma once

#include "onyx-diff.h"

G_BEGIN_DECLS

/* ---- One side's graph, indexed ---- */

typedef struct {
  guint node;
  guint slot;
} Slot;

typedef struct {
  const Onnx__ModelProto *model;
  const Onnx__GraphProto *graph;
  guint n_nodes;
  char **op_keys;             /* "Conv", "devtech::FooOp" per node */
  GHashTable *producer;       /* tensor → Slot* */
  GHashTable *consumers;      /* tensor → GArray of Slot */
  GHashTable *initializers;   /* name → Onnx__TensorProto* */
  GHashTable *inputs;         /* name → position + 1 */
  GHashTable *outputs;        /* name → position + 1 */
} Side;

static inline gboolean
named (const char *name)
{
  return name != NULL && name[0] != '\0';
}

/* ---- Matching ---- */

typedef struct {
  const char *a, *b;
} Pair;

typedef struct _Match Match;

struct _Match {
  Side a, b;
  const Match *outer;         /* the match of the graphs holding these, or NULL for main */
  int *a_to_b, *b_to_a;       /* per node: the other side's, or -1; kept by the caller */
  gboolean *by_name;          /* per node of B */
  gboolean *by_order;
  GHashTable *ab, *ba;        /* corresponding tensor names (borrowed) */
  GArray *pending;            /* Pair: correspondences not followed yet */
  GHashTable *same_as_named;  /* A's initializers found identical to B's of their name */
  OnyxModel *file_a, *file_b; /* the models' files, set before matching; or NULL */
};

/* Indexes two graphs (NULL: empty) of the models and matches their nodes and tensors
 * (onyx-diff.h says how). For subgraphs `outer` is the match of the graphs around
 * them, which tells what the tensors they read from outside correspond to; it, and
 * the models, must outlive `m`. */
void  onyx_diff_match        (Match                  *m,
                              const Match            *outer,
                              const Onnx__ModelProto *model_a,
                              const Onnx__GraphProto *a,
                              const Onnx__ModelProto *model_b,
                              const Onnx__GraphProto *b);
/* Frees all but a_to_b and b_to_a, which the caller keeps (an OnyxDiff takes them). */
void  onyx_diff_match_clear  (Match                  *m);

/* B's tensor for A's tensor `ta`, in these graphs or the ones around them; or NULL. */
const char *onyx_diff_match_counterpart (const Match *m,
                                         const char  *ta);

/* A tensor's type, dims and values (external data: where they are), not its name:
 * pieces of memory borrowed from the tensor, in a fixed order, that are the same for
 * two tensors exactly when these are. */
typedef struct {
  const void *data;
  gsize len;
} OnyxDiffPiece;
GArray *onyx_diff_tensor_pieces (const Onnx__TensorProto *tensor);

/* Whether the tensors' pieces are the same, compared in place, the pages of the
 * models' files given back as they are read. */
gboolean onyx_diff_same_tensor (const Match *m, const Onnx__TensorProto *a, const Onnx__TensorProto *b);

/* A hash of the pieces and their total size, as text: a key for matching by content. */
char *onyx_diff_tensor_digest (const Onnx__TensorProto *tensor);

G_END_DECLS
