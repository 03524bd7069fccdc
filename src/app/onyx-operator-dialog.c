/* onyx-operator-dialog.c */
#include "onyx-operator-dialog.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <string.h>

#include "onyx-attribute.h"
#include "onyx-validate.h"

struct _OnyxOperatorDialog {
  GtkWindow parent_instance;

  const Onnx__NodeProto *node;  /* being replaced, or NULL */
  GPtrArray *schemas;           /* const OnyxSchema*, the list's rows in order */
  GHashTable *fields;           /* attribute name → its GtkEntry in the form */
  const OnyxSchema *chosen;
  char *needle;                 /* the search, case-folded */

  GtkWidget *search;
  GtkWidget *list;
  GtkWidget *list_scroll;
  GtkWidget *heading;
  GtkWidget *doc;
  GtkWidget *form;              /* AdwPreferencesGroup of the attributes, or NULL */
  GtkWidget *form_box;
  GtkWidget *dropped;
};

enum { SIGNAL_APPLY, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (OnyxOperatorDialog, onyx_operator_dialog, GTK_TYPE_WINDOW)

/* "LeakyRelu" for ai.onnx, "ai.onnx.ml::Scaler" for the others. */
static char *
operator_title (const OnyxSchema *schema)
{
  if (onyx_domain_is_default (schema->domain))
    return g_strdup (schema->name);
  return g_strdup_printf ("%s::%s", schema->domain, schema->name);
}

static gboolean
matches (OnyxOperatorDialog *self, const OnyxSchema *schema)
{
  g_autofree char *title = NULL, *folded = NULL;

  if (self->needle == NULL || self->needle[0] == '\0')
    return TRUE;
  title = operator_title (schema);
  folded = g_utf8_casefold (title, -1);
  return strstr (folded, self->needle) != NULL;
}

static gboolean
filter_row (GtkListBoxRow *row, gpointer data)
{
  OnyxOperatorDialog *self = data;
  return matches (self, g_object_get_data (G_OBJECT (row), "schema"));
}

static void
search_changed_cb (GtkEditable *entry, OnyxOperatorDialog *self)
{
  g_free (self->needle);
  self->needle = g_utf8_casefold (gtk_editable_get_text (GTK_EDITABLE (entry)), -1);
  gtk_list_box_invalidate_filter (GTK_LIST_BOX (self->list));
}

static GtkWidget *
attribute_row (OnyxOperatorDialog *self, const OnyxSchemaAttribute *attribute)
{
  const char *type = onyx_attribute_type_name (attribute->type);
  g_autofree char *subtitle = NULL, *placeholder = onyx_schema_attribute_default_text (attribute);
  const Onnx__AttributeProto *current =
    self->node != NULL ? onyx_node_find_attribute (self->node, attribute->name, NULL) : NULL;
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *entry = gtk_entry_new ();

  subtitle = attribute->required ? g_strdup_printf (_("%s, required · %s"), type, attribute->doc)
                                 : g_strdup_printf ("%s · %s", type, attribute->doc);
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), attribute->name);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 2);
  gtk_widget_set_tooltip_text (row, attribute->doc);

  gtk_widget_set_valign (entry, GTK_ALIGN_CENTER);
  gtk_editable_set_width_chars (GTK_EDITABLE (entry), 14);
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  if (!onyx_attribute_type_is_text (attribute->type))
    {
      gtk_widget_set_sensitive (entry, FALSE);
      gtk_entry_set_placeholder_text (GTK_ENTRY (entry), _("not editable here"));
    }
  else
    gtk_entry_set_placeholder_text (GTK_ENTRY (entry), placeholder != NULL ? placeholder
                                    : attribute->required ? _("required") : _("unset"));
  if (current != NULL && onyx_attribute_type_is_text (attribute->type))
    {
      g_autofree char *text = onyx_attribute_to_string (current);
      gtk_editable_set_text (GTK_EDITABLE (entry), text);
      g_object_set_data_full (G_OBJECT (entry), "initial", g_steal_pointer (&text), g_free);
    }
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), entry);
  g_hash_table_insert (self->fields, (gpointer) attribute->name, entry);
  return row;
}

static void
show_dropped (OnyxOperatorDialog *self)
{
  g_auto (GStrv) dropped = onyx_operator_dialog_get_dropped (self);
  g_autofree char *names = g_strjoinv (", ", dropped);
  g_autofree char *text = g_strdup_printf (_("Dropped attributes: %s"), names);

  gtk_label_set_text (GTK_LABEL (self->dropped), text);
  gtk_widget_set_visible (self->dropped, dropped[0] != NULL);
}

static void
show_form (OnyxOperatorDialog *self, const OnyxSchema *schema)
{
  g_autofree char *title = operator_title (schema);

  self->chosen = schema;
  g_hash_table_remove_all (self->fields);
  if (self->form != NULL)
    gtk_box_remove (GTK_BOX (self->form_box), self->form);
  self->form = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (self->form), _("Attributes"));
  if (schema->n_attributes == 0)
    adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (self->form),
                                           _("This operator has no attributes."));
  for (guint i = 0; i < schema->n_attributes; i++)
    adw_preferences_group_add (ADW_PREFERENCES_GROUP (self->form),
                               attribute_row (self, &schema->attributes[i]));
  gtk_box_insert_child_after (GTK_BOX (self->form_box), self->form, self->doc);
  gtk_label_set_text (GTK_LABEL (self->heading), title);
  gtk_label_set_text (GTK_LABEL (self->doc), schema->doc);
  show_dropped (self);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "operator.apply", TRUE);
}

static void
row_selected_cb (GtkListBox *list, GtkListBoxRow *row, OnyxOperatorDialog *self)
{
  if (row != NULL)
    show_form (self, g_object_get_data (G_OBJECT (row), "schema"));
}

static void
add_operator_rows (OnyxOperatorDialog *self, const Onnx__ModelProto *model)
{
  for (size_t i = 0; i < model->n_opset_import; i++)
    {
      Onnx__OperatorSetIdProto *opset = model->opset_import[i];
      g_autoptr (GPtrArray) ops = onyx_schema_list_ops (opset->domain, opset->version);
      g_ptr_array_extend (self->schemas, ops, NULL, NULL);
    }
  for (guint i = 0; i < self->schemas->len; i++)
    {
      const OnyxSchema *schema = self->schemas->pdata[i];
      g_autofree char *title = operator_title (schema);
      GtkWidget *row = adw_action_row_new ();

      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), schema->doc);
      adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 1);
      gtk_widget_set_tooltip_text (row, schema->doc);
      g_object_set_data (G_OBJECT (row), "schema", (gpointer) schema);
      gtk_list_box_append (GTK_LIST_BOX (self->list), row);
    }
}

/* The row chosen is scrolled to once the rows have their places, at the next frame
 * (GTK 4.8's GtkListBox cannot scroll to a row by itself). */
static gboolean
scroll_to_chosen (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  OnyxOperatorDialog *self = ONYX_OPERATOR_DIALOG (widget);
  GtkListBoxRow *row = gtk_list_box_get_selected_row (GTK_LIST_BOX (self->list));
  GtkAdjustment *adjustment =
    gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (self->list_scroll));
  graphene_rect_t bounds;

  if (row != NULL && gtk_widget_compute_bounds (GTK_WIDGET (row), self->list, &bounds))
    gtk_adjustment_clamp_page (adjustment, bounds.origin.y, bounds.origin.y + bounds.size.height);
  return G_SOURCE_REMOVE;
}

static void
apply_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxOperatorDialog *self = ONYX_OPERATOR_DIALOG (widget);

  if (self->chosen != NULL)
    g_signal_emit (self, signals[SIGNAL_APPLY], 0);
}

static GtkWidget *
build_list_side (OnyxOperatorDialog *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *scrolled = gtk_scrolled_window_new ();

  self->search = gtk_search_entry_new ();
  g_object_set (self->search, "placeholder-text", _("Search operators"), NULL);
  /* 160 rows filter at once: no need to wait for the search entry's pause. */
  g_signal_connect (self->search, "changed", G_CALLBACK (search_changed_cb), self);
  gtk_box_append (GTK_BOX (box), self->search);

  self->list = gtk_list_box_new ();
  gtk_widget_add_css_class (self->list, "navigation-sidebar");
  gtk_list_box_set_filter_func (GTK_LIST_BOX (self->list), filter_row, self, NULL);
  g_signal_connect (self->list, "row-selected", G_CALLBACK (row_selected_cb), self);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), self->list);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_widget_set_vexpand (scrolled, TRUE);
  self->list_scroll = scrolled;
  gtk_box_append (GTK_BOX (box), scrolled);
  gtk_widget_set_size_request (box, 300, -1);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_top (box, 12);
  gtk_widget_set_margin_bottom (box, 12);
  return box;
}

static GtkWidget *
build_form_side (OnyxOperatorDialog *self)
{
  GtkWidget *scrolled = gtk_scrolled_window_new ();

  self->form_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  g_object_set (self->form_box, "margin-start", 18, "margin-end", 18, "margin-top", 18,
                "margin-bottom", 18, NULL);
  self->heading = gtk_label_new (_("Choose an operator"));
  gtk_widget_add_css_class (self->heading, "title-2");
  gtk_label_set_xalign (GTK_LABEL (self->heading), 0);
  self->doc = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (self->doc), TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->doc), 0);
  gtk_widget_add_css_class (self->doc, "dim-label");
  self->dropped = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (self->dropped), TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->dropped), 0);
  gtk_widget_add_css_class (self->dropped, "warning");
  gtk_widget_set_visible (self->dropped, FALSE);
  gtk_box_append (GTK_BOX (self->form_box), self->heading);
  gtk_box_append (GTK_BOX (self->form_box), self->doc);
  gtk_box_append (GTK_BOX (self->form_box), self->dropped);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), self->form_box);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_widget_set_hexpand (scrolled, TRUE);
  return scrolled;
}

OnyxOperatorDialog *
onyx_operator_dialog_new (GtkWindow *parent, const char *title, const char *apply_label,
                          const Onnx__ModelProto *model, const Onnx__NodeProto *node)
{
  OnyxOperatorDialog *self = g_object_new (ONYX_TYPE_OPERATOR_DIALOG, "title", title,
                                           "transient-for", parent, "modal", TRUE,
                                           "destroy-with-parent", TRUE, NULL);
  GtkWidget *header = gtk_header_bar_new ();
  GtkWidget *cancel = gtk_button_new_with_mnemonic (_("_Cancel"));
  GtkWidget *apply = gtk_button_new_with_mnemonic (apply_label);
  GtkWidget *content = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);

  self->node = node;
  gtk_header_bar_set_show_title_buttons (GTK_HEADER_BAR (header), FALSE);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (cancel), "window.close");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (apply), "operator.apply");
  gtk_widget_add_css_class (apply, "suggested-action");
  gtk_header_bar_pack_start (GTK_HEADER_BAR (header), cancel);
  gtk_header_bar_pack_end (GTK_HEADER_BAR (header), apply);
  gtk_window_set_titlebar (GTK_WINDOW (self), header);
  gtk_window_set_default_widget (GTK_WINDOW (self), apply);

  gtk_box_append (GTK_BOX (content), build_list_side (self));
  gtk_box_append (GTK_BOX (content), gtk_separator_new (GTK_ORIENTATION_VERTICAL));
  gtk_box_append (GTK_BOX (content), build_form_side (self));
  gtk_window_set_child (GTK_WINDOW (self), content);
  gtk_window_set_default_size (GTK_WINDOW (self), 860, 560);
  add_operator_rows (self, model);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "operator.apply", FALSE);
  gtk_widget_grab_focus (self->search);
  return self;
}

GtkEditable *
onyx_operator_dialog_get_search (OnyxOperatorDialog *self)
{
  return GTK_EDITABLE (self->search);
}

guint
onyx_operator_dialog_get_n_shown (OnyxOperatorDialog *self)
{
  guint n = 0;

  for (guint i = 0; i < self->schemas->len; i++)
    n += matches (self, self->schemas->pdata[i]);
  return n;
}

gboolean
onyx_operator_dialog_choose (OnyxOperatorDialog *self, const char *domain, const char *op_type)
{
  for (guint i = 0; i < self->schemas->len; i++)
    {
      const OnyxSchema *schema = self->schemas->pdata[i];
      if (onyx_domain_is_default (schema->domain) == onyx_domain_is_default (domain) &&
          (onyx_domain_is_default (domain) || g_strcmp0 (schema->domain, domain) == 0) &&
          g_str_equal (schema->name, op_type))
        {
          gtk_list_box_select_row (GTK_LIST_BOX (self->list),
                                   gtk_list_box_get_row_at_index (GTK_LIST_BOX (self->list), i));
          gtk_widget_add_tick_callback (GTK_WIDGET (self), scroll_to_chosen, NULL, NULL);
          return TRUE;
        }
    }
  return FALSE;
}

const OnyxSchema *
onyx_operator_dialog_get_schema (OnyxOperatorDialog *self)
{
  return self->chosen;
}

GtkEditable *
onyx_operator_dialog_get_field (OnyxOperatorDialog *self, const char *name)
{
  return g_hash_table_lookup (self->fields, name);
}

char **
onyx_operator_dialog_get_values (OnyxOperatorDialog *self)
{
  GStrvBuilder *values = g_strv_builder_new ();
  char **result;

  for (guint i = 0; self->chosen != NULL && i < self->chosen->n_attributes; i++)
    {
      const char *name = self->chosen->attributes[i].name;
      GtkWidget *entry = g_hash_table_lookup (self->fields, name);
      const char *text = gtk_editable_get_text (GTK_EDITABLE (entry));
      const char *initial = g_object_get_data (G_OBJECT (entry), "initial");

      /* What the node already has stays without a step of its own. */
      if (text[0] == '\0' || g_strcmp0 (text, initial) == 0)
        continue;
      g_strv_builder_add (values, name);
      g_strv_builder_add (values, text);
    }
  result = g_strv_builder_end (values);
  g_strv_builder_unref (values);
  return result;
}

char **
onyx_operator_dialog_get_dropped (OnyxOperatorDialog *self)
{
  GStrvBuilder *dropped = g_strv_builder_new ();
  char **result;

  for (size_t i = 0; self->node != NULL && self->chosen != NULL && i < self->node->n_attribute; i++)
    if (onyx_schema_find_attribute (self->chosen, self->node->attribute[i]->name) == NULL)
      g_strv_builder_add (dropped, self->node->attribute[i]->name);
  result = g_strv_builder_end (dropped);
  g_strv_builder_unref (dropped);
  return result;
}

static void
onyx_operator_dialog_finalize (GObject *object)
{
  OnyxOperatorDialog *self = ONYX_OPERATOR_DIALOG (object);

  g_ptr_array_unref (self->schemas);
  g_hash_table_unref (self->fields);
  g_free (self->needle);
  G_OBJECT_CLASS (onyx_operator_dialog_parent_class)->finalize (object);
}

static void
onyx_operator_dialog_class_init (OnyxOperatorDialogClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = onyx_operator_dialog_finalize;
  signals[SIGNAL_APPLY] = g_signal_new ("apply", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                        0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  gtk_widget_class_install_action (widget_class, "operator.apply", NULL, apply_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
onyx_operator_dialog_init (OnyxOperatorDialog *self)
{
  self->schemas = g_ptr_array_new ();
  self->fields = g_hash_table_new (g_str_hash, g_str_equal);
}
