/* Extracting the part of a model between given tensors (onnx.utils.extract_model). */
#include "onyx-extract.h"

#include <glib/gi18n-lib.h>

#include <stdlib.h>
#include <string.h>

#include "onyx-document.h"
#include "onyx-graph-index.h"
#include "onyx-shapes.h"

#define MAX_SUBGRAPH_DEPTH 64

typedef struct {
  OnyxModel *model;
  Onnx__ModelProto *source;
  Onnx__GraphProto *graph;
  GHashTable *producer_of;    /* name → Onnx__NodeProto* */
  GHashTable *initializer_of; /* name → Onnx__TensorProto* */
  GHashTable *sparse_of;      /* name → Onnx__SparseTensorProto* */
  GHashTable *input_of;       /* name → graph input Onnx__ValueInfoProto* */
  GHashTable *output_of;      /* name → graph output Onnx__ValueInfoProto* */
  GHashTable *listed_inputs;  /* the names the cut starts from */
  GHashTable *reached;        /* names met walking back from the outputs */
  GHashTable *kept_nodes;
  GHashTable *touched;        /* names kept nodes read or write */
  GHashTable *used_functions; /* Onnx__FunctionProto* */
  OnyxShapes *shapes;         /* inferred the first time a type must be worked out */
} Extract;

static GHashTable *
names_of (void **items, size_t n_items, const char *(*name_of) (const void *item))
{
  GHashTable *map = g_hash_table_new (g_str_hash, g_str_equal);

  for (size_t i = 0; i < n_items; i++)
    {
      const char *name = name_of (items[i]);
      if (name != NULL && name[0] != '\0' && !g_hash_table_contains (map, name))
        g_hash_table_insert (map, (gpointer) name, items[i]);
    }
  return map;
}

static const char *
tensor_name (const void *item)
{
  return ((const Onnx__TensorProto *) item)->name;
}

static const char *
sparse_name (const void *item)
{
  const Onnx__SparseTensorProto *sparse = item;
  return sparse->values != NULL ? sparse->values->name : NULL;
}

static const char *
value_info_name (const void *item)
{
  return ((const Onnx__ValueInfoProto *) item)->name;
}

static void
extract_init (Extract *ex, OnyxModel *model)
{
  ex->model = model;
  ex->source = onyx_model_get_proto (model);
  ex->graph = ex->source->graph;
  ex->producer_of = g_hash_table_new (g_str_hash, g_str_equal);
  for (size_t n = ex->graph->n_node; n-- > 0;)
    for (size_t k = 0; k < ex->graph->node[n]->n_output; k++)
      if (ex->graph->node[n]->output[k][0] != '\0')
        g_hash_table_insert (ex->producer_of, ex->graph->node[n]->output[k], ex->graph->node[n]);
  ex->initializer_of = names_of ((void **) ex->graph->initializer, ex->graph->n_initializer, tensor_name);
  ex->sparse_of = names_of ((void **) ex->graph->sparse_initializer, ex->graph->n_sparse_initializer,
                            sparse_name);
  ex->input_of = names_of ((void **) ex->graph->input, ex->graph->n_input, value_info_name);
  ex->output_of = names_of ((void **) ex->graph->output, ex->graph->n_output, value_info_name);
  ex->listed_inputs = g_hash_table_new (g_str_hash, g_str_equal);
  ex->reached = g_hash_table_new (g_str_hash, g_str_equal);
  ex->kept_nodes = g_hash_table_new (NULL, NULL);
  ex->touched = g_hash_table_new (g_str_hash, g_str_equal);
  ex->used_functions = g_hash_table_new (NULL, NULL);
}

static void
extract_clear (Extract *ex)
{
  g_hash_table_unref (ex->producer_of);
  g_hash_table_unref (ex->initializer_of);
  g_hash_table_unref (ex->sparse_of);
  g_hash_table_unref (ex->input_of);
  g_hash_table_unref (ex->output_of);
  g_hash_table_unref (ex->listed_inputs);
  g_hash_table_unref (ex->reached);
  g_hash_table_unref (ex->kept_nodes);
  g_hash_table_unref (ex->touched);
  g_hash_table_unref (ex->used_functions);
  g_clear_pointer (&ex->shapes, onyx_shapes_unref);
}

static gboolean
is_stored (Extract *ex, const char *name)
{
  return g_hash_table_contains (ex->initializer_of, name) || g_hash_table_contains (ex->sparse_of, name);
}

static gboolean
check_names (Extract *ex, const char *const *names, GError **error)
{
  for (guint i = 0; names[i] != NULL; i++)
    if (!g_hash_table_contains (ex->producer_of, names[i]) && !is_stored (ex, names[i]) &&
        !g_hash_table_contains (ex->input_of, names[i]))
      {
        g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_NOT_FOUND,
                     _("'%s' is not a tensor of the main graph"), names[i]);
        return FALSE;
      }
  return TRUE;
}

/* Depth first and in input order, like onnx's recursion, so that the tensor named
 * when one is missing is the one onnx would stumble on first. */
static gboolean
walk_back (Extract *ex, const char *output, GError **error)
{
  g_autoptr (GPtrArray) pending = g_ptr_array_new ();

  g_ptr_array_add (pending, (gpointer) output);
  while (pending->len > 0)
    {
      const char *name = g_ptr_array_steal_index (pending, pending->len - 1);
      Onnx__NodeProto *producer;
      guint first_read;

      if (!g_hash_table_add (ex->reached, (gpointer) name) ||
          g_hash_table_contains (ex->listed_inputs, name))
        continue;
      producer = g_hash_table_lookup (ex->producer_of, name);
      if (producer == NULL)
        {
          if (is_stored (ex, name))
            continue;
          if (g_hash_table_contains (ex->input_of, name))
            g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID,
                         _("'%s' cannot be computed from the given inputs: it needs '%s', "
                           "a graph input that is not listed"), output, name);
          else
            g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID,
                         _("'%s' cannot be computed from the given inputs: it needs '%s', "
                           "which nothing in the graph defines"), output, name);
          return FALSE;
        }
      if (!g_hash_table_add (ex->kept_nodes, producer))
        continue;
      first_read = pending->len;
      onyx_node_collect_reads (producer, pending);
      for (guint a = first_read, b = pending->len; a + 1 < b; a++, b--)
        {
          gpointer swap = pending->pdata[a];
          pending->pdata[a] = pending->pdata[b - 1];
          pending->pdata[b - 1] = swap;
        }
    }
  return TRUE;
}

static void
touch_kept_nodes (Extract *ex)
{
  g_autoptr (GPtrArray) reads = g_ptr_array_new ();

  for (size_t n = 0; n < ex->graph->n_node; n++)
    {
      Onnx__NodeProto *node = ex->graph->node[n];
      if (!g_hash_table_contains (ex->kept_nodes, node))
        continue;
      onyx_node_collect_reads (node, reads);
      for (size_t k = 0; k < node->n_output; k++)
        g_ptr_array_add (reads, node->output[k]);
    }
  for (guint i = 0; i < reads->len; i++)
    g_hash_table_add (ex->touched, reads->pdata[i]);
}

static gboolean
same_domain (const char *a, const char *b)
{
  return g_strcmp0 (a != NULL ? a : "", b != NULL ? b : "") == 0;
}

/* Functions called by `nodes`, by the bodies of their subgraphs, and by the functions
 * they call in turn (only the kept ones of `nodes` when `kept_only` is given). */
static void
use_functions (Extract *ex, Onnx__NodeProto *const *nodes, size_t n_nodes, GHashTable *kept_only,
               guint depth)
{
  if (depth > MAX_SUBGRAPH_DEPTH)
    return;
  for (size_t n = 0; n < n_nodes; n++)
    {
      const Onnx__NodeProto *node = nodes[n];
      if (kept_only != NULL && !g_hash_table_contains (kept_only, node))
        continue;
      for (size_t f = 0; f < ex->source->n_functions; f++)
        {
          Onnx__FunctionProto *function = ex->source->functions[f];
          if (g_strcmp0 (function->name, node->op_type) == 0 && same_domain (function->domain, node->domain) &&
              g_hash_table_add (ex->used_functions, function))
            use_functions (ex, function->node, function->n_node, NULL, depth + 1);
        }
      for (size_t a = 0; a < node->n_attribute; a++)
        {
          const Onnx__AttributeProto *attr = node->attribute[a];
          if (attr->g != NULL)
            use_functions (ex, attr->g->node, attr->g->n_node, NULL, depth + 1);
          for (size_t g = 0; g < attr->n_graphs; g++)
            use_functions (ex, attr->graphs[g]->node, attr->graphs[g]->n_node, NULL, depth + 1);
        }
    }
}

typedef gboolean (*KeepFunc) (Extract *ex, const void *item);

/* Copies (payloads shared) of the items `keep` accepts, in their order, as a
 * malloc'd array for protobuf-c to free. */
static void *
copy_kept (Extract *ex, void *const *items, size_t n_items, KeepFunc keep, size_t *n_kept)
{
  ProtobufCMessage **kept = malloc (MAX (n_items, 1) * sizeof *kept);

  *n_kept = 0;
  for (size_t i = 0; i < n_items; i++)
    if (keep (ex, items[i]))
      kept[(*n_kept)++] = onyx_model_copy_sharing (ex->model, items[i]);
  if (*n_kept == 0)
    g_clear_pointer (&kept, free);
  return kept;
}

static gboolean
keep_node (Extract *ex, const void *node)
{
  return g_hash_table_contains (ex->kept_nodes, node);
}

static gboolean
keep_stored (Extract *ex, const char *name)
{
  return name != NULL && g_hash_table_contains (ex->touched, name) &&
         !g_hash_table_contains (ex->listed_inputs, name);
}

static gboolean
keep_initializer (Extract *ex, const void *tensor)
{
  return keep_stored (ex, tensor_name (tensor));
}

static gboolean
keep_sparse (Extract *ex, const void *sparse)
{
  return keep_stored (ex, sparse_name (sparse));
}

static gboolean
keep_value_info (Extract *ex, const void *info)
{
  const char *name = value_info_name (info);
  return name != NULL && g_hash_table_contains (ex->touched, name);
}

static gboolean
keep_annotation (Extract *ex, const void *annotation)
{
  const char *name = ((const Onnx__TensorAnnotation *) annotation)->tensor_name;
  return name != NULL && g_hash_table_contains (ex->touched, name);
}

/* The recorded graph input or output of that name, else a new one with what is known
 * of its type. */
static Onnx__ValueInfoProto *
boundary_info (Extract *ex, const char *name, GHashTable *recorded)
{
  Onnx__ValueInfoProto *info = g_hash_table_lookup (recorded, name);

  if (info != NULL)
    return (Onnx__ValueInfoProto *) onyx_proto_copy (&info->base);
  info = malloc (sizeof *info);
  onnx__value_info_proto__init (info);
  info->name = strdup (name);
  if (ex->shapes == NULL)
    ex->shapes = onyx_shapes_infer (onyx_model_get_proto (ex->model), FALSE);
  info->type = onyx_shapes_new_type (ex->shapes, onyx_model_get_proto (ex->model)->graph, name);
  return info;
}

static Onnx__ValueInfoProto **
boundary (Extract *ex, const char *const *names, GHashTable *recorded, size_t *n_names)
{
  Onnx__ValueInfoProto **infos;

  *n_names = g_strv_length ((char **) names);
  infos = *n_names > 0 ? malloc (*n_names * sizeof *infos) : NULL;
  for (size_t i = 0; i < *n_names; i++)
    infos[i] = boundary_info (ex, names[i], recorded);
  return infos;
}

static Onnx__GraphProto *
build_graph (Extract *ex, const char *const *inputs, const char *const *outputs)
{
  Onnx__GraphProto shell = *ex->graph;
  Onnx__GraphProto *graph;

  /* Name, doc string and unknown fields come from the copy; the lists are cut. */
  shell.n_node = shell.n_initializer = shell.n_sparse_initializer = 0;
  shell.n_input = shell.n_output = shell.n_value_info = shell.n_quantization_annotation = 0;
  graph = (Onnx__GraphProto *) onyx_proto_copy (&shell.base);

  graph->node = copy_kept (ex, (void *const *) ex->graph->node, ex->graph->n_node, keep_node, &graph->n_node);
  graph->input = boundary (ex, inputs, ex->input_of, &graph->n_input);
  graph->output = boundary (ex, outputs, ex->output_of, &graph->n_output);
  graph->initializer = copy_kept (ex, (void *const *) ex->graph->initializer, ex->graph->n_initializer,
                                  keep_initializer, &graph->n_initializer);
  graph->sparse_initializer = copy_kept (ex, (void *const *) ex->graph->sparse_initializer,
                                         ex->graph->n_sparse_initializer, keep_sparse,
                                         &graph->n_sparse_initializer);
  graph->value_info = copy_kept (ex, (void *const *) ex->graph->value_info, ex->graph->n_value_info,
                                 keep_value_info, &graph->n_value_info);
  graph->quantization_annotation = copy_kept (ex, (void *const *) ex->graph->quantization_annotation,
                                              ex->graph->n_quantization_annotation, keep_annotation,
                                              &graph->n_quantization_annotation);
  return graph;
}

static gboolean
keep_function (Extract *ex, const void *function)
{
  return g_hash_table_contains (ex->used_functions, function);
}

static Onnx__ModelProto *
build_model (Extract *ex, const char *const *inputs, const char *const *outputs)
{
  Onnx__ModelProto shell = *ex->source;
  Onnx__ModelProto *proto;

  /* Opset imports, ir_version, producer, metadata and unknown fields come from the
   * copy; training info describes the whole graph and is left behind. */
  shell.graph = NULL;
  shell.n_functions = shell.n_training_info = 0;
  proto = (Onnx__ModelProto *) onyx_proto_copy (&shell.base);
  proto->graph = build_graph (ex, inputs, outputs);

  use_functions (ex, ex->graph->node, ex->graph->n_node, ex->kept_nodes, 0);
  proto->functions = copy_kept (ex, (void *const *) ex->source->functions, ex->source->n_functions,
                                keep_function, &proto->n_functions);
  return proto;
}

OnyxModel *
onyx_model_extract (OnyxModel *model, const char *const *inputs, const char *const *outputs, GError **error)
{
  Extract ex = { 0 };
  OnyxModel *extracted = NULL;
  gboolean ok;

  g_return_val_if_fail (ONYX_IS_MODEL (model) && inputs != NULL && outputs != NULL, NULL);
  if (outputs[0] == NULL)
    {
      g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID, _("no output tensor given"));
      return NULL;
    }
  extract_init (&ex, model);
  for (guint i = 0; inputs[i] != NULL; i++)
    g_hash_table_add (ex.listed_inputs, (gpointer) inputs[i]);
  ok = check_names (&ex, inputs, error) && check_names (&ex, outputs, error);
  for (guint i = 0; ok && outputs[i] != NULL; i++)
    ok = walk_back (&ex, outputs[i], error);
  if (ok)
    {
      touch_kept_nodes (&ex);
      extracted = onyx_model_new_derived (model, build_model (&ex, inputs, outputs));
    }
  extract_clear (&ex);
  return extracted;
}
