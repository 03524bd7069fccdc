/* onyx-properties-private.h: what the properties panel's files share. */
#pragma once

#include <adwaita.h>

#include "onyx-properties.h"
#include "onyx-proto.h"

G_BEGIN_DECLS

/* A row that runs a window action when activated (links to nodes and tensors); the
 * value is escaped. */
GtkWidget *onyx_properties_new_link_row (const char *title,
                                         const char *value,
                                         const char *action,
                                         GVariant   *target);

/* Inputs (or outputs) into `group`, a link row each; names that differ only in a
 * number (a KV cache's past_key_values.N.key/value) are one row that opens on them
 * once there are more than fit a screen, open when it is open in `shown_page`. */
void       onyx_properties_add_value_infos (GtkWidget             *group,
                                            GtkWidget             *shown_page,
                                            Onnx__ValueInfoProto **infos,
                                            size_t                 n,
                                            gboolean               inputs);

G_END_DECLS
