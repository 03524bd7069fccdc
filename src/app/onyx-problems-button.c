/* onyx-problems-button.c: the header bar's Problems button (onyx-problems-button.h). */
#include "onyx-problems-button.h"

#include <glib/gi18n.h>

struct _OnyxProblemsButton {
  GtkToggleButton parent_instance;

  GtkWidget *box;
  GtkImage *icon;
  GtkLabel *count;
  OnyxViewState *state;
};

G_DEFINE_FINAL_TYPE (OnyxProblemsButton, onyx_problems_button, GTK_TYPE_TOGGLE_BUTTON)

static void
update (OnyxProblemsButton *self)
{
  OnyxProblemList *list = onyx_view_state_get_problems (self->state);
  GPtrArray *problems = list != NULL ? onyx_problem_list_get (list) : NULL;
  guint errors = problems != NULL ? onyx_problems_count (problems, ONYX_PROBLEM_ERROR) : 0;
  guint warnings = problems != NULL ? onyx_problems_count (problems, ONYX_PROBLEM_WARNING) : 0;
  g_autofree char *count = g_strdup_printf ("%u", errors + warnings);
  g_autofree char *e = g_strdup_printf (ngettext ("%u error", "%u errors", errors), errors);
  g_autofree char *w = g_strdup_printf (ngettext ("%u warning", "%u warnings", warnings), warnings);
  /* Translators: the header bar's problems button: "Problems: 1 error, 2 warnings". */
  g_autofree char *tip = g_strdup_printf (_("Problems: %s, %s"), e, w);

  gtk_label_set_text (self->count, count);
  gtk_widget_remove_css_class (self->box, "error");
  gtk_widget_remove_css_class (self->box, "warning");
  if (errors + warnings > 0)
    gtk_widget_add_css_class (self->box, errors > 0 ? "error" : "warning");
  gtk_image_set_from_icon_name (self->icon, errors > 0 ? "dialog-error-symbolic"
                                : warnings > 0 ? "dialog-warning-symbolic" : "emblem-ok-symbolic");
  /* Set only when it changes: each setting asks the X server where the pointer is. */
  if (g_strcmp0 (gtk_widget_get_tooltip_text (GTK_WIDGET (self)), tip) != 0)
    gtk_widget_set_tooltip_text (GTK_WIDGET (self), tip);
}

void
onyx_problems_button_set_state (OnyxProblemsButton *self, OnyxViewState *state)
{
  g_return_if_fail (ONYX_IS_PROBLEMS_BUTTON (self) && self->state == NULL);
  self->state = g_object_ref (state);
  /* As the list does: the count of a model opened once it settled, then each step's. */
  g_signal_connect_object (state, "settled", G_CALLBACK (update), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "analysed", G_CALLBACK (update), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "notify::document", G_CALLBACK (update), self, G_CONNECT_SWAPPED);
  update (self);
}

static void
onyx_problems_button_dispose (GObject *object)
{
  g_clear_object (&ONYX_PROBLEMS_BUTTON (object)->state);
  gtk_widget_dispose_template (GTK_WIDGET (object), ONYX_TYPE_PROBLEMS_BUTTON);
  G_OBJECT_CLASS (onyx_problems_button_parent_class)->dispose (object);
}

static void
onyx_problems_button_class_init (OnyxProblemsButtonClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = onyx_problems_button_dispose;
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/onyxviewer/Onyx/onyx-problems-button.ui");
  gtk_widget_class_bind_template_child (widget_class, OnyxProblemsButton, icon);
  gtk_widget_class_bind_template_child (widget_class, OnyxProblemsButton, count);
}

static void
onyx_problems_button_init (OnyxProblemsButton *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  /* The button's own child, not a template child: a template child that is a
   * direct child is disposed with the template, before the button lets go of it. */
  self->box = gtk_button_get_child (GTK_BUTTON (self));
}
