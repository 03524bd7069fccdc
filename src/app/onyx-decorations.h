/* onyx-decorations.h: what is drawn on the canvas' boxes beside the graph itself —
 * tints, badges, notes, one per layout node — as the view state keeps them (copies of
 * what the parts that make them hand over), until the layout they are of changes. */
#pragma once

#include <gdk/gdk.h>

G_BEGIN_DECLS

/* Decorations of the canvas' boxes, one colour per layout node, by who made them:
 * the highest layer that has any is drawn. */
typedef enum {
  ONYX_TINT_COMPARE,
  ONYX_TINT_RUN,
  ONYX_TINT_PROFILE,
  ONYX_N_TINT_LAYERS,
} OnyxTintLayer;

typedef struct {
  GArray *tints[ONYX_N_TINT_LAYERS];  /* GdkRGBA per layout node, or NULL */
  GArray *badges;                     /* guint8 per layout node, or NULL */
  GPtrArray *notes;                   /* char * per layout node (NULL entries), or NULL */
} OnyxDecorations;

void                onyx_decorations_clear      (OnyxDecorations       *self);
/* Each setter keeps a copy (NULL: none); each getter gives what is kept, the count in
 * its last argument. Tints: the highest layer's. */
void                onyx_decorations_set_tints  (OnyxDecorations       *self,
                                                 OnyxTintLayer          layer,
                                                 const GdkRGBA         *tints,
                                                 guint                  n_tints);
const GdkRGBA      *onyx_decorations_get_tints  (const OnyxDecorations *self,
                                                 guint                 *n_tints);
void                onyx_decorations_set_badges (OnyxDecorations       *self,
                                                 const guint8          *badges,
                                                 guint                  n_badges);
const guint8       *onyx_decorations_get_badges (const OnyxDecorations *self,
                                                 guint                 *n_badges);
void                onyx_decorations_set_notes  (OnyxDecorations       *self,
                                                 const char *const     *notes,
                                                 guint                  n_notes);
const char *const  *onyx_decorations_get_notes  (const OnyxDecorations *self,
                                                 guint                 *n_notes);

G_END_DECLS
