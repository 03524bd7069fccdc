#include "onyx-diagnose-private.h"

#include <glib/gi18n-lib.h>

#include <stdio.h>
#include <string.h>

#include "onyx-attribute.h"
#include "onyx-graph-index.h"
#include "onyx-schema.h"
#include "onyx-onnx.h"
#include "onyx-shapes.h"
#include "onyx-shapes-private.h"
#include "onyx-summary.h"
#include "onyx-types.h"
#include "onyx-text.h"

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

GHashTable *
onyx_diagnose_local_functions (const Onnx__ModelProto *model)
{
  GHashTable *functions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (size_t i = 0; i < model->n_functions; i++)
    g_hash_table_add (functions, function_key (model->functions[i]->domain,
                                               model->functions[i]->name));
  return functions;
}

static gboolean
is_local_function (const OnyxCheckedGraph *g, const Onnx__NodeProto *node)
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

/* The schema the node is checked against, or NULL (with a problem when that is a
 * problem). A model importing a newer opset than the linked library knows is told so
 * once (onyx_diagnose_library_limits); its nodes of that domain get no problems, since
 * any schema may have changed since. */
static const OnyxSchema *
node_schema (const OnyxCheckedGraph *g, const Onnx__NodeProto *node, int index, GPtrArray *out)
{
  g_autofree char *label = NULL, *op = NULL, *domain = NULL;
  const OnyxSchema *history, *schema;
  gint64 version;
  int known;
  guint n_versions = 0;

  if (node->op_type == NULL || is_local_function (g, node))
    return NULL;
  /* ONNX Runtime's documented operators are checked as ONNX's are; that the model
   * needs ONNX Runtime is said once (onyx_diagnose_onnxruntime). */
  if (onyx_domain_is_onnxruntime (node->domain) &&
      (schema = onyx_schema_lookup (node->domain, node->op_type,
                                    onyx_opset_version (g->opsets, g->n_opsets, node->domain))) != NULL)
    return schema;
  if (!onyx_domain_is_standard (node->domain))
    {
      describe_op (node, index, &label, &op, &domain);
      if (onyx_domain_is_onnxruntime (node->domain))
        onyx_diagnose_add (out, g, ONYX_PROBLEM_CUSTOM_OP, ONYX_PROBLEM_WARNING, node, index, NULL,
                           _("%s uses %s::%s, which ONNX Runtime's documentation (%.12s) does not list: "
                           "an operator of another ONNX Runtime, or a custom one"),
                           label, domain, op, onyx_schema_onnxruntime_source ());
      else
        onyx_diagnose_add (
            out, g, ONYX_PROBLEM_CUSTOM_OP, ONYX_PROBLEM_WARNING, node, index, NULL,
            _("%s uses the custom operator %s::%s: standard runtimes cannot run it without its "
            "implementation"),
            label, domain, op);
      return NULL;
    }
  version = onyx_opset_version (g->opsets, g->n_opsets, node->domain);
  if (version < 0)
    return NULL; /* validation reports the missing opset import */
  known = onyx_schema_domain_version (node->domain);
  if (known == 0 || version > known)
    return NULL; /* a domain, or an opset of it, that the library does not know */

  history = onyx_schema_history (node->domain, node->op_type, &n_versions);
  if (history == NULL)
    {
      describe_op (node, index, &label, &op, &domain);
      onyx_diagnose_add (out, g, ONYX_PROBLEM_UNKNOWN_OP, ONYX_PROBLEM_ERROR, node, index, NULL,
                         _("%s: %s is not an operator of %s"), label, op, domain);
      return NULL;
    }
  schema = onyx_schema_lookup (node->domain, node->op_type, version);
  if (schema == NULL)
    {
      describe_op (node, index, &label, &op, &domain);
      onyx_diagnose_add (
          out, g, ONYX_PROBLEM_OP_NOT_IN_OPSET, ONYX_PROBLEM_ERROR, node, index, NULL,
          _("%s: %s exists from opset %d of %s on, but the model imports opset %lld"),
          label, op, history[0].since_version, domain, (long long) version);
      return NULL;
    }
  if (schema->deprecated)
    {
      describe_op (node, index, &label, &op, &domain);
      onyx_diagnose_add (
          out, g, ONYX_PROBLEM_OP_NOT_IN_OPSET, ONYX_PROBLEM_ERROR, node, index, NULL,
          _("%s: %s was removed in opset %d of %s (the model imports opset %lld)"),
          label, op, schema->since_version, domain, (long long) version);
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
    return g_strdup_printf (_("at least %d"), min);
  return g_strdup_printf (_("%d to %d"), min, max);
}

static void
check_slots (const OnyxCheckedGraph *g, const Onnx__NodeProto *node, int index,
             const OnyxSchema *schema, gboolean outputs, OnyxProblemSeverity severity,
             GPtrArray *out)
{
  char **names = outputs ? node->output : node->input;
  size_t n = outputs ? node->n_output : node->n_input;
  int min = outputs ? schema->min_output : schema->min_input;
  int max = outputs ? schema->max_output : schema->max_input;
  g_autofree char *label = NULL;

  if (n < (size_t) min || n > (size_t) max)
    {
      g_autofree char *expected = arity_text (min, max);
      onyx_diagnose_add (out, g, outputs ? ONYX_PROBLEM_OUTPUT_COUNT : ONYX_PROBLEM_INPUT_COUNT,
                         severity, node, index, NULL,
                         outputs ? ngettext ("%s has %zu output, but %s takes %s", "%s has %zu outputs, but %s takes %s", n)
                                 : ngettext ("%s has %zu input, but %s takes %s", "%s has %zu inputs, but %s takes %s", n),
                         lazy_label (&label, node, index), n, schema->name, expected);
      return;
    }
  /* Omitted optional slots are "", but a required one may not be. */
  for (size_t k = 0; k < n; k++)
    {
      const OnyxSchemaParam *param = outputs ? onyx_schema_output (schema, k)
                                             : onyx_schema_input (schema, k);
      if (param != NULL && param->option == ONYX_PARAM_SINGLE
          && (names[k] == NULL || names[k][0] == '\0'))
        onyx_diagnose_add (out, g, outputs ? ONYX_PROBLEM_OUTPUT_COUNT : ONYX_PROBLEM_INPUT_COUNT,
                           severity, node, index, NULL,
                           outputs ? _("output %zu (%s) of %s is empty, but %s requires it")
                                   : _("input %zu (%s) of %s is empty, but %s requires it"),
                           k, param->name, lazy_label (&label, node, index), schema->name);
    }
}

static void
check_attributes (const OnyxCheckedGraph *g, const Onnx__NodeProto *node, int index,
                  const OnyxSchema *schema, OnyxProblemSeverity severity, GPtrArray *out)
{
  g_autofree char *label = NULL;

  if (!onyx_schema_checks_attributes (schema))
    return;
  for (size_t a = 0; a < node->n_attribute; a++)
    {
      const Onnx__AttributeProto *attr = node->attribute[a];
      const OnyxSchemaAttribute *expected = onyx_schema_find_attribute (schema, attr->name);
      g_autofree char *name = NULL;

      if (expected == NULL)
        {
          name = onyx_display_escape (attr->name);
          onyx_diagnose_add (out, g, ONYX_PROBLEM_UNKNOWN_ATTRIBUTE, severity, node, index, NULL,
                             _("%s has an attribute '%s', which %s does not define"),
                             lazy_label (&label, node, index), name, schema->name);
        }
      /* Very old files leave the type out (UNDEFINED); nothing to compare then. */
      else if (attr->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED &&
               (int) attr->type != expected->type)
        {
          name = onyx_display_escape (attr->name);
          onyx_diagnose_add (out, g, ONYX_PROBLEM_ATTRIBUTE_TYPE, severity, node, index, NULL,
                             _("attribute '%s' of %s is %s, but %s expects %s"), name,
                             lazy_label (&label, node, index),
                             onyx_attribute_type_name (attr->type), schema->name,
                             onyx_attribute_type_name (expected->type));
        }
    }
  for (guint a = 0; a < schema->n_attributes; a++)
    if (schema->attributes[a].required &&
        onyx_node_find_attribute (node, schema->attributes[a].name, NULL) == NULL)
      onyx_diagnose_add (out, g, ONYX_PROBLEM_MISSING_ATTRIBUTE, severity, node, index, NULL,
                         _("%s lacks the attribute '%s', which %s requires"),
                         lazy_label (&label, node, index), schema->attributes[a].name,
                         schema->name);
}

static void diagnose_body (const OnyxCheckedGraph *g, Onnx__NodeProto **nodes, size_t n_nodes,
                           GPtrArray *outputs, GPtrArray *out);
static void check_initializers (const OnyxCheckedGraph *g, const Onnx__GraphProto *graph,
                                GHashTable *reads, GPtrArray *out);

static void
diagnose_subgraph (const OnyxCheckedGraph *outer, const char *label, const Onnx__GraphProto *graph,
                   GPtrArray *out)
{
  OnyxCheckedGraph g = { label, outer->opsets, outer->n_opsets, outer->functions,
                         onyx_known_types_new (outer->types), outer->namer, graph };
  g_autoptr (GPtrArray) outputs = g_ptr_array_new ();

  onyx_known_types_declare_graph (g.types, graph);
  for (size_t i = 0; i < graph->n_output; i++)
    g_ptr_array_add (outputs, graph->output[i]->name);
  diagnose_body (&g, graph->node, graph->n_node, outputs, out);
  check_initializers (&g, graph, NULL, out);
  onyx_known_types_free (g.types);
}

/* Everything about one node: its operator, slots, attributes and types, and its
 * subgraphs. TRUE when what is known of its outputs' types changed. */
gboolean
onyx_diagnose_node (const OnyxCheckedGraph *g, const Onnx__NodeProto *node, int index,
                    GPtrArray *out)
{
  gboolean changed = FALSE;
  const OnyxSchema *schema = node_schema (g, node, index, out);

  if (schema != NULL)
    {
      check_slots (g, node, index, schema, FALSE, ONYX_PROBLEM_ERROR, out);
      check_slots (g, node, index, schema, TRUE, ONYX_PROBLEM_ERROR, out);
      check_attributes (g, node, index, schema, ONYX_PROBLEM_ERROR, out);
      changed = onyx_diagnose_types (g, node, index, schema, ONYX_PROBLEM_ERROR, TRUE, out);
    }
  else
    onyx_diagnose_forget_outputs (g, node, &changed);

  for (size_t a = 0; a < node->n_attribute; a++)
    {
      const Onnx__AttributeProto *attr = node->attribute[a];
      if (attr->g != NULL)
        diagnose_subgraph (g, onyx_graph_namer_name (g->namer, attr->g), attr->g, out);
      for (size_t s = 0; s < attr->n_graphs; s++)
        diagnose_subgraph (g, onyx_graph_namer_name (g->namer, attr->graphs[s]), attr->graphs[s],
                           out);
    }
  return changed;
}

/* ---- Uses: dead nodes, unused initializers ---- */

void
onyx_diagnose_add_dead (GPtrArray *out, const OnyxCheckedGraph *g, const Onnx__NodeProto *node,
                        int index)
{
  g_autofree char *label = onyx_node_label (node, index);

  /* A DequantizeLinear left over (its weight's reader removed, or never connected)
   * says what it dequantizes: a finding of quantization, told once, as this one. */
  if (g_strcmp0 (node->op_type, "DequantizeLinear") == 0 && node->n_input > 0 &&
      (onyx_domain_is_default (node->domain) || g_strcmp0 (node->domain, "com.microsoft") == 0))
    {
      g_autofree char *tensor = onyx_display_escape (node->input[0]);
      onyx_diagnose_add (out, g, ONYX_PROBLEM_QUANT_UNUSED_DEQUANTIZE, ONYX_PROBLEM_WARNING, node, index,
                         node->input[0],
                         _("%s dequantizes '%s' for nothing: no node reaching a graph output reads it; connect "
                           "its reader, or remove it (Clean Up Unused Nodes)"),
                         label, tensor);
      return;
    }
  onyx_diagnose_add (out, g, ONYX_PROBLEM_DEAD_NODE, ONYX_PROBLEM_WARNING, node, index, NULL,
                     _("%s computes nothing that reaches a graph output"), label);
}

/* Which nodes a graph output depends on: walked back from the outputs. */
gboolean *
onyx_diagnose_find_live (Onnx__NodeProto **nodes, size_t n_nodes, GPtrArray *outputs)
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

/* Each node's problems together, in node order: its checks, then whether it is dead. */
static void
diagnose_body (const OnyxCheckedGraph *g, Onnx__NodeProto **nodes, size_t n_nodes,
               GPtrArray *outputs, GPtrArray *out)
{
  g_autofree gboolean *live = NULL;
  GPtrArray **found = g_new0 (GPtrArray *, n_nodes);

  for (size_t i = 0; i < n_nodes; i++)
    {
      found[i] = g_ptr_array_new ();
      onyx_diagnose_node (g, nodes[i], (int)i, found[i]);
    }
  live = onyx_diagnose_find_live (nodes, n_nodes, outputs);
  for (size_t i = 0; i < n_nodes; i++)
    {
      for (guint p = 0; p < found[i]->len; p++)
        g_ptr_array_add (out, found[i]->pdata[p]);
      if (!live[i])
        onyx_diagnose_add_dead (out, g, nodes[i], (int)i);
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

static void
check_initializers_with (const OnyxCheckedGraph *g, const Onnx__GraphProto *graph,
                         OnyxIsReadFunc is_read, gpointer data, GPtrArray *out)
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
          onyx_diagnose_add (out, g, ONYX_PROBLEM_UNUSED_INITIALIZER, ONYX_PROBLEM_WARNING, NULL,
                             -1, name, _("initializer '%s' is not used by any node"), shown);
        }
      if (g_hash_table_contains (inputs, name) && n_listed++ == 0)
        first_listed = name;
    }
  if (n_listed > 0)
    onyx_diagnose_add (
        out, g, ONYX_PROBLEM_INITIALIZER_INPUT, ONYX_PROBLEM_INFO, NULL, -1, first_listed,
        ngettext ("%u initializer is also listed as graph input (needed before IR version 4): "
                  "runtimes let callers replace it",
                  "%u initializers are also listed as graph inputs (needed before IR version 4): "
                  "runtimes let callers replace them", n_listed),
        n_listed);
}

static gboolean
set_contains (gpointer data, const char *name)
{
  return g_hash_table_contains (data, name);
}

static void
check_initializers (const OnyxCheckedGraph *g, const Onnx__GraphProto *graph, GHashTable *reads,
                    GPtrArray *out)
{
  g_autoptr (GHashTable) own = reads == NULL ? graph_reads (graph) : NULL;
  check_initializers_with (g, graph, set_contains, reads != NULL ? reads : own, out);
}

/* ---- The main graph's inputs and outputs ---- */

static void
check_io_shapes (const OnyxCheckedGraph *g, const Onnx__GraphProto *graph, GPtrArray *out)
{
  for (int output = 0; output < 2; output++)
    {
      Onnx__ValueInfoProto **infos = output ? graph->output : graph->input;
      size_t n = output ? graph->n_output : graph->n_input;
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
            onyx_diagnose_add (out, g, ONYX_PROBLEM_NO_SHAPE, severity, NULL, -1, name,
                               output ? _("graph output '%s' has no type") : _("graph input '%s' has no type"),
                               shown);
          else if (type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
                   type->tensor_type->shape == NULL)
            onyx_diagnose_add (out, g, ONYX_PROBLEM_NO_SHAPE, severity, NULL, -1, name,
                               output ? _("graph output '%s' has no shape") : _("graph input '%s' has no shape"),
                               shown);
        }
    }
}

/* ---- The whole model ---- */

void
onyx_diagnose_graph_lists (const OnyxCheckedGraph *g, const Onnx__GraphProto *graph,
                           OnyxIsReadFunc is_read, gpointer data, GPtrArray *out)
{
  check_initializers_with (g, graph, is_read, data, out);
  check_io_shapes (g, graph, out);
  onyx_diagnose_dim_names (g, graph, out);
}

void
onyx_diagnose_functions (const Onnx__ModelProto *model, GHashTable *functions,
                         OnyxGraphNamer *namer, GPtrArray *out)
{
  for (size_t f = 0; f < model->n_functions; f++)
    {
      const Onnx__FunctionProto *function = model->functions[f];
      g_autofree char *label = onyx_function_label (function);
      OnyxCheckedGraph g = { label, function->opset_import, function->n_opset_import, functions,
                             onyx_known_types_new (NULL), namer };
      g_autoptr (GPtrArray) outputs = g_ptr_array_new ();

      for (size_t i = 0; i < function->n_output; i++)
        g_ptr_array_add (outputs, function->output[i]);
      diagnose_body (&g, function->node, function->n_node, outputs, out);
      onyx_known_types_free (g.types);
    }
}

void
onyx_diagnose_opset_imports (const Onnx__ModelProto *model, GPtrArray *out)
{
  g_autoptr (GHashTable) used = NULL;
  const OnyxCheckedGraph g = { NULL };
  gboolean others = FALSE;

  /* Most models import ai.onnx alone, which is never reported: no walk then. */
  for (size_t i = 0; i < model->n_opset_import; i++)
    others |= !onyx_domain_is_default (model->opset_import[i]->domain);
  if (!others)
    return;
  used = onyx_model_used_domains (model);
  for (size_t i = 0; i < model->n_opset_import; i++)
    {
      const Onnx__OperatorSetIdProto *opset = model->opset_import[i];
      const char *key = onyx_domain_is_default (opset->domain) ? "" : opset->domain;
      g_autofree char *shown = NULL;
      /* ai.onnx is imported by habit, and costs nothing: not worth a line. */
      if (key[0] == '\0' || g_hash_table_contains (used, key))
        continue;
      shown = onyx_display_escape (key);
      onyx_diagnose_add (out, &g, ONYX_PROBLEM_UNUSED_OPSET, ONYX_PROBLEM_INFO, NULL, -1, NULL,
                         _("opset import %s (version %lld) is not used by any node"),
                         shown, (long long) opset->version);
    }
}

static void
add_newer_opsets (Onnx__OperatorSetIdProto *const *opsets, size_t n_opsets, GHashTable *told,
                  GPtrArray *out)
{
  const OnyxCheckedGraph g = { NULL };

  for (size_t i = 0; i < n_opsets; i++)
    {
      const char *domain = onyx_domain_is_default (opsets[i]->domain) ? "" : opsets[i]->domain;
      g_autofree char *text = onyx_schema_newer_opset_text (domain, opsets[i]->version);
      if (text != NULL && !g_hash_table_contains (told, domain))
        {
          g_hash_table_add (told, (gpointer) domain);
          onyx_diagnose_add (out, &g, ONYX_PROBLEM_NEWER_OPSET, ONYX_PROBLEM_INFO, NULL, -1, NULL,
                             "%s", text);
        }
    }
}

typedef struct {
  const Onnx__ModelProto *model;
  GHashTable *ops;              /* domain::op of ONNX Runtime's operators used */
  guint n_nodes;
} OrtUse;

static void
count_onnxruntime_node (ProtobufCMessage *message, gpointer data)
{
  OrtUse *use = data;
  const Onnx__NodeProto *node = (const Onnx__NodeProto *) message;
  const OnyxSchema *schema;

  /* Most nodes are ONNX's: a binary search in ONNX Runtime's short table first. */
  if (message->descriptor != &onnx__node_proto__descriptor ||
      !onyx_schema_onnxruntime_has (node->domain, node->op_type))
    return;
  schema = onyx_schema_for_node (node, use->model->opset_import, use->model->n_opset_import);
  if (schema == NULL || !onyx_schema_is_onnxruntime (schema))
    return;
  use->n_nodes++;
  g_hash_table_add (use->ops, (gpointer) schema->name);
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

void
onyx_diagnose_onnxruntime (const Onnx__ModelProto *model, GPtrArray *out)
{
  g_autoptr (GHashTable) ops = g_hash_table_new (g_str_hash, g_str_equal);
  OrtUse use = { model, ops, 0 };
  const OnyxCheckedGraph g = { NULL };
  g_autoptr (GPtrArray) names = NULL;
  g_autofree char *nodes = NULL, *listed = NULL;
  guint n_ops;

  if (model->graph == NULL)
    return;
  onyx_proto_foreach_message ((ProtobufCMessage *) &model->graph->base, count_onnxruntime_node, &use);
  if (use.n_nodes == 0)
    return;
  names = g_ptr_array_new ();
  {
    GHashTableIter iter;
    gpointer name;
    g_hash_table_iter_init (&iter, ops);
    while (g_hash_table_iter_next (&iter, &name, NULL))
      g_ptr_array_add (names, name);
  }
  g_ptr_array_sort (names, compare_strings);
  g_ptr_array_add (names, NULL);
  n_ops = names->len - 1;
  listed = g_strjoinv (", ", (char **) names->pdata);
  nodes = g_strdup_printf (ngettext ("%u node", "%u nodes", use.n_nodes), use.n_nodes);
  onyx_diagnose_add (out, &g, ONYX_PROBLEM_ONNXRUNTIME, ONYX_PROBLEM_INFO, NULL, -1, NULL,
                     ngettext ("uses %u operator of ONNX Runtime in %s (%s): the model runs on ONNX Runtime",
                               "uses %u operators of ONNX Runtime in %s (%s): the model runs on ONNX Runtime",
                               n_ops),
                     n_ops, nodes, listed);
}

void
onyx_diagnose_library_limits (const Onnx__ModelProto *model, GPtrArray *out)
{
  g_autoptr (GHashTable) told = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree char *ir = onyx_schema_newer_ir_text (model->ir_version);
  const OnyxCheckedGraph g = { NULL };

  if (ir != NULL)
    onyx_diagnose_add (out, &g, ONYX_PROBLEM_NEWER_IR, ONYX_PROBLEM_INFO, NULL, -1, NULL, "%s", ir);
  add_newer_opsets (model->opset_import, model->n_opset_import, told, out);
  for (size_t f = 0; f < model->n_functions; f++)
    add_newer_opsets (model->functions[f]->opset_import, model->functions[f]->n_opset_import, told,
                      out);
}

/* Whether any opset the model or its functions import is newer than the library's. */
static gboolean
imports_newer_opset (const Onnx__ModelProto *model)
{
  g_autoptr (GPtrArray) limits = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_problem_free);

  onyx_diagnose_library_limits (model, limits);
  for (guint i = 0; i < limits->len; i++)
    if (((OnyxProblem *) limits->pdata[i])->kind == ONYX_PROBLEM_NEWER_OPSET)
      return TRUE;
  return FALSE;
}

static gssize
node_position (const Onnx__GraphProto *graph, const Onnx__NodeProto *node)
{
  for (size_t i = 0; graph != NULL && i < graph->n_node; i++)
    if (graph->node[i] == node)
      return (gssize) i;
  return -1;
}

/* A node a linked ONNX's inference rejects though the standard allows it: DFT with
 * onesided and inverse (an inverse real DFT) before ONNX 1.18, whose DFT-20 inference
 * refused it (ONNX's own test_dft_irfft models). */
static gboolean
library_mistake (const Onnx__NodeProto *node)
{
  int major = 0, minor = 0;
  const Onnx__AttributeProto *inverse, *onesided;

  if (sscanf (onyx_schema_onnx_version (), "%d.%d", &major, &minor) != 2 || major != 1 || minor >= 18 ||
      g_strcmp0 (node->op_type, "DFT") != 0 || !onyx_domain_is_default (node->domain))
    return FALSE;
  inverse = onyx_node_find_attribute (node, "inverse", NULL);
  onesided = onyx_node_find_attribute (node, "onesided", NULL);
  return inverse != NULL && inverse->i != 0 && onesided != NULL && onesided->i != 0;
}

void
onyx_diagnose_shape_errors (const Onnx__ModelProto *model, OnyxShapes *shapes, OnyxGraphNamer *namer,
                            GPtrArray *out)
{
  GPtrArray *errors = onyx_shapes_get_errors (shapes);
  /* Asked on the first error: most models have none. */
  int newer = -1;

  for (guint i = 0; i < errors->len; i++)
    {
      const OnyxShapeError *error = errors->pdata[i];
      g_autofree char *message = NULL;
      const char *label = error->graph == NULL ? NULL
                          : error->graph == model->graph ? "main graph"
                          : onyx_graph_namer_name (namer, error->graph);
      OnyxCheckedGraph g = { label, NULL, 0, NULL, NULL, namer, error->graph };
      gssize position = node_position (error->graph, error->node);
      g_autofree char *node_label = error->node != NULL ? onyx_node_label (error->node, (int) position) : NULL;

      /* The library infers a node of a newer opset with the schema it has, which may
         have changed since: nothing it says of that node is to be trusted. */
      if (error->node != NULL && onyx_domain_is_standard (error->node->domain) &&
          onyx_opset_version (model->opset_import, model->n_opset_import, error->node->domain) >
              onyx_schema_domain_version (error->node->domain))
        continue;
      /* Nor what it says of no node in particular (element types it does not know). */
      if (newer < 0)
        newer = imports_newer_opset (model);
      if (error->node == NULL && newer)
        continue;
      /* Nor its mistakes that later releases mended. */
      if (error->node != NULL && library_mistake (error->node))
        continue;
      message = onyx_display_escape (error->message);
      if (error->node != NULL)
        onyx_diagnose_add (out, &g, ONYX_PROBLEM_SHAPE_INFERENCE, ONYX_PROBLEM_ERROR, error->node,
                           (int) position, NULL, "%s: %s", node_label, message);
      else
        onyx_diagnose_add (out, &g, ONYX_PROBLEM_SHAPE_INFERENCE, ONYX_PROBLEM_ERROR, NULL, -1, NULL,
                           "%s", message);
    }
}

void
onyx_diagnose_drop_repeated_inference (GPtrArray *problems)
{
  g_autoptr (GHashTable) has_error = g_hash_table_new (NULL, NULL);

  for (guint i = 0; i < problems->len; i++)
    {
      const OnyxProblem *problem = problems->pdata[i];
      if (problem->node_proto != NULL && problem->severity == ONYX_PROBLEM_ERROR &&
          problem->kind != ONYX_PROBLEM_SHAPE_INFERENCE)
        g_hash_table_add (has_error, (gpointer) problem->node_proto);
    }
  for (guint i = problems->len; i-- > 0;)
    {
      const OnyxProblem *problem = problems->pdata[i];
      if (problem->kind == ONYX_PROBLEM_SHAPE_INFERENCE && problem->node_proto != NULL &&
          g_hash_table_contains (has_error, problem->node_proto))
        g_ptr_array_remove_index (problems, i);
    }
}

/* onnx.checker's first problem (it stops there), or nothing. A model of a newer IR
 * version is checked as one of the newest the checker knows (the fields added since
 * are unknown to it anyway); a model importing a newer opset may be judged by schemas
 * that changed since, so what the checker says of it is only information. */
static void
add_checker_problem (const Onnx__ModelProto *model, OnyxGraphNamer *namer, GPtrArray *problems)
{
  Onnx__ModelProto capped = *model;
  g_autoptr (GBytes) light = NULL;
  g_autofree char *message = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) passed = NULL;
  g_autofree char *shown = NULL;
  OnyxCheckedGraph g = { NULL, NULL, 0, NULL, NULL, namer, NULL };
  gboolean newer = imports_newer_opset (model);
  char *end;

  capped.ir_version = MIN (model->ir_version, (gint64) onyx_schema_ir_version ());
  light = onyx_shapes_pack_light (&capped.base);
  passed = onyx_onnx_run_isolated (ONYX_ONNX_JOB_CHECK, light, 0, &message, &error);
  if (passed != NULL)
    return;
  if (error != NULL)
    {
      g_free (message);
      message = g_strdup (error->message);
    }
  /* The checker's message runs over several lines; its first says what is wrong.
   * Cut before escaping, which would turn the newline into text. */
  if ((end = strchr (message, '\n')) != NULL)
    *end = '\0';
  shown = onyx_display_escape (g_strstrip (message));
  onyx_diagnose_add (problems, &g, ONYX_PROBLEM_CHECKER, newer ? ONYX_PROBLEM_INFO : ONYX_PROBLEM_ERROR,
                     NULL, -1, NULL, "onnx.checker: %s%s", shown,
                     newer ? " (not counted: the model imports an opset newer than the library knows)" : "");
}

static GPtrArray *
diagnose (const Onnx__ModelProto *model, const char *base_dir, gboolean full, OnyxQuantChecks *checks)
{
  GPtrArray *problems = onyx_validate_model (model);
  g_autoptr (GHashTable) functions = onyx_diagnose_local_functions (model);
  OnyxGraphNamer namer = ONYX_GRAPH_NAMER_INIT (model);

  if (model->graph != NULL)
    {
      const Onnx__GraphProto *graph = model->graph;
      OnyxCheckedGraph g = { "main graph", model->opset_import, model->n_opset_import, functions,
                             onyx_known_types_new (NULL), &namer, graph };
      g_autoptr (GPtrArray) outputs = g_ptr_array_new ();
      g_autoptr (GHashTable) reads = graph_reads (graph);

      onyx_known_types_declare_graph (g.types, graph);
      for (size_t i = 0; i < graph->n_output; i++)
        g_ptr_array_add (outputs, graph->output[i]->name);
      diagnose_body (&g, graph->node, graph->n_node, outputs, problems);
      onyx_diagnose_graph_lists (&g, graph, set_contains, reads, problems);
      onyx_diagnose_quant (model, base_dir, problems, checks);
      onyx_known_types_free (g.types);
    }
  onyx_diagnose_opset_imports (model, problems);
  onyx_diagnose_onnxruntime (model, problems);
  onyx_diagnose_library_limits (model, problems);
  if (full)
    add_checker_problem (model, &namer, problems);
  if (model->graph != NULL)
    {
      /* The full check's strict inference also checks the operators' type constraints. */
      g_autoptr (OnyxShapes) shapes = onyx_shapes_infer (model, full);
      onyx_diagnose_shape_errors (model, shapes, &namer, problems);
      onyx_diagnose_drop_repeated_inference (problems);
    }
  onyx_diagnose_exporter_faults (model, problems);
  onyx_diagnose_fold_explained (model, problems);
  onyx_diagnose_functions (model, functions, &namer, problems);
  onyx_graph_namer_clear (&namer);
  return problems;
}

GPtrArray *
onyx_diagnose_model (const Onnx__ModelProto *model)
{
  return diagnose (model, NULL, FALSE, NULL);
}

GPtrArray *
onyx_diagnose_model_full (const Onnx__ModelProto *model)
{
  return diagnose (model, NULL, TRUE, NULL);
}

GPtrArray *
onyx_diagnose_file (OnyxModel *model, gboolean full, OnyxQuantChecks *checks)
{
  return diagnose (onyx_model_get_proto (model), onyx_model_get_base_dir (model), full, checks);
}
