#include "onyx-summary.h"

#include <string.h>

#include "onyx-attribute.h"
#include "onyx-quant.h"
#include "onyx-schema.h"
#include "onyx-types.h"
#include "onyx-validate.h"

char *
onyx_node_op_key (const Onnx__NodeProto *node)
{
  const char *op = node->op_type != NULL ? node->op_type : "";
  if (onyx_domain_is_default (node->domain))
    return g_strdup (op);
  return g_strdup_printf ("%s::%s", node->domain, op);
}

gboolean
onyx_graph_input_is_initializer (const Onnx__GraphProto *graph, const char *name)
{
  for (size_t i = 0; i < graph->n_initializer; i++)
    if (g_strcmp0 (graph->initializer[i]->name, name) == 0)
      return TRUE;
  return FALSE;
}

typedef struct {
  guint n_nodes;
  GHashTable *domains;   /* of every node: "" for the default domain */
} NodeWalk;

static void
walk_nodes (ProtobufCMessage *message, gpointer user_data)
{
  NodeWalk *walk = user_data;
  const char *domain;

  if (message->descriptor != &onnx__node_proto__descriptor)
    return;
  walk->n_nodes++;
  domain = ((Onnx__NodeProto *) message)->domain;
  g_hash_table_add (walk->domains, (gpointer) (onyx_domain_is_default (domain) ? "" : domain));
}

static void
add_custom_domain (GPtrArray *domains, const char *domain)
{
  if (onyx_domain_is_standard (domain))
    return;
  for (guint i = 0; i < domains->len; i++)
    if (strcmp (domains->pdata[i], domain) == 0)
      return;
  g_ptr_array_add (domains, g_strdup (domain));
}

static int
sort_strings (const char **a, const char **b)
{
  return strcmp (*a, *b);
}

static void
op_count_free (OnyxOpCount *count)
{
  g_free (count->op);
  g_free (count);
}

static int
compare_op_counts (gconstpointer a, gconstpointer b)
{
  const OnyxOpCount *x = *(OnyxOpCount *const *) a;
  const OnyxOpCount *y = *(OnyxOpCount *const *) b;
  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  return strcmp (x->op, y->op);
}

static void
add_parameters (OnyxSummary *summary, gboolean computed, guint64 n_elements, guint64 n_bytes,
                gboolean in_constant)
{
  if (!computed || summary->n_parameters > G_MAXUINT64 - n_elements ||
      summary->parameter_bytes > G_MAXUINT64 - n_bytes)
    {
      summary->parameters_overflow = TRUE;
      return;
    }
  summary->n_parameters += n_elements;
  summary->parameter_bytes += n_bytes;
  /* Parts of the totals, so they cannot overflow when the totals did not. */
  if (in_constant)
    {
      summary->constant_parameters += n_elements;
      summary->constant_bytes += n_bytes;
    }
}

static gboolean
tensor_size (const Onnx__TensorProto *tensor, guint64 *n_elements, guint64 *n_bytes)
{
  return onyx_dims_n_elements (tensor->dims, tensor->n_dims, n_elements) &&
         onyx_tensor_n_bytes (tensor, n_bytes);
}

/* The value a Constant node holds, in whichever of its attributes it is given; FALSE for
 * a Constant without one. A sparse value counts the values it stores, not its dense
 * shape, as the file holds (and a runtime loads) only those; its indices are structure. */
static gboolean
constant_value_size (const Onnx__NodeProto *node, gboolean *computed,
                     guint64 *n_elements, guint64 *n_bytes)
{
  for (size_t i = 0; i < node->n_attribute; i++)
    {
      const Onnx__AttributeProto *attribute = node->attribute[i];
      const char *name = attribute->name != NULL ? attribute->name : "";

      *computed = TRUE;
      if (strcmp (name, "value") == 0 && attribute->t != NULL)
        *computed = tensor_size (attribute->t, n_elements, n_bytes);
      else if (strcmp (name, "sparse_value") == 0 && attribute->sparse_tensor != NULL &&
               attribute->sparse_tensor->values != NULL)
        *computed = tensor_size (attribute->sparse_tensor->values, n_elements, n_bytes);
      else if (strcmp (name, "value_float") == 0)
        *n_elements = 1, *n_bytes = sizeof (float);
      else if (strcmp (name, "value_floats") == 0)
        *n_elements = attribute->n_floats, *n_bytes = attribute->n_floats * sizeof (float);
      else if (strcmp (name, "value_int") == 0)
        *n_elements = 1, *n_bytes = sizeof (int64_t);
      else if (strcmp (name, "value_ints") == 0)
        *n_elements = attribute->n_ints, *n_bytes = attribute->n_ints * sizeof (int64_t);
      else if (strcmp (name, "value_string") == 0)
        *n_elements = 1, *n_bytes = attribute->s.len;
      else if (strcmp (name, "value_strings") == 0)
        {
          *n_elements = attribute->n_strings;
          *n_bytes = 0;
          for (size_t s = 0; s < attribute->n_strings; s++)
            *n_bytes += attribute->strings[s].len;
        }
      else
        continue;
      return TRUE;
    }
  return FALSE;
}

/* What an initializer is to the nodes that read it. */
typedef struct {
  gboolean quantization;      /* read as a scale or zero point (x_scale, zero_points, absmax) */
  guint bits;                 /* packed: values of this many bits (MatMulNBits's B), else 0 */
  guint64 values;             /* packed: how many (N × K), 0 when to be had from its bytes */
} Role;

gboolean
onyx_slot_names_quantization (const char *slot)
{
  return slot != NULL && (g_str_has_suffix (slot, "_scale") || strcmp (slot, "scales") == 0 ||
                          g_str_has_suffix (slot, "_scales") || strstr (slot, "zero_point") != NULL ||
                          strcmp (slot, "absmax") == 0);
}

static gint64
int_attribute (const Onnx__NodeProto *node, const char *name, gint64 fallback)
{
  const Onnx__AttributeProto *attribute = onyx_node_find_attribute (node, name, NULL);
  return attribute != NULL ? attribute->i : fallback;
}

/* The roles of a graph's initializers, by name, from its nodes' schemas: ONNX's
 * quantization operators and ONNX Runtime's block-quantized ones. */
static GHashTable *
initializer_roles (const Onnx__ModelProto *model, const Onnx__GraphProto *graph)
{
  GHashTable *roles = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);

  for (size_t n = 0; n < graph->n_node; n++)
    {
      const Onnx__NodeProto *node = graph->node[n];
      const OnyxSchema *schema = onyx_schema_for_node (node, model->opset_import, model->n_opset_import);
      gboolean onnxruntime = onyx_domain_is_onnxruntime (node->domain);

      for (size_t i = 0; schema != NULL && i < node->n_input; i++)
        {
          const OnyxSchemaParam *param = onyx_schema_input (schema, i);
          Role *role;
          if (node->input[i][0] == '\0' || param == NULL)
            continue;
          role = g_new0 (Role, 1);
          role->quantization = onyx_slot_names_quantization (param->name);
          if (onnxruntime && i == 1 && g_strcmp0 (node->op_type, "MatMulNBits") == 0)
            {
              role->bits = (guint) int_attribute (node, "bits", 4);
              role->values = (guint64) MAX (int_attribute (node, "N", 0), 0) * (guint64) MAX (int_attribute (node, "K", 0), 0);
            }
          else if (onnxruntime && i == 0 && g_strcmp0 (node->op_type, "GatherBlockQuantized") == 0)
            role->bits = (guint) int_attribute (node, "bits", 4);
          if (!role->quantization && role->bits == 0)
            g_free (role);
          else
            g_hash_table_replace (roles, node->input[i], role);
        }
    }
  return roles;
}

/* Bits of a sub-byte element type (int4, uint4, int2, float4), else 0. */
static guint
element_bits (int32_t type)
{
  switch (type)
    {
    case 21: case 22: case 23:     /* UINT4, INT4, FLOAT4E2M1 */
      return 4;
    case 25: case 26:              /* UINT2, INT2 */
      return 2;
    default:
      return 0;
    }
}

static void
add_low_bit (OnyxSummary *summary, guint64 n_values, guint bits)
{
  summary->low_bit_parameters += n_values;
  summary->low_bits = summary->low_bit_parameters == n_values || summary->low_bits == bits ? bits : 0;
}

typedef struct {
  const Onnx__ModelProto *model;
  OnyxSummary *summary;
} ParameterWalk;

/* An initializer as what it holds: a packed weight's values, a sub-byte tensor's
 * elements (in ¼ or ½ byte each), scales and zero points apart. */
static void
add_initializer (OnyxSummary *summary, const Onnx__TensorProto *tensor, const Role *role)
{
  guint64 n_elements = 0, n_bytes = 0;
  gboolean computed = tensor_size (tensor, &n_elements, &n_bytes);

  if (computed && role != NULL && role->quantization)
    {
      add_parameters (summary, TRUE, 0, n_bytes, FALSE);
      summary->quantization_parameters += n_elements;
      return;
    }
  if (computed && role != NULL && role->bits > 0 && role->bits < 8)
    {
      guint64 values = role->values > 0 ? role->values : n_bytes * 8 / role->bits;
      add_parameters (summary, TRUE, values, n_bytes, FALSE);
      add_low_bit (summary, values, role->bits);
      return;
    }
  add_parameters (summary, computed, n_elements, n_bytes, FALSE);
  if (computed && element_bits (tensor->data_type) > 0)
    add_low_bit (summary, n_elements, element_bits (tensor->data_type));
}

/* Visits the main graph and every subgraph in it, each once. */
static void
walk_parameters (ProtobufCMessage *message, gpointer user_data)
{
  ParameterWalk *walk = user_data;
  OnyxSummary *summary = walk->summary;
  guint64 n_elements = 0, n_bytes = 0;
  gboolean computed;

  if (message->descriptor == &onnx__graph_proto__descriptor)
    {
      const Onnx__GraphProto *graph = (const Onnx__GraphProto *) message;
      /* Roles come from the schema of every node, which takes a while on a big graph
       * (the model panel is made again after each edit): only where one may be
       * quantized. */
      g_autoptr (GHashTable) roles = graph->n_initializer > 0 && onyx_quant_graph_may_be_quantized (graph)
                                       ? initializer_roles (walk->model, graph) : NULL;
      for (size_t i = 0; i < graph->n_initializer; i++)
        {
          const Onnx__TensorProto *tensor = graph->initializer[i];
          summary->n_initializers++;
          add_initializer (summary, tensor,
                           tensor->name != NULL && roles != NULL ? g_hash_table_lookup (roles, tensor->name) : NULL);
        }
    }
  else if (message->descriptor == &onnx__node_proto__descriptor)
    {
      const Onnx__NodeProto *node = (const Onnx__NodeProto *) message;
      if (g_strcmp0 (node->op_type, "Constant") == 0 && onyx_domain_is_default (node->domain) &&
          constant_value_size (node, &computed, &n_elements, &n_bytes))
        {
          summary->n_constant_tensors++;
          add_parameters (summary, computed, n_elements, n_bytes, TRUE);
        }
    }
}

OnyxSummary *
onyx_summary_new (const Onnx__ModelProto *model)
{
  OnyxSummary *summary = g_new0 (OnyxSummary, 1);
  const Onnx__GraphProto *graph = model->graph;
  GHashTable *by_op = g_hash_table_new (g_str_hash, g_str_equal);
  NodeWalk walk = { 0 };

  summary->op_counts = g_ptr_array_new_with_free_func ((GDestroyNotify) op_count_free);
  summary->custom_domains = g_ptr_array_new_with_free_func (g_free);
  summary->unused_domains = g_ptr_array_new_with_free_func (g_free);
  walk.domains = g_hash_table_new (g_str_hash, g_str_equal);
  onyx_proto_foreach_message ((ProtobufCMessage *) &model->base, walk_nodes, &walk);
  summary->n_nodes_all = walk.n_nodes;
  /* In file order: imports first, then domains nodes use without an import. */
  for (size_t i = 0; i < model->n_opset_import; i++)
    {
      const char *domain = model->opset_import[i]->domain;
      const char *key = onyx_domain_is_default (domain) ? "" : domain;
      gboolean defines_functions = FALSE;
      for (size_t f = 0; f < model->n_functions; f++)
        defines_functions |= g_strcmp0 (model->functions[f]->domain, key) == 0;
      if (g_hash_table_contains (walk.domains, key))
        add_custom_domain (summary->custom_domains, key);
      else if (!defines_functions && key[0] != '\0')
        g_ptr_array_add (summary->unused_domains, g_strdup (key));
    }
  {
    GHashTableIter iter;
    gpointer domain;
    g_autoptr (GPtrArray) others = g_ptr_array_new ();
    g_hash_table_iter_init (&iter, walk.domains);
    while (g_hash_table_iter_next (&iter, &domain, NULL))
      g_ptr_array_add (others, domain);
    g_ptr_array_sort (others, (GCompareFunc) sort_strings);
    for (guint i = 0; i < others->len; i++)
      add_custom_domain (summary->custom_domains, others->pdata[i]);
  }
  g_hash_table_unref (walk.domains);

  for (size_t i = 0; graph != NULL && i < graph->n_node; i++)
    {
      const Onnx__NodeProto *node = graph->node[i];
      char *key = onyx_node_op_key (node);
      OnyxOpCount *count = g_hash_table_lookup (by_op, key);

      if (count == NULL)
        {
          count = g_new0 (OnyxOpCount, 1);
          count->op = key;
          g_hash_table_insert (by_op, count->op, count);
          g_ptr_array_add (summary->op_counts, count);
        }
      else
        g_free (key);
      count->count++;
    }
  summary->n_nodes = graph != NULL ? (guint) graph->n_node : 0;
  g_ptr_array_sort (summary->op_counts, compare_op_counts);

  if (graph != NULL)
    {
      ParameterWalk parameters = { model, summary };
      onyx_proto_foreach_message ((ProtobufCMessage *) &graph->base, walk_parameters, &parameters);
    }
  g_hash_table_unref (by_op);
  return summary;
}

void
onyx_summary_free (OnyxSummary *summary)
{
  if (summary == NULL)
    return;
  g_ptr_array_unref (summary->op_counts);
  g_ptr_array_unref (summary->custom_domains);
  g_ptr_array_unref (summary->unused_domains);
  g_free (summary);
}
