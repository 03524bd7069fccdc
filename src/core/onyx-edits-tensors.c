/* onyx-edits-tensors.c: the edits of the main graph's tensors and of its inputs and
 * outputs: rename a tensor, add or remove a graph output, remove a graph input, set
 * an input's dimension. Each with its replay entry. */
#include "onyx-edits.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "onyx-edits-private.h"
#include "onyx-replay.h"
#include "onyx-shapes.h"
#include "onyx-types.h"
#include "onyx-text.h"

static gboolean
replay_rename (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  return onyx_edit_rename_tensor (doc, arguments[0], arguments[1], error);
}

static const OnyxReplayStep rename_step = { "rename", 2, replay_rename };

gboolean
onyx_edit_rename_tensor (OnyxDocument *doc, const char *old_name, const char *new_name,
                         GError **error)
{
  OnyxGraphIndex *index = onyx_document_get_index (doc);
  Onnx__GraphProto *graph = onyx_edit_main_graph (doc);
  g_autofree char *old_shown = onyx_display_escape (old_name);
  g_autofree char *new_shown = onyx_display_escape (new_name);
  g_autofree char *label = NULL;
  g_autofree char *old_copy = g_strdup (old_name);
  OnyxValue *value = onyx_graph_index_lookup (index, old_name);
  Onnx__ValueInfoProto *input = onyx_graph_index_graph_input (index, old_name);
  Onnx__ValueInfoProto *output = onyx_graph_index_graph_output (index, old_name);
  Onnx__TensorProto *initializer = onyx_graph_index_initializer (index, old_name);

  if (new_name == NULL || new_name[0] == '\0')
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_INVALID, _("a tensor name cannot be empty"));
  if (value == NULL && input == NULL && output == NULL && initializer == NULL)
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_NOT_FOUND, _("there is no tensor '%s'"), old_shown);
  if (strcmp (old_name, new_name) == 0)
    return TRUE;
  if (onyx_graph_index_lookup (index, new_name) != NULL || onyx_graph_index_defines (index, new_name) ||
      onyx_graph_index_graph_output (index, new_name) != NULL)
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_EXISTS, _("the name '%s' is already in use"), new_shown);

  label = g_strdup_printf (_("Rename %s to %s"), old_shown, new_shown);
  onyx_document_begin_command (doc, label);
  onyx_replay_note (doc, &rename_step, old_copy, new_name, NULL);
  if (value != NULL && value->producer != NULL)
    onyx_document_set_node_output (doc, value->producer, value->producer_output, new_name);
  onyx_edit_redirect_uses (doc, graph, old_copy, new_name, NULL);
  if (input != NULL)
    onyx_document_set_message_name (doc, &input->base, new_name);
  if (output != NULL)
    onyx_document_set_message_name (doc, &output->base, new_name);
  if (initializer != NULL)
    onyx_document_set_message_name (doc, &initializer->base, new_name);
  for (size_t i = 0; i < graph->n_value_info; i++)
    if (g_strcmp0 (graph->value_info[i]->name, old_copy) == 0)
      onyx_document_set_message_name (doc, &graph->value_info[i]->base, new_name);
  return onyx_edit_commit (doc);
}

static gboolean
replay_add_output (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  return onyx_edit_add_output (doc, arguments[0], error);
}

static const OnyxReplayStep add_output_step = { "add-output", 1, replay_add_output };

gboolean
onyx_edit_add_output (OnyxDocument *doc, const char *tensor, GError **error)
{
  OnyxGraphIndex *index = onyx_document_get_index (doc);
  Onnx__GraphProto *graph = onyx_edit_main_graph (doc);
  g_autofree char *shown = onyx_display_escape (tensor);
  g_autofree char *label = NULL;
  Onnx__ValueInfoProto *info;

  if (!onyx_graph_index_defines (index, tensor))
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_NOT_FOUND, _("there is no tensor '%s'"), shown);
  if (onyx_graph_index_graph_output (index, tensor) != NULL)
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_EXISTS, _("'%s' is already a graph output"), shown);
  info = malloc (sizeof *info);
  onnx__value_info_proto__init (info);
  info->name = strdup (tensor);
  info->type = onyx_shapes_new_type (onyx_document_get_shapes (doc), graph, tensor);
  label = g_strdup_printf (_("Add graph output %s"), shown);
  onyx_document_begin_command (doc, label);
  onyx_replay_note (doc, &add_output_step, tensor, NULL);
  onyx_document_insert_item (doc, &graph->base, "output", graph->n_output, &info->base);
  return onyx_edit_commit (doc);
}

static gboolean
replay_remove_output (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  return onyx_edit_remove_output (doc, arguments[0], error);
}

static const OnyxReplayStep remove_output_step = { "remove-output", 1, replay_remove_output };

static gboolean
replay_remove_input (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  return onyx_edit_remove_input (doc, arguments[0], error);
}

static const OnyxReplayStep remove_input_step = { "remove-input", 1, replay_remove_input };

static gboolean
remove_value_info_item (OnyxDocument *doc, const char *field, const char *name, GError **error)
{
  Onnx__GraphProto *graph = onyx_edit_main_graph (doc);
  gboolean inputs = strcmp (field, "input") == 0;
  gssize position = inputs ? onyx_edit_value_info_position (graph->input, graph->n_input, name)
                           : onyx_edit_value_info_position (graph->output, graph->n_output, name);
  g_autofree char *shown = onyx_display_escape (name);
  g_autofree char *label = NULL;

  if (position < 0)
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_NOT_FOUND,
                           inputs ? _("there is no graph input '%s'") : _("there is no graph output '%s'"), shown);
  label = g_strdup_printf (inputs ? _("Remove graph input %s") : _("Remove graph output %s"), shown);
  onyx_document_begin_command (doc, label);
  onyx_replay_note (doc, inputs ? &remove_input_step : &remove_output_step, name, NULL);
  onyx_document_remove_item (doc, &graph->base, field, (gsize) position);
  return onyx_edit_commit (doc);
}

gboolean
onyx_edit_remove_output (OnyxDocument *doc, const char *name, GError **error)
{
  return remove_value_info_item (doc, "output", name, error);
}

gboolean
onyx_edit_remove_input (OnyxDocument *doc, const char *name, GError **error)
{
  return remove_value_info_item (doc, "input", name, error);
}

static gboolean
replay_set_dim (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  guint axis;

  return onyx_replay_parse_count (arguments[1], &axis, error) &&
         onyx_edit_set_input_dim (doc, arguments[0], axis, arguments[2], error);
}

static const OnyxReplayStep set_dim_step = { "set-dim", 3, replay_set_dim };

gboolean
onyx_edit_set_input_dim (OnyxDocument *doc, const char *input, guint axis, const char *value,
                         GError **error)
{
  OnyxGraphIndex *index = onyx_document_get_index (doc);
  Onnx__ValueInfoProto *info = onyx_graph_index_graph_input (index, input);
  g_autofree char *shown = onyx_display_escape (input);
  g_autofree char *label = NULL;
  g_autofree char *axis_text = NULL;
  Onnx__TypeProto *type;
  Onnx__TensorShapeProto__Dimension *dim;
  guint64 number;

  if (info == NULL)
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_NOT_FOUND, _("there is no graph input '%s'"), shown);
  if (info->type == NULL || info->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
      info->type->tensor_type->shape == NULL)
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_INVALID, _("graph input '%s' has no shape"), shown);
  if (axis >= info->type->tensor_type->shape->n_dim)
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_NOT_FOUND,
                           ngettext ("graph input '%s' has %zu dim, not %u", "graph input '%s' has %zu dims, not %u",
                                     info->type->tensor_type->shape->n_dim),
                           shown, info->type->tensor_type->shape->n_dim, axis + 1);

  type = (Onnx__TypeProto *) onyx_proto_copy (&info->type->base);
  dim = type->tensor_type->shape->dim[axis];
  if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
    free (dim->dim_param);
  dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE__NOT_SET;
  if (g_ascii_string_to_unsigned (value, 10, 0, G_MAXINT64, &number, NULL))
    {
      dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
      dim->dim_value = (int64_t) number;
    }
  else if (value[0] != '\0' && strcmp (value, "?") != 0)
    {
      dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
      dim->dim_param = strdup (value);
    }
  label = g_strdup_printf (_("Set dim %u of %s to %s"), axis, shown, value[0] != '\0' ? value : "?");
  onyx_document_begin_command (doc, label);
  axis_text = onyx_replay_count_text (axis);
  onyx_replay_note (doc, &set_dim_step, input, axis_text, value, NULL);
  onyx_document_set_value_type (doc, info, type);
  return onyx_edit_commit (doc);
}

const OnyxReplayStep *const onyx_edits_tensors_replay_steps[] = {
  &rename_step, &add_output_step, &remove_output_step, &remove_input_step, &set_dim_step, NULL,
};
