/* What Simplify's passes read of the model (constants, uses, inferred shapes) and
 * the changes they share (an output become an initializer, a node bypassed). */
#include <stdlib.h>
#include <string.h>

#include "onyx-simplify-private.h"

#include "onyx-attribute.h"
#include "onyx-domain.h"
#include "onyx-schema.h"
#include "onyx-tensor-values.h"

void
onyx_simplify_note (OnyxSimplifyContext *ctx, const char *format, ...)
{
  va_list args;
  char *text;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  if (g_hash_table_add (ctx->noted, text))
    g_ptr_array_add (ctx->notes, g_strdup (text));
}

/* ---- Reading ---- */

Onnx__NodeProto *
onyx_simplify_producer (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const char *name)
{
  OnyxValue *value = name != NULL && name[0] != '\0'
                       ? onyx_graph_index_lookup (onyx_document_get_graph_index (ctx->doc, graph), name)
                       : NULL;
  return value != NULL ? value->producer : NULL;
}

guint
onyx_simplify_n_uses (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const char *name)
{
  return onyx_graph_index_n_uses (onyx_document_get_graph_index (ctx->doc, graph), name);
}

gboolean
onyx_simplify_is_output (Onnx__GraphProto *graph, const char *name)
{
  for (size_t i = 0; i < graph->n_output; i++)
    if (g_strcmp0 (graph->output[i]->name, name) == 0)
      return TRUE;
  return FALSE;
}

Onnx__TensorProto *
onyx_simplify_initializer (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const char *name)
{
  g_autoptr (GPtrArray) lineage = g_ptr_array_new ();
  Onnx__ModelProto *model = onyx_document_get_proto (ctx->doc);
  /* Before IR 4 every initializer was listed among the inputs too, and ONNX Runtime
   * treats them as constants then; from IR 4 such an input is one the caller may feed. */
  gboolean inputs_overridable = !model->has_ir_version || model->ir_version >= 4;

  if (name == NULL || name[0] == '\0')
    return NULL;
  onyx_document_graph_lineage (ctx->doc, graph, lineage);
  for (guint i = 0; i < lineage->len; i++)
    {
      OnyxGraphIndex *index = onyx_document_get_graph_index (ctx->doc, lineage->pdata[i]);
      Onnx__TensorProto *tensor = onyx_graph_index_initializer (index, name);
      OnyxValue *value;

      if (onyx_graph_index_graph_input (index, name) != NULL && (tensor == NULL || inputs_overridable))
        return NULL;
      if (tensor != NULL)
        return tensor;
      /* A node of an inner graph makes a name that shadows the outer one. */
      value = onyx_graph_index_lookup (index, name);
      if (value != NULL && value->producer != NULL)
        return NULL;
    }
  return NULL;
}

const Onnx__TensorProto *
onyx_simplify_constant_tensor (const Onnx__NodeProto *node)
{
  const Onnx__AttributeProto *value = onyx_simplify_is_op (node, "Constant")
                                        ? onyx_simplify_attribute (node, "value") : NULL;
  return value != NULL ? value->t : NULL;
}

gboolean
onyx_simplify_is_constant (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const char *name)
{
  Onnx__NodeProto *producer;

  if (onyx_simplify_initializer (ctx, graph, name) != NULL)
    return TRUE;
  producer = onyx_simplify_producer (ctx, graph, name);
  return producer != NULL && onyx_simplify_is_op (producer, "Constant") && producer->n_attribute == 1;
}

static OnyxArray *
array_of_values (const char *name, int elem_type, const void *values, gsize n, gsize element_size,
                 gboolean scalar)
{
  gint64 dims[1] = { (gint64) n };
  g_autoptr (GBytes) data = g_bytes_new (values, n * element_size);

  return onyx_array_new (name, elem_type, dims, scalar ? 0 : 1, data);
}

OnyxArray *
onyx_simplify_constant_node_value (OnyxSimplifyContext *ctx, const Onnx__NodeProto *node, gsize limit,
                                   GError **error)
{
  const Onnx__AttributeProto *attr;
  const char *name = node->n_output > 0 ? node->output[0] : NULL;

  if (!onyx_simplify_is_op (node, "Constant") || node->n_attribute != 1)
    return NULL;
  attr = node->attribute[0];
  if (g_strcmp0 (attr->name, "value") == 0 && attr->t != NULL)
    {
      guint64 n_bytes;
      OnyxArray *array;
      if (!onyx_tensor_n_bytes (attr->t, &n_bytes) || n_bytes > limit ||
          onyx_array_element_size (attr->t->data_type) == 0)
        return NULL;
      array = onyx_tensor_read_array (attr->t, ctx->base_dir, error);
      if (array != NULL)
        {
          g_free (array->name);
          array->name = g_strdup (name);
        }
      return array;
    }
  if (g_strcmp0 (attr->name, "value_float") == 0)
    return array_of_values (name, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, &attr->f, 1, sizeof attr->f, TRUE);
  if (g_strcmp0 (attr->name, "value_int") == 0)
    return array_of_values (name, ONNX__TENSOR_PROTO__DATA_TYPE__INT64, &attr->i, 1, sizeof attr->i, TRUE);
  if (g_strcmp0 (attr->name, "value_floats") == 0 && attr->n_floats * sizeof (float) <= limit)
    return array_of_values (name, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, attr->floats, attr->n_floats,
                            sizeof (float), FALSE);
  if (g_strcmp0 (attr->name, "value_ints") == 0 && attr->n_ints * sizeof (gint64) <= limit)
    return array_of_values (name, ONNX__TENSOR_PROTO__DATA_TYPE__INT64, attr->ints, attr->n_ints,
                            sizeof (gint64), FALSE);
  /* Strings and sparse tensors: nothing Simplify computes with. */
  return NULL;
}

OnyxArray *
onyx_simplify_constant_value (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const char *name,
                              gsize limit, GError **error)
{
  Onnx__TensorProto *tensor = onyx_simplify_initializer (ctx, graph, name);
  Onnx__NodeProto *producer;

  if (tensor != NULL)
    {
      guint64 n_bytes;
      if (!onyx_tensor_n_bytes (tensor, &n_bytes) || n_bytes > limit ||
          onyx_array_element_size (tensor->data_type) == 0)
        return NULL;
      return onyx_tensor_read_array (tensor, ctx->base_dir, error);
    }
  producer = onyx_simplify_producer (ctx, graph, name);
  return producer != NULL ? onyx_simplify_constant_node_value (ctx, producer, limit, error) : NULL;
}

GArray *
onyx_simplify_array_ints (const OnyxArray *array)
{
  GArray *ints;
  const guint8 *data;
  guint64 n;

  if (array == NULL || (array->elem_type != ONNX__TENSOR_PROTO__DATA_TYPE__INT64 &&
                        array->elem_type != ONNX__TENSOR_PROTO__DATA_TYPE__INT32))
    return NULL;
  n = onyx_array_count (array);
  if (n == G_MAXUINT64 || n > G_MAXUINT)
    return NULL;
  data = g_bytes_get_data (array->data, NULL);
  ints = g_array_sized_new (FALSE, FALSE, sizeof (gint64), (guint) n);
  for (guint64 i = 0; i < n; i++)
    {
      gint64 value;
      if (array->elem_type == ONNX__TENSOR_PROTO__DATA_TYPE__INT64)
        memcpy (&value, data + i * 8, 8);
      else
        {
          gint32 narrow;
          memcpy (&narrow, data + i * 4, 4);
          value = narrow;
        }
      g_array_append_val (ints, value);
    }
  return ints;
}

GArray *
onyx_simplify_constant_ints (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const char *name)
{
  g_autoptr (OnyxArray) array = onyx_simplify_constant_value (ctx, graph, name, 1 << 16, NULL);

  return onyx_simplify_array_ints (array);
}

gboolean
onyx_simplify_constant_all (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const char *name, double value)
{
  g_autoptr (OnyxArray) array = onyx_simplify_constant_value (ctx, graph, name, ONYX_SIMPLIFY_LARGEST_FOLD, NULL);
  g_autoptr (OnyxTensorValues) values = NULL;
  Onnx__TensorProto *tensor;

  if (array == NULL)
    return FALSE;
  /* Read back as numbers, whatever the element type. */
  tensor = onyx_tensor_new_from_array (array, "");
  values = onyx_tensor_values_read (tensor, NULL, G_MAXUINT64, NULL);
  onnx__tensor_proto__free_unpacked (tensor, NULL);
  if (values == NULL || values->values == NULL || values->n_values == 0 || values->n_values != values->n_elements)
    return FALSE;
  for (guint64 i = 0; i < values->n_values; i++)
    if (values->values[i] != value)
      return FALSE;
  return TRUE;
}

gint64
onyx_simplify_opset (OnyxSimplifyContext *ctx, const Onnx__NodeProto *node)
{
  Onnx__ModelProto *model = onyx_document_get_proto (ctx->doc);

  return onyx_opset_version (model->opset_import, model->n_opset_import, node->domain);
}

gboolean
onyx_simplify_ints_argument (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const Onnx__NodeProto *node,
                             const char *attribute, gint64 since, guint input, GArray **values)
{
  const Onnx__AttributeProto *attr = onyx_simplify_attribute (node, attribute);
  gboolean has_input = node->n_input > input && node->input[input][0] != '\0';

  *values = NULL;
  if (onyx_simplify_opset (ctx, node) < since)
    {
      if (has_input || (attr != NULL && attr->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS))
        return FALSE;
      if (attr != NULL)
        {
          *values = g_array_sized_new (FALSE, FALSE, sizeof (gint64), (guint) attr->n_ints);
          g_array_append_vals (*values, attr->ints, (guint) attr->n_ints);
        }
      return TRUE;
    }
  if (attr != NULL)
    return FALSE;
  if (!has_input)
    return TRUE;
  *values = onyx_simplify_constant_ints (ctx, graph, node->input[input]);
  return *values != NULL;
}

gint
onyx_simplify_rank (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const char *name)
{
  g_autoptr (GArray) dims = NULL;

  return onyx_simplify_tensor_shape (ctx, graph, name, NULL, &dims, NULL) ? (gint) dims->len : -1;
}

gboolean
onyx_simplify_same_type (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const char *a, const char *b)
{
  g_autoptr (GArray) dims_a = NULL, dims_b = NULL;
  g_autoptr (GPtrArray) symbols_a = NULL, symbols_b = NULL;
  int type_a = 0, type_b = 0;

  if (!onyx_simplify_tensor_shape (ctx, graph, a, &type_a, &dims_a, &symbols_a) ||
      !onyx_simplify_tensor_shape (ctx, graph, b, &type_b, &dims_b, &symbols_b) || type_a == 0 ||
      type_a != type_b || dims_a->len != dims_b->len)
    return FALSE;
  for (guint i = 0; i < dims_a->len; i++)
    {
      gint64 x = g_array_index (dims_a, gint64, i), y = g_array_index (dims_b, gint64, i);
      const char *symbol_x = symbols_a->pdata[i], *symbol_y = symbols_b->pdata[i];
      if (x >= 0 ? x != y : symbol_x == NULL || g_strcmp0 (symbol_x, symbol_y) != 0)
        return FALSE;
    }
  return TRUE;
}

double *
onyx_simplify_float_values (const OnyxArray *array)
{
  guint64 n = onyx_array_count (array);
  const guint8 *data = g_bytes_get_data (array->data, NULL);
  double *values;

  if (n == G_MAXUINT64 || n * onyx_array_element_size (array->elem_type) != g_bytes_get_size (array->data))
    return NULL;
  values = g_new (double, MAX (n, 1));
  for (guint64 i = 0; i < n; i++)
    switch (array->elem_type)
      {
      case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
        {
          float f;
          memcpy (&f, data + i * sizeof f, sizeof f);
          values[i] = f;
          break;
        }
      case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16:
        {
          guint16 bits;
          memcpy (&bits, data + i * sizeof bits, sizeof bits);
          values[i] = onyx_half_to_double (GUINT16_FROM_LE (bits));
          break;
        }
      case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
        memcpy (&values[i], data + i * sizeof (double), sizeof (double));
        break;
      default:
        g_free (values);
        return NULL;
      }
  return values;
}

OnyxArray *
onyx_simplify_float_array (const char *name, int elem_type, const gint64 *dims, gsize n_dims, const double *values)
{
  gsize size = onyx_array_element_size (elem_type);
  guint64 n = 1;
  guint8 *data;
  g_autoptr (GBytes) bytes = NULL;

  if (elem_type != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT && elem_type != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16 &&
      elem_type != ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE)
    return NULL;
  for (gsize d = 0; d < n_dims; d++)
    n *= (guint64) dims[d];
  data = g_malloc (MAX (n * size, 1));
  for (guint64 i = 0; i < n; i++)
    if (elem_type == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT)
      {
        float f = (float) values[i];
        memcpy (data + i * size, &f, size);
      }
    else if (elem_type == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16)
      {
        guint16 bits = GUINT16_TO_LE (onyx_double_to_half (values[i]));
        memcpy (data + i * size, &bits, size);
      }
    else
      memcpy (data + i * size, &values[i], size);
  bytes = g_bytes_new_take (data, n * size);
  return onyx_array_new (name, elem_type, dims, n_dims, bytes);
}

/* ---- Changing ---- */

void
onyx_simplify_add_initializer (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, Onnx__TensorProto *tensor)
{
  onyx_document_insert_item (ctx->doc, &graph->base, "initializer", graph->n_initializer,
                             &tensor->base);
}

static gboolean
other_outputs_read (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, Onnx__NodeProto *node, guint except)
{
  for (size_t k = 0; k < node->n_output; k++)
    if (k != except && node->output[k][0] != '\0' &&
        (onyx_simplify_n_uses (ctx, graph, node->output[k]) > 0 ||
         onyx_simplify_is_output (graph, node->output[k])))
      return TRUE;
  return FALSE;
}

void
onyx_simplify_output_to_initializer (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph,
                                     Onnx__NodeProto *node, guint output, const OnyxArray *value)
{
  g_autofree char *name = g_strdup (node->output[output]);

  /* The node goes first (or stops writing the name) so that the name is never
   * defined twice. */
  if (other_outputs_read (ctx, graph, node, output))
    {
      g_autofree char *spare = onyx_simplify_unique_name (ctx, name);
      onyx_document_set_node_output (ctx->doc, node, output, spare);
    }
  else
    onyx_simplify_remove_node (ctx, node);
  onyx_simplify_add_initializer (ctx, graph, onyx_tensor_new_from_array (value, name));
}

gboolean
onyx_simplify_bypass (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, Onnx__NodeProto *node,
                      guint output, const char *source)
{
  g_autofree char *target = g_strdup (node->output[output]);
  g_autofree char *source_name = g_strdup (source);

  if (onyx_simplify_is_output (graph, target))
    {
      Onnx__NodeProto *producer = onyx_simplify_producer (ctx, graph, source_name);
      if (producer == NULL || onyx_simplify_is_output (graph, source_name) ||
          onyx_simplify_n_uses (ctx, graph, source_name) != 1)
        return FALSE;
      /* The graph output keeps its name: the producer writes it, and this node, its
       * only reader, goes. */
      onyx_simplify_remove_node (ctx, node);
      for (size_t k = 0; k < producer->n_output; k++)
        if (g_strcmp0 (producer->output[k], source_name) == 0)
          onyx_document_set_node_output (ctx->doc, producer, (guint) k, target);
      return TRUE;
    }
  onyx_edit_redirect_uses (ctx->doc, graph, target, source_name, node);
  onyx_simplify_remove_node (ctx, node);
  return TRUE;
}

gboolean
onyx_simplify_merge_outputs (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, Onnx__NodeProto *node,
                             const char *const *sources)
{
  gboolean changed = FALSE, stays = FALSE;

  for (size_t k = 0; k < node->n_output; k++)
    {
      const char *name = node->output[k];
      if (name[0] != '\0' && (sources[k] == NULL || sources[k][0] == '\0') &&
          (onyx_simplify_is_output (graph, name) || onyx_simplify_n_uses (ctx, graph, name) > 0))
        return FALSE;
    }
  for (size_t k = 0; k < node->n_output; k++)
    {
      const char *name = node->output[k];
      if (name[0] == '\0' || sources[k] == NULL || sources[k][0] == '\0')
        continue;
      /* A graph output keeps its name, and so its node. */
      stays |= onyx_simplify_is_output (graph, name);
      if (onyx_simplify_n_uses (ctx, graph, name) > 0)
        {
          onyx_edit_redirect_uses (ctx->doc, graph, name, sources[k], node);
          changed = TRUE;
        }
    }
  if (!stays)
    onyx_simplify_remove_node (ctx, node);
  return changed || !stays;
}

void
onyx_simplify_remove_node (OnyxSimplifyContext *ctx, Onnx__NodeProto *node)
{
  onyx_edit_remove_node (ctx->doc, node);
}

/* Every name of a graph and the graphs it holds: tensors and nodes. */
static void
collect_names (GHashTable *names, const Onnx__GraphProto *graph, guint depth)
{
  if (depth > 64)
    return;
  for (size_t i = 0; i < graph->n_input; i++)
    g_hash_table_add (names, g_strdup (graph->input[i]->name));
  for (size_t i = 0; i < graph->n_initializer; i++)
    g_hash_table_add (names, g_strdup (graph->initializer[i]->name));
  for (size_t n = 0; n < graph->n_node; n++)
    {
      const Onnx__NodeProto *node = graph->node[n];
      if (node->name != NULL)
        g_hash_table_add (names, g_strdup (node->name));
      for (size_t k = 0; k < node->n_output; k++)
        g_hash_table_add (names, g_strdup (node->output[k]));
      for (size_t a = 0; a < node->n_attribute; a++)
        {
          if (node->attribute[a]->g != NULL)
            collect_names (names, node->attribute[a]->g, depth + 1);
          for (size_t g = 0; g < node->attribute[a]->n_graphs; g++)
            collect_names (names, node->attribute[a]->graphs[g], depth + 1);
        }
    }
}

char *
onyx_simplify_unique_name (OnyxSimplifyContext *ctx, const char *base)
{
  char *name;

  if (ctx->names == NULL)
    {
      ctx->names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      collect_names (ctx->names, onyx_document_get_proto (ctx->doc)->graph, 0);
    }
  name = g_strdup (base);
  for (guint i = 1; g_hash_table_contains (ctx->names, name); i++)
    {
      g_free (name);
      name = g_strdup_printf ("%s_%u", base, i);
    }
  g_hash_table_add (ctx->names, g_strdup (name));
  return name;
}

void
onyx_simplify_set_constant_input (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, Onnx__NodeProto *node,
                                  guint input, const OnyxArray *value, const char *base)
{
  const char *current = input < node->n_input ? node->input[input] : "";
  OnyxGraphIndex *index = onyx_document_get_graph_index (ctx->doc, graph);
  Onnx__TensorProto *own = current[0] != '\0' ? onyx_graph_index_initializer (index, current) : NULL;
  /* Before IR 4 a weight is a graph input too, whose declared shape must stay true. */
  gboolean declared = own != NULL && onyx_graph_index_graph_input (index, current) != NULL;
  gboolean same_dims = own != NULL && own->n_dims == value->n_dims &&
                       memcmp (own->dims, value->dims, value->n_dims * sizeof *value->dims) == 0;
  g_autofree char *name = NULL;

  if (own != NULL && onyx_simplify_initializer (ctx, graph, current) == own && (!declared || same_dims) &&
      onyx_simplify_n_uses (ctx, graph, current) == 1 && !onyx_simplify_is_output (graph, current))
    for (size_t i = 0; i < graph->n_initializer; i++)
      if (graph->initializer[i] == own)
        {
          Onnx__TensorProto *replacement = onyx_tensor_new_from_array (value, current);
          onyx_document_remove_item (ctx->doc, &graph->base, "initializer", i);
          onyx_document_insert_item (ctx->doc, &graph->base, "initializer", i, &replacement->base);
          return;
        }
  name = onyx_simplify_unique_name (ctx, base);
  onyx_simplify_add_initializer (ctx, graph, onyx_tensor_new_from_array (value, name));
  onyx_simplify_set_input (ctx, node, input, name);
}

void
onyx_simplify_set_input (OnyxSimplifyContext *ctx, Onnx__NodeProto *node, guint input, const char *name)
{
  onyx_document_set_node_input (ctx->doc, node, input, name);
}

void
onyx_simplify_set_ints_attribute (OnyxSimplifyContext *ctx, Onnx__NodeProto *node, const char *name,
                                  const gint64 *values, gsize n_values)
{
  Onnx__AttributeProto *attr = malloc (sizeof *attr);
  gsize position = node->n_attribute;

  onnx__attribute_proto__init (attr);
  attr->name = strdup (name);
  attr->has_type = TRUE;
  attr->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
  attr->n_ints = n_values;
  attr->ints = malloc (MAX (n_values, 1) * sizeof *attr->ints);
  memcpy (attr->ints, values, n_values * sizeof *attr->ints);
  if (onyx_node_find_attribute (node, name, &position) != NULL)
    onyx_document_remove_item (ctx->doc, &node->base, "attribute", position);
  onyx_document_insert_item (ctx->doc, &node->base, "attribute", position, &attr->base);
}

const Onnx__AttributeProto *
onyx_simplify_attribute (const Onnx__NodeProto *node, const char *name)
{
  for (size_t a = 0; a < node->n_attribute; a++)
    if (g_strcmp0 (node->attribute[a]->name, name) == 0)
      return node->attribute[a];
  return NULL;
}

gint64
onyx_simplify_attribute_int (const Onnx__NodeProto *node, const char *name, gint64 fallback)
{
  const Onnx__AttributeProto *attr = onyx_simplify_attribute (node, name);
  return attr != NULL ? attr->i : fallback;
}

gboolean
onyx_simplify_is_op (const Onnx__NodeProto *node, const char *op_type)
{
  return onyx_domain_is_default (node->domain) && g_strcmp0 (node->op_type, op_type) == 0;
}

gboolean
onyx_simplify_draws_random (const Onnx__NodeProto *node)
{
  static const char *const random_ops[] = {
    "RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike", "Multinomial", "Bernoulli", NULL,
  };

  return onyx_domain_is_default (node->domain) && g_strv_contains (random_ops, node->op_type);
}
