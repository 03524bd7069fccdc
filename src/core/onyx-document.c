#include "onyx-document-private.h"

#include "onyx-graph-tree.h"

#include <string.h>

typedef enum {
  OP_REMOVE_ITEM,
  OP_INSERT_ITEM,
  OP_SET_NODE_INPUT,
  OP_SET_NODE_OUTPUT,
  OP_SET_NODE_NAME,
  OP_SET_MESSAGE_NAME,
  OP_SET_VALUE_TYPE,
  OP_SET_NODE_ORDER,
} OpKind;

/* One primitive change. `applied` says which side of it the model is on, and so
 * which of the old/new things the op owns (the one not in the model). */
typedef struct {
  OpKind kind;
  gboolean applied;
  /* The main-graph node it touches (or that holds the subgraph it changes); NULL when
   * it changes the whole model: graph lists, order, opsets, functions, or a subgraph
   * whose holder is gone. */
  Onnx__NodeProto *touched;
  Onnx__GraphProto *graph;            /* whose nodes or lists it changes, or NULL */
  gboolean rereads;                   /* it may change what `graph` reads from outside */
  ProtobufCMessage *owner;            /* message holding the field or named */
  const ProtobufCFieldDescriptor *field;
  gsize position;                     /* element index, or input/output slot */
  ProtobufCMessage **items;           /* removed/inserted elements, a run from `position` */
  gsize n_items;
  char *old_text, *new_text;          /* names */
  ProtobufCMessage *old_message, *new_message; /* types */
  Onnx__NodeProto **old_order, **new_order;
} Op;

typedef struct {
  char *label;
  GPtrArray *ops;     /* Op*, in the order they were applied */
  GPtrArray *replay;  /* GStrv: the edits that made it, as onyx_replay_apply takes them */
  OnyxChange change;  /* what its ops touched, worked out when it is pushed */
} Command;

struct _OnyxDocument {
  GObject parent_instance;

  OnyxModel *model;
  OnyxGraphTree *tree;
  OnyxGraphIndex *index; /* the main graph's, in the tree */
  GPtrArray *commands;   /* Command*, the first `n_applied` are applied */
  guint n_applied;
  gint saved_at;         /* n_applied at the last save; -1 when that state is gone */
  Command *recording;
  guint command_start;   /* ops of `recording` before the current edit's */
  guint replay_start;    /* and its replay entries */
  guint group_depth;
  char *group_label;
  guint64 revision;      /* counts primitive changes, undone ones too */
  guint frozen;          /* readers in other threads (a save): no change until thawed */
};

G_DEFINE_FINAL_TYPE (OnyxDocument, onyx_document, G_TYPE_OBJECT)

enum { SIGNAL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

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
  if (index != NULL && !nodes)
    onyx_graph_index_refresh_lists (index);
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
  if (index != NULL && !nodes)
    onyx_graph_index_refresh_lists (index);
  if (reread != NULL)
    onyx_graph_index_add_node (reread, (Onnx__NodeProto *) op->owner);
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

static void
op_apply (OnyxDocument *self, Op *op, gboolean forward)
{
  /* What a subgraph reads from outside is indexed as uses of the nodes holding it. */
  GPtrArray *holders = op->rereads && op->graph != NULL
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

static void
op_free (OnyxDocument *self, Op *op)
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

static void
command_free (OnyxDocument *self, Command *command)
{
  for (guint i = command->ops->len; i-- > 0;)
    op_free (self, command->ops->pdata[i]);
  g_ptr_array_unref (command->ops);
  g_ptr_array_unref (command->replay);
  g_clear_pointer (&command->change.nodes, g_ptr_array_unref);
  g_clear_pointer (&command->change.graphs, g_ptr_array_unref);
  g_free (command->label);
  g_free (command);
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

static void
work_out_change (OnyxDocument *self, Command *command)
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

static void
record (OnyxDocument *self, Op *op)
{
  g_return_if_fail (self->recording != NULL);
  classify (self, op);
  op_apply (self, op, TRUE);
  g_ptr_array_add (self->recording->ops, op);
}

/* ---- public recording API ---- */

void
onyx_document_begin_command (OnyxDocument *self, const char *label)
{
  g_return_if_fail (ONYX_IS_DOCUMENT (self));
  /* A thread reads the model: the caller's guard (a greyed-out button) failed. */
  g_return_if_fail (self->frozen == 0);
  if (self->recording != NULL)
    {
      /* Inside a group: keep adding to the group's command. */
      g_return_if_fail (self->group_depth > 0);
      self->command_start = self->recording->ops->len;
      self->replay_start = self->recording->replay->len;
      return;
    }
  self->recording = g_new0 (Command, 1);
  self->recording->label = g_strdup (self->group_label != NULL ? self->group_label : label);
  self->recording->ops = g_ptr_array_new ();
  self->recording->replay = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  self->command_start = 0;
  self->replay_start = 0;
}

static void
push_recording (OnyxDocument *self)
{
  Command *command = self->recording;

  self->recording = NULL;
  if (command->ops->len == 0)
    {
      command_free (self, command);
      return;
    }
  /* A new step drops the redo branch; the saved state may go with it. */
  while (self->commands->len > self->n_applied)
    command_free (self, g_ptr_array_steal_index (self->commands, self->commands->len - 1));
  if (self->saved_at > (gint) self->n_applied)
    self->saved_at = -1;
  work_out_change (self, command);
  g_ptr_array_add (self->commands, command);
  self->n_applied++;
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0, &command->change);
}

void
onyx_document_commit_command (OnyxDocument *self)
{
  g_return_if_fail (ONYX_IS_DOCUMENT (self) && self->recording != NULL);
  if (self->group_depth == 0)
    push_recording (self);
}

void
onyx_document_abort_command (OnyxDocument *self)
{
  Command *command = self->recording;

  g_return_if_fail (ONYX_IS_DOCUMENT (self) && command != NULL);
  /* Only the current edit is unwound; earlier edits of a group stay. */
  while (command->ops->len > self->command_start)
    {
      Op *op = g_ptr_array_steal_index (command->ops, command->ops->len - 1);
      op_apply (self, op, FALSE);
      op_free (self, op);
    }
  g_ptr_array_set_size (command->replay, self->replay_start);
  if (self->group_depth == 0)
    {
      self->recording = NULL;
      command_free (self, command);
    }
}

void
onyx_document_begin_group (OnyxDocument *self, const char *label)
{
  g_return_if_fail (ONYX_IS_DOCUMENT (self));
  if (self->group_depth++ == 0)
    {
      g_free (self->group_label);
      self->group_label = g_strdup (label);
      onyx_document_begin_command (self, label);
    }
}

void
onyx_document_end_group (OnyxDocument *self)
{
  g_return_if_fail (ONYX_IS_DOCUMENT (self) && self->group_depth > 0);
  if (--self->group_depth == 0)
    {
      g_clear_pointer (&self->group_label, g_free);
      push_recording (self);
    }
}

void
onyx_document_abort_group (OnyxDocument *self)
{
  g_return_if_fail (ONYX_IS_DOCUMENT (self) && self->group_depth == 1);
  self->group_depth = 0;
  g_clear_pointer (&self->group_label, g_free);
  if (self->recording == NULL)
    return;
  /* Unwinds every edit of the group, not only the last. */
  self->command_start = 0;
  self->replay_start = 0;
  onyx_document_abort_command (self);
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
  g_return_if_fail (k < node->n_input);
  set_text (self, OP_SET_NODE_INPUT, &node->base, k, node->input[k], name);
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

void
onyx_document_note_replay (OnyxDocument *self, const char *step, ...)
{
  GPtrArray *entry = g_ptr_array_new ();
  va_list args;

  g_return_if_fail (self->recording != NULL);
  g_ptr_array_add (entry, g_strdup (step));
  va_start (args, step);
  for (const char *arg = va_arg (args, const char *); arg != NULL; arg = va_arg (args, const char *))
    g_ptr_array_add (entry, g_strdup (arg));
  va_end (args);
  g_ptr_array_add (entry, NULL);
  g_ptr_array_add (self->recording->replay, g_ptr_array_free (entry, FALSE));
}

GPtrArray *
onyx_document_get_replay (OnyxDocument *self)
{
  GPtrArray *entries = g_ptr_array_new ();

  for (guint c = 0; c < self->n_applied; c++)
    {
      Command *command = self->commands->pdata[c];
      for (guint i = 0; i < command->replay->len; i++)
        g_ptr_array_add (entries, command->replay->pdata[i]);
    }
  return entries;
}

/* ---- undo stack ---- */

gboolean
onyx_document_can_undo (OnyxDocument *self)
{
  return self->n_applied > 0;
}

gboolean
onyx_document_can_redo (OnyxDocument *self)
{
  return self->n_applied < self->commands->len;
}

const char *
onyx_document_get_undo_label (OnyxDocument *self)
{
  return self->n_applied > 0 ? ((Command *) self->commands->pdata[self->n_applied - 1])->label : NULL;
}

const char *
onyx_document_get_redo_label (OnyxDocument *self)
{
  return onyx_document_can_redo (self) ? ((Command *) self->commands->pdata[self->n_applied])->label
                                       : NULL;
}

guint
onyx_document_get_n_undo (OnyxDocument *self)
{
  return self->n_applied;
}

gboolean
onyx_document_undo (OnyxDocument *self)
{
  Command *command;

  g_return_val_if_fail (self->recording == NULL && self->frozen == 0, FALSE);
  if (!onyx_document_can_undo (self))
    return FALSE;
  command = self->commands->pdata[--self->n_applied];
  for (guint i = command->ops->len; i-- > 0;)
    op_apply (self, command->ops->pdata[i], FALSE);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0, &command->change);
  return TRUE;
}

gboolean
onyx_document_redo (OnyxDocument *self)
{
  Command *command;

  g_return_val_if_fail (self->recording == NULL && self->frozen == 0, FALSE);
  if (!onyx_document_can_redo (self))
    return FALSE;
  command = self->commands->pdata[self->n_applied++];
  for (guint i = 0; i < command->ops->len; i++)
    op_apply (self, command->ops->pdata[i], TRUE);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0, &command->change);
  return TRUE;
}

gboolean
onyx_document_is_modified (OnyxDocument *self)
{
  return self->saved_at != (gint) self->n_applied;
}

void
onyx_document_mark_saved (OnyxDocument *self)
{
  self->saved_at = (gint) self->n_applied;
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0, NULL);
}

gboolean
onyx_document_is_recording (OnyxDocument *self)
{
  return self->recording != NULL;
}

void
onyx_document_freeze (OnyxDocument *self)
{
  g_return_if_fail (ONYX_IS_DOCUMENT (self) && self->recording == NULL);
  self->frozen++;
}

void
onyx_document_thaw (OnyxDocument *self)
{
  g_return_if_fail (ONYX_IS_DOCUMENT (self) && self->frozen > 0);
  self->frozen--;
}

gboolean
onyx_document_is_frozen (OnyxDocument *self)
{
  return self->frozen > 0;
}

/* ---- object ---- */

static void
onyx_document_finalize (GObject *object)
{
  OnyxDocument *self = ONYX_DOCUMENT (object);

  if (self->recording != NULL)
    {
      self->command_start = 0;
      self->replay_start = 0;
      self->group_depth = 0;
      onyx_document_abort_command (self);
    }
  /* Newest first: later commands may hold items that earlier ones reference. */
  while (self->commands->len > 0)
    command_free (self, g_ptr_array_steal_index (self->commands, self->commands->len - 1));
  g_ptr_array_unref (self->commands);
  onyx_graph_tree_free (self->tree);
  g_free (self->group_label);
  g_clear_object (&self->model);
  G_OBJECT_CLASS (onyx_document_parent_class)->finalize (object);
}

static void
onyx_document_class_init (OnyxDocumentClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = onyx_document_finalize;
  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                          0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
}

static void
onyx_document_init (OnyxDocument *self)
{
  self->commands = g_ptr_array_new ();
}

OnyxDocument *
onyx_document_new (OnyxModel *model)
{
  OnyxDocument *self;

  g_return_val_if_fail (ONYX_IS_MODEL (model), NULL);
  self = g_object_new (ONYX_TYPE_DOCUMENT, NULL);
  self->model = g_object_ref (model);
  self->tree = onyx_graph_tree_new (onyx_model_get_proto (model)->graph);
  self->index = onyx_graph_tree_index (self->tree, onyx_model_get_proto (model)->graph);
  return self;
}

OnyxModel *
onyx_document_get_model (OnyxDocument *self)
{
  return self->model;
}

guint64
onyx_document_get_revision (OnyxDocument *self)
{
  return self->revision;
}

Onnx__ModelProto *
onyx_document_get_proto (OnyxDocument *self)
{
  return onyx_model_get_proto (self->model);
}

OnyxGraphIndex *
onyx_document_get_index (OnyxDocument *self)
{
  return self->index;
}

OnyxGraphIndex *
onyx_document_get_graph_index (OnyxDocument *self, Onnx__GraphProto *graph)
{
  g_return_val_if_fail (ONYX_IS_DOCUMENT (self) && graph != NULL, NULL);
  return onyx_graph_tree_index (self->tree, graph);
}

Onnx__GraphProto *
onyx_document_graph_of_node (OnyxDocument *self, const Onnx__NodeProto *node)
{
  return onyx_graph_tree_graph_of (self->tree, node);
}

Onnx__NodeProto *
onyx_document_graph_owner (OnyxDocument *self, const Onnx__GraphProto *graph)
{
  return onyx_graph_tree_owner (self->tree, graph);
}

gboolean
onyx_document_contains_node (OnyxDocument *self, Onnx__NodeProto *node)
{
  return onyx_graph_tree_main_ancestor (self->tree, node) != NULL;
}

void
onyx_document_graph_lineage (OnyxDocument *self, Onnx__GraphProto *graph, GPtrArray *graphs)
{
  onyx_graph_tree_lineage (self->tree, graph, graphs);
}

Onnx__NodeProto *
onyx_document_find_named_node (OnyxDocument *self, const char *name, guint *n_named)
{
  return onyx_graph_tree_node_named (self->tree, name, n_named);
}
