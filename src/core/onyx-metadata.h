/* onyx-metadata.h: metadata_props of nodes, tensors and graphs, and the module
 * hierarchy PyTorch's dynamo exporter records in a node's.
 *
 * NodeProto.metadata_props (field 9) and ValueInfoProto.metadata_props (field 4) came
 * with IR 10; an onnx.proto older than that (Debian 12's) does not declare them, and
 * protobuf-c keeps them as unknown fields. The readers here work either way. */
#pragma once

#include <glib.h>

#include "onyx-proto.h"

G_BEGIN_DECLS

typedef struct {
  char *key;
  char *value;
} OnyxMetadataEntry;

/* The message's metadata_props in file order (OnyxMetadataEntry*, owned; empty when
 * none): for NodeProto, ValueInfoProto, GraphProto, FunctionProto and ModelProto. */
GPtrArray *onyx_metadata_get (const ProtobufCMessage *message);

/* The value of `key` in `entries` (the first such entry), or NULL. */
const char *onyx_metadata_lookup (GPtrArray *entries, const char *key);

/* The keys the module description is made of: a node's other entries are shown as
 * they are. */
gboolean onyx_metadata_key_is_module (const char *key);

/* A Python stack frame: `File "FILE", line LINE, in FUNCTION` and its code line. */
typedef struct {
  char *file;
  int line;
  char *function;
  char *code;             /* NULL when the trace has none */
  gboolean user;          /* not in site-packages, dist-packages, torch or Python's own */
} OnyxSourceFrame;

typedef struct {
  /* Module names from the root down, root and op left out: {"network", "network.0"}. */
  GStrv path;
  /* The class of each, full ("torch.nn.modules.linear.Linear"), or NULL when the
   * node does not record them. */
  GStrv classes;
  char *root_class;       /* "__main__.Net", or NULL */
  char *op;               /* the last name scope, the op itself ("linear"), or NULL */
  char *op_class;         /* "aten.linear.default", or NULL */
  /* OnyxSourceFrame*: the innermost of the user's own frames (the line of their code
   * that made the op) first when there is one, then the others in the trace's order. */
  GPtrArray *frames;
} OnyxModuleInfo;

/* NULL when the node records no module hierarchy (or only a malformed one) and, when
 * `with_source`, no stack trace either; without it `frames` is left empty, for
 * readers of many nodes that only need the hierarchy. */
OnyxModuleInfo *onyx_module_info_new_for_node (const Onnx__NodeProto *node,
                                               gboolean               with_source);
/* The same from the entries' texts; any may be NULL. */
OnyxModuleInfo *onyx_module_info_parse        (const char *name_scopes,
                                               const char *class_hierarchy,
                                               const char *namespace_,
                                               const char *stack_trace);
void            onyx_module_info_free         (OnyxModuleInfo *info);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxModuleInfo, onyx_module_info_free)

/* "Linear" for "torch.nn.modules.linear.Linear"; a pointer into `full`. */
const char *onyx_class_short_name (const char *full);

/* "network.0 · Linear": the module's name and short class (or the name alone). */
char *onyx_module_info_label (const OnyxModuleInfo *info, guint depth);

/* "Net › Sequential › Linear › aten.linear.default": the whole class chain. */
char *onyx_module_info_class_chain (const OnyxModuleInfo *info);

/* "train.py:96 in forward" */
char *onyx_source_frame_location (const OnyxSourceFrame *frame);

/* Python's repr of a list of str (`['', 'a']`, `["it's"]`) as a string vector;
 * NULL when the text is anything else. */
GStrv onyx_python_str_list_parse (const char *text);

/* Frames of a Python traceback text, in the text's order (OnyxSourceFrame*). */
GPtrArray *onyx_python_stack_parse (const char *text);

G_END_DECLS
