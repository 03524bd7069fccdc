/* onyx-graph-index.h: who produces and who consumes each tensor of a graph.
 *
 * The index lives beside the GraphProto (which stays the one truth that readers,
 * validation and saving see) and is updated by each edit for the nodes and names it
 * touches, so that an edit costs its neighbourhood rather than the whole graph.
 * Subgraph bodies (If/Loop/Scan) are not indexed node by node, but the outer
 * tensors they read count as uses of the node that owns them. */
#pragma once

#include <glib.h>

#include "onyx-proto.h"

G_BEGIN_DECLS

/* Input slot of an implicit use: a subgraph of the node reads the tensor. */
#define ONYX_USE_IMPLICIT G_MAXUINT

typedef struct {
  Onnx__NodeProto *node;
  guint input;            /* index into node->input, or ONYX_USE_IMPLICIT */
} OnyxUse;

typedef struct {
  char *name;
  Onnx__NodeProto *producer;  /* NULL: graph input, initializer or dangling */
  guint producer_output;
  GArray *uses;               /* OnyxUse, in no particular order */
} OnyxValue;

typedef struct _OnyxGraphIndex OnyxGraphIndex;

OnyxGraphIndex   *onyx_graph_index_new           (Onnx__GraphProto *graph);
void              onyx_graph_index_free          (OnyxGraphIndex   *index);
Onnx__GraphProto *onyx_graph_index_get_graph     (OnyxGraphIndex   *index);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxGraphIndex, onyx_graph_index_free)

/* NULL when no node reads or writes the name. */
OnyxValue        *onyx_graph_index_lookup        (OnyxGraphIndex   *index,
                                                  const char       *name);
/* The first node with that (non-empty) name, or NULL. */
Onnx__NodeProto  *onyx_graph_index_node_by_name  (OnyxGraphIndex   *index,
                                                  const char       *name);

Onnx__ValueInfoProto *onyx_graph_index_graph_input  (OnyxGraphIndex *index, const char *name);
Onnx__ValueInfoProto *onyx_graph_index_graph_output (OnyxGraphIndex *index, const char *name);
Onnx__TensorProto    *onyx_graph_index_initializer  (OnyxGraphIndex *index, const char *name);

/* A tensor exists when a node produces it or it is a graph input or initializer. */
gboolean          onyx_graph_index_defines       (OnyxGraphIndex   *index,
                                                  const char       *name);
/* Number of reads of a name (implicit reads by subgraphs included). */
guint             onyx_graph_index_n_uses        (OnyxGraphIndex   *index,
                                                  const char       *name);

/* Number of names indexed; with onyx_graph_index_foreach, lets tests compare an
 * index kept up to date by edits with one built from scratch. */
guint             onyx_graph_index_get_n_values  (OnyxGraphIndex   *index);
void              onyx_graph_index_foreach       (OnyxGraphIndex   *index,
                                                  GHFunc            func,
                                                  gpointer          user_data);

/* Whether the node is one of the graph's (and indexed). */
gboolean          onyx_graph_index_has_node      (OnyxGraphIndex        *index,
                                                  const Onnx__NodeProto *node);
/* Position of a node in graph->node (-1 when it is not there). */
gssize            onyx_graph_index_node_position (OnyxGraphIndex   *index,
                                                  Onnx__NodeProto  *node);

/* Bookkeeping for the edit layer, which changes the proto and tells the index.
 * Adding a node indexed already, or removing one that is not, does nothing. */
void onyx_graph_index_add_node       (OnyxGraphIndex *index, Onnx__NodeProto *node);
void onyx_graph_index_remove_node    (OnyxGraphIndex *index, Onnx__NodeProto *node);
void onyx_graph_index_remove_use     (OnyxGraphIndex *index, const char *name,
                                      Onnx__NodeProto *node, guint input);
void onyx_graph_index_add_use        (OnyxGraphIndex *index, const char *name,
                                      Onnx__NodeProto *node, guint input);
void onyx_graph_index_set_producer   (OnyxGraphIndex *index, const char *name,
                                      Onnx__NodeProto *node, guint output);
void onyx_graph_index_node_renamed   (OnyxGraphIndex *index, Onnx__NodeProto *node,
                                      const char *old_name);
/* Rebuilds the maps of graph inputs, outputs and initializers. */
void onyx_graph_index_refresh_lists  (OnyxGraphIndex *index);
/* An item joined or left the graph's list `field` ("input", "output", "initializer";
 * others are no business of the index): the map follows without a rebuild, as
 * Simplify adds thousands of initializers one by one. */
void onyx_graph_index_list_item_added   (OnyxGraphIndex   *index,
                                         const char       *field,
                                         ProtobufCMessage *item);
void onyx_graph_index_list_item_removed (OnyxGraphIndex   *index,
                                         const char       *field,
                                         ProtobufCMessage *item);

/* The node's input or output in `slot`, NULL when it has none there or it is empty
 * (a file may give a node fewer than its operator has, or none). */
const char *onyx_node_input          (const Onnx__NodeProto *node,
                                      guint                  slot);
const char *onyx_node_output         (const Onnx__NodeProto *node,
                                      guint                  slot);
/* How a node is named to a person: its name, or its op type when it has none. */
const char *onyx_node_name_or_op     (const Onnx__NodeProto *node);

/* Every name a node reads: its (non-empty) inputs and what its subgraphs read from
 * outside themselves, appended to `names` (char*, borrowed; may repeat). */
void onyx_node_collect_reads         (const Onnx__NodeProto *node,
                                      GPtrArray             *names);

/* Names a subgraph reads from outside itself, appended to `names` (char*, borrowed). */
void onyx_graph_collect_outer_reads  (const Onnx__GraphProto *graph,
                                      GPtrArray              *names);
/* The same, each once in order of first reading (char*, borrowed; free the array). */
GPtrArray *onyx_graph_outer_reads    (const Onnx__GraphProto *graph);
/* What a node's subgraphs read from outside them, each once (free the array). */
GPtrArray *onyx_node_implicit_reads  (const Onnx__NodeProto  *node);
/* Whether the node holds graphs (If, Loop, Scan): only those read implicitly. */
gboolean   onyx_node_has_subgraphs   (const Onnx__NodeProto  *node);

G_END_DECLS
