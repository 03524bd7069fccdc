/* onyx-convert-dialog.c: Convert Opset… (onyx-convert-dialog.h). */
#include "onyx-convert-dialog.h"

#include <glib/gi18n.h>

#include "onyx-edits.h"
#include "onyx-schema.h"

struct _OnyxConvertDialog {
  AdwMessageDialog parent_instance;

  GtkSpinButton *target;
  OnyxViewState *state;
};

G_DEFINE_FINAL_TYPE (OnyxConvertDialog, onyx_convert_dialog, ADW_TYPE_MESSAGE_DIALOG)

static gpointer
prepare (OnyxJob *job, gpointer conversion, GError **error)
{
  return onyx_conversion_prepare (conversion, error) ? conversion : NULL;
}

/* Applied when it is done, to the document it was for. */
static void
converted (OnyxJob *job, gpointer result, const GError *error, gpointer owner)
{
  OnyxViewState *state = owner;

  if (result != NULL)
    onyx_conversion_apply (result);
  /* Another model may be shown by now: the conversion went to the one it was for. */
  if (onyx_view_state_get_document (state) == onyx_job_get_document (job))
    onyx_view_state_edit_done (state, result != NULL, error);
}

static void
response_cb (OnyxConvertDialog *self, const char *response)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  int target = gtk_spin_button_get_value_as_int (self->target);
  g_autofree char *label = NULL;
  g_autoptr (GError) error = NULL;
  OnyxJobSpec spec = { .document = document, .flags = ONYX_JOB_FREEZE, .owner = self->state, .work = prepare,
                       .data_free = (GDestroyNotify) onyx_conversion_free, .done = converted };

  if (!g_str_equal (response, "convert") || document == NULL)
    return;
  if ((spec.data = onyx_conversion_new (document, target, &error)) == NULL)
    {
      onyx_view_state_edit_done (self->state, FALSE, error);
      return;
    }
  label = g_strdup_printf (_("Converting to opset %d"), target);
  spec.label = label;
  onyx_jobs_start (onyx_view_state_get_jobs (self->state), &spec);
}

static void
onyx_convert_dialog_dispose (GObject *object)
{
  g_clear_object (&ONYX_CONVERT_DIALOG (object)->state);
  G_OBJECT_CLASS (onyx_convert_dialog_parent_class)->dispose (object);
}

static void
onyx_convert_dialog_class_init (OnyxConvertDialogClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = onyx_convert_dialog_dispose;
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/onyxviewer/Onyx/onyx-convert-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, OnyxConvertDialog, target);
}

static void
onyx_convert_dialog_init (OnyxConvertDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  g_signal_connect (self, "response", G_CALLBACK (response_cb), NULL);
}

static OnyxConvertDialog *
convert_dialog_new (OnyxViewState *state)
{
  OnyxConvertDialog *self = g_object_new (ONYX_TYPE_CONVERT_DIALOG, "transient-for",
                                          onyx_view_state_get_window (state), "modal", TRUE, NULL);
  Onnx__ModelProto *model = onyx_document_get_proto (onyx_view_state_get_document (state));
  gint64 current = onyx_opset_version (model->opset_import, model->n_opset_import, "");
  int newest = onyx_schema_domain_version ("");
  g_autofree char *body = current > 0
    ? g_strdup_printf (_("The model imports opset %d of ai.onnx. Nodes the conversion "
                         "changes are replaced; it is one undo step."), (int) current)
    : g_strdup (_("The model imports no ai.onnx opset."));

  self->state = g_object_ref (state);
  adw_message_dialog_set_body (ADW_MESSAGE_DIALOG (self), body);
  gtk_spin_button_set_range (self->target, 1, newest);
  gtk_spin_button_set_value (self->target, current > 0 ? (double) current : newest);
  return self;
}

static void
show_activated (GSimpleAction *action, GVariant *param, gpointer state)
{
  if (onyx_view_state_get_document (state) != NULL)
    gtk_window_present (GTK_WINDOW (convert_dialog_new (state)));
}

static void
editable_changed_cb (GSimpleActionGroup *group, GParamSpec *pspec, OnyxViewState *state)
{
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (group), "show")),
                               onyx_view_state_is_editable (state));
}

GActionGroup *
onyx_convert_dialog_actions_new (OnyxViewState *state)
{
  static const GActionEntry entries[] = {
    { .name = "show", .activate = show_activated },
  };
  GSimpleActionGroup *group = g_simple_action_group_new ();

  g_action_map_add_action_entries (G_ACTION_MAP (group), entries, G_N_ELEMENTS (entries), state);
  g_signal_connect_object (state, "notify::editable", G_CALLBACK (editable_changed_cb), group, G_CONNECT_SWAPPED);
  editable_changed_cb (group, NULL, state);
  return G_ACTION_GROUP (group);
}
