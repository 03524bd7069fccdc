/* onyx-schema-private.h: the generated table behind onyx-schema.c (written by
 * tools/gen-op-schemas.py into onyx-schema-table.c). */
#pragma once

#include "onyx-schema.h"

G_BEGIN_DECLS

extern const OnyxSchema onyx_schema_table[];
extern const guint onyx_schema_table_size;
extern const char *const onyx_schema_type_strings[];
extern const guint onyx_schema_n_type_strings;
extern const char onyx_schema_table_onnx_version[];

G_END_DECLS
