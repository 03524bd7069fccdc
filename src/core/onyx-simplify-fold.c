/* Simplify's constant folding: nodes whose inputs are all constant are evaluated in
 * ONNX Runtime (in Onyx's helper, once per round for the whole graph) and their
 * results become initializers of the same names. Results far larger than what they
 * are made of (ConstantOfShape, Expand, Tile, Range of a big size) stay nodes, as
 * onnxsim's --no-large-tensor leaves them. */
#include <stdlib.h>
#include <string.h>

#include "onyx-simplify-private.h"

#include <glib/gi18n-lib.h>

#include "onyx-tensor-values.h"

/* A result more than this many times the size of its inputs stays a node once it is
 * bigger than SMALL_RESULT: a file holds a Range(0, 4096) as three numbers. */
#define GROWTH_LIMIT 10
#define SMALL_RESULT (64 << 10)
/* ONNX Runtime's refusal names a node: it is left out and the rest tried again, a
 * few times. */
#define MAX_ATTEMPTS 4

/* What never folds: nothing that draws random numbers, holds a graph, or makes
 * sequences and optionals (which no initializer holds). */
static const char *const unfoldable_ops[] = {
  "Constant", "If", "Loop", "Scan", "SequenceAt", "SequenceConstruct", "SequenceEmpty", "SequenceErase",
  "SequenceInsert", "SequenceLength", "SequenceMap", "SplitToSequence", "ConcatFromSequence", "Optional",
  "OptionalGetElement", "OptionalHasElement", NULL,
};

static gboolean
op_folds (const Onnx__NodeProto *node)
{
  if (node->domain != NULL && node->domain[0] != '\0' && strcmp (node->domain, "ai.onnx") != 0 &&
      strcmp (node->domain, "ai.onnx.ml") != 0)
    return FALSE;
  if (g_strv_contains (unfoldable_ops, node->op_type) || onyx_simplify_draws_random (node))
    return FALSE;
  for (size_t a = 0; a < node->n_attribute; a++)
    if (node->attribute[a]->g != NULL || node->attribute[a]->n_graphs > 0)
      return FALSE;
  return node->n_output > 0;
}

/* Bytes of a constant in scope, G_MAXUINT64 when unknown. */
static guint64
constant_bytes (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const char *name)
{
  Onnx__TensorProto *tensor = onyx_simplify_initializer (ctx, graph, name);
  Onnx__NodeProto *producer;
  guint64 n;

  if (tensor != NULL)
    return onyx_tensor_n_bytes (tensor, &n) ? n : G_MAXUINT64;
  producer = onyx_simplify_producer (ctx, graph, name);
  if (producer != NULL && onyx_simplify_constant_tensor (producer) != NULL)
    return onyx_tensor_n_bytes (onyx_simplify_constant_tensor (producer), &n) ? n : G_MAXUINT64;
  return 0;
}

typedef struct {
  OnyxSimplifyContext *ctx;
  Onnx__GraphProto *graph;
  GPtrArray *folding;          /* the nodes to fold, in graph order */
  GHashTable *folded_names;    /* outputs of those */
  GPtrArray *feeding;          /* Constant nodes whose outputs they read */
  GHashTable *left_out;        /* nodes ONNX Runtime refused */
} Fold;

/* The nodes whose inputs are all constant, or made by nodes that are. */
static void
find_foldable (Fold *fold)
{
  g_autoptr (GHashTable) feeding = g_hash_table_new (NULL, NULL);
  Onnx__GraphProto *graph = fold->graph;

  for (size_t n = 0; n < graph->n_node; n++)
    {
      Onnx__NodeProto *node = graph->node[n];
      gboolean constant = op_folds (node) && !g_hash_table_contains (fold->left_out, node);
      guint64 input_bytes = 0;

      for (size_t k = 0; k < node->n_input && constant; k++)
        {
          const char *name = node->input[k];
          Onnx__NodeProto *producer;
          if (name[0] == '\0' || g_hash_table_contains (fold->folded_names, name))
            continue;
          if (!onyx_simplify_is_constant (fold->ctx, graph, name))
            {
              constant = FALSE;
              break;
            }
          /* Weights stay where they are: folding them would copy them (a transposed
           * weight) through the helper for a result too big to keep. */
          input_bytes += constant_bytes (fold->ctx, graph, name);
          producer = onyx_simplify_producer (fold->ctx, graph, name);
          if (producer != NULL && g_hash_table_add (feeding, producer))
            g_ptr_array_add (fold->feeding, producer);
        }
      if (!constant || input_bytes > ONYX_SIMPLIFY_LARGEST_FOLD)
        continue;
      g_ptr_array_add (fold->folding, node);
      for (size_t k = 0; k < node->n_output; k++)
        if (node->output[k][0] != '\0')
          g_hash_table_add (fold->folded_names, node->output[k]);
    }
}

/* CastLike has no CPU kernel in ONNX Runtime 1.31: evaluated as the Cast it is. */
static Onnx__NodeProto *
castlike_as_cast (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const Onnx__NodeProto *node)
{
  Onnx__TensorProto *like = node->n_input > 1 ? onyx_simplify_initializer (ctx, graph, node->input[1]) : NULL;
  Onnx__NodeProto *producer = node->n_input > 1 ? onyx_simplify_producer (ctx, graph, node->input[1]) : NULL;
  const Onnx__TensorProto *constant = producer != NULL ? onyx_simplify_constant_tensor (producer) : NULL;
  int to = like != NULL ? like->data_type : constant != NULL ? constant->data_type
                                                             : onyx_simplify_elem_type (ctx, graph, node->input[1]);
  Onnx__NodeProto *cast;
  Onnx__AttributeProto *attr;

  if (to == 0)
    return NULL;
  cast = g_malloc0 (sizeof *cast);
  onnx__node_proto__init (cast);
  cast->op_type = "Cast";
  cast->name = node->name;
  cast->n_input = 1;
  cast->input = node->input;
  cast->n_output = node->n_output;
  cast->output = node->output;
  attr = g_malloc0 (sizeof *attr);
  onnx__attribute_proto__init (attr);
  attr->name = "to";
  attr->has_type = TRUE;
  attr->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
  attr->has_i = TRUE;
  attr->i = to;
  cast->n_attribute = 1;
  cast->attribute = g_malloc (sizeof *cast->attribute);
  cast->attribute[0] = attr;
  return cast;
}

/* A Cast made by castlike_as_cast: its strings are the CastLike's. */
static void
cast_free (Onnx__NodeProto *cast)
{
  g_free (cast->attribute[0]);
  g_free (cast->attribute);
  g_free (cast);
}

/* Evaluates the nodes to fold; those ONNX Runtime refuses by name are left out (with
 * what depends on them) and the rest tried again. NULL when nothing could be. */
static GPtrArray *
evaluate (Fold *fold, GError **error)
{
  for (guint attempt = 0; attempt < MAX_ATTEMPTS && fold->folding->len > 0; attempt++)
    {
      g_autoptr (GPtrArray) nodes = g_ptr_array_new ();
      g_autoptr (GPtrArray) casts = g_ptr_array_new_with_free_func ((GDestroyNotify) cast_free);
      g_autoptr (GPtrArray) outputs = g_ptr_array_new ();
      g_autoptr (GError) refusal = NULL;
      GPtrArray *values;
      gboolean named = FALSE;

      g_ptr_array_extend (nodes, fold->feeding, NULL, NULL);
      for (guint i = 0; i < fold->folding->len; i++)
        {
          Onnx__NodeProto *node = fold->folding->pdata[i];
          Onnx__NodeProto *cast = onyx_simplify_is_op (node, "CastLike")
                                    ? castlike_as_cast (fold->ctx, fold->graph, node) : NULL;
          if (cast != NULL)
            g_ptr_array_add (casts, cast);
          g_ptr_array_add (nodes, cast != NULL ? cast : node);
          for (size_t k = 0; k < node->n_output; k++)
            if (node->output[k][0] != '\0')
              g_ptr_array_add (outputs, node->output[k]);
        }
      g_ptr_array_add (outputs, NULL);
      values = onyx_simplify_evaluate (fold->ctx, fold->graph, nodes, (const char *const *) outputs->pdata,
                                       &refusal);
      if (values != NULL)
        return values;
      if (!g_error_matches (refusal, ONYX_RUN_ERROR, ONYX_RUN_ERROR_REFUSED))
        {
          g_propagate_error (error, g_steal_pointer (&refusal));
          return NULL;
        }
      /* The node ONNX Runtime names (by its name, in quotes) is left out. */
      for (guint i = 0; i < fold->folding->len && !named; i++)
        {
          Onnx__NodeProto *node = fold->folding->pdata[i];
          g_autofree char *quoted = g_strdup_printf ("'%s'", node->name != NULL ? node->name : "");
          if (node->name != NULL && node->name[0] != '\0' && strstr (refusal->message, quoted) != NULL)
            {
              g_hash_table_add (fold->left_out, node);
              named = TRUE;
            }
        }
      if (!named)
        {
          onyx_simplify_note (fold->ctx, _("Constant folding skipped a graph that ONNX Runtime refuses: %s"),
                              refusal->message);
          return NULL;
        }
      g_ptr_array_set_size (fold->folding, 0);
      g_ptr_array_set_size (fold->feeding, 0);
      g_hash_table_remove_all (fold->folded_names);
      find_foldable (fold);
    }
  return NULL;
}

static guint64
value_bytes (const OnyxArray *value)
{
  return value != NULL ? g_bytes_get_size (value->data) : G_MAXUINT64;
}

/* Nodes that stay: results unknown or too large, and the graph's outputs (which keep
 * a node making them). */
static GHashTable *
nodes_kept (Fold *fold, GHashTable *values)
{
  GHashTable *kept = g_hash_table_new (NULL, NULL);

  for (guint i = 0; i < fold->folding->len; i++)
    {
      Onnx__NodeProto *node = fold->folding->pdata[i];
      guint64 in = 0, out = 0;
      gboolean keep = FALSE;

      for (size_t k = 0; k < node->n_input; k++)
        if (node->input[k][0] != '\0')
          {
            OnyxArray *value = g_hash_table_lookup (values, node->input[k]);
            guint64 bytes = value != NULL ? value_bytes (value) : constant_bytes (fold->ctx, fold->graph, node->input[k]);
            in = bytes == G_MAXUINT64 || in + bytes < in ? G_MAXUINT64 : in + bytes;
          }
      for (size_t k = 0; k < node->n_output && !keep; k++)
        {
          const char *name = node->output[k];
          if (name[0] == '\0')
            continue;
          if (!g_hash_table_contains (values, name) || onyx_simplify_is_output (fold->graph, name))
            keep = TRUE;
          else
            out += value_bytes (g_hash_table_lookup (values, name));
        }
      if (keep || out > ONYX_SIMPLIFY_LARGEST_FOLD ||
          (out > SMALL_RESULT && (in == 0 || out / GROWTH_LIMIT > in)))
        g_hash_table_add (kept, node);
    }
  return kept;
}

/* Whether `name` is read by a node that stays (kept, or not folded at all). */
static gboolean
read_by_remaining (Fold *fold, GHashTable *kept, GHashTable *removed, const char *name)
{
  OnyxValue *value = onyx_graph_index_lookup (onyx_document_get_graph_index (fold->ctx->doc, fold->graph), name);

  for (guint u = 0; value != NULL && u < value->uses->len; u++)
    {
      Onnx__NodeProto *reader = g_array_index (value->uses, OnyxUse, u).node;
      if (!g_hash_table_contains (removed, reader) || g_hash_table_contains (kept, reader))
        return TRUE;
    }
  return FALSE;
}

/* An Identity of a constant folds into the constant itself: its readers read it
 * (TorchScript shares a weight between layers through Identity nodes, which a copy
 * per reader would multiply). */
static guint
fold_identities (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph)
{
  g_autoptr (GPtrArray) identities = g_ptr_array_new ();
  guint n = 0;

  for (size_t i = 0; i < graph->n_node; i++)
    if (onyx_simplify_is_op (graph->node[i], "Identity") && graph->node[i]->n_input == 1 &&
        graph->node[i]->n_output == 1 && onyx_simplify_initializer (ctx, graph, graph->node[i]->input[0]) != NULL)
      g_ptr_array_add (identities, graph->node[i]);
  for (guint i = 0; i < identities->len; i++)
    {
      Onnx__NodeProto *node = identities->pdata[i];
      n += onyx_simplify_bypass (ctx, graph, node, 0, node->input[0]);
    }
  return n;
}

static guint
fold_run (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, GError **error)
{
  const char *reason;
  g_autoptr (GPtrArray) folding = g_ptr_array_new ();
  g_autoptr (GPtrArray) feeding = g_ptr_array_new ();
  g_autoptr (GHashTable) folded_names = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) left_out = g_hash_table_new (NULL, NULL);
  g_autoptr (GHashTable) values = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) kept = NULL, removed = g_hash_table_new (NULL, NULL);
  g_autoptr (GPtrArray) evaluated = NULL;
  Fold fold = { ctx, graph, folding, folded_names, feeding, left_out };
  guint n_folded = fold_identities (ctx, graph);

  find_foldable (&fold);
  if (folding->len == 0)
    return n_folded;
  if (!ctx->replaying && !onyx_run_available (&reason))
    {
      onyx_simplify_note (ctx, _("Constant folding needs ONNX Runtime, which this build lacks (%s): only what "
                                 "shape inference proves was folded."), reason);
      return n_folded;
    }
  evaluated = evaluate (&fold, error);
  if (evaluated == NULL)
    return error != NULL && *error != NULL ? G_MAXUINT : n_folded;
  for (guint i = 0; i < evaluated->len; i++)
    if (evaluated->pdata[i] != NULL)
      g_hash_table_insert (values, ((OnyxArray *) evaluated->pdata[i])->name, evaluated->pdata[i]);

  kept = nodes_kept (&fold, values);
  for (guint i = 0; i < folding->len; i++)
    if (!g_hash_table_contains (kept, folding->pdata[i]))
      g_hash_table_add (removed, folding->pdata[i]);
  for (guint i = 0; i < folding->len; i++)
    {
      Onnx__NodeProto *node = folding->pdata[i];
      g_autoptr (GPtrArray) outputs = g_ptr_array_new_with_free_func (g_free);
      if (!g_hash_table_contains (removed, node))
        continue;
      /* What a remaining node reads becomes an initializer; the rest goes with the node. */
      for (size_t k = 0; k < node->n_output; k++)
        if (node->output[k][0] != '\0' && read_by_remaining (&fold, kept, removed, node->output[k]))
          g_ptr_array_add (outputs, g_strdup (node->output[k]));
      onyx_simplify_remove_node (ctx, node);
      for (guint k = 0; k < outputs->len; k++)
        onyx_simplify_add_initializer (ctx, graph,
                                       onyx_tensor_new_from_array (g_hash_table_lookup (values, outputs->pdata[k]),
                                                                   outputs->pdata[k]));
      n_folded++;
    }
  return n_folded;
}

const OnyxSimplifyPass onyx_simplify_fold_pass = {
  .name = "fold",
  .title = N_("Constant folding"),
  .flag = ONYX_SIMPLIFY_FOLD,
  .run = fold_run,
};
