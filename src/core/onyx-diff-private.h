/* onyx-diff-private.h: what the matching stage (onyx-diff-match.c) hands to the
 * comparing one (onyx-diff.c). The short type names are seen by these two files only. */
#pragma once

#include "onyx-diff.h"

G_BEGIN_DECLS

/* ---- One side's main graph, indexed ---- */

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

typedef struct {
  Side a, b;
  int *a_to_b, *b_to_a;       /* per node: the other side's, or -1; kept by the caller */
  gboolean *by_name;          /* per node of B */
  gboolean *by_order;
  GHashTable *ab, *ba;        /* corresponding tensor names (borrowed) */
  GArray *pending;            /* Pair: correspondences not followed yet */
} Match;

/* Indexes both main graphs and matches their nodes and tensors (onyx-diff.h says how).
 * The models must outlive `m`. */
void  onyx_diff_match        (Match                  *m,
                              const Onnx__ModelProto *a,
                              const Onnx__ModelProto *b);
/* Frees all but a_to_b and b_to_a, which the caller keeps (an OnyxDiff takes them). */
void  onyx_diff_match_clear  (Match                  *m);

/* Type, dims and values (external data: where they are), not the name. */
char *onyx_diff_tensor_digest (const Onnx__TensorProto *tensor);

G_END_DECLS
