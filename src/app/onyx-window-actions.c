/* onyx-window-actions.c: the window's actions. Every edit goes through a core
 * command (onyx-edits.h), which records one undo step. */
#include "onyx-window-private.h"

#include <glib/gi18n.h>

#include "onyx-edits.h"

void
onyx_window_edit_done (OnyxWindow *self, gboolean ok, GError *error)
{
  if (ok)
    {
      /* The step's own name, "Bypass node FooOp_0", says what happened. */
      onyx_window_toast (self, onyx_document_get_undo_label (self->document), TRUE);
      return;
    }
  onyx_window_show_error (self, _("Could Not Edit the Model"), error->message);
}

static void
open_chooser_response_cb (GtkNativeDialog *chooser, int response, OnyxWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GListModel) files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (chooser));
      GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));

      /* The first file here, any others in windows of their own. */
      for (guint i = 0; i < g_list_model_get_n_items (files); i++)
        {
          g_autoptr (GFile) file = g_list_model_get_item (files, i);
          OnyxWindow *target = self;
          if (i > 0)
            {
              target = onyx_window_new (app);
              gtk_window_present (GTK_WINDOW (target));
            }
          onyx_window_open_file (target, file);
        }
    }
  g_object_unref (chooser);
}

void
onyx_window_add_onnx_filter (GtkFileChooser *chooser)
{
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, _("ONNX Models"));
  gtk_file_filter_add_pattern (filter, "*.onnx");
  gtk_file_filter_add_mime_type (filter, "application/x-onnx");
  gtk_file_chooser_add_filter (chooser, filter);
  g_object_unref (filter);
  filter = gtk_file_filter_new ();
  gtk_file_filter_set_name (filter, _("All Files"));
  gtk_file_filter_add_pattern (filter, "*");
  gtk_file_chooser_add_filter (chooser, filter);
  g_object_unref (filter);
}

static void
file_chooser_response_cb (GtkNativeDialog *chooser, int response, OnyxWindow *self)
{
  OnyxWindowFileFunc func = g_object_get_data (G_OBJECT (chooser), "onyx-func");
  const char *heading = g_object_get_data (G_OBJECT (chooser), "onyx-error-heading");

  if (response == GTK_RESPONSE_ACCEPT && self->document != NULL)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autoptr (GError) error = NULL;

      if (!func (self, file, &error))
        onyx_window_show_error (self, heading, error->message);
    }
  g_object_unref (chooser);
}

GtkFileChooserNative *
onyx_window_file_chooser_new (OnyxWindow *self, const char *title, const char *accept, GtkFileChooserAction action,
                              OnyxWindowFileFunc func, const char *error_heading)
{
  GtkFileChooserNative *chooser = gtk_file_chooser_native_new (title, GTK_WINDOW (self), action, accept,
                                                               _("_Cancel"));

  /* Most often a file next to the open model. */
  if (self->file != NULL)
    {
      g_autoptr (GFile) folder = g_file_get_parent (self->file);
      if (folder != NULL)
        gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), folder, NULL);
    }
  g_object_set_data (G_OBJECT (chooser), "onyx-func", func);
  g_object_set_data_full (G_OBJECT (chooser), "onyx-error-heading", g_strdup (error_heading), g_free);
  g_signal_connect (chooser, "response", G_CALLBACK (file_chooser_response_cb), self);
  return chooser;
}

static void
show_open_chooser (OnyxWindow *self)
{
  GtkFileChooserNative *chooser = gtk_file_chooser_native_new (_("Open Model"), GTK_WINDOW (self),
                                    GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));

  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (chooser), TRUE);
  onyx_window_add_onnx_filter (GTK_FILE_CHOOSER (chooser));
  g_signal_connect (chooser, "response", G_CALLBACK (open_chooser_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
open_action (GtkWidget *widget, const char *name, GVariant *param)
{
  onyx_window_confirm_discard (ONYX_WINDOW (widget), show_open_chooser);
}

static void
save_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);

  if (self->file != NULL)
    onyx_window_save_file (self, self->file);
}

static void
save_as_response_cb (GtkNativeDialog *chooser, int response, OnyxWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));

      onyx_window_save_file (self, file);
    }
  g_object_unref (chooser);
}

static void
save_as_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);
  GtkFileChooserNative *chooser = gtk_file_chooser_native_new (_("Save Model As"), GTK_WINDOW (self),
    GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), _("_Cancel"));
  g_autofree char *base = self->file ? g_file_get_basename (self->file) : g_strdup ("model.onnx");

  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), base);
  onyx_window_add_onnx_filter (GTK_FILE_CHOOSER (chooser));
  g_signal_connect (chooser, "response", G_CALLBACK (save_as_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
undo_action (GtkWidget *widget, const char *name, GVariant *param)
{
  onyx_document_undo (ONYX_WINDOW (widget)->document);
}

static void
redo_action (GtkWidget *widget, const char *name, GVariant *param)
{
  onyx_document_redo (ONYX_WINDOW (widget)->document);
}

static void
cancel_layout_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);

  onyx_layout_session_cancel (self->layout);
}

static void
select_node_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);
  Onnx__GraphProto *graph = onyx_window_get_graph (self);
  int pos = g_variant_get_int32 (param);

  if (pos >= 0 && (size_t) pos < graph->n_node)
    onyx_window_select_node (self, graph->node[pos]);
}

static void
select_tensor_action (GtkWidget *widget, const char *name, GVariant *param)
{
  onyx_window_select_tensor (ONYX_WINDOW (widget), g_variant_get_string (param, NULL));
}

/* An edit of the selected node; nothing when no node is selected. */
typedef gboolean (*NodeEdit) (OnyxDocument *doc, Onnx__NodeProto *node, GError **error);

static void
edit_selected_node (OnyxWindow *self, NodeEdit edit)
{
  g_autoptr (GError) error = NULL;
  gboolean ok;

  if (self->selection != ONYX_SELECTION_NODE)
    return;
  ok = edit (self->document, self->selected_node, &error);
  onyx_window_edit_done (self, ok, error);
}

static gboolean
bypass_first_input (OnyxDocument *doc, Onnx__NodeProto *node, GError **error)
{
  return onyx_edit_bypass_node (doc, node, 0, error);
}

static void
bypass_node_action (GtkWidget *widget, const char *name, GVariant *param)
{
  edit_selected_node (ONYX_WINDOW (widget), bypass_first_input);
}

static void
delete_node_action (GtkWidget *widget, const char *name, GVariant *param)
{
  edit_selected_node (ONYX_WINDOW (widget), onyx_edit_delete_node);
}

static void
delete_descendants_action (GtkWidget *widget, const char *name, GVariant *param)
{
  edit_selected_node (ONYX_WINDOW (widget), onyx_edit_delete_descendants);
}

/* The actions below are sent by the properties panel's entries and pickers, their
 * parameter naming what they edit, then the text typed or chosen. */

/* "s": the selected node's new name. */
static void
rename_node_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);
  g_autoptr (GError) error = NULL;
  gboolean ok;

  if (self->selection != ONYX_SELECTION_NODE)
    return;
  ok = onyx_edit_set_node_name (self->document, self->selected_node, g_variant_get_string (param, NULL), &error);
  onyx_window_edit_done (self, ok, error);
}

/* "(ss)": an attribute of the selected node and its new value. */
static void
set_attribute_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);
  g_autoptr (GError) error = NULL;
  const char *attribute, *value;
  gboolean ok;

  if (self->selection != ONYX_SELECTION_NODE)
    return;
  g_variant_get (param, "(&s&s)", &attribute, &value);
  ok = onyx_edit_set_attribute (self->document, self->selected_node, attribute, value, &error);
  onyx_window_edit_done (self, ok, error);
}

/* "(us)": an input slot of the selected node and the tensor it reads from now on. */
static void
reconnect_input_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);
  g_autoptr (GError) error = NULL;
  const char *tensor;
  guint32 slot;
  gboolean ok;

  if (self->selection != ONYX_SELECTION_NODE)
    return;
  g_variant_get (param, "(u&s)", &slot, &tensor);
  ok = onyx_edit_reconnect (self->document, self->selected_node, slot, tensor, &error);
  onyx_window_edit_done (self, ok, error);
}

/* "(ss)": a tensor of the main graph and its new name, which stays selected. */
static void
rename_tensor_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);
  g_autoptr (GError) error = NULL;
  const char *old_name, *new_name;
  gboolean ok;

  g_variant_get (param, "(&s&s)", &old_name, &new_name);
  ok = onyx_edit_rename_tensor (self->document, old_name, new_name, &error);
  if (ok)
    onyx_window_select_tensor (self, new_name);
  onyx_window_edit_done (self, ok, error);
}

/* "(sus)": a graph input, one of its dimensions, and its new value or name. */
static void
set_input_dim_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);
  g_autoptr (GError) error = NULL;
  const char *input, *text;
  guint32 dim;
  gboolean ok;

  g_variant_get (param, "(&su&s)", &input, &dim, &text);
  ok = onyx_edit_set_input_dim (self->document, input, dim, text, &error);
  onyx_window_edit_done (self, ok, error);
}

/* "s": a tensor of the main graph. */
static void
add_output_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);
  g_autoptr (GError) error = NULL;
  gboolean ok = onyx_edit_add_output (self->document, g_variant_get_string (param, NULL), &error);

  onyx_window_edit_done (self, ok, error);
}

static void
remove_output_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);
  g_autoptr (GError) error = NULL;
  gboolean ok = onyx_edit_remove_output (self->document, g_variant_get_string (param, NULL), &error);

  onyx_window_edit_done (self, ok, error);
}

/* Clean Up Unused Nodes and Sort Nodes: whole-graph passes that may find nothing to
 * do, which a toast says. */
static void
whole_graph_edit (OnyxWindow *self, gboolean (*edit) (OnyxDocument *doc, GError **error),
                  const char *nothing_done)
{
  g_autoptr (GError) error = NULL;
  guint before = onyx_document_get_n_undo (self->document);
  gboolean ok = edit (self->document, &error);

  if (ok && onyx_document_get_n_undo (self->document) == before)
    onyx_window_toast (self, nothing_done, FALSE);
  else
    onyx_window_edit_done (self, ok, error);
}

static void
cleanup_action (GtkWidget *widget, const char *name, GVariant *param)
{
  whole_graph_edit (ONYX_WINDOW (widget), onyx_edit_cleanup, _("Nothing to clean up"));
}

static void
toposort_action (GtkWidget *widget, const char *name, GVariant *param)
{
  whole_graph_edit (ONYX_WINDOW (widget), onyx_edit_toposort, _("The nodes are in order already"));
}

static void
inline_functions_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);
  g_autoptr (GError) error = NULL;
  guint n_functions = onyx_document_get_proto (self->document)->n_functions;
  g_autofree char *message = NULL;

  if (!onyx_edit_inline_functions (self->document, &error))
    {
      onyx_window_edit_done (self, FALSE, error);
      return;
    }
  message = g_strdup_printf (ngettext ("Inlined %u local function",
                                       "Inlined %u local functions", n_functions), n_functions);
  onyx_window_toast (self, message, TRUE);
}

void
onyx_window_class_init_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.save", NULL, save_action);
  gtk_widget_class_install_action (widget_class, "win.save-as", NULL, save_as_action);
  gtk_widget_class_install_action (widget_class, "win.undo", NULL, undo_action);
  gtk_widget_class_install_action (widget_class, "win.redo", NULL, redo_action);
  gtk_widget_class_install_action (widget_class, "win.cancel-layout", NULL, cancel_layout_action);
  gtk_widget_class_install_action (widget_class, "win.select-node", "i", select_node_action);
  gtk_widget_class_install_action (widget_class, "win.select-tensor", "s", select_tensor_action);
  gtk_widget_class_install_action (widget_class, "win.bypass-node", NULL, bypass_node_action);
  gtk_widget_class_install_action (widget_class, "win.delete-node", NULL, delete_node_action);
  gtk_widget_class_install_action (widget_class, "win.delete-descendants", NULL, delete_descendants_action);
  gtk_widget_class_install_action (widget_class, "win.rename-node", "s", rename_node_action);
  gtk_widget_class_install_action (widget_class, "win.set-attribute", "(ss)", set_attribute_action);
  gtk_widget_class_install_action (widget_class, "win.reconnect-input", "(us)", reconnect_input_action);
  gtk_widget_class_install_action (widget_class, "win.rename-tensor", "(ss)", rename_tensor_action);
  gtk_widget_class_install_action (widget_class, "win.set-input-dim", "(sus)", set_input_dim_action);
  gtk_widget_class_install_action (widget_class, "win.add-output", "s", add_output_action);
  gtk_widget_class_install_action (widget_class, "win.remove-output", "s", remove_output_action);
  gtk_widget_class_install_action (widget_class, "win.cleanup", NULL, cleanup_action);
  gtk_widget_class_install_action (widget_class, "win.inline-functions", NULL, inline_functions_action);
  gtk_widget_class_install_action (widget_class, "win.toposort", NULL, toposort_action);
  onyx_window_class_init_export (widget_class);
  onyx_window_class_init_repair (widget_class);
}
