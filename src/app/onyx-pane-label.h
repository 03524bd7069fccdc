/* onyx-pane-label.h: the wrapped labels of the side panes (Compare, Run), and the
 * tooltips of their list rows. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* A left-aligned label whose text wraps anywhere in a word (tensor and node names
 * have no spaces), at least `min_chars` and at most `max_chars` characters wide.
 * GtkLabel measures a wrapped label at those two widths; without a minimum it lays
 * the text out with a line per character, each shaped on its own, every time the
 * pane is measured. */
GtkWidget *onyx_pane_label_new (const char *text,
                                int         min_chars,
                                int         max_chars);

/* The text of a list row's item (its whole message), or NULL. */
typedef const char *(*OnyxRowTextFunc) (gpointer item);

/* `widget` of a list row shows the text `text_of` gives of the row's item as its
 * tooltip, asked for when the pointer rests on it: setting a tooltip's text at each
 * bind asks the X server where the pointer is (a round trip a row bound). */
void onyx_pane_row_tooltip (GtkWidget       *widget,
                            GtkListItem     *item,
                            OnyxRowTextFunc  text_of);

G_END_DECLS
