/* onyx-schema-private.h: the table behind onyx-schema.c, written into the build folder
 * as onyx-schema-table.c by onyx-gen-schema-table from the linked ONNX library and
 * ONNX Runtime's documented operators. */
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

/* ONNX Runtime's operators (onyx-ort-schemas.cc), after ONNX's own in the same file:
 * sorted as the table above; type ids from onyx_schema_n_type_strings on are this
 * list's; the domains ONNX does not know (com.microsoft). */
extern const OnyxSchema onyx_schema_ort_table[];
extern const guint onyx_schema_ort_table_size;
extern const char *const onyx_schema_ort_type_strings[];
extern const guint onyx_schema_ort_n_type_strings;
extern const OnyxSchemaDomainRange onyx_schema_ort_domain_ranges[];
extern const guint onyx_schema_ort_n_domain_ranges;

G_END_DECLS
