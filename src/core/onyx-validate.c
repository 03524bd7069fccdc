#include "onyx-validate.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "onyx-graph-index.h"
#include "onyx-graph-names.h"
#include "onyx-types.h"
#include "onyx-text.h"

/* Lists of node names in messages stop after this many. */
#define MAX_LISTED_NODES 8

void
onyx_problem_free (OnyxProblem *problem)
{
  if (problem == NULL)
    return;
  g_free (problem->message);
  g_free (problem->graph);
  g_free (problem->node);
  g_free (problem->tensor);
  g_free (problem->detail);
  g_free (problem);
}

const char *
onyx_problem_kind_name (OnyxProblemKind kind)
{
  static const char *const names[] = {
    [ONYX_PROBLEM_NO_IR_VERSION] = "no-ir-version",
    [ONYX_PROBLEM_NO_OPSET_IMPORT] = "no-opset-import",
    [ONYX_PROBLEM_DANGLING_INPUT] = "dangling-input",
    [ONYX_PROBLEM_DANGLING_OUTPUT] = "dangling-output",
    [ONYX_PROBLEM_DUPLICATE_NAME] = "duplicate-name",
    [ONYX_PROBLEM_CYCLE] = "cycle",
    [ONYX_PROBLEM_NOT_SORTED] = "not-sorted",
    [ONYX_PROBLEM_MISSING_OPSET] = "missing-opset",
    [ONYX_PROBLEM_CUSTOM_OP] = "custom-op",
    [ONYX_PROBLEM_UNKNOWN_OP] = "unknown-op",
    [ONYX_PROBLEM_OP_NOT_IN_OPSET] = "op-not-in-opset",
    [ONYX_PROBLEM_INPUT_COUNT] = "input-count",
    [ONYX_PROBLEM_OUTPUT_COUNT] = "output-count",
    [ONYX_PROBLEM_UNKNOWN_ATTRIBUTE] = "unknown-attribute",
    [ONYX_PROBLEM_ATTRIBUTE_TYPE] = "attribute-type",
    [ONYX_PROBLEM_MISSING_ATTRIBUTE] = "missing-attribute",
    [ONYX_PROBLEM_TYPE_CONFLICT] = "type-conflict",
    [ONYX_PROBLEM_UNUSED_INITIALIZER] = "unused-initializer",
    [ONYX_PROBLEM_INITIALIZER_INPUT] = "initializer-input",
    [ONYX_PROBLEM_DEAD_NODE] = "dead-node",
    [ONYX_PROBLEM_NO_SHAPE] = "no-shape",
    [ONYX_PROBLEM_DIM_NAME] = "dim-name",
    [ONYX_PROBLEM_UNUSED_OPSET] = "unused-opset",
    [ONYX_PROBLEM_NEWER_OPSET] = "newer-opset",
    [ONYX_PROBLEM_NEWER_IR] = "newer-ir",
    [ONYX_PROBLEM_ONNXRUNTIME] = "onnxruntime",
    [ONYX_PROBLEM_SHAPE_INFERENCE] = "shape-inference",
    [ONYX_PROBLEM_CHECKER] = "onnx-checker",
    [ONYX_PROBLEM_UNDECLARED_ATTRIBUTE] = "undeclared-attribute",
    [ONYX_PROBLEM_QUANT_SCALE] = "quant-scale",
    [ONYX_PROBLEM_QUANT_ZERO_POINT] = "quant-zero-point",
    [ONYX_PROBLEM_QUANT_PAIR] = "quant-pair",
    [ONYX_PROBLEM_QUANT_AXIS] = "quant-axis",
    [ONYX_PROBLEM_QUANT_FLOAT_OP] = "quant-float-op",
    [ONYX_PROBLEM_QUANT_UNUSED_DEQUANTIZE] = "quant-unused-dequantize",
  };

  if ((guint) kind < G_N_ELEMENTS (names) && names[kind] != NULL)
    return names[kind];
  return "unknown";
}

const char *
onyx_problem_severity_name (OnyxProblemSeverity severity)
{
  switch (severity)
    {
    case ONYX_PROBLEM_ERROR: return "error";
    case ONYX_PROBLEM_WARNING: return "warning";
    default: return "info";
    }
}

guint
onyx_problems_count (GPtrArray *problems, OnyxProblemSeverity severity)
{
  guint n = 0;
  for (guint i = 0; i < problems->len; i++)
    if (((OnyxProblem *) problems->pdata[i])->severity == severity)
      n++;
  return n;
}

/* Edits rename nodes and move them: a defect counts as the same when it is of the
 * same kind in the same graph and names the same tensor or node, or says the same. A
 * graph has one order and one cycle problem, whichever node it names first. */
static gboolean
same_defect (const OnyxProblem *a, const OnyxProblem *b)
{
  gboolean same_graph = a->graph_proto != NULL || b->graph_proto != NULL
                        ? a->graph_proto == b->graph_proto : g_strcmp0 (a->graph, b->graph) == 0;

  if (a->kind != b->kind || a->severity != b->severity || !same_graph)
    return FALSE;
  if (a->kind == ONYX_PROBLEM_NOT_SORTED || a->kind == ONYX_PROBLEM_CYCLE)
    return TRUE;
  return (a->tensor != NULL && g_strcmp0 (a->tensor, b->tensor) == 0) ||
         (a->node_proto != NULL && a->node_proto == b->node_proto) || g_strcmp0 (a->message, b->message) == 0;
}

GPtrArray *
onyx_problems_errors_in (GPtrArray *problems, GPtrArray *before)
{
  GPtrArray *found = g_ptr_array_new ();

  for (guint i = 0; i < problems->len; i++)
    {
      const OnyxProblem *problem = problems->pdata[i];
      if (problem->severity != ONYX_PROBLEM_ERROR)
        continue;
      for (guint k = 0; before != NULL && k < before->len; k++)
        if (same_defect (before->pdata[k], problem))
          {
            g_ptr_array_add (found, (gpointer) problem);
            break;
          }
      if (before == NULL)
        g_ptr_array_add (found, (gpointer) problem);
    }
  return found;
}

/* What one graph (or function body) is checked against. */
typedef struct _Scope Scope;
struct _Scope {
  const Scope *outer;
  GHashTable *names;    /* every tensor name defined in this graph */
  const char *graph;    /* label for messages */
  Onnx__OperatorSetIdProto **opsets;
  size_t n_opsets;
  const Onnx__GraphProto *proto;  /* NULL for a function body */
};

typedef struct {
  GPtrArray *problems;
  OnyxGraphNamer namer;   /* subgraphs' names, "If_1:then_branch" */
} Validate;

static gboolean
scope_defines (const Scope *scope, const char *name)
{
  for (; scope != NULL; scope = scope->outer)
    if (g_hash_table_contains (scope->names, name))
      return TRUE;
  return FALSE;
}

char *
onyx_node_label (const Onnx__NodeProto *node, int index)
{
  if (node->name != NULL && node->name[0] != '\0')
    return onyx_display_escape (node->name);
  return g_strdup_printf (_("node #%d (%s)"), index, node->op_type != NULL ? node->op_type : "?");
}

static void
add_problem (Validate *v, const Scope *scope, OnyxProblemKind kind, OnyxProblemSeverity severity,
             const Onnx__NodeProto *node, int node_index, const char *tensor,
             const char *format, ...) G_GNUC_PRINTF (8, 9);

OnyxProblem *
onyx_problem_new_valist (OnyxProblemKind kind, OnyxProblemSeverity severity, const char *graph,
                         const Onnx__GraphProto *graph_proto,
                         const Onnx__NodeProto *node, int node_index, const char *tensor,
                         const char *format, va_list args)
{
  OnyxProblem *problem = g_new0 (OnyxProblem, 1);

  problem->kind = kind;
  problem->severity = severity;
  problem->message = g_strdup_vprintf (format, args);
  problem->graph = g_strdup (graph != NULL ? graph : "model");
  problem->graph_proto = graph_proto;
  problem->node = node != NULL ? g_strdup (node->name != NULL ? node->name : "") : NULL;
  problem->node_index = node != NULL ? node_index : -1;
  problem->node_proto = node;
  problem->tensor = g_strdup (tensor);
  return problem;
}

char *
onyx_function_label (const Onnx__FunctionProto *function)
{
  g_autofree char *domain = onyx_display_escape (function->domain);
  g_autofree char *name = onyx_display_escape (function->name);
  return g_strdup_printf ("function %s::%s", domain, name);
}

static void
add_problem (Validate *v, const Scope *scope, OnyxProblemKind kind, OnyxProblemSeverity severity,
             const Onnx__NodeProto *node, int node_index, const char *tensor,
             const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (v->problems, onyx_problem_new_valist (kind, severity,
                                                         scope != NULL ? scope->graph : NULL,
                                                         scope != NULL ? scope->proto : NULL,
                                                         node, node_index, tensor, format, args));
  va_end (args);
}

static gboolean
opset_imports_domain (Onnx__OperatorSetIdProto **opsets, size_t n_opsets, const char *domain)
{
  for (size_t i = 0; i < n_opsets; i++)
    {
      const char *imported = opsets[i]->domain;
      if (onyx_domain_is_default (domain) ? onyx_domain_is_default (imported)
                                          : g_strcmp0 (imported, domain) == 0)
        return TRUE;
    }
  return FALSE;
}

static void validate_nodes (Validate *v, Scope *scope, Onnx__NodeProto **nodes, size_t n_nodes,
                            Onnx__ValueInfoProto **outputs, size_t n_outputs);

static void
validate_graph (Validate *v, const Scope *outer, const char *label, const Onnx__GraphProto *graph,
                Onnx__OperatorSetIdProto **opsets, size_t n_opsets)
{
  Scope scope = { outer, g_hash_table_new (g_str_hash, g_str_equal), label, opsets, n_opsets, graph };
  GHashTable *initializers = g_hash_table_new (g_str_hash, g_str_equal);

  for (size_t i = 0; i < graph->n_initializer; i++)
    {
      const char *name = graph->initializer[i]->name != NULL ? graph->initializer[i]->name : "";
      if (!g_hash_table_add (initializers, (gpointer) name))
        {
          g_autofree char *shown = onyx_display_escape (name);
          add_problem (v, &scope, ONYX_PROBLEM_DUPLICATE_NAME, ONYX_PROBLEM_ERROR, NULL, -1, name,
                       _("initializer '%s' is defined twice"), shown);
        }
      g_hash_table_add (scope.names, (gpointer) name);
    }
  for (size_t i = 0; i < graph->n_sparse_initializer; i++)
    {
      const Onnx__SparseTensorProto *sparse = graph->sparse_initializer[i];
      if (sparse->values != NULL && sparse->values->name != NULL)
        g_hash_table_add (scope.names, sparse->values->name);
    }
  for (size_t i = 0; i < graph->n_input; i++)
    {
      const char *name = graph->input[i]->name != NULL ? graph->input[i]->name : "";
      /* Before IR 4 every initializer was also listed as an input: that is allowed. */
      if (g_hash_table_contains (scope.names, name) && !g_hash_table_contains (initializers, name))
        {
          g_autofree char *shown = onyx_display_escape (name);
          add_problem (v, &scope, ONYX_PROBLEM_DUPLICATE_NAME, ONYX_PROBLEM_ERROR, NULL, -1, name,
                       _("graph input '%s' is declared twice"), shown);
        }
      g_hash_table_add (scope.names, (gpointer) name);
    }

  validate_nodes (v, &scope, graph->node, graph->n_node, graph->output, graph->n_output);
  g_hash_table_unref (initializers);
  g_hash_table_unref (scope.names);
}

static void
check_order (Validate *v, Scope *scope, Onnx__NodeProto **nodes, size_t n_nodes,
             GHashTable *producer_of)
{
  /* Kahn's algorithm over producer → consumer edges of this graph. */
  guint *pending = g_new0 (guint, n_nodes);
  GPtrArray **consumers = g_new0 (GPtrArray *, n_nodes);
  GArray *ready = g_array_new (FALSE, FALSE, sizeof (guint));
  gboolean sorted_in_file = TRUE;
  int first_unsorted = -1;
  const char *first_unsorted_tensor = NULL;
  guint n_done = 0;
  /* Every tensor name a node reads: its inputs and what its subgraphs use from
   * outside. One array for all nodes: this runs after every edit in the app. */
  g_autoptr (GPtrArray) reads = g_ptr_array_new ();

  for (size_t i = 0; i < n_nodes; i++)
    {
      g_ptr_array_set_size (reads, 0);
      onyx_node_collect_reads (nodes[i], reads);
      for (guint k = 0; k < reads->len; k++)
        {
          gpointer producer;
          const char *name = reads->pdata[k];
          if (name == NULL || name[0] == '\0' ||
              !g_hash_table_lookup_extended (producer_of, name, NULL, &producer))
            continue;
          guint p = GPOINTER_TO_UINT (producer);
          if (p == i)
            {
              /* A node reading its own output is a cycle of one. */
              pending[i]++;
              continue;
            }
          if (p > i && sorted_in_file)
            {
              sorted_in_file = FALSE;
              first_unsorted = (int) i;
              first_unsorted_tensor = name;
            }
          if (consumers[p] == NULL)
            consumers[p] = g_ptr_array_new ();
          g_ptr_array_add (consumers[p], GUINT_TO_POINTER ((guint) i));
          pending[i]++;
        }
    }
  for (guint i = 0; i < n_nodes; i++)
    if (pending[i] == 0)
      g_array_append_val (ready, i);
  while (ready->len > 0)
    {
      guint i = g_array_index (ready, guint, ready->len - 1);
      g_array_set_size (ready, ready->len - 1);
      n_done++;
      for (guint c = 0; consumers[i] != NULL && c < consumers[i]->len; c++)
        {
          guint consumer = GPOINTER_TO_UINT (consumers[i]->pdata[c]);
          if (--pending[consumer] == 0)
            g_array_append_val (ready, consumer);
        }
    }

  if (n_done < n_nodes)
    {
      GString *listed = g_string_new (NULL);
      guint n_listed = 0, n_in_cycle = 0, first = 0;
      for (guint i = 0; i < n_nodes; i++)
        {
          if (pending[i] == 0)
            continue;
          if (n_in_cycle++ == 0)
            first = i;
          if (n_listed < MAX_LISTED_NODES)
            {
              g_autofree char *label = onyx_node_label (nodes[i], (int) i);
              g_string_append_printf (listed, "%s%s", n_listed > 0 ? ", " : "", label);
              n_listed++;
            }
        }
      if (n_in_cycle > n_listed)
        g_string_append_printf (listed, _(" and %u more"), n_in_cycle - n_listed);
      add_problem (v, scope, ONYX_PROBLEM_CYCLE, ONYX_PROBLEM_ERROR, nodes[first], (int) first, NULL,
                   ngettext ("the graph has a cycle: %u node depends on itself (%s)",
                             "the graph has a cycle: %u nodes depend on each other (%s)", n_in_cycle),
                   n_in_cycle, listed->str);
      g_string_free (listed, TRUE);
    }
  else if (!sorted_in_file)
    {
      g_autofree char *label = onyx_node_label (nodes[first_unsorted], first_unsorted);
      g_autofree char *shown = onyx_display_escape (first_unsorted_tensor);
      add_problem (v, scope, ONYX_PROBLEM_NOT_SORTED, ONYX_PROBLEM_ERROR, nodes[first_unsorted],
                   first_unsorted, first_unsorted_tensor,
                   _("nodes are not in topological order: %s uses '%s' before it is produced"),
                   label, shown);
    }

  for (size_t i = 0; i < n_nodes; i++)
    if (consumers[i] != NULL)
      g_ptr_array_unref (consumers[i]);
  g_free (consumers);
  g_free (pending);
  g_array_unref (ready);
}

static gboolean
has_subgraphs (Onnx__NodeProto **nodes, size_t n_nodes)
{
  for (size_t i = 0; i < n_nodes; i++)
    for (size_t a = 0; a < nodes[i]->n_attribute; a++)
      if (nodes[i]->attribute[a]->g != NULL || nodes[i]->attribute[a]->n_graphs > 0)
        return TRUE;
  return FALSE;
}

/* The nodes of a graph (or function) and, after them, the graph's outputs. */
static void
validate_nodes (Validate *v, Scope *scope, Onnx__NodeProto **nodes, size_t n_nodes,
                Onnx__ValueInfoProto **outputs, size_t n_outputs)
{
  /* name → index of the node producing it */
  GHashTable *producer_of = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTable *missing_domains = g_hash_table_new (g_str_hash, g_str_equal);

  for (size_t i = 0; i < n_nodes; i++)
    {
      const Onnx__NodeProto *node = nodes[i];
      for (size_t k = 0; k < node->n_output; k++)
        {
          const char *name = node->output[k];
          gpointer other;
          if (name == NULL || name[0] == '\0')
            continue;
          if (g_hash_table_lookup_extended (producer_of, name, NULL, &other))
            {
              g_autofree char *label = onyx_node_label (node, (int) i);
              g_autofree char *other_label = onyx_node_label (nodes[GPOINTER_TO_UINT (other)],
                                                         (int) GPOINTER_TO_UINT (other));
              g_autofree char *shown = onyx_display_escape (name);
              add_problem (v, scope, ONYX_PROBLEM_DUPLICATE_NAME, ONYX_PROBLEM_ERROR, node, (int) i,
                           name, _("tensor '%s' is produced by both %s and %s"), shown, other_label,
                           label);
              continue;
            }
          if (scope_defines (scope, name))
            {
              g_autofree char *label = onyx_node_label (node, (int) i);
              g_autofree char *shown = onyx_display_escape (name);
              add_problem (v, scope, ONYX_PROBLEM_DUPLICATE_NAME, ONYX_PROBLEM_ERROR, node, (int) i,
                           name, _("output '%s' of %s has the name of a graph input or initializer"),
                           shown, label);
              continue;
            }
          g_hash_table_insert (producer_of, (gpointer) name, GUINT_TO_POINTER ((guint) i));
        }
    }

  for (size_t i = 0; i < n_nodes; i++)
    {
      const Onnx__NodeProto *node = nodes[i];
      for (size_t k = 0; k < node->n_input; k++)
        {
          const char *name = node->input[k];
          if (name == NULL || name[0] == '\0' || g_hash_table_contains (producer_of, name) ||
              scope_defines (scope, name))
            continue;
          g_autofree char *label = onyx_node_label (node, (int) i);
          g_autofree char *shown = onyx_display_escape (name);
          add_problem (v, scope, ONYX_PROBLEM_DANGLING_INPUT, ONYX_PROBLEM_ERROR, node, (int) i,
                       name, _("input %zu '%s' of %s is not produced by any node, graph input "
                       "or initializer"), k, shown, label);
        }
      if (!opset_imports_domain (scope->opsets, scope->n_opsets, node->domain) &&
          g_hash_table_add (missing_domains, onyx_domain_is_default (node->domain) ? "" : node->domain))
        {
          g_autofree char *label = onyx_node_label (node, (int) i);
          g_autofree char *shown = onyx_display_escape (onyx_domain_is_default (node->domain)
                                                          ? "ai.onnx" : node->domain);
          add_problem (v, scope, ONYX_PROBLEM_MISSING_OPSET, ONYX_PROBLEM_ERROR, node, (int) i, NULL,
                       _("%s uses domain '%s' but no opset is imported for it"), label, shown);
        }
    }

  check_order (v, scope, nodes, n_nodes, producer_of);

  /* Subgraphs see every name of this graph and of the graphs around it. Copied only
   * when there are subgraphs: this runs after every edit in the app. */
  if (has_subgraphs (nodes, n_nodes))
    {
      GHashTableIter iter;
      gpointer name;
      g_hash_table_iter_init (&iter, producer_of);
      while (g_hash_table_iter_next (&iter, &name, NULL))
        g_hash_table_add (scope->names, name);
    }
  for (size_t i = 0; i < n_nodes; i++)
    {
      const Onnx__NodeProto *node = nodes[i];
      for (size_t a = 0; a < node->n_attribute; a++)
        {
          const Onnx__AttributeProto *attr = node->attribute[a];
          if (attr->g != NULL)
            validate_graph (v, scope, onyx_graph_namer_name (&v->namer, attr->g), attr->g,
                            scope->opsets, scope->n_opsets);
          for (size_t g = 0; g < attr->n_graphs; g++)
            validate_graph (v, scope, onyx_graph_namer_name (&v->namer, attr->graphs[g]),
                            attr->graphs[g], scope->opsets, scope->n_opsets);
        }
    }
  for (size_t i = 0; i < n_outputs; i++)
    {
      const char *name = outputs[i]->name != NULL ? outputs[i]->name : "";
      if (!g_hash_table_contains (producer_of, name) && !scope_defines (scope, name))
        {
          g_autofree char *shown = onyx_display_escape (name);
          add_problem (v, scope, ONYX_PROBLEM_DANGLING_OUTPUT, ONYX_PROBLEM_ERROR, NULL, -1, name,
                       _("graph output '%s' is not produced by any node"), shown);
        }
    }
  g_hash_table_unref (missing_domains);
  g_hash_table_unref (producer_of);
}

static void
validate_function (Validate *v, const Onnx__FunctionProto *function)
{
  g_autofree char *label = onyx_function_label (function);
  Scope scope = { NULL, g_hash_table_new (g_str_hash, g_str_equal), label,
                  function->opset_import, function->n_opset_import };

  for (size_t i = 0; i < function->n_input; i++)
    g_hash_table_add (scope.names, function->input[i]);
  validate_nodes (v, &scope, function->node, function->n_node, NULL, 0);
  g_hash_table_unref (scope.names);
}

GPtrArray *
onyx_validate_model (const Onnx__ModelProto *model)
{
  Validate v = { g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_problem_free),
                 ONYX_GRAPH_NAMER_INIT (model) };

  if (!model->has_ir_version)
    add_problem (&v, NULL, ONYX_PROBLEM_NO_IR_VERSION, ONYX_PROBLEM_ERROR, NULL, -1, NULL,
                 _("the model has no IR version"));
  if (model->n_opset_import == 0)
    add_problem (&v, NULL, ONYX_PROBLEM_NO_OPSET_IMPORT, ONYX_PROBLEM_ERROR, NULL, -1, NULL,
                 _("the model imports no operator set"));
  if (model->graph != NULL)
    validate_graph (&v, NULL, "main graph", model->graph, model->opset_import, model->n_opset_import);
  for (size_t i = 0; i < model->n_functions; i++)
    validate_function (&v, model->functions[i]);
  onyx_graph_namer_clear (&v.namer);
  return v.problems;
}
