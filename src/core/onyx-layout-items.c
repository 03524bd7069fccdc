/* onyx-layout-items.c: what gets a box. The engine's model of the graph: one item
 * per node, graph input and output (and, in a subgraph, per name read from outside),
 * sized for its text; the edges between them; and the tree of name-scope groups that
 * the items are filed under. */
#include "onyx-layout-private.h"

#include <pango/pangocairo.h>
#include <string.h>

#include "onyx-attribute.h"
#include "onyx-graph-index.h"
#include "onyx-schema.h"
#include "onyx-tensor-values.h"
#include "onyx-types.h"
#include "onyx-validate.h"
#include "onyx-text.h"

#define LINE_HEIGHT 15.0
#define HEADER_HEIGHT 22.0
/* An edge label's room: its text's width and a little, one line of the small font
 * (LABEL_HEIGHT), and a mark's row under it. */
#define LABEL_PAD 4.0

/* Text widths by font and text. Shaping is most of what building the model costs,
 * and a graph has few distinct texts: 12k nodes show a few dozen op types and lines.
 * Kept per thread between builds, on the thread's own default font map (Pango's font
 * maps are not to be shared between threads; the drawing's is that one too): a new
 * font map loads fontconfig's setup and the fonts again, 2 ms of each edit's rebuild,
 * and an edit's graph shows the texts its last one did. */
typedef struct {
  PangoContext *context;
  PangoLayout *layouts[2];  /* by font: regular, bold */
  GHashTable *widths[2];    /* by font: text → pixel width + 1 */
} TextWidths;

/* Past this many texts in a font (node names are most of them), the next build starts
 * afresh: what a thread keeps between builds stays some 3 MB a font. */
#define MAX_KEPT_WIDTHS 30000

void
onyx_layout_text_context_setup (PangoContext *context)
{
  cairo_font_options_t *options = cairo_font_options_create ();

  /* Hinted metrics round each glyph's advance to whole device pixels: at 50 % or
   * 70 % a text grows past the width it was measured at and is cut short. */
  cairo_font_options_set_hint_metrics (options, CAIRO_HINT_METRICS_OFF);
  pango_cairo_context_set_font_options (context, options);
  cairo_font_options_destroy (options);
}

static void
text_widths_free (gpointer data)
{
  TextWidths *widths = data;

  for (guint f = 0; f < 2; f++)
    {
      g_object_unref (widths->layouts[f]);
      g_hash_table_unref (widths->widths[f]);
    }
  g_object_unref (widths->context);
  g_free (widths);
}

static GPrivate kept_text_widths = G_PRIVATE_INIT (text_widths_free);

/* This thread's measurer. */
static TextWidths *
text_widths_get (void)
{
  const char *fonts[2] = { "Sans 8", "Sans Bold 9" };
  TextWidths *widths = g_private_get (&kept_text_widths);

  if (widths != NULL)
    {
      for (guint f = 0; f < 2; f++)
        if (g_hash_table_size (widths->widths[f]) > MAX_KEPT_WIDTHS)
          g_hash_table_remove_all (widths->widths[f]);
      return widths;
    }
  widths = g_new0 (TextWidths, 1);
  widths->context = pango_font_map_create_context (pango_cairo_font_map_get_default ());
  onyx_layout_text_context_setup (widths->context);
  for (guint f = 0; f < 2; f++)
    {
      PangoFontDescription *font = pango_font_description_from_string (fonts[f]);
      widths->layouts[f] = pango_layout_new (widths->context);
      pango_layout_set_font_description (widths->layouts[f], font);
      pango_font_description_free (font);
      widths->widths[f] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    }
  g_private_set (&kept_text_widths, widths);
  return widths;
}

static void
measure (TextWidths *widths, const char *text, gboolean bold, double *width)
{
  gpointer known = g_hash_table_lookup (widths->widths[bold], text);
  int w, h;

  if (known != NULL)
    w = GPOINTER_TO_INT (known) - 1;
  else
    {
      pango_layout_set_text (widths->layouts[bold], text, -1);
      pango_layout_get_pixel_size (widths->layouts[bold], &w, &h);
      g_hash_table_insert (widths->widths[bold], g_strdup (text), GINT_TO_POINTER (w + 1));
    }
  *width = MAX (*width, (double) w);
}

/* A stub box's width: its title in bold, and room around it. */
static double
stub_width (TextWidths *widths, const char *title)
{
  double width = 0;

  measure (widths, title, TRUE, &width);
  return width + 20;
}

static void
size_item (Item *item, TextWidths *widths)
{
  double width = 0;

  measure (widths, item->title, TRUE, &width);
  if (item->subtitle != NULL)
    measure (widths, item->subtitle, FALSE, &width);
  for (guint i = 0; i < item->lines->len; i++)
    measure (widths, item->lines->pdata[i], FALSE, &width);
  item->width = MAX (width + 20, 64);
  /* An op with nothing to list under its header (Relu, Add) is the header alone. */
  if (item->kind == ONYX_LAYOUT_OP && item->lines->len == 0 && item->subtitle == NULL)
    item->height = HEADER_HEIGHT;
  else
    item->height = HEADER_HEIGHT + LINE_HEIGHT * (item->lines->len + (item->subtitle != NULL ? 1 : 0)) + 6;
}

static guint
hash_strings (guint hash, char **strings, size_t n)
{
  for (size_t i = 0; i < n; i++)
    hash = hash * 31 + g_str_hash (strings[i] != NULL ? strings[i] : "");
  return hash;
}

/* What the node's subgraphs read from outside themselves and the node does not read
 * as an input (each once); NULL for a node without subgraphs. */
static gboolean
has_subgraphs (const Onnx__NodeProto *node)
{
  for (size_t a = 0; a < node->n_attribute; a++)
    if (node->attribute[a]->g != NULL || node->attribute[a]->n_graphs > 0)
      return TRUE;
  return FALSE;
}

static GPtrArray *
implicit_reads (const Onnx__NodeProto *node)
{
  g_autoptr (GPtrArray) names = NULL;
  g_autoptr (GHashTable) inputs = NULL;
  GPtrArray *implicit;

  /* Most nodes have none: spare them the arrays and the table. */
  if (!has_subgraphs (node))
    return NULL;
  names = onyx_node_implicit_reads (node);
  if (names->len == 0)
    return NULL;
  inputs = g_hash_table_new (g_str_hash, g_str_equal);
  for (size_t k = 0; k < node->n_input; k++)
    if (node->input[k] != NULL)
      g_hash_table_add (inputs, node->input[k]);
  implicit = g_ptr_array_new ();
  for (guint i = 0; i < names->len; i++)
    if (!g_hash_table_contains (inputs, names->pdata[i]))
      g_ptr_array_add (implicit, names->pdata[i]);
  return implicit;
}

/* What an item shows of its op type, the same for every node of one op type and
 * domain: looked up once per build (`op_kinds`: op type → OpKind chain by domain). */
typedef struct _OpKind OpKind;
struct _OpKind {
  const char *domain;     /* the graph's */
  char *title;
  OnyxCategory category;
  const OnyxSchema *schema;
  OpKind *next;           /* same op type, another domain */
};

static void
op_kind_free (OpKind *kind)
{
  while (kind != NULL)
    {
      OpKind *next = kind->next;
      g_free (kind->title);
      g_free (kind);
      kind = next;
    }
}

static GHashTable *
op_kinds_new (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) op_kind_free);
}

/* Of `node`'s op type and domain; owned by `op_kinds`, or by `unshared` for a node
 * without an op type. */
static const OpKind *
op_kind_of (OnyxLayoutEngine *engine, GHashTable *op_kinds, const Onnx__NodeProto *node, OpKind *unshared)
{
  OpKind *first = node->op_type != NULL ? g_hash_table_lookup (op_kinds, node->op_type) : NULL;
  OpKind *kind;

  for (kind = first; kind != NULL; kind = kind->next)
    if (g_strcmp0 (kind->domain, node->domain) == 0)
      return kind;
  kind = node->op_type != NULL ? g_new0 (OpKind, 1) : unshared;
  kind->domain = node->domain;
  /* A call of a torch module's function says which module it is. */
  if (onyx_domain_is_standard (node->domain) ||
      (kind->title = onyx_layout_torch_call_title (engine, node->op_type)) == NULL)
    kind->title = onyx_display_escape (node->op_type);
  kind->category = onyx_category_of (node->domain, node->op_type);
  /* The engine has no opset imports: the newest schema names the slots (Conv's W and
   * B), which is what people look for; slot names hardly change across versions. */
  kind->schema = onyx_schema_lookup (node->domain, node->op_type, G_MAXINT64);
  if (node->op_type != NULL)
    {
      kind->next = first;
      g_hash_table_steal (op_kinds, node->op_type);
      g_hash_table_insert (op_kinds, node->op_type, kind);
    }
  return kind;
}

static void
add_op_item (OnyxLayoutEngine *engine, int index, const Folding *folding, GPtrArray *implicit, GHashTable *op_kinds)
{
  const Onnx__NodeProto *node = engine->graph->node[index];
  Item item = { ONYX_LAYOUT_OP, index };
  OpKind unshared = { NULL };
  const OpKind *kind = op_kind_of (engine, op_kinds, node, &unshared);
  const OnyxSchema *schema = kind->schema;

  item.scope = onyx_layout_node_scope (engine, node, &item.in_module);
  item.title = kind == &unshared ? g_steal_pointer (&unshared.title) : g_strdup (kind->title);
  /* Quantized, it says in which types it runs ("Conv · uint8/int8 → uint8"). */
  if (engine->fold_quant)
    {
      char *quantized = onyx_layout_quant_title (folding, (guint) index, item.title);
      if (quantized != NULL)
        g_free (g_steal_pointer (&item.title)), item.title = quantized;
    }
  item.subtitle = onyx_domain_is_default (node->domain) ? NULL : onyx_display_escape (node->domain);
  item.category = kind->category;
  onyx_layout_op_lines (folding, &item, schema);
  item.hash = g_str_hash (node->op_type != NULL ? node->op_type : "");
  item.hash = hash_strings (item.hash, node->input, node->n_input);
  item.hash = hash_strings (item.hash, node->output, node->n_output);
  item.hash = hash_strings (item.hash, (char **) item.lines->pdata, item.lines->len);
  /* What its subgraphs read are edges into it too: an edit in a branch that changes
   * them lays out the group holding the node again. */
  if (implicit != NULL)
    item.hash = hash_strings (item.hash * 17, (char **) implicit->pdata, implicit->len);
  g_array_append_val (engine->items, item);
}

static void
add_value_item (OnyxLayoutEngine *engine, OnyxLayoutKind kind, int index, const Onnx__ValueInfoProto *info)
{
  Item item = { kind, index };

  item.scope = g_strdup ("");
  item.title = onyx_layout_shorten (info->name);
  item.subtitle = onyx_type_to_brief_string (info->type);
  {
    /* Whole: the box may cut the name and dims. */
    g_autofree char *name = onyx_display_escape (info->name);
    g_autofree char *type = onyx_type_to_string (info->type);
    item.details = g_strdup_printf ("%s\n%s", name, type);
  }
  item.lines = g_ptr_array_new_with_free_func (g_free);
  item.line_nodes = g_array_new (FALSE, FALSE, sizeof (int));
  item.category = ONYX_CATEGORY_DEFAULT;
  item.hash = g_str_hash (info->name != NULL ? info->name : "") * 7 + (guint) kind;
  g_array_append_val (engine->items, item);
}

static void
add_outer_item (OnyxLayoutEngine *engine, const char *name)
{
  Item item = { ONYX_LAYOUT_OUTER, (int) engine->outer_names->len };

  g_ptr_array_add (engine->outer_names, (gpointer) name);
  item.scope = g_strdup ("");
  item.title = onyx_layout_shorten (name);
  item.subtitle = g_strdup ("from outside");
  item.details = onyx_display_escape (name);
  item.lines = g_ptr_array_new_with_free_func (g_free);
  item.line_nodes = g_array_new (FALSE, FALSE, sizeof (int));
  item.category = ONYX_CATEGORY_DEFAULT;
  item.hash = g_str_hash (name) * 7 + (guint) ONYX_LAYOUT_OUTER;
  g_array_append_val (engine->items, item);
}

/* Sorts the names a subgraph reads from outside (each once, in reading order): those
 * an enclosing graph holds as initializers go to `initializers`, to show on their
 * readers as in the main graph; the others that some graph around defines to
 * `values`. The nearest graph that defines a name decides what it is. */
static void
resolve_outer_reads (OnyxLayoutEngine *engine, GHashTable *initializers, GPtrArray *values)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GHashTable) unresolved = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) as_initializer = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  onyx_graph_collect_outer_reads (engine->graph, names);
  for (guint i = 0; i < names->len; i++)
    g_hash_table_add (unresolved, names->pdata[i]);
  for (guint e = 0; e < engine->enclosing->len && g_hash_table_size (unresolved) > 0; e++)
    {
      const Onnx__GraphProto *outer = engine->enclosing->pdata[e];
      for (size_t i = 0; i < outer->n_initializer; i++)
        if (outer->initializer[i]->name != NULL && g_hash_table_remove (unresolved, outer->initializer[i]->name))
          g_hash_table_insert (as_initializer, outer->initializer[i]->name, outer->initializer[i]);
      for (size_t i = 0; i < outer->n_input; i++)
        if (outer->input[i]->name != NULL)
          g_hash_table_remove (unresolved, outer->input[i]->name);
      for (size_t n = 0; n < outer->n_node; n++)
        for (size_t k = 0; k < outer->node[n]->n_output; k++)
          g_hash_table_remove (unresolved, outer->node[n]->output[k]);
    }
  for (guint i = 0; i < names->len; i++)
    {
      const Onnx__TensorProto *init = g_hash_table_lookup (as_initializer, names->pdata[i]);
      if (init != NULL)
        g_hash_table_insert (initializers, init->name, (gpointer) init);
      /* A name no graph around defines dangles, as it would in the main graph. */
      else if (!g_hash_table_contains (unresolved, names->pdata[i]) &&
               g_hash_table_add (seen, names->pdata[i]))
        g_ptr_array_add (values, names->pdata[i]);
    }
}

static void
item_clear (Item *item)
{
  g_free (item->scope);
  g_free (item->title);
  g_free (item->subtitle);
  g_ptr_array_unref (item->lines);
  g_array_unref (item->line_nodes);
  g_free (item->details);
  g_free (item->fanout_label);
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
  g_clear_pointer (&engine->stacks, g_ptr_array_unref);
  g_clear_pointer (&engine->module_labels, g_hash_table_unref);
  g_clear_pointer (&engine->torch_modules, onyx_torch_modules_free);
  g_clear_pointer (&engine->scope_parts, g_hash_table_unref);
  g_clear_pointer (&engine->shapes, g_hash_table_unref);
  g_clear_pointer (&engine->outer_names, g_ptr_array_unref);
  g_clear_pointer (&engine->marks, g_hash_table_unref);
  g_clear_pointer (&engine->item_of_node, g_free);
  g_clear_pointer (&engine->folded_into, g_free);
}

static void
edge_label_free (EdgeLabel *label)
{
  g_free (label->shape);
  g_free (label->text);
  g_free (label);
}

static void
put_shape (GHashTable *shapes, const char *tensor, const Onnx__TensorShapeProto *shape)
{
  EdgeLabel *label = g_new0 (EdgeLabel, 1);
  label->shape = onyx_shape_to_string (shape);
  label->text = onyx_shape_to_brief_string (shape);
  g_hash_table_insert (shapes, (gpointer) tensor, label);
}

static void
record_shape (GHashTable *shapes, const Onnx__ValueInfoProto *info)
{
  if (info->type != NULL && info->type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
      info->type->tensor_type->shape != NULL && info->name != NULL)
    put_shape (shapes, info->name, info->type->tensor_type->shape);
}

/* Sizes the labels not yet measured, and hashes each item's incoming labels into the
 * groups' hashes: a label dot must make room for changes the group's layout. */
static void
measure_labels (OnyxLayoutEngine *engine, TextWidths *widths)
{
  GHashTableIter iter;
  EdgeLabel *label;
  gpointer tensor;
  QuantMark *mark;

  /* A tensor that passed a folded quantization has a mark under its shape, or alone. */
  g_hash_table_iter_init (&iter, engine->marks);
  while (g_hash_table_iter_next (&iter, &tensor, (gpointer *) &mark))
    {
      label = g_hash_table_lookup (engine->shapes, tensor);
      if (label == NULL)
        {
          /* Its shape is that of the tensor quantized, where only that one is known. */
          const EdgeLabel *source = g_hash_table_lookup (engine->shapes, mark->source);
          label = g_new0 (EdgeLabel, 1);
          label->shape = source != NULL ? g_strdup (source->shape) : NULL;
          label->text = g_strdup (source != NULL ? source->text : "");
          g_hash_table_insert (engine->shapes, tensor, label);
        }
      if (label->mark != mark)
        label->mark = mark, label->width = 0;
    }
  g_hash_table_iter_init (&iter, engine->shapes);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &label))
    if (label->width == 0 && (label->text[0] != '\0' || label->mark != NULL))
      {
        label->height = 0;
        if (label->text[0] != '\0')
          {
            measure (widths, label->text, FALSE, &label->width);
            label->height = LABEL_HEIGHT;
          }
        if (label->mark != NULL)
          {
            measure (widths, label->mark->text, FALSE, &label->mark_width);
            label->mark_width += 2 * ONYX_LAYOUT_MARK_PAD;
            label->width = MAX (label->width, label->mark_width);
            label->height += MARK_HEIGHT;
          }
        label->width += LABEL_PAD;
      }
  for (guint t = 0; t < engine->items->len; t++)
    g_array_index (engine->items, Item, t).label_hash = 0;
  for (guint e = 0; e < engine->edges->len; e++)
    {
      const ItemEdge *edge = &g_array_index (engine->edges, ItemEdge, e);
      const EdgeLabel *shown = onyx_layout_edge_label (engine, edge->tensor);
      Item *to = &g_array_index (engine->items, Item, edge->to);
      to->label_hash = to->label_hash * 31 + (shown != NULL ? g_str_hash (shown->text) : 1);
      if (shown != NULL && shown->mark != NULL)
        to->label_hash = to->label_hash * 31 + g_str_hash (shown->mark->text);
    }
  onyx_layout_count_groups (engine);
  onyx_layout_count_stacks (engine);
}

const EdgeLabel *
onyx_layout_edge_label (OnyxLayoutEngine *engine, const char *tensor)
{
  const EdgeLabel *label = tensor != NULL ? g_hash_table_lookup (engine->shapes, tensor) : NULL;
  return label != NULL && label->width > 0 ? label : NULL;
}

void
onyx_layout_engine_set_shapes (OnyxLayoutEngine *engine, OnyxShapes *shapes)
{
  for (guint e = 0; shapes != NULL && e < engine->edges->len; e++)
    {
      const char *tensor = g_array_index (engine->edges, ItemEdge, e).tensor;
      const Onnx__TypeProto *type = tensor != NULL ? onyx_shapes_lookup (shapes, engine->graph, tensor, NULL)
                                                   : NULL;
      if (type != NULL && type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
          type->tensor_type->shape != NULL)
        put_shape (engine->shapes, tensor, type->tensor_type->shape);
    }
  measure_labels (engine, text_widths_get ());
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
      /* Module metadata says where a node is: it stays there. */
      if (item->kind == ONYX_LAYOUT_OP && item->scope[0] == '\0' && !item->in_module && !fed[t] &&
          readers_scope[t] != NULL)
        {
          g_free (item->scope);
          item->scope = g_steal_pointer (&readers_scope[t]);
        }
      g_free (readers_scope[t]);
    }
}

/* The tensor whose producer's box draws `name`: itself, or what a folded quantization
 * (or a chain of them) made it of. */
static const char *
resolve_alias (const Folding *folding, const char *name)
{
  const char *to;

  for (guint steps = 0; steps < folding->graph->n_node && (to = g_hash_table_lookup (folding->aliases, name)) != NULL;
       steps++)
    name = to;
  return name;
}

/* Builds items, groups and edges from the graph (on the calling thread: text is
 * measured with pango here, not in the worker). */
static void
build_model (OnyxLayoutEngine *engine)
{
  const Onnx__GraphProto *graph = engine->graph;
  g_autoptr (GHashTable) initializers = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) producer = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GPtrArray) outer_values = g_ptr_array_new ();
  g_autofree GPtrArray **implicit = g_new0 (GPtrArray *, MAX (graph->n_node, 1));
  g_autoptr (GHashTable) op_kinds = op_kinds_new ();
  Folding *folding;
  const int *folded_into;
  TextWidths *widths = text_widths_get ();

  clear_model (engine);
  engine->items = g_array_new (FALSE, FALSE, sizeof (Item));
  engine->edges = g_array_new (FALSE, FALSE, sizeof (ItemEdge));
  engine->groups = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) onyx_layout_group_free);
  engine->module_labels = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  engine->shapes = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) edge_label_free);
  engine->outer_names = g_ptr_array_new ();
  engine->marks = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) onyx_layout_quant_mark_free);
  engine->root = onyx_layout_ensure_group (engine, "");

  if (engine->enclosing != NULL)
    {
      resolve_outer_reads (engine, initializers, outer_values);
      /* Shapes of what comes from outside, nearer graphs' last (they win). */
      for (guint e = engine->enclosing->len; e-- > 0;)
        {
          const Onnx__GraphProto *outer = engine->enclosing->pdata[e];
          for (size_t i = 0; i < outer->n_value_info; i++)
            record_shape (engine->shapes, outer->value_info[i]);
          for (size_t i = 0; i < outer->n_input; i++)
            record_shape (engine->shapes, outer->input[i]);
        }
    }
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
  for (guint i = 0; i < outer_values->len; i++)
    {
      add_outer_item (engine, outer_values->pdata[i]);
      g_hash_table_insert (producer, outer_values->pdata[i], GINT_TO_POINTER (engine->items->len));
    }
  for (size_t i = 0; i < graph->n_output; i++)
    record_shape (engine->shapes, graph->output[i]);
  for (size_t n = 0; n < graph->n_node; n++)
    implicit[n] = implicit_reads (graph->node[n]);
  folding = onyx_layout_folding_new (engine, initializers, implicit);
  folded_into = folding->folded_into;
  engine->item_of_node = g_new (int, MAX (graph->n_node, 1));
  engine->n_item_of_node = graph->n_node;
  for (size_t n = 0; n < graph->n_node; n++)
    {
      /* Folded: no item, so no edges either. */
      if (folded_into[n] >= 0)
        continue;
      add_op_item (engine, (int) n, folding, implicit[n], op_kinds);
      engine->item_of_node[n] = (int) engine->items->len - 1;
      for (size_t k = 0; k < graph->node[n]->n_output; k++)
        if (graph->node[n]->output[k][0] != '\0')
          g_hash_table_insert (producer, graph->node[n]->output[k], GINT_TO_POINTER (engine->items->len));
    }
  for (size_t n = 0; n < graph->n_node; n++)
    if (folded_into[n] >= 0)
      {
        engine->item_of_node[n] = engine->item_of_node[folded_into[n]];
        /* What a folded node makes comes out of the box showing it (a dynamic chain's
         * output), but a mark's: its edges start where the tensor it quantizes does. */
        for (size_t k = 0; !folding->on_edge[n] && k < graph->node[n]->n_output; k++)
          if (graph->node[n]->output[k][0] != '\0')
            g_hash_table_insert (producer, graph->node[n]->output[k], GINT_TO_POINTER (engine->item_of_node[n] + 1));
      }
  for (size_t n = 0; n < graph->n_node; n++)
    for (size_t k = 0; folding->on_edge[n] && k < graph->node[n]->n_output; k++)
      {
        const char *from = resolve_alias (folding, graph->node[n]->output[k]);
        gpointer item = from != graph->node[n]->output[k] ? g_hash_table_lookup (producer, from) : NULL;
        if (item != NULL)
          g_hash_table_insert (producer, graph->node[n]->output[k], item);
      }
  for (size_t i = 0; i < graph->n_output; i++)
    add_value_item (engine, ONYX_LAYOUT_OUTPUT, (int) i, graph->output[i]);

  /* Edges: producer item → reader item (indices stored +1 in `producer`). */
  for (guint t = 0; t < engine->items->len; t++)
    {
      Item *item = &g_array_index (engine->items, Item, t);
      char **reads = NULL;
      size_t n_reads = 0, n_explicit;
      char *output_name[1];
      GPtrArray *implicit_of_item = NULL;

      if (item->kind == ONYX_LAYOUT_OP)
        {
          reads = graph->node[item->index]->input, n_reads = graph->node[item->index]->n_input;
          implicit_of_item = implicit[item->index];
        }
      else if (item->kind == ONYX_LAYOUT_OUTPUT)
        output_name[0] = graph->output[item->index]->name, reads = output_name, n_reads = 1;
      n_explicit = n_reads;
      if (implicit_of_item != NULL)
        n_reads += implicit_of_item->len;
      for (size_t k = 0; k < n_reads; k++)
        {
          const char *name = k < n_explicit ? reads[k] : implicit_of_item->pdata[k - n_explicit];
          int from = GPOINTER_TO_INT (g_hash_table_lookup (producer, name != NULL ? name : "")) - 1;
          if (from >= 0 && from != (int) t)
            {
              ItemEdge edge = { from, (int) t, g_strdup (name), k >= n_explicit };
              g_array_append_val (engine->edges, edge);
            }
        }
    }
  for (size_t n = 0; n < graph->n_node; n++)
    if (implicit[n] != NULL)
      g_ptr_array_unref (implicit[n]);
  engine->folded_into = onyx_layout_folding_free (folding);

  adopt_constants (engine);
  onyx_layout_scope_flat_blocks (engine);
  onyx_layout_scope_graph_values (engine);
  for (guint t = 0; t < engine->items->len; t++)
    {
      Item *item = &g_array_index (engine->items, Item, t);
      int index = (int) t;
      size_item (item, widths);
      item->group = onyx_layout_ensure_group (engine, item->scope);
      g_array_append_val (item->group->items, index);
    }
  onyx_layout_find_fanouts (engine);
  for (guint t = 0; t < engine->items->len; t++)
    {
      Item *item = &g_array_index (engine->items, Item, t);
      g_autofree char *title = item->fanout_label != NULL ? onyx_layout_fanout_title (item->fanout_label) : NULL;
      if (title != NULL)
        item->stub_width = stub_width (widths, title);
    }
  measure_labels (engine, widths);
  onyx_layout_find_stacks (engine);

  /* Collapsed group boxes: name and count. */
  {
    GHashTableIter iter;
    Group *group;
    g_hash_table_iter_init (&iter, engine->groups);
    while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &group))
      {
        g_autofree char *count = onyx_layout_group_count_text (group);
        g_autofree char *header = NULL;
        double width = 0, open_width = 0;
        measure (widths, group->name, TRUE, &width);
        measure (widths, count, FALSE, &width);
        group->collapsed_width = MAX (width + 24, 80);
        group->collapsed_height = HEADER_HEIGHT + LINE_HEIGHT + 8;
        /* Open, the header line says both in bold (onyx-render.c); a stack's also
         * which member it shows (the longest name) and has its step buttons. */
        if (group->members != NULL)
          {
            header = onyx_layout_group_header (
              group->name, count, onyx_layout_group_component (group->members->pdata[group->members->len - 1]));
            open_width = ONYX_LAYOUT_STACK_BUTTONS_WIDTH;
            /* The cards drawn behind a closed stack. */
            group->collapsed_width += 2 * ONYX_LAYOUT_STACK_CARD_OFFSET;
            group->collapsed_height += 2 * ONYX_LAYOUT_STACK_CARD_OFFSET;
            for (guint m = 0; m < group->members->len; m++)
              for (int from = 0; from <= 1; from++)
                {
                  Group *member = group->members->pdata[m];
                  g_autofree char *title = onyx_layout_stub_title (member, from);
                  member->stub_width[from] = stub_width (widths, title);
                }
          }
        else
          header = onyx_layout_group_header (group->name, count, NULL);
        measure (widths, header, TRUE, &open_width);
        group->open_min_width = open_width + 24;
      }
  }
}

OnyxLayoutEngine *
onyx_layout_engine_new (const Onnx__GraphProto *graph)
{
  return onyx_layout_engine_new_nested (graph, NULL);
}

OnyxLayoutEngine *
onyx_layout_engine_new_nested (const Onnx__GraphProto *graph, const Onnx__GraphProto *const *enclosing)
{
  OnyxLayoutEngine *engine = g_new0 (OnyxLayoutEngine, 1);

  engine->graph = graph;
  engine->fold_constants = TRUE;
  engine->fold_quant = TRUE;
  /* Only a subgraph reads from outside: in a top graph such a name is dangling. */
  if (enclosing != NULL && enclosing[0] != NULL)
    {
      engine->enclosing = g_ptr_array_new ();
      for (guint i = 0; enclosing[i] != NULL; i++)
        g_ptr_array_add (engine->enclosing, (gpointer) enclosing[i]);
    }
  onyx_layout_memory_cache_init (engine);
  onyx_layout_engine_set_disk_cache (engine, onyx_layout_disk_cache_get_default ());
  build_model (engine);
  return engine;
}

OnyxLayoutEngine *
onyx_layout_engine_new_for_entry (OnyxGraphList *list, const OnyxGraphEntry *entry)
{
  g_autoptr (GPtrArray) enclosing = g_ptr_array_new ();
  OnyxLayoutEngine *engine;

  for (int parent = entry->parent; parent >= 0;)
    {
      const OnyxGraphEntry *around = onyx_graph_list_get (list, (guint) parent);
      g_ptr_array_add (enclosing, around->graph);
      parent = around->parent;
    }
  g_ptr_array_add (enclosing, NULL);
  engine = onyx_layout_engine_new_nested (entry->graph, (const Onnx__GraphProto *const *) enclosing->pdata);
  /* A function's view belongs to the list; a subgraph is the model's own. */
  if (entry->function != NULL)
    engine->list = onyx_graph_list_ref (list);
  return engine;
}

void
onyx_layout_engine_graph_changed (OnyxLayoutEngine *engine)
{
  /* Cached group layouts stay: their keys hold their contents' hash. */
  build_model (engine);
}

void
onyx_layout_engine_set_fold_constants (OnyxLayoutEngine *engine, gboolean fold)
{
  if (engine->fold_constants == !!fold)
    return;
  engine->fold_constants = !!fold;
  build_model (engine);
}

gboolean
onyx_layout_engine_get_fold_constants (OnyxLayoutEngine *engine)
{
  return engine->fold_constants;
}

void
onyx_layout_engine_set_fold_quant (OnyxLayoutEngine *engine, gboolean fold)
{
  if (engine->fold_quant == !!fold)
    return;
  engine->fold_quant = !!fold;
  build_model (engine);
}

gboolean
onyx_layout_engine_get_fold_quant (OnyxLayoutEngine *engine)
{
  return engine->fold_quant;
}

int
onyx_layout_engine_folded_into (OnyxLayoutEngine *engine, guint node)
{
  return node < engine->n_item_of_node ? engine->folded_into[node] : -1;
}

const char *
onyx_layout_engine_node_scope (OnyxLayoutEngine *engine, guint node)
{
  if (node >= engine->n_item_of_node)
    return "";
  return g_array_index (engine->items, Item, engine->item_of_node[node]).scope;
}

const char *
onyx_layout_engine_outer_name (OnyxLayoutEngine *engine, int index)
{
  return index >= 0 && (guint) index < engine->outer_names->len ? engine->outer_names->pdata[index] : NULL;
}

void
onyx_layout_engine_free (OnyxLayoutEngine *engine)
{
  if (engine == NULL)
    return;
  clear_model (engine);
  onyx_layout_memory_cache_clear (engine);
  onyx_layout_engine_set_disk_cache (engine, NULL);
  if (engine->enclosing != NULL)
    g_ptr_array_unref (engine->enclosing);
  g_clear_pointer (&engine->list, onyx_graph_list_unref);
  g_free (engine);
}
