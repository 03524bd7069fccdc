/* onyx-simplify-private.h: what Simplify's passes (onyx-simplify-*.c) share with its
 * driver (onyx-simplify.c).
 *
 * A pass changes the document through the recording primitives of
 * onyx-document-private.h and the edits' helpers (onyx-edits-private.h), inside the
 * group Simplify holds open; it is run on every graph of the model, the main graph
 * first, and returns how many changes it made (0: nothing left to do). */
#pragma once

#include "onyx-edits-private.h"
#include "onyx-shapes.h"
#include "onyx-simplify.h"

G_BEGIN_DECLS

typedef struct _OnyxSimplifyContext OnyxSimplifyContext;

struct _OnyxSimplifyContext {
  OnyxDocument *doc;
  OnyxModel *model;
  const char *base_dir;           /* where external data is read */
  /* Inference of the model as this round began, made at its first question
   * (tensors made since have no entry); NULL until then. */
  OnyxShapes *shapes;
  /* Answers of inference and ONNX Runtime, recorded or replayed (NULL: neither). */
  OnyxSimplifyTape *tape;
  gboolean replaying;
  /* Sentences for the report (char *), each once. */
  GPtrArray *notes;
  GHashTable *noted;
  /* Every name of the model, for new ones (made when first needed). */
  GHashTable *names;
};

typedef guint (*OnyxSimplifyPassFunc) (OnyxSimplifyContext *ctx,
                                       Onnx__GraphProto    *graph,
                                       GError             **error);

typedef struct {
  const char *name;
  const char *title;            /* N_() */
  OnyxSimplifyPasses flag;
  /* Called for each graph, main graph first, then the subgraphs of its nodes;
   * G_MAXUINT with an error when it fails. */
  OnyxSimplifyPassFunc run;
} OnyxSimplifyPass;

/* The passes, each in its own file. */
extern const OnyxSimplifyPass onyx_simplify_constants_pass;  /* onyx-simplify-constants.c */
extern const OnyxSimplifyPass onyx_simplify_branches_pass;   /* onyx-simplify-branches.c */
extern const OnyxSimplifyPass onyx_simplify_shapes_pass;     /* onyx-simplify-shapes.c */
extern const OnyxSimplifyPass onyx_simplify_fold_pass;       /* onyx-simplify-fold.c */
extern const OnyxSimplifyPass onyx_simplify_noops_pass;      /* onyx-simplify-noops.c */
extern const OnyxSimplifyPass onyx_simplify_duplicates_pass; /* onyx-simplify-duplicates.c */
extern const OnyxSimplifyPass onyx_simplify_fusions_pass;    /* onyx-simplify-fusions.c */

/* Reshapes whose target is built of their input's own dims get a constant target
 * instead, 0 where a dim is the input's at that place, -1 for one computed part
 * (onyx-simplify-reshape.c, part of shape folding); how many did. */
guint onyx_simplify_reshape_targets (OnyxSimplifyContext *ctx,
                                     Onnx__GraphProto    *graph);

/* For tests: a pass run after the others when its flag is asked for (NULL: none). */
void onyx_simplify_set_test_pass (const OnyxSimplifyPass *pass);

/* Adds a sentence to the report (once, however often it is said). */
void onyx_simplify_note (OnyxSimplifyContext *ctx,
                         const char          *format,
                         ...) G_GNUC_PRINTF (2, 3);

/* ---- Reading constants (onyx-simplify-values.c) ---- */

/* The node that makes `name` in `graph`, or NULL (graph input, initializer, outer
 * name, nothing). */
Onnx__NodeProto   *onyx_simplify_producer      (OnyxSimplifyContext *ctx,
                                                Onnx__GraphProto    *graph,
                                                const char          *name);
/* How many times `name` is read in `graph` (subgraphs' reads included) and whether
 * it is one of the graph's outputs. */
guint              onyx_simplify_n_uses        (OnyxSimplifyContext *ctx,
                                                Onnx__GraphProto    *graph,
                                                const char          *name);
gboolean           onyx_simplify_is_output     (Onnx__GraphProto    *graph,
                                                const char          *name);
/* The initializer named `name` as `graph` sees it (its own, then the graphs around
 * it), that is no graph input (an input with a default may be fed), or NULL. */
Onnx__TensorProto *onyx_simplify_initializer   (OnyxSimplifyContext *ctx,
                                                Onnx__GraphProto    *graph,
                                                const char          *name);
/* The tensor a Constant node holds (value attribute), or NULL for the forms without
 * a TensorProto (value_float, value_ints…: see onyx_simplify_constant_value). */
const Onnx__TensorProto *onyx_simplify_constant_tensor (const Onnx__NodeProto *node);
/* Whether `name` has a value known without running the model: an initializer in
 * scope or a Constant node's output. */
gboolean           onyx_simplify_is_constant   (OnyxSimplifyContext *ctx,
                                                Onnx__GraphProto    *graph,
                                                const char          *name);
/* Its value, read (external data too) when it holds at most `limit` bytes; NULL
 * otherwise or when it is no constant (no error then), or with an error when it
 * cannot be read. */
OnyxArray         *onyx_simplify_constant_value (OnyxSimplifyContext *ctx,
                                                 Onnx__GraphProto    *graph,
                                                 const char          *name,
                                                 gsize                limit,
                                                 GError             **error);
/* A Constant node's value as an array (every form of its attribute), or NULL. */
OnyxArray         *onyx_simplify_constant_node_value (OnyxSimplifyContext   *ctx,
                                                      const Onnx__NodeProto *node,
                                                      gsize                  limit,
                                                      GError               **error);
/* The int64 (or int32) values of a small constant, e.g. a Reshape's shape, an axes
 * input: a new GArray of gint64, or NULL when it is not a constant of those types. */
GArray            *onyx_simplify_constant_ints (OnyxSimplifyContext *ctx,
                                                Onnx__GraphProto    *graph,
                                                const char          *name);
/* Whether `name` is a constant (as onyx_simplify_constant_value reads it) with at
 * least one element, every element equal to `value` (0 for an Add that adds
 * nothing, 1 for a Mul). */
gboolean           onyx_simplify_constant_all  (OnyxSimplifyContext *ctx,
                                                Onnx__GraphProto    *graph,
                                                const char          *name,
                                                double               value);
/* The version of the node's domain the model imports (the form of an operator's
 * arguments depends on it), -1 when it imports none. */
gint64             onyx_simplify_opset         (OnyxSimplifyContext   *ctx,
                                                const Onnx__NodeProto *node);
/* The int64 (or int32) elements of an array as a new GArray of gint64, or NULL for
 * other element types. */
GArray            *onyx_simplify_array_ints    (const OnyxArray     *array);
/* An ints argument that an operator took as an attribute before opset `since` and as
 * its input `input` from then on (Squeeze's axes until 13, Pad's pads until 11,
 * Slice's starts until 10): TRUE with *values a new GArray of gint64, or NULL when
 * the node leaves the argument out; FALSE when the input is no constant of ints or
 * the node gives the argument in the other opset's form. */
gboolean           onyx_simplify_ints_argument (OnyxSimplifyContext   *ctx,
                                                Onnx__GraphProto      *graph,
                                                const Onnx__NodeProto *node,
                                                const char            *attribute,
                                                gint64                 since,
                                                guint                  input,
                                                GArray               **values);
/* The rank inference knows (onyx_simplify_tensor_shape), or -1. */
gint               onyx_simplify_rank          (OnyxSimplifyContext *ctx,
                                                Onnx__GraphProto    *graph,
                                                const char          *name);
/* Whether inference gives `a` and `b` the same element type and the same shape: the
 * same rank, and each dim the same number or the same symbol (a batch `N` on both
 * sides); a dim known on neither side is not known to be the same. */
gboolean           onyx_simplify_same_type     (OnyxSimplifyContext *ctx,
                                                Onnx__GraphProto    *graph,
                                                const char          *a,
                                                const char          *b);
/* The elements of a float, float16 or double array as doubles (a new array of
 * onyx_array_count elements), or NULL for other element types: for computing new
 * weights exactly before they are stored back in their own type. */
double            *onyx_simplify_float_values  (const OnyxArray     *array);
/* An array of a float, float16 or double element type holding `values` (rounded to
 * the nearest), or NULL for other element types. */
OnyxArray         *onyx_simplify_float_array   (const char          *name,
                                                int                  elem_type,
                                                const gint64        *dims,
                                                gsize                n_dims,
                                                const double        *values);
/* ---- The proof (onyx-simplify-proof.c) ---- */

typedef enum {
  ONYX_PROOF_EQUAL,
  ONYX_PROOF_DIFFERS,
  ONYX_PROOF_NOT_RUN,
} OnyxProofOutcome;

typedef struct _OnyxSimplifyProof OnyxSimplifyProof;

/* Starts running `before` (a snapshot of the model as Simplify found it) in a thread
 * of its own, on `inputs`'s arrays or, when NULL, inputs made as Run makes them (free
 * image sizes 224, and larger free dims when ONNX Runtime refuses Run's). */
OnyxSimplifyProof *onyx_simplify_proof_start (OnyxModel          *before,
                                              const OnyxRunInputs *inputs);
/* Runs `after` on the same inputs and compares its graph outputs with the run before
 * (waited for): *note says what was compared, or what differs, or why nothing was. */
OnyxProofOutcome   onyx_simplify_proof_check (OnyxSimplifyProof  *proof,
                                              OnyxModel          *after,
                                              char              **note);
void               onyx_simplify_proof_free  (OnyxSimplifyProof  *proof);

/* ---- Asking inference and ONNX Runtime (onyx-simplify-tape.c) ---- */

/* Runs `nodes` of `graph` (in order; what they read from outside them is constant
 * in scope) in ONNX Runtime and gives the values of `outputs` (NULL-terminated
 * names), in that order: OnyxArray*, NULL for one not made. NULL with an error when
 * ONNX Runtime refuses. */
GPtrArray         *onyx_simplify_evaluate      (OnyxSimplifyContext *ctx,
                                                Onnx__GraphProto    *graph,
                                                GPtrArray           *nodes,
                                                const char *const   *outputs,
                                                GError             **error);
/* The element type and dims ONNX's shape inference knows for `name`, as seen from
 * `graph`: FALSE when unknown. *dims (gint64, -1 for a dim without a value) and
 * *symbols (char *, NULL for dims without a name) are new arrays; either may be
 * NULL. An unknown rank is FALSE. */
gboolean           onyx_simplify_tensor_shape  (OnyxSimplifyContext *ctx,
                                                Onnx__GraphProto    *graph,
                                                const char          *name,
                                                int                 *elem_type,
                                                GArray             **dims,
                                                GPtrArray          **symbols);
/* The element type inference knows (shape or not), or 0. */
int                onyx_simplify_elem_type     (OnyxSimplifyContext *ctx,
                                                Onnx__GraphProto    *graph,
                                                const char          *name);

/* Back to the first answer (replaying), or every answer dropped (recording afresh). */
void               onyx_simplify_tape_rewind   (OnyxSimplifyTape    *tape);
void               onyx_simplify_tape_clear    (OnyxSimplifyTape    *tape);

/* ---- Changing the graph (onyx-simplify-values.c) ---- */

/* Adds `tensor` (taken) to the graph's initializers. */
void     onyx_simplify_add_initializer (OnyxSimplifyContext *ctx,
                                        Onnx__GraphProto    *graph,
                                        Onnx__TensorProto   *tensor);
/* Output `output` of `node` becomes an initializer holding `value` under the same
 * name; the node is removed when none of its other outputs is read. */
void     onyx_simplify_output_to_initializer (OnyxSimplifyContext *ctx,
                                              Onnx__GraphProto    *graph,
                                              Onnx__NodeProto     *node,
                                              guint                output,
                                              const OnyxArray     *value);
/* Removes `node`, whose output `output` computes what `source` holds: its readers
 * read `source`. When that output is a graph output (whose name must stay), the
 * producer of `source` writes the name instead when it can (it makes no other graph
 * output and `source` has no other reader), else nothing changes: FALSE. */
gboolean onyx_simplify_bypass          (OnyxSimplifyContext *ctx,
                                        Onnx__GraphProto    *graph,
                                        Onnx__NodeProto     *node,
                                        guint                output,
                                        const char          *source);
/* `node` computes what `sources` hold, one name per output (a duplicate of another
 * node: that node's outputs; NULL for an output no one reads): readers of each
 * output read its source instead, and the node goes, unless one of its outputs is a
 * graph output, whose name must stay: then only its readers move. Nothing changes
 * when an output that is read has no source. TRUE when anything changed. */
gboolean onyx_simplify_merge_outputs   (OnyxSimplifyContext *ctx,
                                        Onnx__GraphProto    *graph,
                                        Onnx__NodeProto     *node,
                                        const char *const   *sources);
/* Removes a node no one reads any more (Clean Up would; this is at once, so that
 * counts of uses stay true for the rest of the pass). */
void     onyx_simplify_remove_node     (OnyxSimplifyContext *ctx,
                                        Onnx__NodeProto     *node);
/* A name for a new tensor or node of the model, `base` made unique ("base_1"…). */
char    *onyx_simplify_unique_name     (OnyxSimplifyContext *ctx,
                                        const char          *base);
/* Input `input` of `node` reads `value`. The initializer it reads is replaced in
 * place, keeping its name, when it is this graph's and the node its only reader;
 * otherwise (shared, from a graph around, absent) the node reads a new initializer
 * named after `base`. `input` may be the node's input count: an optional input given. */
void     onyx_simplify_set_constant_input (OnyxSimplifyContext *ctx,
                                           Onnx__GraphProto    *graph,
                                           Onnx__NodeProto     *node,
                                           guint                input,
                                           const OnyxArray     *value,
                                           const char          *base);
/* Sets a node input (recorded), as onyx_document_set_node_input. */
void     onyx_simplify_set_input       (OnyxSimplifyContext *ctx,
                                        Onnx__NodeProto     *node,
                                        guint                input,
                                        const char          *name);

/* Sets an ints attribute of a node (recorded), replacing one of that name. */
void     onyx_simplify_set_ints_attribute (OnyxSimplifyContext *ctx,
                                           Onnx__NodeProto     *node,
                                           const char          *name,
                                           const gint64        *values,
                                           gsize                n_values);

/* The attribute of that name, or NULL. */
const Onnx__AttributeProto *onyx_simplify_attribute (const Onnx__NodeProto *node,
                                                     const char            *name);
/* An int attribute's value, or `fallback` when it is absent. */
gint64   onyx_simplify_attribute_int   (const Onnx__NodeProto *node,
                                        const char            *name,
                                        gint64                 fallback);
/* A node of the standard domain (ai.onnx) with this op_type. */
gboolean onyx_simplify_is_op           (const Onnx__NodeProto *node,
                                        const char            *op_type);
/* An operator that draws random numbers (RandomNormal…, Multinomial, Bernoulli):
 * two of them never compute the same, nor one twice. */
gboolean onyx_simplify_draws_random    (const Onnx__NodeProto *node);

G_END_DECLS
