#include "onyx-schema.h"

#include <string.h>

#include "onyx-attribute.h"
#include "onyx-ort-operators.h"
#include "onyx-schema-private.h"
#include "onyx-types.h"
#include "onyx-validate.h"
#include "onyx-text.h"

static const char *
normal_domain (const char *domain)
{
  return onyx_domain_is_default (domain) ? "" : domain;
}

static int
compare_key (const OnyxSchema *schema, const char *domain, const char *name)
{
  int c = strcmp (schema->domain, domain);
  return c != 0 ? c : strcmp (schema->name, name);
}

/* The versions of domain::op_type in a sorted table, or NULL. */
static const OnyxSchema *
table_history (const OnyxSchema *table, guint size, const char *domain, const char *op_type,
               guint *n_versions)
{
  guint lo = 0, hi = size, end;

  /* First entry not before (domain, op_type). */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (compare_key (&table[mid], domain, op_type) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (end = lo; end < size && compare_key (&table[end], domain, op_type) == 0; end++)
    ;
  if (end == lo)
    return NULL;
  if (n_versions != NULL)
    *n_versions = end - lo;
  return &table[lo];
}

const OnyxSchema *
onyx_schema_history (const char *domain, const char *op_type, guint *n_versions)
{
  const OnyxSchema *found;

  if (op_type == NULL)
    return NULL;
  domain = normal_domain (domain);
  found = table_history (onyx_schema_table, onyx_schema_table_size, domain, op_type, n_versions);
  if (found == NULL)
    found = table_history (onyx_schema_ort_table, onyx_schema_ort_table_size, domain, op_type, n_versions);
  return found;
}

gboolean
onyx_schema_is_onnxruntime (const OnyxSchema *schema)
{
  return schema >= onyx_schema_ort_table && schema < onyx_schema_ort_table + onyx_schema_ort_table_size;
}

gboolean
onyx_schema_onnxruntime_has (const char *domain, const char *op_type)
{
  return op_type != NULL && table_history (onyx_schema_ort_table, onyx_schema_ort_table_size,
                                           normal_domain (domain), op_type, NULL) != NULL;
}

gboolean
onyx_schema_checks_attributes (const OnyxSchema *schema)
{
  return !onyx_schema_is_onnxruntime (schema) || onyx_domain_is_onnxruntime (schema->domain);
}

const char *
onyx_schema_onnxruntime_source (void)
{
  return onyx_ort_contrib_commit;
}

const OnyxSchema *
onyx_schema_lookup (const char *domain, const char *op_type, gint64 opset_version)
{
  guint n = 0;
  const OnyxSchema *versions = onyx_schema_history (domain, op_type, &n);

  for (guint i = n; i-- > 0;)
    if (versions[i].since_version <= opset_version)
      return &versions[i];
  return NULL;
}

int
onyx_schema_domain_version (const char *domain)
{
  const char *key = normal_domain (domain);

  for (guint i = 0; i < onyx_schema_n_domain_ranges; i++)
    if (strcmp (onyx_schema_domain_ranges[i].domain, key) == 0)
      return onyx_schema_domain_ranges[i].max_version;
  for (guint i = 0; i < onyx_schema_ort_n_domain_ranges; i++)
    if (strcmp (onyx_schema_ort_domain_ranges[i].domain, key) == 0)
      return onyx_schema_ort_domain_ranges[i].max_version;
  return 0;
}

int
onyx_schema_ir_version (void)
{
  return onyx_schema_table_ir_version;
}

char *
onyx_schema_library_summary (void)
{
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "ONNX %s: IR version %d", onyx_schema_onnx_version (),
                          onyx_schema_ir_version ());
  for (guint i = 0; i < onyx_schema_n_domain_ranges; i++)
    g_string_append_printf (out, ", %s opset %d",
                            onyx_schema_domain_ranges[i].domain[0] != '\0'
                                ? onyx_schema_domain_ranges[i].domain : "ai.onnx",
                            onyx_schema_domain_ranges[i].max_version);
  g_string_append_printf (out, "\nONNX Runtime's operators: %u schemas", onyx_schema_ort_table_size);
  for (guint i = 0; i < onyx_schema_ort_n_domain_ranges; i++)
    g_string_append_printf (out, ", %s opset %d", onyx_schema_ort_domain_ranges[i].domain,
                            onyx_schema_ort_domain_ranges[i].max_version);
  g_string_append_printf (out, " (from its documentation at %.12s)", onyx_ort_contrib_commit);
  return g_string_free (out, FALSE);
}

char *
onyx_schema_newer_opset_text (const char *domain, gint64 version)
{
  int known = onyx_schema_domain_version (domain);
  g_autofree char *shown = NULL;

  if (known == 0 || version <= known)
    return NULL;
  shown = onyx_display_escape (onyx_domain_is_default (domain) ? "ai.onnx" : domain);
  return g_strdup_printf ("%s opset %" G_GINT64_FORMAT " is newer than ONNX %s knows (%d): "
                          "operator checks and shapes of this domain are limited",
                          shown, version, onyx_schema_onnx_version (), known);
}

char *
onyx_schema_newer_ir_text (gint64 ir_version)
{
  if (ir_version <= onyx_schema_ir_version ())
    return NULL;
  return g_strdup_printf ("IR version %" G_GINT64_FORMAT " is newer than ONNX %s knows (%d): "
                          "the fields added since are kept but not checked",
                          ir_version, onyx_schema_onnx_version (), onyx_schema_ir_version ());
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp ((*(const OnyxSchema *const *) a)->name, (*(const OnyxSchema *const *) b)->name);
}

GPtrArray *
onyx_schema_list_ops (const char *domain, gint64 opset_version)
{
  GPtrArray *ops = g_ptr_array_new ();
  const struct { const OnyxSchema *rows; guint size; } tables[] = {
    { onyx_schema_table, onyx_schema_table_size }, { onyx_schema_ort_table, onyx_schema_ort_table_size } };

  domain = normal_domain (domain);
  for (guint t = 0; t < G_N_ELEMENTS (tables); t++)
    {
      guint n = 0;
      /* The versions of an op are contiguous in a table: one lookup per op. */
      for (guint i = 0; i < tables[t].size; i += n)
        {
          const OnyxSchema *schema;

          n = 1;
          if (!g_str_equal (tables[t].rows[i].domain, domain))
            continue;
          table_history (tables[t].rows, tables[t].size, domain, tables[t].rows[i].name, &n);
          schema = onyx_schema_lookup (domain, tables[t].rows[i].name, opset_version);
          if (schema != NULL && !schema->deprecated)
            g_ptr_array_add (ops, (gpointer) schema);
        }
    }
  /* ai.onnx's own and ONNX Runtime's kernels in it, in one name order. */
  g_ptr_array_sort (ops, compare_names);
  return ops;
}

const char *
onyx_schema_onnx_version (void)
{
  return onyx_schema_table_onnx_version;
}

/* Index of the formal parameter behind slot `index`. */
static const OnyxSchemaParam *
param_at (const OnyxSchemaParam *params, guint n_params, guint index, guint *first_slot)
{
  if (n_params == 0)
    return NULL;
  if (index < n_params)
    {
      *first_slot = index;
      return &params[index];
    }
  if (params[n_params - 1].option == ONYX_PARAM_VARIADIC)
    {
      *first_slot = n_params - 1;
      return &params[n_params - 1];
    }
  return NULL;
}

const OnyxSchemaParam *
onyx_schema_input (const OnyxSchema *schema, guint index)
{
  guint first;
  return param_at (schema->inputs, schema->n_inputs, index, &first);
}

const OnyxSchemaParam *
onyx_schema_output (const OnyxSchema *schema, guint index)
{
  guint first;
  return param_at (schema->outputs, schema->n_outputs, index, &first);
}

static char *
param_name (const OnyxSchemaParam *params, guint n_params, guint index)
{
  guint first = 0;
  const OnyxSchemaParam *param = param_at (params, n_params, index, &first);

  if (param == NULL)
    return NULL;
  if (param->option == ONYX_PARAM_VARIADIC)
    return g_strdup_printf ("%s[%u]", param->name, index - first);
  return g_strdup (param->name);
}

char *
onyx_schema_input_name (const OnyxSchema *schema, guint index)
{
  return param_name (schema->inputs, schema->n_inputs, index);
}

char *
onyx_schema_output_name (const OnyxSchema *schema, guint index)
{
  return param_name (schema->outputs, schema->n_outputs, index);
}

const OnyxSchemaAttribute *
onyx_schema_find_attribute (const OnyxSchema *schema, const char *name)
{
  guint lo = 0, hi = schema->n_attributes;

  if (name == NULL)
    return NULL;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      int c = strcmp (schema->attributes[mid].name, name);
      if (c == 0)
        return &schema->attributes[mid];
      if (c < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  return NULL;
}

Onnx__AttributeProto *
onyx_schema_attribute_default (const OnyxSchemaAttribute *attribute)
{
  if (attribute->default_value == NULL)
    return NULL;
  return onnx__attribute_proto__unpack (NULL, attribute->default_size,
                                        (const uint8_t *) attribute->default_value);
}

char *
onyx_schema_attribute_default_text (const OnyxSchemaAttribute *attribute)
{
  Onnx__AttributeProto *value = onyx_schema_attribute_default (attribute);
  char *text;

  if (value == NULL)
    return NULL;
  text = onyx_attribute_data_type_name (value, attribute) != NULL ? g_strdup (onyx_attribute_data_type_name (value, attribute))
                                                                 : onyx_attribute_to_string (value);
  protobuf_c_message_free_unpacked (&value->base, NULL);
  return text;
}

GPtrArray *
onyx_schema_omitted_defaults (const OnyxSchema *schema, const Onnx__NodeProto *node)
{
  GPtrArray *omitted = g_ptr_array_new ();

  for (guint a = 0; a < schema->n_attributes; a++)
    if (schema->attributes[a].default_value != NULL &&
        onyx_node_find_attribute (node, schema->attributes[a].name, NULL) == NULL)
      g_ptr_array_add (omitted, (gpointer) &schema->attributes[a]);
  return omitted;
}

const OnyxSchemaTypeConstraint *
onyx_schema_find_constraint (const OnyxSchema *schema, const char *type_str)
{
  for (guint i = 0; i < schema->n_type_constraints; i++)
    if (strcmp (schema->type_constraints[i].name, type_str) == 0)
      return &schema->type_constraints[i];
  return NULL;
}

const char *
onyx_schema_type_string (guint8 id)
{
  if (id >= onyx_schema_n_type_strings)
    {
      g_return_val_if_fail (id - onyx_schema_n_type_strings < onyx_schema_ort_n_type_strings, NULL);
      return onyx_schema_ort_type_strings[id - onyx_schema_n_type_strings];
    }
  return onyx_schema_type_strings[id];
}

gboolean
onyx_schema_param_allows (const OnyxSchema *schema, const OnyxSchemaParam *param,
                          const char *type_string)
{
  const OnyxSchemaTypeConstraint *constraint = onyx_schema_find_constraint (schema, param->type_str);

  if (constraint == NULL)
    return strcmp (param->type_str, type_string) == 0;
  for (guint i = 0; i < constraint->n_types; i++)
    if (strcmp (onyx_schema_type_string (constraint->types[i]), type_string) == 0)
      return TRUE;
  return FALSE;
}

/* TensorProto.DataType names as ONNX's type strings spell them. */
static const char *const schema_elem_names[] = {
  [1] = "float", [2] = "uint8", [3] = "int8", [4] = "uint16", [5] = "int16",
  [6] = "int32", [7] = "int64", [8] = "string", [9] = "bool", [10] = "float16",
  [11] = "double", [12] = "uint32", [13] = "uint64", [14] = "complex64",
  [15] = "complex128", [16] = "bfloat16", [17] = "float8e4m3fn", [18] = "float8e4m3fnuz",
  [19] = "float8e5m2", [20] = "float8e5m2fnuz", [21] = "uint4", [22] = "int4",
  [23] = "float4e2m1", [24] = "float8e8m0", [25] = "uint2", [26] = "int2",
};

static const char *
elem_name (int32_t elem_type)
{
  if (elem_type > 0 && (gsize) elem_type < G_N_ELEMENTS (schema_elem_names))
    return schema_elem_names[elem_type];
  return onyx_elem_type_proto_name (elem_type);
}

char *
onyx_elem_type_schema_string (int32_t elem_type)
{
  const char *name = elem_name (elem_type);
  return name != NULL ? g_strdup_printf ("tensor(%s)", name) : NULL;
}

static gboolean
names_elem (const char *type_string, gsize length, int32_t code)
{
  const char *name = elem_name (code);
  return name != NULL && strlen (name) == length &&
         strncmp (type_string + strlen ("tensor("), name, length) == 0;
}

int32_t
onyx_elem_type_from_schema_string (const char *type_string)
{
  const ProtobufCEnumDescriptor *codes = &onnx__tensor_proto__data_type__descriptor;
  gsize length;

  if (type_string == NULL || !g_str_has_prefix (type_string, "tensor(") || !g_str_has_suffix (type_string, ")"))
    return 0;
  length = strlen (type_string) - strlen ("tensor()");
  for (gsize code = 1; code < G_N_ELEMENTS (schema_elem_names); code++)
    if (names_elem (type_string, length, (int32_t) code))
      return (int32_t) code;
  /* Codes newer than the table, as the linked onnx.proto names them. */
  for (unsigned i = 0; i < codes->n_values; i++)
    if ((gsize) codes->values[i].value >= G_N_ELEMENTS (schema_elem_names) &&
        names_elem (type_string, length, codes->values[i].value))
      return codes->values[i].value;
  return 0;
}

char *
onyx_type_schema_string (const Onnx__TypeProto *type)
{
  g_autofree char *inner = NULL;

  if (type == NULL)
    return NULL;
  switch (type->value_case)
    {
    case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
      if (!type->tensor_type->has_elem_type)
        return NULL;
      return onyx_elem_type_schema_string (type->tensor_type->elem_type);
    case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
      if (!type->sparse_tensor_type->has_elem_type || elem_name (type->sparse_tensor_type->elem_type) == NULL)
        return NULL;
      return g_strdup_printf ("sparse_tensor(%s)", elem_name (type->sparse_tensor_type->elem_type));
    case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
      inner = onyx_type_schema_string (type->sequence_type->elem_type);
      return inner != NULL ? g_strdup_printf ("seq(%s)", inner) : NULL;
    case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
      inner = onyx_type_schema_string (type->optional_type->elem_type);
      return inner != NULL ? g_strdup_printf ("optional(%s)", inner) : NULL;
    case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
      {
        const Onnx__TypeProto *value = type->map_type->value_type;
        const char *key = type->map_type->has_key_type ? elem_name (type->map_type->key_type) : NULL;
        /* Schemas write map values that are tensors by their element type alone:
         * map(int64, float), but seq(map(string, float)) stays as it is. */
        if (key == NULL || value == NULL)
          return NULL;
        if (value->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
          {
            const char *name = value->tensor_type->has_elem_type
                               ? elem_name (value->tensor_type->elem_type) : NULL;
            return name != NULL ? g_strdup_printf ("map(%s, %s)", key, name) : NULL;
          }
        inner = onyx_type_schema_string (value);
        return inner != NULL ? g_strdup_printf ("map(%s, %s)", key, inner) : NULL;
      }
    default:
      return NULL;
    }
}

char *
onyx_schema_docs_url (const char *domain, const char *op_type)
{
  g_autofree char *compact = NULL;

  const OnyxSchema *history;

  if (op_type == NULL || op_type[0] == '\0' || (history = onyx_schema_history (domain, op_type, NULL)) == NULL)
    return NULL;
  /* ONNX Runtime's operators: their section of its documentation, at the commit the
   * facts come from (its kernels in ai.onnx have none: the kernel list). */
  if (onyx_schema_is_onnxruntime (history))
    return onyx_domain_is_onnxruntime (history->domain)
             ? g_strdup_printf ("https://github.com/microsoft/onnxruntime/blob/%s/docs/ContribOperators.md#%s.%s",
                                onyx_ort_contrib_commit, history->domain, op_type)
             : g_strdup_printf ("https://github.com/microsoft/onnxruntime/blob/%s/docs/OperatorKernels.md",
                                onyx_ort_kernels_commit);
  /* The pages are named onnx__Conv.html and onnx_aionnxml_LinearClassifier.html. */
  compact = g_strdup (normal_domain (domain));
  for (char *p = compact, *q = compact;; p++)
    {
      if (*p != '.')
        *q++ = *p;
      if (*p == '\0')
        break;
    }
  return g_strdup_printf ("https://onnx.ai/onnx/operators/onnx_%s_%s.html", compact, op_type);
}

gint64
onyx_opset_version (Onnx__OperatorSetIdProto *const *opsets, size_t n_opsets, const char *domain)
{
  for (size_t i = 0; i < n_opsets; i++)
    {
      const char *imported = opsets[i]->domain;
      if (onyx_domain_is_default (domain) ? onyx_domain_is_default (imported)
                                          : g_strcmp0 (imported, domain) == 0)
        return opsets[i]->version;
    }
  return -1;
}

const OnyxSchema *
onyx_schema_for_node (const Onnx__NodeProto *node, Onnx__OperatorSetIdProto *const *opsets,
                      size_t n_opsets)
{
  gint64 version = onyx_opset_version (opsets, n_opsets, node->domain);
  /* Past the library's newest opset, the schema it has may have changed since. */
  if (version < 0 || version > onyx_schema_domain_version (node->domain))
    return NULL;
  return onyx_schema_lookup (node->domain, node->op_type, version);
}
