/* onyx-summary.h: the figures of Netron's model panel and `onyx-cli info`:
 * node counts by operator, parameter count and size, custom domains. */
#pragma once

#include <glib.h>

#include "onyx-proto.h"

G_BEGIN_DECLS

typedef struct {
  char *op;        /* "Conv", or "devtech::FooOp" outside the default domain */
  guint count;
} OnyxOpCount;

typedef struct {
  guint n_nodes;              /* main graph */
  guint n_nodes_all;          /* with subgraphs and functions */
  /* Parameters are counted in the main graph and its subgraphs (If/Loop/Scan bodies),
   * not in functions: a function's Constants are part of its definition. */
  guint n_initializers;
  guint n_constant_tensors;   /* Constant nodes with a value attribute */
  guint64 n_parameters;       /* elements of all initializers and Constant values but
                               * quantization's scales and zero points; a packed weight
                               * (MatMulNBits's B: two int4 a byte) counts its values */
  guint64 parameter_bytes;    /* of everything, scales and zero points included */
  guint64 low_bit_parameters; /* the part of n_parameters stored in fewer than 8 bits */
  guint low_bits;             /* their width when all have one (4), else 0 */
  guint64 quantization_parameters; /* scales and zero points (slots so named) */
  guint64 constant_parameters; /* the part of n_parameters held by Constant nodes */
  guint64 constant_bytes;
  gboolean parameters_overflow; /* some tensor's size could not be computed */
  GPtrArray *op_counts;       /* OnyxOpCount, most frequent first, then by name */
  GPtrArray *custom_domains;  /* char*, non-standard domains of nodes (any graph, functions) */
  GPtrArray *unused_domains;  /* char*, imported domains but ai.onnx that no node uses */
} OnyxSummary;

OnyxSummary *onyx_summary_new  (const Onnx__ModelProto *model);
void         onyx_summary_free (OnyxSummary *summary);

/* Graph inputs that are not also initializers (IR < 4 listed those as inputs). */
gboolean     onyx_graph_input_is_initializer (const Onnx__GraphProto *graph,
                                              const char             *name);

/* Whether an input slot holds a quantization parameter, by its name: x_scale,
 * y_zero_point, scales, zero_points, absmax (not a norm's "scale", a weight). */
gboolean     onyx_slot_names_quantization (const char *slot);

/* "Conv" or "devtech::FooOp". */
char        *onyx_node_op_key  (const Onnx__NodeProto *node);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxSummary, onyx_summary_free)

G_END_DECLS
