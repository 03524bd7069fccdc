/* onyx-layout-private.h: what the onyx-layout*.c siblings share, by stage:
 *   onyx-layout-items.c   what gets a box: items, groups and edges built from the graph
 *   onyx-layout-expand.c  which groups show
 *   onyx-layout-dot.c     one group laid out by dot, under the Graphviz lock, and cached
 *   onyx-layout.c         the absolute layout composed from the group layouts */
#pragma once

#include "onyx-layout.h"

G_BEGIN_DECLS

/* Room around an open group's children: its sides and bottom, and its title. */
#define GROUP_PADDING 12.0
#define GROUP_HEADER 24.0

typedef struct {
  OnyxLayoutKind kind;
  int index;
  char *scope;            /* "" at top level */
  char *title, *subtitle;
  GPtrArray *lines;
  GArray *line_nodes;     /* int per line, as OnyxLayoutNode's */
  OnyxCategory category;
  double width, height;
  guint hash;             /* of what the box shows and connects to */
} Item;

typedef struct {
  int from, to;           /* items */
  char *tensor;
  gboolean implicit;      /* read by a subgraph of `to` */
} ItemEdge;

typedef struct _Group Group;
struct _Group {
  char *path;             /* "" for the root */
  char *name;
  Group *parent;
  GPtrArray *groups;      /* Group* */
  GArray *items;          /* int */
  guint n_items_total;
  guint hash;             /* of its whole subtree */
  double collapsed_width, collapsed_height;
};

/* A finished layout of one group's children, positions relative to its top left. */
typedef struct {
  double width, height;
  GHashTable *child_boxes;  /* child key ("i:12" or "g:path") → OnyxRect* */
  GArray *edges;            /* LevelEdge */
} GroupLayout;

typedef struct {
  char *from_key, *to_key;
  char *tensor;
  GArray *points;           /* double pairs, relative */
  gboolean implicit;
} LevelEdge;

struct _OnyxLayoutEngine {
  const Onnx__GraphProto *graph;
  GPtrArray *enclosing;     /* const Onnx__GraphProto*, innermost first; NULL for a top graph */
  GPtrArray *outer_names;   /* char* (the graph's), what ONYX_LAYOUT_OUTER items index */
  GArray *items;            /* Item */
  GArray *edges;            /* ItemEdge */
  GHashTable *groups;       /* path → Group */
  Group *root;
  GHashTable *shapes;       /* tensor → shape text */
  gboolean fold_constants;
  int *item_of_node;        /* per graph node: its item, or its reader's when folded */
  int *folded_into;         /* per graph node: the reader showing it as a line, or -1 */
  gsize n_item_of_node;
  GHashTable *cache;        /* key → GroupLayout */
  GMutex cache_lock;
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
} Run;

/* onyx-layout-expand.c: which groups show */

Group       *onyx_layout_effective_group      (Group   *group);
char        *onyx_layout_subgroup_key         (Group   *group);
guint        onyx_layout_n_children           (Group   *group);
gboolean     onyx_layout_is_open              (Run     *run,
                                               Group   *group);
/* Appends which groups are open in the subtree of `group`: part of its cache key. */
void         onyx_layout_expansion_signature  (Run     *run,
                                               Group   *group,
                                               GString *out);

/* onyx-layout-dot.c: one group laid out */

/* From the engine's cache, else by dot (then cached); owned by the cache. NULL when
 * cancelled. */
GroupLayout *onyx_layout_group                (Run         *run,
                                               Group       *group);
void         onyx_layout_group_layout_free    (GroupLayout *layout);

/* onyx-layout-blocks.c: a large graph whose nodes carry no scopes gets blocks of
 * consecutive nodes as scopes ("nodes 120–247"), cut where the fewest tensors cross. */
void onyx_layout_scope_flat_blocks (OnyxLayoutEngine *engine);

G_END_DECLS
