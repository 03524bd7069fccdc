#include "onyx-diagnose.h"

#include <string.h>

#include "onyx-attribute.h"
#include "onyx-graph-index.h"
#include "onyx-schema.h"
#include "onyx-summary.h"
#include "onyx-types.h"

/* ---- What is known of element types ---- */

/* Types (as schema type strings, "tensor(float)") of one graph's tensors; subgraphs
 * see their outer graphs'. Declared types come from the graph's inputs, initializers,
 * value_info and outputs; inferred ones from the producer's schema. */
typedef struct _Types Types;
struct _Types {
  const Types *outer;
  GHashTable *declared;   /* name → type (both owned) */
  GHashTable *inferred;
};

static Types *
types_new (const Types *outer)
{
  Types *types = g_new0 (Types, 1);
  types->outer = outer;
  types->declared = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  types->inferred = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return types;
}

static void
types_free (Types *types)
{
  if (types == NULL)
    return;
  g_hash_table_unref (types->declared);
  g_hash_table_unref (types->inferred);
  g_free (types);
}

/* What the producer makes wins over what value_info says: a conflict between them is
 * reported once, at the producer, rather than again at every consumer. */
static const char *
types_lookup (const Types *types, const char *name)
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
types_declare (Types *types, const char *name, char *type)
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
static gboolean
types_infer (Types *types, const char *name, char *type)
{
  const char *old = g_hash_table_lookup (types->inferred, name);
  gboolean changed = g_strcmp0 (old, type) != 0;

  if (type != NULL)
    g_hash_table_insert (types->inferred, g_strdup (name), type);
  else
    g_hash_table_remove (types->inferred, name);
  return changed;
}

static void
types_declare_graph (Types *types, const Onnx__GraphProto *graph)
{
  /* Initializers first: their data is what the type is. */
  for (size_t i = 0; i < graph->n_initializer; i++)
    types_declare (types, graph->initializer[i]->name,
                   onyx_elem_type_schema_string (graph->initializer[i]->data_type));
  for (size_t i = 0; i < graph->n_input; i++)
    types_declare (types, graph->input[i]->name, onyx_type_schema_string (graph->input[i]->type));
  for (size_t i = 0; i < graph->n_value_info; i++)
    types_declare (types, graph->value_info[i]->name,
                   onyx_type_schema_string (graph->value_info[i]->type));
  for (size_t i = 0; i < graph->n_output; i++)
    types_declare (types, graph->output[i]->name, onyx_type_schema_string (graph->output[i]->type));
}

/* ---- One graph being checked ---- */

typedef struct {
  const char *label;                 /* "main graph", "Loop_2/body", "function d::f" */
  Onnx__OperatorSetIdProto **opsets;
  size_t n_opsets;
  GHashTable *functions;             /* "domain\nname" of the model's local functions */
  Types *types;
} Graph;

static void add (GPtrArray *out, const Graph *g, OnyxProblemKind kind, OnyxProblemSeverity severity,
                 const Onnx__NodeProto *node, int index, const char *tensor, const char *format,
                 ...) G_GNUC_PRINTF (8, 9);

static void
add (GPtrArray *out, const Graph *g, OnyxProblemKind kind, OnyxProblemSeverity severity,
     const Onnx__NodeProto *node, int index, const char *tensor, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (out, onyx_problem_new_valist (kind, severity, g->label, node, index, tensor,
                                                 format, args));
  va_end (args);
}

/* Messages name the node; most nodes have nothing to say, so the (escaped) label is
 * made on first use. */
static const char *
lazy_label (char **label, const Onnx__NodeProto *node, int index)
{
  if (*label == NULL)
    *label = onyx_node_label (node, index);
  return *label;
}

static const char *
domain_name (const char *domain)
{
  return onyx_domain_is_default (domain) ? "ai.onnx" : domain;
}

static char *
function_key (const char *domain, const char *name)
{
  return g_strdup_printf ("%s\n%s", onyx_domain_is_default (domain) ? "" : domain,
                          name != NULL ? name : "");
}

static GHashTable *
local_functions (const Onnx__ModelProto *model)
{
  GHashTable *functions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (size_t i = 0; i < model->n_functions; i++)
    g_hash_table_add (functions, function_key (model->functions[i]->domain,
                                               model->functions[i]->name));
  return functions;
}

static gboolean
is_local_function (const Graph *g, const Onnx__NodeProto *node)
{
  g_autofree char *key = function_key (node->domain, node->op_type);
  return g_hash_table_contains (g->functions, key);
}

/* The node's label, operator and domain, escaped for a message. */
static void
describe_op (const Onnx__NodeProto *node, int index, char **label, char **op, char **domain)
{
  *label = onyx_node_label (node, index);
  *op = onyx_display_escape (node->op_type);
  *domain = onyx_display_escape (domain_name (node->domain));
}

/* The schema the node is checked against, or NULL (with a finding when that is a
 * problem). `beyond`: the model's opset is newer than the schema table, whose answers
 * may then be out of date, so findings from it are only warnings. */
static const OnyxSchema *
node_schema (const Graph *g, const Onnx__NodeProto *node, int index, gboolean *beyond,
             GPtrArray *out)
{
  g_autofree char *label = NULL, *op = NULL, *domain = NULL;
  const OnyxSchema *history, *schema;
  OnyxProblemSeverity severity;
  gint64 version;
  int known;
  guint n_versions = 0;

  *beyond = FALSE;
  if (node->op_type == NULL || is_local_function (g, node))
    return NULL;
  if (!onyx_domain_is_standard (node->domain))
    {
      describe_op (node, index, &label, &op, &domain);
      add (out, g, ONYX_PROBLEM_CUSTOM_OP, ONYX_PROBLEM_WARNING, node, index, NULL,
           "%s uses the custom operator %s::%s: standard runtimes cannot run it without its "
           "implementation", label, domain, op);
      return NULL;
    }
  version = onyx_opset_version (g->opsets, g->n_opsets, node->domain);
  if (version < 0)
    return NULL; /* validation reports the missing opset import */
  known = onyx_schema_domain_version (node->domain);
  if (known == 0)
    return NULL; /* a standard domain the table has no schemas of (ai.onnx.training) */
  *beyond = version > known;
  severity = *beyond ? ONYX_PROBLEM_WARNING : ONYX_PROBLEM_ERROR;

  history = onyx_schema_history (node->domain, node->op_type, &n_versions);
  if (history == NULL)
    {
      describe_op (node, index, &label, &op, &domain);
      if (*beyond)
        add (out, g, ONYX_PROBLEM_UNKNOWN_OP, severity, node, index, NULL,
             "%s: %s is not an operator of %s up to opset %d (ONNX %s); the model imports "
             "opset %" G_GINT64_FORMAT, label, op, domain, known, onyx_schema_onnx_version (),
             version);
      else
        add (out, g, ONYX_PROBLEM_UNKNOWN_OP, severity, node, index, NULL,
             "%s: %s is not an operator of %s", label, op, domain);
      return NULL;
    }
  schema = onyx_schema_lookup (node->domain, node->op_type, version);
  if (schema == NULL)
    {
      describe_op (node, index, &label, &op, &domain);
      add (out, g, ONYX_PROBLEM_OP_NOT_IN_OPSET, severity, node, index, NULL,
           "%s: %s exists from opset %d of %s on, but the model imports opset %" G_GINT64_FORMAT,
           label, op, history[0].since_version, domain, version);
      return NULL;
    }
  if (schema->deprecated)
    {
      describe_op (node, index, &label, &op, &domain);
      add (out, g, ONYX_PROBLEM_OP_NOT_IN_OPSET, severity, node, index, NULL,
           "%s: %s was removed in opset %d of %s (the model imports opset %" G_GINT64_FORMAT ")",
           label, op, schema->since_version, domain, version);
      return NULL;
    }
  return schema;
}

static char *
arity_text (int min, int max)
{
  if (min == max)
    return g_strdup_printf ("%d", min);
  if (max == G_MAXINT)
    return g_strdup_printf ("at least %d", min);
  return g_strdup_printf ("%d to %d", min, max);
}

static void
check_slots (const Graph *g, const Onnx__NodeProto *node, int index, const OnyxSchema *schema,
             gboolean outputs, OnyxProblemSeverity severity, GPtrArray *out)
{
  char **names = outputs ? node->output : node->input;
  size_t n = outputs ? node->n_output : node->n_input;
  int min = outputs ? schema->min_output : schema->min_input;
  int max = outputs ? schema->max_output : schema->max_input;
  const char *what = outputs ? "output" : "input";
  g_autofree char *label = NULL;

  if (n < (size_t) min || n > (size_t) max)
    {
      g_autofree char *expected = arity_text (min, max);
      add (out, g, outputs ? ONYX_PROBLEM_OUTPUT_COUNT : ONYX_PROBLEM_INPUT_COUNT, severity,
           node, index, NULL, "%s has %zu %ss, but %s takes %s", lazy_label (&label, node, index),
           n, what, schema->name, expected);
      return;
    }
  /* Omitted optional slots are "", but a required one may not be. */
  for (size_t k = 0; k < n; k++)
    {
      const OnyxSchemaParam *param = outputs ? onyx_schema_output (schema, k)
                                             : onyx_schema_input (schema, k);
      if (param != NULL && param->option == ONYX_PARAM_SINGLE && (names[k] == NULL || names[k][0] == '\0'))
        add (out, g, outputs ? ONYX_PROBLEM_OUTPUT_COUNT : ONYX_PROBLEM_INPUT_COUNT, severity,
             node, index, NULL, "%s %zu (%s) of %s is empty, but %s requires it", what, k,
             param->name, lazy_label (&label, node, index), schema->name);
    }
}

static void
check_attributes (const Graph *g, const Onnx__NodeProto *node, int index,
                  const OnyxSchema *schema, OnyxProblemSeverity severity, GPtrArray *out)
{
  g_autofree char *label = NULL;

  for (size_t a = 0; a < node->n_attribute; a++)
    {
      const Onnx__AttributeProto *attr = node->attribute[a];
      const OnyxSchemaAttribute *expected = onyx_schema_find_attribute (schema, attr->name);
      g_autofree char *name = NULL;

      if (expected == NULL)
        {
          name = onyx_display_escape (attr->name);
          add (out, g, ONYX_PROBLEM_UNKNOWN_ATTRIBUTE, severity, node, index, NULL,
               "%s has an attribute '%s', which %s does not define", lazy_label (&label, node, index),
               name, schema->name);
        }
      /* Very old files leave the type out (UNDEFINED); nothing to compare then. */
      else if (attr->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED &&
               (int) attr->type != expected->type)
        {
          name = onyx_display_escape (attr->name);
          add (out, g, ONYX_PROBLEM_ATTRIBUTE_TYPE, severity, node, index, NULL,
               "attribute '%s' of %s is %s, but %s expects %s", name, lazy_label (&label, node, index),
               onyx_attribute_type_name (attr->type), schema->name,
               onyx_attribute_type_name (expected->type));
        }
    }
  for (guint a = 0; a < schema->n_attributes; a++)
    if (schema->attributes[a].required &&
        onyx_node_find_attribute (node, schema->attributes[a].name, NULL) == NULL)
      add (out, g, ONYX_PROBLEM_MISSING_ATTRIBUTE, severity, node, index, NULL,
           "%s lacks the attribute '%s', which %s requires", lazy_label (&label, node, index),
           schema->attributes[a].name,
           schema->name);
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
  const OnyxSchemaTypeConstraint *constraint = onyx_schema_find_constraint (schema, param->type_str);
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
bind_input (const Graph *g, const Onnx__NodeProto *node, int index, const OnyxSchema *schema,
            guint k, const char *type, GArray *bindings, OnyxProblemSeverity severity,
            GPtrArray *out)
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
      add (out, g, ONYX_PROBLEM_TYPE_CONFLICT, severity, node, index, node->input[k],
           "input %s '%s' of %s is %s, but %s allows only %s", slot, tensor, label, type,
           schema->name, allowed);
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
      add (out, g, ONYX_PROBLEM_TYPE_CONFLICT, severity, node, index, node->input[k],
           "inputs %s '%s' (%s) and %s '%s' (%s) of %s must have the same type %s",
           first_slot, first, bound->type, slot, tensor, type, label, constraint->name);
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
  const OnyxSchemaTypeConstraint *constraint = onyx_schema_find_constraint (schema, param->type_str);
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
check_declared_output (const Graph *g, const Onnx__NodeProto *node, int index,
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
      add (out, g, ONYX_PROBLEM_TYPE_CONFLICT, severity, node, index, node->output[k],
           "output %s '%s' of %s is declared %s, but %s allows only %s", slot, tensor, label,
           declared, schema->name, allowed_types);
    }
  else
    add (out, g, ONYX_PROBLEM_TYPE_CONFLICT, severity, node, index, node->output[k],
         "output %s '%s' of %s is declared %s, but %s makes it %s", slot, tensor, label,
         declared, schema->name, made);
}

/* Checks the node's known input types and the types declared for its outputs, and
 * records what its outputs are. TRUE when an output's inferred type changed. */
static gboolean
check_types (const Graph *g, const Onnx__NodeProto *node, int index, const OnyxSchema *schema,
             OnyxProblemSeverity severity, gboolean infer, GPtrArray *out)
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
      type = types_lookup (g->types, node->input[k]);
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
        changed |= types_infer (g->types, name, made);
      else
        g_free (made);
    }
  return changed;
}

static void
forget_outputs (const Graph *g, const Onnx__NodeProto *node, gboolean *changed)
{
  for (size_t k = 0; k < node->n_output; k++)
    if (node->output[k] != NULL && node->output[k][0] != '\0')
      *changed |= types_infer (g->types, node->output[k], NULL);
}

static void diagnose_body (const Graph *g, Onnx__NodeProto **nodes, size_t n_nodes,
                           GPtrArray *outputs, GPtrArray *out);
static void check_initializers (const Graph *g, const Onnx__GraphProto *graph,
                                GHashTable *reads, GPtrArray *out);

static void
diagnose_subgraph (const Graph *outer, const char *label, const Onnx__GraphProto *graph,
                   GPtrArray *out)
{
  Graph g = { label, outer->opsets, outer->n_opsets, outer->functions, types_new (outer->types) };
  g_autoptr (GPtrArray) outputs = g_ptr_array_new ();

  types_declare_graph (g.types, graph);
  for (size_t i = 0; i < graph->n_output; i++)
    g_ptr_array_add (outputs, graph->output[i]->name);
  diagnose_body (&g, graph->node, graph->n_node, outputs, out);
  check_initializers (&g, graph, NULL, out);
  types_free (g.types);
}

/* Everything about one node: its operator, slots, attributes and types, and its
 * subgraphs. TRUE when what is known of its outputs' types changed. */
static gboolean
check_node (const Graph *g, const Onnx__NodeProto *node, int index, GPtrArray *out)
{
  gboolean beyond = FALSE, changed = FALSE;
  const OnyxSchema *schema = node_schema (g, node, index, &beyond, out);

  if (schema != NULL)
    {
      OnyxProblemSeverity severity = beyond ? ONYX_PROBLEM_WARNING : ONYX_PROBLEM_ERROR;
      check_slots (g, node, index, schema, FALSE, severity, out);
      check_slots (g, node, index, schema, TRUE, severity, out);
      check_attributes (g, node, index, schema, severity, out);
      /* A schema newer than the table knows may type things differently: check, but
       * do not pass guesses on. */
      changed = check_types (g, node, index, schema, severity, !beyond, out);
      if (beyond)
        forget_outputs (g, node, &changed);
    }
  else
    forget_outputs (g, node, &changed);

  for (size_t a = 0; a < node->n_attribute; a++)
    {
      const Onnx__AttributeProto *attr = node->attribute[a];
      if (attr->g != NULL)
        {
          g_autofree char *label = onyx_subgraph_label (node, index, attr, -1);
          diagnose_subgraph (g, label, attr->g, out);
        }
      for (size_t s = 0; s < attr->n_graphs; s++)
        {
          g_autofree char *label = onyx_subgraph_label (node, index, attr, (gssize) s);
          diagnose_subgraph (g, label, attr->graphs[s], out);
        }
    }
  return changed;
}

/* ---- Uses: dead nodes, unused initializers ---- */

static void
add_dead (GPtrArray *out, const Graph *g, const Onnx__NodeProto *node, int index)
{
  g_autofree char *label = onyx_node_label (node, index);
  add (out, g, ONYX_PROBLEM_DEAD_NODE, ONYX_PROBLEM_WARNING, node, index, NULL,
       "%s computes nothing that reaches a graph output", label);
}

/* Which nodes a graph output depends on: walked back from the outputs. */
static gboolean *
find_live (Onnx__NodeProto **nodes, size_t n_nodes, GPtrArray *outputs)
{
  gboolean *live = g_new0 (gboolean, n_nodes);
  g_autoptr (GHashTable) producer = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_autoptr (GPtrArray) reads = g_ptr_array_new ();

  for (gsize i = 0; i < n_nodes; i++)
    for (size_t k = 0; k < nodes[i]->n_output; k++)
      if (nodes[i]->output[k] != NULL && nodes[i]->output[k][0] != '\0' &&
          !g_hash_table_contains (producer, nodes[i]->output[k]))
        g_hash_table_insert (producer, nodes[i]->output[k], GSIZE_TO_POINTER (i + 1));

#define MARK(name)                                                          \
  G_STMT_START {                                                            \
    gsize p = GPOINTER_TO_SIZE (g_hash_table_lookup (producer, (name)));   \
    if (p != 0 && !live[p - 1])                                             \
      {                                                                     \
        gsize at = p - 1;                                                   \
        live[at] = TRUE;                                                    \
        g_array_append_val (stack, at);                                     \
      }                                                                     \
  } G_STMT_END

  for (guint i = 0; i < outputs->len; i++)
    if (outputs->pdata[i] != NULL)
      MARK ((const char *) outputs->pdata[i]);
  while (stack->len > 0)
    {
      gsize i = g_array_index (stack, gsize, stack->len - 1);
      g_array_set_size (stack, stack->len - 1);
      g_ptr_array_set_size (reads, 0);
      onyx_node_collect_reads (nodes[i], reads);
      for (guint k = 0; k < reads->len; k++)
        MARK ((const char *) reads->pdata[k]);
    }
#undef MARK
  return live;
}

/* Each node's findings together, in node order: its checks, then whether it is dead. */
static void
diagnose_body (const Graph *g, Onnx__NodeProto **nodes, size_t n_nodes, GPtrArray *outputs,
               GPtrArray *out)
{
  g_autofree gboolean *live = NULL;
  GPtrArray **found = g_new0 (GPtrArray *, n_nodes);

  for (size_t i = 0; i < n_nodes; i++)
    {
      found[i] = g_ptr_array_new ();
      check_node (g, nodes[i], (int) i, found[i]);
    }
  live = find_live (nodes, n_nodes, outputs);
  for (size_t i = 0; i < n_nodes; i++)
    {
      for (guint p = 0; p < found[i]->len; p++)
        g_ptr_array_add (out, found[i]->pdata[p]);
      if (!live[i])
        add_dead (out, g, nodes[i], (int) i);
      g_ptr_array_unref (found[i]);
    }
  g_free (found);
}

/* Names the graph's nodes read (subgraph outer reads included) and its outputs. */
static GHashTable *
graph_reads (const Onnx__GraphProto *graph)
{
  GHashTable *reads = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GPtrArray) names = g_ptr_array_new ();

  for (size_t i = 0; i < graph->n_node; i++)
    onyx_node_collect_reads (graph->node[i], names);
  for (guint i = 0; i < names->len; i++)
    g_hash_table_add (reads, names->pdata[i]);
  for (size_t i = 0; i < graph->n_output; i++)
    if (graph->output[i]->name != NULL)
      g_hash_table_add (reads, graph->output[i]->name);
  return reads;
}

/* `reads` NULL: computed here; an index can answer faster (onyx_diagnostics). */
typedef gboolean (*IsReadFunc) (gpointer data, const char *name);

static void
check_initializers_with (const Graph *g, const Onnx__GraphProto *graph, IsReadFunc is_read,
                         gpointer data, GPtrArray *out)
{
  guint n_listed = 0;
  const char *first_listed = NULL;
  g_autoptr (GHashTable) inputs = g_hash_table_new (g_str_hash, g_str_equal);

  for (size_t i = 0; i < graph->n_input; i++)
    if (graph->input[i]->name != NULL)
      g_hash_table_add (inputs, graph->input[i]->name);
  for (size_t i = 0; i < graph->n_initializer; i++)
    {
      const char *name = graph->initializer[i]->name != NULL ? graph->initializer[i]->name : "";
      if (!is_read (data, name))
        {
          g_autofree char *shown = onyx_display_escape (name);
          add (out, g, ONYX_PROBLEM_UNUSED_INITIALIZER, ONYX_PROBLEM_WARNING, NULL, -1, name,
               "initializer '%s' is not used by any node", shown);
        }
      if (g_hash_table_contains (inputs, name) && n_listed++ == 0)
        first_listed = name;
    }
  if (n_listed > 0)
    add (out, g, ONYX_PROBLEM_INITIALIZER_INPUT, ONYX_PROBLEM_INFO, NULL, -1, first_listed,
         "%u initializer%s also listed as graph input%s (needed before IR version 4): "
         "runtimes let callers replace %s", n_listed, n_listed == 1 ? " is" : "s are",
         n_listed == 1 ? "" : "s", n_listed == 1 ? "it" : "them");
}

static gboolean
set_contains (gpointer data, const char *name)
{
  return g_hash_table_contains (data, name);
}

static void
check_initializers (const Graph *g, const Onnx__GraphProto *graph, GHashTable *reads,
                    GPtrArray *out)
{
  g_autoptr (GHashTable) own = reads == NULL ? graph_reads (graph) : NULL;
  check_initializers_with (g, graph, set_contains, reads != NULL ? reads : own, out);
}

/* ---- The main graph's inputs and outputs ---- */

static void
check_io_shapes (const Graph *g, const Onnx__GraphProto *graph, GPtrArray *out)
{
  for (int output = 0; output < 2; output++)
    {
      Onnx__ValueInfoProto **infos = output ? graph->output : graph->input;
      size_t n = output ? graph->n_output : graph->n_input;
      const char *what = output ? "output" : "input";
      /* An input without shape leaves the runtime guessing; an output's shape is
       * only documentation. */
      OnyxProblemSeverity severity = output ? ONYX_PROBLEM_INFO : ONYX_PROBLEM_WARNING;

      for (size_t i = 0; i < n; i++)
        {
          const Onnx__TypeProto *type = infos[i]->type;
          const char *name = infos[i]->name != NULL ? infos[i]->name : "";
          g_autofree char *shown = onyx_display_escape (name);

          if (!output && onyx_graph_input_is_initializer (graph, name))
            continue;
          if (type == NULL || type->value_case == ONNX__TYPE_PROTO__VALUE__NOT_SET)
            add (out, g, ONYX_PROBLEM_NO_SHAPE, severity, NULL, -1, name,
                 "graph %s '%s' has no type", what, shown);
          else if (type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
                   type->tensor_type->shape == NULL)
            add (out, g, ONYX_PROBLEM_NO_SHAPE, severity, NULL, -1, name,
                 "graph %s '%s' has no shape", what, shown);
        }
    }
}

static void
dim_param_free (OnyxDimParam *dim)
{
  g_free (dim->name);
  g_ptr_array_unref (dim->tensors);
  g_free (dim);
}

static void
collect_dims (GPtrArray *dims, GHashTable *by_name, Onnx__ValueInfoProto **infos, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      const Onnx__TypeProto *type = infos[i]->type;
      const Onnx__TensorShapeProto *shape;

      if (type == NULL || type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
          type->tensor_type->shape == NULL)
        continue;
      shape = type->tensor_type->shape;
      for (size_t d = 0; d < shape->n_dim; d++)
        {
          const char *param = shape->dim[d]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM
                              ? shape->dim[d]->dim_param : NULL;
          OnyxDimParam *dim;
          if (param == NULL || param[0] == '\0')
            continue;
          dim = g_hash_table_lookup (by_name, param);
          if (dim == NULL)
            {
              dim = g_new0 (OnyxDimParam, 1);
              dim->name = g_strdup (param);
              dim->tensors = g_ptr_array_new_with_free_func (g_free);
              g_ptr_array_add (dims, dim);
              g_hash_table_insert (by_name, dim->name, dim);
            }
          if (dim->tensors->len == 0 ||
              g_strcmp0 (dim->tensors->pdata[dim->tensors->len - 1], infos[i]->name) != 0)
            g_ptr_array_add (dim->tensors, g_strdup (infos[i]->name != NULL ? infos[i]->name : ""));
        }
    }
}

static GPtrArray *
graph_dim_params (const Onnx__GraphProto *graph)
{
  GPtrArray *dims = g_ptr_array_new_with_free_func ((GDestroyNotify) dim_param_free);
  g_autoptr (GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);

  if (graph != NULL)
    {
      collect_dims (dims, by_name, graph->input, graph->n_input);
      collect_dims (dims, by_name, graph->output, graph->n_output);
    }
  return dims;
}

GPtrArray *
onyx_model_dim_params (const Onnx__ModelProto *model)
{
  return graph_dim_params (model->graph);
}

/* "batch_size" and "BatchSize" alike: case and separators left out. */
static char *
dim_key (const char *name)
{
  GString *key = g_string_new (NULL);
  for (const char *p = name; *p != '\0'; p++)
    if (*p != '_' && *p != '-' && *p != ' ' && *p != '.')
      g_string_append_c (key, g_ascii_tolower (*p));
  return g_string_free (key, FALSE);
}

static void
check_dim_names (const Graph *g, const Onnx__GraphProto *graph, GPtrArray *out)
{
  g_autoptr (GPtrArray) dims = graph_dim_params (graph);
  g_autoptr (GHashTable) first_by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  /* The most used spelling of a key (the first one on a tie) is taken as meant. */
  for (guint i = 0; i < dims->len; i++)
    {
      OnyxDimParam *dim = dims->pdata[i];
      char *key = dim_key (dim->name);
      OnyxDimParam *main_spelling = g_hash_table_lookup (first_by_key, key);
      if (main_spelling == NULL || dim->tensors->len > main_spelling->tensors->len)
        {
          g_hash_table_insert (first_by_key, key, dim);
          continue;
        }
      g_free (key);
    }
  for (guint i = 0; i < dims->len; i++)
    {
      OnyxDimParam *dim = dims->pdata[i];
      g_autofree char *key = dim_key (dim->name);
      OnyxDimParam *main_spelling = g_hash_table_lookup (first_by_key, key);
      if (main_spelling != dim)
        {
          g_autofree char *name = onyx_display_escape (dim->name);
          g_autofree char *other = onyx_display_escape (main_spelling->name);
          g_autofree char *tensor = onyx_display_escape (dim->tensors->pdata[0]);
          g_autofree char *other_tensor = onyx_display_escape (main_spelling->tensors->pdata[0]);
          add (out, g, ONYX_PROBLEM_DIM_NAME, ONYX_PROBLEM_WARNING, NULL, -1, dim->tensors->pdata[0],
               "dynamic dim '%s' of '%s' differs from '%s' of '%s' only in case or separators: "
               "a mistyped axis name makes them independent", name, tensor, other, other_tensor);
        }
    }
}

/* ---- The whole model ---- */

static void
diagnose_graph_lists (const Graph *g, const Onnx__GraphProto *graph, IsReadFunc is_read,
                      gpointer data, GPtrArray *out)
{
  check_initializers_with (g, graph, is_read, data, out);
  check_io_shapes (g, graph, out);
  check_dim_names (g, graph, out);
}

static void
diagnose_functions (const Onnx__ModelProto *model, GHashTable *functions, GPtrArray *out)
{
  for (size_t f = 0; f < model->n_functions; f++)
    {
      const Onnx__FunctionProto *function = model->functions[f];
      g_autofree char *label = onyx_function_label (function);
      Graph g = { label, function->opset_import, function->n_opset_import, functions,
                  types_new (NULL) };
      g_autoptr (GPtrArray) outputs = g_ptr_array_new ();

      for (size_t i = 0; i < function->n_output; i++)
        g_ptr_array_add (outputs, function->output[i]);
      diagnose_body (&g, function->node, function->n_node, outputs, out);
      types_free (g.types);
    }
}

GPtrArray *
onyx_diagnose_model (const Onnx__ModelProto *model)
{
  GPtrArray *problems = onyx_validate_model (model);
  g_autoptr (GHashTable) functions = local_functions (model);

  if (model->graph != NULL)
    {
      const Onnx__GraphProto *graph = model->graph;
      Graph g = { "main graph", model->opset_import, model->n_opset_import, functions,
                  types_new (NULL) };
      g_autoptr (GPtrArray) outputs = g_ptr_array_new ();
      g_autoptr (GHashTable) reads = graph_reads (graph);

      types_declare_graph (g.types, graph);
      for (size_t i = 0; i < graph->n_output; i++)
        g_ptr_array_add (outputs, graph->output[i]->name);
      diagnose_body (&g, graph->node, graph->n_node, outputs, problems);
      diagnose_graph_lists (&g, graph, set_contains, reads, problems);
      types_free (g.types);
    }
  diagnose_functions (model, functions, problems);
  return problems;
}

/* ---- Kept up to date edit by edit ---- */

typedef struct {
  GPtrArray *problems;   /* check_node's findings, its subgraphs' included */
  OnyxProblem *dead;     /* while no graph output depends on the node */
  GPtrArray *touched;    /* names (owned) it read and wrote when last checked */
} NodeState;

struct _OnyxDiagnostics {
  OnyxDocument *document;
  GHashTable *functions;
  Types *types;          /* of the main graph */
  GHashTable *states;    /* Onnx__NodeProto* → NodeState* */
  GPtrArray *validation; /* onyx_validate_model()'s problems */
  GPtrArray *lists;      /* initializers, graph inputs/outputs, dims */
  GPtrArray *in_functions;
  GPtrArray *result;     /* borrowed pointers, assembled by get_problems */
};

static void
node_state_free (NodeState *state)
{
  g_ptr_array_unref (state->problems);
  onyx_problem_free (state->dead);
  g_ptr_array_unref (state->touched);
  g_free (state);
}

static NodeState *
ensure_state (OnyxDiagnostics *self, Onnx__NodeProto *node)
{
  NodeState *state = g_hash_table_lookup (self->states, node);
  if (state == NULL)
    {
      state = g_new0 (NodeState, 1);
      state->problems = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_problem_free);
      state->touched = g_ptr_array_new_with_free_func (g_free);
      g_hash_table_insert (self->states, node, state);
    }
  return state;
}

static Graph
main_graph (OnyxDiagnostics *self)
{
  Onnx__ModelProto *proto = onyx_document_get_proto (self->document);
  Graph g = { "main graph", proto->opset_import, proto->n_opset_import, self->functions,
              self->types };
  return g;
}

/* Every name the node reads (its subgraphs' outer reads too) and writes. */
static void
node_names (const Onnx__NodeProto *node, GPtrArray *names)
{
  onyx_node_collect_reads (node, names);
  for (size_t k = 0; k < node->n_output; k++)
    if (node->output[k] != NULL && node->output[k][0] != '\0')
      g_ptr_array_add (names, node->output[k]);
}

/* Named nodes need no position for their messages; the position of every listed
 * node is set when the list is assembled. */
static int
message_position (OnyxDiagnostics *self, Onnx__NodeProto *node)
{
  if (node->name != NULL && node->name[0] != '\0')
    return -1;
  return (int) onyx_graph_index_node_position (onyx_document_get_index (self->document), node);
}

static void set_live (OnyxDiagnostics *self, Onnx__NodeProto *node, gboolean live);

/* Re-runs a node's own checks; TRUE when its outputs' known types changed. */
static gboolean
recheck_node (OnyxDiagnostics *self, Onnx__NodeProto *node)
{
  NodeState *state = ensure_state (self, node);
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  Graph g = main_graph (self);
  gboolean changed;

  g_ptr_array_set_size (state->problems, 0);
  changed = check_node (&g, node, message_position (self, node), state->problems);
  g_ptr_array_set_size (state->touched, 0);
  node_names (node, names);
  for (guint i = 0; i < names->len; i++)
    g_ptr_array_add (state->touched, g_strdup (names->pdata[i]));
  /* The node may have been renamed: its dead finding names it too. */
  if (state->dead != NULL)
    set_live (self, node, FALSE);
  return changed;
}

static gboolean
is_live (OnyxDiagnostics *self, Onnx__NodeProto *node)
{
  NodeState *state = g_hash_table_lookup (self->states, node);
  return state == NULL || state->dead == NULL;
}

static void
set_live (OnyxDiagnostics *self, Onnx__NodeProto *node, gboolean live)
{
  NodeState *state = ensure_state (self, node);
  Graph g = main_graph (self);

  g_clear_pointer (&state->dead, onyx_problem_free);
  if (!live)
    {
      g_autoptr (GPtrArray) one = g_ptr_array_new ();
      add_dead (one, &g, node, message_position (self, node));
      state->dead = one->pdata[0];
    }
}

/* A node is live when a graph output is one of its outputs or a live node reads one. */
static gboolean
reaches_output (OnyxDiagnostics *self, Onnx__NodeProto *node)
{
  OnyxGraphIndex *index = onyx_document_get_index (self->document);

  for (size_t k = 0; k < node->n_output; k++)
    {
      const char *name = node->output[k];
      OnyxValue *value;
      if (name == NULL || name[0] == '\0')
        continue;
      if (onyx_graph_index_graph_output (index, name) != NULL)
        return TRUE;
      value = onyx_graph_index_lookup (index, name);
      for (guint u = 0; value != NULL && u < value->uses->len; u++)
        {
          Onnx__NodeProto *reader = g_array_index (value->uses, OnyxUse, u).node;
          if (reader != node && is_live (self, reader))
            return TRUE;
        }
    }
  return FALSE;
}

static gboolean
is_read (gpointer data, const char *name)
{
  OnyxGraphIndex *index = data;
  return onyx_graph_index_n_uses (index, name) > 0 ||
         onyx_graph_index_graph_output (index, name) != NULL;
}

static void
refresh_graph_wide (OnyxDiagnostics *self)
{
  Onnx__ModelProto *proto = onyx_document_get_proto (self->document);
  Graph g = main_graph (self);

  g_clear_pointer (&self->validation, g_ptr_array_unref);
  self->validation = onyx_validate_model (proto);
  g_ptr_array_set_size (self->lists, 0);
  diagnose_graph_lists (&g, proto->graph, is_read, onyx_document_get_index (self->document),
                        self->lists);
}

static void
recheck_all (OnyxDiagnostics *self)
{
  Onnx__ModelProto *proto = onyx_document_get_proto (self->document);
  Onnx__GraphProto *graph = proto->graph;
  g_autoptr (GPtrArray) outputs = g_ptr_array_new ();
  g_autofree gboolean *live = NULL;
  Graph g;

  g_hash_table_remove_all (self->states);
  types_free (self->types);
  self->types = types_new (NULL);
  types_declare_graph (self->types, graph);
  g = main_graph (self);
  for (size_t i = 0; i < graph->n_node; i++)
    {
      NodeState *state = ensure_state (self, graph->node[i]);
      g_autoptr (GPtrArray) names = g_ptr_array_new ();
      check_node (&g, graph->node[i], (int) i, state->problems);
      node_names (graph->node[i], names);
      for (guint k = 0; k < names->len; k++)
        g_ptr_array_add (state->touched, g_strdup (names->pdata[k]));
    }
  for (size_t i = 0; i < graph->n_output; i++)
    g_ptr_array_add (outputs, graph->output[i]->name);
  live = find_live (graph->node, graph->n_node, outputs);
  for (size_t i = 0; i < graph->n_node; i++)
    if (!live[i])
      {
        NodeState *state = ensure_state (self, graph->node[i]);
        g_autoptr (GPtrArray) one = g_ptr_array_new ();
        add_dead (one, &g, graph->node[i], (int) i);
        state->dead = one->pdata[0];
      }

  g_ptr_array_set_size (self->in_functions, 0);
  g_hash_table_unref (self->functions);
  self->functions = local_functions (proto);
  diagnose_functions (proto, self->functions, self->in_functions);
  refresh_graph_wide (self);
}

/* Queue of nodes, each at most once in it at a time. */
typedef struct {
  GQueue queue;
  GHashTable *queued;
} Work;

static void
work_push (Work *work, Onnx__NodeProto *node)
{
  if (node != NULL && g_hash_table_add (work->queued, node))
    g_queue_push_tail (&work->queue, node);
}

static Onnx__NodeProto *
work_pop (Work *work)
{
  Onnx__NodeProto *node = g_queue_pop_head (&work->queue);
  if (node != NULL)
    g_hash_table_remove (work->queued, node);
  return node;
}

/* The nodes producing or reading a name. */
static void
push_neighbours (Work *work, OnyxGraphIndex *index, const char *name, gboolean producer,
                 gboolean readers)
{
  OnyxValue *value = onyx_graph_index_lookup (index, name);

  if (value == NULL)
    return;
  if (producer)
    work_push (work, value->producer);
  for (guint u = 0; readers && u < value->uses->len; u++)
    work_push (work, g_array_index (value->uses, OnyxUse, u).node);
}

/* After an edit of `node` (a node of the main graph, or one just removed from it):
 * the node, the nodes producing or reading the tensors it touched before and after,
 * and downstream types and upstream reach as far as they change. The graph-wide
 * lists are left to the caller. */
static void
recheck_neighbourhood (OnyxDiagnostics *self, Onnx__NodeProto *node)
{
  OnyxGraphIndex *index = onyx_document_get_index (self->document);
  gboolean in_graph = onyx_graph_index_node_position (index, node) >= 0;
  NodeState *state = g_hash_table_lookup (self->states, node);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) visits = g_hash_table_new (NULL, NULL);
  g_autoptr (GPtrArray) reads = g_ptr_array_new ();
  Work types = { G_QUEUE_INIT, g_hash_table_new (NULL, NULL) };
  Work live = { G_QUEUE_INIT, g_hash_table_new (NULL, NULL) };
  Onnx__NodeProto *next;

  /* What the node touched before the edit and what it touches now. */
  if (state != NULL)
    for (guint i = 0; i < state->touched->len; i++)
      g_ptr_array_add (names, g_strdup (state->touched->pdata[i]));
  {
    g_autoptr (GPtrArray) now = g_ptr_array_new ();
    node_names (node, now);
    for (guint i = 0; i < now->len; i++)
      g_ptr_array_add (names, g_strdup (now->pdata[i]));
  }

  if (in_graph)
    work_push (&types, node);
  else
    {
      /* Gone: what it made is no longer known, unless another node makes it now. */
      Graph g = main_graph (self);
      for (size_t k = 0; k < node->n_output; k++)
        {
          OnyxValue *value;
          if (node->output[k] == NULL || node->output[k][0] == '\0')
            continue;
          value = onyx_graph_index_lookup (index, node->output[k]);
          if (value == NULL || value->producer == NULL)
            types_infer (g.types, node->output[k], NULL);
        }
      g_hash_table_remove (self->states, node);
    }
  for (guint i = 0; i < names->len; i++)
    push_neighbours (&types, index, names->pdata[i], TRUE, TRUE);

  /* Types flow downstream as far as what is known of them changes. A cycle (which
   * validation reports) could feed itself: each node is re-checked a few times at most. */
  while ((next = work_pop (&types)) != NULL)
    {
      guint n_visits = GPOINTER_TO_UINT (g_hash_table_lookup (visits, next));
      if (n_visits >= 3)
        continue;
      g_hash_table_insert (visits, next, GUINT_TO_POINTER (n_visits + 1));
      work_push (&live, next);
      if (recheck_node (self, next))
        for (size_t k = 0; k < next->n_output; k++)
          if (next->output[k] != NULL && next->output[k][0] != '\0')
            push_neighbours (&types, index, next->output[k], FALSE, TRUE);
    }

  /* Reach of the graph outputs changes upstream, as far as it changes. */
  for (guint i = 0; i < names->len; i++)
    push_neighbours (&live, index, names->pdata[i], TRUE, FALSE);
  while ((next = work_pop (&live)) != NULL)
    {
      gboolean now;
      /* A node no update was asked for (put back by an undo, say) is checked now. */
      if (!g_hash_table_contains (self->states, next))
        recheck_node (self, next);
      now = reaches_output (self, next);
      if (now == is_live (self, next))
        continue;
      set_live (self, next, now);
      g_ptr_array_set_size (reads, 0);
      onyx_node_collect_reads (next, reads);
      for (guint i = 0; i < reads->len; i++)
        push_neighbours (&live, index, reads->pdata[i], TRUE, FALSE);
    }

  g_hash_table_unref (types.queued);
  g_hash_table_unref (live.queued);
}

static void
document_changed_cb (OnyxDocument *document, const OnyxChange *change, OnyxDiagnostics *self)
{
  if (change == NULL)
    return;  /* saved: nothing in the model changed */
  if (change->whole_model)
    {
      recheck_all (self);
      return;
    }
  for (guint i = 0; i < change->nodes->len; i++)
    recheck_neighbourhood (self, change->nodes->pdata[i]);
  /* Validation and the graph lists only hash names: once for the whole step. */
  refresh_graph_wide (self);
}

OnyxDiagnostics *
onyx_diagnostics_new (OnyxDocument *document)
{
  OnyxDiagnostics *self = g_new0 (OnyxDiagnostics, 1);

  self->document = g_object_ref (document);
  self->functions = g_hash_table_new (g_str_hash, g_str_equal);
  self->states = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) node_state_free);
  self->lists = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_problem_free);
  self->in_functions = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_problem_free);
  self->result = g_ptr_array_new ();
  recheck_all (self);
  g_signal_connect (document, "changed", G_CALLBACK (document_changed_cb), self);
  return self;
}

void
onyx_diagnostics_free (OnyxDiagnostics *self)
{
  if (self == NULL)
    return;
  g_signal_handlers_disconnect_by_func (self->document, document_changed_cb, self);
  g_hash_table_unref (self->states);
  types_free (self->types);
  g_hash_table_unref (self->functions);
  g_clear_pointer (&self->validation, g_ptr_array_unref);
  g_ptr_array_unref (self->lists);
  g_ptr_array_unref (self->in_functions);
  g_ptr_array_unref (self->result);
  g_object_unref (self->document);
  g_free (self);
}

static void
append_all (GPtrArray *to, GPtrArray *from)
{
  for (guint i = 0; i < from->len; i++)
    g_ptr_array_add (to, from->pdata[i]);
}

GPtrArray *
onyx_diagnostics_get_problems (OnyxDiagnostics *self)
{
  Onnx__GraphProto *graph = onyx_document_get_proto (self->document)->graph;

  g_ptr_array_set_size (self->result, 0);
  append_all (self->result, self->validation);
  for (size_t i = 0; i < graph->n_node; i++)
    {
      NodeState *state = g_hash_table_lookup (self->states, graph->node[i]);
      if (state == NULL)
        continue;
      for (guint p = 0; p < state->problems->len; p++)
        {
          OnyxProblem *problem = state->problems->pdata[p];
          if (problem->node_proto == graph->node[i])
            problem->node_index = (int) i;
          g_ptr_array_add (self->result, problem);
        }
      if (state->dead != NULL)
        {
          state->dead->node_index = (int) i;
          g_ptr_array_add (self->result, state->dead);
        }
    }
  append_all (self->result, self->lists);
  append_all (self->result, self->in_functions);
  return self->result;
}
