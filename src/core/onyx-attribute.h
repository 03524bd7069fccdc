/* onyx-attribute.h: node attributes as text, both ways ("[1, 1]", "0.5", "\"same\""). */
#pragma once

#include <glib.h>

#include "onyx-proto.h"
#include "onyx-schema.h"

G_BEGIN_DECLS

/* "INT", "FLOATS", "GRAPH"… */
const char           *onyx_attribute_type_name (int type);
/* Whether values of the type are written and read as text (onyx_edit_set_attribute):
 * numbers, strings and lists of them; not graphs, tensors or type protos. */
gboolean              onyx_attribute_type_is_text (int type);
/* The value as a person reads it; tensors and graphs summarised (escaped). */
char                 *onyx_attribute_to_string (const Onnx__AttributeProto *attribute);
/* The element type an attribute names by its name in TensorProto.DataType ("INT64" for
 * Cast's to = 7), where the attribute as `declared` by its operator's schema names one
 * (OnyxSchemaAttribute.data_type); NULL for other attributes (or `declared` NULL) and
 * numbers no type has. */
const char           *onyx_attribute_data_type_name (const Onnx__AttributeProto *attribute,
                                                     const OnyxSchemaAttribute  *declared);
/* The element type named `text` as TensorProto.DataType ("INT64", any case) or as
 * Onyx shows types ("float32"); FALSE for other text. */
gboolean              onyx_data_type_from_name (const char *text,
                                                int        *value);
/* onyx_attribute_to_string, with an element type by its name ("INT64") where the
 * operator's schema (nullable) says the attribute names one: what the CLI and the
 * drawing show. */
char                 *onyx_attribute_describe  (const Onnx__AttributeProto *attribute,
                                                const OnyxSchema           *schema);
/* Builds an attribute from text. With `type` UNDEFINED (0) the type follows from the
 * text: integer, float, list of either, list of quoted strings, else a string.
 * Only the six editable types (int, float, string and their lists) are accepted.
 * The result is malloc-allocated like protobuf-c's own messages. */
Onnx__AttributeProto *onyx_attribute_parse     (const char *name,
                                                const char *text,
                                                int         type,
                                                GError    **error);
/* The attribute of that name, or NULL; `position` (may be NULL) gets its index. */
Onnx__AttributeProto *onyx_node_find_attribute (const Onnx__NodeProto *node,
                                                const char            *name,
                                                gsize                 *position);

G_END_DECLS
