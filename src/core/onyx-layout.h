/* onyx-layout.h: the graph laid out by Graphviz dot, as plain structs.
 *
 * Nodes are grouped by the "/"-separated scopes of their names, as PyTorch exports
 * name them ("/layers.0/self_attn/MatMul"). A collapsed group is one box with its op
 * count; an expanded group is laid out on its own, and its box takes part in its
 * parent's layout. So a large graph costs the sum of many small dot runs instead of
 * one huge one, and expanding a group lays out only that group (finished group
 * layouts are cached in the OnyxLayoutEngine, and on disk: see OnyxLayoutDiskCache).
 *
 * libgvc is not thread-safe: every call that runs dot takes one process-wide lock, so
 * layouts may be computed on a worker thread while the UI thread draws older ones. */
#pragma once

#include <gio/gio.h>
#include <pango/pango.h>

#include "onyx-category.h"
#include "onyx-graph-names.h"
#include "onyx-proto.h"
#include "onyx-shapes.h"

G_BEGIN_DECLS

/* How box and label text is measured (for the layout) and drawn (PNG, SVG, the
 * canvas): with unhinted metrics, so that a text is as wide at every scale and what
 * was measured at 100 % fits its box when drawn at 50 % as in an SVG. */
void onyx_layout_text_context_setup (PangoContext *context);

typedef struct {
  double x, y, width, height; /* points; origin top left, y grows downwards */
} OnyxRect;

typedef enum {
  ONYX_LAYOUT_OP,      /* a node of the graph */
  ONYX_LAYOUT_INPUT,   /* a graph input */
  ONYX_LAYOUT_OUTPUT,  /* a graph output */
  ONYX_LAYOUT_GROUP,   /* a name scope, collapsed or expanded */
  ONYX_LAYOUT_OUTER,   /* of a subgraph: a name it reads from the graphs around it */
  ONYX_LAYOUT_STUB,    /* in an open stack: a neighbour of the member shown, whose output it
                        * reads ("from layers.4") or which reads its own ("to layers.6");
                        * index: that neighbour's position in the stack. Or, index -1,
                        * what many read far apart, beside a reader in an open group
                        * ("from attn_mask_subgraph"): its edges carry the tensors */
} OnyxLayoutKind;

typedef struct {
  OnyxLayoutKind kind;
  int index;            /* graph->node / input / output index; -1 for groups; for outer
                         * names, see onyx_layout_engine_outer_name */
  int parent;           /* index in layout->nodes of the expanded group around it, or -1 */
  gboolean expanded;    /* groups only */
  char *scope;          /* groups: the scope path "layers.0/self_attn" */
  char *title;          /* op type, value name, or group name (escaped for display) */
  char *subtitle;       /* node name, type, or "135 nodes" */
  GPtrArray *lines;     /* char*: attributes, those that say what the op does first
                         * ("group = 16"), then initializer inputs by schema slot
                         * "W ⟨64×16×3×3⟩" and folded Constant inputs the same way; at most
                         * 7 lines, the 7th then "+N more"; values may be cut */
  GArray *line_nodes;   /* int, one per line: the graph node a folded line stands for (it
                         * has no box of its own): a Constant, a DequantizeLinear of a weight
                         * ("W int8 ⟨64×3×3×3⟩ per-channel ×64"), a scale's Constant, the Mul
                         * of a dynamically quantized op's scales; -1 for the others */
  char *details;        /* what the box shows and cuts, whole, a line each (a tooltip):
                         * every attribute and weight; a value's name and type; or NULL */
  OnyxCategory category;
  OnyxRect box;         /* absolute */
  guint stack_size;     /* a stack of repeated groups ("layers.0–31"): how many; else 0 */
  guint stack_shown;    /* a stack: the position of the member it shows when open */
  char *stack_label;    /* a stack: the name of the member it shows ("layers.5") */
} OnyxLayoutNode;

typedef struct {
  int from, to;         /* indices in layout->nodes */
  char *tensor;         /* the (first) tensor this edge carries */
  char *label;          /* its shape when known, brief ("N×64×31×31", "D0×3"), or NULL */
  char *shape;          /* its shape whole, when labelled ("p2o.DynamicDimension.0×3") */
  OnyxRect label_box;   /* where dot placed the label, clear of boxes and other labels;
                         * width -1 when none */
  GArray *points;       /* double x, y pairs: a cubic B-spline, 1 + 3k points, absolute */
  gboolean implicit;    /* not an input of `to`: a subgraph of it (If, Loop) reads the tensor */
  /* A quantization folded onto the edge (onyx_layout_engine_set_fold_quant): the tensor
   * passes a QuantizeLinear → DequantizeLinear pair, or a DynamicQuantizeLinear, drawn
   * as this mark instead of boxes. NULL, width -1 and NULL when none. */
  char *mark;           /* "uint8 s=0.0235 zp=128", "uint8 dynamic" */
  OnyxRect mark_box;    /* where it is drawn: in label_box, under the shape */
  GArray *mark_nodes;   /* int: the graph nodes it stands for, in data order (the
                         * QuantizeLinear, then the DequantizeLinear) */
} OnyxLayoutEdge;

typedef struct {
  GArray *nodes;        /* OnyxLayoutNode */
  GArray *edges;        /* OnyxLayoutEdge */
  OnyxRect bounds;
  guint n_dot_runs;     /* group layouts computed (gvLayout calls) for this one */
  guint n_disk_hits;    /* group layouts read from the disk cache for this one */
} OnyxLayout;

/* A layout sharing `layout`'s nodes and edges (reference-counted, never changed once
 * made): a thread can draw it while the canvas moves on to a new one. */
OnyxLayout *onyx_layout_share (const OnyxLayout *layout);
void onyx_layout_free (OnyxLayout *layout);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxLayout, onyx_layout_free)

/* Which groups are open. */
typedef enum {
  ONYX_EXPAND_AUTO,  /* open groups, widest first, while about 200 boxes show */
  ONYX_EXPAND_NONE,  /* only top-level groups */
  ONYX_EXPAND_ALL,   /* no groups at all: every node */
} OnyxExpandMode;

typedef struct _OnyxLayoutEngine OnyxLayoutEngine;

/* A folder of finished group layouts, shared by engines and processes, so that
 * reopening a model costs no dot run. A file is named by the SHA-256 of all that
 * dot's input holds (boxes' sizes, edges, layout options) with the file format's and
 * Graphviz's versions: a group whose input did not change is never laid out again.
 * Files are written atomically; a truncated or corrupt one is ignored and removed.
 * When the files pass `max_bytes`, the least recently used (by mtime) go. */
typedef struct _OnyxLayoutDiskCache OnyxLayoutDiskCache;

#define ONYX_LAYOUT_DISK_CACHE_MAX_BYTES ((guint64) 64 << 20)

typedef struct {
  guint hits, misses;
  guint stores;         /* disk: files written; memory: layouts added */
  guint evictions;      /* dropped to stay within the size bound */
  guint rejected;       /* disk: unreadable, truncated or corrupt files removed */
} OnyxLayoutCacheStats;

OnyxLayoutDiskCache *onyx_layout_disk_cache_new   (const char          *dir,
                                                   guint64              max_bytes);
OnyxLayoutDiskCache *onyx_layout_disk_cache_ref   (OnyxLayoutDiskCache *cache);
void                 onyx_layout_disk_cache_unref (OnyxLayoutDiskCache *cache);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxLayoutDiskCache, onyx_layout_disk_cache_unref)
const char          *onyx_layout_disk_cache_get_dir   (OnyxLayoutDiskCache *cache);
/* What its files take, as last counted (by this process). */
guint64              onyx_layout_disk_cache_get_bytes (OnyxLayoutDiskCache *cache);
void                 onyx_layout_disk_cache_get_stats (OnyxLayoutDiskCache  *cache,
                                                       OnyxLayoutCacheStats *stats);
/* The cache new engines use (transfer none): $ONYX_LAYOUT_CACHE_DIR when set (set
 * but empty: none), else g_get_user_cache_dir()/onyx/layout. NULL when off. */
OnyxLayoutDiskCache *onyx_layout_disk_cache_get_default (void);
/* Replaces it for engines made afterwards; NULL turns the disk cache off. */
void                 onyx_layout_disk_cache_set_default (OnyxLayoutDiskCache *cache);

/* One engine per open model: it caches group layouts across calls. */
OnyxLayoutEngine *onyx_layout_engine_new   (const Onnx__GraphProto *graph);
/* For a subgraph (an If branch, a Loop body), with the graphs around it, innermost
 * first (transfer none, NULL-terminated; they must outlive the engine). What it reads
 * from them gets a box of its own (ONYX_LAYOUT_OUTER) with edges to its readers,
 * except initializers: those show on their readers ("W ⟨…⟩"), as in the main graph. */
OnyxLayoutEngine *onyx_layout_engine_new_nested (const Onnx__GraphProto        *graph,
                                                 const Onnx__GraphProto *const *enclosing);
/* The same for any graph of a model: nested for subgraphs, plain for the others.
 * For a function, the engine keeps a reference to `list`, which holds its view. */
OnyxLayoutEngine *onyx_layout_engine_new_for_entry (OnyxGraphList        *list,
                                                    const OnyxGraphEntry *entry);
void              onyx_layout_engine_free  (OnyxLayoutEngine       *engine);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxLayoutEngine, onyx_layout_engine_free)
/* Call after the graph changed (an edit): the cache keys include each group's
 * contents, so only groups whose contents changed are laid out again. */
void              onyx_layout_engine_graph_changed (OnyxLayoutEngine *engine);
/* Edge labels show the shapes ONNX's inference finds (onyx-shapes.h) where the graph
 * records none; again after each graph_changed. */
void              onyx_layout_engine_set_shapes (OnyxLayoutEngine *engine,
                                                 OnyxShapes       *shapes);
/* The disk cache it reads and writes (NULL: none). Not while a run is in progress. */
void              onyx_layout_engine_set_disk_cache (OnyxLayoutEngine    *engine,
                                                     OnyxLayoutDiskCache *cache);
/* The engine's own cache of group layouts is bounded too: past `max_bytes` (about
 * what the layouts take; 32 MB by default) the least recently used go. */
#define ONYX_LAYOUT_MEMORY_CACHE_MAX_BYTES ((gsize) 32 << 20)
void              onyx_layout_engine_set_memory_limit (OnyxLayoutEngine *engine,
                                                       gsize             max_bytes);
void              onyx_layout_engine_get_memory_stats (OnyxLayoutEngine     *engine,
                                                       OnyxLayoutCacheStats *stats);
/* Whether a Constant node (default domain) whose output one input of one node reads
 * (not a graph output, not read by a subgraph) is drawn as a line in its reader's box,
 * like an initializer, instead of a box with an edge: exporters such as paddle2onnx
 * and tf2onnx keep every weight in a Constant. On by default. The graph keeps the
 * node; OnyxLayoutNode.line_nodes says which line stands for it. Like
 * onyx_layout_engine_graph_changed, not while a run is in progress. */
void              onyx_layout_engine_set_fold_constants (OnyxLayoutEngine *engine,
                                                         gboolean          fold);
gboolean          onyx_layout_engine_get_fold_constants (OnyxLayoutEngine *engine);
/* Whether quantization is drawn as the float model it stands for (on by default):
 * - a DequantizeLinear of constants (a weight, a bias) read by one node is a line of
 *   its reader, by the reader's slot, as a folded Constant is ("W int8 ⟨64×3×3×3⟩
 *   per-channel ×64", "B int32 ⟨64⟩ s=0.0001"), within the same line budget;
 * - a QuantizeLinear whose output one DequantizeLinear alone reads is, with it, a mark
 *   on the edges from what it quantizes to what reads the DequantizeLinear
 *   (OnyxLayoutEdge.mark: "uint8 s=0.0235 zp=128"), and an op reading such pairs or
 *   folded weights whose output goes to one says its types ("Conv · uint8/int8 →
 *   uint8");
 * - ONNX Runtime's dynamic quantization, DynamicQuantizeLinear → ConvInteger or
 *   MatMulInteger → Cast → Mul by the scales (→ the bias's Add, for a Conv), is one box
 *   ("Conv (dynamic int8)", its weight's scale and zero point on its W line), the
 *   DynamicQuantizeLinear a mark ("uint8 dynamic") on the edges into it;
 * - QLinearConv, QLinearMatMul and the others list each scale and zero point pair
 *   with what it quantizes, one line each ("x uint8 s=0.0235 zp=128").
 * The graph keeps every node: onyx_layout_engine_folded_into says which box shows a
 * folded one, OnyxLayoutNode.line_nodes and OnyxLayoutEdge.mark_nodes which line or
 * mark stands for it. Off, every node has its box. Like
 * onyx_layout_engine_graph_changed, not while a run is in progress. */
void              onyx_layout_engine_set_fold_quant (OnyxLayoutEngine *engine,
                                                     gboolean          fold);
gboolean          onyx_layout_engine_get_fold_quant (OnyxLayoutEngine *engine);
/* The graph node whose box shows graph node `node` folded (as a line, a mark on one of
 * its edges, or a part of its box), or -1. A mark's nodes are shown by the box of what
 * made the tensor quantized (else its first reader's). */
int               onyx_layout_engine_folded_into (OnyxLayoutEngine *engine,
                                                  guint             node);
/* Which layout node shows each graph node of the engine's graph (one int per node,
 * g_free the array): its own box, the box a folded node is drawn in (as a line, a
 * mark on one of its edges or a part of it: onyx_layout_engine_folded_into), or the
 * closed group around it; -1 when none does. */
int              *onyx_layout_boxes_of_nodes (const OnyxLayout *layout,
                                              OnyxLayoutEngine *engine);
/* The scope path graph node `node` is filed under ("" at top level; unscoped
 * constants join the scope of their readers, folded ones that of their reader): a
 * collapsed group shows it when the group's path is this one or a prefix of it
 * ending at a "/". */
const char       *onyx_layout_engine_node_scope (OnyxLayoutEngine *engine,
                                                 guint             node);
/* Repeated blocks: consecutive sibling groups of the same structure whose names
 * differ in a number counting up ("layers.0" … "layers.31") are drawn as one stack
 * box (its scope "model/layers.0–31"; OnyxLayoutNode.stack_size). Open, the stack
 * shows one member: the first of its members whose scope is in the expansion set,
 * else the first; the groups inside are open when the same group of any member is.
 * With every member open (ONYX_EXPAND_ALL) each member is drawn on its own.
 * How many members the stack at `stack_path` has (0: no such stack). */
guint             onyx_layout_engine_stack_size   (OnyxLayoutEngine *engine,
                                                   const char       *stack_path);
/* The scope path of member `index` of a stack, or NULL. */
const char       *onyx_layout_engine_stack_member (OnyxLayoutEngine *engine,
                                                   const char       *stack_path,
                                                   guint             index);
/* The graph node at the place of graph node `node` (in a member of a stack) in the
 * member `member_path` of the same stack: the same node of another layer. -1 when
 * there is none. */
int               onyx_layout_engine_twin_node    (OnyxLayoutEngine *engine,
                                                   guint             node,
                                                   const char       *member_path);
/* The scope path of the group at the place of `scope` (a member of a stack, or a
 * group in one) in the member `member_path` of the same stack, or NULL. */
const char       *onyx_layout_engine_twin_scope   (OnyxLayoutEngine *engine,
                                                   const char       *scope,
                                                   const char       *member_path);
/* The stack whose member `path` is, or NULL. */
const char       *onyx_layout_engine_stack_of_member (OnyxLayoutEngine *engine,
                                                      const char       *path);
/* The header line of an open group's box: "attn · 8 nodes", for a stack
 * "layers.0–31 · 32 × 11 nodes · showing layers.5". */
char             *onyx_layout_group_header     (const char *title,
                                                const char *count,
                                                const char *shown);
/* Room the step buttons of an open stack's header take at its right end; where a
 * point falls on them: -1 (back), 1 (on), 0 (neither). */
#define ONYX_LAYOUT_STACK_BUTTONS_WIDTH 44.0
/* A closed stack is drawn as a card with two more behind it, this far apart. */
#define ONYX_LAYOUT_STACK_CARD_OFFSET 4.0
int               onyx_layout_stack_button_at  (const OnyxLayoutNode *node,
                                                double                x,
                                                double                y);
/* The tensor name an ONYX_LAYOUT_OUTER box stands for (its index), or NULL. */
const char       *onyx_layout_engine_outer_name (OnyxLayoutEngine *engine,
                                                 int               index);

/* The scopes open under `mode`, plus `extra_expanded` (scope paths, may be NULL),
 * minus `collapsed` (may be NULL). Returns (transfer full) a set (each value is
 * its key) of char* scope paths, "" for the top level and no leading "/", owned by
 * the table: free it with g_hash_table_unref. */
GHashTable       *onyx_layout_engine_expansion (OnyxLayoutEngine  *engine,
                                                OnyxExpandMode     mode,
                                                const char *const *extra_expanded,
                                                const char *const *collapsed);

typedef void (*OnyxLayoutProgress) (double fraction, gpointer user_data);

/* Lays the graph out with the groups in `expanded` (transfer none: a set of char*
 * scope paths, as onyx_layout_engine_expansion returns) open.
 * Returns NULL when cancelled. Safe to call from a worker thread. */
OnyxLayout       *onyx_layout_engine_run   (OnyxLayoutEngine   *engine,
                                            GHashTable         *expanded,
                                            OnyxLayoutProgress  progress,
                                            gpointer            progress_data,
                                            GCancellable       *cancellable);

/* Whether layout node `node` is `group` or inside it (at any depth). */
gboolean          onyx_layout_is_within    (const OnyxLayout *layout,
                                            int               node,
                                            int               group);

/* A mark's text starts this far into its box (OnyxLayoutEdge.mark_box). */
#define ONYX_LAYOUT_MARK_PAD 3.0
/* The first edge whose mark stands for graph node `node` (a folded QuantizeLinear,
 * DequantizeLinear or DynamicQuantizeLinear: OnyxLayoutEdge.mark_nodes), or -1. */
int               onyx_layout_mark_edge_of_node (const OnyxLayout *layout,
                                                 int               node);

/* The layout node at a point, innermost first (an op before the group around it);
 * -1 when none. */
int               onyx_layout_hit_test     (const OnyxLayout *layout,
                                            double            x,
                                            double            y);

/* The plain operator graph (no groups) in DOT, for comparing with `dot` itself. */
char             *onyx_layout_flat_dot     (const Onnx__GraphProto *graph);

G_END_DECLS
