#include "onyx-steps.h"

#include <string.h>

#include "onyx-attribute.h"
#include "onyx-edits.h"
#include "onyx-graph-names.h"
#include "onyx-error.h"
#include "onyx-schema.h"
#include "onyx-types.h"
#include "onyx-validate.h"
#include "onyx-text.h"

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

/* For steps whose text argument is their one replay argument, or that take none: the
 * step and its entry have the same name (onyx-replay.c). */
static gboolean
apply_as_replay (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, GString *note,
                 GError **error)
{
  const char *const entry[] = { step->name, argument, NULL };
  return onyx_edit_replay (doc, entry, error);
}

static gboolean
apply_bypass (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, GString *note,
              GError **error)
{
  g_autofree char *node_ref = NULL;
  g_autofree char *input_text = NULL;
  Onnx__NodeProto *node;
  guint input = 0, n_named = 0;

  /* NODE:INPUT when what follows the last ':' is a number and the whole is no node's
   * name; else the whole is the node (names and GRAPH#N hold ':' too). */
  onyx_document_find_named_node (doc, argument, &n_named);
  if (n_named > 0 || !split (argument, ':', TRUE, &node_ref, &input_text) ||
      !parse_index (input_text, &input))
    {
      g_clear_pointer (&node_ref, g_free);
      input = 0;
    }
  node = onyx_document_find_node (doc, node_ref != NULL ? node_ref : argument, error);
  return node != NULL && onyx_edit_bypass_node (doc, node, input, error);
}

static gboolean
apply_bypass_op (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, GString *note,
                 GError **error)
{
  g_autoptr (OnyxGraphList) graphs = onyx_graph_list_new (onyx_document_get_proto (doc));
  const char *sep = strstr (argument, "::");
  g_autofree char *domain = sep != NULL ? g_strndup (argument, sep - argument) : g_strdup ("");
  const char *op = sep != NULL ? sep + 2 : argument;
  g_autoptr (GPtrArray) matches = g_ptr_array_new ();
  g_autofree char *label = NULL;
  g_autofree char *shown = onyx_display_escape (argument);
  gboolean ok = TRUE;

  /* Every graph of the model but the functions, which are not edited. */
  for (guint g = 0; g < onyx_graph_list_size (graphs); g++)
    {
      const OnyxGraphEntry *entry = onyx_graph_list_get (graphs, g);
      for (size_t n = 0; entry->function == NULL && n < entry->graph->n_node; n++)
        {
          Onnx__NodeProto *node = entry->graph->node[n];
          gboolean same_domain = onyx_domain_is_default (domain) ? onyx_domain_is_default (node->domain)
                                                                 : g_strcmp0 (node->domain, domain) == 0;
          if (same_domain && g_strcmp0 (node->op_type, op) == 0)
            g_ptr_array_add (matches, node);
        }
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

static gboolean
apply_delete (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, GString *note,
              GError **error)
{
  Onnx__NodeProto *node = onyx_document_find_node (doc, argument, error);
  return node != NULL && onyx_edit_delete_node (doc, node, error);
}

static gboolean
apply_delete_tree (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, GString *note,
                   GError **error)
{
  Onnx__NodeProto *node = onyx_document_find_node (doc, argument, error);
  return node != NULL && onyx_edit_delete_descendants (doc, node, error);
}

static gboolean
apply_delete_ancestors (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, GString *note,
                        GError **error)
{
  Onnx__NodeProto *node = onyx_document_find_node (doc, argument, error);
  return node != NULL && onyx_edit_delete_ancestors (doc, node, error);
}

static gboolean
apply_reconnect (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, GString *note,
                 GError **error)
{
  g_autofree char *left = NULL;
  g_autofree char *tensor = NULL;
  g_autofree char *node_ref = NULL;
  g_autofree char *index_text = NULL;
  Onnx__NodeProto *node;
  guint index;

  if (!split (argument, '=', FALSE, &left, &tensor) ||
      !split (left, ':', TRUE, &node_ref, &index_text) || !parse_index (index_text, &index))
    return bad_argument (error, step, argument);
  node = onyx_document_find_node (doc, node_ref, error);
  return node != NULL && onyx_edit_reconnect (doc, node, index, tensor, error);
}

static gboolean
apply_rename (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, GString *note,
              GError **error)
{
  g_autofree char *old_name = NULL;
  g_autofree char *new_name = NULL;

  if (!split (argument, '=', FALSE, &old_name, &new_name))
    return bad_argument (error, step, argument);
  return onyx_edit_rename_tensor (doc, old_name, new_name, error);
}

static gboolean
apply_set_attr (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, GString *note,
                GError **error)
{
  g_autofree char *left = NULL;
  g_autofree char *value = NULL;
  g_autofree char *node_ref = NULL;
  g_autofree char *name = NULL;
  Onnx__NodeProto *node;

  /* Node names often contain dots ("/model.0/Conv"); attribute names do not. */
  if (!split (argument, '=', FALSE, &left, &value) || !split (left, '.', TRUE, &node_ref, &name))
    return bad_argument (error, step, argument);
  node = onyx_document_find_node (doc, node_ref, error);
  return node != NULL && onyx_edit_set_attribute (doc, node, name, value, error);
}

static gboolean
apply_set_name (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, GString *note,
                GError **error)
{
  g_autofree char *node_ref = NULL;
  g_autofree char *name = NULL;
  Onnx__NodeProto *node;

  if (!split (argument, '=', FALSE, &node_ref, &name))
    return bad_argument (error, step, argument);
  node = onyx_document_find_node (doc, node_ref, error);
  return node != NULL && onyx_edit_set_node_name (doc, node, name, error);
}

static gboolean
apply_set_dim (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, GString *note,
               GError **error)
{
  g_autofree char *left = NULL;
  g_autofree char *value = NULL;
  g_autofree char *input = NULL;
  g_autofree char *axis_text = NULL;
  guint axis;

  if (!split (argument, '=', FALSE, &left, &value) ||
      !split (left, ':', TRUE, &input, &axis_text) || !parse_index (axis_text, &axis))
    return bad_argument (error, step, argument);
  return onyx_edit_set_input_dim (doc, input, axis, value, error);
}

/* Appends "; " between the parts of a note. */
static void
note_part (GString *note, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
note_part (GString *note, const char *format, ...)
{
  va_list args;

  if (note->len > 0)
    g_string_append (note, "; ");
  va_start (args, format);
  g_string_append_vprintf (note, format, args);
  va_end (args);
}

/* "a, b" of names, escaped for display. */
static char *
join_shown (const char *const *names, guint n)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *shown = onyx_display_escape (names[i]);
      g_string_append_printf (text, "%s%s", i > 0 ? ", " : "", shown);
    }
  return g_string_free (text, FALSE);
}

/* The attributes the node's operator requires and it lacks: not an error of the
 * edit (the diagnostics report them), but the user has to set them. */
static void
note_missing_attributes (OnyxDocument *doc, const Onnx__NodeProto *node, GString *note)
{
  Onnx__ModelProto *model = onyx_document_get_proto (doc);
  const OnyxSchema *schema = onyx_schema_for_node (node, model->opset_import, model->n_opset_import);
  g_autoptr (GPtrArray) missing = g_ptr_array_new ();
  g_autofree char *listed = NULL;

  for (guint a = 0; schema != NULL && a < schema->n_attributes; a++)
    if (schema->attributes[a].required &&
        onyx_node_find_attribute (node, schema->attributes[a].name, NULL) == NULL)
      g_ptr_array_add (missing, (gpointer) schema->attributes[a].name);
  if (missing->len == 0)
    return;
  listed = join_shown ((const char *const *) missing->pdata, missing->len);
  note_part (note, "%s requires %s (set with set-attr)", schema->name, listed);
}

static gboolean
replace_and_note (OnyxDocument *doc, Onnx__NodeProto *node, const char *domain, const char *op_type,
                  GString *note, GError **error)
{
  g_auto (GStrv) dropped = NULL;

  if (!onyx_edit_replace_operator (doc, node, domain, op_type, &dropped, error))
    return FALSE;
  if (dropped != NULL && dropped[0] != NULL)
    {
      g_autofree char *listed = join_shown ((const char *const *) dropped, g_strv_length (dropped));
      note_part (note, "dropped %s %s", g_strv_length (dropped) > 1 ? "attributes" : "attribute", listed);
    }
  note_missing_attributes (doc, node, note);
  return TRUE;
}

static gboolean
apply_replace (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, GString *note,
               GError **error)
{
  g_autofree char *node_ref = NULL;
  g_autofree char *operator = NULL;
  g_autofree char *domain = NULL;
  g_autofree char *op_type = NULL;
  Onnx__NodeProto *node;

  /* Operators hold no '=', node names may. */
  if (!split (argument, '=', TRUE, &node_ref, &operator))
    return bad_argument (error, step, argument);
  node = onyx_document_find_node (doc, node_ref, error);
  return node != NULL && onyx_parse_operator (operator, &domain, &op_type, error) &&
         replace_and_note (doc, node, domain, op_type, note, error);
}

static gboolean
insert_and_note (OnyxDocument *doc, const char *tensor, const char *domain, const char *op_type,
                 const char *const *extra_inputs, GString *note, GError **error)
{
  Onnx__NodeProto *node = onyx_edit_insert_node (doc, tensor, domain, op_type, extra_inputs, error);
  g_autofree char *shown = NULL;

  if (node == NULL)
    return FALSE;
  shown = onyx_display_escape (node->name);
  note_part (note, "new node %s", shown);
  note_missing_attributes (doc, node, note);
  return TRUE;
}

static gboolean
apply_insert (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, GString *note,
              GError **error)
{
  g_autofree char *tensor = NULL;
  g_autofree char *right = NULL;
  g_autofree char *operator = NULL;
  g_autofree char *domain = NULL;
  g_autofree char *op_type = NULL;
  g_auto (GStrv) extra_inputs = NULL;
  const char *op_start;
  const char *extras_at;

  if (!split (argument, '=', FALSE, &tensor, &right))
    return bad_argument (error, step, argument);
  /* The first single ':' after the operator (and its DOMAIN::) starts the extra inputs. */
  op_start = strstr (right, "::") != NULL && strchr (right, ':') == strstr (right, "::")
             ? strstr (right, "::") + 2 : right;
  extras_at = strchr (op_start, ':');
  operator = extras_at != NULL ? g_strndup (right, extras_at - right) : g_strdup (right);
  if (extras_at != NULL)
    extra_inputs = g_strsplit (extras_at + 1, ",", -1);
  return onyx_parse_operator (operator, &domain, &op_type, error) &&
         insert_and_note (doc, tensor, domain, op_type, (const char *const *) extra_inputs, note, error);
}

static gboolean
apply_convert_opset (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, GString *note,
                     GError **error)
{
  guint target;

  if (!parse_index (argument, &target) || target > G_MAXINT)
    return bad_argument (error, step, argument);
  return onyx_edit_convert_opset (doc, (int) target, error);
}

/* In help order. */
static const OnyxStepInfo steps[] = {
  { "bypass", "NODE[:INPUT]", "remove NODE; the tensor of its input (default 0) takes over its output",
    apply_bypass },
  { "bypass-op", "[DOMAIN::]OP", "bypass every node of that operator, e.g. devtech::FooOp",
    apply_bypass_op },
  { "delete", "NODE", "remove NODE; its consumers are left dangling",
    apply_delete },
  { "delete-tree", "NODE", "remove NODE and every node that depends on it",
    apply_delete_tree },
  { "delete-ancestors", "NODE", "remove NODE and what only it reads",
    apply_delete_ancestors },
  { "reconnect", "NODE:INDEX=TENSOR", "input INDEX of NODE reads TENSOR",
    apply_reconnect },
  { "rename", "OLD=NEW", "rename a tensor, graph input or output everywhere",
    apply_rename },
  { "add-output", "TENSOR", "expose TENSOR as a graph output",
    apply_as_replay },
  { "remove-output", "NAME", "remove a graph output",
    apply_as_replay },
  { "remove-input", "NAME", "remove a graph input",
    apply_as_replay },
  { "set-attr", "NODE.NAME=VALUE",
    "set an attribute: 3, 0.5, text, [1,2], [\"a\",\"b\"], a type such as INT64",
    apply_set_attr },
  { "set-name", "NODE=NAME", "rename a node",
    apply_set_name },
  { "set-dim", "INPUT:AXIS=VALUE", "set a dim of a graph input: a number, a name such as N, or ?",
    apply_set_dim },
  { "replace", "NODE=[DOMAIN::]OP", "NODE computes OP instead (inputs, outputs, attributes OP knows stay)",
    apply_replace },
  { "insert", "TENSOR=[DOMAIN::]OP[:EXTRA_INPUT,...]",
    "a new OP node reads TENSOR (and the extra inputs); TENSOR's readers read its output",
    apply_insert, TRUE },
  { "cleanup", NULL, "remove nodes and initializers no graph output depends on",
    apply_as_replay },
  { "toposort", NULL, "sort the nodes topologically",
    apply_as_replay },
  { "inline-functions", NULL, "replace each call of a local function by its body; remove the functions",
    apply_as_replay },
  { "infer-shapes", NULL, "write the types and shapes ONNX's shape inference finds as value_info",
    apply_as_replay, TRUE },
  { "convert-opset", "N", "convert the model to opset N of ai.onnx with ONNX's version converter",
    apply_convert_opset },
  { NULL, NULL, NULL, NULL, FALSE },
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

gboolean
onyx_step_apply (OnyxDocument *doc, const char *name, const char *argument, GError **error)
{
  return onyx_step_apply_noted (doc, name, argument, NULL, error);
}

gboolean
onyx_step_apply_noted (OnyxDocument *doc, const char *name, const char *argument, char **note,
                       GError **error)
{
  const OnyxStepInfo *step = onyx_step_find (name);
  g_autoptr (GString) noted = g_string_new (NULL);

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
  if (note != NULL)
    *note = NULL;
  if (!step->apply (doc, step, argument, noted, error))
    return FALSE;
  if (note != NULL && noted->len > 0)
    *note = g_string_free (g_steal_pointer (&noted), FALSE);
  return TRUE;
}

gboolean
onyx_edit_replay (OnyxDocument *doc, const char *const *entry, GError **error)
{
  static const OnyxReplayStep *const *const files[] = {
    onyx_edits_replay_steps, onyx_edits_tensors_replay_steps, onyx_edits_repair_replay_steps,
    onyx_cleanup_replay_steps, onyx_inline_replay_steps, onyx_convert_replay_steps,
  };
  guint n_arguments = entry != NULL && entry[0] != NULL ? g_strv_length ((char **) entry) - 1 : 0;
  const char *name = entry != NULL ? entry[0] : NULL;

  for (guint f = 0; name != NULL && f < G_N_ELEMENTS (files); f++)
    for (const OnyxReplayStep *const *step = files[f]; *step != NULL; step++)
      if (strcmp ((*step)->name, name) == 0 && (*step)->n_arguments == n_arguments)
        return (*step)->apply (doc, entry + 1, error);
  g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID, "unreadable replay entry '%s'",
               name != NULL ? name : "");
  return FALSE;
}
