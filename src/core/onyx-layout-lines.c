/* onyx-layout-lines.c: what an op box lists under its header. Every attribute the
 * node writes (those that say what the op does first, by a small table per op type,
 * then the rest in the node's order), then its weights: initializers and folded
 * Constants by schema slot. A box holds MAX_BOX_LINES lines; past that its last line
 * says how many more there are, and the item's details (the canvas tooltip) hold
 * them all, uncut. Defaults the node does not write are not listed. */
#include "onyx-layout-private.h"

#include <string.h>

#include "onyx-attribute.h"
#include "onyx-schema.h"
#include "onyx-tensor-values.h"
#include "onyx-types.h"
#include "onyx-text.h"

/* Past this many characters a value is cut in the box (whole in the details). */
#define MAX_VALUE 24
#define MAX_NAME 28
#define MAX_SCALAR 12

/* The attributes that make the op what it is, in the order people look for them:
 * "group" is what makes a Conv depthwise, "to" is all a Cast says. */
typedef struct {
  const char *ops;    /* op types, space-separated */
  const char *first;  /* attribute names, space-separated */
} AttributeOrder;

static const AttributeOrder attribute_orders[] = {
  { "Conv ConvTranspose ConvInteger QLinearConv DeformConv",
    "group strides pads dilations kernel_shape auto_pad output_padding output_shape" },
  { "MaxPool AveragePool LpPool MaxRoiPool MaxUnpool",
    "kernel_shape strides pads dilations auto_pad ceil_mode count_include_pad p" },
  { "Cast CastLike EyeLike RandomNormal RandomUniform", "to dtype" },
  { "Transpose", "perm" },
  { "Resize Upsample", "mode coordinate_transformation_mode nearest_mode cubic_coeff_a antialias" },
  { "BatchNormalization InstanceNormalization LayerNormalization GroupNormalization",
    "epsilon axis num_groups momentum" },
  { "Gemm", "transA transB alpha beta" },
  { "LSTM GRU RNN", "hidden_size direction layout activations clip linear_before_reset input_forget" },
  { "Pad", "mode" },
  { "Einsum", "equation" },
};

/* For every op, after its own: what most of the rest are about. */
static const char *const common_first = "axis axes keepdims";

/* Written but saying only the default: left out like an unwritten one. */
static gboolean
is_silent (const Onnx__NodeProto *node, const Onnx__AttributeProto *attribute)
{
  return g_strcmp0 (node->op_type, "Reshape") == 0 && g_strcmp0 (attribute->name, "allowzero") == 0 &&
         attribute->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT && attribute->i == 0;
}

/* Where `name` stands in the space-separated `names`, or -1. */
static int
rank_in (const char *names, const char *name)
{
  gsize length = strlen (name);
  int rank = 0;

  for (const char *at = names; *at != '\0'; rank++)
    {
      const char *end = strchr (at, ' ');
      gsize word = end != NULL ? (gsize) (end - at) : strlen (at);
      if (word == length && strncmp (at, name, length) == 0)
        return rank;
      if (end == NULL)
        break;
      at = end + 1;
    }
  return -1;
}

static const char *
own_order (const char *op_type)
{
  for (guint i = 0; op_type != NULL && i < G_N_ELEMENTS (attribute_orders); i++)
    if (rank_in (attribute_orders[i].ops, op_type) >= 0)
      return attribute_orders[i].first;
  return NULL;
}

/* Sort key of an attribute: its op's own list, then the common one, then the node's order. */
static int
attribute_rank (const char *own, const Onnx__AttributeProto *attribute, size_t position)
{
  const char *name = attribute->name != NULL ? attribute->name : "";
  int rank = own != NULL ? rank_in (own, name) : -1;

  if (rank >= 0)
    return rank;
  rank = rank_in (common_first, name);
  if (rank >= 0)
    return 100 + rank;
  return 1000 + (int) position;
}

typedef struct {
  int rank;
  size_t position;
  const Onnx__AttributeProto *attribute;
} Ranked;

static int
compare_ranked (gconstpointer a, gconstpointer b)
{
  const Ranked *x = a, *y = b;
  if (x->rank != y->rank)
    return x->rank - y->rank;
  return x->position < y->position ? -1 : x->position > y->position;
}

guint
onyx_layout_n_attribute_lines (const Onnx__NodeProto *node)
{
  guint n = 0;
  for (size_t a = 0; a < node->n_attribute; a++)
    n += !is_silent (node, node->attribute[a]);
  return n;
}

gboolean
onyx_layout_line_shows (guint position, guint total)
{
  return total <= MAX_BOX_LINES || position + 1 < MAX_BOX_LINES;
}

/* `text` escaped, cut to `max` characters with "…" at the end. */
static char *
cut (const char *text, glong max)
{
  g_autofree char *shown = onyx_display_escape (text);
  if (g_utf8_strlen (shown, -1) <= max)
    return g_steal_pointer (&shown);
  return g_strdup_printf ("%.*s…", (int) (g_utf8_offset_to_pointer (shown, max - 1) - shown), shown);
}

char *
onyx_layout_shorten (const char *text)
{
  g_autofree char *shown = onyx_display_escape (text);
  if (g_utf8_strlen (shown, -1) <= MAX_NAME)
    return g_steal_pointer (&shown);
  /* Keep the end: "…layers.0.self_attn.in_proj_weight" tells more than the start. */
  return g_strdup_printf ("…%s", g_utf8_offset_to_pointer (shown, g_utf8_strlen (shown, -1) - (MAX_NAME - 1)));
}

char *
onyx_layout_cut_title (char *title)
{
  glong length = g_utf8_strlen (title, -1);
  const char *start, *dot, *class_at;
  char *cut;

  if (length <= MAX_GROUP_TITLE)
    return title;
  /* The end holds the class ("…self_attn.q_proj · Linear"); the start, a path the
   * groups around say already. Cut where a part of the path begins. */
  start = g_utf8_offset_to_pointer (title, length - (MAX_GROUP_TITLE - 1));
  dot = strchr (start, '.');
  class_at = strstr (start, " · ");
  if (dot != NULL && (class_at == NULL || dot < class_at) && dot[1] != '\0')
    start = dot + 1;
  cut = g_strdup_printf ("…%s", start);
  g_free (title);
  return cut;
}

/* Lines being gathered: shown text, the graph node each stands for, whole text. */
typedef struct {
  GPtrArray *lines;
  GArray *line_nodes;
  GString *details;
} Lines;

static void
add_line (Lines *lines, char *shown, int node, const char *whole)
{
  g_ptr_array_add (lines->lines, shown);
  g_array_append_val (lines->line_nodes, node);
  if (lines->details->len > 0)
    g_string_append_c (lines->details, '\n');
  g_string_append (lines->details, whole);
}

static void
add_attribute_lines (Lines *lines, const Onnx__NodeProto *node, const OnyxSchema *schema)
{
  const char *own = own_order (node->op_type);
  g_autoptr (GArray) ranked = g_array_new (FALSE, FALSE, sizeof (Ranked));

  for (size_t a = 0; a < node->n_attribute; a++)
    if (!is_silent (node, node->attribute[a]))
      {
        Ranked r = { attribute_rank (own, node->attribute[a], a), a, node->attribute[a] };
        g_array_append_val (ranked, r);
      }
  g_array_sort (ranked, compare_ranked);
  for (guint i = 0; i < ranked->len; i++)
    {
      const Onnx__AttributeProto *attribute = g_array_index (ranked, Ranked, i).attribute;
      g_autofree char *value = onyx_attribute_describe (attribute, schema);
      g_autofree char *name = onyx_display_escape (attribute->name);
      g_autofree char *short_value = cut (value, MAX_VALUE);
      g_autofree char *whole = g_strdup_printf ("%s = %s", name, value);
      add_line (lines, g_strdup_printf ("%s = %s", name, short_value), -1, whole);
    }
}

/* A line by the reader's schema slot, `tensor`'s last "." part without a schema. */
static void
add_input_line (Lines *lines, const OnyxSchema *schema, size_t slot, const char *tensor, const char *dims,
                const char *scalar, int node)
{
  const char *dot = strrchr (tensor, '.');
  g_autofree char *slot_name = schema != NULL ? onyx_schema_input_name (schema, slot) : NULL;
  g_autofree char *name = slot_name != NULL ? g_steal_pointer (&slot_name)
                                            : onyx_layout_shorten (dot != NULL && dot[1] != '\0' ? dot + 1 : tensor);
  g_autofree char *escaped = onyx_display_escape (tensor);
  char *shown = scalar != NULL ? g_strdup_printf ("%s ⟨⟩ = %s", name, scalar) : g_strdup_printf ("%s ⟨%s⟩", name, dims);
  g_autofree char *whole = g_strdup_printf ("%s (%s)", shown, escaped);

  add_line (lines, shown, node, whole);
}

/* What a Constant holds, for its line: the shape ("16×3×3×3", "" for a scalar) and,
 * for a short scalar, the value ("0.5"); NULL when it has no value attribute. */
static char *
constant_shape (const Onnx__NodeProto *node, char **scalar)
{
  *scalar = NULL;
  for (size_t a = 0; a < node->n_attribute; a++)
    {
      const Onnx__AttributeProto *attribute = node->attribute[a];
      switch (attribute->type)
        {
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR:
          if (attribute->t == NULL)
            break;
          if (attribute->t->n_dims == 0)
            {
              /* "[0.5]": a scalar's value tells more than its empty shape. */
              g_autoptr (OnyxTensorValues) values = onyx_tensor_values_read (attribute->t, NULL, 1, NULL);
              g_autofree char *text = values != NULL && values->n_values == 1
                                        ? onyx_tensor_values_format (values, 1) : NULL;
              if (text != NULL && text[0] == '[' && g_utf8_strlen (text, -1) <= MAX_SCALAR + 2)
                *scalar = g_strndup (text + 1, strlen (text) - 2);
            }
          return onyx_dims_to_string (attribute->t->dims, attribute->t->n_dims);
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSOR:
          if (attribute->sparse_tensor == NULL)
            break;
          return onyx_dims_to_string (attribute->sparse_tensor->dims, attribute->sparse_tensor->n_dims);
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
          *scalar = onyx_attribute_to_string (attribute);
          return g_strdup ("");
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
          return g_strdup ("");
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
          return g_strdup_printf ("%zu", attribute->n_floats);
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
          return g_strdup_printf ("%zu", attribute->n_ints);
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS:
          return g_strdup_printf ("%zu", attribute->n_strings);
        default:
          break;
        }
    }
  return NULL;
}

void
onyx_layout_op_lines (OnyxLayoutEngine *engine, Item *item, const OnyxSchema *schema, GHashTable *initializers,
                      GHashTable *constants, const int *folded_into)
{
  const Onnx__NodeProto *node = engine->graph->node[item->index];
  g_autoptr (GString) details = g_string_new (NULL);
  Lines all = { g_ptr_array_new_with_free_func (g_free), g_array_new (FALSE, FALSE, sizeof (int)), details };
  guint total, kept;

  add_attribute_lines (&all, node, schema);
  for (size_t k = 0; k < node->n_input; k++)
    {
      const Onnx__TensorProto *init = g_hash_table_lookup (initializers, node->input[k]);
      int constant = GPOINTER_TO_INT (g_hash_table_lookup (constants, node->input[k])) - 1;
      if (init != NULL)
        {
          g_autofree char *dims = onyx_dims_to_string (init->dims, init->n_dims);
          add_input_line (&all, schema, k, init->name, dims, NULL, -1);
        }
      else if (constant >= 0 && folded_into[constant] == item->index)
        {
          g_autofree char *scalar = NULL;
          g_autofree char *dims = constant_shape (engine->graph->node[constant], &scalar);
          add_input_line (&all, schema, k, node->input[k], dims != NULL ? dims : "?", scalar, constant);
        }
    }

  /* Over budget: the first lines and one that says how many more there are. */
  total = all.lines->len;
  for (kept = 0; kept < total && onyx_layout_line_shows (kept, total); kept++)
    ;
  if (kept < total)
    {
      int none = -1;
      g_ptr_array_set_size (all.lines, kept);
      g_array_set_size (all.line_nodes, kept);
      g_ptr_array_add (all.lines, g_strdup_printf ("+%u more", total - kept));
      g_array_append_val (all.line_nodes, none);
    }
  item->lines = all.lines;
  item->line_nodes = all.line_nodes;
  item->details = details->len > 0 ? g_strdup (details->str) : NULL;
}
