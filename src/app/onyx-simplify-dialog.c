/* onyx-simplify-dialog.c: Simplify's report (onyx-simplify-dialog.h). */
#include "onyx-simplify-dialog.h"

#include <glib/gi18n.h>

#include "onyx-text.h"

struct _OnyxSimplifyDialog {
  AdwWindow parent_instance;

  GtkButton *show_changes;
  AdwActionRow *nodes;
  AdwActionRow *initializers;
  AdwActionRow *verdict;
  GtkImage *verdict_icon;
  AdwPreferencesGroup *summary;
  AdwPreferencesGroup *passes;
  AdwPreferencesGroup *operators;

  OnyxViewState *state;
  OnyxModel *before;
};

G_DEFINE_FINAL_TYPE (OnyxSimplifyDialog, onyx_simplify_dialog, ADW_TYPE_WINDOW)

/* "12,759 → 8,352 (−4,407)" */
static char *
before_after (guint before, guint after)
{
  g_autofree char *from = onyx_format_count_grouped (before, ONYX_COUNT_LOCALIZED);
  g_autofree char *to = onyx_format_count_grouped (after, ONYX_COUNT_LOCALIZED);
  g_autofree char *by = onyx_format_count_grouped (before > after ? before - after : after - before,
                                                   ONYX_COUNT_LOCALIZED);

  if (before == after)
    return g_strdup (from);
  /* Translators: a count before and after Simplify, and by how much it went down
   * (−) or up (+) */
  return g_strdup_printf (_("%s → %s (%s%s)"), from, to, before > after ? "−" : "+", by);
}

static const char *
verdict_title (OnyxSimplifyVerdict verdict)
{
  switch (verdict)
    {
    case ONYX_SIMPLIFY_PROVEN: return _("Outputs proven equal");
    case ONYX_SIMPLIFY_UNCHANGED: return _("Nothing to simplify");
    case ONYX_SIMPLIFY_DIFFERS: return _("Outputs differ");
    case ONYX_SIMPLIFY_NOT_PROVEN: default: return _("Outputs not compared");
    }
}

static void
fill_summary (OnyxSimplifyDialog *self, const OnyxSimplifyReport *report)
{
  g_autofree char *nodes = before_after (report->n_nodes_before, report->n_nodes_after);
  g_autofree char *initializers = before_after (report->n_initializers_before, report->n_initializers_after);
  g_autofree char *took = onyx_format_duration (report->seconds);
  g_autofree char *description = NULL;
  const char *icon = report->verdict == ONYX_SIMPLIFY_PROVEN     ? "emblem-ok-symbolic"
                     : report->verdict == ONYX_SIMPLIFY_DIFFERS ? "dialog-warning-symbolic"
                                                                : "dialog-information-symbolic";

  adw_action_row_set_subtitle (self->nodes, nodes);
  adw_action_row_set_subtitle (self->initializers, initializers);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->verdict), verdict_title (report->verdict));
  adw_action_row_set_subtitle (self->verdict, report->proof_note != NULL ? report->proof_note : "");
  gtk_image_set_from_icon_name (self->verdict_icon, icon);
  if (report->verdict == ONYX_SIMPLIFY_DIFFERS)
    gtk_widget_add_css_class (GTK_WIDGET (self->verdict_icon), "warning");
  else if (report->verdict == ONYX_SIMPLIFY_PROVEN)
    gtk_widget_add_css_class (GTK_WIDGET (self->verdict_icon), "success");
  description = g_strdup_printf (ngettext ("Done in %s, in %u round.", "Done in %s, in %u rounds.", report->n_rounds),
                                 took, report->n_rounds);
  for (guint i = 0; i < report->notes->len; i++)
    {
      char *longer = g_strdup_printf ("%s\n%s", description, (const char *) report->notes->pdata[i]);
      g_free (description);
      description = longer;
    }
  adw_preferences_group_set_description (self->summary, description);
}

static void
fill_passes (OnyxSimplifyDialog *self, const OnyxSimplifyReport *report)
{
  for (guint i = 0; i < report->passes->len; i++)
    {
      const OnyxSimplifyPassReport *pass = &g_array_index (report->passes, OnyxSimplifyPassReport, i);
      GtkWidget *row = adw_action_row_new ();
      g_autofree char *counts = onyx_simplify_pass_describe (pass);
      g_autofree char *took = onyx_format_duration (pass->seconds);
      g_autofree char *subtitle = pass->refused != NULL
                                    /* Translators: a pass of Simplify that was undone, and why */
                                    ? g_strdup_printf (_("Refused: %s"), pass->refused)
                                    : g_strdup_printf ("%s · %s", counts, took);
      gboolean changed = pass->n_nodes_removed + pass->n_nodes_added + pass->n_initializers_removed +
                         pass->n_initializers_added > 0;

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), pass->title);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
      if (pass->refused != NULL)
        gtk_widget_add_css_class (row, "warning");
      /* Clean Up follows the others: undone with them. */
      if (changed && pass->refused == NULL && g_strcmp0 (pass->name, "cleanup") != 0)
        {
          GtkWidget *button = gtk_button_new_with_label (_("Undo"));
          g_autofree char *tooltip = g_strdup_printf (_("Simplify again without “%s”"), pass->title);
          gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
          gtk_widget_set_tooltip_text (button, tooltip);
          gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "simplify.without");
          gtk_actionable_set_action_target_value (GTK_ACTIONABLE (button), g_variant_new_string (pass->name));
          /* Simplify runs again and shows its own report. */
          g_signal_connect_object (button, "clicked", G_CALLBACK (gtk_window_close), self, G_CONNECT_SWAPPED | G_CONNECT_AFTER);
          adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
        }
      adw_preferences_group_add (self->passes, row);
    }
}

static GtkWidget *
operator_row (const OnyxSimplifyOpCount *count)
{
  GtkWidget *row = adw_action_row_new ();
  g_autofree char *op = onyx_display_escape (count->op);
  g_autofree char *counts = before_after (count->before, count->after);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), op);
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), counts);
  gtk_widget_add_css_class (row, "property");
  return row;
}

/* The operators whose count changed, most nodes before first (as onnxslim's table);
 * the rest under one row that opens. */
static void
fill_operators (OnyxSimplifyDialog *self, const OnyxSimplifyReport *report)
{
  GtkWidget *unchanged = adw_expander_row_new ();
  guint n_unchanged = 0;

  for (guint i = 0; i < report->op_counts->len; i++)
    {
      const OnyxSimplifyOpCount *count = &g_array_index (report->op_counts, OnyxSimplifyOpCount, i);
      if (count->before != count->after)
        adw_preferences_group_add (self->operators, operator_row (count));
      else
        {
          adw_expander_row_add_row (ADW_EXPANDER_ROW (unchanged), operator_row (count));
          n_unchanged++;
        }
    }
  if (n_unchanged > 0)
    {
      g_autofree char *title = g_strdup_printf (ngettext ("%u operator unchanged", "%u operators unchanged",
                                                          n_unchanged), n_unchanged);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (unchanged), title);
      adw_preferences_group_add (self->operators, unchanged);
    }
}

static void
show_changes_cb (OnyxSimplifyDialog *self)
{
  g_autofree char *name = g_strdup_printf (_("%s before Simplify"), onyx_model_get_display_name (self->before));

  onyx_view_state_compare_with (self->state, self->before, name);
  gtk_window_close (GTK_WINDOW (self));
}

static void
onyx_simplify_dialog_dispose (GObject *object)
{
  OnyxSimplifyDialog *self = ONYX_SIMPLIFY_DIALOG (object);

  g_clear_object (&self->state);
  g_clear_object (&self->before);
  G_OBJECT_CLASS (onyx_simplify_dialog_parent_class)->dispose (object);
}

static void
onyx_simplify_dialog_class_init (OnyxSimplifyDialogClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = onyx_simplify_dialog_dispose;
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/onyxviewer/Onyx/onyx-simplify-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, OnyxSimplifyDialog, show_changes);
  gtk_widget_class_bind_template_child (widget_class, OnyxSimplifyDialog, nodes);
  gtk_widget_class_bind_template_child (widget_class, OnyxSimplifyDialog, initializers);
  gtk_widget_class_bind_template_child (widget_class, OnyxSimplifyDialog, verdict);
  gtk_widget_class_bind_template_child (widget_class, OnyxSimplifyDialog, verdict_icon);
  gtk_widget_class_bind_template_child (widget_class, OnyxSimplifyDialog, summary);
  gtk_widget_class_bind_template_child (widget_class, OnyxSimplifyDialog, passes);
  gtk_widget_class_bind_template_child (widget_class, OnyxSimplifyDialog, operators);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
onyx_simplify_dialog_init (OnyxSimplifyDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  g_signal_connect_swapped (self->show_changes, "clicked", G_CALLBACK (show_changes_cb), self);
}

OnyxSimplifyDialog *
onyx_simplify_dialog_new (OnyxViewState *state, GActionGroup *actions, const OnyxSimplifyReport *report,
                          OnyxModel *before)
{
  OnyxSimplifyDialog *self = g_object_new (ONYX_TYPE_SIMPLIFY_DIALOG, "transient-for",
                                           onyx_view_state_get_window (state), NULL);

  self->state = g_object_ref (state);
  self->before = g_object_ref (before);
  /* The pass rows' buttons reach the simplifier from this window too. */
  gtk_widget_insert_action_group (GTK_WIDGET (self), "simplify", actions);
  fill_summary (self, report);
  fill_passes (self, report);
  fill_operators (self, report);
  return self;
}
