/* onyx-editor-repair.c: the repairs that take more than one click: Replace
 * Operator…, Insert Node After… and Extract to New Model…. Each runs core edits
 * (onyx-edits.h, onyx-extract.h); several edits for one request are one undo group,
 * aborted as a whole when one fails. */
#include "onyx-editor-private.h"

#include <glib/gi18n.h>
#include <string.h>

#include "onyx-dialogs.h"
#include "onyx-edits.h"
#include "onyx-extract.h"
#include "onyx-operator-dialog.h"
#include "onyx-schema.h"

/* The dialog's attribute fields onto `node`, inside the group the caller opened. */
static gboolean
set_attributes (OnyxDocument *document, Onnx__NodeProto *node, char **values, GError **error)
{
  for (guint i = 0; values[i] != NULL && values[i + 1] != NULL; i += 2)
    if (!onyx_edit_set_attribute (document, node, values[i], values[i + 1], error))
      return FALSE;
  return TRUE;
}

/* Closes the dialog, then ends the group, or aborts it and shows the error. */
static void
finish_group (OnyxEditor *self, GtkWindow *dialog, gboolean ok, GError *error)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);

  gtk_window_destroy (dialog);
  if (ok)
    onyx_document_end_group (document);
  else
    {
      onyx_document_abort_group (document);
      onyx_view_state_edit_done (self->state, FALSE, error);
    }
}

static void
replace_apply_cb (OnyxOperatorDialog *dialog, OnyxEditor *self)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  const OnyxSchema *schema = onyx_operator_dialog_get_schema (dialog);
  Onnx__NodeProto *node = g_object_get_data (G_OBJECT (dialog), "node");
  g_auto (GStrv) values = onyx_operator_dialog_get_values (dialog);
  g_auto (GStrv) dropped = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *described = onyx_node_describe (document, node);
  g_autofree char *label = g_strdup_printf (_("Replace %s with %s"), described, schema->name);
  gboolean ok;

  onyx_document_begin_group (document, label);
  ok = onyx_edit_replace_operator (document, node, schema->domain, schema->name, &dropped, &error) &&
       set_attributes (document, node, values, &error);
  finish_group (self, GTK_WINDOW (dialog), ok, error);
  if (ok && dropped != NULL && dropped[0] != NULL)
    {
      g_autofree char *names = g_strjoinv (", ", dropped);
      g_autofree char *message = g_strdup_printf (_("%s (dropped %s)"), label, names);
      onyx_view_state_toast (self->state, message, TRUE);
    }
  else if (ok)
    onyx_view_state_edit_done (self->state, TRUE, NULL);
}

static void
replace_operator_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxEditor *self = data;
  Onnx__NodeProto *node = onyx_view_state_get_selected_node (self->state);
  OnyxOperatorDialog *dialog;

  if (node == NULL)
    return;
  dialog = onyx_operator_dialog_new (onyx_view_state_get_window (self->state), _("Replace Operator"), _("_Replace"),
                                     onyx_document_get_proto (onyx_view_state_get_document (self->state)), node);
  onyx_operator_dialog_choose (dialog, node->domain, node->op_type);
  g_object_set_data (G_OBJECT (dialog), "node", node);
  g_signal_connect_object (dialog, "apply", G_CALLBACK (replace_apply_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
insert_apply_cb (OnyxOperatorDialog *dialog, OnyxEditor *self)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  const OnyxSchema *schema = onyx_operator_dialog_get_schema (dialog);
  const char *tensor = g_object_get_data (G_OBJECT (dialog), "tensor");
  g_auto (GStrv) values = onyx_operator_dialog_get_values (dialog);
  g_autoptr (GError) error = NULL;
  g_autofree char *label = g_strdup_printf (_("Insert %s after %s"), schema->name, tensor);
  Onnx__NodeProto *node;
  gboolean ok;

  onyx_document_begin_group (document, label);
  node = onyx_edit_insert_node (document, tensor, schema->domain, schema->name, NULL, &error);
  ok = node != NULL && set_attributes (document, node, values, &error);
  finish_group (self, GTK_WINDOW (dialog), ok, error);
  if (ok)
    {
      onyx_view_state_edit_done (self->state, TRUE, NULL);
      onyx_view_state_select_node (self->state, node);
    }
}

/* The parameter names the tensor (a node's output row in the panel); "" means the
 * tensor selected. */
static void
insert_node_after_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxEditor *self = data;
  const char *tensor = g_variant_get_string (param, NULL);
  OnyxOperatorDialog *dialog;

  if (tensor[0] == '\0' && onyx_view_state_get_selected_tensor (self->state) != NULL)
    tensor = onyx_view_state_get_selected_tensor (self->state);
  if (tensor[0] == '\0')
    return;
  dialog = onyx_operator_dialog_new (onyx_view_state_get_window (self->state), _("Insert Node After"), _("_Insert"),
                                     onyx_document_get_proto (onyx_view_state_get_document (self->state)), NULL);
  g_object_set_data_full (G_OBJECT (dialog), "tensor", g_strdup (tensor), g_free);
  g_signal_connect_object (dialog, "apply", G_CALLBACK (insert_apply_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ---- Extract to New Model… ---- */

/* What to cut out for the selection: a node from its inputs (initializers stay
 * initializers) to its outputs; a tensor from the graph inputs to it. */
static void
extract_bounds (OnyxEditor *self, GPtrArray *inputs, GPtrArray *outputs)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  Onnx__GraphProto *graph = onyx_document_get_proto (document)->graph;
  OnyxGraphIndex *index = onyx_document_get_graph_index (document, graph);
  Onnx__NodeProto *node = onyx_view_state_get_selected_node (self->state);

  if (node != NULL)
    {
      for (size_t i = 0; i < node->n_input; i++)
        {
          const char *input = node->input[i];
          if (input[0] != '\0' && onyx_graph_index_initializer (index, input) == NULL &&
              !g_ptr_array_find_with_equal_func (inputs, input, g_str_equal, NULL))
            g_ptr_array_add (inputs, (gpointer) input);
        }
      for (size_t i = 0; i < node->n_output; i++)
        if (node->output[i][0] != '\0')
          g_ptr_array_add (outputs, node->output[i]);
    }
  else
    {
      for (size_t i = 0; i < graph->n_input; i++)
        if (onyx_graph_index_initializer (index, graph->input[i]->name) == NULL)
          g_ptr_array_add (inputs, graph->input[i]->name);
      g_ptr_array_add (outputs, (gpointer) onyx_view_state_get_selected_tensor (self->state));
    }
  g_ptr_array_add (inputs, NULL);
  g_ptr_array_add (outputs, NULL);
}

/* An extract under way: the bounds, the document (frozen: the job reads its model)
 * and the file written. */
typedef struct {
  OnyxDocument *document;
  GStrv inputs, outputs;
  char *path;
  GFile *file;
} Extracting;

static void
extracting_free (Extracting *extracting)
{
  g_object_unref (extracting->document);
  g_strfreev (extracting->inputs);
  g_strfreev (extracting->outputs);
  g_free (extracting->path);
  g_object_unref (extracting->file);
  g_free (extracting);
}

static gpointer
extract (OnyxJob *job, gpointer data, GError **error)
{
  Extracting *extracting = data;
  g_autoptr (OnyxModel) extracted = onyx_model_extract (onyx_document_get_model (extracting->document),
                                                        (const char *const *) extracting->inputs,
                                                        (const char *const *) extracting->outputs, error);

  if (extracted == NULL || !onyx_model_save (extracted, extracting->path, error))
    return NULL;
  return g_object_ref (extracting->file);
}

static void
extracted (OnyxJob *job, gpointer result, const GError *error, gpointer owner)
{
  OnyxEditor *self = owner;
  GtkWindow *window = onyx_view_state_get_window (self->state);

  /* Like Open with several files: the new model in a window of its own. */
  if (result != NULL)
    onyx_view_state_open_elsewhere (self->state, result);
  else
    onyx_show_error (window, _("Could Not Extract the Model"), error->message);
}

/* Cuts and writes in a job (a large model's weights take a while to copy and
 * write); the document is frozen meanwhile. */
static void
extract_to (OnyxEditor *self, GFile *file)
{
  g_autoptr (GPtrArray) inputs = g_ptr_array_new ();
  g_autoptr (GPtrArray) outputs = g_ptr_array_new ();
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *name = NULL, *label = NULL;
  OnyxJobSpec spec = { .document = onyx_view_state_get_document (self->state), .flags = ONYX_JOB_FREEZE,
                       .owner = self, .work = extract, .data_free = (GDestroyNotify) extracting_free,
                       .result_free = g_object_unref, .done = extracted };
  Extracting *extracting;

  if (path == NULL)
    {
      onyx_show_error (onyx_view_state_get_window (self->state), _("Could Not Extract the Model"),
                       _("Not a local file"));
      return;
    }
  extract_bounds (self, inputs, outputs);
  extracting = g_new0 (Extracting, 1);
  extracting->document = g_object_ref (spec.document);
  extracting->inputs = g_strdupv ((char **) inputs->pdata);
  extracting->outputs = g_strdupv ((char **) outputs->pdata);
  extracting->path = g_steal_pointer (&path);
  extracting->file = g_object_ref (file);
  name = g_file_get_basename (file);
  label = g_strdup_printf (_("Extracting %s"), name);
  spec.label = label;
  spec.data = extracting;
  onyx_jobs_start (onyx_view_state_get_jobs (self->state), &spec);
}

static gboolean
extract_file (gpointer self, GFile *file, GError **error)
{
  extract_to (self, file);
  return TRUE;
}

static void
extract_model_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxEditor *self = data;
  GFile *model = onyx_view_state_get_file (self->state);
  GtkFileChooserNative *chooser;
  g_autofree char *base = NULL, *suggested = NULL;
  char *dot;

  if (onyx_view_state_get_selection (self->state) == ONYX_SELECTION_MODEL)
    return;
  chooser = onyx_file_chooser_new (onyx_view_state_get_window (self->state), NULL, _("Extract to New Model"),
                                   _("_Extract"), GTK_FILE_CHOOSER_ACTION_SAVE);
  base = model != NULL ? g_file_get_basename (model) : g_strdup ("model.onnx");
  if ((dot = strrchr (base, '.')) != NULL)
    *dot = '\0';
  suggested = g_strconcat (base, "-extract.onnx", NULL);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), suggested);
  onyx_add_onnx_filter (GTK_FILE_CHOOSER (chooser));
  onyx_file_chooser_run (chooser, extract_file, self, _("Could Not Extract the Model"));
}

void
onyx_editor_add_repair_actions (OnyxEditor *self)
{
  static const GActionEntry entries[] = {
    { .name = "replace-operator", .activate = replace_operator_activated },
    { .name = "insert-node-after", .parameter_type = "s", .activate = insert_node_after_activated },
    { .name = "extract-model", .activate = extract_model_activated },
  };

  g_action_map_add_action_entries (G_ACTION_MAP (self), entries, G_N_ELEMENTS (entries), self);
}
