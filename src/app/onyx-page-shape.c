/* onyx-page-shape.c: a properties page's make-up, compared with another page's, so
 * that a page built the same as the one shown but for its rows' subtitles is not shown
 * (a new AdwActionRow's wrapped labels are laid out a dozen times and more). A new
 * kind of widget whose content is not a row's subtitle must add its content here, or
 * pages with other content would pass for the same. */
#include "onyx-page-shape.h"

/* "[what|target]", for an entry's text or an actionable's action name. */
static void
append_with_target (GString *shape, const char *what, GVariant *target)
{
  g_autofree char *printed = target != NULL ? g_variant_print (target, TRUE) : NULL;

  g_string_append_printf (shape, "[%s|%s]", what, printed);
}

/* What a widget is made of but for its rows' subtitles, written to `shape`; its
 * AdwActionRows, in order, to `rows`. */
static void
widget_shape (GtkWidget *widget, GString *shape, GPtrArray *rows, gboolean in_row)
{
  g_string_append_printf (shape, "%s%s", G_OBJECT_TYPE_NAME (widget), gtk_widget_get_visible (widget) ? "" : "-");
  if (ADW_IS_PREFERENCES_GROUP (widget))
    g_string_append_printf (shape, "[%s]", adw_preferences_group_get_title (ADW_PREFERENCES_GROUP (widget)));
  if (ADW_IS_PREFERENCES_ROW (widget))
    g_string_append_printf (shape, "[%s]", adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)));
  if (ADW_IS_EXPANDER_ROW (widget))
    g_string_append_printf (shape, "[%s|%d]", adw_expander_row_get_subtitle (ADW_EXPANDER_ROW (widget)),
                            adw_expander_row_get_expanded (ADW_EXPANDER_ROW (widget)));
  if (ADW_IS_ACTION_ROW (widget))
    {
      g_ptr_array_add (rows, widget);
      in_row = TRUE;
    }
  if (GTK_IS_EDITABLE (widget) && !GTK_IS_TEXT (widget))
    append_with_target (shape, gtk_editable_get_text (GTK_EDITABLE (widget)),
                        g_object_get_data (G_OBJECT (widget), "target"));
  if (GTK_IS_ACTIONABLE (widget))
    append_with_target (shape, gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)),
                        gtk_actionable_get_action_target_value (GTK_ACTIONABLE (widget)));
  if (GTK_IS_LINK_BUTTON (widget))
    g_string_append_printf (shape, "[%s]", gtk_link_button_get_uri (GTK_LINK_BUTTON (widget)));
  if (GTK_IS_BUTTON (widget))
    g_string_append_printf (shape, "[%s]", gtk_button_get_label (GTK_BUTTON (widget)));
  if (GTK_IS_IMAGE (widget))
    g_string_append_printf (shape, "[%s]", gtk_image_get_icon_name (GTK_IMAGE (widget)));
  if (GTK_IS_LABEL (widget) && !in_row)
    g_string_append_printf (shape, "[%s]", gtk_label_get_label (GTK_LABEL (widget)));
  g_string_append_c (shape, '(');
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    widget_shape (child, shape, rows, in_row);
  g_string_append_c (shape, ')');
}

struct _OnyxPageShape {
  GString *text;
  GPtrArray *rows;    /* AdwActionRow*, borrowed */
};

/* A page's shape: its children's (the pages themselves differ in being shown or not). */
OnyxPageShape *
onyx_page_shape_new (GtkWidget *page)
{
  OnyxPageShape *shape = g_new (OnyxPageShape, 1);

  shape->text = g_string_new (NULL);
  shape->rows = g_ptr_array_new ();
  for (GtkWidget *child = gtk_widget_get_first_child (page); child != NULL; child = gtk_widget_get_next_sibling (child))
    widget_shape (child, shape->text, shape->rows, FALSE);
  return shape;
}

void
onyx_page_shape_free (OnyxPageShape *shape)
{
  g_string_free (shape->text, TRUE);
  g_ptr_array_unref (shape->rows);
  g_free (shape);
}

gboolean
onyx_page_shape_take_values (const OnyxPageShape *built, GtkWidget *shown)
{
  g_autoptr (OnyxPageShape) shape = onyx_page_shape_new (shown);

  if (!g_str_equal (shape->text->str, built->text->str) || shape->rows->len != built->rows->len)
    return FALSE;
  for (guint i = 0; i < shape->rows->len; i++)
    {
      const char *value = adw_action_row_get_subtitle (built->rows->pdata[i]);
      if (g_strcmp0 (adw_action_row_get_subtitle (shape->rows->pdata[i]), value) != 0)
        adw_action_row_set_subtitle (shape->rows->pdata[i], value);
    }
  return TRUE;
}

