/* Repairs that change what a node computes: another operator in its place, or a new
 * node spliced in after a tensor. */
#include "onyx-edits.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "onyx-edits-private.h"

#include "onyx-replay.h"
#include "onyx-graph-names.h"
#include "onyx-schema.h"
#include "onyx-types.h"
#include "onyx-validate.h"
#include "onyx-text.h"

gboolean
onyx_parse_operator (const char *text, char **domain, char **op_type, GError **error)
{
  const char *separator = strstr (text, "::");
  const char *op = separator != NULL ? separator + 2 : text;
  g_autofree char *parsed_domain = separator != NULL ? g_strndup (text, separator - text) : g_strdup ("");
  g_autofree char *shown = onyx_display_escape (text);

  if (op[0] == '\0' || (separator != NULL && parsed_domain[0] == '\0'))
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_INVALID, _("'%s' is not an operator: OP or DOMAIN::OP"),
                           shown);
  *domain = onyx_domain_is_default (parsed_domain) ? g_strdup ("") : g_steal_pointer (&parsed_domain);
  *op_type = g_strdup (op);
  return TRUE;
}

/* "LeakyRelu", or "devtech::FooOp" outside ai.onnx; escaped for display. */
static char *
operator_describe (const char *domain, const char *op_type)
{
  g_autofree char *joined = onyx_domain_is_default (domain) ? g_strdup (op_type)
                                                           : g_strdup_printf ("%s::%s", domain, op_type);
  return onyx_display_escape (joined);
}

/* What an edit to DOMAIN::OP_TYPE is checked against. */
typedef struct {
  /* NULL for a domain without schemas (custom ops): nothing to check. */
  const OnyxSchema *schema;
  /* The opset version to import, or -1 when the model imports the domain already. */
  gint64 import_version;
} OperatorTarget;

static gboolean
find_operator (OnyxDocument *doc, const char *domain, const char *op_type, OperatorTarget *target,
               GError **error)
{
  Onnx__ModelProto *model = onyx_document_get_proto (doc);
  gint64 imported = onyx_opset_version (model->opset_import, model->n_opset_import, domain);
  gint64 newest = onyx_schema_domain_version (domain);
  gint64 version = imported >= 0 ? imported : newest;
  g_autofree char *shown = NULL;

  if (op_type == NULL || op_type[0] == '\0')
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_INVALID, _("an operator name cannot be empty"));
  target->schema = NULL;
  /* A custom domain's first opset is version 1. */
  target->import_version = imported >= 0 ? -1 : newest > 0 ? newest : 1;
  if (newest == 0)
    return TRUE;
  target->schema = onyx_schema_lookup (domain, op_type, version);
  if (target->schema != NULL && !target->schema->deprecated)
    return TRUE;
  shown = onyx_display_escape (op_type);
  return onyx_edit_fail (error, ONYX_EDIT_ERROR_NOT_FOUND,
                         _("%s is not an operator of %s opset %lld"), shown,
                         onyx_domain_is_default (domain) ? "ai.onnx" : domain, (long long) version);
}

static gboolean
check_count (const char *described, const OnyxSchema *schema, size_t n, gboolean outputs,
             GError **error)
{
  int min = outputs ? schema->min_output : schema->min_input;
  int max = outputs ? schema->max_output : schema->max_input;

  /* Whole sentences, each its own message for translators. */
  if (n > (size_t) max)
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_INVALID,
                           outputs ? ngettext ("%s has %zu output, but %s takes at most %d",
                                               "%s has %zu outputs, but %s takes at most %d", n)
                                   : ngettext ("%s has %zu input, but %s takes at most %d",
                                               "%s has %zu inputs, but %s takes at most %d", n),
                           described, n, schema->name, max);
  if (n < (size_t) min)
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_INVALID,
                           outputs ? ngettext ("%s has %zu output, but %s takes at least %d",
                                               "%s has %zu outputs, but %s takes at least %d", n)
                                   : ngettext ("%s has %zu input, but %s takes at least %d",
                                               "%s has %zu inputs, but %s takes at least %d", n),
                           described, n, schema->name, min);
  return TRUE;
}

/* Records the opset import the target needs, if any. */
static void
import_opset (OnyxDocument *doc, const char *domain, const OperatorTarget *target)
{
  Onnx__ModelProto *model = onyx_document_get_proto (doc);
  Onnx__OperatorSetIdProto *opset;

  if (target->import_version < 0)
    return;
  opset = malloc (sizeof *opset);
  onnx__operator_set_id_proto__init (opset);
  opset->domain = strdup (domain);
  opset->has_version = TRUE;
  opset->version = target->import_version;
  onyx_document_insert_item (doc, &model->base, "opset_import", model->n_opset_import, &opset->base);
}

static gboolean
replay_replace (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  Onnx__NodeProto *node = onyx_replay_find_node (doc, arguments[0], error);
  g_auto (GStrv) dropped = NULL;

  return node != NULL && onyx_edit_replace_operator (doc, node, arguments[1], arguments[2], &dropped, error);
}

static const OnyxReplayStep replace_step = { "replace", 3, replay_replace };

gboolean
onyx_edit_replace_operator (OnyxDocument *doc, Onnx__NodeProto *node, const char *domain,
                            const char *op_type, char ***dropped, GError **error)
{
  OperatorTarget target;
  g_autoptr (GPtrArray) doomed = g_ptr_array_new ();
  g_autofree char *described = NULL;
  g_autofree char *shown = NULL;
  g_autofree char *label = NULL;
  gboolean same_domain;

  if (dropped != NULL)
    *dropped = NULL;
  domain = domain != NULL ? domain : "";
  if (!onyx_edit_check_node (doc, node, error) || !find_operator (doc, domain, op_type, &target, error))
    return FALSE;
  described = onyx_node_describe (doc, node);
  if (target.schema != NULL && (!check_count (described, target.schema, node->n_input, FALSE, error) ||
                                !check_count (described, target.schema, node->n_output, TRUE, error)))
    return FALSE;
  same_domain = onyx_domain_is_default (domain) ? onyx_domain_is_default (node->domain)
                                                : g_strcmp0 (node->domain, domain) == 0;
  if (same_domain && g_strcmp0 (node->op_type, op_type) == 0)
    return TRUE;

  for (size_t a = 0; target.schema != NULL && a < node->n_attribute; a++)
    if (onyx_schema_find_attribute (target.schema, node->attribute[a]->name) == NULL)
      g_ptr_array_add (doomed, GSIZE_TO_POINTER (a));
  if (dropped != NULL)
    {
      *dropped = g_new0 (char *, doomed->len + 1);
      for (guint i = 0; i < doomed->len; i++)
        (*dropped)[i] = g_strdup (node->attribute[GPOINTER_TO_SIZE (doomed->pdata[i])]->name);
    }

  shown = operator_describe (domain, op_type);
  label = g_strdup_printf (_("Replace %s with %s"), described, shown);
  onyx_document_begin_command (doc, label);
  onyx_replay_note_node (doc, &replace_step, node, domain, op_type, NULL);
  import_opset (doc, domain, &target);
  for (guint i = doomed->len; i-- > 0;)
    onyx_document_remove_item (doc, &node->base, "attribute", GPOINTER_TO_SIZE (doomed->pdata[i]));
  if (!same_domain)
    onyx_document_set_node_field (doc, node, "domain", domain);
  onyx_document_set_node_field (doc, node, "op_type", op_type);
  return onyx_edit_commit (doc);
}

/* The graph defining `tensor`: the main graph first, then the subgraphs in
 * onyx_graph_list order; NULL when none does. */
static Onnx__GraphProto *
graph_defining (OnyxDocument *doc, OnyxGraphList *graphs, const char *tensor)
{
  for (guint g = 0; g < onyx_graph_list_size (graphs); g++)
    {
      const OnyxGraphEntry *entry = onyx_graph_list_get (graphs, g);
      if (entry->function == NULL &&
          onyx_graph_index_defines (onyx_document_get_graph_index (doc, entry->graph), tensor))
        return entry->graph;
    }
  return NULL;
}

/* Whether any graph of the model defines, reads or outputs `name`. */
static gboolean
tensor_name_taken (OnyxDocument *doc, OnyxGraphList *graphs, const char *name)
{
  for (guint g = 0; g < onyx_graph_list_size (graphs); g++)
    {
      const OnyxGraphEntry *entry = onyx_graph_list_get (graphs, g);
      OnyxGraphIndex *index;

      if (entry->function != NULL)
        continue;
      index = onyx_document_get_graph_index (doc, entry->graph);
      if (onyx_graph_index_lookup (index, name) != NULL || onyx_graph_index_defines (index, name) ||
          onyx_graph_index_graph_output (index, name) != NULL)
        return TRUE;
    }
  return FALSE;
}

static gboolean
node_name_taken (OnyxDocument *doc, OnyxGraphList *graphs, const char *name)
{
  guint n_named = 0;
  onyx_document_find_named_node (doc, name, &n_named);
  return n_named > 0;
}

typedef gboolean (*NameTakenFunc) (OnyxDocument *doc, OnyxGraphList *graphs, const char *name);

/* `base`, or `base`_1, _2… : the first that `taken` does not know. */
static char *
unique_name (OnyxDocument *doc, OnyxGraphList *graphs, const char *base, NameTakenFunc taken)
{
  char *name = g_strdup (base);

  for (guint n = 1; taken (doc, graphs, name); n++)
    {
      g_free (name);
      name = g_strdup_printf ("%s_%u", base, n);
    }
  return name;
}

/* Copies of `names` that protobuf-c can own and free. */
static char **
proto_strv (GPtrArray *names)
{
  char **copy = malloc (MAX (names->len, 1) * sizeof *copy);

  for (guint i = 0; i < names->len; i++)
    copy[i] = strdup (names->pdata[i]);
  return copy;
}

static Onnx__NodeProto *
new_node (const char *name, const char *domain, const char *op_type, GPtrArray *inputs, GPtrArray *outputs)
{
  Onnx__NodeProto *node = malloc (sizeof *node);

  onnx__node_proto__init (node);
  node->name = strdup (name);
  node->op_type = strdup (op_type);
  node->domain = onyx_domain_is_default (domain) ? NULL : strdup (domain);
  node->n_input = inputs->len;
  node->input = proto_strv (inputs);
  node->n_output = outputs->len;
  node->output = proto_strv (outputs);
  return node;
}

/* Where the new node goes: after the producers of what it reads, and before the first
 * reader of `tensor` (which will read its output); -1 with an error when no place is. */
static gssize
insertion_point (OnyxGraphIndex *index, const char *tensor, const char *const *extra_inputs,
                 GError **error)
{
  OnyxValue *value = onyx_graph_index_lookup (index, tensor);
  gssize position = 0;
  gssize first_reader = G_MAXSSIZE;
  const char *latest = tensor;

  if (value != NULL && value->producer != NULL)
    position = onyx_graph_index_node_position (index, value->producer) + 1;
  for (guint i = 0; extra_inputs != NULL && extra_inputs[i] != NULL; i++)
    {
      OnyxValue *extra = onyx_graph_index_lookup (index, extra_inputs[i]);
      gssize after = extra != NULL && extra->producer != NULL
                     ? onyx_graph_index_node_position (index, extra->producer) + 1 : 0;
      if (after > position)
        {
          position = after;
          latest = extra_inputs[i];
        }
    }
  for (guint u = 0; value != NULL && u < value->uses->len; u++)
    first_reader = MIN (first_reader,
                        onyx_graph_index_node_position (index, g_array_index (value->uses, OnyxUse, u).node));
  if (position > first_reader)
    {
      g_autofree char *latest_shown = onyx_display_escape (latest);
      g_autofree char *tensor_shown = onyx_display_escape (tensor);
      onyx_edit_fail (error, ONYX_EDIT_ERROR_CYCLE,
                      _("'%s' is computed after a reader of '%s': the new node has no place between "
                      "them"), latest_shown, tensor_shown);
      return -1;
    }
  return position;
}

/* The replay argument of the extra inputs: each C-escaped and ended by a newline, so
 * that "" (an omitted input) and no inputs at all stay apart. */
/* The extra inputs are one argument (onyx_replay_names_text). */
static gboolean
replay_insert (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  g_auto (GStrv) extra_inputs = onyx_replay_parse_names (arguments[3]);

  return onyx_edit_insert_node (doc, arguments[0], arguments[1], arguments[2],
                                (const char *const *) extra_inputs, error) != NULL;
}

static const OnyxReplayStep insert_step = { "insert", 4, replay_insert };

Onnx__NodeProto *
onyx_edit_insert_node (OnyxDocument *doc, const char *tensor, const char *domain, const char *op_type,
                       const char *const *extra_inputs, GError **error)
{
  g_autoptr (OnyxGraphList) graphs = onyx_graph_list_new (onyx_document_get_proto (doc));
  g_autoptr (GPtrArray) inputs = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) outputs = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *shown = onyx_display_escape (tensor);
  g_autofree char *op_shown = NULL;
  g_autofree char *base = NULL;
  g_autofree char *name = NULL;
  g_autofree char *derived = NULL;
  g_autofree char *label = NULL;
  g_autofree char *encoded = NULL;
  Onnx__GraphProto *graph;
  OnyxGraphIndex *index;
  OnyxValue *value;
  OperatorTarget target;
  Onnx__NodeProto *node;
  gboolean keeps_output_name;
  gssize position;
  guint n_outputs = 1;

  domain = domain != NULL ? domain : "";
  graph = graph_defining (doc, graphs, tensor);
  if (graph == NULL)
    {
      onyx_edit_fail (error, ONYX_EDIT_ERROR_NOT_FOUND,
                      _("there is no tensor '%s' (no node produces it and it is not a graph input or "
                      "initializer)"), shown);
      return NULL;
    }
  if (!find_operator (doc, domain, op_type, &target, error))
    return NULL;
  op_shown = operator_describe (domain, op_type);
  index = onyx_document_get_graph_index (doc, graph);
  value = onyx_graph_index_lookup (index, tensor);
  /* A graph output keeps its name when a node writes it; a graph input passed
   * straight through as an output has no producer to rename and stays as it is. */
  keeps_output_name = onyx_graph_index_graph_output (index, tensor) != NULL && value != NULL &&
                      value->producer != NULL;

  base = g_strdup_printf ("%s/%s", tensor, op_type);
  name = unique_name (doc, graphs, base, node_name_taken);
  g_clear_pointer (&base, g_free);
  base = g_strdup_printf ("%s_output", name);
  derived = unique_name (doc, graphs, base, tensor_name_taken);

  g_ptr_array_add (inputs, g_strdup (keeps_output_name ? derived : tensor));
  for (guint i = 0; extra_inputs != NULL && extra_inputs[i] != NULL; i++)
    {
      const char *extra = extra_inputs[i];
      g_autofree char *extra_shown = onyx_display_escape (extra);
      if (extra[0] != '\0' && !onyx_edit_tensor_in_scope (doc, graph, extra))
        {
          onyx_edit_fail (error, ONYX_EDIT_ERROR_NOT_FOUND, _("there is no tensor '%s'"), extra_shown);
          return NULL;
        }
      g_ptr_array_add (inputs, g_strdup (keeps_output_name && strcmp (extra, tensor) == 0 ? derived : extra));
    }
  if (target.schema != NULL)
    {
      g_autofree char *described = g_strdup_printf ("the new %s node", op_shown);
      n_outputs = MAX (target.schema->min_output, 1);
      if (!check_count (described, target.schema, inputs->len, FALSE, error))
        return NULL;
    }
  position = insertion_point (index, tensor, extra_inputs, error);
  if (position < 0)
    return NULL;
  g_ptr_array_add (outputs, g_strdup (keeps_output_name ? tensor : derived));
  for (guint k = 1; k < n_outputs; k++)
    {
      g_autofree char *more = g_strdup_printf ("%s_%u", derived, k);
      g_ptr_array_add (outputs, unique_name (doc, graphs, more, tensor_name_taken));
    }
  node = new_node (name, domain, op_type, inputs, outputs);

  label = g_strdup_printf (_("Insert %s after %s"), op_shown, shown);
  onyx_document_begin_command (doc, label);
  encoded = onyx_replay_names_text (extra_inputs);
  onyx_replay_note (doc, &insert_step, tensor, domain, op_type, encoded, NULL);
  import_opset (doc, domain, &target);
  if (keeps_output_name)
    onyx_document_set_node_output (doc, value->producer, value->producer_output, derived);
  onyx_document_insert_item (doc, &graph->base, "node", (gsize) position, &node->base);
  if (!keeps_output_name)
    onyx_edit_redirect_uses (doc, graph, tensor, derived, node);
  onyx_edit_commit (doc);
  return node;
}

const OnyxReplayStep *const onyx_edits_repair_replay_steps[] = { &replace_step, &insert_step, NULL };
