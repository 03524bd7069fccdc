/* onyx-pane-label.c: the wrapped labels of the side panes (see the header). */
#include "onyx-pane-label.h"

GtkWidget *
onyx_pane_label_new (const char *text, int min_chars, int max_chars)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_width_chars (GTK_LABEL (label), min_chars);
  gtk_label_set_max_width_chars (GTK_LABEL (label), max_chars);
  return label;
}

static gboolean
query_row_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip, GtkListItem *item)
{
  OnyxRowTextFunc text_of = g_object_get_data (G_OBJECT (widget), "onyx-row-text");
  gpointer row = gtk_list_item_get_item (item);
  const char *text = row != NULL ? text_of (row) : NULL;

  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

void
onyx_pane_row_tooltip (GtkWidget *widget, GtkListItem *item, OnyxRowTextFunc text_of)
{
  g_object_set_data (G_OBJECT (widget), "onyx-row-text", text_of);
  gtk_widget_set_has_tooltip (widget, TRUE);
  g_signal_connect (widget, "query-tooltip", G_CALLBACK (query_row_tooltip), item);
}
