/* onyx-layout-blocks.c: where each node is filed.
 *
 * PyTorch's dynamo exporter (torch 2.9 and later) names nodes flat ("node_linear_1")
 * and records the module each came from in its metadata_props: that module path is
 * its scope, and the group says the module's class. The TorchScript exporter put the
 * scope in the name ("/layers.0/self_attn/MatMul").
 *
 * Exporters other than PyTorch (paddle2onnx's "p2o.Conv.0", tf2onnx) name nodes flat,
 * so everything lands in one group and one dot run: 3,200 such nodes take about 30 s
 * where the same graph with scopes takes 0.3 s. A large flat graph is cut into blocks
 * of consecutive nodes in file order (exporters write nodes in topological order),
 * each cut where the fewest tensors cross it, so that a block is a stretch of the
 * network and reads as one. Small flat graphs stay flat: dot lays a few hundred nodes
 * out fast, and one picture reads better than blocks. */
#include "onyx-layout-private.h"

#include <string.h>

#include "onyx-metadata.h"
#include "onyx-name-family.h"
#include "onyx-torch-names.h"
#include "onyx-types.h"
#include "onyx-text.h"

/* "/layers.0/self_attn/MatMul" → "layers.0/self_attn"; "" when unscoped. */
static char *
scope_of_name (const char *name)
{
  const char *start, *last;

  if (name == NULL)
    return g_strdup ("");
  start = name[0] == '/' ? name + 1 : name;
  last = strrchr (start, '/');
  return last != NULL && last > start ? g_strndup (start, last - start) : g_strdup ("");
}

/* What a part of a name scope stands for: torch 2.1–2.4's inlined functions name
 * their scopes after the calls ("…_Speech2Text2DecoderLayer_model_decoder_layers_0_1_38"). */
typedef struct {
  char *part;    /* in the group's path: the module path ("model.decoder.layers.0"),
                  * "#2" after it for the module's second call; else the part itself */
  char *title;   /* the group's title, escaped; NULL: the part's own */
} ScopePart;

static void
scope_part_free (ScopePart *part)
{
  g_free (part->part);
  g_free (part->title);
  g_free (part);
}

static OnyxTorchModules *
torch_modules (OnyxLayoutEngine *engine)
{
  if (engine->torch_modules == NULL)
    {
      engine->torch_modules = onyx_torch_modules_new ();
      onyx_torch_modules_add_graph (engine->torch_modules, engine->graph);
      for (guint i = 0; engine->enclosing != NULL && i < engine->enclosing->len; i++)
        onyx_torch_modules_add_graph (engine->torch_modules, engine->enclosing->pdata[i]);
    }
  return engine->torch_modules;
}

static const ScopePart *
scope_part (OnyxLayoutEngine *engine, const char *text)
{
  ScopePart *part;
  OnyxTorchCall call = { NULL };
  g_autofree char *function = NULL;

  if (engine->scope_parts == NULL)
    engine->scope_parts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) scope_part_free);
  else if ((part = g_hash_table_lookup (engine->scope_parts, text)) != NULL)
    return part;
  part = g_new0 (ScopePart, 1);
  if (onyx_torch_call_parse (torch_modules (engine), text, 2, &call))
    {
      g_autofree char *label = onyx_torch_call_label (&call);
      /* A module called twice is two calls: two groups, titled alike. */
      part->part = call.call > 1 ? g_strdup_printf ("%s#%u", call.path, call.call) : g_strdup (call.path);
      part->title = onyx_display_escape (label);
      onyx_torch_call_clear (&call);
    }
  else if ((function = onyx_torch_op_call_function (text)) != NULL)
    {
      part->part = g_strdup (text);
      part->title = onyx_display_escape (function);
    }
  else
    part->part = g_strdup (text);
  g_hash_table_insert (engine->scope_parts, g_strdup (text), part);
  return part;
}

/* The scope with torch's call names read as module paths, their groups' titles
 * noted in engine->module_labels. */
static char *
read_torch_scope (OnyxLayoutEngine *engine, char *scope)
{
  g_auto (GStrv) parts = NULL;
  GString *path;

  /* Most scopes ("layers.0/self_attn") have nothing of torch's to read. */
  if (strchr (scope, '_') == NULL)
    return scope;
  parts = g_strsplit (scope, "/", -1);
  path = g_string_new (NULL);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      const ScopePart *part = scope_part (engine, parts[i]);
      g_string_append_printf (path, "%s%s", i > 0 ? "/" : "", part->part);
      if (part->title != NULL && !g_hash_table_contains (engine->module_labels, path->str))
        g_hash_table_insert (engine->module_labels, g_strdup (path->str), g_strdup (part->title));
    }
  g_free (scope);
  return g_string_free (path, FALSE);
}

char *
onyx_layout_torch_call_title (OnyxLayoutEngine *engine, const char *op_type)
{
  OnyxTorchCall call = { NULL };
  g_autofree char *label = NULL;

  if (!onyx_torch_call_parse (torch_modules (engine), op_type, 1, &call))
    return NULL;
  label = onyx_torch_call_label (&call);
  onyx_torch_call_clear (&call);
  return onyx_layout_cut_title (onyx_display_escape (label));
}

char *
onyx_layout_node_scope (OnyxLayoutEngine *engine, const Onnx__NodeProto *node, gboolean *in_module)
{
  g_autoptr (OnyxModuleInfo) info = onyx_module_info_new_for_node (node, FALSE);
  GString *scope;

  *in_module = info != NULL;
  /* The exporter's own record of the module comes first. */
  if (info == NULL)
    return read_torch_scope (engine, scope_of_name (node->name));
  /* Module names are Python attribute paths ("network.0"): they hold no '/'. */
  scope = g_string_new (NULL);
  for (guint depth = 0; info->path[depth] != NULL; depth++)
    {
      g_string_append_printf (scope, "%s%s", depth > 0 ? "/" : "", info->path[depth]);
      if (!g_hash_table_contains (engine->module_labels, scope->str))
        {
          g_autofree char *label = onyx_module_info_label (info, depth);
          g_hash_table_insert (engine->module_labels, g_strdup (scope->str), onyx_display_escape (label));
        }
    }
  return g_string_free (scope, FALSE);
}

/* Below this many nodes a flat graph stays one group. */
#define FLAT_GRAPH_MIN_NODES 800
/* Blocks of about this many nodes, cut within ±40 % of it. */
#define BLOCK_NODES 120

/* TRUE when (nearly) no node carries a scope: a few scoped nodes among thousands of
 * flat ones do not make a structure. */
static gboolean
is_flat (OnyxLayoutEngine *engine, guint *n_ops)
{
  guint scoped = 0;

  *n_ops = 0;
  for (guint i = 0; i < engine->items->len; i++)
    {
      const Item *item = &g_array_index (engine->items, Item, i);
      if (item->kind != ONYX_LAYOUT_OP)
        continue;
      (*n_ops)++;
      /* A node at the top of its module tree has a place too. */
      scoped += item->scope[0] != '\0' || item->in_module;
    }
  return scoped * 20 < *n_ops;
}

/* Nodes that read no other node (Constants, mostly): wherever the file puts them,
 * they belong with what reads them, and do not count as crossing a cut. */
static gboolean *
sources (OnyxLayoutEngine *engine, guint n)
{
  gboolean *source = g_new (gboolean, n + 1);

  for (guint i = 0; i <= n; i++)
    source[i] = TRUE;
  for (guint e = 0; e < engine->edges->len; e++)
    {
      const ItemEdge *edge = &g_array_index (engine->edges, ItemEdge, e);
      const Item *from = &g_array_index (engine->items, Item, edge->from);
      const Item *to = &g_array_index (engine->items, Item, edge->to);
      if (from->kind == ONYX_LAYOUT_OP && to->kind == ONYX_LAYOUT_OP && (guint) to->index < n)
        source[to->index] = FALSE;
    }
  return source;
}

/* crossing[i]: tensors made before node i and read at or after it (0 < i < n). */
static guint *
crossings (OnyxLayoutEngine *engine, guint n, const gboolean *source)
{
  g_autofree int *delta = g_new0 (int, n + 1);
  guint *crossing = g_new0 (guint, n + 1);
  int running = 0;

  for (guint e = 0; e < engine->edges->len; e++)
    {
      const ItemEdge *edge = &g_array_index (engine->edges, ItemEdge, e);
      const Item *from = &g_array_index (engine->items, Item, edge->from);
      const Item *to = &g_array_index (engine->items, Item, edge->to);
      if (from->kind != ONYX_LAYOUT_OP || to->kind != ONYX_LAYOUT_OP || from->index >= to->index ||
          source[from->index])
        continue;
      /* Crosses every cut i with from < i <= to. */
      delta[from->index + 1]++;
      delta[to->index + 1]--;
    }
  for (guint i = 0; i <= n; i++)
    {
      running += delta[i];
      crossing[i] = (guint) MAX (running, 0);
    }
  return crossing;
}

void
onyx_layout_scope_flat_blocks (OnyxLayoutEngine *engine)
{
  guint n_ops, n = (guint) engine->graph->n_node;
  g_autofree guint *crossing = NULL;
  g_autofree guint *block_of = NULL;
  g_autofree gboolean *source = NULL;
  g_autoptr (GArray) starts = g_array_new (FALSE, FALSE, sizeof (guint));
  guint start = 0;

  if (n < FLAT_GRAPH_MIN_NODES || !is_flat (engine, &n_ops) || n_ops < FLAT_GRAPH_MIN_NODES)
    return;
  source = sources (engine, n);
  crossing = crossings (engine, n, source);
  block_of = g_new0 (guint, n);
  while (start < n)
    {
      guint low = start + BLOCK_NODES * 6 / 10, high = start + BLOCK_NODES * 14 / 10;
      guint cut = n;
      g_array_append_val (starts, start);
      if (high < n)
        {
          /* Fewest crossings; on a tie, the nearest to a block's size. */
          cut = low;
          for (guint i = low; i <= high; i++)
            if (crossing[i] < crossing[cut] ||
                (crossing[i] == crossing[cut] &&
                 ABS ((int) i - (int) (start + BLOCK_NODES)) < ABS ((int) cut - (int) (start + BLOCK_NODES))))
              cut = i;
        }
      for (guint i = start; i < cut; i++)
        block_of[i] = starts->len - 1;
      start = cut;
    }
  /* A source joins the earliest block that reads it. */
  {
    g_autofree guint *reader_block = g_new (guint, n);
    for (guint i = 0; i < n; i++)
      reader_block[i] = G_MAXUINT;
    for (guint e = 0; e < engine->edges->len; e++)
      {
        const ItemEdge *edge = &g_array_index (engine->edges, ItemEdge, e);
        const Item *from = &g_array_index (engine->items, Item, edge->from);
        const Item *to = &g_array_index (engine->items, Item, edge->to);
        if (from->kind == ONYX_LAYOUT_OP && to->kind == ONYX_LAYOUT_OP &&
            (guint) from->index < n && (guint) to->index < n && source[from->index])
          reader_block[from->index] = MIN (reader_block[from->index], block_of[to->index]);
      }
    for (guint i = 0; i < n; i++)
      if (reader_block[i] != G_MAXUINT)
        block_of[i] = reader_block[i];
  }
  for (guint t = 0; t < engine->items->len; t++)
    {
      Item *item = &g_array_index (engine->items, Item, t);
      guint block, first, last;
      if (item->kind != ONYX_LAYOUT_OP || item->scope[0] != '\0' || (guint) item->index >= n)
        continue;
      block = block_of[item->index];
      first = g_array_index (starts, guint, block);
      last = block + 1 < starts->len ? g_array_index (starts, guint, block + 1) : n;
      g_free (item->scope);
      /* Named by the positions it spans, as `onyx-cli nodes` numbers them. */
      item->scope = g_strdup_printf ("nodes %u–%u", first, last - 1);
    }
}

/* Inputs or outputs gathered into the groups that use them come in families of at
 * least this many ("past_key_values.0.key" … "past_key_values.31.value"). */
#define FAMILY_MIN_MEMBERS 4

/* `scope` cut back to the path it shares with `other`, whole components only:
 * "model/layers.5/attn" and "model/layers.5/mlp" share "model/layers.5". */
static void
keep_common_path (char *scope, const char *other)
{
  gsize k = 0, cut = 0;

  while (scope[k] != '\0' && scope[k] == other[k])
    k++;
  if ((scope[k] == '\0' || scope[k] == '/') && (other[k] == '\0' || other[k] == '/'))
    cut = k;
  else
    for (gsize i = 0; i < k; i++)
      if (scope[i] == '/')
        cut = i;
  scope[cut] = '\0';
}

/* Marks in `in_family` the items of `kind` whose names are one of a family of at
 * least FAMILY_MIN_MEMBERS (onyx-name-family.h): a KV cache's, not a CNN's one input. */
static void
mark_families (OnyxLayoutEngine *engine, OnyxLayoutKind kind, gboolean *in_family)
{
  g_autoptr (GArray) items = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GArray) families = NULL;

  for (guint t = 0; t < engine->items->len; t++)
    {
      const Item *item = &g_array_index (engine->items, Item, t);
      const Onnx__ValueInfoProto *info = NULL;
      if (item->kind != kind)
        continue;
      info = kind == ONYX_LAYOUT_INPUT ? engine->graph->input[item->index] : engine->graph->output[item->index];
      g_array_append_val (items, t);
      g_ptr_array_add (names, info->name != NULL ? info->name : "");
    }
  families = onyx_name_families ((const char *const *) names->pdata, names->len, FAMILY_MIN_MEMBERS);
  for (guint f = 0; f < families->len; f++)
    {
      const OnyxNameFamily *family = &g_array_index (families, OnyxNameFamily, f);
      for (guint i = family->first; family->title != NULL && i < family->first + family->n; i++)
        in_family[g_array_index (items, guint, i)] = TRUE;
    }
}

void
onyx_layout_scope_graph_values (OnyxLayoutEngine *engine)
{
  g_autofree char **common = g_new0 (char *, MAX (engine->items->len, 1));
  g_autofree gboolean *in_family = g_new0 (gboolean, MAX (engine->items->len, 1));

  mark_families (engine, ONYX_LAYOUT_INPUT, in_family);
  mark_families (engine, ONYX_LAYOUT_OUTPUT, in_family);

  /* A decoder's 64 KV-cache inputs and outputs then sit beside their layers; the
   * picture is no longer wider than the network. */
  for (guint e = 0; e < engine->edges->len; e++)
    {
      const ItemEdge *edge = &g_array_index (engine->edges, ItemEdge, e);
      const Item *from = &g_array_index (engine->items, Item, edge->from);
      const Item *to = &g_array_index (engine->items, Item, edge->to);
      int value = from->kind == ONYX_LAYOUT_INPUT ? edge->from : to->kind == ONYX_LAYOUT_OUTPUT ? edge->to : -1;
      const char *scope = value == edge->from ? to->scope : from->scope;

      if (value < 0 || !in_family[value])
        continue;
      if (common[value] == NULL)
        common[value] = g_strdup (scope);
      else
        keep_common_path (common[value], scope);
    }
  for (guint t = 0; t < engine->items->len; t++)
    {
      Item *item = &g_array_index (engine->items, Item, t);
      if (common[t] != NULL && common[t][0] != '\0')
        {
          g_free (item->scope);
          item->scope = g_steal_pointer (&common[t]);
        }
      g_free (common[t]);
    }
}
