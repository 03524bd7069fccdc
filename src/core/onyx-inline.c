/* Inline Functions: every call of a model-local function replaced by the function's
 * body, as one undoable edit. Older dynamo exports (torch 2.2–2.4) wrap each module
 * in a function; inlined, the model is one graph whose node names keep the module
 * path ("Sequential_0/Linear_1/MatMul") for Onyx's name-scope grouping. */
#include <string.h>

#include "onyx-edits-private.h"

#include <glib/gi18n-lib.h>

#include "onyx-replay.h"
#include "onyx-graph-names.h"
#include "onyx-schema.h"
#include "onyx-types.h"
#include "onyx-validate.h"
#include "onyx-text.h"

/* FunctionProto.attribute_proto (IR 9): the defaults of the function's attributes.
 * Debian's onnx.proto predates it (onyx_proto_get_repeated reads it either way). */
#define FUNCTION_ATTRIBUTE_PROTO_FIELD 11

typedef struct {
  Onnx__ModelProto *model;
  GHashTable *functions;    /* "DOMAIN\nNAME" → Onnx__FunctionProto* */
  GHashTable *tensor_names; /* every name the model's graphs use, and those given out */
  GHashTable *node_names;
} Inliner;

/* One call being expanded: how the body's names and attribute references bind. */
typedef struct {
  Inliner *in;
  const char *prefix;        /* the call's name: what the body's names go under */
  GHashTable *rename;        /* body name → model name (owned) */
  Onnx__AttributeProto *const *call_attributes;
  size_t n_call_attributes;
  const Onnx__FunctionProto *function;
} Frame;

static void inline_nodes (Frame *frame, Onnx__NodeProto *const *nodes, size_t n_nodes, GPtrArray *out);

static char *
function_key (const char *domain, const char *name)
{
  return g_strdup_printf ("%s\n%s", onyx_domain_is_default (domain) ? "" : domain, name != NULL ? name : "");
}

static Onnx__FunctionProto *
called_function (Inliner *in, const Onnx__NodeProto *node)
{
  g_autofree char *key = function_key (node->domain, node->op_type);
  return g_hash_table_lookup (in->functions, key);
}

static void
take_name (GHashTable *names, const char *name)
{
  if (name != NULL && name[0] != '\0')
    g_hash_table_add (names, g_strdup (name));
}

static void
take_values (GHashTable *names, Onnx__ValueInfoProto *const *values, size_t n)
{
  for (size_t i = 0; i < n; i++)
    take_name (names, values[i]->name);
}

/* The names of every graph of the model but the functions, which go. */
static void
collect_names (Inliner *in, GPtrArray *graphs)
{
  for (guint g = 0; g < graphs->len; g++)
    {
      Onnx__GraphProto *graph = graphs->pdata[g];
      take_values (in->tensor_names, graph->input, graph->n_input);
      take_values (in->tensor_names, graph->output, graph->n_output);
      take_values (in->tensor_names, graph->value_info, graph->n_value_info);
      for (size_t i = 0; i < graph->n_initializer; i++)
        take_name (in->tensor_names, graph->initializer[i]->name);
      for (size_t n = 0; n < graph->n_node; n++)
        {
          Onnx__NodeProto *node = graph->node[n];
          take_name (in->node_names, node->name);
          for (size_t k = 0; k < node->n_input; k++)
            take_name (in->tensor_names, node->input[k]);
          for (size_t k = 0; k < node->n_output; k++)
            take_name (in->tensor_names, node->output[k]);
        }
    }
}

/* `base`, or `base`_1, _2…: the first not in `names`, which it then joins. */
static const char *
unique_name (GHashTable *names, const char *base)
{
  char *name = g_strdup (base);

  for (guint n = 1; g_hash_table_contains (names, name); n++)
    {
      g_free (name);
      name = g_strdup_printf ("%s_%u", base, n);
    }
  g_hash_table_add (names, name);
  return name;
}

static void
set_string (char **field, const char *text)
{
  free (*field);
  *field = strdup (text);
}

/* ---- checks, before anything changes ---- */

/* The local functions that `nodes` (and their subgraphs) call, in order. */
static void
collect_callees (Inliner *in, Onnx__NodeProto *const *nodes, size_t n_nodes, GPtrArray *callees)
{
  for (size_t n = 0; n < n_nodes; n++)
    {
      Onnx__FunctionProto *function = called_function (in, nodes[n]);
      if (function != NULL)
        g_ptr_array_add (callees, function);
      for (size_t a = 0; a < nodes[n]->n_attribute; a++)
        {
          Onnx__AttributeProto *attribute = nodes[n]->attribute[a];
          if (attribute->g != NULL)
            collect_callees (in, attribute->g->node, attribute->g->n_node, callees);
          for (size_t g = 0; g < attribute->n_graphs; g++)
            collect_callees (in, attribute->graphs[g]->node, attribute->graphs[g]->n_node, callees);
        }
    }
}

enum { VISITING = 1, DONE };

/* Depth first through the calls from `function`: a function on the way to itself is a
 * cycle, which inlining would never finish. `path` holds the names on the way. */
static gboolean
check_calls (Inliner *in, Onnx__FunctionProto *function, GHashTable *state, GPtrArray *path, GError **error)
{
  g_autoptr (GPtrArray) callees = g_ptr_array_new ();

  g_hash_table_insert (state, function, GINT_TO_POINTER (VISITING));
  g_ptr_array_add (path, function->name != NULL ? function->name : "");
  collect_callees (in, function->node, function->n_node, callees);
  for (guint i = 0; i < callees->len; i++)
    {
      Onnx__FunctionProto *callee = callees->pdata[i];
      int seen = GPOINTER_TO_INT (g_hash_table_lookup (state, callee));
      if (seen == VISITING)
        {
          g_autofree char *joined = NULL;
          g_autofree char *shown = NULL;
          g_autofree char *name = onyx_display_escape (callee->name != NULL ? callee->name : "");
          g_ptr_array_add (path, callee->name != NULL ? callee->name : "");
          g_ptr_array_add (path, NULL);
          joined = g_strjoinv (" → ", (char **) path->pdata);
          shown = onyx_display_escape (joined);
          return onyx_edit_fail (error, ONYX_EDIT_ERROR_CYCLE,
                                 _("local function %s calls itself (%s): it cannot be inlined"), name, shown);
        }
      if (seen == 0 && !check_calls (in, callee, state, path, error))
        return FALSE;
    }
  g_hash_table_insert (state, function, GINT_TO_POINTER (DONE));
  g_ptr_array_set_size (path, path->len - 1);
  return TRUE;
}

/* The opset imports the inlined nodes need that the model lacks (domain → version),
 * or NULL with an error when a function imports a domain at another version than the
 * model or another function does: its nodes would mean something else. */
static GHashTable *
merge_opsets (Inliner *in, GHashTable *state, GError **error)
{
  g_autoptr (GHashTable) wanted = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_autoptr (GHashTable) wanted_by = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, state);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      Onnx__FunctionProto *function = key;
      for (size_t i = 0; i < function->n_opset_import; i++)
        {
          Onnx__OperatorSetIdProto *opset = function->opset_import[i];
          const char *domain = onyx_domain_is_default (opset->domain) ? "" : opset->domain;
          gint64 model_version = onyx_opset_version (in->model->opset_import, in->model->n_opset_import, domain);
          gint64 *other = g_hash_table_lookup (wanted, domain);
          gint64 theirs = model_version >= 0 ? model_version : other != NULL ? *other : opset->version;

          if (theirs != opset->version)
            {
              g_autofree char *shown = onyx_display_escape (domain[0] != '\0' ? domain : "ai.onnx");
              g_autofree char *name = onyx_display_escape (function->name != NULL ? function->name : "");
              g_autofree char *who = model_version >= 0 ? g_strdup ("the model")
                : g_strdup_printf ("function %s", (const char *) g_hash_table_lookup (wanted_by, domain));
              g_autofree char *who_shown = onyx_display_escape (who);
              onyx_edit_fail (error, ONYX_EDIT_ERROR_INVALID,
                              _("local function %s imports %s version %lld, %s version %lld: "
                                "inlining would change what its nodes mean"),
                              name, shown, (long long) opset->version, who_shown, (long long) theirs);
              return NULL;
            }
          if (model_version < 0 && other == NULL)
            {
              g_hash_table_insert (wanted, (gpointer) domain, g_memdup2 (&opset->version, sizeof opset->version));
              g_hash_table_insert (wanted_by, (gpointer) domain, function->name != NULL ? function->name : "");
            }
        }
    }
  return g_steal_pointer (&wanted);
}

/* ---- expansion: fresh nodes, built outside the document ---- */

/* The model's name for a name of the body: bound by the call, or fresh under the
 * call's prefix the first time it is seen. */
static const char *
map_name (Frame *frame, const char *name)
{
  const char *mapped;

  if (name == NULL || name[0] == '\0')
    return "";
  mapped = g_hash_table_lookup (frame->rename, name);
  if (mapped == NULL)
    {
      g_autofree char *base = g_strdup_printf ("%s/%s", frame->prefix, name);
      mapped = g_strdup (unique_name (frame->in->tensor_names, base));
      g_hash_table_insert (frame->rename, g_strdup (name), (gpointer) mapped);
    }
  return mapped;
}

static void
rename_slot (Frame *frame, char **slot)
{
  const char *mapped = map_name (frame, *slot);
  if (g_strcmp0 (mapped, *slot) != 0)
    set_string (slot, mapped);
}

/* The function's default for attribute `name`, from its attribute_proto, or NULL;
 * a new message. */
static Onnx__AttributeProto *
function_default (const Onnx__FunctionProto *function, const char *name)
{
  g_autoptr (GPtrArray) defaults =
      onyx_proto_get_repeated (&function->base, FUNCTION_ATTRIBUTE_PROTO_FIELD, &onnx__attribute_proto__descriptor);

  for (guint i = 0; i < defaults->len; i++)
    if (g_strcmp0 (((Onnx__AttributeProto *) defaults->pdata[i])->name, name) == 0)
      return g_ptr_array_steal_index (defaults, i);
  return NULL;
}

/* The value a reference to the call's attribute `name` takes: the call's, else the
 * function's default, else NULL (not set). A new message. */
static Onnx__AttributeProto *
referenced_value (Frame *frame, const char *name)
{
  for (size_t a = 0; a < frame->n_call_attributes; a++)
    if (g_strcmp0 (frame->call_attributes[a]->name, name) == 0)
      return (Onnx__AttributeProto *) onyx_proto_copy (&frame->call_attributes[a]->base);
  return function_default (frame->function, name);
}

static void
rename_values (Frame *frame, Onnx__ValueInfoProto **values, size_t n)
{
  for (size_t i = 0; i < n; i++)
    rename_slot (frame, &values[i]->name);
}

static void
inline_subgraph (Frame *frame, Onnx__GraphProto *graph)
{
  g_autoptr (GPtrArray) nodes = g_ptr_array_new ();

  rename_values (frame, graph->input, graph->n_input);
  rename_values (frame, graph->output, graph->n_output);
  rename_values (frame, graph->value_info, graph->n_value_info);
  for (size_t i = 0; i < graph->n_initializer; i++)
    rename_slot (frame, &graph->initializer[i]->name);
  inline_nodes (frame, graph->node, graph->n_node, nodes);
  for (size_t n = 0; n < graph->n_node; n++)
    protobuf_c_message_free_unpacked (&graph->node[n]->base, NULL);
  free (graph->node);
  graph->n_node = nodes->len;
  graph->node = malloc (MAX (nodes->len, 1) * sizeof *graph->node);
  memcpy (graph->node, nodes->pdata, nodes->len * sizeof *graph->node);
}

/* Attribute references take the call's values (renamed to the referring attribute);
 * subgraphs are inlined in the same frame, since they read the body's names. */
static void
resolve_attributes (Frame *frame, Onnx__NodeProto *node)
{
  for (size_t a = node->n_attribute; a-- > 0;)
    {
      Onnx__AttributeProto *attribute = node->attribute[a];

      if (attribute->ref_attr_name != NULL && attribute->ref_attr_name[0] != '\0')
        {
          Onnx__AttributeProto *value = referenced_value (frame, attribute->ref_attr_name);
          if (value != NULL)
            {
              set_string (&value->name, attribute->name);
              node->attribute[a] = value;
            }
          else
            {
              memmove (node->attribute + a, node->attribute + a + 1,
                       (node->n_attribute - a - 1) * sizeof *node->attribute);
              node->n_attribute--;
            }
          protobuf_c_message_free_unpacked (&attribute->base, NULL);
          continue;
        }
      if (attribute->g != NULL)
        inline_subgraph (frame, attribute->g);
      for (size_t g = 0; g < attribute->n_graphs; g++)
        inline_subgraph (frame, attribute->graphs[g]);
    }
}

static void expand_call (Inliner *in, const Onnx__NodeProto *call, const Onnx__FunctionProto *function,
                         const char *prefix, GPtrArray *out);

/* Copies of `nodes` in the model's names, calls expanded, appended to `out`. */
static void
inline_nodes (Frame *frame, Onnx__NodeProto *const *nodes, size_t n_nodes, GPtrArray *out)
{
  for (size_t n = 0; n < n_nodes; n++)
    {
      Onnx__NodeProto *copy = (Onnx__NodeProto *) onyx_proto_copy (&nodes[n]->base);
      const char *inner = onyx_node_name_or_op (copy);
      g_autofree char *base = g_strdup_printf ("%s/%s", frame->prefix, inner != NULL ? inner : "");
      Onnx__FunctionProto *callee;

      for (size_t k = 0; k < copy->n_input; k++)
        rename_slot (frame, &copy->input[k]);
      for (size_t k = 0; k < copy->n_output; k++)
        rename_slot (frame, &copy->output[k]);
      resolve_attributes (frame, copy);
      set_string (&copy->name, unique_name (frame->in->node_names, base));
      callee = called_function (frame->in, copy);
      if (callee == NULL)
        {
          g_ptr_array_add (out, copy);
          continue;
        }
      expand_call (frame->in, copy, callee, copy->name, out);
      protobuf_c_message_free_unpacked (&copy->base, NULL);
    }
}

/* An Identity from `input` to `output`: a function output that is one of its inputs
 * has no node writing it. */
static Onnx__NodeProto *
identity_node (Inliner *in, const char *prefix, const char *input, const char *output)
{
  Onnx__NodeProto *node = malloc (sizeof *node);
  g_autofree char *base = g_strdup_printf ("%s/Identity", prefix);

  onnx__node_proto__init (node);
  node->name = strdup (unique_name (in->node_names, base));
  node->op_type = strdup ("Identity");
  node->n_input = node->n_output = 1;
  node->input = malloc (sizeof *node->input);
  node->input[0] = strdup (input);
  node->output = malloc (sizeof *node->output);
  node->output[0] = strdup (output);
  return node;
}

/* The body of `function` for `call`, appended to `out`: formal inputs read the call's
 * actual names ("" where the call leaves an optional input out), formal outputs write
 * the call's outputs, everything else gets a fresh name under `prefix`. */
static void
expand_call (Inliner *in, const Onnx__NodeProto *call, const Onnx__FunctionProto *function,
             const char *prefix, GPtrArray *out)
{
  g_autoptr (GHashTable) rename = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  Frame frame = { in, prefix, rename, call->attribute, call->n_attribute, function };

  for (size_t i = 0; i < function->n_input; i++)
    g_hash_table_insert (rename, g_strdup (function->input[i]), g_strdup (i < call->n_input ? call->input[i] : ""));
  for (size_t i = 0; i < function->n_output && i < call->n_output; i++)
    {
      const char *bound = g_hash_table_lookup (rename, function->output[i]);
      if (call->output[i][0] == '\0')
        continue;
      if (bound != NULL && g_strcmp0 (bound, call->output[i]) != 0)
        g_ptr_array_add (out, identity_node (in, prefix, bound, call->output[i]));
      else
        g_hash_table_insert (rename, g_strdup (function->output[i]), g_strdup (call->output[i]));
    }
  inline_nodes (&frame, function->node, function->n_node, out);
}

/* ---- the edit ---- */

static void
inline_graph (OnyxDocument *doc, Inliner *in, Onnx__GraphProto *graph)
{
  for (size_t n = graph->n_node; n-- > 0;)
    {
      Onnx__NodeProto *call = graph->node[n];
      Onnx__FunctionProto *function = called_function (in, call);
      g_autoptr (GPtrArray) body = NULL;
      const char *prefix;

      if (function == NULL)
        continue;
      body = g_ptr_array_new ();
      prefix = call->name != NULL && call->name[0] != '\0'
        ? call->name : unique_name (in->node_names, function->name != NULL ? function->name : "function");
      expand_call (in, call, function, prefix, body);
      onyx_document_remove_item (doc, &graph->base, "node", n);
      for (guint i = 0; i < body->len; i++)
        onyx_document_insert_item (doc, &graph->base, "node", n + i, body->pdata[i]);
    }
}

static void
import_opsets (OnyxDocument *doc, GHashTable *wanted)
{
  Onnx__ModelProto *model = onyx_document_get_proto (doc);
  g_autoptr (GList) domains = g_list_sort (g_hash_table_get_keys (wanted), (GCompareFunc) strcmp);

  /* Sorted, so that the same model always gives the same file. */
  for (GList *l = domains; l != NULL; l = l->next)
    {
      Onnx__OperatorSetIdProto *opset = malloc (sizeof *opset);
      onnx__operator_set_id_proto__init (opset);
      opset->domain = strdup (l->data);
      opset->has_version = TRUE;
      opset->version = *(gint64 *) g_hash_table_lookup (wanted, l->data);
      onyx_document_insert_item (doc, &model->base, "opset_import", model->n_opset_import, &opset->base);
    }
}

/* The functions go, and the imports of their domains that no node uses any more. */
static void
remove_functions (OnyxDocument *doc)
{
  Onnx__ModelProto *model = onyx_document_get_proto (doc);
  g_autoptr (GHashTable) domains = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) used = NULL;

  for (size_t f = model->n_functions; f-- > 0;)
    {
      const char *domain = model->functions[f]->domain;
      g_hash_table_add (domains, g_strdup (onyx_domain_is_default (domain) ? "" : domain));
      onyx_document_remove_item (doc, &model->base, "functions", f);
    }
  used = onyx_model_used_domains (model);
  for (size_t i = model->n_opset_import; i-- > 0;)
    {
      const char *domain = model->opset_import[i]->domain;
      domain = onyx_domain_is_default (domain) ? "" : domain;
      if (!onyx_domain_is_standard (domain) && g_hash_table_contains (domains, domain) &&
          !g_hash_table_contains (used, domain))
        onyx_document_remove_item (doc, &model->base, "opset_import", i);
    }
}

static gboolean
replay_inline_functions (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  return onyx_edit_inline_functions (doc, error);
}

static const OnyxReplayStep inline_step = { "inline-functions", 0, replay_inline_functions };

gboolean
onyx_edit_inline_functions (OnyxDocument *doc, GError **error)
{
  Onnx__ModelProto *model = onyx_document_get_proto (doc);
  g_autoptr (GPtrArray) graphs = onyx_graph_list_graphs (model);
  g_autoptr (GHashTable) functions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) tensor_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) node_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) state = g_hash_table_new (NULL, NULL);
  g_autoptr (GPtrArray) path = g_ptr_array_new ();
  g_autoptr (GPtrArray) calls = g_ptr_array_new ();
  g_autoptr (GHashTable) wanted = NULL;
  Inliner in = { model, functions, tensor_names, node_names };

  if (model->n_functions == 0)
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_NOT_FOUND, _("the model has no local functions"));
  for (size_t f = 0; f < model->n_functions; f++)
    g_hash_table_insert (functions, function_key (model->functions[f]->domain, model->functions[f]->name),
                         model->functions[f]);
  for (guint g = 0; g < graphs->len; g++)
    {
      Onnx__GraphProto *graph = graphs->pdata[g];
      for (size_t n = 0; n < graph->n_node; n++)
        if (called_function (&in, graph->node[n]) != NULL)
          g_ptr_array_add (calls, called_function (&in, graph->node[n]));
    }
  for (guint i = 0; i < calls->len; i++)
    if (g_hash_table_lookup (state, calls->pdata[i]) == NULL &&
        !check_calls (&in, calls->pdata[i], state, path, error))
      return FALSE;
  if ((wanted = merge_opsets (&in, state, error)) == NULL)
    return FALSE;
  collect_names (&in, graphs);

  onyx_document_begin_command (doc, _("Inline functions"));
  onyx_replay_note (doc, &inline_step, NULL);
  /* Innermost graphs first, so that no graph still to visit is inside a removed call. */
  for (guint g = graphs->len; g-- > 0;)
    inline_graph (doc, &in, graphs->pdata[g]);
  import_opsets (doc, wanted);
  remove_functions (doc);
  return onyx_edit_commit (doc);
}

const OnyxReplayStep *const onyx_inline_replay_steps[] = { &inline_step, NULL };
