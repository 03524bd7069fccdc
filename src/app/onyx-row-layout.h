/* onyx-row-layout.h: a cheaper layout for the title and subtitle of AdwActionRow.
 *
 * A row's title box (its title and subtitle labels, wrapping) is a GtkBox: asked how
 * wide it would be, it asks its labels, and a wrapping label answers by laying its
 * text out at a dozen widths and more, each time the panel is laid out. Fifty
 * property rows so cost 30–50 ms when a page is new. Here the title box asks for no
 * width of its own (the row gives it what its suffixes leave) and stacks its labels
 * at the width it gets: a label is laid out once per width. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* Gives the title box of `row` (an AdwActionRow) the cheaper layout; nothing when its
 * labels are not where libadwaita 1.2 puts them. */
void       onyx_row_layout_stack_labels (GtkWidget *row);
/* The first of `widget` and its descendants, depth first, that `matches`, or NULL. */
GtkWidget *onyx_widget_find_descendant  (GtkWidget *widget,
                                         gboolean (*matches) (GtkWidget *widget));
/* The box of `row`'s title and subtitle labels, or NULL. */
GtkWidget *onyx_row_layout_title_box    (GtkWidget *row);

G_END_DECLS
