/* onyx-run-messages.c: what a run found, said for a person (onyx-run-private.h):
 * the node ONNX Runtime could not run or failed at, with the sizes Onyx chose for
 * the inputs it made; where NaN or Inf first appear. */
#include "onyx-run-private.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "onyx-text.h"

/* "'/FooOp' (devtech::FooOp)", "'(unnamed)' (Resize)" */
static char *
describe_node (const Onnx__NodeProto *node)
{
  gboolean named = node->name != NULL && node->name[0] != '\0';
  gboolean custom = node->domain != NULL && node->domain[0] != '\0';

  return g_strdup_printf ("'%s' (%s%s%s)", named ? node->name : _("(unnamed)"), custom ? node->domain : "",
                          custom ? "::" : "", node->op_type);
}

/* Whether ONNX Runtime's message is about this node: it names nodes by operator
 * ("devtech:FooOp(-1) is not a registered function/op", "Could not find an
 * implementation for Min(13) node with name ''") or by name ("Node (x)", "'x'");
 * a kernel that failed on the data says "running Resize node. Name:''". */
static gboolean
names_node (const char *text, const Onnx__NodeProto *node, gboolean at_run)
{
  const char *domain = node->domain != NULL && node->domain[0] != '\0' ? node->domain : "ai.onnx";
  g_autofree char *op = g_strdup_printf ("%s:%s(", domain, node->op_type);
  g_autofree char *kernel = g_strdup_printf ("implementation for %s(", node->op_type);
  g_autofree char *running = g_strdup_printf ("running %s node. Name:'%s'", node->op_type,
                                              node->name != NULL ? node->name : "");
  gboolean named = node->name != NULL && node->name[0] != '\0';
  g_autofree char *quoted = named ? g_strdup_printf ("'%s'", node->name) : NULL;
  g_autofree char *bracketed = named ? g_strdup_printf ("Node (%s)", node->name) : NULL;

  if (at_run)
    return strstr (text, running) != NULL;
  return strstr (text, op) != NULL || strstr (text, kernel) != NULL ||
         (quoted != NULL && strstr (text, quoted) != NULL) || (bracketed != NULL && strstr (text, bracketed) != NULL);
}

/* Whether the table of sizes someone chose holds this dim, by name or as INPUT:AXIS. */
static gboolean
sized (GHashTable *chosen, const Onnx__TensorShapeProto__Dimension *dim, const char *by_axis)
{
  return chosen != NULL &&
         (g_hash_table_contains (chosen, by_axis) ||
          (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
           g_hash_table_contains (chosen, dim->dim_param)));
}

/* "NAME=SIZE" of each free dim of the inputs Onyx made that no one sized (a name, or
 * INPUT:AXIS when it has none), as it ran; each once, in the inputs' order. */
static GPtrArray *
defaulted_dims (OnyxModel *model, GPtrArray *inputs, const OnyxRunOptions *options)
{
  g_autoptr (GPtrArray) infos = onyx_run_runtime_inputs (onyx_model_get_proto (model)->graph);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GPtrArray *said = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < infos->len; i++)
    {
      const Onnx__ValueInfoProto *info = infos->pdata[i];
      const Onnx__TensorShapeProto *shape = onyx_run_input_shape (info);
      const OnyxArray *array = onyx_array_find (inputs, info->name);

      if (shape == NULL || array == NULL || array->n_dims != shape->n_dim ||
          (options->given != NULL && onyx_array_find (options->given, info->name) != NULL))
        continue;
      for (gsize axis = 0; axis < shape->n_dim; axis++)
        {
          const Onnx__TensorShapeProto__Dimension *dim = shape->dim[axis];
          g_autofree char *key = g_strdup_printf ("%s:%zu", info->name, axis);

          if ((dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && dim->dim_value >= 0) ||
              sized (options->made->dims, dim, key))
            continue;
          if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && dim->dim_param[0] != '\0')
            {
              g_free (key);
              key = g_strdup (dim->dim_param);
            }
          if (g_hash_table_contains (seen, key))
            continue;
          g_ptr_array_add (said, g_strdup_printf ("%s=%lld", key, (long long) array->dims[axis]));
          g_hash_table_add (seen, g_steal_pointer (&key));
        }
    }
  return said;
}

/* " (Onyx made these inputs with the free dimension sequence=1 by default: …)", or ""
 * when Onyx chose no size: a failure on made-up inputs may be one of their sizes. */
static char *
made_dims_note (OnyxModel *model, GPtrArray *inputs, const OnyxRunOptions *options)
{
  g_autoptr (GPtrArray) dims = NULL;
  g_autofree char *list = NULL;

  if (options == NULL || options->made == NULL || inputs == NULL)
    return g_strdup ("");
  dims = defaulted_dims (model, inputs, options);
  if (dims->len == 0)
    return g_strdup ("");
  g_ptr_array_add (dims, NULL);
  list = g_strjoinv (", ", (char **) dims->pdata);
  /* TRANSLATORS: follows ONNX Runtime's message on a run's failure; %s lists sizes as
   * NAME=SIZE ("batch=1, sequence=1"). --dim is onyx-cli's option, Run Settings the
   * app's dialog. */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       " (Onyx made these inputs with the free dimension %s by default: set it "
                                       "with --dim NAME=SIZE, or in Run Settings)",
                                       " (Onyx made these inputs with the free dimensions %s by default: set "
                                       "them with --dim NAME=SIZE, or in Run Settings)", dims->len - 1),
                          list);
}

char *
onyx_run_refusal_message (OnyxModel *model, const char *runtime_text, GPtrArray *inputs,
                          const OnyxRunOptions *options)
{
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  /* The runtime's messages may list things on lines of their own. */
  g_autoptr (GRegex) breaks = g_regex_new ("\\s*\\n\\s*", 0, 0, NULL);
  g_autofree char *text = g_regex_replace_literal (breaks, runtime_text, -1, 0, " ", 0, NULL);
  gboolean at_run = strstr (text, "Non-zero status code returned while running") != NULL;

  g_strstrip (text);
  for (size_t i = 0; i < graph->n_node; i++)
    if (names_node (text, graph->node[i], at_run))
      {
        g_autofree char *node = describe_node (graph->node[i]);
        g_autofree char *failed = NULL, *note = NULL;
        if (!at_run)
          return g_strdup_printf (_("ONNX Runtime cannot run node %s: %s"), node, text);
        failed = g_strdup_printf (_("ONNX Runtime failed at node %s on these inputs: %s"), node, text);
        note = made_dims_note (model, inputs, options);
        return g_strconcat (failed, note, NULL);
      }
  return g_strdup_printf (_("ONNX Runtime cannot run %s: %s"), onyx_model_get_display_name (model), text);
}

/* ---- NaN and Inf ---- */

static gboolean
nonfinite (const OnyxRunStats *stats)
{
  return stats != NULL && stats->n_nan + stats->n_inf > 0;
}

static void
set_first_nonfinite (OnyxRunResult *result, const OnyxRunStats *stats, int node)
{
  if (result->first_nonfinite != NULL)
    onyx_run_stats_clear (result->first_nonfinite);
  g_free (result->first_nonfinite);
  result->first_nonfinite = onyx_run_stats_copy (stats);
  result->first_nonfinite_node = node;
}

gboolean
onyx_run_find_first_nonfinite (OnyxModel *model, GPtrArray *stats, gboolean every_tensor, OnyxRunResult *result)
{
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  g_autoptr (GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < stats->len; i++)
    g_hash_table_insert (by_name, ((OnyxRunStats *) stats->pdata[i])->name, stats->pdata[i]);
  /* Captured, a node's outputs say which node made them first; the graph's outputs
   * alone say only where they ended up. */
  for (size_t n = 0; every_tensor && n < graph->n_node; n++)
    for (size_t k = 0; k < graph->node[n]->n_output; k++)
      {
        const OnyxRunStats *found = g_hash_table_lookup (by_name, graph->node[n]->output[k]);
        if (nonfinite (found))
          {
            set_first_nonfinite (result, found, (int) n);
            return TRUE;
          }
      }
  for (guint i = 0; i < stats->len; i++)
    if (nonfinite (stats->pdata[i]))
      {
        set_first_nonfinite (result, stats->pdata[i], -1);
        break;
      }
  return FALSE;
}

const OnyxRunStats *
onyx_run_result_first_nonfinite (const OnyxRunResult *result)
{
  return result->first_nonfinite;
}

char *
onyx_run_result_describe_nonfinite (const OnyxRunResult *result, OnyxModel *model)
{
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  const OnyxRunStats *stats = result->first_nonfinite;
  const Onnx__NodeProto *node;
  g_autofree char *tensor = NULL, *counts = NULL, *name = NULL;
  const char *what;

  if (stats == NULL)
    return NULL;
  what = stats->n_nan > 0 ? "NaN" : "Inf";
  tensor = onyx_display_escape (stats->name);
  /* TRANSLATORS: the NaN and Inf of a tensor of 8 values: "8 NaN, 0 Inf of 8 values". */
  counts = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%llu NaN, %llu Inf of %llu value",
                                         "%llu NaN, %llu Inf of %llu values", (gulong) MIN (stats->count, G_MAXULONG)),
                            (unsigned long long) stats->n_nan, (unsigned long long) stats->n_inf,
                            (unsigned long long) stats->count);
  if (result->first_nonfinite_node < 0 || (size_t) result->first_nonfinite_node >= graph->n_node)
    /* TRANSLATORS: "NaN in y: 8 NaN, 0 Inf of 8 values"; the first %s is NaN or Inf. */
    return g_strdup_printf (_("%s in %s: %s"), what, tensor, counts);
  node = graph->node[result->first_nonfinite_node];
  if (node->name == NULL || node->name[0] == '\0')
    /* TRANSLATORS: "NaN first made by an unnamed Log node, in y: 8 NaN, 0 Inf of 8 values". */
    return g_strdup_printf (_("%s first made by an unnamed %s node, in %s: %s"), what, node->op_type, tensor, counts);
  name = onyx_display_escape (node->name);
  /* TRANSLATORS: "NaN first made by node the_div (Div), in q: 8 NaN, 0 Inf of 8 values"; the
   * first %s is NaN or Inf, then the node's name, its operator, the tensor. */
  return g_strdup_printf (_("%s first made by node %s (%s), in %s: %s"), what, name, node->op_type, tensor, counts);
}
