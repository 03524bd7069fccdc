/* onyx-generate-dialog.c: Generate Tokens…'s question (onyx-generate-dialog.h). */
#include "onyx-generate-dialog.h"

struct _OnyxGenerateDialog {
  AdwMessageDialog parent_instance;

  GtkEditable *prompt;
  GtkSpinButton *count;
};

G_DEFINE_FINAL_TYPE (OnyxGenerateDialog, onyx_generate_dialog, ADW_TYPE_MESSAGE_DIALOG)

const char *
onyx_generate_dialog_get_prompt (OnyxGenerateDialog *self)
{
  return gtk_editable_get_text (self->prompt);
}

guint
onyx_generate_dialog_get_count (OnyxGenerateDialog *self)
{
  return (guint) gtk_spin_button_get_value_as_int (self->count);
}

static void
onyx_generate_dialog_class_init (OnyxGenerateDialogClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/onyxviewer/Onyx/onyx-generate-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, OnyxGenerateDialog, prompt);
  gtk_widget_class_bind_template_child (widget_class, OnyxGenerateDialog, count);
}

static void
onyx_generate_dialog_init (OnyxGenerateDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

OnyxGenerateDialog *
onyx_generate_dialog_new (GtkWindow *parent)
{
  return g_object_new (ONYX_TYPE_GENERATE_DIALOG, "transient-for", parent, "modal", TRUE, NULL);
}
