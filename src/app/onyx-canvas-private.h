/* onyx-canvas-private.h: what the canvas's files share. */
#pragma once

#include <gtk/gtk.h>

#include "onyx-render.h"

G_BEGIN_DECLS

/* The graph layer of `area` (layout coordinates) at options->scale, in layout
 * coordinates × options->scale. An overview is a texture, drawn once and copied
 * each frame; a readable zoom is recorded cairo drawing. */
GskRenderNode *onyx_canvas_render_cache (const OnyxLayout       *layout,
                                         const OnyxRenderIndex   *index,
                                         const OnyxRect          *area,
                                         const OnyxRenderOptions *options,
                                         int                      scale_factor);

G_END_DECLS
