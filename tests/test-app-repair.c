/* test-app-repair.c: the repairs of the window under Xvfb, each through its action
 * and dialog: Replace Operator… (with the attribute form), Insert Node After…,
 * Convert Opset…, Extract to New Model…, Inline Functions. Each checks the model changed as asked and
 * that one undo restores it; the dialogs are rendered into the build dir. */
#include <adwaita.h>
#include <glib/gstdio.h>

#include "onyx-app-test-util.h"
#include "onyx-attribute.h"
#include "onyx-operator-dialog.h"
#include "onyx-schema.h"

/* Until `widget` is shown and a few frames were drawn: allocated for a snapshot. */
static void
wait_drawn (GtkWidget *widget)
{
  int ticks = 0;

  while (!gtk_widget_get_mapped (widget) || gtk_widget_get_width (widget) <= 0)
    g_main_context_iteration (NULL, TRUE);
  gtk_widget_add_tick_callback (widget, test_count_tick, &ticks, NULL);
  while (ticks < 3)
    g_main_context_iteration (NULL, TRUE);
}

static Onnx__GraphProto *
main_graph (OnyxWindow *window)
{
  return onyx_document_get_proto (onyx_window_get_document (window))->graph;
}

static Onnx__NodeProto *
first_node_of_op (OnyxWindow *window, const char *op_type)
{
  Onnx__GraphProto *graph = main_graph (window);

  for (size_t i = 0; i < graph->n_node; i++)
    if (g_str_equal (graph->node[i]->op_type, op_type))
      return graph->node[i];
  g_assert_not_reached ();
}

/* The shown button of `widget`'s tree that activates `action` (with `target`, if not
 * NULL). */
static GtkWidget *
find_action_button (GtkWidget *widget, const char *action, const char *target)
{
  if (!gtk_widget_get_visible (widget))
    return NULL;
  if (GTK_IS_BUTTON (widget) &&
      g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), action) == 0)
    {
      GVariant *value = gtk_actionable_get_action_target_value (GTK_ACTIONABLE (widget));
      if (target == NULL || (value != NULL && g_str_equal (g_variant_get_string (value, NULL), target)))
        return widget;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_action_button (child, action, target);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static OnyxOperatorDialog *
open_operator_dialog (OnyxWindow *window, const char *action, GVariant *param)
{
  OnyxOperatorDialog *dialog;

  g_assert_true (gtk_widget_activate_action_variant (GTK_WIDGET (window), action, param));
  dialog = find_toplevel (ONYX_TYPE_OPERATOR_DIALOG);
  g_assert_nonnull (dialog);
  wait_drawn (GTK_WIDGET (dialog));
  return dialog;
}

/* What OK does; the dialog closes. */
static void
apply_dialog (OnyxOperatorDialog *dialog)
{
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (dialog), "operator.apply", NULL));
  g_assert_null (dialog);
}

static double
float_attribute (Onnx__NodeProto *node, const char *name)
{
  Onnx__AttributeProto *attribute = onyx_node_find_attribute (node, name, NULL);

  g_assert_nonnull (attribute);
  return attribute->f;
}

static void
test_replace_operator (void)
{
  g_autofree char *path = test_data_path ("model.onnx");
  OnyxWindow *window = open_model_window (path);
  Onnx__NodeProto *relu = first_node_of_op (window, "Relu");
  guint n_undo = onyx_document_get_n_undo (onyx_window_get_document (window));
  OnyxOperatorDialog *dialog;
  g_auto (GStrv) dropped = NULL;
  g_auto (GStrv) values = NULL;
  g_autofree char *joined = NULL;

  onyx_view_state_select_node (test_state (window), relu);
  /* The node's panel offers the repairs: its output rows Insert Node After…. */
  g_assert_nonnull (find_action_button (GTK_WIDGET (test_properties (window)), "edit.replace-operator", NULL));
  g_assert_nonnull (find_action_button (GTK_WIDGET (test_properties (window)), "edit.extract-model", NULL));
  g_assert_nonnull (find_action_button (GTK_WIDGET (test_properties (window)), "edit.insert-node-after",
                                        relu->output[0]));
  dialog = open_operator_dialog (window, "edit.replace-operator", NULL);
  /* The node's own operator is chosen first; the list holds opset 13's operators. */
  g_assert_cmpstr (onyx_operator_dialog_get_schema (dialog)->name, ==, "Relu");
  g_assert_cmpuint (onyx_operator_dialog_get_n_shown (dialog), >, 100);
  gtk_editable_set_text (onyx_operator_dialog_get_search (dialog), "leaky");
  g_assert_cmpuint (onyx_operator_dialog_get_n_shown (dialog), ==, 1);
  g_assert_true (onyx_operator_dialog_choose (dialog, "", "LeakyRelu"));
  g_assert_false (onyx_operator_dialog_choose (dialog, "", "NoSuchOp"));
  gtk_editable_set_text (onyx_operator_dialog_get_field (dialog, "alpha"), "0.1");
  values = onyx_operator_dialog_get_values (dialog);
  joined = g_strjoinv ("=", values);
  g_assert_cmpstr (joined, ==, "alpha=0.1");
  wait_drawn (GTK_WIDGET (dialog));
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (dialog), "test-app-repair-replace.png"), >, 2000);
  apply_dialog (dialog);

  g_assert_cmpstr (relu->op_type, ==, "LeakyRelu");
  g_assert_cmpfloat_with_epsilon (float_attribute (relu, "alpha"), 0.1, 1e-6);
  g_assert_cmpuint (onyx_document_get_n_undo (onyx_window_get_document (window)), ==, n_undo + 1);

  /* Back to Relu: alpha is listed as dropped before applying, pre-filled meanwhile. */
  wait_for_layout (window);  /* no edits while a layout runs */
  dialog = open_operator_dialog (window, "edit.replace-operator", NULL);
  g_assert_cmpstr (gtk_editable_get_text (onyx_operator_dialog_get_field (dialog, "alpha")), ==, "0.1");
  g_assert_true (onyx_operator_dialog_choose (dialog, "", "Relu"));
  dropped = onyx_operator_dialog_get_dropped (dialog);
  g_assert_cmpuint (g_strv_length (dropped), ==, 1);
  g_assert_cmpstr (dropped[0], ==, "alpha");
  wait_drawn (GTK_WIDGET (dialog));
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (dialog), "test-app-repair-dropped.png"), >, 2000);
  apply_dialog (dialog);
  g_assert_cmpstr (relu->op_type, ==, "Relu");
  g_assert_cmpuint (relu->n_attribute, ==, 0);

  test_undo (window);
  test_undo (window);
  g_assert_cmpstr (relu->op_type, ==, "Relu");
  g_assert_cmpuint (relu->n_attribute, ==, 0);
  g_assert_cmpuint (onyx_document_get_n_undo (onyx_window_get_document (window)), ==, n_undo);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A failing step (Conv's three inputs are too many for Relu) leaves nothing behind. */
static void
test_replace_error (void)
{
  g_autofree char *path = test_data_path ("model.onnx");
  OnyxWindow *window = open_model_window (path);
  Onnx__NodeProto *conv = first_node_of_op (window, "Conv");
  guint n_undo = onyx_document_get_n_undo (onyx_window_get_document (window));
  OnyxOperatorDialog *dialog;
  AdwMessageDialog *error;

  onyx_view_state_select_node (test_state (window), conv);
  dialog = open_operator_dialog (window, "edit.replace-operator", NULL);
  g_assert_true (onyx_operator_dialog_choose (dialog, "", "Relu"));
  apply_dialog (dialog);
  error = find_message_dialog ();
  g_assert_nonnull (error);
  g_assert_cmpstr (adw_message_dialog_get_heading (error), ==, "Could Not Edit the Model");
  gtk_window_destroy (GTK_WINDOW (error));
  g_assert_cmpstr (conv->op_type, ==, "Conv");
  g_assert_cmpuint (conv->n_attribute, >, 0);
  g_assert_cmpuint (onyx_document_get_n_undo (onyx_window_get_document (window)), ==, n_undo);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_insert_node_after (void)
{
  g_autofree char *path = test_data_path ("model.onnx");
  OnyxWindow *window = open_model_window (path);
  g_autofree char *tensor = g_strdup (first_node_of_op (window, "Relu")->output[0]);
  g_autofree char *before = op_types (window), *after = NULL, *undone = NULL;
  OnyxOperatorDialog *dialog;

  onyx_view_state_select_tensor (test_state (window), tensor);
  dialog = open_operator_dialog (window, "edit.insert-node-after", g_variant_new_string (""));
  g_assert_null (onyx_operator_dialog_get_schema (dialog));
  g_assert_true (onyx_operator_dialog_choose (dialog, "", "Identity"));
  wait_drawn (GTK_WIDGET (dialog));
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (dialog), "test-app-repair-insert.png"), >, 2000);
  apply_dialog (dialog);

  after = op_types (window);
  g_assert_cmpstr (before, ==, "Conv,Relu,Conv,Relu");
  g_assert_cmpstr (after, ==, "Conv,Relu,Identity,Conv,Relu");
  g_assert_cmpint (onyx_view_state_get_selection (test_state (window)), ==, ONYX_SELECTION_NODE);
  g_assert_cmpstr (onyx_view_state_get_selected_node (test_state (window))->op_type, ==, "Identity");
  g_assert_cmpstr (onyx_view_state_get_selected_node (test_state (window))->input[0], ==, tensor);
  test_undo (window);
  undone = op_types (window);
  g_assert_cmpstr (undone, ==, before);
  gtk_window_destroy (GTK_WINDOW (window));
}

static gint64
default_opset (OnyxWindow *window)
{
  Onnx__ModelProto *model = onyx_document_get_proto (onyx_window_get_document (window));
  return onyx_opset_version (model->opset_import, model->n_opset_import, "");
}

static void
test_convert_opset (void)
{
  g_autofree char *path = test_data_path ("model.onnx");
  OnyxWindow *window = open_model_window (path);
  guint n_undo = onyx_document_get_n_undo (onyx_window_get_document (window));
  AdwMessageDialog *dialog;
  GtkSpinButton *spin;
  double lower, upper;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "convert.show", NULL));
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  spin = GTK_SPIN_BUTTON (adw_message_dialog_get_extra_child (dialog));
  gtk_spin_button_get_range (spin, &lower, &upper);
  g_assert_cmpfloat (lower, ==, 1);
  g_assert_cmpfloat (upper, ==, onyx_schema_domain_version (""));
  g_assert_cmpint (gtk_spin_button_get_value_as_int (spin), ==, 13);
  gtk_spin_button_set_value (spin, 14);
  wait_drawn (GTK_WIDGET (dialog));
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (dialog), "test-app-repair-convert.png"), >, 2000);
  /* What a click on Convert does: the dialog closes, then responds. The converter
   * runs in a thread: the document is frozen and says so in the header bar (shown at
   * once here, after half a second for a person) until it is done. */
  onyx_jobs_set_delay (onyx_view_state_get_jobs (test_state (window)), 0);
  g_object_ref (dialog);
  gtk_window_destroy (GTK_WINDOW (dialog));
  adw_message_dialog_response (dialog, "convert");
  g_object_unref (dialog);
  g_assert_true (onyx_document_is_frozen (onyx_window_get_document (window)));
  g_assert_true (onyx_jobs_get_busy (onyx_view_state_get_jobs (test_state (window))));
  g_assert_cmpstr (onyx_jobs_get_label (onyx_view_state_get_jobs (test_state (window))), ==, "Converting to opset 14");
  g_assert_true (gtk_widget_get_visible (test_find_by_tooltip (GTK_WIDGET (window), GTK_TYPE_SPINNER,
                                                               "Converting to opset 14")));
  g_assert_cmpuint (onyx_document_get_n_undo (onyx_window_get_document (window)), ==, n_undo);
  wait_for_jobs (window);
  g_assert_false (onyx_jobs_get_busy (onyx_view_state_get_jobs (test_state (window))));
  wait_for_layout (window);
  g_assert_false (onyx_document_is_frozen (onyx_window_get_document (window)));

  g_assert_cmpint (default_opset (window), ==, 14);
  g_assert_cmpuint (onyx_document_get_n_undo (onyx_window_get_document (window)), ==, n_undo + 1);
  test_undo (window);
  g_assert_cmpint (default_opset (window), ==, 13);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Saves to `path` in the file dialog, under its own name. */
static void
save_with_chooser (GtkFileChooser *chooser, const char *folder_path, const char *path)
{
  g_autofree char *name = g_path_get_basename (path);

  gtk_file_chooser_set_current_name (chooser, name);
  test_accept_file_chooser (chooser, folder_path, path);
}

/* The other window, opened on the extracted model: its file loads in a thread, so
 * this waits up to 30 s of wall time (a count of non-blocking main-loop turns ran
 * out before the load was done on a loaded machine under ASan). */
static OnyxWindow *
find_other_window (OnyxWindow *window)
{
  for (int round = 0; round < 600; round++)
    {
      GListModel *toplevels = gtk_window_get_toplevels ();
      for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
        {
          g_autoptr (GObject) other = g_list_model_get_item (toplevels, i);
          if (ONYX_IS_WINDOW (other) && other != G_OBJECT (window) &&
              onyx_window_get_document (ONYX_WINDOW (other)) != NULL)
            return ONYX_WINDOW (other);
        }
      test_wait_ms (50);
    }
  return NULL;
}

static void
test_extract_model (void)
{
  g_autofree char *path = test_data_path ("model.onnx");
  g_autofree char *folder = g_dir_make_tmp ("onyx-extract-XXXXXX", NULL);
  g_autofree char *target = g_build_filename (folder, "conv.onnx", NULL);
  g_autofree char *suggested = NULL, *before = NULL, *after = NULL;
  OnyxWindow *window = open_model_window (path), *opened;
  Onnx__NodeProto *conv = first_node_of_op (window, "Conv");
  g_autoptr (OnyxModel) extracted = NULL;
  g_autoptr (GError) error = NULL;
  GtkFileChooser *chooser;
  Onnx__GraphProto *graph;

  before = op_types (window);
  onyx_view_state_select_node (test_state (window), conv);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.extract-model", NULL));
  chooser = find_toplevel (GTK_TYPE_FILE_CHOOSER);
  g_assert_nonnull (chooser);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (chooser)), ==, "Extract to New Model");
  suggested = gtk_file_chooser_get_current_name (chooser);
  g_assert_cmpstr (suggested, ==, "model-extract.onnx");
  wait_drawn (GTK_WIDGET (chooser));
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (chooser), "test-app-repair-extract.png"), >, 2000);
  save_with_chooser (chooser, folder, target);
  /* Cut and written in a thread: the window says so until it is done. */
  wait_for_jobs (window);

  /* The Conv alone: the model input in, its output out, its weights kept. */
  extracted = onyx_model_new_from_file (target, &error);
  g_assert_no_error (error);
  graph = onyx_model_get_proto (extracted)->graph;
  g_assert_cmpuint (graph->n_node, ==, 1);
  g_assert_cmpstr (graph->node[0]->op_type, ==, "Conv");
  g_assert_cmpuint (graph->n_input, ==, 1);
  g_assert_cmpstr (graph->input[0]->name, ==, conv->input[0]);
  g_assert_cmpuint (graph->n_output, ==, 1);
  g_assert_cmpstr (graph->output[0]->name, ==, conv->output[0]);
  g_assert_cmpuint (graph->n_initializer, ==, 2);

  /* It is opened in a window of its own; the model extracted from is left as it was. */
  opened = find_other_window (window);
  g_assert_nonnull (opened);
  g_assert_cmpuint (onyx_document_get_proto (onyx_window_get_document (opened))->graph->n_node, ==, 1);
  wait_for_layout (opened);
  gtk_window_destroy (GTK_WINDOW (opened));
  after = op_types (window);
  g_assert_cmpstr (after, ==, before);
  g_assert_false (onyx_document_is_modified (onyx_window_get_document (window)));

  g_unlink (target);
  g_rmdir (folder);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The layout's group box of name scope `scope`, or NULL. */
static const OnyxLayoutNode *
layout_group (OnyxWindow *window, const char *scope)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (test_canvas (window));

  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *n = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      if (n->kind == ONYX_LAYOUT_GROUP && g_strcmp0 (n->scope, scope) == 0)
        return n;
    }
  return NULL;
}

/* Inline Functions from the model panel's button, offered only for a model with local
 * functions: the modules' nodes join the main graph, grouped by call; one undo gives
 * back the file's bytes and the calls. */
static void
test_inline_functions (void)
{
  g_autofree char *plain = test_data_path ("model.onnx");
  g_autofree char *path = test_data_path ("function_modules.onnx");
  OnyxWindow *window = open_model_window (plain);
  g_autoptr (GBytes) before = NULL;
  g_autoptr (GBytes) undone = NULL;
  g_autofree char *calls = NULL;
  g_autofree char *inlined = NULL;
  g_autofree char *restored = NULL;
  GtkWidget *button;
  guint n_undo;

  /* No local functions: no button, and the action changes nothing. */
  g_assert_null (find_action_button (GTK_WIDGET (test_properties (window)), "edit.inline-functions", NULL));
  gtk_widget_activate_action (GTK_WIDGET (window), "edit.inline-functions", NULL);
  g_assert_cmpuint (onyx_document_get_n_undo (onyx_window_get_document (window)), ==, 0);
  /* Disabled, not failing: an enabled action would have shown the edit's error. */
  g_assert_null (find_message_dialog ());
  gtk_window_destroy (GTK_WINDOW (window));

  window = open_model_window (path);
  before = onyx_document_serialize (onyx_window_get_document (window));
  calls = op_types (window);
  g_assert_cmpstr (calls, ==, "Sequential,Sub,Head,If,Neg,Head");
  n_undo = onyx_document_get_n_undo (onyx_window_get_document (window));
  button = find_action_button (GTK_WIDGET (test_properties (window)), "edit.inline-functions", NULL);
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_is_sensitive (button));
  g_signal_emit_by_name (button, "clicked");

  inlined = op_types (window);
  g_assert_cmpstr (inlined, ==, "MatMul,Add,Relu,MatMul,Add,Relu,Sub,LeakyRelu,Clip,If,Neg,LeakyRelu,Clip");
  g_assert_cmpuint (onyx_document_get_proto (onyx_window_get_document (window))->n_functions, ==, 0);
  g_assert_cmpuint (onyx_document_get_n_undo (onyx_window_get_document (window)), ==, n_undo + 1);
  wait_for_layout (window);
  /* Each call is a name scope now: Sequential_0 holds its Linear and ReLU modules. */
  g_assert_nonnull (layout_group (window, "Sequential_0"));
  g_assert_nonnull (layout_group (window, "Head_2"));
  /* The panel has nothing left to inline. */
  g_assert_null (find_action_button (GTK_WIDGET (test_properties (window)), "edit.inline-functions", NULL));
  wait_drawn (GTK_WIDGET (window));
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "test-app-repair-inline.png"), >, 2000);

  /* Ctrl+Z's action: the calls and the functions are back, byte for byte. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.undo", NULL));
  restored = op_types (window);
  g_assert_cmpstr (restored, ==, calls);
  undone = onyx_document_serialize (onyx_window_get_document (window));
  g_assert_true (g_bytes_equal (before, undone));
  wait_for_layout (window);

  /* From a function's view: the function goes, the window shows the main graph. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "graph.open-graph", "s", "Linear"));
  g_assert_true (onyx_view_state_shows_function (test_state (window)));
  wait_for_layout (window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.inline-functions", NULL));
  g_assert_cmpuint (onyx_document_get_proto (onyx_window_get_document (window))->n_functions, ==, 0);
  g_assert_true (onyx_view_state_shows_main_graph (test_state (window)));
  wait_for_layout (window);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int argc, char *argv[])
{
  g_autofree char *home = test_private_xdg_folders ("app-repair");
  int status;

  g_test_init (&argc, &argv, NULL);
  /* Xvfb has no session bus, which GTK warns about; criticals stay fatal. */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  adw_init ();
  g_test_add_func ("/app-repair/replace-operator", test_replace_operator);
  g_test_add_func ("/app-repair/replace-error", test_replace_error);
  g_test_add_func ("/app-repair/insert-node-after", test_insert_node_after);
  g_test_add_func ("/app-repair/convert-opset", test_convert_opset);
  g_test_add_func ("/app-repair/extract-model", test_extract_model);
  g_test_add_func ("/app-repair/inline-functions", test_inline_functions);
  status = g_test_run ();
  test_private_xdg_folders_remove (home);
  return status;
}
