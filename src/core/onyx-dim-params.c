/* onyx-dim-params.c: the named dynamic dims of a graph's inputs and outputs, and
 * the ones whose names differ only in case or separators. */
#include "onyx-dim-params.h"
#include "onyx-diagnose-private.h"

#include <glib/gi18n-lib.h>

#include "onyx-types.h"
#include "onyx-text.h"

static void
dim_param_free (OnyxDimParam *dim)
{
  g_free (dim->name);
  g_ptr_array_unref (dim->tensors);
  g_free (dim);
}

static void
collect_dims (GPtrArray *dims, GHashTable *by_name, Onnx__ValueInfoProto **infos, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      const Onnx__TypeProto *type = infos[i]->type;
      const Onnx__TensorShapeProto *shape;

      if (type == NULL || type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
          type->tensor_type->shape == NULL)
        continue;
      shape = type->tensor_type->shape;
      for (size_t d = 0; d < shape->n_dim; d++)
        {
          const char *param
              = shape->dim[d]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM
                    ? shape->dim[d]->dim_param
                    : NULL;
          OnyxDimParam *dim;
          if (param == NULL || param[0] == '\0')
            continue;
          dim = g_hash_table_lookup (by_name, param);
          if (dim == NULL)
            {
              dim = g_new0 (OnyxDimParam, 1);
              dim->name = g_strdup (param);
              dim->tensors = g_ptr_array_new_with_free_func (g_free);
              g_ptr_array_add (dims, dim);
              g_hash_table_insert (by_name, dim->name, dim);
            }
          if (dim->tensors->len == 0 ||
              g_strcmp0 (dim->tensors->pdata[dim->tensors->len - 1], infos[i]->name) != 0)
            g_ptr_array_add (dim->tensors, g_strdup (infos[i]->name != NULL ? infos[i]->name : ""));
        }
    }
}

static GPtrArray *
graph_dim_params (const Onnx__GraphProto *graph)
{
  GPtrArray *dims = g_ptr_array_new_with_free_func ((GDestroyNotify) dim_param_free);
  g_autoptr (GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);

  if (graph != NULL)
    {
      collect_dims (dims, by_name, graph->input, graph->n_input);
      collect_dims (dims, by_name, graph->output, graph->n_output);
    }
  return dims;
}

GPtrArray *
onyx_model_dim_params (const Onnx__ModelProto *model)
{
  return graph_dim_params (model->graph);
}

/* "batch_size" and "BatchSize" alike: case and separators left out. */
static char *
dim_key (const char *name)
{
  GString *key = g_string_new (NULL);
  for (const char *p = name; *p != '\0'; p++)
    if (*p != '_' && *p != '-' && *p != ' ' && *p != '.')
      g_string_append_c (key, g_ascii_tolower (*p));
  return g_string_free (key, FALSE);
}

void
onyx_diagnose_dim_names (const OnyxCheckedGraph *g, const Onnx__GraphProto *graph, GPtrArray *out)
{
  g_autoptr (GPtrArray) dims = graph_dim_params (graph);
  g_autoptr (GHashTable) first_by_key
      = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  /* The most used spelling of a key (the first one on a tie) is taken as meant. */
  for (guint i = 0; i < dims->len; i++)
    {
      OnyxDimParam *dim = dims->pdata[i];
      char *key = dim_key (dim->name);
      OnyxDimParam *main_spelling = g_hash_table_lookup (first_by_key, key);
      if (main_spelling == NULL || dim->tensors->len > main_spelling->tensors->len)
        {
          g_hash_table_insert (first_by_key, key, dim);
          continue;
        }
      g_free (key);
    }
  for (guint i = 0; i < dims->len; i++)
    {
      OnyxDimParam *dim = dims->pdata[i];
      g_autofree char *key = dim_key (dim->name);
      OnyxDimParam *main_spelling = g_hash_table_lookup (first_by_key, key);
      if (main_spelling != dim)
        {
          g_autofree char *name = onyx_display_escape (dim->name);
          g_autofree char *other = onyx_display_escape (main_spelling->name);
          g_autofree char *tensor = onyx_display_escape (dim->tensors->pdata[0]);
          g_autofree char *other_tensor = onyx_display_escape (main_spelling->tensors->pdata[0]);
          onyx_diagnose_add (
              out, g, ONYX_PROBLEM_DIM_NAME, ONYX_PROBLEM_WARNING, NULL, -1, dim->tensors->pdata[0],
              _("dynamic dim '%s' of '%s' differs from '%s' of '%s' only in case or separators: "
              "a mistyped axis name makes them independent"),
              name, tensor, other, other_tensor);
        }
    }
}
