/* onyx-editor.c: the repairs a click makes (onyx-editor.h); those that take a dialog
 * are onyx-editor-repair.c's. */
#include "onyx-editor-private.h"

#include <glib/gi18n.h>

#include "onyx-edits.h"

G_DEFINE_FINAL_TYPE (OnyxEditor, onyx_editor, G_TYPE_SIMPLE_ACTION_GROUP)

static OnyxDocument *
document (OnyxEditor *self)
{
  return onyx_view_state_get_document (self->state);
}

static void
undo_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  onyx_document_undo (document (data));
}

static void
redo_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  onyx_document_redo (document (data));
}

/* An edit of the selected node; nothing when no node is selected. */
typedef gboolean (*NodeEdit) (OnyxDocument *doc, Onnx__NodeProto *node, GError **error);

static void
edit_selected_node (OnyxEditor *self, NodeEdit edit)
{
  Onnx__NodeProto *node = onyx_view_state_get_selected_node (self->state);
  g_autoptr (GError) error = NULL;
  gboolean ok;

  if (node == NULL)
    return;
  ok = edit (document (self), node, &error);
  onyx_view_state_edit_done (self->state, ok, error);
}

static gboolean
bypass_first_input (OnyxDocument *doc, Onnx__NodeProto *node, GError **error)
{
  return onyx_edit_bypass_node (doc, node, 0, error);
}

static void
bypass_node_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  edit_selected_node (data, bypass_first_input);
}

static void
delete_node_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  edit_selected_node (data, onyx_edit_delete_node);
}

static void
delete_descendants_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  edit_selected_node (data, onyx_edit_delete_descendants);
}

/* The actions below are sent by the properties panel's entries and pickers, their
 * parameter naming what they edit, then the text typed or chosen. */

/* "s": the selected node's new name. */
static void
rename_node_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxEditor *self = data;
  Onnx__NodeProto *node = onyx_view_state_get_selected_node (self->state);
  g_autoptr (GError) error = NULL;
  gboolean ok;

  if (node == NULL)
    return;
  ok = onyx_edit_set_node_name (document (self), node, g_variant_get_string (param, NULL), &error);
  onyx_view_state_edit_done (self->state, ok, error);
}

/* "(ss)": an attribute of the selected node and its new value. */
static void
set_attribute_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxEditor *self = data;
  Onnx__NodeProto *node = onyx_view_state_get_selected_node (self->state);
  g_autoptr (GError) error = NULL;
  const char *attribute, *value;
  gboolean ok;

  if (node == NULL)
    return;
  g_variant_get (param, "(&s&s)", &attribute, &value);
  ok = onyx_edit_set_attribute (document (self), node, attribute, value, &error);
  onyx_view_state_edit_done (self->state, ok, error);
}

/* "(us)": an input slot of the selected node and the tensor it reads from now on. */
static void
reconnect_input_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxEditor *self = data;
  Onnx__NodeProto *node = onyx_view_state_get_selected_node (self->state);
  g_autoptr (GError) error = NULL;
  const char *tensor;
  guint32 slot;
  gboolean ok;

  if (node == NULL)
    return;
  g_variant_get (param, "(u&s)", &slot, &tensor);
  ok = onyx_edit_reconnect (document (self), node, slot, tensor, &error);
  onyx_view_state_edit_done (self->state, ok, error);
}

/* "(ss)": a tensor of the main graph and its new name, which stays selected. */
static void
rename_tensor_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxEditor *self = data;
  g_autoptr (GError) error = NULL;
  const char *old_name, *new_name;
  gboolean ok;

  g_variant_get (param, "(&s&s)", &old_name, &new_name);
  ok = onyx_edit_rename_tensor (document (self), old_name, new_name, &error);
  if (ok)
    onyx_view_state_select_tensor (self->state, new_name);
  onyx_view_state_edit_done (self->state, ok, error);
}

/* "(sus)": a graph input, one of its dimensions, and its new value or name. */
static void
set_input_dim_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxEditor *self = data;
  g_autoptr (GError) error = NULL;
  const char *input, *text;
  guint32 dim;
  gboolean ok;

  g_variant_get (param, "(&su&s)", &input, &dim, &text);
  ok = onyx_edit_set_input_dim (document (self), input, dim, text, &error);
  onyx_view_state_edit_done (self->state, ok, error);
}

/* "s": a tensor of the main graph. */
static void
add_output_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxEditor *self = data;
  g_autoptr (GError) error = NULL;
  gboolean ok = onyx_edit_add_output (document (self), g_variant_get_string (param, NULL), &error);

  onyx_view_state_edit_done (self->state, ok, error);
}

static void
remove_output_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxEditor *self = data;
  g_autoptr (GError) error = NULL;
  gboolean ok = onyx_edit_remove_output (document (self), g_variant_get_string (param, NULL), &error);

  onyx_view_state_edit_done (self->state, ok, error);
}

/* Clean Up Unused Nodes and Sort Nodes: whole-graph passes that may find nothing to
 * do, which a toast says. */
static void
whole_graph_edit (OnyxEditor *self, gboolean (*edit) (OnyxDocument *doc, GError **error), const char *nothing_done)
{
  g_autoptr (GError) error = NULL;
  guint before = onyx_document_get_n_undo (document (self));
  gboolean ok = edit (document (self), &error);

  if (ok && onyx_document_get_n_undo (document (self)) == before)
    onyx_view_state_toast (self->state, nothing_done, FALSE);
  else
    onyx_view_state_edit_done (self->state, ok, error);
}

static void
cleanup_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  whole_graph_edit (data, onyx_edit_cleanup, _("Nothing to clean up"));
}

static void
toposort_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  whole_graph_edit (data, onyx_edit_toposort, _("The nodes are in order already"));
}

static void
inline_functions_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxEditor *self = data;
  g_autoptr (GError) error = NULL;
  guint n_functions = onyx_document_get_proto (document (self))->n_functions;
  g_autofree char *message = NULL;

  if (!onyx_edit_inline_functions (document (self), &error))
    {
      onyx_view_state_edit_done (self->state, FALSE, error);
      return;
    }
  message = g_strdup_printf (ngettext ("Inlined %u local function",
                                       "Inlined %u local functions", n_functions), n_functions);
  onyx_view_state_toast (self->state, message, TRUE);
}

static void
enable (OnyxEditor *self, const char *name, gboolean enabled)
{
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self), name)), enabled);
}

/* What can be edited follows the state: a document no thread reads, the graph
 * shown (functions are shown, not edited; graph inputs and outputs are the main
 * graph's) and the selection. */
static void
update_actions (OnyxEditor *self)
{
  OnyxDocument *doc = document (self);
  OnyxSelectionKind selection = onyx_view_state_get_selection (self->state);
  gboolean editable = onyx_view_state_is_editable (self->state);
  gboolean in_graph = editable && !onyx_view_state_shows_function (self->state);
  gboolean node = in_graph && selection == ONYX_SELECTION_NODE;
  gboolean main_graph = editable && onyx_view_state_shows_main_graph (self->state);

  enable (self, "undo", editable && onyx_document_can_undo (doc));
  enable (self, "redo", editable && onyx_document_can_redo (doc));
  enable (self, "cleanup", editable);
  enable (self, "toposort", editable);
  enable (self, "inline-functions", editable && onyx_document_get_proto (doc)->n_functions > 0);
  for (const char *const *a = (const char *const[]) { "bypass-node", "delete-node", "delete-descendants",
         "rename-node", "set-attribute", "reconnect-input", "replace-operator", NULL }; *a; a++)
    enable (self, *a, node);
  for (const char *const *a = (const char *const[]) { "rename-tensor", "set-input-dim", "add-output",
         "remove-output", NULL }; *a; a++)
    enable (self, *a, main_graph);
  /* A node's output row names its tensor: inserting needs no tensor selected. */
  enable (self, "insert-node-after", in_graph);
  /* The extract cuts the main graph. */
  enable (self, "extract-model", main_graph && selection != ONYX_SELECTION_MODEL);
}

static void
stepped_cb (OnyxEditor *self)
{
  update_actions (self);
}

static void
onyx_editor_dispose (GObject *object)
{
  OnyxEditor *self = ONYX_EDITOR (object);

  if (self->state != NULL)
    onyx_jobs_drop_owner (onyx_view_state_get_jobs (self->state), self);
  g_clear_object (&self->state);
  G_OBJECT_CLASS (onyx_editor_parent_class)->dispose (object);
}

static void
onyx_editor_class_init (OnyxEditorClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = onyx_editor_dispose;
}

static void
onyx_editor_init (OnyxEditor *self)
{
  static const GActionEntry entries[] = {
    { .name = "undo", .activate = undo_activated },
    { .name = "redo", .activate = redo_activated },
    { .name = "bypass-node", .activate = bypass_node_activated },
    { .name = "delete-node", .activate = delete_node_activated },
    { .name = "delete-descendants", .activate = delete_descendants_activated },
    { .name = "rename-node", .parameter_type = "s", .activate = rename_node_activated },
    { .name = "set-attribute", .parameter_type = "(ss)", .activate = set_attribute_activated },
    { .name = "reconnect-input", .parameter_type = "(us)", .activate = reconnect_input_activated },
    { .name = "rename-tensor", .parameter_type = "(ss)", .activate = rename_tensor_activated },
    { .name = "set-input-dim", .parameter_type = "(sus)", .activate = set_input_dim_activated },
    { .name = "add-output", .parameter_type = "s", .activate = add_output_activated },
    { .name = "remove-output", .parameter_type = "s", .activate = remove_output_activated },
    { .name = "cleanup", .activate = cleanup_activated },
    { .name = "toposort", .activate = toposort_activated },
    { .name = "inline-functions", .activate = inline_functions_activated },
  };

  g_action_map_add_action_entries (G_ACTION_MAP (self), entries, G_N_ELEMENTS (entries), self);
  onyx_editor_add_repair_actions (self);
}

OnyxEditor *
onyx_editor_new (OnyxViewState *state)
{
  OnyxEditor *self = g_object_new (ONYX_TYPE_EDITOR, NULL);

  self->state = g_object_ref (state);
  for (const char *const *signal = (const char *const[]) { "notify::editable", "notify::selection", "notify::graph",
         "notify::document", "stepped", NULL }; *signal; signal++)
    g_signal_connect_object (state, *signal, G_CALLBACK (stepped_cb), self, G_CONNECT_SWAPPED);
  update_actions (self);
  return self;
}
