/* onyx-diff.h: what differs between two models (A, the old one, and B).
 *
 * Nodes of the main graphs are matched by name first, then by structure: from the
 * tensors known to correspond (graph inputs and outputs of the same name,
 * initializers of the same name or the same contents, the outputs of matched
 * nodes), a node is matched to the only node of the same operator in the same place
 * on the other side, and so on until nothing more matches. A renamed export (traced
 * vs scripted) thus still aligns node by node. Nodes nothing tells apart (identical
 * branches) are paired per operator in file order, and matching goes on from them.
 *
 * The graphs that two matched nodes hold under the same attribute (If's branches, a
 * Loop's or Scan's body, a GRAPHS list element by element) are diffed the same way, at
 * any depth: their inputs and outputs correspond by position, the tensors they read
 * from outside as they do out there. Their differences are entries of their own,
 * not a difference of the holder's attribute.
 *
 * Reported: added, removed, changed and renamed nodes (operator, attributes, where
 * each input comes from, output names), graph inputs and outputs (type, dims),
 * initializers (name, type, dims, values), opset imports and metadata (and each
 * subgraph's name and doc_string). */
#pragma once

#include <glib.h>

#include "onyx-model.h"
#include "onyx-proto.h"

G_BEGIN_DECLS

typedef enum {
  ONYX_DIFF_METADATA,
  ONYX_DIFF_OPSET,
  ONYX_DIFF_GRAPH_INPUT,
  ONYX_DIFF_GRAPH_OUTPUT,
  ONYX_DIFF_NODE,
  ONYX_DIFF_INITIALIZER,
} OnyxDiffSubject;

typedef enum {
  ONYX_DIFF_ADDED,      /* in B only */
  ONYX_DIFF_REMOVED,    /* in A only */
  ONYX_DIFF_CHANGED,
  ONYX_DIFF_RENAMED,    /* the same thing under another name (node: its outputs too) */
} OnyxDiffChange;

typedef struct {
  OnyxDiffSubject subject;
  OnyxDiffChange change;
  /* The graph the entry is in, as OnyxGraphList names it in B ("main", "/If:then_branch";
   * an entry is always in a pair of graphs: those of a removed or added node are not
   * diffed), and that graph in each model (borrowed; NULL for a model without a main
   * graph). Metadata and opsets are in "main". */
  char *graph;
  const Onnx__GraphProto *graph_a, *graph_b;
  char *name_a;          /* raw name in A (node, tensor, domain, field); NULL when added */
  char *name_b;          /* raw name in B; NULL when removed */
  int index_a;           /* position in A's list (nodes, inputs…) of that graph, -1 when absent */
  int index_b;
  char *message;         /* one line, names escaped */
  GPtrArray *details;    /* char*: each difference, e.g. "attribute strides: [2, 2] → [1, 1]" */
} OnyxDiffEntry;

typedef struct {
  GPtrArray *entries;    /* OnyxDiffEntry*: metadata, opsets, inputs, outputs, nodes (B's
                          * order, then those removed in A's order), initializers; the
                          * entries of the graphs a matched node holds come right after
                          * the node's place, in the same order */
  /* What follows covers the main graph only. */
  guint n_nodes_a, n_nodes_b;
  int *node_a_to_b;      /* B's index of each node of A, -1 when removed */
  int *node_b_to_a;      /* A's index of each node of B, -1 when added */
  int *node_change_b;    /* per node of B: its OnyxDiffChange, or -1 when the same */
  guint n_matched_by_name;
  guint n_matched_by_structure;
  guint n_matched_by_order;  /* left over nodes of the same operator, in file order */
} OnyxDiff;

OnyxDiff      *onyx_diff_models        (const Onnx__ModelProto *a,
                                        const Onnx__ModelProto *b);
/* The same for models loaded from files: payload pages are given back once compared
 * (onyx_model_release_pages), so that peak memory stays near that of loading them.
 * `proto_b` is B's tree when it is not b's own (a document being edited), else NULL. */
OnyxDiff      *onyx_diff_model_files   (OnyxModel              *a,
                                        OnyxModel              *b,
                                        const Onnx__ModelProto *proto_b);
void           onyx_diff_free          (OnyxDiff *diff);

/* "node", "graph-input", …; "added", "removed", "changed", "renamed". */
const char    *onyx_diff_subject_name  (OnyxDiffSubject subject);
const char    *onyx_diff_change_name   (OnyxDiffChange  change);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxDiff, onyx_diff_free)

G_END_DECLS
