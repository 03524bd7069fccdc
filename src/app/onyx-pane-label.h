/* onyx-pane-label.h: the wrapped labels of the side panes (Compare, Run). */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* A left-aligned label whose text wraps anywhere in a word (tensor and node names
 * have no spaces) in a pane about `chars` characters wide. GtkLabel measures a
 * wrapped label at its width-chars and max-width-chars, both `chars` here: left
 * unset, it lays the text out with a line per character, each shaped on its own,
 * every time the pane is measured. */
GtkWidget *onyx_pane_label_new (const char *text,
                                int         chars);

G_END_DECLS
