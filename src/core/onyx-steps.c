#include "onyx-steps.h"

#include <string.h>

#include "onyx-edits.h"
#include "onyx-types.h"
#include "onyx-validate.h"

static const OnyxStepInfo steps[] = {
  { "bypass", "NODE[:INPUT]", "remove NODE; the tensor of its input (default 0) takes over its output" },
  { "bypass-op", "[DOMAIN::]OP", "bypass every node of that operator, e.g. devtech::FooOp" },
  { "delete", "NODE", "remove NODE; its consumers are left dangling" },
  { "delete-tree", "NODE", "remove NODE and every node that depends on it" },
  { "delete-ancestors", "NODE", "remove NODE and what only it reads" },
  { "reconnect", "NODE:INDEX=TENSOR", "input INDEX of NODE reads TENSOR" },
  { "rename", "OLD=NEW", "rename a tensor, graph input or output everywhere" },
  { "add-output", "TENSOR", "expose TENSOR as a graph output" },
  { "remove-output", "NAME", "remove a graph output" },
  { "remove-input", "NAME", "remove a graph input" },
  { "set-attr", "NODE.NAME=VALUE", "set an attribute: 3, 0.5, text, [1,2], [0.5,1.5], [\"a\",\"b\"]" },
  { "set-name", "NODE=NAME", "rename a node" },
  { "set-dim", "INPUT:AXIS=VALUE", "set a dim of a graph input: a number, a name such as N, or ?" },
  { "cleanup", NULL, "remove nodes and initializers no graph output depends on" },
  { "toposort", NULL, "sort the nodes topologically" },
  { NULL, NULL, NULL },
};

const OnyxStepInfo *
onyx_steps_list (void)
{
  return steps;
}

const OnyxStepInfo *
onyx_step_find (const char *name)
{
  for (guint i = 0; steps[i].name != NULL; i++)
    if (strcmp (steps[i].name, name) == 0)
      return &steps[i];
  return NULL;
}

static gboolean
bad_argument (GError **error, const OnyxStepInfo *step, const char *argument)
{
  g_autofree char *shown = onyx_display_escape (argument);
  g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID, "'%s' is not of the form %s", shown,
               step->argument);
  return FALSE;
}

/* Splits "LEFT<sep>RIGHT" at the first (or last) separator. */
static gboolean
split (const char *text, char separator, gboolean last, char **left, char **right)
{
  const char *at = last ? strrchr (text, separator) : strchr (text, separator);
  if (at == NULL || at == text)
    return FALSE;
  *left = g_strndup (text, at - text);
  *right = g_strdup (at + 1);
  return TRUE;
}

static gboolean
parse_index (const char *text, guint *value)
{
  guint64 parsed;
  if (!g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT32, &parsed, NULL))
    return FALSE;
  *value = (guint) parsed;
  return TRUE;
}

static gboolean
bypass (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, GError **error)
{
  g_autofree char *node_ref = NULL;
  g_autofree char *input_text = NULL;
  Onnx__NodeProto *node;
  guint input = 0;

  /* A whole name wins over NODE:INPUT, for names that contain ':'. */
  if (onyx_graph_index_node_by_name (onyx_document_get_index (doc), argument) == NULL &&
      split (argument, ':', TRUE, &node_ref, &input_text) && !parse_index (input_text, &input))
    return bad_argument (error, step, argument);
  node = onyx_edit_find_node (doc, node_ref != NULL ? node_ref : argument, error);
  return node != NULL && onyx_edit_bypass_node (doc, node, input, error);
}

static gboolean
bypass_op (OnyxDocument *doc, const char *argument, GError **error)
{
  Onnx__GraphProto *graph = onyx_graph_index_get_graph (onyx_document_get_index (doc));
  const char *sep = strstr (argument, "::");
  g_autofree char *domain = sep != NULL ? g_strndup (argument, sep - argument) : g_strdup ("");
  const char *op = sep != NULL ? sep + 2 : argument;
  g_autoptr (GPtrArray) matches = g_ptr_array_new ();
  g_autofree char *label = NULL;
  g_autofree char *shown = onyx_display_escape (argument);
  gboolean ok = TRUE;

  for (size_t n = 0; n < graph->n_node; n++)
    {
      Onnx__NodeProto *node = graph->node[n];
      gboolean same_domain = onyx_domain_is_default (domain) ? onyx_domain_is_default (node->domain)
                                                             : g_strcmp0 (node->domain, domain) == 0;
      if (same_domain && g_strcmp0 (node->op_type, op) == 0)
        g_ptr_array_add (matches, node);
    }
  if (matches->len == 0)
    {
      g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_NOT_FOUND, "no node has operator %s", shown);
      return FALSE;
    }
  /* One node keeps its own label ("Bypass node FooOp_0"). */
  label = matches->len > 1 ? g_strdup_printf ("Bypass %u %s nodes", matches->len, shown) : NULL;
  if (label != NULL)
    onyx_document_begin_group (doc, label);
  for (guint i = 0; i < matches->len && ok; i++)
    ok = onyx_edit_bypass_node (doc, matches->pdata[i], 0, error);
  /* All or nothing: a failure half way takes back the bypasses before it. */
  if (label != NULL && ok)
    onyx_document_end_group (doc);
  else if (label != NULL)
    onyx_document_abort_group (doc);
  return ok;
}

gboolean
onyx_step_apply (OnyxDocument *doc, const char *name, const char *argument, GError **error)
{
  const OnyxStepInfo *step = onyx_step_find (name);
  g_autofree char *left = NULL;
  g_autofree char *right = NULL;
  g_autofree char *node_ref = NULL;
  g_autofree char *field = NULL;
  Onnx__NodeProto *node;
  guint index;

  if (step == NULL)
    {
      g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_NOT_FOUND, "there is no edit step '%s'", name);
      return FALSE;
    }
  if ((step->argument != NULL) != (argument != NULL))
    {
      g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID,
                   step->argument != NULL ? "%s needs an argument" : "%s takes no argument", name);
      return FALSE;
    }

  if (strcmp (name, "bypass") == 0)
    return bypass (doc, step, argument, error);
  if (strcmp (name, "bypass-op") == 0)
    return bypass_op (doc, argument, error);
  if (strcmp (name, "delete") == 0 || strcmp (name, "delete-tree") == 0 ||
      strcmp (name, "delete-ancestors") == 0)
    {
      node = onyx_edit_find_node (doc, argument, error);
      if (node == NULL)
        return FALSE;
      if (strcmp (name, "delete") == 0)
        return onyx_edit_delete_node (doc, node, error);
      if (strcmp (name, "delete-tree") == 0)
        return onyx_edit_delete_descendants (doc, node, error);
      return onyx_edit_delete_ancestors (doc, node, error);
    }
  if (strcmp (name, "reconnect") == 0)
    {
      if (!split (argument, '=', FALSE, &left, &right) ||
          !split (left, ':', TRUE, &node_ref, &field) || !parse_index (field, &index))
        return bad_argument (error, step, argument);
      node = onyx_edit_find_node (doc, node_ref, error);
      return node != NULL && onyx_edit_reconnect (doc, node, index, right, error);
    }
  if (strcmp (name, "rename") == 0)
    {
      if (!split (argument, '=', FALSE, &left, &right))
        return bad_argument (error, step, argument);
      return onyx_edit_rename_tensor (doc, left, right, error);
    }
  if (strcmp (name, "add-output") == 0)
    return onyx_edit_add_output (doc, argument, error);
  if (strcmp (name, "remove-output") == 0)
    return onyx_edit_remove_output (doc, argument, error);
  if (strcmp (name, "remove-input") == 0)
    return onyx_edit_remove_input (doc, argument, error);
  if (strcmp (name, "set-attr") == 0)
    {
      /* Node names often contain dots ("/model.0/Conv"); attribute names do not. */
      if (!split (argument, '=', FALSE, &left, &right) || !split (left, '.', TRUE, &node_ref, &field))
        return bad_argument (error, step, argument);
      node = onyx_edit_find_node (doc, node_ref, error);
      return node != NULL && onyx_edit_set_attribute (doc, node, field, right, error);
    }
  if (strcmp (name, "set-name") == 0)
    {
      if (!split (argument, '=', FALSE, &left, &right))
        return bad_argument (error, step, argument);
      node = onyx_edit_find_node (doc, left, error);
      return node != NULL && onyx_edit_set_node_name (doc, node, right, error);
    }
  if (strcmp (name, "set-dim") == 0)
    {
      if (!split (argument, '=', FALSE, &left, &right) ||
          !split (left, ':', TRUE, &node_ref, &field) || !parse_index (field, &index))
        return bad_argument (error, step, argument);
      return onyx_edit_set_input_dim (doc, node_ref, index, right, error);
    }
  if (strcmp (name, "cleanup") == 0)
    return onyx_edit_cleanup (doc, error);
  return onyx_edit_toposort (doc, error);
}

/* The node at "#N" in a replay entry. */
static Onnx__NodeProto *
replay_node (OnyxDocument *doc, const char *reference, GError **error)
{
  if (reference == NULL || reference[0] != '#')
    {
      g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID, "a replayed node must be given as #N");
      return NULL;
    }
  return onyx_edit_find_node (doc, reference, error);
}

gboolean
onyx_replay_apply (OnyxDocument *doc, const char *const *entry, GError **error)
{
  guint n_args = entry != NULL && entry[0] != NULL ? g_strv_length ((char **) entry) - 1 : 0;
  const char *step = entry != NULL ? entry[0] : NULL;
  const OnyxStepInfo *info = step != NULL ? onyx_step_find (step) : NULL;
  /* Arguments each step takes, in the order onyx-edits.c records them. */
  static const struct { const char *step; guint n_args; } arity[] = {
    { "bypass", 2 }, { "delete", 1 }, { "delete-tree", 1 }, { "delete-ancestors", 1 },
    { "reconnect", 3 }, { "rename", 2 }, { "add-output", 1 }, { "remove-output", 1 },
    { "remove-input", 1 }, { "set-attr", 3 }, { "set-name", 2 }, { "set-dim", 3 },
    { "cleanup", 0 }, { "toposort", 0 },
  };
  Onnx__NodeProto *node = NULL;
  guint index = 0;
  gboolean known = FALSE;

  for (guint i = 0; info != NULL && i < G_N_ELEMENTS (arity); i++)
    if (strcmp (arity[i].step, step) == 0)
      known = arity[i].n_args == n_args;
  if (!known)
    {
      g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID, "unreadable replay entry '%s'",
                   step != NULL ? step : "");
      return FALSE;
    }
  if (g_strv_contains ((const char *const[]) { "bypass", "delete", "delete-tree", "delete-ancestors",
                                                "reconnect", "set-attr", "set-name", NULL }, step) &&
      (node = replay_node (doc, entry[1], error)) == NULL)
    return FALSE;
  if ((strcmp (step, "bypass") == 0 || strcmp (step, "reconnect") == 0) && !parse_index (entry[2], &index))
    return bad_argument (error, info, entry[2]);

  if (strcmp (step, "bypass") == 0)
    return onyx_edit_bypass_node (doc, node, index, error);
  if (strcmp (step, "delete") == 0)
    return onyx_edit_delete_node (doc, node, error);
  if (strcmp (step, "delete-tree") == 0)
    return onyx_edit_delete_descendants (doc, node, error);
  if (strcmp (step, "delete-ancestors") == 0)
    return onyx_edit_delete_ancestors (doc, node, error);
  if (strcmp (step, "reconnect") == 0)
    return onyx_edit_reconnect (doc, node, index, entry[3], error);
  if (strcmp (step, "rename") == 0)
    return onyx_edit_rename_tensor (doc, entry[1], entry[2], error);
  if (strcmp (step, "add-output") == 0)
    return onyx_edit_add_output (doc, entry[1], error);
  if (strcmp (step, "remove-output") == 0)
    return onyx_edit_remove_output (doc, entry[1], error);
  if (strcmp (step, "remove-input") == 0)
    return onyx_edit_remove_input (doc, entry[1], error);
  if (strcmp (step, "set-attr") == 0)
    return onyx_edit_set_attribute (doc, node, entry[2], entry[3], error);
  if (strcmp (step, "set-name") == 0)
    return onyx_edit_set_node_name (doc, node, entry[2], error);
  if (strcmp (step, "set-dim") == 0)
    return parse_index (entry[2], &index) ? onyx_edit_set_input_dim (doc, entry[1], index, entry[3], error)
                                          : bad_argument (error, info, entry[2]);
  if (strcmp (step, "cleanup") == 0)
    return onyx_edit_cleanup (doc, error);
  return onyx_edit_toposort (doc, error);
}
