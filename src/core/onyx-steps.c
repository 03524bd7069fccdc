/* onyx-steps.c: edits written as text steps (onyx-steps.h), each saying what it did. */
#include "onyx-steps-private.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "onyx-attribute.h"
#include "onyx-domain.h"
#include "onyx-edits-private.h"
#include "onyx-edits.h"
#include "onyx-graph-names.h"
#include "onyx-error.h"
#include "onyx-schema.h"
#include "onyx-simplify.h"
#include "onyx-summary.h"
#include "onyx-types.h"
#include "onyx-validate.h"
#include "onyx-text.h"

static gboolean
bad_argument (GError **error, const OnyxStepInfo *step, const char *argument)
{
  g_autofree char *shown = onyx_display_escape (argument);
  g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID, _("'%s' is not of the form %s"), shown,
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

/* Appends to the report's line, "; " between its parts. */
static void
say (OnyxStepReport *report, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
say (OnyxStepReport *report, const char *format, ...)
{
  va_list args;

  if (report->text->len > 0)
    g_string_append (report->text, "; ");
  va_start (args, format);
  g_string_append_vprintf (report->text, format, args);
  va_end (args);
}

/* A line of the longer account. */
static void
detail (OnyxStepReport *report, const char *text)
{
  if (report->details->len > 0)
    g_string_append_c (report->details, '\n');
  g_string_append (report->details, text);
}

/* "a, b" of names, escaped for display. */
static char *
join_shown (const char *const *names, guint n)
{
  g_autoptr (GPtrArray) shown = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (shown, onyx_display_escape (names[i]));
  return onyx_step_join_words (shown);
}

static const OnyxSchema *
schema_of (OnyxDocument *doc, const Onnx__NodeProto *node)
{
  Onnx__ModelProto *model = onyx_document_get_proto (doc);
  return onyx_schema_for_node (node, model->opset_import, model->n_opset_import);
}

/* For steps whose text argument is their one replay argument, or that take none: the
 * step and its entry have the same name (onyx-replay.c). */
static gboolean
apply_as_replay (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, OnyxStepReport *report,
                 GError **error)
{
  const char *const entry[] = { step->name, argument, NULL };
  return onyx_edit_replay (doc, entry, error);
}

/* Bypasses the node; `said` gets what took its place: "bypassed /FooOp:
 * /Relu_output_0 now feeds output". */
static gboolean
bypass_and_say (OnyxDocument *doc, Onnx__NodeProto *node, guint input, GString *said, GError **error)
{
  g_autofree char *described = onyx_node_describe (doc, node);
  g_autofree char *source = onyx_display_escape (input < node->n_input ? node->input[input] : NULL);
  g_autofree char *target = onyx_display_escape (node->n_output > 0 ? node->output[0] : NULL);

  if (!onyx_edit_bypass_node (doc, node, input, error))
    return FALSE;
  if (target[0] == '\0')
    g_string_printf (said, _("bypassed %s (nothing read its output)"), described);
  else
    /* Translators: "bypassed /FooOp: /Relu_output_0 now feeds output": what the
     * bypassed node read now goes where its output went. */
    g_string_printf (said, _("bypassed %s: %s now feeds %s"), described, source, target);
  return TRUE;
}

static gboolean
apply_bypass (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, OnyxStepReport *report,
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
  return node != NULL && bypass_and_say (doc, node, input, report->text, error);
}

static gboolean
apply_bypass_op (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, OnyxStepReport *report,
                 GError **error)
{
  g_autoptr (OnyxGraphList) graphs = onyx_graph_list_new (onyx_document_get_proto (doc));
  const char *sep = strstr (argument, "::");
  g_autofree char *domain = sep != NULL ? g_strndup (argument, sep - argument) : g_strdup ("");
  const char *op = sep != NULL ? sep + 2 : argument;
  g_autoptr (GPtrArray) matches = g_ptr_array_new ();
  g_autoptr (GString) said = g_string_new (NULL);
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
      g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_NOT_FOUND, _("no node has operator %s"), shown);
      return FALSE;
    }
  /* One node keeps its own label ("Bypass node FooOp_0"). */
  label = matches->len > 1 ? g_strdup_printf (ngettext ("Bypass %u %s node", "Bypass %u %s nodes", matches->len),
                                              matches->len, shown)
                           : NULL;
  if (label != NULL)
    onyx_document_begin_group (doc, label);
  for (guint i = 0; i < matches->len && ok; i++)
    {
      ok = bypass_and_say (doc, matches->pdata[i], 0, said, error);
      if (ok && matches->len > 1)
        detail (report, said->str);
    }
  /* All or nothing: a failure half way takes back the bypasses before it. */
  if (label != NULL && ok)
    onyx_document_end_group (doc);
  else if (label != NULL)
    onyx_document_abort_group (doc);
  if (ok && matches->len == 1)
    say (report, "%s", said->str);
  else if (ok)
    say (report, ngettext ("bypassed %u node of %s", "bypassed %u nodes of %s", matches->len), matches->len, shown);
  return ok;
}

/* How many nodes read what `node` makes (each once). */
static guint
count_readers (OnyxDocument *doc, const Onnx__NodeProto *node)
{
  OnyxGraphIndex *index = onyx_edit_index_of (doc, node);
  g_autoptr (GHashTable) readers = g_hash_table_new (NULL, NULL);

  for (size_t k = 0; k < node->n_output; k++)
    {
      OnyxValue *value = node->output[k][0] != '\0' ? onyx_graph_index_lookup (index, node->output[k]) : NULL;
      for (guint u = 0; value != NULL && u < value->uses->len; u++)
        g_hash_table_add (readers, g_array_index (value->uses, OnyxUse, u).node);
    }
  return g_hash_table_size (readers);
}

static gboolean
apply_delete (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, OnyxStepReport *report,
              GError **error)
{
  Onnx__NodeProto *node = onyx_document_find_node (doc, argument, error);
  g_autofree char *described = NULL;
  guint n_readers;

  if (node == NULL)
    return FALSE;
  described = onyx_node_describe (doc, node);
  n_readers = count_readers (doc, node);
  if (!onyx_edit_delete_node (doc, node, error))
    return FALSE;
  if (n_readers == 0)
    say (report, _("deleted %s"), described);
  else
    say (report, ngettext ("deleted %s; %u node read what it made and is left dangling",
                           "deleted %s; %u nodes read what it made and are left dangling", n_readers),
         described, n_readers);
  return TRUE;
}

static gboolean
apply_delete_tree (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, OnyxStepReport *report,
                   GError **error)
{
  Onnx__NodeProto *node = onyx_document_find_node (doc, argument, error);
  g_autofree char *described = node != NULL ? onyx_node_describe (doc, node) : NULL;

  if (node == NULL || !onyx_edit_delete_descendants (doc, node, error))
    return FALSE;
  say (report, _("deleted %s and what depends on it"), described);
  return TRUE;
}

static gboolean
apply_delete_ancestors (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, OnyxStepReport *report,
                        GError **error)
{
  Onnx__NodeProto *node = onyx_document_find_node (doc, argument, error);
  g_autofree char *described = node != NULL ? onyx_node_describe (doc, node) : NULL;

  if (node == NULL || !onyx_edit_delete_ancestors (doc, node, error))
    return FALSE;
  say (report, _("deleted %s and what only it reads"), described);
  return TRUE;
}

static gboolean
apply_reconnect (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, OnyxStepReport *report,
                 GError **error)
{
  g_autofree char *left = NULL;
  g_autofree char *tensor = NULL;
  g_autofree char *node_ref = NULL;
  g_autofree char *index_text = NULL;
  g_autofree char *described = NULL, *was = NULL, *now = NULL;
  Onnx__NodeProto *node;
  guint index;

  if (!split (argument, '=', FALSE, &left, &tensor) ||
      !split (left, ':', TRUE, &node_ref, &index_text) || !parse_index (index_text, &index))
    return bad_argument (error, step, argument);
  node = onyx_document_find_node (doc, node_ref, error);
  if (node == NULL)
    return FALSE;
  described = onyx_node_describe (doc, node);
  was = onyx_display_escape (index < node->n_input ? node->input[index] : NULL);
  now = onyx_display_escape (tensor);
  if (!onyx_edit_reconnect (doc, node, index, tensor, error))
    return FALSE;
  if (was[0] == '\0')
    say (report, _("input %u of %s now reads %s"), index, described, now);
  else
    say (report, _("input %u of %s now reads %s (was %s)"), index, described, now, was);
  return TRUE;
}

static gboolean
apply_rename (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, OnyxStepReport *report,
              GError **error)
{
  g_autofree char *old_name = NULL;
  g_autofree char *new_name = NULL;
  g_autofree char *old_shown = NULL, *new_shown = NULL;

  if (!split (argument, '=', FALSE, &old_name, &new_name))
    return bad_argument (error, step, argument);
  if (!onyx_edit_rename_tensor (doc, old_name, new_name, error))
    return FALSE;
  old_shown = onyx_display_escape (old_name);
  new_shown = onyx_display_escape (new_name);
  say (report, _("renamed %s to %s"), old_shown, new_shown);
  return TRUE;
}

static gboolean
apply_set_attr (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, OnyxStepReport *report,
                GError **error)
{
  g_autofree char *left = NULL;
  g_autofree char *value = NULL;
  g_autofree char *node_ref = NULL;
  g_autofree char *name = NULL;
  g_autofree char *described = NULL, *shown = NULL, *was = NULL, *now = NULL;
  const Onnx__AttributeProto *existing;
  Onnx__NodeProto *node;

  /* Node names often contain dots ("/model.0/Conv"); attribute names do not. */
  if (!split (argument, '=', FALSE, &left, &value) || !split (left, '.', TRUE, &node_ref, &name))
    return bad_argument (error, step, argument);
  node = onyx_document_find_node (doc, node_ref, error);
  if (node == NULL)
    return FALSE;
  described = onyx_node_describe (doc, node);
  existing = onyx_node_find_attribute (node, name, NULL);
  was = existing != NULL ? onyx_attribute_describe (existing, schema_of (doc, node)) : NULL;
  if (!onyx_edit_set_attribute (doc, node, name, value, error))
    return FALSE;
  now = onyx_attribute_describe (onyx_node_find_attribute (node, name, NULL), schema_of (doc, node));
  shown = onyx_display_escape (name);
  if (was != NULL)
    /* Translators: "/Cast.to = INT32 (was INT64)". */
    say (report, _("%s.%s = %s (was %s)"), described, shown, now, was);
  else
    say (report, _("%s.%s = %s (new)"), described, shown, now);
  return TRUE;
}

static gboolean
apply_set_name (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, OnyxStepReport *report,
                GError **error)
{
  g_autofree char *node_ref = NULL;
  g_autofree char *name = NULL;
  g_autofree char *described = NULL, *shown = NULL;
  Onnx__NodeProto *node;

  if (!split (argument, '=', FALSE, &node_ref, &name))
    return bad_argument (error, step, argument);
  node = onyx_document_find_node (doc, node_ref, error);
  if (node == NULL)
    return FALSE;
  described = onyx_node_describe (doc, node);
  if (!onyx_edit_set_node_name (doc, node, name, error))
    return FALSE;
  shown = onyx_display_escape (name);
  if (name[0] == '\0')
    say (report, _("node %s has no name now"), described);
  else
    say (report, _("renamed node %s to %s"), described, shown);
  return TRUE;
}

/* Dim `axis` of a graph input as text: "8", "N", "?"; NULL when it has none. */
static char *
input_dim_text (OnyxDocument *doc, const char *input, guint axis)
{
  const Onnx__GraphProto *graph = onyx_document_get_proto (doc)->graph;

  for (size_t i = 0; i < graph->n_input; i++)
    {
      const Onnx__TypeProto *type = graph->input[i]->type;
      const Onnx__TensorShapeProto__Dimension *dim;
      if (g_strcmp0 (graph->input[i]->name, input) != 0 || type == NULL ||
          type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || type->tensor_type->shape == NULL ||
          axis >= type->tensor_type->shape->n_dim)
        continue;
      dim = type->tensor_type->shape->dim[axis];
      if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
        return g_strdup_printf ("%" G_GINT64_FORMAT, dim->dim_value);
      return onyx_display_escape (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM
                                  ? dim->dim_param : "?");
    }
  return NULL;
}

static gboolean
apply_set_dim (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, OnyxStepReport *report,
               GError **error)
{
  g_autofree char *left = NULL;
  g_autofree char *value = NULL;
  g_autofree char *input = NULL;
  g_autofree char *axis_text = NULL;
  g_autofree char *was = NULL, *now = NULL, *shown = NULL;
  guint axis;

  if (!split (argument, '=', FALSE, &left, &value) ||
      !split (left, ':', TRUE, &input, &axis_text) || !parse_index (axis_text, &axis))
    return bad_argument (error, step, argument);
  was = input_dim_text (doc, input, axis);
  if (!onyx_edit_set_input_dim (doc, input, axis, value, error))
    return FALSE;
  now = input_dim_text (doc, input, axis);
  shown = onyx_display_escape (input);
  say (report, _("dim %u of %s is now %s (was %s)"), axis, shown, now, was);
  return TRUE;
}

/* The attributes the node's operator requires and it lacks: not an error of the
 * edit (the diagnostics report them), but the user has to set them. */
static void
say_missing_attributes (OnyxDocument *doc, const Onnx__NodeProto *node, OnyxStepReport *report)
{
  const OnyxSchema *schema = schema_of (doc, node);
  g_autoptr (GPtrArray) missing = g_ptr_array_new ();
  g_autofree char *listed = NULL;

  for (guint a = 0; schema != NULL && a < schema->n_attributes; a++)
    if (schema->attributes[a].required &&
        onyx_node_find_attribute (node, schema->attributes[a].name, NULL) == NULL)
      g_ptr_array_add (missing, (gpointer) schema->attributes[a].name);
  if (missing->len == 0)
    return;
  listed = join_shown ((const char *const *) missing->pdata, missing->len);
  say (report, _("%s requires %s (set with set-attr)"), schema->name, listed);
}

static gboolean
replace_and_say (OnyxDocument *doc, Onnx__NodeProto *node, const char *domain, const char *op_type,
                 OnyxStepReport *report, GError **error)
{
  g_auto (GStrv) dropped = NULL;
  g_autofree char *described = onyx_node_describe (doc, node);
  g_autofree char *op = NULL;

  if (!onyx_edit_replace_operator (doc, node, domain, op_type, &dropped, error))
    return FALSE;
  op = onyx_node_op_key (node);
  say (report, _("%s now computes %s"), described, op);
  if (dropped != NULL && dropped[0] != NULL)
    {
      guint n = g_strv_length (dropped);
      g_autofree char *listed = join_shown ((const char *const *) dropped, n);
      say (report, ngettext ("dropped its attribute %s", "dropped its attributes %s", n), listed);
    }
  say_missing_attributes (doc, node, report);
  return TRUE;
}

static gboolean
apply_replace (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, OnyxStepReport *report,
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
         replace_and_say (doc, node, domain, op_type, report, error);
}

static gboolean
insert_and_say (OnyxDocument *doc, const char *tensor, const char *domain, const char *op_type,
                const char *const *extra_inputs, OnyxStepReport *report, GError **error)
{
  Onnx__NodeProto *node = onyx_edit_insert_node (doc, tensor, domain, op_type, extra_inputs, error);
  g_autofree char *shown = NULL, *op = NULL, *after = NULL;

  if (node == NULL)
    return FALSE;
  shown = onyx_display_escape (node->name);
  op = onyx_node_op_key (node);
  after = onyx_display_escape (tensor);
  /* Translators: "inserted the new node x/Relu (Relu), reading x". */
  say (report, _("inserted the new node %s (%s), reading %s"), shown, op, after);
  say_missing_attributes (doc, node, report);
  return TRUE;
}

static gboolean
apply_insert (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, OnyxStepReport *report,
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
         insert_and_say (doc, tensor, domain, op_type, (const char *const *) extra_inputs, report, error);
}

/* How many nodes of the main graph stand elsewhere in `after` than in `before`. */
static guint
count_moved (GPtrArray *before, const Onnx__GraphProto *after)
{
  guint n = 0;

  for (guint i = 0; i < before->len && i < after->n_node; i++)
    n += before->pdata[i] != after->node[i];
  return n;
}

static gboolean
apply_toposort (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, OnyxStepReport *report,
                GError **error)
{
  const Onnx__GraphProto *graph = onyx_document_get_proto (doc)->graph;
  g_autoptr (GPtrArray) before = g_ptr_array_new ();
  guint n_moved;

  for (size_t n = 0; n < graph->n_node; n++)
    g_ptr_array_add (before, graph->node[n]);
  if (!onyx_edit_toposort (doc, error))
    return FALSE;
  n_moved = count_moved (before, onyx_document_get_proto (doc)->graph);
  if (n_moved > 0)
    say (report, ngettext ("moved %u node into topological order", "moved %u nodes into topological order", n_moved),
         n_moved);
  return TRUE;
}

/* How many nodes of the model's graphs call one of its local functions. */
static guint
count_calls (OnyxDocument *doc)
{
  Onnx__ModelProto *model = onyx_document_get_proto (doc);
  g_autoptr (GPtrArray) graphs = onyx_graph_list_graphs (model);
  guint n = 0;

  for (guint g = 0; g < graphs->len; g++)
    {
      const Onnx__GraphProto *graph = graphs->pdata[g];
      for (size_t i = 0; i < graph->n_node; i++)
        for (size_t f = 0; f < model->n_functions; f++)
          if (g_strcmp0 (graph->node[i]->op_type, model->functions[f]->name) == 0 &&
              g_strcmp0 (graph->node[i]->domain, model->functions[f]->domain) == 0)
            {
              n++;
              break;
            }
    }
  return n;
}

static gboolean
apply_inline_functions (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, OnyxStepReport *report,
                        GError **error)
{
  guint n_calls = count_calls (doc);

  if (!onyx_edit_inline_functions (doc, error))
    return FALSE;
  say (report, ngettext ("inlined %u call of a local function", "inlined %u calls of local functions", n_calls),
       n_calls);
  return TRUE;
}

static gboolean
apply_infer_shapes (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, OnyxStepReport *report,
                    GError **error)
{
  guint n_written = 0;

  if (!onyx_edit_infer_shapes (doc, &n_written, error))
    return FALSE;
  if (n_written > 0)
    say (report, ngettext ("wrote %u inferred type (value_info)", "wrote %u inferred types (value_info)", n_written),
         n_written);
  return TRUE;
}

/* The model's opset of ai.onnx, or 0 when it imports none. */
static gint64
default_opset (OnyxDocument *doc)
{
  Onnx__ModelProto *model = onyx_document_get_proto (doc);

  for (size_t i = 0; i < model->n_opset_import; i++)
    if (onyx_domain_is_default (model->opset_import[i]->domain))
      return model->opset_import[i]->version;
  return 0;
}

static gboolean
apply_convert_opset (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, OnyxStepReport *report,
                     GError **error)
{
  guint target;
  gint64 from = default_opset (doc);

  if (!parse_index (argument, &target) || target > G_MAXINT)
    return bad_argument (error, step, argument);
  if (!onyx_edit_convert_opset (doc, (int) target, error))
    return FALSE;
  /* (An opset is a small number: an int, which xgettext reads in a format.) */
  if (from != (gint64) target)
    say (report, _("converted ai.onnx from opset %d to %u"), (int) CLAMP (from, G_MININT, G_MAXINT), target);
  return TRUE;
}

static gboolean
apply_simplify (OnyxDocument *doc, const OnyxStepInfo *step, const char *argument, OnyxStepReport *report,
                GError **error)
{
  OnyxSimplifyOptions options = { .passes = ONYX_SIMPLIFY_ALL, .prove = TRUE };
  g_autoptr (OnyxSimplifyReport) result = NULL;
  g_autofree char *account = NULL;

  if (argument != NULL && !onyx_simplify_parse_passes (argument, &options.passes, error))
    return FALSE;
  if (!onyx_edit_simplify (doc, &options, &result, error))
    return FALSE;
  account = onyx_simplify_report_format (result, TRUE);
  say (report, ngettext ("simplified %u node to %u", "simplified %u nodes to %u", result->n_nodes_before),
       result->n_nodes_before, result->n_nodes_after);
  detail (report, g_strchomp (account));
  return TRUE;
}

/* In help order. `report`: what a step applied as its replay entry did, its argument
 * for %s; `counts`: its line ends with what it removed and added; `types_only`: it
 * changes nothing that is counted. */
static const OnyxStepInfo steps[] = {
  { "bypass", "NODE[:INPUT]", "remove NODE; the tensor of its input (default 0) takes over its output",
    apply_bypass },
  { "bypass-op", "[DOMAIN::]OP", "bypass every node of that operator, e.g. devtech::FooOp",
    apply_bypass_op },
  { "delete", "NODE", "remove NODE; its consumers are left dangling",
    apply_delete },
  { "delete-tree", "NODE", "remove NODE and every node that depends on it",
    apply_delete_tree, .counts = TRUE },
  { "delete-ancestors", "NODE", "remove NODE and what only it reads",
    apply_delete_ancestors, .counts = TRUE },
  { "reconnect", "NODE:INDEX=TENSOR", "input INDEX of NODE reads TENSOR",
    apply_reconnect },
  { "rename", "OLD=NEW", "rename a tensor, graph input or output everywhere",
    apply_rename },
  { "add-output", "TENSOR", "expose TENSOR as a graph output",
    apply_as_replay, .report = N_("%s is now a graph output") },
  { "remove-output", "NAME", "remove a graph output",
    apply_as_replay, .report = N_("removed the graph output %s") },
  { "remove-input", "NAME", "remove a graph input",
    apply_as_replay, .report = N_("removed the graph input %s") },
  { "set-attr", "NODE.NAME=VALUE",
    "set an attribute: 3, 0.5, text, [1,2], [\"a\",\"b\"], a type such as INT64",
    apply_set_attr },
  { "set-name", "NODE=NAME", "rename a node",
    apply_set_name },
  { "set-dim", "INPUT:AXIS=VALUE", "set a dim of a graph input: a number, a name such as N, or ?",
    apply_set_dim, .types_only = TRUE },
  { "replace", "NODE=[DOMAIN::]OP", "NODE computes OP instead (inputs, outputs, attributes OP knows stay)",
    apply_replace },
  { "insert", "TENSOR=[DOMAIN::]OP[:EXTRA_INPUT,...]",
    "a new OP node reads TENSOR (and the extra inputs); TENSOR's readers read its output",
    apply_insert, TRUE },
  { "cleanup", NULL, "remove nodes and initializers no graph output depends on",
    apply_as_replay, .counts = TRUE },
  { "toposort", NULL, "sort the nodes topologically",
    apply_toposort },
  { "inline-functions", NULL, "replace each call of a local function by its body; remove the functions",
    apply_inline_functions, .counts = TRUE },
  { "infer-shapes", NULL, "write the types and shapes ONNX's shape inference finds as value_info",
    apply_infer_shapes, TRUE, .types_only = TRUE },
  { "convert-opset", "N", "convert the model to opset N of ai.onnx with ONNX's version converter",
    apply_convert_opset, .counts = TRUE },
  { "simplify", "PASSES", "fold constants and shapes, remove no-ops and duplicates, fuse; proven in ONNX Runtime "
    "(PASSES: all, or some of constants,branches,shapes,fold,noops,duplicates,fusions)",
    apply_simplify, TRUE, .optional_argument = TRUE },
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
  return onyx_step_apply_reported (doc, name, argument, NULL, NULL, error);
}

gboolean
onyx_step_apply_noted (OnyxDocument *doc, const char *name, const char *argument, char **note,
                       GError **error)
{
  return onyx_step_apply_reported (doc, name, argument, note, NULL, error);
}

/* The step's own words, then what it removed and added when it says so, or when it
 * has no words of its own (cleanup). */
static char *
compose_report (const OnyxStepInfo *step, const char *argument, GString *said, const char *changes)
{
  if (said->len == 0 && step->report != NULL)
    {
      g_autofree char *shown = onyx_display_escape (argument);
      g_string_printf (said, _(step->report), shown);
    }
  if (said->len == 0)
    return g_strdup (changes);
  if (step->counts && changes != NULL)
    return g_strdup_printf ("%s: %s", said->str, changes);
  return g_strdup (said->str);
}

gboolean
onyx_step_apply_reported (OnyxDocument *doc, const char *name, const char *argument, char **report,
                          char **details, GError **error)
{
  const OnyxStepInfo *step = onyx_step_find (name);
  g_autoptr (GString) said = g_string_new (NULL);
  g_autoptr (GString) more = g_string_new (NULL);
  OnyxStepReport parts = { said, more };
  OnyxStepCensus *before = NULL;
  g_autofree char *changes = NULL;
  guint n_undo = onyx_document_get_n_undo (doc);

  if (report != NULL)
    *report = NULL;
  if (details != NULL)
    *details = NULL;
  if (step == NULL)
    {
      g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_NOT_FOUND, _("there is no edit step '%s'"), name);
      return FALSE;
    }
  if ((step->argument != NULL) != (argument != NULL) && !(step->optional_argument && argument == NULL))
    {
      g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID,
                   step->argument != NULL ? _("%s needs an argument") : _("%s takes no argument"), name);
      return FALSE;
    }
  /* Counting the model is for those who asked what the step did (twice 4 ms on a
   * 13k-node model, more than writing its value_info). */
  if ((report != NULL || details != NULL) && !step->types_only)
    before = onyx_step_census_new (doc);
  if (!step->apply (doc, step, argument, &parts, error))
    {
      g_clear_pointer (&before, onyx_step_census_free);
      return FALSE;
    }
  if (report == NULL && details == NULL)
    return TRUE;
  if (before != NULL)
    {
      changes = onyx_step_census_changes (before, doc, more);
      onyx_step_census_free (before);
    }
  /* A step that changed nothing has nothing to report. */
  if (onyx_document_get_n_undo (doc) == n_undo)
    return TRUE;
  if (report != NULL)
    *report = compose_report (step, argument, said, changes);
  if (details != NULL && more->len > 0)
    *details = g_strdup (more->str);
  return TRUE;
}

gboolean
onyx_edit_replay (OnyxDocument *doc, const char *const *entry, GError **error)
{
  static const OnyxReplayStep *const *const files[] = {
    onyx_edits_replay_steps, onyx_edits_tensors_replay_steps, onyx_edits_repair_replay_steps,
    onyx_cleanup_replay_steps, onyx_inline_replay_steps, onyx_convert_replay_steps, onyx_simplify_replay_steps,
  };
  guint n_arguments = entry != NULL && entry[0] != NULL ? g_strv_length ((char **) entry) - 1 : 0;
  const char *name = entry != NULL ? entry[0] : NULL;

  for (guint f = 0; name != NULL && f < G_N_ELEMENTS (files); f++)
    for (const OnyxReplayStep *const *step = files[f]; *step != NULL; step++)
      if (strcmp ((*step)->name, name) == 0 && (*step)->n_arguments == n_arguments)
        return (*step)->apply (doc, entry + 1, error);
  g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID, _("unreadable replay entry '%s'"),
               name != NULL ? name : "");
  return FALSE;
}
