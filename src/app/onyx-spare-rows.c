/* onyx-spare-rows.c: plain property rows of pages built and not shown, used again
 * (onyx-spare-rows.h). */
#include "onyx-spare-rows.h"

#include "onyx-row-layout.h"

/* A new AdwActionRow is made from its template, about 0.3 ms, and a page has dozens;
 * more than this are let go. The UI thread's only. */
#define MAX_SPARE_ROWS 256

static GPtrArray *spare_rows;
static guint n_holders;

void
onyx_spare_rows_hold (void)
{
  n_holders++;
}

void
onyx_spare_rows_release (void)
{
  g_return_if_fail (n_holders > 0);
  if (--n_holders > 0 || spare_rows == NULL)
    return;
  for (guint i = 0; i < spare_rows->len; i++)
    g_object_unref (g_object_ref_sink (spare_rows->pdata[i]));
  g_clear_pointer (&spare_rows, g_ptr_array_unref);
}

/* A row's style classes as one string. */
static char *
style_of (GtkWidget *row)
{
  g_auto (GStrv) classes = gtk_widget_get_css_classes (row);

  return g_strjoinv (" ", classes);
}

void
onyx_spare_rows_mark (GtkWidget *row)
{
  g_object_set_data_full (G_OBJECT (row), "onyx-plain-row", style_of (row), g_free);
}

GtkWidget *
onyx_spare_rows_take (void)
{
  /* Floating, as a new widget is. */
  return spare_rows != NULL && spare_rows->len > 0 ? g_ptr_array_steal_index (spare_rows, spare_rows->len - 1) : NULL;
}

/* A row marked plain that nothing was added to since: no prefix, suffix, action,
 * tooltip or style of its own. */
static gboolean
is_plain_row (GtkWidget *row)
{
  const char *style = g_object_get_data (G_OBJECT (row), "onyx-plain-row");
  g_autofree char *style_now = NULL;
  GtkWidget *title_box, *header;

  if (!ADW_IS_ACTION_ROW (row) || style == NULL ||
      gtk_list_box_row_get_activatable (GTK_LIST_BOX_ROW (row)) ||
      gtk_actionable_get_action_name (GTK_ACTIONABLE (row)) != NULL || gtk_widget_get_has_tooltip (row) ||
      adw_action_row_get_activatable_widget (ADW_ACTION_ROW (row)) != NULL)
    return FALSE;
  /* (A default attribute's row is dimmed.) */
  if (!g_str_equal ((style_now = style_of (row)), style))
    return FALSE;
  /* Prefixes and suffixes are boxes beside the title's in the row's header. */
  if ((title_box = onyx_row_layout_title_box (row)) == NULL || (header = gtk_widget_get_parent (title_box)) == NULL)
    return FALSE;
  for (GtkWidget *w = gtk_widget_get_first_child (header); w != NULL; w = gtk_widget_get_next_sibling (w))
    if (w != title_box && GTK_IS_BOX (w) && gtk_widget_get_first_child (w) != NULL)
      return FALSE;
  return TRUE;
}

static gboolean
is_list_box (GtkWidget *widget)
{
  return GTK_IS_LIST_BOX (widget);
}

guint
onyx_spare_rows_count (void)
{
  return spare_rows != NULL ? spare_rows->len : 0;
}

GtkWidget *
onyx_spare_rows_peek (void)
{
  return onyx_spare_rows_count () > 0 ? spare_rows->pdata[spare_rows->len - 1] : NULL;
}

void
onyx_spare_rows_keep (GtkWidget *page)
{
  g_autoptr (GPtrArray) rows = g_ptr_array_new ();

  if (spare_rows == NULL)
    spare_rows = g_ptr_array_new ();
  for (GtkWidget *group = gtk_widget_get_first_child (page); group != NULL; group = gtk_widget_get_next_sibling (group))
    {
      GtkWidget *list = ADW_IS_PREFERENCES_GROUP (group) ? onyx_widget_find_descendant (group, is_list_box) : NULL;  /* its rows' */
      g_ptr_array_set_size (rows, 0);
      for (GtkWidget *row = list != NULL ? gtk_widget_get_first_child (list) : NULL; row != NULL;
           row = gtk_widget_get_next_sibling (row))
        if (spare_rows->len + rows->len < MAX_SPARE_ROWS && is_plain_row (row))
          g_ptr_array_add (rows, row);
      for (guint i = 0; i < rows->len; i++)
        {
          GtkWidget *row = rows->pdata[i];
          g_object_ref (row);
          adw_preferences_group_remove (ADW_PREFERENCES_GROUP (group), row);
          /* Held as a new row is: floating. */
          g_object_force_floating (G_OBJECT (row));
          g_ptr_array_add (spare_rows, row);
        }
    }
}

