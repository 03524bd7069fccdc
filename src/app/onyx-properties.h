/* onyx-properties.h: the side panel describing the model or the selected node or
 * tensor, as the view state selects them (a part of the window). Links and edits go
 * out as actions ("graph.select-node", "graph.select-tensor", "edit.rename-tensor",
 * …), so the panel never edits itself. */
#pragma once

#include <adwaita.h>

#include "onyx-document.h"
#include "onyx-view-state.h"

G_BEGIN_DECLS

#define ONYX_TYPE_PROPERTIES (onyx_properties_get_type ())
G_DECLARE_FINAL_TYPE (OnyxProperties, onyx_properties, ONYX, PROPERTIES, GtkBox)

/* With a subgraph or function shown (`graph` other than the main graph), a group
 * about that graph comes first. */
void onyx_properties_show_model  (OnyxProperties *self, OnyxDocument *doc,
                                  Onnx__GraphProto *graph);
/* `graph` is the graph shown, which the node is in or the tensor is seen from (a
 * subgraph sees the names of the graphs around it); "graph.select-node" links carry
 * positions in it. */
void onyx_properties_show_node   (OnyxProperties *self, OnyxDocument *doc,
                                  Onnx__GraphProto *graph, Onnx__NodeProto *node);
void onyx_properties_show_tensor (OnyxProperties *self, OnyxDocument *doc,
                                  Onnx__GraphProto *graph, const char *name);
void onyx_properties_clear       (OnyxProperties *self);
/* From now on the panel shows what `state` selects: at once on a selection, after a
 * step once it settled (inferred types once analysed), with the problems of the
 * document shown beside the node they concern. */
void onyx_properties_set_state   (OnyxProperties *self, OnyxViewState *state);

G_END_DECLS
