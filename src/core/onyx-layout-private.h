/* onyx-layout-private.h: what the onyx-layout*.c siblings share, by stage:
 *   onyx-layout-items.c   what gets a box: items, groups and edges built from the graph
 *   onyx-layout-fold.c    what is drawn in another box or on an edge instead
 *   onyx-layout-quant.c   quantization drawn as the float model it stands for
 *   onyx-layout-lines.c   what an op box lists: attributes and weights, within a budget
 *   onyx-layout-expand.c  which groups show
 *   onyx-layout-dot.c     one group laid out: what dot is given for it (children, edges,
 *                         ports), and cached
 *   onyx-layout-graphviz.c   dot run on that, under the Graphviz lock
 *   onyx-layout-cache.c   the caches: in memory per engine, and on disk (no libgvc)
 *   onyx-layout.c         the absolute layout composed from the group layouts */
#pragma once

#include "onyx-layout.h"
#include "onyx-schema.h"
#include "onyx-torch-names.h"

G_BEGIN_DECLS

/* A group's title is cut to this many characters, keeping its end. */
#define MAX_GROUP_TITLE 60

/* Room around an open group's children: its sides and bottom, and its title. */
#define GROUP_PADDING 12.0
#define GROUP_HEADER 24.0

/* Where an open group `width` wide places its children's layout, `inner_width` wide,
 * from its left side: centred (a box widened for its title is wider than them). */
static inline double
onyx_layout_inner_offset (double width, double inner_width)
{
  return MAX ((width - inner_width) / 2, GROUP_PADDING);
}

/* Ports: an edge between a box outside an open group and one inside is laid out in
 * pieces, so that dot routes each around the boxes of its own level. Inside the
 * group, it runs from (or to) a port, a point on the group's top (bottom) row, one
 * for each tensor entering (leaving) the group; outside, to (from) the group's box
 * at that port's place. The keys of a group's ports among its children: */
#define IN_PORT_PREFIX "p<:"    /* and the tensor's name */
#define OUT_PORT_PREFIX "p>:"
/* Keys of what a group's layout holds of its own, drawn as nothing: its ports, and
 * the room kept left of its in-ports for its title (edges entering below the title
 * would cross it). */
#define OWN_KEY_PREFIX 'p'
#define TITLE_ROOM_KEY "p^"

typedef struct _Group Group;

typedef struct {
  OnyxLayoutKind kind;
  int index;
  char *scope;            /* "" at top level */
  gboolean in_module;     /* `scope` is the node's module path, from its metadata */
  Group *group;           /* the group of `scope`, where it is filed */
  char *title, *subtitle;
  GPtrArray *lines;
  GArray *line_nodes;     /* int per line, as OnyxLayoutNode's */
  char *details;          /* as OnyxLayoutNode's */
  OnyxCategory category;
  double width, height;
  guint hash;             /* of what the box shows and connects to */
  guint label_hash;       /* of the labels of the edges into it: dot places them too */
  /* Fan-out: an item read in FANOUT_MIN_GROUPS groups and more (the attention mask's
   * seqlens_k, read by every layer) keeps one edge, to its first reader; the other
   * readers in open groups get a stub of it beside them ("from attn_mask_subgraph"). */
  char *fanout_label;     /* what its stubs name: its group, or its title; or NULL */
  int fanout_first;       /* with a label: its first reader item */
  double stub_width;      /* with a label: its stubs' width */
} Item;

#define FANOUT_MIN_GROUPS 4
/* A fan-out stub's key: FANOUT_STUB_PREFIX and the source's fanout_label. */
#define FANOUT_STUB_PREFIX "s:f"

/* A quantization drawn on the edges of the tensor it made instead of as boxes
 * (onyx-layout-quant.c): what OnyxLayoutEdge.mark says. */
typedef struct {
  char *text;             /* "uint8 s=0.0235 zp=128", "uint8 dynamic" */
  char *type;             /* the quantized type, for the titles of the ops around: "uint8" */
  GArray *nodes;          /* int: the graph nodes it stands for, in data order */
  const char *source;     /* the tensor quantized (the graph's): of the same shape */
} QuantMark;

/* The shape an edge's tensor is labelled with, and the mark of a quantization it
 * passed on its way (under the shape). */
typedef struct {
  char *shape;            /* whole: "p2o.DynamicDimension.0×3×32×32"; NULL for a mark alone */
  char *text;             /* as the label shows it (onyx_shape_to_brief_string): "D0×3×32×32" */
  const QuantMark *mark;  /* engine->marks', or NULL */
  double mark_width;      /* the mark's box, its text and padding */
  double width, height;   /* of both, room dot keeps for them; 0 until measured */
} EdgeLabel;

/* An edge label's rows: its shape, and under it a mark. */
#define LABEL_HEIGHT 13.0
#define MARK_HEIGHT 15.0

typedef struct {
  int from, to;           /* items */
  char *tensor;
  gboolean implicit;      /* read by a subgraph of `to` */
} ItemEdge;

struct _Group {
  char *path;             /* "" for the root */
  char *name;
  Group *parent;
  GPtrArray *groups;      /* Group* */
  GArray *items;          /* int */
  guint n_items_total;
  guint n_nodes_total;    /* of them, the nodes (not inputs or outputs filed there) */
  guint hash;             /* of its whole subtree, and of the tensors crossing its side */
  guint port_hash;        /* of the tensors crossing its side: its ports when open */
  double collapsed_width, collapsed_height;
  double open_min_width;    /* room for the header line when open */
  /* Repeated blocks (onyx-layout-stacks.c). A stack is a group standing for a run of
   * sibling groups of the same structure ("layers.0" … "layers.31"): it is not in its
   * parent's `groups` (its members are) but is in engine->groups, under a path no
   * scope has ("model/layers.0–31"). */
  GPtrArray *members;       /* a stack: its members (Group*, not owned) in index order */
  int stack_id;             /* a stack: its index in engine->stacks */
  Group *stack;             /* a member, or a group inside one: the stack it is in */
  GPtrArray *twins;         /* a member or a group inside one: the group at the same
                             * place in each member, in member order (shared) */
  guint member_index;       /* a member or a group inside one: its member's position */
  double stub_width[2];     /* a member: its stubs' widths, "to" [0] and "from" [1] */
};

/* A finished layout of one group's children, positions relative to its top left.
 * Reference counted (g_atomic_rc_box): the memory cache may drop it while a run
 * still uses it. */
typedef struct {
  double width, height;
  GHashTable *child_boxes;  /* child key ("i:12" or "g:path") → OnyxRect* */
  GArray *edges;            /* LevelEdge */
  gsize bytes;              /* about what it takes in memory */
} GroupLayout;

/* What dot made of one group's input, by position: its nodes' boxes in input order
 * and its edges' splines in input order. This is what the disk cache keeps. */
typedef struct {
  double width, height;
  GArray *boxes;            /* OnyxRect */
  GPtrArray *splines;       /* GArray of double x, y pairs */
  GArray *labels;           /* OnyxRect per edge: its label's box; width -1 when none */
} DotResult;

typedef struct {
  char *from_key, *to_key;  /* children, or this group's own ports */
  char *tensor;
  GArray *points;           /* double pairs, relative */
  gboolean implicit;
  OnyxRect label;           /* where dot put its label, relative; width -1 when none */
  gboolean from_port;       /* it leaves the open group `from_key` at the port of `tensor` */
  gboolean to_port;         /* it enters the open group `to_key` at the port of `tensor` */
} LevelEdge;

struct _OnyxLayoutEngine {
  const Onnx__GraphProto *graph;
  GPtrArray *enclosing;     /* const Onnx__GraphProto*, innermost first; NULL for a top graph */
  OnyxGraphList *list;      /* a ref to the list holding the graph, a function's view; or NULL */
  GPtrArray *outer_names;   /* char* (the graph's), what ONYX_LAYOUT_OUTER items index */
  GArray *items;            /* Item */
  GArray *edges;            /* ItemEdge */
  GHashTable *groups;       /* path → Group (stacks too) */
  GPtrArray *stacks;        /* Group*: the stacks, by stack_id */
  GHashTable *module_labels;  /* scope path → group title ("network.0 · Linear") */
  OnyxTorchModules *torch_modules;  /* module paths of the parameters' names, or NULL */
  GHashTable *scope_parts;  /* part of a node name's scope → what it stands for, or NULL */
  Group *root;
  GHashTable *shapes;       /* tensor → EdgeLabel* */
  gboolean fold_constants;
  gboolean fold_quant;
  GHashTable *marks;        /* tensor → QuantMark*: the marks of the edges carrying it */
  int *item_of_node;        /* per graph node: its item, or its reader's when folded */
  int *folded_into;         /* per graph node: the node whose box shows it, or -1 */
  gsize n_item_of_node;
  /* Group layouts by group contents and expansion, least recently used last. */
  GHashTable *cache;        /* key → MemoryEntry */
  GQueue cache_order;       /* of MemoryEntry.link, most recently used first */
  gsize cache_bytes, cache_max_bytes;
  OnyxLayoutCacheStats cache_stats;
  GMutex cache_lock;
  OnyxLayoutDiskCache *disk_cache;  /* or NULL */
};

/* One onyx_layout_engine_run call. */
typedef struct {
  OnyxLayoutEngine *engine;
  GHashTable *expanded;
  GCancellable *cancellable;
  OnyxLayoutProgress progress;
  gpointer progress_data;
  guint n_done, n_total;
  guint n_dot_runs;
  guint n_disk_hits;
  GPtrArray *held;          /* GroupLayout refs: what the run returned stays valid */
  Group **stack_shown;      /* per stack: the member it shows; NULL when unfolded (all
                             * its members open: each is drawn) */
  guint *item_edges_start;  /* the engine's edges by the items they join, both ends: those */
  guint *item_edges;        /* of item t are item_edges[item_edges_start[t] … [t + 1]];
                             * made by the first group laid out (onyx-layout-dot.c) */
} Run;

/* onyx-layout-groups.c: the tree of scope groups */

/* The group of `path` ("" the root), made with the groups above it when new. */
Group       *onyx_layout_ensure_group         (OnyxLayoutEngine *engine,
                                               const char       *path);
void         onyx_layout_group_free           (Group            *group);
/* Counts every group's items and nodes and hashes its contents (stacks: onyx_layout_count_stacks). */
void         onyx_layout_count_groups         (OnyxLayoutEngine *engine);

/* onyx-layout-items.c */

/* The label of edges carrying `tensor`, or NULL when they have none. */
const EdgeLabel *onyx_layout_edge_label (OnyxLayoutEngine *engine,
                                         const char       *tensor);

/* onyx-layout-expand.c: which groups show */

Group       *onyx_layout_effective_group      (Group   *group);
/* The key of the box standing for `group` among its parent's children ("g:path" or,
 * for a group showing a single item, "i:12"); a folded stack's for its members. */
char        *onyx_layout_subgroup_key         (Run     *run,
                                               Group   *group);
/* The groups whose boxes `group` shows when open, in order: its subgroups (each as
 * its effective group), a folded stack in place of its members; for a stack, those
 * of the member it shows. `run` NULL: every stack folded, showing its first member. */
GPtrArray   *onyx_layout_visible_subgroups    (Run     *run,
                                               Group   *group);
/* "1 node", "12 nodes": a group's count as its box shows it. */
char        *onyx_layout_count_text           (guint    n_nodes);
guint        onyx_layout_n_children           (Run     *run,
                                               Group   *group);
gboolean     onyx_layout_is_open              (Run     *run,
                                               Group   *group);
/* Appends which groups are open below `group` (and which member each open stack
 * shows): part of its layout's cache key. */
void         onyx_layout_expansion_signature  (Run     *run,
                                               Group   *group,
                                               GString *out);

/* onyx-layout-dot.c: one group laid out */

/* From the engine's cache, else by dot (then cached); owned by the cache. NULL when
 * cancelled. */
GroupLayout *onyx_layout_group                (Run         *run,
                                               Group       *group);

/* onyx-layout-cache.c: the caches */

GroupLayout *onyx_layout_group_layout_new     (void);
GroupLayout *onyx_layout_group_layout_ref     (GroupLayout *layout);
void         onyx_layout_group_layout_unref   (GroupLayout *layout);
/* A cached layout of a group's contents, whose items an edit before them renumbered:
 * the same boxes and lines under the items' keys now (`item_keys`, "i:12", in item
 * order). NULL when the counts do not match. */
GroupLayout *onyx_layout_group_layout_renumbered (const GroupLayout *cached,
                                                  GPtrArray         *item_keys);

void         onyx_layout_memory_cache_init    (OnyxLayoutEngine *engine);
void         onyx_layout_memory_cache_clear   (OnyxLayoutEngine *engine);
/* A new reference, or NULL. */
GroupLayout *onyx_layout_memory_cache_lookup  (OnyxLayoutEngine *engine,
                                               const char       *key);
/* Takes a reference; may drop the least recently used. */
void         onyx_layout_memory_cache_insert  (OnyxLayoutEngine *engine,
                                               const char       *key,
                                               GroupLayout      *layout);

DotResult   *onyx_layout_dot_result_new       (guint n_boxes);
void         onyx_layout_dot_result_free      (DotResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DotResult, onyx_layout_dot_result_free)
/* The disk cache's key (hex SHA-256) of a dot input: `dot_input` is its canonical
 * text (every attribute, size and edge dot is given). */
char        *onyx_layout_disk_cache_key       (const char *dot_input);
/* The result stored under `key` when it is whole and has `n_boxes` boxes and
 * `n_edges` splines, else NULL (a bad file is removed). */
DotResult   *onyx_layout_disk_cache_load      (OnyxLayoutDiskCache *cache,
                                               const char          *key,
                                               guint                n_boxes,
                                               guint                n_edges);
void         onyx_layout_disk_cache_store     (OnyxLayoutDiskCache *cache,
                                               const char          *key,
                                               const DotResult     *result);

/* onyx-layout-graphviz.c: dot run on one group's input */

/* What a box is to dot: a child, or one of the group's own ports, on the top row (in)
 * or the bottom row (out) of the group's layout. */
typedef enum {
  BOX_CHILD,
  BOX_IN_PORT,
  BOX_OUT_PORT,
} BoxRole;

/* A port's box (points): edges route to its place and no further. */
#define PORT_SIZE 2.0

/* Where the ports of an open child group are on its box, for its parent's dot: cells
 * of an HTML label as wide and high as the box (in whole points), PORT_SIZE wide,
 * each below its port's box inside the group. */
typedef struct {
  guint width, height;
  GArray *in_x, *out_x;     /* guint: the left of each cell, from the box's left, rising */
  GHashTable *in, *out;     /* tensor → its cell's index + 1 */
} PortCells;

/* What dot is given for one group: boxes by position, edges as position pairs with
 * the room their labels take, and the ports they end at. */
typedef struct {
  GPtrArray *inches;        /* char*: width, height of each box, as dot reads them */
  GArray *pairs;            /* guint from, to per edge */
  GArray *label_sizes;      /* guint width, height per edge, in points; 0, 0 for no label */
  GArray *roles;            /* BoxRole per box */
  GPtrArray *cells;         /* PortCells* per box: an open group's ports, or NULL */
  GArray *edge_ports;       /* int per edge, two: the cell it leaves `from` at (out), the
                             * cell it enters `to` at (in); -1 for the box itself */
  GArray *tied;             /* gboolean per edge: it weighs nothing, a tie holds its boxes */
  GArray *ties;             /* guint from, to: boxes tied centre to centre by an edge not
                             * drawn, in place of lines between them that weigh nothing */
  GArray *orders;           /* guint left, right: boxes of a row kept in that order by an
                             * edge not drawn */
} DotInput;

void         onyx_layout_dot_input_clear      (DotInput    *input);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (DotInput, onyx_layout_dot_input_clear)
/* Appends a size in points as dot reads it: inches, rounded up. */
void         onyx_layout_add_inches           (GPtrArray   *inches,
                                               double       points);
guint        onyx_layout_n_boxes              (const DotInput *input);
/* The cells of the ports of `inner`, the layout of an open child group given to dot
 * with the size `width_inches`, `height_inches`, its children placed as the
 * composition places them. */
PortCells   *onyx_layout_port_cells_new       (GroupLayout *inner,
                                               const char  *width_inches,
                                               const char  *height_inches);
void         onyx_layout_port_cells_free      (PortCells   *cells);
/* Ties the boxes of `input`'s lines through ports (see onyx-layout-graphviz.c): lines
 * with a port at an end, between boxes each joined to more than one other. */
void         onyx_layout_tie_lines            (DotInput    *input);
/* The canonical text of all that dot is given: the disk cache's key. */
char        *onyx_layout_dot_describe         (const DotInput *input);
/* Runs dot on one group's input: the boxes and splines, relative to the group's
 * content origin. */
DotResult   *onyx_layout_dot_run              (const DotInput *input);

/* onyx-layout-stacks.c: repeated blocks */

/* Finds the runs of sibling groups of the same structure and makes their stacks. */
void         onyx_layout_find_stacks          (OnyxLayoutEngine *engine);
/* After count_group: a stack's totals are its members'. */
void         onyx_layout_count_stacks         (OnyxLayoutEngine *engine);
/* "32 × 11 nodes" for a stack, "11 nodes" for another group. */
char        *onyx_layout_group_count_text     (Group   *group);
/* The title of a stub standing for `member`: "from layers.4" (`from`) or "to layers.6". */
char        *onyx_layout_stub_title           (Group   *member,
                                               gboolean from);
/* The title of a fan-out stub: "from attn_mask_subgraph". */
char        *onyx_layout_fanout_title         (const char *label);
/* Marks the fan-out items (their labels and first readers) and stirs their other
 * readers' hashes, so that a group's cached layout follows its stubs. */
void         onyx_layout_find_fanouts         (OnyxLayoutEngine *engine);
/* The key of such a stub among the shown member's children, and back. */
char        *onyx_layout_stub_key             (Group   *member,
                                               gboolean from);
gboolean     onyx_layout_parse_stub_key       (const char *key,
                                               guint      *member_index,
                                               gboolean   *from);
#define STUB_HEIGHT 28.0
/* Fills run->stack_shown from run->expanded. */
void         onyx_layout_run_stacks_init      (Run     *run);
/* The member a stack shows (the first when `run` is NULL), or NULL when unfolded. */
Group       *onyx_layout_stack_shown          (Run     *run,
                                               Group   *stack);
/* The member a stack draws: the one it shows (the first, should it be unfolded). */
Group       *onyx_layout_stack_drawn          (Run     *run,
                                               Group   *stack);
/* A member of a stack, not a group inside one. */
static inline gboolean
onyx_layout_is_member (const Group *group)
{
  return group->stack != NULL && group->stack->members->pdata[group->member_index] == group;
}
/* The member of a stack holding `group` (itself, or a group around it), or NULL. */
Group       *onyx_layout_member_around        (Group   *group);
/* The last part of a group's path: "layers.5" of "model/layers.5". */
const char  *onyx_layout_group_component      (const Group *group);
/* `group` is a member of a stack that this run draws folded. */
gboolean     onyx_layout_is_folded_member     (Run     *run,
                                               Group   *group);

/* onyx-layout-fold.c: what is drawn in another box or on an edge, not as a box */

typedef struct _DynamicChain DynamicChain;

/* What folds into what, worked out once per build of the items. */
typedef struct {
  OnyxLayoutEngine *engine;
  const Onnx__GraphProto *graph;
  GHashTable *initializers;   /* name → const Onnx__TensorProto* */
  GHashTable *uses;           /* tensor → how often it is read (GUINT): inputs, subgraphs'
                               * reads; a graph output counts 2 */
  GHashTable *constants;      /* the output of a Constant read once → its node + 1 */
  /* Quantization (onyx-layout-quant.c), when it folds: */
  GHashTable *weight_dqs;     /* the output of a DequantizeLinear of constants read once → its node + 1 */
  GHashTable *aliases;        /* a folded quantization's output → the tensor it quantized, whose
                               * producer's box draws it */
  GHashTable *quantized;      /* a tensor quantized by a folded pair → its QuantMark* */
  DynamicChain **chains;      /* per node: the chain a ConvInteger or MatMulInteger heads, or NULL */
  gboolean *on_edge;          /* per node: folded as (part of) a mark */
  int *folded_into;           /* per node: the node whose box shows it, or -1 */
} Folding;

/* Works out what folds (Constants read once; quantization when engine->fold_quant),
 * filling engine->marks. `implicit`: per node, what its subgraphs read (or NULL). */
Folding     *onyx_layout_folding_new          (OnyxLayoutEngine  *engine,
                                               GHashTable        *initializers,
                                               GPtrArray *const  *implicit);
/* Frees it but its folded_into, which it returns (the engine's from then on). */
int         *onyx_layout_folding_free         (Folding           *folding);
gboolean     onyx_layout_is_constant_node     (const Onnx__NodeProto *node);
/* The value of a constant input: an initializer, or a Constant read once; NULL else. */
const Onnx__TensorProto *onyx_layout_folding_tensor (const Folding *folding,
                                                     const char    *name);
/* Reads of `name` (GUINT of folding->uses). */
guint        onyx_layout_folding_uses         (const Folding     *folding,
                                               const char        *name);

/* onyx-layout-quant.c: quantization drawn as the float model it stands for */

/* Finds the quantization that folds (see onyx_layout_engine_set_fold_quant): weight
 * DequantizeLinears that may be lines, QuantizeLinear → DequantizeLinear pairs and
 * DynamicQuantizeLinears as marks, dynamic quantization chains as one box. */
void         onyx_layout_find_quant           (Folding           *folding);
void         onyx_layout_quant_mark_free      (QuantMark         *mark);
/* "W int8 ⟨64×3×3×3⟩ per-channel ×64" (`name` and `data` given), "x uint8 s=0.0235
 * zp=128" (`name`), "uint8 s=0.0235 zp=128" (neither): what `scale` and `zero_point`
 * (may be NULL) quantize to; the type is `data`'s, else the zero point's, else
 * `default_type` (0: none). With `whole`, never shortened. */
char        *onyx_layout_quant_text           (const char              *name,
                                               const Onnx__TensorProto *data,
                                               const Onnx__TensorProto *scale,
                                               const Onnx__TensorProto *zero_point,
                                               const Onnx__NodeProto   *node,
                                               int32_t                  default_type,
                                               gboolean                 whole);
/* The title of op `node` (not folded) when it runs quantized: "Conv · uint8/int8 →
 * uint8", "Conv (dynamic int8)"; NULL when it says nothing more than `title`. */
char        *onyx_layout_quant_title          (const Folding     *folding,
                                               guint              node,
                                               const char        *title);
/* A dynamic chain's parts, for its box's lines: its weight's slot of the float op
 * ("W"), the weight and its quantization, the node its line stands for (the Mul of the
 * scales); its bias (or NULL) and the node of that line (the Add). */
typedef struct {
  const char *float_op;       /* "Conv", "MatMul" */
  const char *weight;         /* the integer op's input */
  const char *weight_scale, *weight_zero_point;
  int scales_mul;
  const char *bias;           /* an initializer or a Constant's output, or NULL */
  int bias_add;
} DynamicParts;
gboolean     onyx_layout_dynamic_parts        (const Folding     *folding,
                                               guint              node,
                                               DynamicParts      *parts);

/* onyx-layout-lines.c: what an op box lists */

/* Lines an op box shows at most; past it, the last says "+N more". */
#define MAX_BOX_LINES 7
/* A line an op box lists for its inputs (after its attributes), at the slot of its
 * first input. */
typedef enum {
  INPUT_LINE_TENSOR,          /* an initializer, or a Constant read once: "W ⟨64×3×3×3⟩" */
  INPUT_LINE_WEIGHT_DQ,       /* a DequantizeLinear of constants: "W int8 ⟨64×3×3×3⟩ s=…" */
  INPUT_LINE_QUANT,           /* a scale and zero point with what they quantize: "x uint8 s=…" */
  INPUT_LINE_DYNAMIC_WEIGHT,  /* a dynamic chain's weight with its scale and zero point */
  INPUT_LINE_DYNAMIC_BIAS,    /* a dynamic chain's bias */
} InputLineKind;

typedef struct {
  InputLineKind kind;
  guint slot;
  int scale, zero_point, data;  /* INPUT_LINE_QUANT: their slots, -1 for none */
  int node;                     /* the graph node it stands for, or -1 */
  int folds[3];                 /* nodes that fold into the reader when it shows, -1 for none */
} InputLine;

/* The input lines of graph node `node`, in order (InputLine). */
GArray   *onyx_layout_input_lines       (const Folding     *folding,
                                         guint              node,
                                         const OnyxSchema  *schema);
/* Fills item->lines, line_nodes and details of the op item (item->index). */
void      onyx_layout_op_lines          (const Folding     *folding,
                                         Item              *item,
                                         const OnyxSchema  *schema);
/* How many lines the node's attributes take (all it writes, but defaults that say nothing). */
guint     onyx_layout_n_attribute_lines (const Onnx__NodeProto *node);
/* Whether line `position` (from 0) of a box listing `total` lines shows. */
gboolean  onyx_layout_line_shows        (guint position,
                                         guint total);
/* A name for a box: escaped, and its end kept when long. */
char     *onyx_layout_shorten           (const char *text);
/* `title` (escaped; taken) cut to MAX_GROUP_TITLE characters, keeping its end. */
char     *onyx_layout_cut_title         (char       *title);

/* onyx-layout-blocks.c: where nodes are filed */

/* The module path of the node's metadata ("network/network.0"; its groups' titles
 * noted in engine->module_labels, `*in_module` set), else the name scope of its
 * name ("/layers.0/self_attn/MatMul" → "layers.0/self_attn"); "" at the top. */
char *onyx_layout_node_scope        (OnyxLayoutEngine       *engine,
                                     const Onnx__NodeProto  *node,
                                     gboolean               *in_module);
/* The title of a call of a torch module function ("model.decoder · Speech2Text2Decoder"
 * for "transformers_…_Speech2Text2Decoder_model_decoder_1"), escaped, or NULL. */
char *onyx_layout_torch_call_title  (OnyxLayoutEngine       *engine,
                                     const char             *op_type);
/* A large graph whose nodes carry no scopes gets blocks of consecutive nodes as
 * scopes ("nodes 120–247"), cut where the fewest tensors cross. */
void onyx_layout_scope_flat_blocks (OnyxLayoutEngine *engine);
/* A graph input read only inside one group, or an output made inside one, is filed
 * in that group (the deepest holding all its readers), not in the top or bottom row,
 * when it is one of a family of names (a KV cache's past_key_values.N.key/value). */
void onyx_layout_scope_graph_values (OnyxLayoutEngine *engine);

G_END_DECLS
