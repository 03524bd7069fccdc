/* onyx-document-ops.c: the primitive changes a command records (remove/insert an
 * item of a repeated field, set a name, a type, the node order), applied and undone
 * in place with the graph tree and indexes kept current, and what each touched. */
#include "onyx-document-internal.h"

#include <string.h>

/* ---- repeated fields, found through the descriptor ---- */

static size_t *
field_count (ProtobufCMessage *owner, const ProtobufCFieldDescriptor *field)
{
  return (size_t *) ((char *) owner + field->quantifier_offset);
}

static ProtobufCMessage ***
field_items (ProtobufCMessage *owner, const ProtobufCFieldDescriptor *field)
{
  return (ProtobufCMessage ***) ((char *) owner + field->offset);
}

static const ProtobufCFieldDescriptor *
repeated_message_field (ProtobufCMessage *owner, const char *field_name)
{
  const ProtobufCFieldDescriptor *field =
    protobuf_c_message_descriptor_get_field_by_name (owner->descriptor, field_name);
  g_return_val_if_fail (field != NULL && field->label == PROTOBUF_C_LABEL_REPEATED &&
                          field->type == PROTOBUF_C_TYPE_MESSAGE, NULL);
  return field;
}

static gboolean
is_graph (ProtobufCMessage *message)
{
  return message->descriptor == &onnx__graph_proto__descriptor;
}

static gboolean
is_node (ProtobufCMessage *message)
{
  return message->descriptor == &onnx__node_proto__descriptor;
}

static gboolean
is_nodes_field (ProtobufCMessage *owner, const ProtobufCFieldDescriptor *field)
{
  return is_graph (owner) && strcmp (field->name, "node") == 0;
}

/* The index of the graph a node is in, if that graph has one and lists the node. */
static OnyxGraphIndex *
index_holding (OnyxDocument *self, Onnx__NodeProto *node)
{
  Onnx__GraphProto *graph = onyx_graph_tree_graph_of (self->tree, node);
  OnyxGraphIndex *index = graph != NULL ? onyx_graph_tree_index_if_any (self->tree, graph) : NULL;
  return index != NULL && onyx_graph_index_has_node (index, node) ? index : NULL;
}

static gboolean
has_graph_attribute (ProtobufCMessage *const *items, gsize n_items)
{
  for (gsize i = 0; i < n_items; i++)
    {
      const Onnx__AttributeProto *attribute = (const Onnx__AttributeProto *) items[i];
      if (items[i]->descriptor == &onnx__attribute_proto__descriptor &&
          (attribute->g != NULL || attribute->n_graphs > 0))
        return TRUE;
    }
  return FALSE;
}

/* A node's graph attributes change what it reads from outside them. */
static OnyxGraphIndex *
unindex_node (OnyxDocument *self, ProtobufCMessage *owner, Op *op)
{
  OnyxGraphIndex *index;

  if (!is_node (owner) || !has_graph_attribute (op->items, op->n_items))
    return NULL;
  index = index_holding (self, (Onnx__NodeProto *) owner);
  if (index != NULL)
    onyx_graph_index_remove_node (index, (Onnx__NodeProto *) owner);
  return index;
}

static void
detach_item (OnyxDocument *self, Op *op)
{
  size_t *count = field_count (op->owner, op->field);
  ProtobufCMessage **items = *field_items (op->owner, op->field);
  OnyxGraphIndex *index = is_graph (op->owner)
    ? onyx_graph_tree_index_if_any (self->tree, (Onnx__GraphProto *) op->owner) : NULL;
  OnyxGraphIndex *reread = unindex_node (self, op->owner, op);
  gboolean nodes = is_nodes_field (op->owner, op->field);

  g_assert (op->position + op->n_items <= *count &&
            memcmp (items + op->position, op->items, op->n_items * sizeof *items) == 0);
  memmove (items + op->position, items + op->position + op->n_items,
           (*count - op->position - op->n_items) * sizeof *items);
  *count -= op->n_items;
  for (gsize i = 0; i < op->n_items && nodes; i++)
    {
      onyx_graph_tree_remove_node (self->tree, (Onnx__NodeProto *) op->items[i]);
      if (index != NULL)
        onyx_graph_index_remove_node (index, (Onnx__NodeProto *) op->items[i]);
    }
  for (gsize i = 0; i < op->n_items && index != NULL && !nodes; i++)
    onyx_graph_index_list_item_removed (index, op->field->name, op->items[i]);
  if (reread != NULL)
    onyx_graph_index_add_node (reread, (Onnx__NodeProto *) op->owner);
}

static void
attach_item (OnyxDocument *self, Op *op)
{
  size_t *count = field_count (op->owner, op->field);
  ProtobufCMessage ***items = field_items (op->owner, op->field);
  OnyxGraphIndex *index = is_graph (op->owner)
    ? onyx_graph_tree_index_if_any (self->tree, (Onnx__GraphProto *) op->owner) : NULL;
  OnyxGraphIndex *reread = unindex_node (self, op->owner, op);
  gboolean nodes = is_nodes_field (op->owner, op->field);

  g_assert (op->position <= *count);
  *items = g_realloc (*items, (*count + op->n_items) * sizeof **items);
  memmove (*items + op->position + op->n_items, *items + op->position,
           (*count - op->position) * sizeof **items);
  memcpy (*items + op->position, op->items, op->n_items * sizeof **items);
  *count += op->n_items;
  for (gsize i = 0; i < op->n_items && nodes; i++)
    {
      onyx_graph_tree_add_node (self->tree, (Onnx__NodeProto *) op->items[i],
                                (Onnx__GraphProto *) op->owner);
      if (index != NULL)
        onyx_graph_index_add_node (index, (Onnx__NodeProto *) op->items[i]);
    }
  for (gsize i = 0; i < op->n_items && index != NULL && !nodes; i++)
    onyx_graph_index_list_item_added (index, op->field->name, op->items[i]);
  if (reread != NULL)
    onyx_graph_index_add_node (reread, (Onnx__NodeProto *) op->owner);
}

/* Adds the input slot of an OP_ADD_NODE_INPUT (forward) or takes it away. */
static void
resize_node_inputs (OnyxDocument *self, Op *op, gboolean forward)
{
  Onnx__NodeProto *node = (Onnx__NodeProto *) op->owner;
  guint k = (guint) op->position;
  OnyxGraphIndex *index = index_holding (self, node);

  if (forward)
    {
      g_assert (node->n_input == k);
      node->input = g_realloc (node->input, (k + 1) * sizeof *node->input);
      node->input[k] = op->new_text;
      node->n_input = k + 1;
      if (index != NULL)
        onyx_graph_index_add_use (index, op->new_text, node, k);
    }
  else
    {
      g_assert (node->n_input == k + 1);
      if (index != NULL)
        onyx_graph_index_remove_use (index, node->input[k], node, k);
      node->n_input = k;
    }
}

/* Sets a node's input or output slot to `name` (which the node then owns). */
static void
swap_node_slot (OnyxDocument *self, Op *op, char *name)
{
  Onnx__NodeProto *node = (Onnx__NodeProto *) op->owner;
  guint k = (guint) op->position;
  OnyxGraphIndex *index = index_holding (self, node);

  if (op->kind == OP_SET_NODE_INPUT)
    {
      if (index != NULL)
        onyx_graph_index_remove_use (index, node->input[k], node, k);
      node->input[k] = name;
      if (index != NULL)
        onyx_graph_index_add_use (index, name, node, k);
    }
  else
    {
      if (index != NULL)
        {
          OnyxValue *value = onyx_graph_index_lookup (index, node->output[k]);
          if (value != NULL && value->producer == node)
            onyx_graph_index_set_producer (index, node->output[k], NULL, 0);
        }
      node->output[k] = name;
      if (index != NULL)
        onyx_graph_index_set_producer (index, name, node, k);
    }
}

static char **
message_name_field (ProtobufCMessage *message)
{
  if (message->descriptor == &onnx__value_info_proto__descriptor)
    return &((Onnx__ValueInfoProto *) message)->name;
  if (message->descriptor == &onnx__tensor_proto__descriptor)
    return &((Onnx__TensorProto *) message)->name;
  if (message->descriptor == &onnx__node_proto__descriptor)
    return &((Onnx__NodeProto *) message)->name;
  g_return_val_if_reached (NULL);
}

void
onyx_document_op_apply (OnyxDocument *self, Op *op, gboolean forward)
{
  /* What a subgraph reads from outside is indexed as uses of the nodes holding it. */
  GPtrArray *holders = op->rereads && op->graph != NULL && op->graph != self->batched_graph
                        ? onyx_graph_tree_unindex_holders (self->tree, op->graph) : NULL;
  OnyxGraphIndex *index;

  self->revision++;
  switch (op->kind)
    {
    case OP_REMOVE_ITEM:
    case OP_INSERT_ITEM:
      if ((op->kind == OP_REMOVE_ITEM) == forward)
        detach_item (self, op);
      else
        attach_item (self, op);
      break;
    case OP_SET_NODE_INPUT:
    case OP_SET_NODE_OUTPUT:
      swap_node_slot (self, op, forward ? op->new_text : op->old_text);
      break;
    case OP_ADD_NODE_INPUT:
      resize_node_inputs (self, op, forward);
      break;
    case OP_SET_NODE_NAME:
    case OP_SET_MESSAGE_NAME:
      {
        /* A node's other string fields (onyx_document_set_node_field) are at their offset. */
        char **name = op->position > 0 ? (char **) ((char *) op->owner + op->position) : message_name_field (op->owner);
        *name = forward ? op->new_text : op->old_text;
        if (op->kind == OP_SET_NODE_NAME && op->position == 0)
          {
            Onnx__GraphProto *graph = onyx_graph_tree_graph_of (self->tree, (Onnx__NodeProto *) op->owner);
            if (onyx_graph_tree_main_ancestor (self->tree, (Onnx__NodeProto *) op->owner) != NULL)
              onyx_graph_tree_node_renamed (self->tree, (Onnx__NodeProto *) op->owner,
                                            forward ? op->old_text : op->new_text);
            if (graph != NULL && (index = onyx_graph_tree_index_if_any (self->tree, graph)) != NULL)
              onyx_graph_index_node_renamed (index, (Onnx__NodeProto *) op->owner,
                                             forward ? op->old_text : op->new_text);
          }
        else if (op->graph != NULL &&
                 (index = onyx_graph_tree_index_if_any (self->tree, op->graph)) != NULL)
          onyx_graph_index_refresh_lists (index);
      }
      break;
    case OP_SET_VALUE_TYPE:
      ((Onnx__ValueInfoProto *) op->owner)->type =
        (Onnx__TypeProto *) (forward ? op->new_message : op->old_message);
      break;
    case OP_SET_NODE_ORDER:
      {
        Onnx__GraphProto *graph = (Onnx__GraphProto *) op->owner;
        memcpy (graph->node, forward ? op->new_order : op->old_order, graph->n_node * sizeof *graph->node);
      }
      break;
    }
  onyx_graph_tree_reindex (self->tree, holders);
  op->applied = forward;
}

void
onyx_document_op_free (OnyxDocument *self, Op *op)
{
  gboolean item_detached = (op->kind == OP_REMOVE_ITEM) == op->applied;

  if ((op->kind == OP_REMOVE_ITEM || op->kind == OP_INSERT_ITEM) && item_detached)
    for (gsize i = 0; i < op->n_items; i++)
      onyx_model_free_detached (self->model, op->items[i]);
  g_free (op->items);
  /* Of the old and new name or type, the model holds one: free the other. */
  free (op->applied ? op->old_text : op->new_text);
  onyx_model_free_detached (self->model, op->applied ? op->old_message : op->new_message);
  g_free (op->old_order);
  g_free (op->new_order);
  g_free (op);
}


/* A change in `graph`, of `node` (NULL: of the graph's lists). The main graph's
 * nodes are told as they are; a subgraph's change by the main-graph node holding it,
 * whose checks cover its subgraphs. */
static void
touch_in (OnyxDocument *self, Op *op, Onnx__GraphProto *graph, Onnx__NodeProto *node,
          gboolean rereads)
{
  Onnx__NodeProto *holder;

  op->graph = graph;
  op->rereads = rereads;
  if (graph == onyx_graph_tree_main_graph (self->tree))
    op->touched = node;
  else
    {
      holder = graph != NULL ? onyx_graph_tree_owner (self->tree, graph) : NULL;
      op->touched = holder != NULL ? onyx_graph_tree_main_ancestor (self->tree, holder) : NULL;
    }
}

/* Before the op is applied: a node about to leave its graph is still in it. */
static void
classify (OnyxDocument *self, Op *op)
{
  ProtobufCMessage *owner = op->owner;
  Onnx__NodeProto *node = is_node (owner) ? (Onnx__NodeProto *) owner : NULL;

  switch (op->kind)
    {
    case OP_REMOVE_ITEM:
    case OP_INSERT_ITEM:
      if (is_graph (owner))
        touch_in (self, op, (Onnx__GraphProto *) owner,
                  is_nodes_field (owner, op->field) ? (Onnx__NodeProto *) op->items[0] : NULL, TRUE);
      else if (node != NULL)  /* attributes */
        touch_in (self, op, onyx_graph_tree_graph_of (self->tree, node), node, TRUE);
      /* else opset imports or functions of the model: the whole model */
      break;
    case OP_SET_NODE_INPUT:
    case OP_ADD_NODE_INPUT:
    case OP_SET_NODE_OUTPUT:
      touch_in (self, op, onyx_graph_tree_graph_of (self->tree, node), node, TRUE);
      break;
    case OP_SET_NODE_NAME:
      touch_in (self, op, onyx_graph_tree_graph_of (self->tree, node), node, FALSE);
      break;
    case OP_SET_MESSAGE_NAME:
      /* Graph inputs and initializers define names: a subgraph's outer reads change. */
      touch_in (self, op, onyx_graph_tree_graph_of_message (self->tree, owner), NULL, TRUE);
      break;
    case OP_SET_NODE_ORDER:
      touch_in (self, op, (Onnx__GraphProto *) owner, NULL, FALSE);
      break;
    case OP_SET_VALUE_TYPE:
      op->graph = onyx_graph_tree_graph_of_message (self->tree, owner);
      break;
    }
}

void
onyx_document_work_out_change (OnyxDocument *self, Command *command)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
  OnyxChange *change = &command->change;

  change->graph = onyx_graph_tree_main_graph (self->tree);
  change->nodes = g_ptr_array_new ();
  change->graphs = g_ptr_array_new ();
  change->whole_model = FALSE;
  for (guint i = 0; i < command->ops->len; i++)
    {
      Op *op = command->ops->pdata[i];
      g_autoptr (GPtrArray) lineage = g_ptr_array_new ();

      if (op->touched == NULL)
        change->whole_model = TRUE;
      else if (g_hash_table_add (seen, op->touched))
        g_ptr_array_add (change->nodes, op->touched);
      onyx_graph_tree_lineage (self->tree, op->graph != NULL ? op->graph : change->graph, lineage);
      for (guint g = 0; g < lineage->len; g++)
        if (g_hash_table_add (seen, lineage->pdata[g]))
          g_ptr_array_add (change->graphs, lineage->pdata[g]);
    }
}

/* Applies a primitive change and adds it to the command being recorded. */
static void
record (OnyxDocument *self, Op *op)
{
  g_return_if_fail (self->recording != NULL);
  classify (self, op);
  onyx_document_op_apply (self, op, TRUE);
  g_ptr_array_add (self->recording->ops, op);
}

void
onyx_document_remove_item (OnyxDocument *self, ProtobufCMessage *owner, const char *field_name,
                           gsize position)
{
  Op *op = g_new0 (Op, 1);

  op->kind = OP_REMOVE_ITEM;
  op->owner = owner;
  op->field = repeated_message_field (owner, field_name);
  op->position = position;
  g_return_if_fail (op->field != NULL && position < *field_count (owner, op->field));
  op->items = g_new (ProtobufCMessage *, 1);
  op->items[0] = (*field_items (owner, op->field))[position];
  op->n_items = 1;
  record (self, op);
}

void
onyx_document_insert_items (OnyxDocument *self, ProtobufCMessage *owner, const char *field_name,
                            gsize position, ProtobufCMessage *const *items, gsize n_items)
{
  Op *op;

  if (n_items == 0)
    return;
  op = g_new0 (Op, 1);
  op->kind = OP_INSERT_ITEM;
  op->owner = owner;
  op->field = repeated_message_field (owner, field_name);
  op->position = position;
  op->items = g_memdup2 (items, n_items * sizeof *items);
  op->n_items = n_items;
  g_return_if_fail (op->field != NULL && position <= *field_count (owner, op->field));
  /* A run of nodes would be one touched node: nodes go one by one. */
  g_return_if_fail (n_items == 1 || !is_nodes_field (owner, op->field));
  record (self, op);
}

void
onyx_document_insert_item (OnyxDocument *self, ProtobufCMessage *owner, const char *field_name,
                           gsize position, ProtobufCMessage *item)
{
  onyx_document_insert_items (self, owner, field_name, position, &item, 1);
}

static void
set_text (OnyxDocument *self, OpKind kind, ProtobufCMessage *owner, gsize position,
          const char *current, const char *name)
{
  Op *op = g_new0 (Op, 1);

  op->kind = kind;
  op->owner = owner;
  op->position = position;
  op->old_text = (char *) current;
  /* protobuf-c frees strings with free(): allocate them with malloc. */
  op->new_text = strdup (name != NULL ? name : "");
  record (self, op);
}

void
onyx_document_set_node_input (OnyxDocument *self, Onnx__NodeProto *node, guint k, const char *name)
{
  g_return_if_fail (k <= node->n_input);
  set_text (self, k < node->n_input ? OP_SET_NODE_INPUT : OP_ADD_NODE_INPUT, &node->base, k,
            k < node->n_input ? node->input[k] : NULL, name);
}

void
onyx_document_set_node_output (OnyxDocument *self, Onnx__NodeProto *node, guint k, const char *name)
{
  g_return_if_fail (k < node->n_output);
  set_text (self, OP_SET_NODE_OUTPUT, &node->base, k, node->output[k], name);
}

void
onyx_document_set_node_name (OnyxDocument *self, Onnx__NodeProto *node, const char *name)
{
  set_text (self, OP_SET_NODE_NAME, &node->base, 0, node->name, name);
}

void
onyx_document_set_node_field (OnyxDocument *self, Onnx__NodeProto *node, const char *field, const char *text)
{
  gsize offset = protobuf_c_message_descriptor_get_field_by_name (node->base.descriptor, field)->offset;
  set_text (self, OP_SET_NODE_NAME, &node->base, offset, *(char **) ((char *) node + offset), text);
}

void
onyx_document_set_message_name (OnyxDocument *self, ProtobufCMessage *message, const char *name)
{
  char **field = message_name_field (message);
  g_return_if_fail (field != NULL);
  set_text (self, OP_SET_MESSAGE_NAME, message, 0, *field, name);
}

void
onyx_document_set_value_type (OnyxDocument *self, Onnx__ValueInfoProto *info, Onnx__TypeProto *type)
{
  Op *op = g_new0 (Op, 1);

  op->kind = OP_SET_VALUE_TYPE;
  op->owner = &info->base;
  op->old_message = (ProtobufCMessage *) info->type;
  op->new_message = (ProtobufCMessage *) type;
  record (self, op);
}

void
onyx_document_set_node_order (OnyxDocument *self, Onnx__GraphProto *graph, Onnx__NodeProto **order)
{
  Op *op = g_new0 (Op, 1);

  op->kind = OP_SET_NODE_ORDER;
  op->owner = &graph->base;
  op->old_order = g_memdup2 (graph->node, MAX (graph->n_node, 1) * sizeof *graph->node);
  op->new_order = g_memdup2 (order, MAX (graph->n_node, 1) * sizeof *graph->node);
  record (self, op);
}
