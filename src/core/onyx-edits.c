#include "onyx-edits.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "onyx-attribute.h"
#include "onyx-edits-private.h"

#include "onyx-replay.h"
#include "onyx-graph-names.h"
#include "onyx-shapes.h"
#include "onyx-schema.h"
#include "onyx-types.h"
#include "onyx-validate.h"
#include "onyx-text.h"

gboolean
onyx_edit_fail (GError **error, OnyxEditError code, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_propagate_error (error, g_error_new_valist (ONYX_EDIT_ERROR, code, format, args));
  va_end (args);
  return FALSE;
}

Onnx__GraphProto *
onyx_edit_main_graph (OnyxDocument *doc)
{
  return onyx_graph_index_get_graph (onyx_document_get_index (doc));
}

Onnx__GraphProto *
onyx_edit_graph_of (OnyxDocument *doc, const Onnx__NodeProto *node)
{
  Onnx__GraphProto *graph = onyx_document_graph_of_node (doc, node);
  return graph != NULL ? graph : onyx_edit_main_graph (doc);
}

OnyxGraphIndex *
onyx_edit_index_of (OnyxDocument *doc, const Onnx__NodeProto *node)
{
  return onyx_document_get_graph_index (doc, onyx_edit_graph_of (doc, node));
}

char *
onyx_node_describe (OnyxDocument *doc, const Onnx__NodeProto *node)
{
  gssize position;

  if (node->name != NULL && node->name[0] != '\0')
    return onyx_display_escape (node->name);
  position = onyx_graph_index_node_position (onyx_edit_index_of (doc, node), (Onnx__NodeProto *) node);
  return g_strdup_printf ("#%" G_GSSIZE_FORMAT " (%s)", position,
                          node->op_type != NULL ? node->op_type : "?");
}

/* The node is in a graph of the model: the main graph or a subgraph held by it. */
gboolean
onyx_edit_check_node (OnyxDocument *doc, Onnx__NodeProto *node, GError **error)
{
  if (!onyx_document_contains_node (doc, node))
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_NOT_FOUND, _("the node is not in the model"));
  return TRUE;
}

gboolean
onyx_edit_tensor_in_scope (OnyxDocument *doc, Onnx__GraphProto *graph, const char *name)
{
  g_autoptr (GPtrArray) lineage = g_ptr_array_new ();

  /* A subgraph sees what the graphs around it define. */
  onyx_document_graph_lineage (doc, graph, lineage);
  for (guint i = 0; i < lineage->len; i++)
    if (onyx_graph_index_defines (onyx_document_get_graph_index (doc, lineage->pdata[i]), name))
      return TRUE;
  return FALSE;
}

/* Records what the edit changed as one undo step: edits end with `return onyx_edit_commit (doc)`. */
gboolean
onyx_edit_commit (OnyxDocument *doc)
{
  onyx_document_commit_command (doc);
  return TRUE;
}

void
onyx_edit_remove_node (OnyxDocument *doc, Onnx__NodeProto *node)
{
  gssize position = onyx_graph_index_node_position (onyx_edit_index_of (doc, node), node);
  g_return_if_fail (position >= 0);
  onyx_document_remove_item (doc, &onyx_edit_graph_of (doc, node)->base, "node", (gsize) position);
}

/* Inputs of nodes inside `graph` (and its subgraphs) named `old_name` read `new_name`. */
static void
rename_reads_in_subgraph (OnyxDocument *doc, Onnx__GraphProto *graph, const char *old_name,
                          const char *new_name, guint depth)
{
  if (depth > 64)
    return;
  for (size_t n = 0; n < graph->n_node; n++)
    {
      Onnx__NodeProto *node = graph->node[n];
      for (size_t k = 0; k < node->n_input; k++)
        if (g_strcmp0 (node->input[k], old_name) == 0)
          onyx_document_set_node_input (doc, node, (guint) k, new_name);
      for (size_t a = 0; a < node->n_attribute; a++)
        {
          Onnx__AttributeProto *attr = node->attribute[a];
          if (attr->g != NULL)
            rename_reads_in_subgraph (doc, attr->g, old_name, new_name, depth + 1);
          for (size_t g = 0; g < attr->n_graphs; g++)
            rename_reads_in_subgraph (doc, attr->graphs[g], old_name, new_name, depth + 1);
        }
    }
}

void
onyx_edit_redirect_uses (OnyxDocument *doc, Onnx__GraphProto *graph, const char *old_name,
                         const char *new_name, Onnx__NodeProto *except)
{
  OnyxValue *value = onyx_graph_index_lookup (onyx_document_get_graph_index (doc, graph), old_name);
  g_autoptr (GArray) uses = NULL;

  if (value == NULL)
    return;
  /* The list changes as uses move: work on a copy. Direct inputs first, then the
   * reads inside subgraphs (the document re-indexes the nodes holding them). */
  uses = g_array_copy (value->uses);
  for (guint i = 0; i < uses->len; i++)
    {
      OnyxUse *use = &g_array_index (uses, OnyxUse, i);
      if (use->node != except && use->input != ONYX_USE_IMPLICIT)
        onyx_document_set_node_input (doc, use->node, use->input, new_name);
    }
  for (guint i = 0; i < uses->len; i++)
    {
      OnyxUse *use = &g_array_index (uses, OnyxUse, i);
      if (use->node == except || use->input != ONYX_USE_IMPLICIT)
        continue;
      for (size_t a = 0; a < use->node->n_attribute; a++)
        {
          Onnx__AttributeProto *attr = use->node->attribute[a];
          if (attr->g != NULL)
            rename_reads_in_subgraph (doc, attr->g, old_name, new_name, 0);
          for (size_t g = 0; g < attr->n_graphs; g++)
            rename_reads_in_subgraph (doc, attr->graphs[g], old_name, new_name, 0);
        }
    }
}

gssize
onyx_edit_value_info_position (Onnx__ValueInfoProto **items, size_t n, const char *name)
{
  for (size_t i = 0; i < n; i++)
    if (g_strcmp0 (items[i]->name, name) == 0)
      return (gssize) i;
  return -1;
}

static gboolean
replay_delete (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  Onnx__NodeProto *node = onyx_replay_find_node (doc, arguments[0], error);
  return node != NULL && onyx_edit_delete_node (doc, node, error);
}

static const OnyxReplayStep delete_step = { "delete", 1, replay_delete };

gboolean
onyx_edit_delete_node (OnyxDocument *doc, Onnx__NodeProto *node, GError **error)
{
  g_autofree char *described = NULL;
  g_autofree char *label = NULL;

  if (!onyx_edit_check_node (doc, node, error))
    return FALSE;
  described = onyx_node_describe (doc, node);
  label = g_strdup_printf (_("Delete node %s"), described);
  onyx_document_begin_command (doc, label);
  onyx_replay_note_node (doc, &delete_step, node, NULL);
  onyx_edit_remove_node (doc, node);
  return onyx_edit_commit (doc);
}

static gboolean
replay_bypass (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  Onnx__NodeProto *node = onyx_replay_find_node (doc, arguments[0], error);
  guint input;

  return node != NULL && onyx_replay_parse_count (arguments[1], &input, error) &&
         onyx_edit_bypass_node (doc, node, input, error);
}

static const OnyxReplayStep bypass_step = { "bypass", 2, replay_bypass };

gboolean
onyx_edit_bypass_node (OnyxDocument *doc, Onnx__NodeProto *node, guint input, GError **error)
{
  OnyxGraphIndex *index;
  Onnx__GraphProto *graph;
  gboolean hand_over;
  gssize out;
  g_autofree char *described = NULL;
  g_autofree char *label = NULL;
  g_autofree char *source = NULL;
  g_autofree char *target = NULL;
  g_autofree char *slot = NULL;
  OnyxValue *source_value;

  if (!onyx_edit_check_node (doc, node, error))
    return FALSE;
  graph = onyx_edit_graph_of (doc, node);
  index = onyx_document_get_graph_index (doc, graph);
  described = onyx_node_describe (doc, node);
  if (input >= node->n_input || node->input[input][0] == '\0')
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_NOT_FOUND, _("%s has no input %u"), described, input);
  if (node->n_output == 0)
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_INVALID, _("%s has no output to hand over"), described);
  for (size_t k = 1; k < node->n_output; k++)
    if (onyx_graph_index_n_uses (index, node->output[k]) > 0 ||
        onyx_graph_index_graph_output (index, node->output[k]) != NULL)
      {
        g_autofree char *shown = onyx_display_escape (node->output[k]);
        return onyx_edit_fail (error, ONYX_EDIT_ERROR_INVALID,
                               _("%s cannot be bypassed: its output %zu '%s' is used, and only "
                               "the first output can be handed over"), described, k, shown);
      }
  /* Copies: the node's strings go away with it. */
  source = g_strdup (node->input[input]);
  target = g_strdup (node->output[0]);
  if (!onyx_edit_tensor_in_scope (doc, graph, source))
    {
      g_autofree char *shown = onyx_display_escape (source);
      return onyx_edit_fail (error, ONYX_EDIT_ERROR_INVALID,
                             _("%s cannot be bypassed: its input '%s' is not produced by anything"),
                             described, shown);
    }
  source_value = onyx_graph_index_lookup (index, source);
  hand_over = source_value != NULL && source_value->producer != NULL &&
              onyx_graph_index_graph_output (index, source) == NULL;
  out = onyx_edit_value_info_position (graph->output, graph->n_output, target);
  /* A subgraph's outputs are its results (an If's, a Loop's carried values): their
   * count and order stay, so one cannot become an input or an outer name. */
  if (!hand_over && out >= 0 && target[0] != '\0' && graph != onyx_edit_main_graph (doc))
    {
      g_autofree char *shown = onyx_display_escape (target);
      return onyx_edit_fail (error, ONYX_EDIT_ERROR_INVALID,
                             _("%s cannot be bypassed: its output '%s' is an output of its graph, "
                             "which no node of the graph would make then"), described, shown);
    }

  label = g_strdup_printf (_("Bypass node %s"), described);
  onyx_document_begin_command (doc, label);
  slot = onyx_replay_count_text (input);
  onyx_replay_note_node (doc, &bypass_step, node, slot, NULL);
  onyx_edit_remove_node (doc, node);
  source_value = onyx_graph_index_lookup (index, source);
  if (target[0] == '\0')
    ; /* nothing read the output */
  else if (hand_over)
    {
      /* The walkthrough's `inp_node.outputs = fake_node.outputs`: the producer now
       * writes the bypassed node's output, whose name (maybe a graph output) stays. */
      Onnx__NodeProto *producer = source_value->producer;
      guint slot = source_value->producer_output;
      onyx_edit_redirect_uses (doc, graph, source, target, NULL);
      onyx_document_set_node_output (doc, producer, slot, target);
    }
  else
    {
      /* A graph input, initializer or graph output keeps its name: readers of the
       * bypassed output read it instead. */
      onyx_edit_redirect_uses (doc, graph, target, source, NULL);
      if (out >= 0)
        {
          if (onyx_graph_index_graph_output (index, source) != NULL)
            onyx_document_remove_item (doc, &graph->base, "output", (gsize) out);
          else
            onyx_document_set_message_name (doc, &graph->output[out]->base, source);
        }
    }
  return onyx_edit_commit (doc);
}

/* Removes graph outputs among the names the removed nodes produced. */
static void
remove_outputs_of (OnyxDocument *doc, Onnx__GraphProto *graph, GPtrArray *nodes)
{
  GHashTable *produced = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < nodes->len; i++)
    {
      Onnx__NodeProto *node = nodes->pdata[i];
      for (size_t k = 0; k < node->n_output; k++)
        g_hash_table_add (produced, node->output[k]);
    }
  for (size_t i = graph->n_output; i-- > 0;)
    if (graph->output[i]->name != NULL && g_hash_table_contains (produced, graph->output[i]->name))
      onyx_document_remove_item (doc, &graph->base, "output", i);
  g_hash_table_unref (produced);
}

static void
remove_nodes (OnyxDocument *doc, GPtrArray *nodes)
{
  for (guint i = 0; i < nodes->len; i++)
    onyx_edit_remove_node (doc, nodes->pdata[i]);
}

/* The first graph output one of `nodes` makes, or NULL. */
static const char *
first_output_made (OnyxGraphIndex *index, GPtrArray *nodes)
{
  for (guint i = 0; i < nodes->len; i++)
    {
      Onnx__NodeProto *node = nodes->pdata[i];
      for (size_t k = 0; k < node->n_output; k++)
        if (onyx_graph_index_graph_output (index, node->output[k]) != NULL)
          return node->output[k];
    }
  return NULL;
}

static gboolean
replay_delete_tree (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  Onnx__NodeProto *node = onyx_replay_find_node (doc, arguments[0], error);
  return node != NULL && onyx_edit_delete_descendants (doc, node, error);
}

static const OnyxReplayStep delete_tree_step = { "delete-tree", 1, replay_delete_tree };

gboolean
onyx_edit_delete_descendants (OnyxDocument *doc, Onnx__NodeProto *node, GError **error)
{
  OnyxGraphIndex *index;
  Onnx__GraphProto *graph;
  const char *output;
  g_autoptr (GPtrArray) doomed = g_ptr_array_new ();
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
  g_autofree char *described = NULL;
  g_autofree char *label = NULL;

  if (!onyx_edit_check_node (doc, node, error))
    return FALSE;
  graph = onyx_edit_graph_of (doc, node);
  index = onyx_document_get_graph_index (doc, graph);
  g_ptr_array_add (doomed, node);
  g_hash_table_add (seen, node);
  for (guint i = 0; i < doomed->len; i++)
    {
      Onnx__NodeProto *current = doomed->pdata[i];
      for (size_t k = 0; k < current->n_output; k++)
        {
          OnyxValue *value = onyx_graph_index_lookup (index, current->output[k]);
          for (guint u = 0; value != NULL && u < value->uses->len; u++)
            {
              Onnx__NodeProto *user = g_array_index (value->uses, OnyxUse, u).node;
              if (g_hash_table_add (seen, user))
                g_ptr_array_add (doomed, user);
            }
        }
    }
  described = onyx_node_describe (doc, node);
  /* The main graph's outputs go with what made them; a subgraph's are its results. */
  if (graph != onyx_edit_main_graph (doc) && (output = first_output_made (index, doomed)) != NULL)
    {
      g_autofree char *shown = onyx_display_escape (output);
      return onyx_edit_fail (error, ONYX_EDIT_ERROR_INVALID,
                             _("deleting %s and what depends on it would take the output '%s' "
                             "from its graph"), described, shown);
    }
  label = doomed->len > 1 ? g_strdup_printf (ngettext ("Delete node %s and %u descendant",
                                                       "Delete node %s and %u descendants", doomed->len - 1),
                                             described, doomed->len - 1)
                          : g_strdup_printf (_("Delete node %s"), described);
  onyx_document_begin_command (doc, label);
  onyx_replay_note_node (doc, &delete_tree_step, node, NULL);
  remove_outputs_of (doc, graph, doomed);
  remove_nodes (doc, doomed);
  return onyx_edit_commit (doc);
}

/* TRUE when every reader of every output of `node` is in `set` and none of its
 * outputs is a graph output. */
static gboolean
feeds_only (OnyxGraphIndex *index, Onnx__NodeProto *node, GHashTable *set)
{
  for (size_t k = 0; k < node->n_output; k++)
    {
      OnyxValue *value = onyx_graph_index_lookup (index, node->output[k]);
      if (onyx_graph_index_graph_output (index, node->output[k]) != NULL)
        return FALSE;
      for (guint u = 0; value != NULL && u < value->uses->len; u++)
        if (!g_hash_table_contains (set, g_array_index (value->uses, OnyxUse, u).node))
          return FALSE;
    }
  return TRUE;
}

static gboolean
replay_delete_ancestors (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  Onnx__NodeProto *node = onyx_replay_find_node (doc, arguments[0], error);
  return node != NULL && onyx_edit_delete_ancestors (doc, node, error);
}

static const OnyxReplayStep delete_ancestors_step = { "delete-ancestors", 1, replay_delete_ancestors };

gboolean
onyx_edit_delete_ancestors (OnyxDocument *doc, Onnx__NodeProto *node, GError **error)
{
  OnyxGraphIndex *index;
  Onnx__GraphProto *graph;
  g_autoptr (GPtrArray) doomed = g_ptr_array_new ();
  g_autoptr (GHashTable) set = g_hash_table_new (NULL, NULL);
  g_autoptr (GPtrArray) initializers = g_ptr_array_new ();
  g_autofree char *described = NULL;
  g_autofree char *label = NULL;

  if (!onyx_edit_check_node (doc, node, error))
    return FALSE;
  graph = onyx_edit_graph_of (doc, node);
  index = onyx_document_get_graph_index (doc, graph);
  g_ptr_array_add (doomed, node);
  g_hash_table_add (set, node);
  /* Grow the set with producers that feed nothing outside it, until stable: a
   * producer whose other readers are themselves exclusive joins on a later pass. */
  for (gboolean grew = TRUE; grew;)
    {
      grew = FALSE;
      for (guint i = 0; i < doomed->len; i++)
        {
          g_autoptr (GPtrArray) reads = g_ptr_array_new ();
          onyx_node_collect_reads (doomed->pdata[i], reads);
          for (guint r = 0; r < reads->len; r++)
            {
              OnyxValue *value = onyx_graph_index_lookup (index, reads->pdata[r]);
              Onnx__NodeProto *producer = value != NULL ? value->producer : NULL;
              if (producer != NULL && !g_hash_table_contains (set, producer) &&
                  feeds_only (index, producer, set))
                {
                  g_hash_table_add (set, producer);
                  g_ptr_array_add (doomed, producer);
                  grew = TRUE;
                }
            }
        }
    }
  /* Initializers read only by the doomed nodes go with them. */
  for (size_t i = 0; i < graph->n_initializer; i++)
    {
      const char *name = graph->initializer[i]->name;
      OnyxValue *value = onyx_graph_index_lookup (index, name);
      gboolean exclusive = value != NULL && value->uses->len > 0 &&
                           onyx_graph_index_graph_output (index, name) == NULL &&
                           onyx_graph_index_graph_input (index, name) == NULL;
      for (guint u = 0; exclusive && u < value->uses->len; u++)
        exclusive = g_hash_table_contains (set, g_array_index (value->uses, OnyxUse, u).node);
      if (exclusive)
        g_ptr_array_add (initializers, GSIZE_TO_POINTER (i));
    }

  described = onyx_node_describe (doc, node);
  label = doomed->len > 1 ? g_strdup_printf (ngettext ("Delete node %s and %u ancestor",
                                                       "Delete node %s and %u ancestors", doomed->len - 1),
                                             described, doomed->len - 1)
                          : g_strdup_printf (_("Delete node %s"), described);
  onyx_document_begin_command (doc, label);
  onyx_replay_note_node (doc, &delete_ancestors_step, node, NULL);
  remove_nodes (doc, doomed);
  for (guint i = initializers->len; i-- > 0;)
    onyx_document_remove_item (doc, &graph->base, "initializer", GPOINTER_TO_SIZE (initializers->pdata[i]));
  return onyx_edit_commit (doc);
}

/* TRUE when `target` is `node` or depends on it. */
static gboolean
depends_on (OnyxGraphIndex *index, Onnx__NodeProto *target, Onnx__NodeProto *node)
{
  g_autoptr (GPtrArray) queue = g_ptr_array_new ();
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);

  g_ptr_array_add (queue, node);
  g_hash_table_add (seen, node);
  for (guint i = 0; i < queue->len; i++)
    {
      Onnx__NodeProto *current = queue->pdata[i];
      if (current == target)
        return TRUE;
      for (size_t k = 0; k < current->n_output; k++)
        {
          OnyxValue *value = onyx_graph_index_lookup (index, current->output[k]);
          for (guint u = 0; value != NULL && u < value->uses->len; u++)
            {
              Onnx__NodeProto *user = g_array_index (value->uses, OnyxUse, u).node;
              if (g_hash_table_add (seen, user))
                g_ptr_array_add (queue, user);
            }
        }
    }
  return FALSE;
}

static gboolean
replay_reconnect (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  Onnx__NodeProto *node = onyx_replay_find_node (doc, arguments[0], error);
  guint input;

  return node != NULL && onyx_replay_parse_count (arguments[1], &input, error) &&
         onyx_edit_reconnect (doc, node, input, arguments[2], error);
}

static const OnyxReplayStep reconnect_step = { "reconnect", 3, replay_reconnect };

gboolean
onyx_edit_reconnect (OnyxDocument *doc, Onnx__NodeProto *node, guint input, const char *tensor,
                     GError **error)
{
  OnyxGraphIndex *index;
  Onnx__GraphProto *graph;
  g_autofree char *described = NULL;
  g_autofree char *shown = onyx_display_escape (tensor);
  g_autofree char *label = NULL;
  g_autofree char *slot = NULL;
  OnyxValue *value;

  if (!onyx_edit_check_node (doc, node, error))
    return FALSE;
  graph = onyx_edit_graph_of (doc, node);
  index = onyx_document_get_graph_index (doc, graph);
  described = onyx_node_describe (doc, node);
  if (input >= node->n_input)
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_NOT_FOUND, _("%s has no input %u (it has %zu)"),
                           described, input, node->n_input);
  if (!onyx_edit_tensor_in_scope (doc, graph, tensor))
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_NOT_FOUND,
                           _("there is no tensor '%s' (no node produces it and it is not a graph "
                           "input or initializer)"), shown);
  value = onyx_graph_index_lookup (index, tensor);
  if (value != NULL && value->producer != NULL && depends_on (index, value->producer, node))
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_CYCLE,
                           _("reading '%s' would make %s depend on itself"), shown, described);
  if (g_strcmp0 (node->input[input], tensor) == 0)
    return TRUE;
  label = g_strdup_printf (_("Connect input %u of %s to %s"), input, described, shown);
  onyx_document_begin_command (doc, label);
  slot = onyx_replay_count_text (input);
  onyx_replay_note_node (doc, &reconnect_step, node, slot, tensor, NULL);
  onyx_document_set_node_input (doc, node, input, tensor);
  return onyx_edit_commit (doc);
}

static gboolean
replay_set_name (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  Onnx__NodeProto *node = onyx_replay_find_node (doc, arguments[0], error);
  return node != NULL && onyx_edit_set_node_name (doc, node, arguments[1], error);
}

static const OnyxReplayStep set_name_step = { "set-name", 2, replay_set_name };

gboolean
onyx_edit_set_node_name (OnyxDocument *doc, Onnx__NodeProto *node, const char *name, GError **error)
{
  g_autofree char *described = NULL;
  g_autofree char *shown = onyx_display_escape (name);
  g_autofree char *label = NULL;

  if (!onyx_edit_check_node (doc, node, error))
    return FALSE;
  if (g_strcmp0 (node->name, name) == 0)
    return TRUE;
  described = onyx_node_describe (doc, node);
  label = g_strdup_printf (_("Rename node %s to %s"), described, shown);
  onyx_document_begin_command (doc, label);
  onyx_replay_note_node (doc, &set_name_step, node, name, NULL);
  onyx_document_set_node_name (doc, node, name);
  return onyx_edit_commit (doc);
}

/* The attribute `name` as the node's operator declares it, or NULL. */
static const OnyxSchemaAttribute *
schema_attribute (OnyxDocument *doc, const Onnx__NodeProto *node, const char *name)
{
  Onnx__ModelProto *model = onyx_document_get_proto (doc);
  const OnyxSchema *schema = onyx_schema_for_node (node, model->opset_import, model->n_opset_import);

  return schema != NULL ? onyx_schema_find_attribute (schema, name) : NULL;
}

static gboolean
replay_set_attr (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  Onnx__NodeProto *node = onyx_replay_find_node (doc, arguments[0], error);
  return node != NULL && onyx_edit_set_attribute (doc, node, arguments[1], arguments[2], error);
}

static const OnyxReplayStep set_attr_step = { "set-attr", 3, replay_set_attr };

gboolean
onyx_edit_set_attribute (OnyxDocument *doc, Onnx__NodeProto *node, const char *name,
                         const char *value, GError **error)
{
  gsize position = 0;
  Onnx__AttributeProto *existing;
  Onnx__AttributeProto *attribute;
  g_autofree char *described = NULL;
  g_autofree char *shown = onyx_display_escape (name);
  g_autofree char *label = NULL, *number = NULL;
  const OnyxSchemaAttribute *known;
  int data_type;

  if (!onyx_edit_check_node (doc, node, error))
    return FALSE;
  if (name == NULL || name[0] == '\0')
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_INVALID, _("an attribute name cannot be empty"));
  existing = onyx_node_find_attribute (node, name, &position);
  known = schema_attribute (doc, node, name);
  /* An element type by the name it is shown with ("to = INT64"). */
  if (known != NULL && known->data_type && onyx_data_type_from_name (value, &data_type))
    number = g_strdup_printf ("%d", data_type);
  /* Else the type the attribute has, or the one its operator gives it when text can
   * hold it (LeakyRelu's alpha=0 is a float), else one guessed from the text. */
  attribute = onyx_attribute_parse (name, number != NULL ? number : value,
                                    existing != NULL ? (int) existing->type
                                    : known != NULL && onyx_attribute_type_is_text (known->type) ? known->type : 0,
                                    error);
  if (attribute == NULL)
    return FALSE;
  described = onyx_node_describe (doc, node);
  label = g_strdup_printf (_("Set %s of %s"), shown, described);
  onyx_document_begin_command (doc, label);
  onyx_replay_note_node (doc, &set_attr_step, node, name, value, NULL);
  if (existing != NULL)
    onyx_document_remove_item (doc, &node->base, "attribute", position);
  else
    position = node->n_attribute;
  onyx_document_insert_item (doc, &node->base, "attribute", position, &attribute->base);
  return onyx_edit_commit (doc);
}

const OnyxReplayStep *const onyx_edits_replay_steps[] = {
  &delete_step, &bypass_step, &delete_tree_step, &delete_ancestors_step, &reconnect_step, &set_name_step,
  &set_attr_step, NULL,
};
