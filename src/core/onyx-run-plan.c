/* onyx-run-plan.c: what each graph input of a model is, worked out from the model, so
 * that the inputs Onyx makes mean something: token ids within the embedding table, an
 * attention mask of ones, positions after the past, a KV cache whose lengths agree
 * (total = past + new), small whole numbers for other integers; and an image of
 * unknown size is not run at 1×1 without asking. */
#include "onyx-run-plan.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "onyx-types.h"
#include "onyx-validate.h"

/* Sizes of the sequence dims an LLM-shaped model is run with when none is given. */
#define DEFAULT_NEW_TOKENS 4
#define DEFAULT_PAST_TOKENS 4
/* Other integer inputs: whole numbers in [0, this). */
#define SMALL_INTEGERS 4

gboolean
onyx_run_is_initializer (const Onnx__GraphProto *graph, const char *name)
{
  for (size_t i = 0; i < graph->n_initializer; i++)
    if (g_strcmp0 (graph->initializer[i]->name, name) == 0)
      return TRUE;
  return FALSE;
}

GPtrArray *
onyx_run_runtime_inputs (const Onnx__GraphProto *graph)
{
  GPtrArray *inputs = g_ptr_array_new ();
  for (size_t i = 0; i < graph->n_input; i++)
    if (graph->input[i]->name != NULL && !onyx_run_is_initializer (graph, graph->input[i]->name))
      g_ptr_array_add (inputs, graph->input[i]);
  return inputs;
}

static const Onnx__TypeProto__Tensor *
tensor_type (const Onnx__ValueInfoProto *info)
{
  return info->type != NULL && info->type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE
           ? info->type->tensor_type : NULL;
}

const Onnx__TensorShapeProto *
onyx_run_input_shape (const Onnx__ValueInfoProto *info)
{
  const Onnx__TypeProto__Tensor *type = tensor_type (info);
  return type != NULL ? type->shape : NULL;
}

int
onyx_run_input_elem_type (const Onnx__ValueInfoProto *info)
{
  const Onnx__TypeProto__Tensor *type = tensor_type (info);
  return type != NULL ? type->elem_type : 0;
}

GPtrArray *
onyx_run_input_dim_params (const Onnx__GraphProto *graph)
{
  g_autoptr (GPtrArray) inputs = onyx_run_runtime_inputs (graph);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  GPtrArray *names = g_ptr_array_new ();

  for (guint i = 0; i < inputs->len; i++)
    {
      const Onnx__TypeProto__Tensor *type = tensor_type (inputs->pdata[i]);
      for (size_t d = 0; type != NULL && type->shape != NULL && d < type->shape->n_dim; d++)
        {
          const Onnx__TensorShapeProto__Dimension *dim = type->shape->dim[d];
          if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
              dim->dim_param[0] != '\0' && g_hash_table_add (seen, dim->dim_param))
            g_ptr_array_add (names, dim->dim_param);
        }
    }
  return names;
}

static gboolean
is_integer (int elem_type)
{
  return elem_type == 2 || elem_type == 3 || elem_type == 4 || elem_type == 5 || elem_type == 6 ||
         elem_type == 7 || elem_type == 12 || elem_type == 13;
}

static const Onnx__TensorProto *
initializer_named (const Onnx__GraphProto *graph, const char *name)
{
  for (size_t i = 0; i < graph->n_initializer; i++)
    if (g_strcmp0 (graph->initializer[i]->name, name) == 0)
      return graph->initializer[i];
  return NULL;
}

/* The rows of the table a Gather (or GatherBlockQuantized) reads with `name` as its
 * indices: an embedding's vocabulary; 0 when none does. */
static gint64
gathered_rows (const Onnx__GraphProto *graph, const char *name, const char **node_name)
{
  for (size_t n = 0; n < graph->n_node; n++)
    {
      const Onnx__NodeProto *node = graph->node[n];
      const Onnx__TensorProto *table;
      if (node->n_input < 2 || g_strcmp0 (node->input[1], name) != 0 ||
          (g_strcmp0 (node->op_type, "Gather") != 0 && g_strcmp0 (node->op_type, "GatherBlockQuantized") != 0))
        continue;
      table = initializer_named (graph, node->input[0]);
      if (table != NULL && table->n_dims >= 1 && table->dims[0] > 0)
        {
          *node_name = node->name;
          return table->dims[0];
        }
    }
  return 0;
}

static const char *
dim_param (const Onnx__ValueInfoProto *info, gsize axis)
{
  const Onnx__TensorShapeProto *shape = onyx_run_input_shape (info);
  if (shape == NULL || axis >= shape->n_dim ||
      shape->dim[axis]->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
    return NULL;
  return shape->dim[axis]->dim_param;
}

static void
plan_free (OnyxInputPlan *plan)
{
  g_free (plan->why);
  g_free (plan);
}

GPtrArray *
onyx_run_plan_inputs (OnyxModel *model)
{
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  g_autoptr (GPtrArray) inputs = onyx_run_runtime_inputs (graph);
  GPtrArray *plans = g_ptr_array_new_with_free_func ((GDestroyNotify) plan_free);

  for (guint i = 0; i < inputs->len; i++)
    {
      const Onnx__ValueInfoProto *info = inputs->pdata[i];
      const Onnx__TensorShapeProto *shape = onyx_run_input_shape (info);
      int elem_type = onyx_run_input_elem_type (info);
      const char *name = info->name != NULL ? info->name : "";
      OnyxInputPlan *plan = g_new0 (OnyxInputPlan, 1);
      const char *gather = NULL;
      gint64 rows = is_integer (elem_type) ? gathered_rows (graph, name, &gather) : 0;

      plan->name = name;
      if (rows > 0 || (is_integer (elem_type) && g_str_has_suffix (name, "input_ids")))
        {
          plan->role = ONYX_INPUT_TOKEN_IDS;
          plan->vocabulary = rows > 0 ? rows : 100;
          plan->why = rows > 0 ? g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                               "token ids in [0, %lld): %s reads a table of %lld row",
                                                               "token ids in [0, %lld): %s reads a table of %lld rows",
                                                               (gulong) MIN (rows, G_MAXLONG)),
                                                  (long long) rows,
                                                  /* Translators: an unnamed Gather node, the %s of the line above. */
                                                  gather != NULL ? gather : _("a Gather"),
                                                  (long long) rows)
                               : g_strdup (_("token ids in [0, 100)"));
        }
      else if (is_integer (elem_type) && strstr (name, "mask") != NULL)
        plan->role = ONYX_INPUT_MASK, plan->why = g_strdup (_("a mask: ones"));
      else if (is_integer (elem_type) && strstr (name, "position_ids") != NULL)
        plan->role = ONYX_INPUT_POSITIONS, plan->why = g_strdup (_("positions after the past: past … past + new − 1"));
      else if (g_str_has_prefix (name, "past") && shape != NULL && shape->n_dim == 4)
        plan->role = ONYX_INPUT_PAST, plan->why = g_strdup (_("a KV cache: random values, past tokens long"));
      else if (is_integer (elem_type))
        plan->role = ONYX_INPUT_INDEX,
        plan->why = g_strdup_printf (_("whole numbers in [0, %d)"), SMALL_INTEGERS);
      else
        plan->role = ONYX_INPUT_PLAIN;
      g_ptr_array_add (plans, plan);
    }
  return plans;
}

const OnyxInputPlan *
onyx_run_plan_find (GPtrArray *plans, const char *name)
{
  for (guint i = 0; plans != NULL && i < plans->len; i++)
    if (g_strcmp0 (((const OnyxInputPlan *) plans->pdata[i])->name, name) == 0)
      return plans->pdata[i];
  return NULL;
}

gboolean
onyx_run_plan_sequence_dims (GPtrArray *plans, OnyxModel *model, OnyxSequenceDims *names)
{
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;

  *names = (OnyxSequenceDims) { NULL, NULL, NULL };
  for (guint i = 0; i < plans->len; i++)
    {
      const OnyxInputPlan *plan = plans->pdata[i];
      const Onnx__ValueInfoProto *info = NULL;
      for (size_t k = 0; k < graph->n_input && info == NULL; k++)
        if (g_strcmp0 (graph->input[k]->name, plan->name) == 0)
          info = graph->input[k];
      if (info == NULL)
        continue;
      if (plan->role == ONYX_INPUT_TOKEN_IDS && names->new_tokens == NULL)
        names->new_tokens = dim_param (info, 1);
      else if (plan->role == ONYX_INPUT_PAST && names->past == NULL)
        names->past = dim_param (info, 2);
      else if (plan->role == ONYX_INPUT_MASK && names->total == NULL)
        names->total = dim_param (info, 1);
    }
  return names->past != NULL;
}

/* The sizes a KV-cached model runs with where none is chosen: new tokens, a past of
 * as many, the total their sum (the mask's length), so that GroupQueryAttention and
 * friends get lengths that agree. Chosen sizes are kept; a total follows them. */
int
onyx_run_plan_dims (GPtrArray *plans, OnyxModel *model, GHashTable *dims)
{
  OnyxSequenceDims names;
  const char *new_param, *past_param, *total_param;
  gpointer value;
  int new_size, past_size;

  if (!onyx_run_plan_sequence_dims (plans, model, &names))
    return 0;
  new_param = names.new_tokens;
  past_param = names.past;
  total_param = names.total;
  if (new_param != NULL && !g_hash_table_contains (dims, new_param))
    g_hash_table_insert (dims, g_strdup (new_param), GINT_TO_POINTER (DEFAULT_NEW_TOKENS));
  if (!g_hash_table_contains (dims, past_param))
    g_hash_table_insert (dims, g_strdup (past_param), GINT_TO_POINTER (DEFAULT_PAST_TOKENS));
  past_size = GPOINTER_TO_INT (g_hash_table_lookup (dims, past_param));
  if (total_param == NULL || g_strcmp0 (total_param, new_param) == 0 || g_hash_table_contains (dims, total_param))
    return past_size;
  new_size = new_param != NULL && g_hash_table_lookup_extended (dims, new_param, NULL, &value)
               ? GPOINTER_TO_INT (value) : 1;
  g_hash_table_insert (dims, g_strdup (total_param), GINT_TO_POINTER (new_size + past_size));
  return past_size;
}

GHashTable *
onyx_run_copy_dims (GHashTable *dims)
{
  GHashTable *copy = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTableIter iter;
  gpointer key, value;

  if (dims == NULL)
    return copy;
  g_hash_table_iter_init (&iter, dims);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_hash_table_insert (copy, g_strdup (key), value);
  return copy;
}

GHashTable *
onyx_run_plan_sizes (OnyxModel *model, GHashTable *chosen)
{
  g_autoptr (GPtrArray) plans = onyx_run_plan_inputs (model);
  GHashTable *sizes = onyx_run_copy_dims (chosen);

  onyx_run_plan_dims (plans, model, sizes);
  return sizes;
}
