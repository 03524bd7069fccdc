/* onyx-quant-private.h: what the files of quantization share.
 *
 *   onyx-quant.c           the analysis: the graph's tensors, each node's role
 *   onyx-quant-tensors.c   the quantized tensors, from the nodes' slots
 *   onyx-quant-summary.c   the summary, and the texts of tensors and nodes
 *   onyx-diagnose-quant.c  the checks (Problems) made from it
 *   onyx-quant-accuracy.c  the error per layer against the float twin */
#pragma once

#include "onyx-graph-index.h"
#include "onyx-quant.h"

G_BEGIN_DECLS

/* TensorProto.DataType codes of the quantized types, some newer than the onnx.proto
 * Onyx may be built with. */
enum {
  ONYX_QT_UINT8 = 2, ONYX_QT_INT8 = 3, ONYX_QT_UINT16 = 4, ONYX_QT_INT16 = 5, ONYX_QT_INT32 = 6,
  ONYX_QT_FLOAT8E4M3FN = 17, ONYX_QT_FLOAT8E4M3FNUZ, ONYX_QT_FLOAT8E5M2, ONYX_QT_FLOAT8E5M2FNUZ,
  ONYX_QT_UINT4 = 21, ONYX_QT_INT4 = 22, ONYX_QT_FLOAT4E2M1 = 23, ONYX_QT_UINT2 = 25, ONYX_QT_INT2 = 26,
};

struct _OnyxQuant {
  const Onnx__ModelProto *model;
  const Onnx__GraphProto *graph;
  char *base_dir;
  OnyxGraphIndex *index;          /* producers and readers of the main graph's tensors */
  GHashTable *constants;          /* name → const Onnx__TensorProto* (initializers, Constants) */
  GHashTable *declared;           /* name → const Onnx__TypeProto* (inputs, outputs, value_info) */
  OnyxQuantNode *nodes;           /* one per node of the main graph, in order */
  size_t n_nodes;                 /* of them: freed without the model, which may have
                                   * changed or gone (kept by OnyxDocument) */
  GHashTable *node_records;       /* const Onnx__NodeProto* → OnyxQuantNode* */
  GPtrArray *tensors;             /* OnyxQuantTensor, owned */
  GHashTable *by_name;            /* every name of a tensor → OnyxQuantTensor* */
  GPtrArray *scale_reads;         /* OnyxQuantRead of every scale slot */
  GPtrArray *zero_point_reads;    /* and of every zero point slot */
  OnyxQuantSummary summary;
  gboolean quantized;
  guint64 values_read;            /* against ONYX_QUANT_VALUE_BUDGET */
  GHashTable *unread;             /* names of constants left unread → their value counts */
};

/* A slot of a node that reads a scale or a zero point, and the tensor it quantizes. */
typedef struct {
  const Onnx__NodeProto *node;
  guint index;                    /* the node's, in the main graph */
  guint slot;
  const OnyxQuantTensor *tensor;  /* NULL when the slot's data tensor has no record */
} OnyxQuantRead;

/* Whether the node is `op` of ai.onnx or com.microsoft (which repeats ONNX's
 * quantization operators). */
gboolean                 onyx_quant_is_op       (const Onnx__NodeProto *node,
                                                 const char            *op);
/* The value of a constant tensor (initializer, Constant node), or NULL. */
const Onnx__TensorProto *onyx_quant_constant    (OnyxQuant             *quant,
                                                 const char            *name);
/* The node that makes the tensor, or NULL (graph input, initializer). */
Onnx__NodeProto         *onyx_quant_producer    (OnyxQuant             *quant,
                                                 const char            *name);
/* The nodes reading the tensor (OnyxUse), or NULL. */
GArray                  *onyx_quant_readers     (OnyxQuant             *quant,
                                                 const char            *name);
/* The QuantizeLinear that quantizes a float tensor again, directly or after a Relu
 * or Clip that only it reads; NULL. */
Onnx__NodeProto         *onyx_quant_requantizer (OnyxQuant             *quant,
                                                 const char            *name);
/* The dims of a tensor when known: a constant's, or declared; FALSE otherwise. */
gboolean                 onyx_quant_dims        (OnyxQuant             *quant,
                                                 const char            *name,
                                                 gint64               **dims,
                                                 gsize                 *n_dims);
/* The values of a constant tensor, or NULL when it is no constant, its type cannot be
 * read, or reading it would pass ONYX_QUANT_VALUE_BUDGET (it is then noted unread). */
double                  *onyx_quant_read_values (OnyxQuant             *quant,
                                                 const char            *name,
                                                 guint64               *n_values);
/* The operator slots whose values are quantized and a runtime could run quantized
 * (its data slots), for the operators with a quantized form; NULL for others.
 * `weight` is the slot of a weight (-1: none). */
const guint8            *onyx_quant_data_slots  (const Onnx__NodeProto *node,
                                                 guint                 *n_slots,
                                                 int                   *weight);

/* The element type of a tensor as stored: a constant's, or declared, or 0. */
int32_t  onyx_quant_stored_type   (OnyxQuant             *quant,
                                   const char            *name);
gint64   onyx_quant_int_attribute (const Onnx__NodeProto *node,
                                   const char            *name,
                                   gint64                 fallback);
/* ConvInteger, MatMulInteger and the like: integer results scaled back after. */
gboolean onyx_quant_is_integer_op (const Onnx__NodeProto *node);

/* ---- onyx-quant-tensors.c ---- */

void             onyx_quant_tensor_free        (OnyxQuantTensor       *tensor);
/* A record of a quantized tensor, known by `name` and `float_name` from now on. */
OnyxQuantTensor *onyx_quant_new_tensor         (OnyxQuant             *quant,
                                                const Onnx__NodeProto *node,
                                                const char            *name,
                                                const char            *float_name,
                                                int32_t                elem_type,
                                                const char            *scale,
                                                const char            *zero_point);
/* Reads the tensor's scales and zero points from their constants, and its range. */
void             onyx_quant_read_parameters    (OnyxQuant             *quant,
                                                OnyxQuantTensor       *tensor);
/* Notes the node's scale and zero point slots (-1: none) for the checks. */
void             onyx_quant_add_reads          (OnyxQuant             *quant,
                                                const Onnx__NodeProto *node,
                                                guint                  index,
                                                int                    scale,
                                                int                    zero_point,
                                                const OnyxQuantTensor *tensor);
/* The type a QuantizeLinear makes: its zero point's, else output_dtype, else uint8. */
int32_t          onyx_quant_quantize_type      (OnyxQuant             *quant,
                                                const Onnx__NodeProto *node);
/* The tensors a node says the quantization of, and its slots' types: a
 * QuantizeLinear's or DequantizeLinear's (`dequantize`), a block-quantized weight's,
 * those of an operator's slots with their scales. */
void             onyx_quant_record_linear      (OnyxQuant             *quant,
                                                OnyxQuantNode         *record,
                                                gboolean               dequantize);
void             onyx_quant_record_blocks      (OnyxQuant             *quant,
                                                OnyxQuantNode         *record);
void             onyx_quant_record_slots       (OnyxQuant             *quant,
                                                OnyxQuantNode         *record);
/* Whether a slot of the node has its scale or zero point beside it. */
gboolean         onyx_quant_has_quantized_slot (OnyxQuant             *quant,
                                                const Onnx__NodeProto *node);

/* ---- onyx-quant-summary.c ---- */

/* Fills quant->summary (when first asked for), from the model's counts when given. */
void             onyx_quant_summarize          (OnyxQuant             *quant,
                                                const OnyxSummary     *counted);

G_END_DECLS
