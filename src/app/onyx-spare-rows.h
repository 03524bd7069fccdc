/* onyx-spare-rows.h: the properties panel's read-only rows (AdwActionRow, a title and
 * a subtitle, nothing else) of pages built only to give their values to the page
 * shown, kept to be used again rather than made anew from libadwaita's template. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* Users of the spare rows: with the last one released, they go. */
void       onyx_spare_rows_hold    (void);
void       onyx_spare_rows_release (void);
/* `row` was made plain: it may be used again once nothing was added to it. */
void       onyx_spare_rows_mark    (GtkWidget *row);
/* The plain rows of `page` (a box of AdwPreferencesGroups), taken out of it and kept. */
void       onyx_spare_rows_keep    (GtkWidget *page);
/* A kept row, floating as a new one is (its title and subtitle to be set), or NULL. */
GtkWidget *onyx_spare_rows_take    (void);
/* How many are kept, and the one take gives next (NULL: none). */
guint      onyx_spare_rows_count   (void);
GtkWidget *onyx_spare_rows_peek    (void);

G_END_DECLS
