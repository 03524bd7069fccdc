/* onyx-layout-lines.c: what an op box lists under its header. Every attribute the
 * node writes (those that say what the op does first, by a small table per op type,
 * then the rest in the node's order), then its input lines: initializers and folded
 * Constants by schema slot, and quantization (onyx-layout-quant.c): a folded weight's
 * DequantizeLinear by its reader's slot, a scale and zero point with what they
 * quantize, a dynamic chain's weight and bias. A box holds MAX_BOX_LINES lines; past
 * that its last line says how many more there are, and the item's details (the canvas
 * tooltip) hold them all, uncut. Defaults the node does not write are not listed. */
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

/* What a line by the reader's schema slot is called: the slot's name, else `tensor`'s
 * last "." part. */
static char *
slot_line_name (const OnyxSchema *schema, size_t slot, const char *tensor)
{
  const char *dot = strrchr (tensor, '.');
  g_autofree char *slot_name = schema != NULL ? onyx_schema_input_name (schema, slot) : NULL;

  return slot_name != NULL ? g_steal_pointer (&slot_name)
                           : onyx_layout_shorten (dot != NULL && dot[1] != '\0' ? dot + 1 : tensor);
}

/* `shown` (taken) for `node`; the details say it whole, with the tensor's name. */
static void
add_tensor_line (Lines *lines, char *shown, const char *whole, const char *tensor, int node)
{
  g_autofree char *escaped = onyx_display_escape (tensor);
  g_autofree char *details = g_strdup_printf ("%s (%s)", whole != NULL ? whole : shown, escaped);

  add_line (lines, shown, node, details);
}

/* A line by the reader's schema slot: "W ⟨64×3×3×3⟩", "B ⟨⟩ = 0.5". */
static void
add_input_line (Lines *lines, const OnyxSchema *schema, size_t slot, const char *tensor, const char *dims,
                const char *scalar, int node)
{
  g_autofree char *name = slot_line_name (schema, slot, tensor);
  char *shown = scalar != NULL ? g_strdup_printf ("%s ⟨⟩ = %s", name, scalar) : g_strdup_printf ("%s ⟨%s⟩", name, dims);

  add_tensor_line (lines, shown, NULL, tensor, node);
}

/* A quantized tensor's line: "W int8 ⟨64×3×3×3⟩ per-channel ×64"; `data` NULL for an
 * activation ("x uint8 s=0.0235 zp=128"). */
static void
add_quant_line (Lines *lines, const char *name, const Onnx__TensorProto *data, const Onnx__TensorProto *scale,
                const Onnx__TensorProto *zero_point, const Onnx__NodeProto *quantizer, const char *tensor, int node)
{
  g_autofree char *whole = onyx_layout_quant_text (name, data, scale, zero_point, quantizer, 0, TRUE);

  add_tensor_line (lines, onyx_layout_quant_text (name, data, scale, zero_point, quantizer, 0, FALSE), whole, tensor,
                   node);
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

/* ---- Input lines: which inputs a box lists, and what folds into it with them ---- */

static gboolean
ends_with_scale (const char *name, gsize *base_length)
{
  gsize length = strlen (name);

  if (length <= 6 || g_ascii_strcasecmp (name + length - 6, "_scale") != 0)
    return FALSE;
  *base_length = length - 6;
  return TRUE;
}

/* The slot whose schema name is `name` (case aside: QGemm's "A" and "a_scale"),
 * given in the node; -1 when none. */
static int
slot_named (const OnyxSchema *schema, const Onnx__NodeProto *node, const char *name)
{
  for (size_t k = 0; k < node->n_input; k++)
    {
      g_autofree char *slot = onyx_schema_input_name (schema, k);
      if (slot != NULL && g_ascii_strcasecmp (slot, name) == 0)
        return node->input[k][0] != '\0' ? (int) k : -1;
    }
  return -1;
}

static int
constant_node (const Folding *folding, const char *name)
{
  return GPOINTER_TO_INT (g_hash_table_lookup (folding->constants, name)) - 1;
}

static gboolean
is_constant_input (const Folding *folding, const char *name)
{
  return g_hash_table_contains (folding->initializers, name) || constant_node (folding, name) >= 0;
}

/* Adds the Constant of `name`, if it is one, to what folds with `line`. */
static void
folds_with (const Folding *folding, InputLine *line, const char *name)
{
  int constant = constant_node (folding, name);

  for (guint f = 0; constant >= 0 && f < G_N_ELEMENTS (line->folds); f++)
    if (line->folds[f] < 0)
      {
        line->folds[f] = constant;
        if (line->node < 0)
          line->node = constant;
        return;
      }
}

static InputLine
input_line (InputLineKind kind, guint slot, int node)
{
  InputLine line = { kind, slot, -1, -1, -1, node, { -1, -1, -1 } };
  return line;
}

/* Each "<x>_scale" input that is constant, with its "<x>_zero_point" (absent or
 * constant) and "<x>" when given: one line (QLinearConv's x, w and y). */
static void
add_quant_groups (const Folding *folding, const Onnx__NodeProto *node, const OnyxSchema *schema, GArray *lines,
                  gboolean *listed)
{
  for (size_t k = 0; schema != NULL && k < node->n_input; k++)
    {
      g_autofree char *name = onyx_schema_input_name (schema, k);
      g_autofree char *base = NULL, *zero_point_name = NULL;
      InputLine line;
      gsize base_length;
      int zero_point, data;
      if (name == NULL || !ends_with_scale (name, &base_length) || !is_constant_input (folding, node->input[k]))
        continue;
      base = g_strndup (name, base_length);
      zero_point_name = g_strconcat (base, "_zero_point", NULL);
      zero_point = slot_named (schema, node, zero_point_name);
      data = slot_named (schema, node, base);
      if (zero_point >= 0 && !is_constant_input (folding, node->input[zero_point]))
        continue;
      line = input_line (INPUT_LINE_QUANT, data >= 0 ? (guint) MIN ((int) k, data) : (guint) k, -1);
      line.scale = (int) k, line.zero_point = zero_point, line.data = data;
      folds_with (folding, &line, node->input[k]);
      listed[k] = TRUE;
      if (zero_point >= 0)
        {
          folds_with (folding, &line, node->input[zero_point]);
          listed[zero_point] = TRUE;
        }
      if (data >= 0)
        {
          folds_with (folding, &line, node->input[data]);
          listed[data] = TRUE;
        }
      g_array_append_val (lines, line);
    }
}

static int
compare_lines (gconstpointer a, gconstpointer b)
{
  const InputLine *x = a, *y = b;
  return x->slot < y->slot ? -1 : x->slot > y->slot;
}

GArray *
onyx_layout_input_lines (const Folding *folding, guint node_index, const OnyxSchema *schema)
{
  const Onnx__NodeProto *node = folding->graph->node[node_index];
  GArray *lines = g_array_new (FALSE, FALSE, sizeof (InputLine));
  g_autofree gboolean *listed = g_new0 (gboolean, MAX (node->n_input, 1));
  DynamicParts parts;

  if (onyx_layout_dynamic_parts (folding, node_index, &parts))
    {
      /* As the float op lists them: its weight (with its scale and zero point), its bias. */
      InputLine line = input_line (INPUT_LINE_DYNAMIC_WEIGHT, 1, parts.scales_mul);
      folds_with (folding, &line, parts.weight);
      if (parts.weight_zero_point != NULL)
        folds_with (folding, &line, parts.weight_zero_point);
      line.node = parts.scales_mul;
      g_array_append_val (lines, line);
      if (parts.bias != NULL)
        {
          line = input_line (INPUT_LINE_DYNAMIC_BIAS, 2, parts.bias_add);
          g_array_append_val (lines, line);
        }
      return lines;
    }
  if (folding->engine->fold_quant)
    add_quant_groups (folding, node, schema, lines, listed);
  for (size_t k = 0; k < node->n_input; k++)
    {
      const char *name = node->input[k];
      int weight = GPOINTER_TO_INT (g_hash_table_lookup (folding->weight_dqs, name)) - 1;
      InputLine line;
      if (listed[k] || name[0] == '\0')
        continue;
      if (weight >= 0)
        {
          line = input_line (INPUT_LINE_WEIGHT_DQ, (guint) k, weight);
          line.folds[0] = weight;
        }
      else if (is_constant_input (folding, name))
        {
          line = input_line (INPUT_LINE_TENSOR, (guint) k, -1);
          folds_with (folding, &line, name);
        }
      else
        continue;
      g_array_append_val (lines, line);
    }
  g_array_sort (lines, compare_lines);
  return lines;
}

/* Whether `line` is listed by `reader`: what folds with it folded there (else it kept
 * its box, and an edge shows it). */
static gboolean
line_listed (const Folding *folding, const InputLine *line, int reader)
{
  for (guint f = 0; f < G_N_ELEMENTS (line->folds); f++)
    if (line->folds[f] >= 0 && folding->folded_into[line->folds[f]] != reader)
      return FALSE;
  return TRUE;
}

/* A float op's slot name ("W" of Conv) for a dynamic chain's line. */
static char *
float_slot_name (const char *float_op, guint slot)
{
  return onyx_schema_input_name (onyx_schema_lookup ("", float_op, G_MAXINT64), slot);
}

static void
add_listed_line (const Folding *folding, Lines *all, guint index, const OnyxSchema *schema, const InputLine *line)
{
  const Onnx__GraphProto *graph = folding->graph;
  const Onnx__NodeProto *node = graph->node[index];

  switch (line->kind)
    {
    case INPUT_LINE_TENSOR:
      {
        const char *tensor = node->input[line->slot];
        const Onnx__TensorProto *init = g_hash_table_lookup (folding->initializers, tensor);
        g_autofree char *scalar = NULL;
        g_autofree char *dims = init != NULL ? onyx_dims_to_string (init->dims, init->n_dims)
                                             : constant_shape (graph->node[line->node], &scalar);
        add_input_line (all, schema, line->slot, tensor, dims != NULL ? dims : "?", scalar, line->node);
        break;
      }
    case INPUT_LINE_WEIGHT_DQ:
      {
        const Onnx__NodeProto *dequantize = graph->node[line->node];
        g_autofree char *name = slot_line_name (schema, line->slot, node->input[line->slot]);
        add_quant_line (all, name, onyx_layout_folding_tensor (folding, dequantize->input[0]),
                        onyx_layout_folding_tensor (folding, dequantize->input[1]),
                        dequantize->n_input > 2 ? onyx_layout_folding_tensor (folding, dequantize->input[2]) : NULL,
                        dequantize, dequantize->input[0], line->node);
        break;
      }
    case INPUT_LINE_QUANT:
      {
        g_autofree char *scale_name = onyx_schema_input_name (schema, (guint) line->scale);
        g_autofree char *name = g_strndup (scale_name, strlen (scale_name) - strlen ("_scale"));
        const char *data = line->data >= 0 ? node->input[line->data] : NULL;
        add_quant_line (all, name, data != NULL ? onyx_layout_folding_tensor (folding, data) : NULL,
                        onyx_layout_folding_tensor (folding, node->input[line->scale]),
                        line->zero_point >= 0 ? onyx_layout_folding_tensor (folding, node->input[line->zero_point]) : NULL,
                        node, data != NULL ? data : node->input[line->scale], line->node);
        break;
      }
    case INPUT_LINE_DYNAMIC_WEIGHT:
    case INPUT_LINE_DYNAMIC_BIAS:
      {
        DynamicParts parts;
        g_autofree char *name = NULL;
        onyx_layout_dynamic_parts (folding, index, &parts);
        name = float_slot_name (parts.float_op, line->slot);
        if (name == NULL)
          name = g_strdup (line->slot == 1 ? "W" : "B");
        if (line->kind == INPUT_LINE_DYNAMIC_WEIGHT)
          add_quant_line (all, name, onyx_layout_folding_tensor (folding, parts.weight),
                          onyx_layout_folding_tensor (folding, parts.weight_scale),
                          parts.weight_zero_point != NULL ? onyx_layout_folding_tensor (folding, parts.weight_zero_point)
                                                          : NULL,
                          NULL, parts.weight, line->node);
        else
          {
            const Onnx__TensorProto *bias = onyx_layout_folding_tensor (folding, parts.bias);
            g_autofree char *dims = bias != NULL ? onyx_dims_to_string (bias->dims, bias->n_dims) : g_strdup ("?");
            add_tensor_line (all, g_strdup_printf ("%s ⟨%s⟩", name, dims), NULL, parts.bias, line->node);
          }
        break;
      }
    }
}

void
onyx_layout_op_lines (const Folding *folding, Item *item, const OnyxSchema *schema)
{
  const Onnx__NodeProto *node = folding->graph->node[item->index];
  g_autoptr (GString) details = g_string_new (NULL);
  Lines all = { g_ptr_array_new_with_free_func (g_free), g_array_new (FALSE, FALSE, sizeof (int)), details };
  g_autoptr (GArray) lines = onyx_layout_input_lines (folding, (guint) item->index, schema);
  guint total, kept;

  add_attribute_lines (&all, node, schema);
  for (guint i = 0; i < lines->len; i++)
    {
      const InputLine *line = &g_array_index (lines, InputLine, i);
      if (line_listed (folding, line, item->index))
        add_listed_line (folding, &all, (guint) item->index, schema, line);
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
