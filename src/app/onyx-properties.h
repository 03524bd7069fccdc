/* onyx-properties.h: the side panel describing the model or the selected node or
 * tensor. Links and edits go out as window actions ("win.select-node",
 * "win.select-tensor", "win.rename-tensor", …), so the panel never edits itself. */
#pragma once

#include <adwaita.h>

#include "onyx-diagnose.h"
#include "onyx-problem-list.h"
#include "onyx-document.h"

G_BEGIN_DECLS

#define ONYX_TYPE_PROPERTIES (onyx_properties_get_type ())
G_DECLARE_FINAL_TYPE (OnyxProperties, onyx_properties, ONYX, PROPERTIES, GtkBox)

/* With a subgraph or function shown (`graph` other than the main graph), a group
 * about that graph comes first. */
void onyx_properties_show_model  (OnyxProperties *self, OnyxDocument *doc,
                                  Onnx__GraphProto *graph);
/* `graph` is the graph shown, which the node is in or the tensor is seen from (a
 * subgraph sees the names of the graphs around it); "win.select-node" links carry
 * positions in it. */
void onyx_properties_show_node   (OnyxProperties *self, OnyxDocument *doc,
                                  Onnx__GraphProto *graph, Onnx__NodeProto *node);
void onyx_properties_show_tensor (OnyxProperties *self, OnyxDocument *doc,
                                  Onnx__GraphProto *graph, const char *name);
void onyx_properties_clear       (OnyxProperties *self);
/* Problems shown with the node they concern (borrowed; NULL for none). Takes effect
 * at the next show_node. */
void onyx_properties_set_diagnostics (OnyxProperties *self, OnyxProblemList *diagnostics);

G_END_DECLS
