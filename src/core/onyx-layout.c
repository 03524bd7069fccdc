#include "onyx-layout.h"

#include <graphviz/gvc.h>
#include <locale.h>
#include <pango/pangocairo.h>
#include <stdlib.h>
#include <string.h>

#include "onyx-attribute.h"
#include "onyx-schema.h"
#include "onyx-types.h"
#include "onyx-validate.h"

/* AUTO expansion opens groups while about this many boxes show. */
#define AUTO_VISIBLE_BOXES 200
#define GROUP_PADDING 12.0
#define GROUP_HEADER 24.0
#define LINE_HEIGHT 15.0
#define HEADER_HEIGHT 22.0
#define MAX_LINES 4
#define MAX_TEXT 28

/* ---- Graphviz, owned by one lock ---- */

extern gvplugin_library_t gvplugin_dot_layout_LTX_library;
extern gvplugin_library_t gvplugin_core_LTX_library;

static const lt_symlist_t builtin_plugins[] = {
  { "gvplugin_dot_layout_LTX_library", &gvplugin_dot_layout_LTX_library },
  { "gvplugin_core_LTX_library", &gvplugin_core_LTX_library },
  { 0, 0 },
};

static GMutex gvc_lock;
static GVC_t *gvc;

/* ---- items: what gets a box ---- */

typedef struct {
  OnyxLayoutKind kind;
  int index;
  char *scope;            /* "" at top level */
  char *title, *subtitle;
  GPtrArray *lines;
  OnyxCategory category;
  double width, height;
  guint hash;             /* of what the box shows and connects to */
} Item;

typedef struct {
  int from, to;           /* items */
  char *tensor;
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
} LevelEdge;

struct _OnyxLayoutEngine {
  const Onnx__GraphProto *graph;
  GArray *items;            /* Item */
  GArray *edges;            /* ItemEdge */
  GHashTable *groups;       /* path → Group */
  Group *root;
  GHashTable *shapes;       /* tensor → shape text */
  GHashTable *cache;        /* key → GroupLayout */
  GMutex cache_lock;
};

static char *
shorten (const char *text)
{
  g_autofree char *shown = onyx_display_escape (text);
  if (g_utf8_strlen (shown, -1) <= MAX_TEXT)
    return g_steal_pointer (&shown);
  /* Keep the end: "…layers.0.self_attn.in_proj_weight" tells more than the start. */
  return g_strdup_printf ("…%s", g_utf8_offset_to_pointer (shown, g_utf8_strlen (shown, -1) - (MAX_TEXT - 1)));
}

/* "/layers.0/self_attn/MatMul" → "layers.0/self_attn"; "" when unscoped. */
static char *
scope_of (const char *name)
{
  const char *start, *last;

  if (name == NULL)
    return g_strdup ("");
  start = name[0] == '/' ? name + 1 : name;
  last = strrchr (start, '/');
  return last != NULL && last > start ? g_strndup (start, last - start) : g_strdup ("");
}

static void
measure (PangoLayout *pango, const char *text, gboolean bold, double *width)
{
  int w, h;
  PangoFontDescription *font = pango_font_description_from_string (bold ? "Sans Bold 9" : "Sans 8");

  pango_layout_set_font_description (pango, font);
  pango_layout_set_text (pango, text, -1);
  pango_layout_get_pixel_size (pango, &w, &h);
  pango_font_description_free (font);
  *width = MAX (*width, (double) w);
}

static void
size_item (Item *item, PangoLayout *pango)
{
  double width = 0;

  measure (pango, item->title, TRUE, &width);
  if (item->subtitle != NULL)
    measure (pango, item->subtitle, FALSE, &width);
  for (guint i = 0; i < item->lines->len; i++)
    measure (pango, item->lines->pdata[i], FALSE, &width);
  item->width = MAX (width + 20, 64);
  item->height = HEADER_HEIGHT + LINE_HEIGHT * (item->lines->len + (item->subtitle != NULL ? 1 : 0)) + 6;
}

static guint
hash_strings (guint hash, char **strings, size_t n)
{
  for (size_t i = 0; i < n; i++)
    hash = hash * 31 + g_str_hash (strings[i] != NULL ? strings[i] : "");
  return hash;
}

static void
add_op_item (OnyxLayoutEngine *engine, int index, GHashTable *initializers)
{
  const Onnx__NodeProto *node = engine->graph->node[index];
  Item item = { ONYX_LAYOUT_OP, index };
  const OnyxSchema *schema;

  item.scope = scope_of (node->name);
  item.title = onyx_display_escape (node->op_type);
  item.subtitle = onyx_domain_is_default (node->domain) ? NULL : onyx_display_escape (node->domain);
  item.lines = g_ptr_array_new_with_free_func (g_free);
  item.category = onyx_category_of (node->domain, node->op_type);
  /* The engine has no opset imports: the newest schema names the slots (Conv's W and
   * B), which is what people look for; slot names hardly change across versions. */
  schema = onyx_schema_lookup (node->domain, node->op_type, G_MAXINT64);
  for (size_t k = 0; k < node->n_input && item.lines->len < MAX_LINES; k++)
    {
      const Onnx__TensorProto *init = g_hash_table_lookup (initializers, node->input[k]);
      if (init != NULL)
        {
          const char *dot = strrchr (init->name, '.');
          g_autofree char *slot = schema != NULL ? onyx_schema_input_name (schema, k) : NULL;
          g_autofree char *name = slot != NULL ? g_steal_pointer (&slot)
                                               : shorten (dot != NULL && dot[1] != '\0' ? dot + 1 : init->name);
          g_autofree char *dims = onyx_dims_to_string (init->dims, init->n_dims);
          g_ptr_array_add (item.lines, g_strdup_printf ("%s ⟨%s⟩", name, dims));
        }
    }
  for (size_t a = 0; a < node->n_attribute && item.lines->len < MAX_LINES; a++)
    {
      g_autofree char *value = onyx_attribute_to_string (node->attribute[a]);
      if (g_utf8_strlen (value, -1) <= 18)
        {
          g_autofree char *attr = onyx_display_escape (node->attribute[a]->name);
          g_ptr_array_add (item.lines, g_strdup_printf ("%s = %s", attr, value));
        }
    }
  item.hash = g_str_hash (node->op_type != NULL ? node->op_type : "");
  item.hash = hash_strings (item.hash, node->input, node->n_input);
  item.hash = hash_strings (item.hash, node->output, node->n_output);
  item.hash = hash_strings (item.hash, (char **) item.lines->pdata, item.lines->len);
  g_array_append_val (engine->items, item);
}

static void
add_value_item (OnyxLayoutEngine *engine, OnyxLayoutKind kind, int index, const Onnx__ValueInfoProto *info)
{
  Item item = { kind, index };

  item.scope = g_strdup ("");
  item.title = shorten (info->name);
  item.subtitle = onyx_type_to_string (info->type);
  item.lines = g_ptr_array_new_with_free_func (g_free);
  item.category = ONYX_CATEGORY_DEFAULT;
  item.hash = g_str_hash (info->name != NULL ? info->name : "") * 7 + (guint) kind;
  g_array_append_val (engine->items, item);
}

static Group *
ensure_group (OnyxLayoutEngine *engine, const char *path)
{
  Group *group = g_hash_table_lookup (engine->groups, path);
  const char *slash;

  if (group != NULL)
    return group;
  group = g_new0 (Group, 1);
  group->path = g_strdup (path);
  slash = strrchr (path, '/');
  group->name = onyx_display_escape (slash != NULL ? slash + 1 : path);
  group->groups = g_ptr_array_new ();
  group->items = g_array_new (FALSE, FALSE, sizeof (int));
  g_hash_table_insert (engine->groups, group->path, group);
  if (path[0] != '\0')
    {
      g_autofree char *parent = slash != NULL ? g_strndup (path, slash - path) : g_strdup ("");
      group->parent = ensure_group (engine, parent);
      g_ptr_array_add (group->parent->groups, group);
    }
  return group;
}

static void
count_group (Group *group)
{
  group->n_items_total = group->items->len;
  group->hash = g_str_hash (group->path);
  for (guint i = 0; i < group->groups->len; i++)
    {
      Group *child = group->groups->pdata[i];
      count_group (child);
      group->n_items_total += child->n_items_total;
      group->hash = group->hash * 31 + child->hash;
    }
}

static void
hash_group_items (OnyxLayoutEngine *engine, Group *group)
{
  for (guint i = 0; i < group->groups->len; i++)
    hash_group_items (engine, group->groups->pdata[i]);
  for (guint i = 0; i < group->items->len; i++)
    group->hash = group->hash * 31 + g_array_index (engine->items, Item, g_array_index (group->items, int, i)).hash;
  if (group->parent != NULL)
    group->parent->hash = group->parent->hash * 31 + group->hash;
}

static void
group_free (Group *group)
{
  g_free (group->path);
  g_free (group->name);
  g_ptr_array_unref (group->groups);
  g_array_unref (group->items);
  g_free (group);
}

static void
item_clear (Item *item)
{
  g_free (item->scope);
  g_free (item->title);
  g_free (item->subtitle);
  g_ptr_array_unref (item->lines);
}

static void
group_layout_free (GroupLayout *layout)
{
  g_hash_table_unref (layout->child_boxes);
  for (guint i = 0; i < layout->edges->len; i++)
    {
      LevelEdge *edge = &g_array_index (layout->edges, LevelEdge, i);
      g_free (edge->from_key);
      g_free (edge->to_key);
      g_free (edge->tensor);
      g_array_unref (edge->points);
    }
  g_array_unref (layout->edges);
  g_free (layout);
}

static void
clear_model (OnyxLayoutEngine *engine)
{
  for (guint i = 0; engine->items != NULL && i < engine->items->len; i++)
    item_clear (&g_array_index (engine->items, Item, i));
  for (guint i = 0; engine->edges != NULL && i < engine->edges->len; i++)
    g_free (g_array_index (engine->edges, ItemEdge, i).tensor);
  g_clear_pointer (&engine->items, g_array_unref);
  g_clear_pointer (&engine->edges, g_array_unref);
  g_clear_pointer (&engine->groups, g_hash_table_unref);
  g_clear_pointer (&engine->shapes, g_hash_table_unref);
}

static void
record_shape (GHashTable *shapes, const Onnx__ValueInfoProto *info)
{
  if (info->type != NULL && info->type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
      info->type->tensor_type->shape != NULL && info->name != NULL)
    g_hash_table_insert (shapes, info->name, onyx_shape_to_string (info->type->tensor_type->shape));
}

/* The longest common scope of two scope paths ("a/b/c", "a/b/d" → "a/b"). */
static char *
common_scope (const char *a, const char *b)
{
  gsize end = 0;
  for (gsize i = 0;; i++)
    {
      if ((a[i] == '\0' || a[i] == '/') && (b[i] == '\0' || b[i] == '/'))
        end = i;
      if (a[i] != b[i] || a[i] == '\0')
        break;
    }
  return g_strndup (a, end);
}

/* Exports name the nodes that only hand on weights (Identity of a shared initializer,
 * Constant) without a scope, though they belong to the layer that reads them. Left at
 * the top they would line up by the hundred in the first rank; such a node with no
 * input from another node joins the common scope of its readers. */
static void
adopt_constants (OnyxLayoutEngine *engine)
{
  g_autofree gboolean *fed = g_new0 (gboolean, engine->items->len);
  g_autofree char **readers_scope = g_new0 (char *, engine->items->len);

  for (guint e = 0; e < engine->edges->len; e++)
    {
      const ItemEdge *edge = &g_array_index (engine->edges, ItemEdge, e);
      const char *reader = g_array_index (engine->items, Item, edge->to).scope;
      fed[edge->to] = TRUE;
      if (readers_scope[edge->from] == NULL)
        readers_scope[edge->from] = g_strdup (reader);
      else
        {
          char *common = common_scope (readers_scope[edge->from], reader);
          g_free (readers_scope[edge->from]);
          readers_scope[edge->from] = common;
        }
    }
  for (guint t = 0; t < engine->items->len; t++)
    {
      Item *item = &g_array_index (engine->items, Item, t);
      if (item->kind == ONYX_LAYOUT_OP && item->scope[0] == '\0' && !fed[t] && readers_scope[t] != NULL)
        {
          g_free (item->scope);
          item->scope = g_steal_pointer (&readers_scope[t]);
        }
      g_free (readers_scope[t]);
    }
}

/* Builds items, groups and edges from the graph (on the calling thread: text is
 * measured with pango here, not in the worker). */
static void
build_model (OnyxLayoutEngine *engine)
{
  const Onnx__GraphProto *graph = engine->graph;
  g_autoptr (GHashTable) initializers = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) producer = g_hash_table_new (g_str_hash, g_str_equal);
  PangoFontMap *font_map = pango_cairo_font_map_new ();
  PangoContext *context = pango_font_map_create_context (font_map);
  PangoLayout *pango = pango_layout_new (context);

  clear_model (engine);
  engine->items = g_array_new (FALSE, FALSE, sizeof (Item));
  engine->edges = g_array_new (FALSE, FALSE, sizeof (ItemEdge));
  engine->groups = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) group_free);
  engine->shapes = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  engine->root = ensure_group (engine, "");

  for (size_t i = 0; i < graph->n_initializer; i++)
    if (graph->initializer[i]->name != NULL)
      g_hash_table_insert (initializers, graph->initializer[i]->name, graph->initializer[i]);
  for (size_t i = 0; i < graph->n_value_info; i++)
    record_shape (engine->shapes, graph->value_info[i]);
  for (size_t i = 0; i < graph->n_input; i++)
    {
      record_shape (engine->shapes, graph->input[i]);
      if (graph->input[i]->name != NULL && !g_hash_table_contains (initializers, graph->input[i]->name))
        {
          add_value_item (engine, ONYX_LAYOUT_INPUT, (int) i, graph->input[i]);
          g_hash_table_insert (producer, graph->input[i]->name, GINT_TO_POINTER (engine->items->len));
        }
    }
  for (size_t i = 0; i < graph->n_output; i++)
    record_shape (engine->shapes, graph->output[i]);
  for (size_t n = 0; n < graph->n_node; n++)
    {
      add_op_item (engine, (int) n, initializers);
      for (size_t k = 0; k < graph->node[n]->n_output; k++)
        if (graph->node[n]->output[k][0] != '\0')
          g_hash_table_insert (producer, graph->node[n]->output[k], GINT_TO_POINTER (engine->items->len));
    }
  for (size_t i = 0; i < graph->n_output; i++)
    add_value_item (engine, ONYX_LAYOUT_OUTPUT, (int) i, graph->output[i]);

  /* Edges: producer item → reader item (indices stored +1 in `producer`). */
  for (guint t = 0; t < engine->items->len; t++)
    {
      Item *item = &g_array_index (engine->items, Item, t);
      char **reads = NULL;
      size_t n_reads = 0;
      char *output_name[1];

      if (item->kind == ONYX_LAYOUT_OP)
        reads = graph->node[item->index]->input, n_reads = graph->node[item->index]->n_input;
      else if (item->kind == ONYX_LAYOUT_OUTPUT)
        output_name[0] = graph->output[item->index]->name, reads = output_name, n_reads = 1;
      for (size_t k = 0; k < n_reads; k++)
        {
          int from = GPOINTER_TO_INT (g_hash_table_lookup (producer, reads[k] != NULL ? reads[k] : "")) - 1;
          if (from >= 0 && from != (int) t)
            {
              ItemEdge edge = { from, (int) t, g_strdup (reads[k]) };
              g_array_append_val (engine->edges, edge);
            }
        }
    }

  adopt_constants (engine);
  for (guint t = 0; t < engine->items->len; t++)
    {
      Item *item = &g_array_index (engine->items, Item, t);
      int index = (int) t;
      size_item (item, pango);
      g_array_append_val (ensure_group (engine, item->scope)->items, index);
    }
  count_group (engine->root);
  hash_group_items (engine, engine->root);

  /* Collapsed group boxes: name and count. */
  {
    GHashTableIter iter;
    Group *group;
    g_hash_table_iter_init (&iter, engine->groups);
    while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &group))
      {
        g_autofree char *count = g_strdup_printf ("%u nodes", group->n_items_total);
        double width = 0;
        measure (pango, group->name, TRUE, &width);
        measure (pango, count, FALSE, &width);
        group->collapsed_width = MAX (width + 24, 80);
        group->collapsed_height = HEADER_HEIGHT + LINE_HEIGHT + 8;
      }
  }
  g_object_unref (pango);
  g_object_unref (context);
  g_object_unref (font_map);
}

OnyxLayoutEngine *
onyx_layout_engine_new (const Onnx__GraphProto *graph)
{
  OnyxLayoutEngine *engine = g_new0 (OnyxLayoutEngine, 1);

  engine->graph = graph;
  engine->cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) group_layout_free);
  g_mutex_init (&engine->cache_lock);
  build_model (engine);
  return engine;
}

void
onyx_layout_engine_graph_changed (OnyxLayoutEngine *engine)
{
  /* Cached group layouts stay: their keys hold their contents' hash. */
  build_model (engine);
}

const char *
onyx_layout_engine_node_scope (OnyxLayoutEngine *engine, guint node)
{
  /* Op items follow the graph inputs' items in graph order: look there first. */
  gint64 guess = (gint64) engine->items->len - engine->graph->n_output - engine->graph->n_node + node;
  const Item *item;

  if (guess >= 0 && guess < engine->items->len)
    {
      item = &g_array_index (engine->items, Item, guess);
      if (item->kind == ONYX_LAYOUT_OP && item->index == (int) node)
        return item->scope;
    }
  for (guint i = 0; i < engine->items->len; i++)
    {
      item = &g_array_index (engine->items, Item, i);
      if (item->kind == ONYX_LAYOUT_OP && item->index == (int) node)
        return item->scope;
    }
  return "";
}

void
onyx_layout_engine_free (OnyxLayoutEngine *engine)
{
  if (engine == NULL)
    return;
  clear_model (engine);
  g_hash_table_unref (engine->cache);
  g_mutex_clear (&engine->cache_lock);
  g_free (engine);
}

/* ---- which groups show ---- */

/* A group with no items of its own and one subgroup is shown as that subgroup. */
static Group *
effective (Group *group)
{
  while (group->items->len == 0 && group->groups->len == 1)
    group = group->groups->pdata[0];
  return group;
}

/* The item of a group that holds exactly one (in any depth), else -1: such a group
 * is shown as its item, not as a box around it. */
static int
single_item (Group *group)
{
  if (group->n_items_total != 1)
    return -1;
  while (group->items->len == 0)
    group = group->groups->pdata[0];
  return g_array_index (group->items, int, 0);
}

/* The key of the box standing for a subgroup among its parent's children. */
static char *
subgroup_key (Group *group)
{
  Group *shown = effective (group);
  int item = single_item (shown);
  return item >= 0 ? g_strdup_printf ("i:%d", item) : g_strdup_printf ("g:%s", shown->path);
}

/* Boxes a group shows when open: its items and its subgroups (a subgroup holding a
 * single item shows that item). */
static guint
n_children (Group *group)
{
  return group->items->len + group->groups->len;
}

static void
expand_all (Group *group, GHashTable *expanded)
{
  g_hash_table_add (expanded, g_strdup (group->path));
  for (guint i = 0; i < group->groups->len; i++)
    expand_all (group->groups->pdata[i], expanded);
}

static int
compare_groups_by_size (gconstpointer a, gconstpointer b)
{
  const Group *x = *(Group *const *) a, *y = *(Group *const *) b;
  return x->n_items_total < y->n_items_total ? 1 : x->n_items_total > y->n_items_total ? -1 : 0;
}

GHashTable *
onyx_layout_engine_expansion (OnyxLayoutEngine *engine, OnyxExpandMode mode,
                              const char *const *extra_expanded, const char *const *collapsed)
{
  GHashTable *expanded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  Group *root = effective (engine->root);

  g_hash_table_add (expanded, g_strdup (""));
  g_hash_table_add (expanded, g_strdup (root->path));
  if (mode == ONYX_EXPAND_ALL)
    expand_all (engine->root, expanded);
  else if (mode == ONYX_EXPAND_AUTO)
    {
      /* Open the biggest closed group while the boxes shown stay few. */
      g_autoptr (GPtrArray) closed = g_ptr_array_new ();
      guint visible = n_children (root);
      for (guint i = 0; i < root->groups->len; i++)
        g_ptr_array_add (closed, effective (root->groups->pdata[i]));
      while (closed->len > 0)
        {
          Group *group;
          g_ptr_array_sort (closed, compare_groups_by_size);
          group = g_ptr_array_steal_index (closed, 0);
          if (visible + n_children (group) - 1 > AUTO_VISIBLE_BOXES)
            continue;
          visible += n_children (group) - 1;
          g_hash_table_add (expanded, g_strdup (group->path));
          for (guint i = 0; i < group->groups->len; i++)
            g_ptr_array_add (closed, effective (group->groups->pdata[i]));
        }
    }
  for (guint i = 0; extra_expanded != NULL && extra_expanded[i] != NULL; i++)
    {
      /* Opening a scope opens the scopes around it too. */
      const char *path = extra_expanded[i][0] == '/' ? extra_expanded[i] + 1 : extra_expanded[i];
      for (const char *slash = strchr (path, '/'); slash != NULL; slash = strchr (slash + 1, '/'))
        g_hash_table_add (expanded, g_strndup (path, slash - path));
      g_hash_table_add (expanded, g_strdup (path));
    }
  for (guint i = 0; collapsed != NULL && collapsed[i] != NULL; i++)
    g_hash_table_remove (expanded, collapsed[i][0] == '/' ? collapsed[i] + 1 : collapsed[i]);
  return expanded;
}

/* ---- laying out one group ---- */

typedef struct {
  OnyxLayoutEngine *engine;
  GHashTable *expanded;
  GCancellable *cancellable;
  OnyxLayoutProgress progress;
  gpointer progress_data;
  guint n_done, n_total;
  guint n_dot_runs;
} Run;

static gboolean
is_open (Run *run, Group *group)
{
  return g_hash_table_contains (run->expanded, group->path);
}

/* The key of the box that stands for `item` among the children of `group`, or NULL
 * when the item is outside the group. */
static char *
child_key (Run *run, Group *group, int item)
{
  const char *scope = g_array_index (run->engine->items, Item, item).scope;
  gsize len = strlen (group->path);
  const char *rest;
  Group *child;

  if (len > 0 && (!g_str_has_prefix (scope, group->path) || (scope[len] != '/' && scope[len] != '\0')))
    return NULL;
  rest = scope + len + (len > 0 && scope[len] == '/' ? 1 : 0);
  if (rest[0] == '\0')
    return g_strdup_printf ("i:%d", item);
  {
    const char *slash = strchr (rest, '/');
    g_autofree char *first = slash != NULL ? g_strndup (rest, slash - rest) : g_strdup (rest);
    g_autofree char *path = len > 0 ? g_strdup_printf ("%s/%s", group->path, first) : g_strdup (first);
    child = g_hash_table_lookup (run->engine->groups, path);
  }
  /* A chain of single-child groups is shown as its last group (or its only item). */
  return subgroup_key (child);
}

static GroupLayout *layout_group (Run *run, Group *group);

static void
child_size (Run *run, const char *key, double *width, double *height)
{
  if (key[0] == 'i')
    {
      const Item *item = &g_array_index (run->engine->items, Item, atoi (key + 2));
      *width = item->width;
      *height = item->height;
      return;
    }
  {
    Group *group = g_hash_table_lookup (run->engine->groups, key + 2);
    if (is_open (run, group))
      {
        GroupLayout *inner = layout_group (run, group);
        *width = inner != NULL ? inner->width + 2 * GROUP_PADDING : group->collapsed_width;
        *height = inner != NULL ? inner->height + GROUP_PADDING + GROUP_HEADER : group->collapsed_height;
      }
    else
      {
        *width = group->collapsed_width;
        *height = group->collapsed_height;
      }
  }
}

static void
expansion_signature (Run *run, Group *group, GString *out)
{
  if (!is_open (run, group))
    return;
  g_string_append_printf (out, "+%s", group->path);
  for (guint i = 0; i < group->groups->len; i++)
    expansion_signature (run, effective (group->groups->pdata[i]), out);
}

static void
set_inches (Agnode_t *node, const char *attribute, double points)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  agsafeset (node, (char *) attribute, g_ascii_formatd (buf, sizeof buf, "%.3f", points / 72.0), "");
}

/* Runs dot on the children of `group` and returns their boxes and the edges between
 * them, relative to the group's content origin. NULL when cancelled. */
static GroupLayout *
dot_layout (Run *run, Group *group, GPtrArray *keys, GHashTable *sizes, GArray *pairs, GPtrArray *tensors)
{
  GroupLayout *layout = g_new0 (GroupLayout, 1);
  g_autoptr (GHashTable) agnodes = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree Agedge_t **agedges = g_new0 (Agedge_t *, MAX (pairs->len / 2, 1));
  g_autofree char *saved_locale = NULL;
  Agraph_t *graph;
  boxf bb;

  layout->child_boxes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  layout->edges = g_array_new (FALSE, FALSE, sizeof (LevelEdge));

  g_mutex_lock (&gvc_lock);
  /* dot prints and parses numbers: keep the C decimal point whatever the locale. */
  saved_locale = g_strdup (setlocale (LC_NUMERIC, NULL));
  setlocale (LC_NUMERIC, "C");
  if (gvc == NULL)
    gvc = gvContextPlugins (builtin_plugins, 0);
  graph = agopen ((char *) "g", Agdirected, NULL);
  agattr (graph, AGRAPH, (char *) "rankdir", (char *) "TB");
  agattr (graph, AGRAPH, (char *) "nodesep", (char *) "0.25");
  agattr (graph, AGRAPH, (char *) "ranksep", (char *) "0.35");
  if (keys->len > 150)
    {
      /* Big levels: fewer crossing-minimisation and network-simplex passes. */
      agattr (graph, AGRAPH, (char *) "mclimit", (char *) "0.3");
      agattr (graph, AGRAPH, (char *) "nslimit", (char *) "2");
      agattr (graph, AGRAPH, (char *) "nslimit1", (char *) "2");
    }
  agattr (graph, AGNODE, (char *) "shape", (char *) "box");
  agattr (graph, AGNODE, (char *) "fixedsize", (char *) "true");
  agattr (graph, AGNODE, (char *) "label", (char *) "");
  agattr (graph, AGNODE, (char *) "width", (char *) "1");
  agattr (graph, AGNODE, (char *) "height", (char *) "0.5");
  for (guint i = 0; i < keys->len; i++)
    {
      double *size = g_hash_table_lookup (sizes, keys->pdata[i]);
      g_autofree char *id = g_strdup_printf ("n%u", i);
      Agnode_t *node = agnode (graph, id, 1);
      set_inches (node, "width", size[0]);
      set_inches (node, "height", size[1]);
      g_hash_table_insert (agnodes, keys->pdata[i], node);
    }
  for (guint e = 0; e < pairs->len / 2; e++)
    agedges[e] = agedge (graph, g_hash_table_lookup (agnodes, keys->pdata[g_array_index (pairs, guint, 2 * e)]),
                         g_hash_table_lookup (agnodes, keys->pdata[g_array_index (pairs, guint, 2 * e + 1)]),
                         NULL, 1);
  gvLayout (gvc, graph, "dot");
  run->n_dot_runs++;

  bb = GD_bb (graph);
  layout->width = bb.UR.x - bb.LL.x;
  layout->height = bb.UR.y - bb.LL.y;
  for (guint i = 0; i < keys->len; i++)
    {
      Agnode_t *node = g_hash_table_lookup (agnodes, keys->pdata[i]);
      OnyxRect *box = g_new (OnyxRect, 1);
      box->width = ND_width (node) * 72.0;
      box->height = ND_height (node) * 72.0;
      box->x = ND_coord (node).x - bb.LL.x - box->width / 2;
      box->y = bb.UR.y - ND_coord (node).y - box->height / 2;
      g_hash_table_insert (layout->child_boxes, g_strdup (keys->pdata[i]), box);
    }
  for (guint e = 0; e < pairs->len / 2; e++)
    {
      LevelEdge edge = { g_strdup (keys->pdata[g_array_index (pairs, guint, 2 * e)]),
                         g_strdup (keys->pdata[g_array_index (pairs, guint, 2 * e + 1)]),
                         g_strdup (tensors->pdata[e]), g_array_new (FALSE, FALSE, sizeof (double)) };
      splines *spl = ED_spl (agedges[e]);
      if (spl != NULL && spl->size > 0)
        {
          bezier *curve = &spl->list[0];
          for (int p = 0; p < curve->size; p++)
            {
              double x = curve->list[p].x - bb.LL.x, y = bb.UR.y - curve->list[p].y;
              g_array_append_val (edge.points, x);
              g_array_append_val (edge.points, y);
            }
          if (curve->eflag)
            {
              /* The curve stops short of the arrow tip: end it at the tip. */
              double x = curve->ep.x - bb.LL.x, y = bb.UR.y - curve->ep.y;
              double lx = g_array_index (edge.points, double, edge.points->len - 2);
              double ly = g_array_index (edge.points, double, edge.points->len - 1);
              double c1x = lx + (x - lx) / 3, c1y = ly + (y - ly) / 3;
              double c2x = lx + 2 * (x - lx) / 3, c2y = ly + 2 * (y - ly) / 3;
              g_array_append_val (edge.points, c1x);
              g_array_append_val (edge.points, c1y);
              g_array_append_val (edge.points, c2x);
              g_array_append_val (edge.points, c2y);
              g_array_append_val (edge.points, x);
              g_array_append_val (edge.points, y);
            }
        }
      g_array_append_val (layout->edges, edge);
    }
  gvFreeLayout (gvc, graph);
  agclose (graph);
  setlocale (LC_NUMERIC, saved_locale);
  g_mutex_unlock (&gvc_lock);
  return layout;
}

static GroupLayout *
layout_group (Run *run, Group *group)
{
  g_autoptr (GString) key = g_string_new (NULL);
  g_autoptr (GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) sizes = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_autoptr (GHashTable) key_index = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) seen_pairs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GArray) pairs = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GPtrArray) tensors = g_ptr_array_new ();
  GroupLayout *layout;

  g_string_append_printf (key, "%s|%08x|", group->path, group->hash);
  expansion_signature (run, group, key);
  g_mutex_lock (&run->engine->cache_lock);
  layout = g_hash_table_lookup (run->engine->cache, key->str);
  g_mutex_unlock (&run->engine->cache_lock);
  if (layout != NULL)
    return layout;
  if (g_cancellable_is_cancelled (run->cancellable))
    return NULL;

  /* Children: the group's own items, then its subgroups. */
  for (guint i = 0; i < group->items->len; i++)
    g_ptr_array_add (keys, g_strdup_printf ("i:%d", g_array_index (group->items, int, i)));
  for (guint i = 0; i < group->groups->len; i++)
    g_ptr_array_add (keys, subgroup_key (group->groups->pdata[i]));
  for (guint i = 0; i < keys->len; i++)
    {
      double *size = g_new (double, 2);
      child_size (run, keys->pdata[i], &size[0], &size[1]);
      if (g_cancellable_is_cancelled (run->cancellable))
        {
          g_free (size);
          return NULL;
        }
      g_hash_table_insert (sizes, keys->pdata[i], size);
      g_hash_table_insert (key_index, keys->pdata[i], GUINT_TO_POINTER (i));
    }
  for (guint e = 0; e < run->engine->edges->len; e++)
    {
      const ItemEdge *edge = &g_array_index (run->engine->edges, ItemEdge, e);
      g_autofree char *from = child_key (run, group, edge->from);
      g_autofree char *to = child_key (run, group, edge->to);
      gpointer a, b;
      if (from == NULL || to == NULL || strcmp (from, to) == 0 ||
          !g_hash_table_lookup_extended (key_index, from, NULL, &a) ||
          !g_hash_table_lookup_extended (key_index, to, NULL, &b) ||
          !g_hash_table_add (seen_pairs, g_strdup_printf ("%s>%s", from, to)))
        continue;
      guint ia = GPOINTER_TO_UINT (a), ib = GPOINTER_TO_UINT (b);
      g_array_append_val (pairs, ia);
      g_array_append_val (pairs, ib);
      g_ptr_array_add (tensors, edge->tensor);
    }

  layout = dot_layout (run, group, keys, sizes, pairs, tensors);
  run->n_done += keys->len;
  if (run->progress != NULL && run->n_total > 0)
    run->progress (MIN (1.0, (double) run->n_done / run->n_total), run->progress_data);
  g_mutex_lock (&run->engine->cache_lock);
  g_hash_table_replace (run->engine->cache, g_strdup (key->str), layout);
  g_mutex_unlock (&run->engine->cache_lock);
  return layout;
}

/* ---- composing the absolute layout ---- */

static gpointer
copy_string (gconstpointer text, gpointer user_data)
{
  return g_strdup (text);
}

static void
fill_node (OnyxLayoutEngine *engine, OnyxLayoutNode *node, const char *key)
{
  if (key[0] == 'i')
    {
      const Item *item = &g_array_index (engine->items, Item, atoi (key + 2));
      node->kind = item->kind;
      node->index = item->index;
      node->title = g_strdup (item->title);
      node->subtitle = g_strdup (item->subtitle);
      node->lines = g_ptr_array_copy (item->lines, copy_string, NULL);
      g_ptr_array_set_free_func (node->lines, g_free);
      node->category = item->category;
    }
  else
    {
      Group *group = g_hash_table_lookup (engine->groups, key + 2);
      node->kind = ONYX_LAYOUT_GROUP;
      node->index = -1;
      node->scope = g_strdup (group->path);
      node->title = g_strdup (group->name);
      node->subtitle = g_strdup_printf ("%u nodes", group->n_items_total);
      node->lines = g_ptr_array_new_with_free_func (g_free);
      node->category = ONYX_CATEGORY_DEFAULT;
    }
}

static int
compare_keys (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static void
compose (Run *run, OnyxLayout *out, Group *group, double ox, double oy, int parent)
{
  GroupLayout *layout = layout_group (run, group);
  g_autoptr (GHashTable) node_of_key = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter iter;
  gpointer key;
  g_autoptr (GPtrArray) sorted = g_ptr_array_new ();

  /* Keys in a stable order so that layouts compare equal run to run. */
  g_hash_table_iter_init (&iter, layout->child_boxes);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (sorted, key);
  g_ptr_array_sort (sorted, compare_keys);
  for (guint i = 0; i < sorted->len; i++)
    {
      const char *child = sorted->pdata[i];
      const OnyxRect *box = g_hash_table_lookup (layout->child_boxes, child);
      OnyxLayoutNode node = { 0 };

      fill_node (run->engine, &node, child);
      node.parent = parent;
      node.box = (OnyxRect) { ox + box->x, oy + box->y, box->width, box->height };
      g_array_append_val (out->nodes, node);
      g_hash_table_insert (node_of_key, (gpointer) child, GINT_TO_POINTER (out->nodes->len));
      if (child[0] == 'g')
        {
          Group *sub = g_hash_table_lookup (run->engine->groups, child + 2);
          if (is_open (run, sub))
            {
              int self = (int) out->nodes->len - 1;
              g_array_index (out->nodes, OnyxLayoutNode, self).expanded = TRUE;
              compose (run, out, sub, ox + box->x + GROUP_PADDING, oy + box->y + GROUP_HEADER, self);
            }
        }
    }
  for (guint e = 0; e < layout->edges->len; e++)
    {
      const LevelEdge *level = &g_array_index (layout->edges, LevelEdge, e);
      OnyxLayoutEdge edge = { GPOINTER_TO_INT (g_hash_table_lookup (node_of_key, level->from_key)) - 1,
                              GPOINTER_TO_INT (g_hash_table_lookup (node_of_key, level->to_key)) - 1,
                              g_strdup (level->tensor), NULL, g_array_new (FALSE, FALSE, sizeof (double)) };
      const char *shape = level->tensor != NULL ? g_hash_table_lookup (run->engine->shapes, level->tensor) : NULL;
      edge.label = shape != NULL && shape[0] != '\0' ? g_strdup (shape) : NULL;
      for (guint p = 0; p + 1 < level->points->len; p += 2)
        {
          double x = ox + g_array_index (level->points, double, p);
          double y = oy + g_array_index (level->points, double, p + 1);
          g_array_append_val (edge.points, x);
          g_array_append_val (edge.points, y);
        }
      g_array_append_val (out->edges, edge);
    }
}

static void
clear_layout_node (OnyxLayoutNode *node)
{
  g_free (node->scope);
  g_free (node->title);
  g_free (node->subtitle);
  if (node->lines != NULL)
    g_ptr_array_unref (node->lines);
}

static void
clear_layout_edge (OnyxLayoutEdge *edge)
{
  g_free (edge->tensor);
  g_free (edge->label);
  g_array_unref (edge->points);
}

void
onyx_layout_free (OnyxLayout *layout)
{
  if (layout == NULL)
    return;
  g_array_unref (layout->nodes);
  g_array_unref (layout->edges);
  g_free (layout);
}

static guint
count_work (Run *run, Group *group)
{
  guint n = n_children (group);
  for (guint i = 0; i < group->groups->len; i++)
    {
      Group *sub = effective (group->groups->pdata[i]);
      if (is_open (run, sub))
        n += count_work (run, sub);
    }
  return n;
}

OnyxLayout *
onyx_layout_engine_run (OnyxLayoutEngine *engine, GHashTable *expanded, OnyxLayoutProgress progress,
                        gpointer progress_data, GCancellable *cancellable)
{
  Run run = { engine, expanded, cancellable, progress, progress_data, 0, 0, 0 };
  Group *root = effective (engine->root);
  OnyxLayout *layout;

  run.n_total = count_work (&run, root);
  if (layout_group (&run, root) == NULL)
    return NULL;
  layout = g_new0 (OnyxLayout, 1);
  layout->nodes = g_array_new (FALSE, TRUE, sizeof (OnyxLayoutNode));
  layout->edges = g_array_new (FALSE, TRUE, sizeof (OnyxLayoutEdge));
  g_array_set_clear_func (layout->nodes, (GDestroyNotify) clear_layout_node);
  g_array_set_clear_func (layout->edges, (GDestroyNotify) clear_layout_edge);
  compose (&run, layout, root, 0, 0, -1);
  if (g_cancellable_is_cancelled (cancellable))
    {
      onyx_layout_free (layout);
      return NULL;
    }
  {
    GroupLayout *top = layout_group (&run, root);
    layout->bounds = (OnyxRect) { 0, 0, top->width, top->height };
  }
  layout->n_dot_runs = run.n_dot_runs;
  return layout;
}

int
onyx_layout_hit_test (const OnyxLayout *layout, double x, double y)
{
  /* Children come after their group: the last hit is the innermost. */
  for (guint i = layout->nodes->len; i-- > 0;)
    {
      const OnyxRect *box = &g_array_index (layout->nodes, OnyxLayoutNode, i).box;
      if (x >= box->x && x <= box->x + box->width && y >= box->y && y <= box->y + box->height)
        return (int) i;
    }
  return -1;
}

char *
onyx_layout_flat_dot (const Onnx__GraphProto *graph)
{
  GString *out = g_string_new ("digraph g {\n  node [shape=box];\n");
  g_autoptr (GHashTable) producer = g_hash_table_new (g_str_hash, g_str_equal);

  for (size_t n = 0; n < graph->n_node; n++)
    {
      g_autofree char *label = g_strescape (graph->node[n]->op_type != NULL ? graph->node[n]->op_type : "", NULL);
      g_string_append_printf (out, "  n%zu [label=\"%s\"];\n", n, label);
      for (size_t k = 0; k < graph->node[n]->n_output; k++)
        g_hash_table_insert (producer, graph->node[n]->output[k], GSIZE_TO_POINTER (n + 1));
    }
  for (size_t n = 0; n < graph->n_node; n++)
    for (size_t k = 0; k < graph->node[n]->n_input; k++)
      {
        gsize from = GPOINTER_TO_SIZE (g_hash_table_lookup (producer, graph->node[n]->input[k]));
        if (from > 0)
          g_string_append_printf (out, "  n%zu -> n%zu;\n", from - 1, n);
      }
  g_string_append (out, "}\n");
  return g_string_free (out, FALSE);
}
