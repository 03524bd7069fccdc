/* onyx-replay.c: replay entries, written by the edits and read back by the journal
 * (onyx-replay.h). Each recorded step's writer and reader sit together, with the
 * count of arguments in one table both check. */
#include "onyx-replay.h"

#include <string.h>

#include "onyx-edits-private.h"
#include "onyx-graph-path.h"

typedef gboolean (*ReplayFunc) (OnyxDocument *doc, const char *const *arguments, GError **error);

typedef enum {
  STEP_BYPASS,
  STEP_DELETE,
  STEP_DELETE_TREE,
  STEP_DELETE_ANCESTORS,
  STEP_RECONNECT,
  STEP_RENAME,
  STEP_ADD_OUTPUT,
  STEP_REMOVE_OUTPUT,
  STEP_REMOVE_INPUT,
  STEP_SET_ATTR,
  STEP_SET_NAME,
  STEP_SET_DIM,
  STEP_REPLACE,
  STEP_INSERT,
  STEP_CLEANUP,
  STEP_TOPOSORT,
  STEP_INLINE_FUNCTIONS,
  STEP_INFER_SHAPES,
  STEP_CONVERT_OPSET,
  N_STEPS
} Step;

typedef struct {
  const char *name;       /* as the entry starts, and as `onyx-cli edit` names the step */
  guint n_arguments;
  ReplayFunc replay;
} StepFormat;

static const StepFormat *step_format (Step step);

/* An entry: the step's name and its arguments, up to four, the first NULL ending them. */
static void
note (OnyxDocument *doc, Step step, const char *a1, const char *a2, const char *a3, const char *a4)
{
  const char *const arguments[] = { a1, a2, a3, a4 };
  guint n = 0;

  while (n < G_N_ELEMENTS (arguments) && arguments[n] != NULL)
    n++;
  g_return_if_fail (n == step_format (step)->n_arguments);
  onyx_document_note_replay (doc, step_format (step)->name, a1, a2, a3, a4, NULL);
}

/* ---- Nodes: "#12" in the main graph, "GRAPH#12" in a subgraph ---- */

static char *
node_ref (OnyxDocument *doc, Onnx__NodeProto *node)
{
  Onnx__GraphProto *graph = onyx_edit_graph_of (doc, node);
  g_autoptr (OnyxGraphList) graphs = NULL;
  gssize position = onyx_graph_index_node_position (onyx_edit_index_of (doc, node), node);

  if (graph == onyx_edit_main_graph (doc))
    return g_strdup_printf ("#%" G_GSSIZE_FORMAT, position);
  graphs = onyx_graph_list_new (onyx_document_get_proto (doc));
  return g_strdup_printf ("%s#%" G_GSSIZE_FORMAT, onyx_graph_list_graph_of (graphs, node)->name, position);
}

static Onnx__NodeProto *
find_node (OnyxDocument *doc, const char *reference, GError **error)
{
  if (strchr (reference, '#') == NULL)
    {
      g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID,
                   "a replayed node must be given as #N or GRAPH#N");
      return NULL;
    }
  return onyx_edit_find_node (doc, reference, error);
}

/* Counts (an input slot, an axis, an opset) are decimal. */
static char *
count_text (guint value)
{
  return g_strdup_printf ("%u", value);
}

static gboolean
parse_count (const char *text, guint *value, GError **error)
{
  guint64 parsed;

  if (!g_ascii_string_to_unsigned (text, 10, 0, G_MAXINT32, &parsed, NULL))
    {
      g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID, "'%s' is not a count in a replay entry", text);
      return FALSE;
    }
  *value = (guint) parsed;
  return TRUE;
}

static void
note_node (OnyxDocument *doc, Step step, Onnx__NodeProto *node, const char *a2, const char *a3)
{
  g_autofree char *ref = node_ref (doc, node);

  note (doc, step, ref, a2, a3, NULL);
}

/* ---- The steps: each writer, then its reader ---- */

void
onyx_replay_note_bypass (OnyxDocument *doc, Onnx__NodeProto *node, guint input)
{
  g_autofree char *slot = count_text (input);

  note_node (doc, STEP_BYPASS, node, slot, NULL);
}

static gboolean
replay_bypass (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  Onnx__NodeProto *node = find_node (doc, arguments[0], error);
  guint input;

  return node != NULL && parse_count (arguments[1], &input, error) &&
         onyx_edit_bypass_node (doc, node, input, error);
}

void
onyx_replay_note_delete (OnyxDocument *doc, Onnx__NodeProto *node)
{
  note_node (doc, STEP_DELETE, node, NULL, NULL);
}

static gboolean
replay_delete (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  Onnx__NodeProto *node = find_node (doc, arguments[0], error);
  return node != NULL && onyx_edit_delete_node (doc, node, error);
}

void
onyx_replay_note_delete_tree (OnyxDocument *doc, Onnx__NodeProto *node)
{
  note_node (doc, STEP_DELETE_TREE, node, NULL, NULL);
}

static gboolean
replay_delete_tree (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  Onnx__NodeProto *node = find_node (doc, arguments[0], error);
  return node != NULL && onyx_edit_delete_descendants (doc, node, error);
}

void
onyx_replay_note_delete_ancestors (OnyxDocument *doc, Onnx__NodeProto *node)
{
  note_node (doc, STEP_DELETE_ANCESTORS, node, NULL, NULL);
}

static gboolean
replay_delete_ancestors (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  Onnx__NodeProto *node = find_node (doc, arguments[0], error);
  return node != NULL && onyx_edit_delete_ancestors (doc, node, error);
}

void
onyx_replay_note_reconnect (OnyxDocument *doc, Onnx__NodeProto *node, guint input, const char *tensor)
{
  g_autofree char *slot = count_text (input);

  note_node (doc, STEP_RECONNECT, node, slot, tensor);
}

static gboolean
replay_reconnect (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  Onnx__NodeProto *node = find_node (doc, arguments[0], error);
  guint input;

  return node != NULL && parse_count (arguments[1], &input, error) &&
         onyx_edit_reconnect (doc, node, input, arguments[2], error);
}

void
onyx_replay_note_set_name (OnyxDocument *doc, Onnx__NodeProto *node, const char *name)
{
  note_node (doc, STEP_SET_NAME, node, name, NULL);
}

static gboolean
replay_set_name (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  Onnx__NodeProto *node = find_node (doc, arguments[0], error);
  return node != NULL && onyx_edit_set_node_name (doc, node, arguments[1], error);
}

void
onyx_replay_note_set_attr (OnyxDocument *doc, Onnx__NodeProto *node, const char *name, const char *value)
{
  note_node (doc, STEP_SET_ATTR, node, name, value);
}

static gboolean
replay_set_attr (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  Onnx__NodeProto *node = find_node (doc, arguments[0], error);
  return node != NULL && onyx_edit_set_attribute (doc, node, arguments[1], arguments[2], error);
}

void
onyx_replay_note_replace (OnyxDocument *doc, Onnx__NodeProto *node, const char *domain, const char *op_type)
{
  note_node (doc, STEP_REPLACE, node, domain, op_type);
}

static gboolean
replay_replace (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  Onnx__NodeProto *node = find_node (doc, arguments[0], error);
  g_auto (GStrv) dropped = NULL;

  return node != NULL && onyx_edit_replace_operator (doc, node, arguments[1], arguments[2], &dropped, error);
}

/* The extra inputs of an insert as one argument: each escaped (g_strescape), a line
 * each. */
void
onyx_replay_note_insert (OnyxDocument *doc, const char *tensor, const char *domain, const char *op_type,
                         const char *const *extra_inputs)
{
  g_autoptr (GString) encoded = g_string_new (NULL);

  for (guint i = 0; extra_inputs != NULL && extra_inputs[i] != NULL; i++)
    {
      g_autofree char *escaped = g_strescape (extra_inputs[i], NULL);
      g_string_append_printf (encoded, "%s\n", escaped);
    }
  note (doc, STEP_INSERT, tensor, domain, op_type, encoded->str);
}

static gboolean
replay_insert (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  g_auto (GStrv) lines = g_strsplit (arguments[3], "\n", -1);
  guint n = g_strv_length (lines);
  g_auto (GStrv) extra_inputs = g_new0 (char *, n);

  /* The text ends with a newline: its last piece is empty. */
  for (guint i = 0; i + 1 < n; i++)
    extra_inputs[i] = g_strcompress (lines[i]);
  return onyx_edit_insert_node (doc, arguments[0], arguments[1], arguments[2],
                                (const char *const *) extra_inputs, error) != NULL;
}

void
onyx_replay_note_rename (OnyxDocument *doc, const char *old_name, const char *new_name)
{
  note (doc, STEP_RENAME, old_name, new_name, NULL, NULL);
}

static gboolean
replay_rename (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  return onyx_edit_rename_tensor (doc, arguments[0], arguments[1], error);
}

void
onyx_replay_note_add_output (OnyxDocument *doc, const char *tensor)
{
  note (doc, STEP_ADD_OUTPUT, tensor, NULL, NULL, NULL);
}

static gboolean
replay_add_output (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  return onyx_edit_add_output (doc, arguments[0], error);
}

void
onyx_replay_note_remove_output (OnyxDocument *doc, const char *name)
{
  note (doc, STEP_REMOVE_OUTPUT, name, NULL, NULL, NULL);
}

static gboolean
replay_remove_output (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  return onyx_edit_remove_output (doc, arguments[0], error);
}

void
onyx_replay_note_remove_input (OnyxDocument *doc, const char *name)
{
  note (doc, STEP_REMOVE_INPUT, name, NULL, NULL, NULL);
}

static gboolean
replay_remove_input (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  return onyx_edit_remove_input (doc, arguments[0], error);
}

void
onyx_replay_note_set_dim (OnyxDocument *doc, const char *input, guint axis, const char *value)
{
  g_autofree char *axis_text = count_text (axis);

  note (doc, STEP_SET_DIM, input, axis_text, value, NULL);
}

static gboolean
replay_set_dim (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  guint axis;

  return parse_count (arguments[1], &axis, error) &&
         onyx_edit_set_input_dim (doc, arguments[0], axis, arguments[2], error);
}

void
onyx_replay_note_cleanup (OnyxDocument *doc)
{
  note (doc, STEP_CLEANUP, NULL, NULL, NULL, NULL);
}

static gboolean
replay_cleanup (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  return onyx_edit_cleanup (doc, error);
}

void
onyx_replay_note_toposort (OnyxDocument *doc)
{
  note (doc, STEP_TOPOSORT, NULL, NULL, NULL, NULL);
}

static gboolean
replay_toposort (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  return onyx_edit_toposort (doc, error);
}

void
onyx_replay_note_inline_functions (OnyxDocument *doc)
{
  note (doc, STEP_INLINE_FUNCTIONS, NULL, NULL, NULL, NULL);
}

static gboolean
replay_inline_functions (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  return onyx_edit_inline_functions (doc, error);
}

void
onyx_replay_note_infer_shapes (OnyxDocument *doc)
{
  note (doc, STEP_INFER_SHAPES, NULL, NULL, NULL, NULL);
}

static gboolean
replay_infer_shapes (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  return onyx_edit_infer_shapes (doc, NULL, error);
}

void
onyx_replay_note_convert_opset (OnyxDocument *doc, int target)
{
  g_autofree char *target_text = count_text ((guint) target);

  note (doc, STEP_CONVERT_OPSET, target_text, NULL, NULL, NULL);
}

static gboolean
replay_convert_opset (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  guint target;

  return parse_count (arguments[0], &target, error) && onyx_edit_convert_opset (doc, (int) target, error);
}

/* ---- The table both sides check ---- */

static const StepFormat formats[N_STEPS] = {
  [STEP_BYPASS] = { "bypass", 2, replay_bypass },
  [STEP_DELETE] = { "delete", 1, replay_delete },
  [STEP_DELETE_TREE] = { "delete-tree", 1, replay_delete_tree },
  [STEP_DELETE_ANCESTORS] = { "delete-ancestors", 1, replay_delete_ancestors },
  [STEP_RECONNECT] = { "reconnect", 3, replay_reconnect },
  [STEP_RENAME] = { "rename", 2, replay_rename },
  [STEP_ADD_OUTPUT] = { "add-output", 1, replay_add_output },
  [STEP_REMOVE_OUTPUT] = { "remove-output", 1, replay_remove_output },
  [STEP_REMOVE_INPUT] = { "remove-input", 1, replay_remove_input },
  [STEP_SET_ATTR] = { "set-attr", 3, replay_set_attr },
  [STEP_SET_NAME] = { "set-name", 2, replay_set_name },
  [STEP_SET_DIM] = { "set-dim", 3, replay_set_dim },
  [STEP_REPLACE] = { "replace", 3, replay_replace },
  [STEP_INSERT] = { "insert", 4, replay_insert },
  [STEP_CLEANUP] = { "cleanup", 0, replay_cleanup },
  [STEP_TOPOSORT] = { "toposort", 0, replay_toposort },
  [STEP_INLINE_FUNCTIONS] = { "inline-functions", 0, replay_inline_functions },
  [STEP_INFER_SHAPES] = { "infer-shapes", 0, replay_infer_shapes },
  [STEP_CONVERT_OPSET] = { "convert-opset", 1, replay_convert_opset },
};

static const StepFormat *
step_format (Step step)
{
  return &formats[step];
}

gboolean
onyx_replay_apply (OnyxDocument *doc, const char *const *entry, GError **error)
{
  guint n_arguments = entry != NULL && entry[0] != NULL ? g_strv_length ((char **) entry) - 1 : 0;
  const char *name = entry != NULL ? entry[0] : NULL;

  for (guint s = 0; name != NULL && s < N_STEPS; s++)
    if (strcmp (formats[s].name, name) == 0 && formats[s].n_arguments == n_arguments)
      return formats[s].replay (doc, entry + 1, error);
  g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID, "unreadable replay entry '%s'",
               name != NULL ? name : "");
  return FALSE;
}
