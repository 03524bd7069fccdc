/* onyx-diagnose-types.c: element types as the diagnostics know them, and the
 * check of a node's types against its schema's type constraints. */
#include "onyx-diagnose-private.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "onyx-attribute.h"
#include "onyx-schema.h"
#include "onyx-summary.h"
#include "onyx-types.h"
#include "onyx-text.h"

/* Every stage records its problems through this (the lowest of the stages' files). */
void
onyx_diagnose_add (GPtrArray *out, const OnyxCheckedGraph *g, OnyxProblemKind kind,
                   OnyxProblemSeverity severity, const Onnx__NodeProto *node, int index,
                   const char *tensor, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (out, onyx_problem_new_valist (kind, severity, g->label, g->graph, node, index, tensor,
                                                 format, args));
  va_end (args);
}

/* ---- What is known of element types ---- */

/* OnyxKnownTypes (as schema type strings, "tensor(float)") of one graph's tensors; subgraphs
 * see their outer graphs'. Declared types come from the graph's inputs, initializers,
 * value_info and outputs; inferred ones from the producer's schema. */
struct _OnyxKnownTypes {
  const OnyxKnownTypes *outer;
  GHashTable *declared;   /* name → type (both owned) */
  GHashTable *inferred;
};

OnyxKnownTypes *
onyx_known_types_new (const OnyxKnownTypes *outer)
{
  OnyxKnownTypes *types = g_new0 (OnyxKnownTypes, 1);
  types->outer = outer;
  types->declared = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  types->inferred = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return types;
}

void
onyx_known_types_free (OnyxKnownTypes *types)
{
  if (types == NULL)
    return;
  g_hash_table_unref (types->declared);
  g_hash_table_unref (types->inferred);
  g_free (types);
}

/* What the producer makes wins over what value_info says: a conflict between them is
 * reported once, at the producer, rather than again at every consumer. */
const char *
onyx_known_types_lookup (const OnyxKnownTypes *types, const char *name)
{
  for (; types != NULL; types = types->outer)
    {
      const char *type = g_hash_table_lookup (types->inferred, name);
      if (type == NULL)
        type = g_hash_table_lookup (types->declared, name);
      if (type != NULL)
        return type;
    }
  return NULL;
}

/* Takes `type`; the first declaration of a name wins. */
static void
known_types_declare (OnyxKnownTypes *types, const char *name, char *type)
{
  if (name == NULL || name[0] == '\0' || type == NULL ||
      g_hash_table_contains (types->declared, name))
    {
      g_free (type);
      return;
    }
  g_hash_table_insert (types->declared, g_strdup (name), type);
}

/* Takes `type` (NULL forgets what was inferred). TRUE when that changes anything. */
gboolean
onyx_known_types_infer (OnyxKnownTypes *types, const char *name, char *type)
{
  const char *old = g_hash_table_lookup (types->inferred, name);
  gboolean changed = g_strcmp0 (old, type) != 0;

  if (type != NULL)
    g_hash_table_insert (types->inferred, g_strdup (name), type);
  else
    g_hash_table_remove (types->inferred, name);
  return changed;
}

void
onyx_known_types_declare_graph (OnyxKnownTypes *types, const Onnx__GraphProto *graph)
{
  /* Initializers first: their data is what the type is. */
  for (size_t i = 0; i < graph->n_initializer; i++)
    known_types_declare (types, graph->initializer[i]->name,
                   onyx_elem_type_schema_string (graph->initializer[i]->data_type));
  for (size_t i = 0; i < graph->n_input; i++)
    known_types_declare (types, graph->input[i]->name,
                         onyx_type_schema_string (graph->input[i]->type));
  for (size_t i = 0; i < graph->n_value_info; i++)
    known_types_declare (types, graph->value_info[i]->name,
                         onyx_type_schema_string (graph->value_info[i]->type));
  for (size_t i = 0; i < graph->n_output; i++)
    known_types_declare (types, graph->output[i]->name,
                         onyx_type_schema_string (graph->output[i]->type));
}

/* ---- Element types against type constraints ---- */

typedef struct {
  const char *constraint;  /* "T" */
  char *type;              /* the type the first slot bound to it has */
  guint slot;              /* that input slot */
  gboolean conflict;       /* slots disagree: what the outputs are is unknown */
} Binding;

static void
binding_clear (gpointer data)
{
  Binding *binding = data;
  g_free (binding->type);
}

static char *
allowed_text (const OnyxSchema *schema, const OnyxSchemaParam *param)
{
  const OnyxSchemaTypeConstraint *constraint
      = onyx_schema_find_constraint (schema, param->type_str);
  GString *text;

  if (constraint == NULL)
    return g_strdup (param->type_str);
  text = g_string_new (NULL);
  for (guint i = 0; i < constraint->n_types; i++)
    g_string_append_printf (text, "%s%s", i > 0 ? ", " : "",
                            onyx_schema_type_string (constraint->types[i]));
  return g_string_free (text, FALSE);
}

/* Whether slots of `param` share one type with the other slots of its constraint. */
static gboolean
binds (const OnyxSchemaParam *param)
{
  return param->option != ONYX_PARAM_VARIADIC || param->homogeneous;
}

static Binding *
find_binding (GArray *bindings, const char *constraint)
{
  for (guint i = 0; i < bindings->len; i++)
    if (strcmp (g_array_index (bindings, Binding, i).constraint, constraint) == 0)
      return &g_array_index (bindings, Binding, i);
  return NULL;
}

/* Checks an input's known type against its parameter and the types bound so far. */
static void
bind_input (const OnyxCheckedGraph *g, const Onnx__NodeProto *node, int index,
            const OnyxSchema *schema, guint k, const char *type, GArray *bindings,
            OnyxProblemSeverity severity, GPtrArray *out)
{
  const OnyxSchemaParam *param = onyx_schema_input (schema, k);
  const OnyxSchemaTypeConstraint *constraint;
  Binding *bound;

  if (!onyx_schema_param_allows (schema, param, type))
    {
      g_autofree char *allowed = allowed_text (schema, param);
      g_autofree char *slot = onyx_schema_input_name (schema, k);
      g_autofree char *label = onyx_node_label (node, index);
      g_autofree char *tensor = onyx_display_escape (node->input[k]);
      onyx_diagnose_add (out, g, ONYX_PROBLEM_TYPE_CONFLICT, severity, node, index, node->input[k],
                         _("input %s '%s' of %s is %s, but %s allows only %s"), slot, tensor, label,
                         type, schema->name, allowed);
      return;
    }
  constraint = onyx_schema_find_constraint (schema, param->type_str);
  if (constraint == NULL || !binds (param))
    return;
  bound = find_binding (bindings, constraint->name);
  if (bound == NULL)
    {
      Binding binding = { constraint->name, g_strdup (type), k, FALSE };
      g_array_append_val (bindings, binding);
    }
  else if (strcmp (bound->type, type) != 0)
    {
      g_autofree char *first_slot = onyx_schema_input_name (schema, bound->slot);
      g_autofree char *first = onyx_display_escape (node->input[bound->slot]);
      g_autofree char *slot = onyx_schema_input_name (schema, k);
      g_autofree char *label = onyx_node_label (node, index);
      g_autofree char *tensor = onyx_display_escape (node->input[k]);
      bound->conflict = TRUE;
      onyx_diagnose_add (out, g, ONYX_PROBLEM_TYPE_CONFLICT, severity, node, index, node->input[k],
                         _("inputs %s '%s' (%s) and %s '%s' (%s) of %s must have the same type %s"),
                         first_slot, first, bound->type, slot, tensor, type, label,
                         constraint->name);
    }
}

/* Element type set by an attribute: Cast's `to`, Constant's value. */
static char *
type_from_attributes (const Onnx__NodeProto *node)
{
  const Onnx__AttributeProto *attr;

  if (!onyx_domain_is_default (node->domain))
    return NULL;
  if (g_strcmp0 (node->op_type, "Cast") == 0)
    {
      attr = onyx_node_find_attribute (node, "to", NULL);
      return attr != NULL ? onyx_elem_type_schema_string ((int32_t) attr->i) : NULL;
    }
  if (g_strcmp0 (node->op_type, "Constant") != 0 || node->n_attribute != 1)
    return NULL;
  attr = node->attribute[0];
  if (g_strcmp0 (attr->name, "value") == 0 && attr->t != NULL)
    return onyx_elem_type_schema_string (attr->t->data_type);
  if (g_strcmp0 (attr->name, "value_float") == 0 || g_strcmp0 (attr->name, "value_floats") == 0)
    return onyx_elem_type_schema_string (ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
  if (g_strcmp0 (attr->name, "value_int") == 0 || g_strcmp0 (attr->name, "value_ints") == 0)
    return onyx_elem_type_schema_string (ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
  if (g_strcmp0 (attr->name, "value_string") == 0 || g_strcmp0 (attr->name, "value_strings") == 0)
    return onyx_elem_type_schema_string (ONNX__TENSOR_PROTO__DATA_TYPE__STRING);
  return NULL;
}

/* What the schema makes of output slot k given the inputs' types, or NULL. */
static char *
output_type (const Onnx__NodeProto *node, const OnyxSchema *schema, const OnyxSchemaParam *param,
             guint k, GArray *bindings)
{
  const OnyxSchemaTypeConstraint *constraint
      = onyx_schema_find_constraint (schema, param->type_str);
  Binding *bound;

  if (constraint == NULL)
    return g_strdup (param->type_str);
  if (!binds (param))
    return NULL;
  bound = find_binding (bindings, constraint->name);
  if (bound != NULL)
    return bound->conflict ? NULL : g_strdup (bound->type);
  if (constraint->n_types == 1)
    return g_strdup (onyx_schema_type_string (constraint->types[0]));
  return k == 0 ? type_from_attributes (node) : NULL;
}

/* The type declared for output slot k (value_info, graph output) against what the
 * schema allows there and what it makes of the inputs (`made`, may be NULL). */
static void
check_declared_output (const OnyxCheckedGraph *g, const Onnx__NodeProto *node, int index,
                       const OnyxSchema *schema, const OnyxSchemaParam *param, guint k,
                       const char *declared, const char *made, OnyxProblemSeverity severity,
                       GPtrArray *out)
{
  gboolean allowed = onyx_schema_param_allows (schema, param, declared);
  g_autofree char *slot = NULL, *tensor = NULL, *label = NULL, *allowed_types = NULL;

  if (allowed && (made == NULL || strcmp (made, declared) == 0))
    return;
  slot = onyx_schema_output_name (schema, k);
  tensor = onyx_display_escape (node->output[k]);
  label = onyx_node_label (node, index);
  if (!allowed)
    {
      allowed_types = allowed_text (schema, param);
      onyx_diagnose_add (out, g, ONYX_PROBLEM_TYPE_CONFLICT, severity, node, index, node->output[k],
                         _("output %s '%s' of %s is declared %s, but %s allows only %s"), slot, tensor,
                         label, declared, schema->name, allowed_types);
    }
  else
    onyx_diagnose_add (out, g, ONYX_PROBLEM_TYPE_CONFLICT, severity, node, index, node->output[k],
                       _("output %s '%s' of %s is declared %s, but %s makes it %s"), slot, tensor,
                       label, declared, schema->name, made);
}

/* Checks the node's known input types and the types declared for its outputs, and
 * records what its outputs are. TRUE when an output's inferred type changed. */
gboolean
onyx_diagnose_types (const OnyxCheckedGraph *g, const Onnx__NodeProto *node, int index,
                     const OnyxSchema *schema, OnyxProblemSeverity severity, gboolean infer,
                     GPtrArray *out)
{
  g_autoptr (GArray) bindings = g_array_new (FALSE, TRUE, sizeof (Binding));
  gboolean changed = FALSE;

  g_array_set_clear_func (bindings, binding_clear);
  for (size_t k = 0; k < node->n_input; k++)
    {
      const char *type;
      if (node->input[k] == NULL || node->input[k][0] == '\0' ||
          onyx_schema_input (schema, k) == NULL)
        continue;
      type = onyx_known_types_lookup (g->types, node->input[k]);
      if (type != NULL)
        bind_input (g, node, index, schema, k, type, bindings, severity, out);
    }
  for (size_t k = 0; k < node->n_output; k++)
    {
      const char *name = node->output[k];
      const OnyxSchemaParam *param;
      const char *declared;
      char *made = NULL;

      if (name == NULL || name[0] == '\0')
        continue;
      param = onyx_schema_output (schema, k);
      if (param != NULL)
        {
          made = output_type (node, schema, param, k, bindings);
          declared = g_hash_table_lookup (g->types->declared, name);
          if (declared != NULL)
            check_declared_output (g, node, index, schema, param, k, declared, made, severity, out);
        }
      if (infer)
        changed |= onyx_known_types_infer (g->types, name, made);
      else
        g_free (made);
    }
  return changed;
}

void
onyx_diagnose_forget_outputs (const OnyxCheckedGraph *g, const Onnx__NodeProto *node,
                              gboolean *changed)
{
  for (size_t k = 0; k < node->n_output; k++)
    if (node->output[k] != NULL && node->output[k][0] != '\0')
      *changed |= onyx_known_types_infer (g->types, node->output[k], NULL);
}
