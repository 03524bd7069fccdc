/* onyx-schema.h: the standard operator schemas — what each ONNX operator takes and
 * gives at each opset version: inputs and outputs (optional, variadic, type
 * constraint), attributes (type, required, default), allowed types, a one-line doc.
 *
 * The table (onyx-schema-table.c) is generated at build time by onyx-gen-schema-table
 * from the schema registry of the ONNX library Onyx links, and covers every domain that
 * library knows ("" (ai.onnx), ai.onnx.ml, ai.onnx.preview.training, …) with its whole
 * version history. */
#pragma once

#include <glib.h>

#include "onyx-proto.h"

G_BEGIN_DECLS

typedef enum {
  ONYX_PARAM_SINGLE,
  ONYX_PARAM_OPTIONAL,
  ONYX_PARAM_VARIADIC,   /* the last formal parameter; takes all the remaining slots */
} OnyxParamOption;

typedef struct {
  const char *name;        /* "X" */
  const char *type_str;    /* a type constraint's name ("T") or a type ("tensor(int64)") */
  OnyxParamOption option;
  gboolean homogeneous;    /* variadic: every slot has the same type */
  const char *doc;         /* one line */
} OnyxSchemaParam;

typedef struct {
  const char *name;
  int type;                  /* ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__… */
  gboolean required;
  const char *default_value; /* a serialized AttributeProto, or NULL (no default) */
  gsize default_size;
  const char *doc;           /* one line */
  /* An INT naming an element type (Cast's `to`): the schema's type inference gives an
   * output the type it names. */
  gboolean data_type;
} OnyxSchemaAttribute;

typedef struct {
  const char *name;          /* "T" */
  const guint8 *types;       /* indices for onyx_schema_type_string() */
  guint n_types;
} OnyxSchemaTypeConstraint;

typedef struct {
  const char *domain;        /* "" for ai.onnx */
  const char *name;
  int since_version;
  gboolean deprecated;       /* removed from this version on */
  const OnyxSchemaParam *inputs;
  guint n_inputs;
  const OnyxSchemaParam *outputs;
  guint n_outputs;
  const OnyxSchemaAttribute *attributes;   /* sorted by name */
  guint n_attributes;
  const OnyxSchemaTypeConstraint *type_constraints;
  guint n_type_constraints;
  int min_input, max_input;  /* G_MAXINT: no upper bound */
  int min_output, max_output;
  const char *doc;           /* one line */
} OnyxSchema;

/* The schema in force at `opset_version` of the domain: the version with the highest
 * since_version ≤ opset_version. NULL when the op does not exist yet at that opset
 * or at all. A deprecated result means the op was removed at that opset. */
const OnyxSchema *onyx_schema_lookup          (const char *domain,
                                               const char *op_type,
                                               gint64      opset_version);
/* Every version of an op, oldest first (contiguous in the table); NULL when unknown. */
const OnyxSchema *onyx_schema_history         (const char *domain,
                                               const char *op_type,
                                               guint      *n_versions);
/* The newest opset of the domain that the linked ONNX library knows (17 for ai.onnx
 * in ONNX 1.12, 27 in 1.22); 0 for a domain it does not know. */
int               onyx_schema_domain_version  (const char *domain);
/* The newest IR version the linked ONNX library (and its checker) knows. */
int               onyx_schema_ir_version      (void);
/* What a model importing `version` of `domain` should be told when that is newer than
 * the library knows ("ai.onnx opset 20 is newer than ONNX 1.12.0 knows (17): …"); NULL
 * when the library knows it, or knows nothing of the domain. */
char             *onyx_schema_newer_opset_text (const char *domain,
                                                gint64      version);
/* What the linked library knows, in one line: "ONNX 1.12.0: IR version 8, ai.onnx
 * opset 17, ai.onnx.ml opset 3, …". */
char             *onyx_schema_library_summary (void);
/* Likewise for an IR version newer than the library's; NULL when it is not. */
char             *onyx_schema_newer_ir_text   (gint64 ir_version);
/* The schemas in force at `opset_version` of the domain, one per op (deprecated ones
 * left out), in name order (const OnyxSchema*, owned by the table). */
GPtrArray        *onyx_schema_list_ops        (const char *domain,
                                               gint64      opset_version);
/* Whether the schema is one of ONNX Runtime's operators (com.microsoft, or a kernel
 * it adds to ai.onnx such as SimplifiedLayerNormalization), not ONNX's. */
gboolean          onyx_schema_is_onnxruntime  (const OnyxSchema *schema);
/* Whether ONNX Runtime adds an operator domain::op_type (a cheap test, before a
 * lookup of the schema in force). */
gboolean          onyx_schema_onnxruntime_has (const char *domain,
                                               const char *op_type);
/* Whether a node's attributes can be checked against the schema: not for ONNX
 * Runtime's kernels in ai.onnx, whose documentation lists no attributes. */
gboolean          onyx_schema_checks_attributes (const OnyxSchema *schema);
/* The commit of ONNX Runtime's documentation its operators were taken from. */
const char       *onyx_schema_onnxruntime_source (void);
/* Version of the linked ONNX library the table was generated from ("1.12.0"). */
const char       *onyx_schema_onnx_version    (void);

/* The formal parameter behind input/output slot `index` (a variadic parameter covers
 * every slot from its own on); NULL past the last. */
const OnyxSchemaParam *onyx_schema_input      (const OnyxSchema *schema,
                                               guint             index);
const OnyxSchemaParam *onyx_schema_output     (const OnyxSchema *schema,
                                               guint             index);
/* "X" for single and optional parameters, "inputs[2]" for the slots of a variadic
 * one (counted from its first slot); NULL past the last parameter. */
char             *onyx_schema_input_name      (const OnyxSchema *schema,
                                               guint             index);
char             *onyx_schema_output_name     (const OnyxSchema *schema,
                                               guint             index);

const OnyxSchemaAttribute *onyx_schema_find_attribute (const OnyxSchema *schema,
                                                       const char       *name);
/* The default as an AttributeProto (free with protobuf_c_message_free_unpacked), or
 * NULL when the attribute has none. */
Onnx__AttributeProto *onyx_schema_attribute_default      (const OnyxSchemaAttribute *attribute);
/* The default as onyx_attribute_describe() shows values ("\"NOTSET\"", "1", "FLOAT"), or NULL. */
char                 *onyx_schema_attribute_default_text (const OnyxSchemaAttribute *attribute);

/* The schema's attributes (OnyxSchemaAttribute*, name order) that the node leaves out
 * and that have a default: what the node runs with without saying so. */
GPtrArray            *onyx_schema_omitted_defaults       (const OnyxSchema      *schema,
                                                          const Onnx__NodeProto *node);

/* The constraint a parameter's type_str names, or NULL for a fixed type. */
const OnyxSchemaTypeConstraint *onyx_schema_find_constraint (const OnyxSchema *schema,
                                                             const char       *type_str);
const char       *onyx_schema_type_string     (guint8 id);
/* Whether a type string ("tensor(float)") is allowed for a parameter's type_str,
 * which is a constraint's name or a fixed type. */
gboolean          onyx_schema_param_allows    (const OnyxSchema      *schema,
                                               const OnyxSchemaParam *param,
                                               const char            *type_string);

/* ONNX's name of a type as schemas write it: "tensor(float)", "seq(tensor(int64))",
 * "map(int64, float)", "optional(tensor(bool))"; NULL when the type (or its element
 * type) is unknown. */
char             *onyx_type_schema_string     (const Onnx__TypeProto *type);
/* "tensor(float)" for an element type code; NULL for unknown codes. */
char             *onyx_elem_type_schema_string (int32_t elem_type);
/* The element type code of "tensor(float)"; 0 for anything else. */
int32_t           onyx_elem_type_from_schema_string (const char *type_string);

/* The operator's page in the ONNX documentation, e.g.
 * https://onnx.ai/onnx/operators/onnx__Conv.html, or for ONNX Runtime's operators
 * their section of its documentation; NULL for operators Onyx does not know. */
char             *onyx_schema_docs_url        (const char *domain,
                                               const char *op_type);

/* Version of the opset a node list imports for `domain` ("" and ai.onnx alike),
 * -1 when the domain is not imported. */
gint64            onyx_opset_version          (Onnx__OperatorSetIdProto *const *opsets,
                                               size_t                           n_opsets,
                                               const char                      *domain);
/* The schema in force for a node under these opset imports, or NULL (also when the
 * imported opset is newer than the library knows). */
const OnyxSchema *onyx_schema_for_node        (const Onnx__NodeProto           *node,
                                               Onnx__OperatorSetIdProto *const *opsets,
                                               size_t                           n_opsets);

G_END_DECLS
