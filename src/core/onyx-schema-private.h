/* onyx-schema-private.h: the table behind onyx-schema.c, written into the build folder
 * as onyx-schema-table.c by onyx-gen-schema-table from the linked ONNX library. */
#pragma once

#include "onyx-schema.h"

G_BEGIN_DECLS

/* The opset versions of a domain the library knows, oldest to newest. */
typedef struct {
  const char *domain;
  int min_version;
  int max_version;
} OnyxSchemaDomainRange;

extern const OnyxSchema onyx_schema_table[];
extern const guint onyx_schema_table_size;
extern const char *const onyx_schema_type_strings[];
extern const guint onyx_schema_n_type_strings;
extern const char onyx_schema_table_onnx_version[];
extern const OnyxSchemaDomainRange onyx_schema_domain_ranges[];
extern const guint onyx_schema_n_domain_ranges;
extern const int onyx_schema_table_ir_version;

G_END_DECLS
