/* onyx-graph-names.h: every graph of a model, and one name for each.
 *
 * The main graph is "main". A graph attribute is NODE:ATTR ("If_25:then_branch",
 * "Loop_3:body", "Scan_1:branches[1]" for an element of a GRAPHS attribute), NODE
 * being the name of the node holding it when that name is unique in the whole model
 * (exporters' names nearly always are) — nested graphs too are named by their own
 * node. A node without a name, or whose name is not unique, is written by position
 * in its graph: "#3:then_branch" in the main graph, "If_25:then_branch#3:body"
 * below. Model-local functions (ModelProto.functions) are named by their name, or
 * DOMAIN::NAME where two share a name. */
#pragma once

#include <gio/gio.h>

#include "onyx-proto.h"

G_BEGIN_DECLS

#define ONYX_GRAPH_PATH_ERROR (onyx_graph_path_error_quark ())

typedef enum {
  ONYX_GRAPH_PATH_ERROR_NOT_FOUND,  /* no node or graph of that name */
  ONYX_GRAPH_PATH_ERROR_AMBIGUOUS,  /* several match: the message lists them */
} OnyxGraphPathError;

GQuark onyx_graph_path_error_quark (void);

typedef struct {
  char *name;                /* as above; "main" for the main graph */
  Onnx__GraphProto *graph;   /* for a function: a view whose nodes are the function's */
  Onnx__NodeProto *owner;    /* the node holding it; NULL for main and functions */
  const char *attribute;     /* its attribute's name, or NULL */
  int parent;                /* entry of the graph `owner` is in, -1 for main and functions */
  guint depth;               /* 0 for main and functions */
  Onnx__FunctionProto *function; /* or NULL */
} OnyxGraphEntry;

typedef struct _OnyxGraphList OnyxGraphList;

/* A snapshot of the model's graphs: main first, then each graph's subgraphs after it
 * (depth first, in node order), then the functions. Edits that add or remove nodes
 * holding graphs call for a new list. */
OnyxGraphList        *onyx_graph_list_new      (Onnx__ModelProto *model);
/* The Onnx__GraphProto* of such a list without the functions, and without naming
 * anything: for walks over every graph that want no names (much cheaper). */
GPtrArray            *onyx_graph_list_graphs   (Onnx__ModelProto *model);
/* Shared: a function's view lives as long as the list does, and a layout engine
 * showing one keeps its list (see onyx_layout_engine_new_for_entry). */
OnyxGraphList        *onyx_graph_list_ref      (OnyxGraphList    *list);
void                  onyx_graph_list_unref    (OnyxGraphList    *list);
guint                 onyx_graph_list_size     (OnyxGraphList    *list);
const OnyxGraphEntry *onyx_graph_list_get      (OnyxGraphList    *list,
                                                guint             i);
/* By name: the names above, and "" or "main graph" for main, "function D::N" as
 * problems name functions; NODE:ATTR with a NODE that is not unique is an error
 * listing what it could mean. */
const OnyxGraphEntry *onyx_graph_list_find     (OnyxGraphList    *list,
                                                const char       *name,
                                                GError          **error);
/* The entry of a graph, or NULL. */
const OnyxGraphEntry *onyx_graph_list_lookup   (OnyxGraphList          *list,
                                                const Onnx__GraphProto *graph);
/* The graphs a node holds (its GRAPH and GRAPHS attributes) or, for a call of a
 * local function, the function's: const OnyxGraphEntry*, in attribute order. */
GPtrArray            *onyx_graph_list_children (OnyxGraphList          *list,
                                                const Onnx__NodeProto  *node);
/* The graph of the model a node is in (functions included), or NULL. */
const OnyxGraphEntry *onyx_graph_list_graph_of (OnyxGraphList          *list,
                                                const Onnx__NodeProto  *node);
/* A node anywhere in the model: by name, unique in the model ("Relu_138"), or by
 * position, "#N" in the main graph and "GRAPH#N" in another ("If_25:then_branch#0").
 * `graph` (may be NULL) gets the graph it is in. */
Onnx__NodeProto      *onyx_graph_list_find_node (OnyxGraphList         *list,
                                                 const char            *reference,
                                                 const OnyxGraphEntry **graph,
                                                 GError              **error);
/* How to write the node as a reference that onyx_graph_list_find_node finds. */
char                 *onyx_graph_list_node_reference (OnyxGraphList         *list,
                                                      const Onnx__NodeProto *node);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxGraphList, onyx_graph_list_unref)

/* Names of subgraphs for messages during one pass over a model that does not change
 * meanwhile: the list is made on the first question, if any is asked. */
typedef struct {
  const Onnx__ModelProto *model;
  OnyxGraphList *list;
} OnyxGraphNamer;

#define ONYX_GRAPH_NAMER_INIT(model) { (model), NULL }

/* The subgraph's name ("If_1:then_branch"), or "?" for a graph not in the model. */
const char *onyx_graph_namer_name  (OnyxGraphNamer         *namer,
                                    const Onnx__GraphProto *graph);
/* Forgets the list: after the model changed, or at the end of the pass. */
void        onyx_graph_namer_clear (OnyxGraphNamer         *namer);

G_END_DECLS
