#include "onyx-document-internal.h"

#include <string.h>

#include "onyx-error.h"
#include "onyx-graph-names.h"

G_DEFINE_FINAL_TYPE (OnyxDocument, onyx_document, G_TYPE_OBJECT)

enum { SIGNAL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

enum {
  PROP_0,
  PROP_REVISION,
  PROP_MODIFIED,
  PROP_FROZEN,
  PROP_CAN_UNDO,
  PROP_CAN_REDO,
  PROP_UNDO_LABEL,
  PROP_REDO_LABEL,
  N_PROPS
};
static GParamSpec *props[N_PROPS];

/* ---- OnyxChange as a boxed type: "changed" passes it without a copy ---- */

static OnyxChange *
change_copy (const OnyxChange *change)
{
  OnyxChange *copy = g_new0 (OnyxChange, 1);

  copy->graph = change->graph;
  copy->whole_model = change->whole_model;
  copy->nodes = change->nodes != NULL ? g_ptr_array_copy (change->nodes, NULL, NULL) : NULL;
  copy->graphs = change->graphs != NULL ? g_ptr_array_copy (change->graphs, NULL, NULL) : NULL;
  return copy;
}

static void
change_free (OnyxChange *change)
{
  g_clear_pointer (&change->nodes, g_ptr_array_unref);
  g_clear_pointer (&change->graphs, g_ptr_array_unref);
  g_free (change);
}

G_DEFINE_BOXED_TYPE (OnyxChange, onyx_change, change_copy, change_free)

/* "changed", then the properties a step, an undo, a redo or a save moves. */
static void
emit_changed (OnyxDocument *self, const OnyxChange *change)
{
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0, change);
  g_object_freeze_notify (G_OBJECT (self));
  if (change != NULL)
    {
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_REVISION]);
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_CAN_UNDO]);
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_CAN_REDO]);
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_UNDO_LABEL]);
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_REDO_LABEL]);
    }
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_MODIFIED]);
  g_object_thaw_notify (G_OBJECT (self));
}

static void
command_free (OnyxDocument *self, Command *command)
{
  for (guint i = command->ops->len; i-- > 0;)
    onyx_document_op_free (self, command->ops->pdata[i]);
  g_ptr_array_unref (command->ops);
  g_ptr_array_unref (command->replay);
  g_clear_pointer (&command->change.nodes, g_ptr_array_unref);
  g_clear_pointer (&command->change.graphs, g_ptr_array_unref);
  g_free (command->label);
  g_free (command);
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
  onyx_document_work_out_change (self, command);
  g_ptr_array_add (self->commands, command);
  self->n_applied++;
  emit_changed (self, &command->change);
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
      onyx_document_op_apply (self, op, FALSE);
      onyx_document_op_free (self, op);
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

GPtrArray *
onyx_document_begin_subgraph_batch (OnyxDocument *self, Onnx__GraphProto *graph)
{
  g_return_val_if_fail (ONYX_IS_DOCUMENT (self) && self->batched_graph == NULL, NULL);
  if (graph == onyx_graph_tree_main_graph (self->tree))
    return NULL;
  self->batched_graph = graph;
  return onyx_graph_tree_begin_batch (self->tree, graph);
}

void
onyx_document_end_subgraph_batch (OnyxDocument *self, GPtrArray *taken)
{
  g_return_if_fail (ONYX_IS_DOCUMENT (self));
  if (self->batched_graph == NULL)
    return;
  self->batched_graph = NULL;
  onyx_graph_tree_end_batch (self->tree, taken);
}

OnyxGroupMark
onyx_document_group_mark (OnyxDocument *self)
{
  OnyxGroupMark mark = { 0, 0 };

  g_return_val_if_fail (ONYX_IS_DOCUMENT (self) && self->group_depth > 0, mark);
  if (self->recording != NULL)
    {
      mark.n_ops = self->recording->ops->len;
      mark.n_replay = self->recording->replay->len;
    }
  return mark;
}

void
onyx_document_group_rewind (OnyxDocument *self, OnyxGroupMark mark)
{
  g_return_if_fail (ONYX_IS_DOCUMENT (self) && self->group_depth > 0);
  if (self->recording == NULL)
    return;
  self->command_start = MIN (mark.n_ops, self->recording->ops->len);
  self->replay_start = MIN (mark.n_replay, self->recording->replay->len);
  onyx_document_abort_command (self);
}

void
onyx_document_group_drop_replay (OnyxDocument *self, OnyxGroupMark mark)
{
  g_return_if_fail (ONYX_IS_DOCUMENT (self) && self->group_depth > 0);
  if (self->recording != NULL && mark.n_replay < self->recording->replay->len)
    g_ptr_array_set_size (self->recording->replay, mark.n_replay);
}

void
onyx_document_note_replay (OnyxDocument *self, char **entry)
{
  g_return_if_fail (self->recording != NULL);
  g_ptr_array_add (self->recording->replay, entry);
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
    onyx_document_op_apply (self, command->ops->pdata[i], FALSE);
  emit_changed (self, &command->change);
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
    onyx_document_op_apply (self, command->ops->pdata[i], TRUE);
  emit_changed (self, &command->change);
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
  emit_changed (self, NULL);
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
  if (self->frozen++ == 0)
    g_object_notify_by_pspec (G_OBJECT (self), props[PROP_FROZEN]);
}

void
onyx_document_thaw (OnyxDocument *self)
{
  g_return_if_fail (ONYX_IS_DOCUMENT (self) && self->frozen > 0);
  if (--self->frozen == 0)
    g_object_notify_by_pspec (G_OBJECT (self), props[PROP_FROZEN]);
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
onyx_document_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  OnyxDocument *self = ONYX_DOCUMENT (object);

  switch (prop_id)
    {
    case PROP_REVISION: g_value_set_uint64 (value, self->revision); break;
    case PROP_MODIFIED: g_value_set_boolean (value, onyx_document_is_modified (self)); break;
    case PROP_FROZEN: g_value_set_boolean (value, onyx_document_is_frozen (self)); break;
    case PROP_CAN_UNDO: g_value_set_boolean (value, onyx_document_can_undo (self)); break;
    case PROP_CAN_REDO: g_value_set_boolean (value, onyx_document_can_redo (self)); break;
    case PROP_UNDO_LABEL: g_value_set_string (value, onyx_document_get_undo_label (self)); break;
    case PROP_REDO_LABEL: g_value_set_string (value, onyx_document_get_redo_label (self)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
onyx_document_class_init (OnyxDocumentClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = onyx_document_finalize;
  object_class->get_property = onyx_document_get_property;
  props[PROP_REVISION] = g_param_spec_uint64 ("revision", NULL, NULL, 0, G_MAXUINT64, 0, flags);
  props[PROP_MODIFIED] = g_param_spec_boolean ("modified", NULL, NULL, FALSE, flags);
  props[PROP_FROZEN] = g_param_spec_boolean ("frozen", NULL, NULL, FALSE, flags);
  props[PROP_CAN_UNDO] = g_param_spec_boolean ("can-undo", NULL, NULL, FALSE, flags);
  props[PROP_CAN_REDO] = g_param_spec_boolean ("can-redo", NULL, NULL, FALSE, flags);
  props[PROP_UNDO_LABEL] = g_param_spec_string ("undo-label", NULL, NULL, NULL, flags);
  props[PROP_REDO_LABEL] = g_param_spec_string ("redo-label", NULL, NULL, NULL, flags);
  g_object_class_install_properties (object_class, N_PROPS, props);
  /* Static scope: handlers get the command's own OnyxChange, valid while it is. */
  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                          0, NULL, NULL, NULL, G_TYPE_NONE, 1,
                                          ONYX_TYPE_CHANGE | G_SIGNAL_TYPE_STATIC_SCOPE);
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

typedef struct {
  guint64 revision;
  gpointer data;
  GDestroyNotify destroy;
} Derived;

static void
derived_free (Derived *derived)
{
  if (derived->destroy != NULL)
    derived->destroy (derived->data);
  g_free (derived);
}

gboolean
onyx_document_keep_derived (OnyxDocument *self, const char *key, guint64 revision, gpointer data,
                            GDestroyNotify destroy)
{
  Derived *derived;

  g_return_val_if_fail (ONYX_IS_DOCUMENT (self), FALSE);
  if (revision != self->revision)
    {
      if (destroy != NULL)
        destroy (data);
      return FALSE;
    }
  derived = g_new (Derived, 1);
  *derived = (Derived) { revision, data, destroy };
  g_object_set_qdata_full (G_OBJECT (self), g_quark_from_static_string (key), derived,
                           (GDestroyNotify) derived_free);
  return TRUE;
}

gpointer
onyx_document_get_derived (OnyxDocument *self, const char *key)
{
  Derived *derived;

  g_return_val_if_fail (ONYX_IS_DOCUMENT (self), NULL);
  derived = g_object_get_qdata (G_OBJECT (self), g_quark_from_static_string (key));
  return derived != NULL && derived->revision == self->revision ? derived->data : NULL;
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

Onnx__NodeProto *
onyx_document_find_node (OnyxDocument *self, const char *reference, GError **error)
{
  g_autoptr (OnyxGraphList) graphs = NULL;
  g_autoptr (GError) local = NULL;
  Onnx__GraphProto *main_graph = onyx_document_get_proto (self)->graph;
  guint n_named = 0;
  guint64 position;
  Onnx__NodeProto *node = onyx_document_find_named_node (self, reference, &n_named);

  /* The usual cases without walking the model: a unique name, "#N" of the main graph. */
  if (node != NULL)
    return node;
  if (n_named == 0 && reference[0] == '#' &&
      g_ascii_string_to_unsigned (reference + 1, 10, 0, G_MAXSIZE, &position, NULL) &&
      position < main_graph->n_node)
    return main_graph->node[position];
  /* GRAPH#N, and the messages for names that are not there or not unique. */
  graphs = onyx_graph_list_new (onyx_document_get_proto (self));
  node = onyx_graph_list_find_node (graphs, reference, NULL, &local);

  if (node == NULL)
    g_set_error_literal (error, ONYX_EDIT_ERROR, local->code == ONYX_GRAPH_PATH_ERROR_AMBIGUOUS
                         ? ONYX_EDIT_ERROR_INVALID : ONYX_EDIT_ERROR_NOT_FOUND, local->message);
  return node;
}
