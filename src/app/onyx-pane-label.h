/* onyx-pane-label.h: the wrapped labels of the side panes (Compare, Run). */
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

G_END_DECLS
