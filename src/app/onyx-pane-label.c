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
