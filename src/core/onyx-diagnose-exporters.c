/* onyx-diagnose-exporters.c: faults that real exporters write, said in the model's
 * terms with what repairs them; what ONNX's own library said of them becomes their
 * detail instead of problems of their own (docs/exporter-faults.md lists them).
 *
 * torch 2.1–2.4's function-per-module exports call onnxscript's operator functions
 * ("aten_add") with attributes ("alpha") that those functions declare only in
 * FunctionProto.attribute_proto, with a default, and not in FunctionProto.attribute.
 * attribute_proto came with IR version 9, but torch 2.2 writes IR version 8, and a tool
 * that reads the file as IR 8 drops the field. What is left reads an attribute it never
 * declares: ONNX's function inference binds only declared attributes, so a Constant
 * whose value is `alpha` has none, and ONNX Runtime refuses the model with that error
 * three calls deep. Inlining puts each call's own values in place. */
#include "onyx-diagnose-private.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "onyx-text.h"

/* FunctionProto.attribute_proto (IR 9): read as an unknown field where the proto
 * predates it. */
#define FUNCTION_ATTRIBUTE_PROTO_FIELD 11
#define SEE_FUNCTION_ATTRIBUTES "docs/exporter-faults.md#function-attributes-not-declared"

typedef struct {
  const Onnx__FunctionProto *function;
  GPtrArray *undeclared;    /* attribute names (borrowed) neither listed nor given a default */
  GPtrArray *default_only;  /* declared only in attribute_proto, in a model older than IR 9 */
  gboolean refused;         /* a node cannot do without an undeclared one */
  GPtrArray *readers;       /* the body's nodes reading undeclared ones (borrowed) */
} Fault;

static void
fault_free (Fault *fault)
{
  g_ptr_array_unref (fault->undeclared);
  g_ptr_array_unref (fault->default_only);
  g_ptr_array_unref (fault->readers);
  g_free (fault);
}

static char *
call_key (const char *domain, const char *name)
{
  return g_strdup_printf ("%s\n%s", onyx_domain_is_default (domain) ? "" : domain, name != NULL ? name : "");
}

/* Counts the calls of each op ("domain\nname" → count) in `nodes` and their subgraphs. */
static void
count_calls (Onnx__NodeProto *const *nodes, size_t n_nodes, GHashTable *calls)
{
  for (size_t n = 0; n < n_nodes; n++)
    {
      char *key = call_key (nodes[n]->domain, nodes[n]->op_type);
      g_hash_table_insert (calls, key, GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (calls, key)) + 1));
      for (size_t a = 0; a < nodes[n]->n_attribute; a++)
        {
          const Onnx__AttributeProto *attribute = nodes[n]->attribute[a];
          if (attribute->g != NULL)
            count_calls (attribute->g->node, attribute->g->n_node, calls);
          for (size_t g = 0; g < attribute->n_graphs; g++)
            count_calls (attribute->graphs[g]->node, attribute->graphs[g]->n_node, calls);
        }
    }
}

/* Whether `node` cannot do without its attribute `attribute`: a Constant's value, or
 * one its schema requires. */
static gboolean
needs_attribute (const Onnx__FunctionProto *function, const Onnx__NodeProto *node, const char *attribute)
{
  const OnyxSchema *schema;
  const OnyxSchemaAttribute *declared;

  if (onyx_domain_is_default (node->domain) && g_strcmp0 (node->op_type, "Constant") == 0)
    return TRUE;
  schema = onyx_schema_for_node (node, function->opset_import, function->n_opset_import);
  declared = schema != NULL ? onyx_schema_find_attribute (schema, attribute) : NULL;
  return declared != NULL && declared->required;
}

static void
add_once (GPtrArray *names, const char *name)
{
  for (guint i = 0; i < names->len; i++)
    if (strcmp (names->pdata[i], name) == 0)
      return;
  g_ptr_array_add (names, (gpointer) name);
}

static void
find_references (Fault *fault, GHashTable *listed, GHashTable *defaults, Onnx__NodeProto *const *nodes,
                 size_t n_nodes)
{
  for (size_t n = 0; n < n_nodes; n++)
    for (size_t a = 0; a < nodes[n]->n_attribute; a++)
      {
        const Onnx__AttributeProto *attribute = nodes[n]->attribute[a];
        const char *ref = attribute->ref_attr_name;

        if (ref != NULL && ref[0] != '\0' && !g_hash_table_contains (listed, ref))
          {
            gboolean has_default = g_hash_table_contains (defaults, ref);
            add_once (has_default ? fault->default_only : fault->undeclared, ref);
            if (!has_default)
              g_ptr_array_add (fault->readers, nodes[n]);
            if (!has_default && needs_attribute (fault->function, nodes[n], attribute->name))
              fault->refused = TRUE;
          }
        if (attribute->g != NULL)
          find_references (fault, listed, defaults, attribute->g->node, attribute->g->n_node);
        for (size_t g = 0; g < attribute->n_graphs; g++)
          find_references (fault, listed, defaults, attribute->graphs[g]->node, attribute->graphs[g]->n_node);
      }
}

/* The model's functions that read attributes they do not declare (Fault*). */
static GPtrArray *
find_faults (const Onnx__ModelProto *model)
{
  GPtrArray *faults = g_ptr_array_new_with_free_func ((GDestroyNotify) fault_free);

  for (size_t f = 0; f < model->n_functions; f++)
    {
      const Onnx__FunctionProto *function = model->functions[f];
      g_autoptr (GHashTable) listed = g_hash_table_new (g_str_hash, g_str_equal);
      g_autoptr (GHashTable) defaults = g_hash_table_new (g_str_hash, g_str_equal);
      g_autoptr (GPtrArray) protos = onyx_proto_get_repeated (&function->base, FUNCTION_ATTRIBUTE_PROTO_FIELD,
                                                              &onnx__attribute_proto__descriptor);
      Fault *fault = g_new0 (Fault, 1);

      for (size_t i = 0; i < function->n_attribute; i++)
        g_hash_table_add (listed, function->attribute[i]);
      for (guint i = 0; i < protos->len; i++)
        g_hash_table_add (defaults, ((Onnx__AttributeProto *) protos->pdata[i])->name);
      fault->function = function;
      fault->undeclared = g_ptr_array_new ();
      fault->default_only = g_ptr_array_new ();
      fault->readers = g_ptr_array_new ();
      find_references (fault, listed, defaults, function->node, function->n_node);
      /* attribute_proto declares them from IR 9 on. */
      if (model->ir_version >= 9)
        g_ptr_array_set_size (fault->default_only, 0);
      if (fault->undeclared->len == 0 && fault->default_only->len == 0)
        fault_free (fault);
      else
        g_ptr_array_add (faults, fault);
    }
  return faults;
}

/* "'alpha'", "'alpha', 'beta'" */
static char *
quoted_names (GPtrArray *names)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *name = onyx_display_escape (names->pdata[i]);
      g_string_append_printf (text, "%s'%s'", i > 0 ? ", " : "", name);
    }
  return g_string_free (text, FALSE);
}

void
onyx_diagnose_exporter_faults (const Onnx__ModelProto *model, GPtrArray *out)
{
  g_autoptr (GPtrArray) faults = find_faults (model);
  g_autoptr (GHashTable) calls = NULL;
  const OnyxCheckedGraph g = { NULL };

  if (faults->len == 0)
    return;
  calls = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  if (model->graph != NULL)
    count_calls (model->graph->node, model->graph->n_node, calls);
  for (size_t f = 0; f < model->n_functions; f++)
    count_calls (model->functions[f]->node, model->functions[f]->n_node, calls);
  for (guint i = 0; i < faults->len; i++)
    {
      const Fault *fault = faults->pdata[i];
      g_autofree char *key = call_key (fault->function->domain, fault->function->name);
      guint n_calls = GPOINTER_TO_UINT (g_hash_table_lookup (calls, key));
      g_autofree char *name = onyx_display_escape (fault->function->name);
      g_autofree char *label = onyx_function_label (fault->function);
      OnyxCheckedGraph in_function = g;
      GPtrArray *names = fault->undeclared->len > 0 ? fault->undeclared : fault->default_only;
      g_autofree char *listed = quoted_names (names);
      g_autofree char *attributes = g_strdup_printf (
          /* TRANSLATORS: the attributes a function reads: "attribute 'alpha'" */
          g_dngettext (GETTEXT_PACKAGE, "attribute %s", "attributes %s", names->len), listed);
      g_autofree char *calls_text = g_strdup_printf (
          /* TRANSLATORS: how often a model-local function is called: "called 8 times" */
          g_dngettext (GETTEXT_PACKAGE, "called %u time", "called %u times", n_calls), n_calls);
      OnyxProblem *problem;

      in_function.label = label;
      if (fault->undeclared->len > 0)
        onyx_diagnose_add (out, &in_function, ONYX_PROBLEM_UNDECLARED_ATTRIBUTE,
                           fault->refused ? ONYX_PROBLEM_ERROR : ONYX_PROBLEM_WARNING, NULL, -1, NULL,
                           /* TRANSLATORS: "function aten_add (called 8 times) uses attribute 'alpha'
                            * that it does not declare; ONNX Runtime refuses this model. …" */
                           _("function %s (%s) uses %s that it does not declare; %s Inline Functions repairs it."),
                           name, calls_text, attributes,
                           fault->refused ? _("ONNX Runtime refuses this model.")
                                          : _("ONNX's inference ignores what the calls set."));
      else
        /* Nothing refuses it today: worth knowing before a tool of IR 8 rewrites it. */
        onyx_diagnose_add (out, &in_function, ONYX_PROBLEM_UNDECLARED_ATTRIBUTE, ONYX_PROBLEM_INFO, NULL, -1,
                           NULL,
                           _("function %s (%s) declares %s only in attribute_proto, which came with IR "
                             "version 9, but the model says IR version %lld: a tool reading it as such loses "
                             "the declaration. Inline Functions repairs it."),
                           name, calls_text, attributes, (long long) model->ir_version);
      problem = out->pdata[out->len - 1];
      problem->see = SEE_FUNCTION_ATTRIBUTES;
    }
}

/* Whether ONNX's finding is about the fault: on a call of its function, on a call
 * around one whose message names it ("(op_type:aten_add, …"), or, said of the model,
 * on the body's node that reads what is not declared ("(op_type:Constant, node name:
 * n0)"). */
static gboolean
is_about (const OnyxProblem *problem, const Fault *fault)
{
  const Onnx__FunctionProto *function = fault->function;
  g_autofree char *escaped = onyx_display_escape (function->name);
  g_autofree char *needle = g_strdup_printf ("op_type:%s,", escaped);
  const Onnx__NodeProto *node = problem->node_proto;

  if (node != NULL && g_strcmp0 (node->op_type, function->name) == 0 &&
      onyx_domain_is_default (node->domain) == onyx_domain_is_default (function->domain) &&
      (onyx_domain_is_default (node->domain) || g_strcmp0 (node->domain, function->domain) == 0))
    return TRUE;
  if (strstr (problem->message, needle) != NULL)
    return TRUE;
  for (guint i = 0; node == NULL && problem->graph_proto == NULL && i < fault->readers->len; i++)
    {
      const Onnx__NodeProto *reader = fault->readers->pdata[i];
      g_autofree char *op = onyx_display_escape (reader->op_type);
      g_autofree char *name = onyx_display_escape (reader->name);
      g_autofree char *said = g_strdup_printf ("(op_type:%s, node name: %s)", op, name);
      if (strstr (problem->message, said) != NULL)
        return TRUE;
    }
  return FALSE;
}

void
onyx_diagnose_fold_explained (const Onnx__ModelProto *model, GPtrArray *problems)
{
  g_autoptr (GPtrArray) faults = find_faults (model);

  for (guint i = 0; i < faults->len; i++)
    {
      const Fault *fault = faults->pdata[i];
      g_autofree char *label = onyx_function_label (fault->function);
      OnyxProblem *explained = NULL;
      g_autoptr (GString) detail = g_string_new (NULL);

      for (guint p = 0; p < problems->len && explained == NULL; p++)
        {
          OnyxProblem *problem = problems->pdata[p];
          if (problem->kind == ONYX_PROBLEM_UNDECLARED_ATTRIBUTE && strcmp (problem->graph, label) == 0)
            explained = problem;
        }
      /* Only what no declaration at all makes ONNX stumble on. */
      if (explained == NULL || fault->undeclared->len == 0)
        continue;
      for (guint p = problems->len; p-- > 0;)
        {
          OnyxProblem *problem = problems->pdata[p];
          if ((problem->kind != ONYX_PROBLEM_SHAPE_INFERENCE && problem->kind != ONYX_PROBLEM_CHECKER) ||
              !is_about (problem, fault))
            continue;
          /* Kept in the order ONNX said them. */
          g_string_prepend_c (detail, '\n');
          g_string_prepend (detail, problem->message);
          g_string_prepend (detail, ": ");
          g_string_prepend (detail, problem->graph);
          g_ptr_array_remove_index (problems, p);
        }
      /* Made again with each run over the same problems (an app's, step by step). */
      g_clear_pointer (&explained->detail, g_free);
      if (detail->len > 0)
        explained->detail = g_strndup (detail->str, detail->len - 1);
    }
}
