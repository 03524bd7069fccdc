/* onyx-window-repair.c: the repairs that take more than one click: Replace
 * Operator…, Insert Node After…, Extract to New Model… and Convert Opset…. Each runs
 * core edits (onyx-edits.h, onyx-extract.h); several edits for one request are one
 * undo group, aborted as a whole when one fails. */
#include "onyx-window-private.h"

#include <glib/gi18n.h>
#include <string.h>

#include "onyx-edits.h"
#include "onyx-extract.h"
#include "onyx-operator-dialog.h"
#include "onyx-schema.h"

/* The dialog's attribute fields onto `node`, inside the group the caller opened. */
static gboolean
set_attributes (OnyxWindow *self, Onnx__NodeProto *node, char **values, GError **error)
{
  for (guint i = 0; values[i] != NULL && values[i + 1] != NULL; i += 2)
    if (!onyx_edit_set_attribute (self->document, node, values[i], values[i + 1], error))
      return FALSE;
  return TRUE;
}

/* Closes the dialog, then ends the group, or aborts it and shows the error. */
static void
finish_group (OnyxWindow *self, GtkWindow *dialog, gboolean ok, GError *error)
{
  gtk_window_destroy (dialog);
  if (ok)
    onyx_document_end_group (self->document);
  else
    {
      onyx_document_abort_group (self->document);
      onyx_window_edit_done (self, FALSE, error);
    }
}

static void
replace_apply_cb (OnyxOperatorDialog *dialog, OnyxWindow *self)
{
  const OnyxSchema *schema = onyx_operator_dialog_get_schema (dialog);
  Onnx__NodeProto *node = g_object_get_data (G_OBJECT (dialog), "node");
  g_auto (GStrv) values = onyx_operator_dialog_get_values (dialog);
  g_auto (GStrv) dropped = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *described = onyx_node_describe (self->document, node);
  g_autofree char *label = g_strdup_printf (_("Replace %s with %s"), described, schema->name);
  gboolean ok;

  onyx_document_begin_group (self->document, label);
  ok = onyx_edit_replace_operator (self->document, node, schema->domain, schema->name,
                                   &dropped, &error) &&
       set_attributes (self, node, values, &error);
  finish_group (self, GTK_WINDOW (dialog), ok, error);
  if (ok && dropped != NULL && dropped[0] != NULL)
    {
      g_autofree char *names = g_strjoinv (", ", dropped);
      g_autofree char *message = g_strdup_printf (_("%s (dropped %s)"), label, names);
      onyx_window_toast (self, message, TRUE);
    }
  else if (ok)
    onyx_window_edit_done (self, TRUE, NULL);
}

static void
replace_operator_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);
  OnyxOperatorDialog *dialog;

  if (self->selection != ONYX_SELECTION_NODE)
    return;
  dialog = onyx_operator_dialog_new (GTK_WINDOW (self), _("Replace Operator"), _("_Replace"),
                                     onyx_document_get_proto (self->document), self->selected_node);
  onyx_operator_dialog_choose (dialog, self->selected_node->domain, self->selected_node->op_type);
  g_object_set_data (G_OBJECT (dialog), "node", self->selected_node);
  g_signal_connect (dialog, "apply", G_CALLBACK (replace_apply_cb), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
insert_apply_cb (OnyxOperatorDialog *dialog, OnyxWindow *self)
{
  const OnyxSchema *schema = onyx_operator_dialog_get_schema (dialog);
  const char *tensor = g_object_get_data (G_OBJECT (dialog), "tensor");
  g_auto (GStrv) values = onyx_operator_dialog_get_values (dialog);
  g_autoptr (GError) error = NULL;
  g_autofree char *label = g_strdup_printf (_("Insert %s after %s"), schema->name, tensor);
  Onnx__NodeProto *node;
  gboolean ok;

  onyx_document_begin_group (self->document, label);
  node = onyx_edit_insert_node (self->document, tensor, schema->domain, schema->name, NULL, &error);
  ok = node != NULL && set_attributes (self, node, values, &error);
  finish_group (self, GTK_WINDOW (dialog), ok, error);
  if (ok)
    {
      onyx_window_edit_done (self, TRUE, NULL);
      onyx_window_select_node (self, node);
    }
}

/* The parameter names the tensor (a node's output row in the panel); "" means the
 * tensor selected. */
static void
insert_node_after_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);
  const char *tensor = g_variant_get_string (param, NULL);
  OnyxOperatorDialog *dialog;

  if (tensor[0] == '\0' && self->selection == ONYX_SELECTION_TENSOR)
    tensor = self->selected_tensor;
  if (tensor[0] == '\0')
    return;
  dialog = onyx_operator_dialog_new (GTK_WINDOW (self), _("Insert Node After"), _("_Insert"),
                                     onyx_document_get_proto (self->document), NULL);
  g_object_set_data_full (G_OBJECT (dialog), "tensor", g_strdup (tensor), g_free);
  g_signal_connect (dialog, "apply", G_CALLBACK (insert_apply_cb), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ---- Extract to New Model… ---- */

/* What to cut out for the selection: a node from its inputs (initializers stay
 * initializers) to its outputs; a tensor from the graph inputs to it. */
static void
extract_bounds (OnyxWindow *self, GPtrArray *inputs, GPtrArray *outputs)
{
  Onnx__GraphProto *graph = onyx_document_get_proto (self->document)->graph;
  OnyxGraphIndex *index = onyx_document_get_graph_index (self->document, graph);

  if (self->selection == ONYX_SELECTION_NODE)
    {
      for (size_t i = 0; i < self->selected_node->n_input; i++)
        {
          const char *input = self->selected_node->input[i];
          if (input[0] != '\0' && onyx_graph_index_initializer (index, input) == NULL &&
              !g_ptr_array_find_with_equal_func (inputs, input, g_str_equal, NULL))
            g_ptr_array_add (inputs, (gpointer) input);
        }
      for (size_t i = 0; i < self->selected_node->n_output; i++)
        if (self->selected_node->output[i][0] != '\0')
          g_ptr_array_add (outputs, self->selected_node->output[i]);
    }
  else
    {
      for (size_t i = 0; i < graph->n_input; i++)
        if (onyx_graph_index_initializer (index, graph->input[i]->name) == NULL)
          g_ptr_array_add (inputs, graph->input[i]->name);
      g_ptr_array_add (outputs, self->selected_tensor);
    }
  g_ptr_array_add (inputs, NULL);
  g_ptr_array_add (outputs, NULL);
}

/* An extract under way: the bounds, the document (frozen: the thread reads its
 * model) and the file written. */
typedef struct {
  OnyxDocument *document;
  GStrv inputs, outputs;
  char *path;
  GFile *file;
} Extracting;

static void
extracting_free (Extracting *extracting)
{
  onyx_document_thaw (extracting->document);
  g_object_unref (extracting->document);
  g_strfreev (extracting->inputs);
  g_strfreev (extracting->outputs);
  g_free (extracting->path);
  g_object_unref (extracting->file);
  g_free (extracting);
}

static void
extract_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Extracting *extracting = data;
  g_autoptr (OnyxModel) extracted = NULL;
  GError *error = NULL;

  extracted = onyx_model_extract (onyx_document_get_model (extracting->document),
                                  (const char *const *) extracting->inputs,
                                  (const char *const *) extracting->outputs, &error);
  if (extracted != NULL && onyx_model_save (extracted, extracting->path, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
extracted_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (OnyxWindow) self = onyx_window_job_end (data);
  Extracting *extracting = g_task_get_task_data (G_TASK (result));
  g_autoptr (GFile) file = g_object_ref (extracting->file);
  g_autoptr (GError) error = NULL;

  /* Editable again (frees the job) before anything is shown. */
  g_task_set_task_data (G_TASK (result), NULL, NULL);
  onyx_window_update_state (self);
  if (g_task_propagate_boolean (G_TASK (result), &error))
    {
      /* Like Open with several files: the new model in a window of its own. */
      OnyxWindow *window = onyx_window_new (gtk_window_get_application (GTK_WINDOW (self)));
      gtk_window_present (GTK_WINDOW (window));
      onyx_window_open_file (window, file);
    }
  else
    onyx_window_show_error (self, _("Could Not Extract the Model"), error->message);
}

/* Cuts and writes in a thread (a large model's weights take a while to copy and
 * write); the document is frozen meanwhile. */
static void
extract_to (OnyxWindow *self, GFile *file)
{
  g_autoptr (GPtrArray) inputs = g_ptr_array_new ();
  g_autoptr (GPtrArray) outputs = g_ptr_array_new ();
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *name = NULL, *label = NULL;
  g_autoptr (GTask) task = NULL;
  Extracting *extracting;

  if (path == NULL)
    {
      onyx_window_show_error (self, _("Could Not Extract the Model"), _("Not a local file"));
      return;
    }
  extract_bounds (self, inputs, outputs);
  extracting = g_new0 (Extracting, 1);
  extracting->document = g_object_ref (self->document);
  extracting->inputs = g_strdupv ((char **) inputs->pdata);
  extracting->outputs = g_strdupv ((char **) outputs->pdata);
  extracting->path = g_steal_pointer (&path);
  extracting->file = g_object_ref (file);
  onyx_document_freeze (self->document);
  name = g_file_get_basename (file);
  label = g_strdup_printf (_("Extracting %s"), name);
  task = g_task_new (NULL, NULL, extracted_cb, onyx_window_job_begin (self, label));
  g_task_set_task_data (task, extracting, (GDestroyNotify) extracting_free);
  g_task_run_in_thread (task, extract_thread);
  onyx_window_update_state (self);
}

static void
extract_response_cb (GtkNativeDialog *chooser, int response, OnyxWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      extract_to (self, file);
    }
  g_object_unref (chooser);
}

static void
extract_model_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);
  GtkFileChooserNative *chooser;
  g_autofree char *base = NULL, *suggested = NULL;
  char *dot;

  if (self->selection == ONYX_SELECTION_MODEL)
    return;
  chooser = gtk_file_chooser_native_new (_("Extract to New Model"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Extract"), _("_Cancel"));
  base = self->file ? g_file_get_basename (self->file) : g_strdup ("model.onnx");
  if ((dot = strrchr (base, '.')) != NULL)
    *dot = '\0';
  suggested = g_strconcat (base, "-extract.onnx", NULL);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), suggested);
  onyx_window_add_onnx_filter (GTK_FILE_CHOOSER (chooser));
  g_signal_connect (chooser, "response", G_CALLBACK (extract_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

/* ---- Convert Opset… ---- */

static void
converted_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (OnyxWindow) self = onyx_window_job_end (data);
  g_autoptr (GError) error = NULL;
  gboolean ok = onyx_edit_convert_opset_finish (ONYX_DOCUMENT (source), result, &error);

  onyx_window_update_state (self);
  /* Another model may be shown by now: the conversion went to the one it was for. */
  if (ONYX_DOCUMENT (source) == self->document)
    onyx_window_edit_done (self, ok, error);
}

/* The converter runs in a thread, the document frozen meanwhile (a large model takes
 * seconds); the conversion is applied when it is done. */
static void
convert_response_cb (AdwMessageDialog *dialog, const char *response, OnyxWindow *self)
{
  GtkSpinButton *spin = GTK_SPIN_BUTTON (adw_message_dialog_get_extra_child (dialog));
  int target = gtk_spin_button_get_value_as_int (spin);
  g_autofree char *label = NULL;

  if (!g_str_equal (response, "convert"))
    return;
  label = g_strdup_printf (_("Converting to opset %d"), target);
  onyx_edit_convert_opset_async (self->document, target, converted_cb, onyx_window_job_begin (self, label));
  onyx_window_update_state (self);
}

static void
convert_opset_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);
  Onnx__ModelProto *model = onyx_document_get_proto (self->document);
  gint64 current = onyx_opset_version (model->opset_import, model->n_opset_import, "");
  int newest = onyx_schema_domain_version ("");
  g_autofree char *body = current > 0
    ? g_strdup_printf (_("The model imports opset %d of ai.onnx. Nodes the conversion "
                         "changes are replaced; it is one undo step."), (int) current)
    : g_strdup (_("The model imports no ai.onnx opset."));
  AdwMessageDialog *dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self),
                                                   _("Convert Opset"), body));
  GtkWidget *spin = gtk_spin_button_new_with_range (1, newest, 1);

  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), current > 0 ? (double) current : newest);
  gtk_widget_set_halign (spin, GTK_ALIGN_CENTER);
  gtk_accessible_update_property (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Target opset"), -1);
  adw_message_dialog_set_extra_child (dialog, spin);
  onyx_window_ask (self, dialog, "convert", _("C_onvert"), G_CALLBACK (convert_response_cb));
}

void
onyx_window_update_repair_state (OnyxWindow *self, gboolean editable, gboolean node)
{
  GtkWidget *widget = GTK_WIDGET (self);
  gboolean tensor = editable && self->selection == ONYX_SELECTION_TENSOR;

  gtk_widget_action_set_enabled (widget, "win.replace-operator", node);
  /* A node's output row names its tensor: inserting needs no tensor selected. */
  gtk_widget_action_set_enabled (widget, "win.insert-node-after", editable &&
                                 !onyx_window_shows_function (self));
  /* The extract cuts the main graph. */
  gtk_widget_action_set_enabled (widget, "win.extract-model",
                                 (node || tensor) && onyx_window_shows_main_graph (self) &&
                                 !onyx_window_shows_function (self));
  gtk_widget_action_set_enabled (widget, "win.convert-opset", editable);
}

void
onyx_window_class_init_repair (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.replace-operator", NULL, replace_operator_action);
  gtk_widget_class_install_action (widget_class, "win.insert-node-after", "s",
                                   insert_node_after_action);
  gtk_widget_class_install_action (widget_class, "win.extract-model", NULL, extract_model_action);
  gtk_widget_class_install_action (widget_class, "win.convert-opset", NULL, convert_opset_action);
}
