/* onyx-properties-private.h: what the properties panel's files share. */
#pragma once

#include <adwaita.h>

#include "onyx-problem-list.h"
#include "onyx-properties.h"
#include "onyx-proto.h"

G_BEGIN_DECLS

struct _OnyxProperties {
  GtkBox parent_instance;

  OnyxViewState *state;
  OnyxProblemList *problems;      /* the state's, or NULL */
  GtkWidget *page;                /* shown, or NULL */
  GtkWidget *kept;                /* the one shown before, hidden: the model's page is
                                   * shown again after each edit of a node */
  GtkWidget *building;            /* the next page, while a show_* function fills it */
  GPtrArray *retired;             /* pages no longer shown, to go after the frame */
  guint drop_retired;             /* idle: they go */
  gboolean disposed;
};

/* A page is built (begin), filled with groups of rows, then presented: shown, or
 * its values given to the page shown when that is built the same. */
void       onyx_properties_begin_page    (OnyxProperties *self);
void       onyx_properties_present_page  (OnyxProperties *self);
void       onyx_properties_tag_model_page (OnyxProperties   *self,
                                           OnyxDocument     *doc,
                                           Onnx__GraphProto *graph);
GtkWidget *onyx_properties_add_group     (OnyxProperties *self,
                                          const char     *title);
/* A read-only "key: value" row; the value is escaped and selectable. */
GtkWidget *onyx_properties_add_row       (GtkWidget      *group,
                                          const char     *title,
                                          const char     *value);
GtkWidget *onyx_properties_add_link_row  (GtkWidget      *group,
                                          const char     *title,
                                          const char     *value,
                                          const char     *action,
                                          GVariant       *target);
/* Takes `owned_value`; left out when it is empty (a Paddle model's producer). */
void       onyx_properties_add_text_row  (GtkWidget      *group,
                                          const char     *title,
                                          char           *owned_value);
/* Takes `owned_value`; shown even when empty: a metadata key is news. */
void       onyx_properties_add_metadata_row (GtkWidget   *group,
                                             const char  *key,
                                             char        *owned_value);
/* A button at the end of a row, activating `action`. */
void       onyx_properties_add_suffix_button (GtkWidget  *row,
                                              const char *mnemonic,
                                              const char *tooltip,
                                              const char *action);
/* A message's metadata_props as rows under `title` (none: no group). */
void       onyx_properties_add_metadata_group (OnyxProperties         *self,
                                               const char             *title,
                                               const ProtobufCMessage *message,
                                               gboolean                skip_module);
/* The node's time, from the profile the view state shows (onyx-properties-profile.c);
 * nothing when none is. */
void       onyx_properties_add_profile_group (OnyxProperties  *self,
                                              OnyxDocument    *doc,
                                              Onnx__NodeProto *node);
/* Quantization (onyx-properties-quant.c): a node's group, a tensor's rows, the
 * model's group; nothing where there is none. */
void       onyx_properties_add_quant_node_group  (OnyxProperties  *self,
                                                  OnyxDocument    *doc,
                                                  Onnx__NodeProto *node);
void       onyx_properties_add_quant_tensor_rows (GtkWidget       *group,
                                                  OnyxDocument    *doc,
                                                  const char      *name);
void       onyx_properties_add_quant_model_group (OnyxProperties  *self,
                                                  OnyxDocument    *doc);
/* A count in the user's digit grouping: "12,759". */
char      *onyx_properties_format_count  (guint64         n);


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
