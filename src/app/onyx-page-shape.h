/* onyx-page-shape.h: whether a properties page is built the same as another. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

typedef struct _OnyxPageShape OnyxPageShape;

/* What the page's children are made of but for their AdwActionRows' subtitles. */
OnyxPageShape *onyx_page_shape_new          (GtkWidget *page);
void           onyx_page_shape_free         (OnyxPageShape *shape);
/* When `shown` is built as the page of `built` was, it takes that page's subtitles
 * (only the ones that differ are set) and TRUE is returned. */
gboolean       onyx_page_shape_take_values  (const OnyxPageShape *built,
                                             GtkWidget           *shown);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxPageShape, onyx_page_shape_free)

G_END_DECLS
