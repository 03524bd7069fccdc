/* What Simplify asks of ONNX's inference and of ONNX Runtime, recorded in the order
 * it asks, so that a second run on a copy of the same model makes the same changes
 * without asking again (the app simplifies a copy in a thread, then the document
 * itself at once); and the evaluation of constant nodes in ONNX Runtime. */
#include <string.h>

#include "onyx-simplify-private.h"

#include "onyx-domain.h"

typedef struct {
  char *question;         /* "shape NAME" or "evaluate NAME…" */
  gboolean known;
  int elem_type;
  GArray *dims;
  GPtrArray *symbols;
  GPtrArray *values;      /* OnyxArray of an evaluation */
  char *refusal;          /* ONNX Runtime's refusal of an evaluation */
} Answer;

struct _OnyxSimplifyTape {
  GPtrArray *answers;     /* Answer* */
  guint next;             /* the next answer a replay reads */
  gboolean diverged;      /* a replay asked something else: it asks the model from then on */
};

static void
answer_free (Answer *answer)
{
  g_free (answer->question);
  g_clear_pointer (&answer->dims, g_array_unref);
  g_clear_pointer (&answer->symbols, g_ptr_array_unref);
  g_clear_pointer (&answer->values, g_ptr_array_unref);
  g_free (answer->refusal);
  g_free (answer);
}

OnyxSimplifyTape *
onyx_simplify_tape_new (void)
{
  OnyxSimplifyTape *tape = g_new0 (OnyxSimplifyTape, 1);

  tape->answers = g_ptr_array_new_with_free_func ((GDestroyNotify) answer_free);
  return tape;
}

void
onyx_simplify_tape_free (OnyxSimplifyTape *tape)
{
  if (tape == NULL)
    return;
  g_ptr_array_unref (tape->answers);
  g_free (tape);
}

void
onyx_simplify_tape_clear (OnyxSimplifyTape *tape)
{
  g_ptr_array_set_size (tape->answers, 0);
  onyx_simplify_tape_rewind (tape);
}

void
onyx_simplify_tape_rewind (OnyxSimplifyTape *tape)
{
  tape->next = 0;
  tape->diverged = FALSE;
}

/* The recorded answer to `question` when replaying it, NULL when the model is to be
 * asked (recording, or the replay has parted from the recording). */
static Answer *
replayed (OnyxSimplifyContext *ctx, const char *question)
{
  OnyxSimplifyTape *tape = ctx->tape;
  Answer *answer;

  if (tape == NULL || !ctx->replaying || tape->diverged)
    return NULL;
  answer = tape->next < tape->answers->len ? tape->answers->pdata[tape->next] : NULL;
  if (answer == NULL || strcmp (answer->question, question) != 0)
    {
      tape->diverged = TRUE;
      return NULL;
    }
  tape->next++;
  return answer;
}

static Answer *
recorded (OnyxSimplifyContext *ctx, const char *question)
{
  Answer *answer;

  if (ctx->tape == NULL || ctx->replaying)
    return NULL;
  answer = g_new0 (Answer, 1);
  answer->question = g_strdup (question);
  g_ptr_array_add (ctx->tape->answers, answer);
  return answer;
}

/* The snapshot of inference the live questions read: made at a pass's first
 * question. */
static OnyxShapes *
live_shapes (OnyxSimplifyContext *ctx)
{
  if (ctx->shapes == NULL)
    ctx->shapes = onyx_shapes_ref (onyx_document_get_shapes (ctx->doc));
  return ctx->shapes;
}

gboolean
onyx_simplify_tensor_shape (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const char *name,
                            int *elem_type, GArray **dims, GPtrArray **symbols)
{
  g_autofree char *question = g_strdup_printf ("shape %s", name != NULL ? name : "");
  Answer *answer = replayed (ctx, question);
  Answer fresh = { 0 };

  if (answer == NULL)
    {
      OnyxShapes *shapes = live_shapes (ctx);
      const Onnx__TypeProto *type = shapes != NULL && name != NULL
                                      ? onyx_shapes_lookup (shapes, graph, name, NULL) : NULL;
      const Onnx__TypeProto__Tensor *tensor = type != NULL ? type->tensor_type : NULL;

      answer = recorded (ctx, question);
      if (answer == NULL)
        answer = &fresh;
      answer->known = tensor != NULL && tensor->shape != NULL;
      answer->elem_type = tensor != NULL ? tensor->elem_type : 0;
      answer->dims = g_array_new (FALSE, FALSE, sizeof (gint64));
      answer->symbols = g_ptr_array_new_with_free_func (g_free);
      for (size_t i = 0; answer->known && i < tensor->shape->n_dim; i++)
        {
          const Onnx__TensorShapeProto__Dimension *dim = tensor->shape->dim[i];
          gint64 value = dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE
                           ? dim->dim_value : -1;
          g_array_append_val (answer->dims, value);
          g_ptr_array_add (answer->symbols,
                           dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
                               dim->dim_param != NULL && dim->dim_param[0] != '\0'
                             ? g_strdup (dim->dim_param) : NULL);
        }
    }
  if (elem_type != NULL)
    *elem_type = answer->elem_type;
  if (dims != NULL)
    *dims = answer->known ? g_array_copy (answer->dims) : NULL;
  if (symbols != NULL)
    {
      *symbols = NULL;
      if (answer->known)
        {
          *symbols = g_ptr_array_new_with_free_func (g_free);
          for (guint i = 0; i < answer->symbols->len; i++)
            g_ptr_array_add (*symbols, g_strdup (answer->symbols->pdata[i]));
        }
    }
  if (answer == &fresh)
    {
      g_array_unref (fresh.dims);
      g_ptr_array_unref (fresh.symbols);
    }
  return answer->known;
}

int
onyx_simplify_elem_type (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const char *name)
{
  int elem_type = 0;

  onyx_simplify_tensor_shape (ctx, graph, name, &elem_type, NULL, NULL);
  return elem_type;
}

/* ---- Evaluation in ONNX Runtime ---- */

/* A model of the nodes alone: their constant inputs as initializers (payloads shared
 * with the document's model), the outputs asked for as its outputs. */
static OnyxModel *
evaluation_model (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, GPtrArray *nodes,
                  const char *const *outputs)
{
  Onnx__ModelProto *source = onyx_document_get_proto (ctx->doc);
  Onnx__ModelProto *model = g_malloc0 (sizeof *model);
  Onnx__GraphProto *part = g_malloc0 (sizeof *part);
  g_autoptr (GHashTable) made = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) given = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GPtrArray) initializers = g_ptr_array_new ();
  guint n_outputs = g_strv_length ((char **) outputs);

  onnx__model_proto__init (model);
  onnx__graph_proto__init (part);
  model->has_ir_version = source->has_ir_version;
  model->ir_version = source->ir_version;
  model->n_opset_import = source->n_opset_import;
  model->opset_import = g_malloc0_n (MAX (source->n_opset_import, 1), sizeof *model->opset_import);
  for (size_t i = 0; i < source->n_opset_import; i++)
    model->opset_import[i] = (Onnx__OperatorSetIdProto *) onyx_proto_copy (&source->opset_import[i]->base);
  model->graph = part;
  part->name = g_strdup ("simplify");

  part->n_node = nodes->len;
  part->node = g_malloc0_n (MAX (nodes->len, 1), sizeof *part->node);
  for (guint i = 0; i < nodes->len; i++)
    {
      const Onnx__NodeProto *node = nodes->pdata[i];
      part->node[i] = (Onnx__NodeProto *) onyx_model_copy_sharing (ctx->model, &node->base);
      for (size_t k = 0; k < node->n_output; k++)
        g_hash_table_add (made, node->output[k]);
    }
  for (guint i = 0; i < nodes->len; i++)
    {
      const Onnx__NodeProto *node = nodes->pdata[i];
      for (size_t k = 0; k < node->n_input; k++)
        {
          const char *name = node->input[k];
          Onnx__TensorProto *tensor;
          if (name[0] == '\0' || g_hash_table_contains (made, name) || !g_hash_table_add (given, (gpointer) name))
            continue;
          tensor = onyx_simplify_initializer (ctx, graph, name);
          if (tensor != NULL)
            g_ptr_array_add (initializers, onyx_model_copy_sharing (ctx->model, &tensor->base));
        }
    }
  part->n_initializer = initializers->len;
  part->initializer = (Onnx__TensorProto **) g_ptr_array_free (g_steal_pointer (&initializers), FALSE);
  part->n_output = n_outputs;
  part->output = g_malloc0_n (MAX (n_outputs, 1), sizeof *part->output);
  for (guint i = 0; i < n_outputs; i++)
    {
      part->output[i] = g_malloc0 (sizeof (Onnx__ValueInfoProto));
      onnx__value_info_proto__init (part->output[i]);
      part->output[i]->name = g_strdup (outputs[i]);
    }
  return onyx_model_new_derived (ctx->model, model);
}

static GPtrArray *
evaluate_live (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, GPtrArray *nodes,
               const char *const *outputs, GError **error)
{
  g_autoptr (OnyxModel) model = evaluation_model (ctx, graph, nodes, outputs);
  g_autoptr (GPtrArray) inputs = g_ptr_array_new ();
  OnyxRunOptions options = { .keep_all = TRUE, .untraced = TRUE };
  g_autoptr (OnyxRunResult) result = onyx_run_model (model, inputs, &options, error);
  GPtrArray *values;

  if (result == NULL)
    return NULL;
  values = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_array_free);
  for (guint i = 0; outputs[i] != NULL; i++)
    {
      OnyxArray *value = onyx_array_find (result->values, outputs[i]);
      g_ptr_array_add (values, value != NULL ? onyx_array_new (value->name, value->elem_type, value->dims,
                                                               value->n_dims, value->data)
                                             : NULL);
    }
  return values;
}

GPtrArray *
onyx_simplify_evaluate (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, GPtrArray *nodes,
                        const char *const *outputs, GError **error)
{
  g_autofree char *names = g_strjoinv (" ", (char **) outputs);
  g_autofree char *question = g_strdup_printf ("evaluate %s", names);
  Answer *answer = replayed (ctx, question);
  GPtrArray *values;
  g_autoptr (GError) local_error = NULL;

  if (answer == NULL)
    {
      values = evaluate_live (ctx, graph, nodes, outputs, &local_error);
      answer = recorded (ctx, question);
      if (answer != NULL)
        {
          answer->values = values != NULL ? g_ptr_array_ref (values) : NULL;
          answer->refusal = local_error != NULL ? g_strdup (local_error->message) : NULL;
        }
      if (values == NULL)
        g_propagate_error (error, g_steal_pointer (&local_error));
      return values;
    }
  if (answer->values == NULL)
    {
      g_set_error_literal (error, ONYX_RUN_ERROR, ONYX_RUN_ERROR_REFUSED, answer->refusal);
      return NULL;
    }
  return g_ptr_array_ref (answer->values);
}
