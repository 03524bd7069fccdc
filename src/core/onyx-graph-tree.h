/* onyx-graph-tree.h: the graphs of a model being edited, nested in each other.
 *
 * Knows for every node the graph it is in and for every subgraph the node holding
 * it, and keeps an OnyxGraphIndex per graph that was asked for (the main graph's
 * always). A subgraph's reads of outer names count as uses of the node holding it
 * in the graph around it: a change inside a subgraph takes the holding nodes out of
 * their indexes and puts them back, up to the main graph. */
#pragma once

#include "onyx-graph-index.h"

G_BEGIN_DECLS

typedef struct _OnyxGraphTree OnyxGraphTree;

OnyxGraphTree    *onyx_graph_tree_new          (Onnx__GraphProto *main_graph);
void              onyx_graph_tree_free         (OnyxGraphTree    *tree);
Onnx__GraphProto *onyx_graph_tree_main_graph   (OnyxGraphTree    *tree);
/* The graph's index, built when first asked for. */
OnyxGraphIndex   *onyx_graph_tree_index        (OnyxGraphTree    *tree,
                                                Onnx__GraphProto *graph);
/* The graph's index if one was built, else NULL. */
OnyxGraphIndex   *onyx_graph_tree_index_if_any (OnyxGraphTree    *tree,
                                                Onnx__GraphProto *graph);
/* The graph a node is or was last in (a removed node keeps it); NULL if unknown. */
Onnx__GraphProto *onyx_graph_tree_graph_of     (OnyxGraphTree    *tree,
                                                const Onnx__NodeProto *node);
/* The node whose attribute holds a subgraph; NULL for the main graph. */
Onnx__NodeProto  *onyx_graph_tree_owner        (OnyxGraphTree    *tree,
                                                const Onnx__GraphProto *graph);
/* The node of the main graph that holds `node` (through its subgraphs), or `node`
 * itself; NULL when the chain is broken (a removed node on the way). */
Onnx__NodeProto  *onyx_graph_tree_main_ancestor (OnyxGraphTree   *tree,
                                                 Onnx__NodeProto *node);
/* The graph whose inputs, outputs, initializers or value_info hold `message`, or NULL. */
Onnx__GraphProto *onyx_graph_tree_graph_of_message (OnyxGraphTree          *tree,
                                                    const ProtobufCMessage *message);
/* A node joins `graph` (with the graphs it holds), or leaves its graph. */
void              onyx_graph_tree_add_node     (OnyxGraphTree    *tree,
                                                Onnx__NodeProto  *node,
                                                Onnx__GraphProto *graph);
void              onyx_graph_tree_remove_node  (OnyxGraphTree    *tree,
                                                Onnx__NodeProto  *node);
void              onyx_graph_tree_node_renamed (OnyxGraphTree    *tree,
                                                Onnx__NodeProto  *node,
                                                const char       *old_name);
/* The node of the model (any graph but functions) with that name when exactly one
 * has it; `n_named` (may be NULL) gets how many do. */
Onnx__NodeProto  *onyx_graph_tree_node_named   (OnyxGraphTree    *tree,
                                                const char       *name,
                                                guint            *n_named);

/* Before changing what `graph` reads from outside: the nodes holding it, and the
 * nodes holding those, leave the indexes they are in. Returns what to hand to
 * onyx_graph_tree_reindex() after the change (NULL when nothing was taken out). */
GPtrArray        *onyx_graph_tree_unindex_holders (OnyxGraphTree    *tree,
                                                   Onnx__GraphProto *graph);
void              onyx_graph_tree_reindex      (OnyxGraphTree *tree,
                                                GPtrArray     *taken);

/* The same for a batch of changes to `graph` (onyx_document_begin_subgraph_batch):
 * the holders stay known as nodes of their graphs meanwhile. */
GPtrArray        *onyx_graph_tree_begin_batch  (OnyxGraphTree    *tree,
                                                Onnx__GraphProto *graph);
void              onyx_graph_tree_end_batch    (OnyxGraphTree    *tree,
                                                GPtrArray        *taken);

/* Every graph around `graph` up to the main graph, itself first (borrowed). */
void              onyx_graph_tree_lineage      (OnyxGraphTree    *tree,
                                                Onnx__GraphProto *graph,
                                                GPtrArray        *graphs);

G_END_DECLS
