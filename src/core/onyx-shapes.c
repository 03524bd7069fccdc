/* onyx-shapes.c: ONNX's shape inference over the model, as a snapshot (onyx-shapes.h). */
#include "onyx-shapes.h"

#include <string.h>

#include "onyx-onnx.h"
#include "onyx-shapes-private.h"
#include "onyx-types.h"

typedef struct {
  const Onnx__TypeProto *type;
  gboolean recorded;
} Known;

typedef struct {
  const Onnx__GraphProto *typed;    /* in the inferred copy */
  const Onnx__GraphProto *parent;   /* the enclosing graph of the model, or NULL */
  GHashTable *known;                /* name → Known* (in `entries`), this graph's own names */
  Known *entries;                   /* one block for all: a large graph names thousands */
  gsize n_entries;
} GraphShapes;

struct _OnyxShapes {
  gint ref_count;
  Onnx__ModelProto *typed_model;    /* the inferred copy, NULL when libonnx failed */
  OnyxProtoPool *typed_pool;        /* where it lives */
  GHashTable *graphs;               /* model graph → GraphShapes* */
  GPtrArray *errors;
  GPtrArray *owned_types;           /* TypeProtos made for initializers */
};

/* ---- handing the model over without its payloads ---- */

/* Shape inference reads the values of small tensors only (shapes, axes, scales);
 * larger payloads are cut to one element while the model is serialized: the
 * checker wants a value there, nobody reads it. */
#define PAYLOAD_KEPT_BYTES 4096

typedef struct {
  Onnx__TensorProto *tensor;
  Onnx__TensorProto saved;
} CutTensor;

static void
cut_payload (Onnx__TensorProto *tensor, gpointer data)
{
  GArray *cuts = data;
  CutTensor cut = { tensor, *tensor };
  gboolean changed = FALSE;

#define CUT(field, width)                                                     \
  if (tensor->n_##field > 1 && tensor->n_##field * (width) > PAYLOAD_KEPT_BYTES) \
    {                                                                         \
      tensor->n_##field = 1;                                                  \
      changed = TRUE;                                                         \
    }
  CUT (float_data, 4)
  CUT (int32_data, 4)
  CUT (int64_data, 8)
  CUT (double_data, 8)
  CUT (uint64_data, 8)
#undef CUT
  if (tensor->has_raw_data && tensor->raw_data.len > PAYLOAD_KEPT_BYTES)
    {
      tensor->raw_data.len = 1;
      changed = TRUE;
    }
  if (changed)
    g_array_append_val (cuts, cut);
}

GBytes *
onyx_shapes_pack_light (const ProtobufCMessage *message)
{
  g_autoptr (GArray) cuts = g_array_new (FALSE, FALSE, sizeof (CutTensor));
  GBytes *packed;

  /* Only lengths change, and only for the time of packing, on the thread that
   * owns the model. */
  onyx_proto_foreach_tensor ((ProtobufCMessage *) message, cut_payload, cuts);
  packed = onyx_proto_pack (message);
  for (guint i = 0; i < cuts->len; i++)
    {
      CutTensor *cut = &g_array_index (cuts, CutTensor, i);
      *cut->tensor = cut->saved;
    }
  return packed;
}

/* ---- the model's graphs and nodes, in the order onyx-onnx.cc numbers nodes ---- */

typedef void (*GraphFunc) (const Onnx__GraphProto *graph, const Onnx__GraphProto *typed,
                           const Onnx__GraphProto *parent, gpointer data);

/* Walks a graph and its copy side by side; `nodes` (nullable) collects every node in
 * order (their "onyx:N" number is the position). The copy has the same structure,
 * and keeps the attributes of the nodes holding graphs only: without `nodes` to
 * collect, the others are not looked into (thousands of attribute lists read from
 * memory for the few holders). */
static void
walk_graphs (const Onnx__GraphProto *graph, const Onnx__GraphProto *typed,
             const Onnx__GraphProto *parent, GPtrArray *nodes, GPtrArray *graph_of_node,
             GraphFunc func, gpointer data)
{
  func (graph, typed, parent, data);
  for (size_t i = 0; i < graph->n_node; i++)
    {
      const Onnx__NodeProto *node = graph->node[i];
      const Onnx__NodeProto *typed_node = typed != NULL && i < typed->n_node ? typed->node[i] : NULL;
      if (nodes != NULL)
        {
          g_ptr_array_add (nodes, (gpointer) node);
          g_ptr_array_add (graph_of_node, (gpointer) graph);
        }
      else if (typed != NULL && (typed_node == NULL || typed_node->n_attribute == 0))
        continue;
      for (size_t a = 0; a < node->n_attribute; a++)
        {
          const Onnx__AttributeProto *attribute = node->attribute[a];
          const Onnx__AttributeProto *typed_attribute =
            typed_node != NULL && a < typed_node->n_attribute ? typed_node->attribute[a] : NULL;
          if (attribute->g != NULL)
            walk_graphs (attribute->g, typed_attribute != NULL ? typed_attribute->g : NULL,
                         graph, nodes, graph_of_node, func, data);
          for (size_t k = 0; k < attribute->n_graphs; k++)
            walk_graphs (attribute->graphs[k],
                         typed_attribute != NULL && k < typed_attribute->n_graphs
                           ? typed_attribute->graphs[k] : NULL,
                         graph, nodes, graph_of_node, func, data);
        }
    }
}

static gboolean
has_type (const Onnx__ValueInfoProto *info)
{
  return info->type != NULL && info->type->value_case != ONNX__TYPE_PROTO__VALUE__NOT_SET;
}

/* `graph` has room for every name it may be told of (index_graph counts them). */
static void
note_known (GraphShapes *graph, const char *name, const Onnx__TypeProto *type, gboolean recorded)
{
  Known *entry;
  if (name == NULL || name[0] == '\0' || type == NULL ||
      type->value_case == ONNX__TYPE_PROTO__VALUE__NOT_SET)
    return;
  entry = g_hash_table_lookup (graph->known, name);
  if (entry == NULL)
    {
      entry = &graph->entries[graph->n_entries++];
      g_hash_table_insert (graph->known, (gpointer) name, entry);
    }
  entry->type = type;
  entry->recorded = entry->recorded || recorded;
}

static Onnx__TypeProto *
initializer_type (const Onnx__TensorProto *tensor)
{
  Onnx__TypeProto *type = g_malloc (sizeof *type);
  Onnx__TypeProto__Tensor *tensor_type = g_malloc (sizeof *tensor_type);
  Onnx__TensorShapeProto *shape = g_malloc (sizeof *shape);

  onnx__type_proto__init (type);
  onnx__type_proto__tensor__init (tensor_type);
  onnx__tensor_shape_proto__init (shape);
  shape->n_dim = tensor->n_dims;
  shape->dim = g_new0 (Onnx__TensorShapeProto__Dimension *, MAX (tensor->n_dims, 1));
  for (size_t d = 0; d < tensor->n_dims; d++)
    {
      Onnx__TensorShapeProto__Dimension *dim = g_malloc (sizeof *dim);
      onnx__tensor_shape_proto__dimension__init (dim);
      dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
      dim->dim_value = tensor->dims[d];
      shape->dim[d] = dim;
    }
  tensor_type->has_elem_type = TRUE;
  tensor_type->elem_type = tensor->data_type;
  tensor_type->shape = shape;
  type->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  type->tensor_type = tensor_type;
  return type;
}

static void
initializer_type_free (Onnx__TypeProto *type)
{
  Onnx__TensorShapeProto *shape = type->tensor_type->shape;
  for (size_t d = 0; d < shape->n_dim; d++)
    g_free (shape->dim[d]);
  g_free (shape->dim);
  g_free (shape);
  g_free (type->tensor_type);
  g_free (type);
}

static void
graph_shapes_free (GraphShapes *graph)
{
  g_hash_table_unref (graph->known);
  g_free (graph->entries);
  g_free (graph);
}

/* What the file records of a graph, then what inference added (in the copy, which
 * holds the recorded types merged with the inferred ones). */
static void
index_graph (const Onnx__GraphProto *graph, const Onnx__GraphProto *typed,
             const Onnx__GraphProto *parent, gpointer data)
{
  OnyxShapes *self = data;
  GraphShapes *entry = g_new0 (GraphShapes, 1);
  GHashTable *recorded = g_hash_table_new (g_str_hash, g_str_equal);
  const Onnx__ValueInfoProto *const *lists[] = { (const Onnx__ValueInfoProto *const *) graph->input,
                                                 (const Onnx__ValueInfoProto *const *) graph->output,
                                                 (const Onnx__ValueInfoProto *const *) graph->value_info };
  size_t counts[] = { graph->n_input, graph->n_output, graph->n_value_info };

  entry->typed = typed;
  entry->parent = parent;
  entry->known = g_hash_table_new (g_str_hash, g_str_equal);
  entry->entries = g_new0 (Known, graph->n_initializer + (typed != NULL ? typed->n_input + typed->n_value_info +
                                                                       typed->n_output : 0) + 1);
  for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
    for (size_t i = 0; i < counts[l]; i++)
      if (has_type (lists[l][i]) && lists[l][i]->name != NULL)
        g_hash_table_add (recorded, lists[l][i]->name);
  for (size_t i = 0; i < graph->n_initializer; i++)
    {
      Onnx__TypeProto *type = initializer_type (graph->initializer[i]);
      g_ptr_array_add (self->owned_types, type);
      note_known (entry, graph->initializer[i]->name, type, TRUE);
    }
  if (typed != NULL)
    {
      const Onnx__ValueInfoProto *const *typed_lists[] = {
        (const Onnx__ValueInfoProto *const *) typed->input,
        (const Onnx__ValueInfoProto *const *) typed->value_info,
        (const Onnx__ValueInfoProto *const *) typed->output };
      size_t typed_counts[] = { typed->n_input, typed->n_value_info, typed->n_output };
      for (guint l = 0; l < G_N_ELEMENTS (typed_lists); l++)
        for (size_t i = 0; i < typed_counts[l]; i++)
          {
            const Onnx__ValueInfoProto *info = typed_lists[l][i];
            if (info->name != NULL)
              note_known (entry, info->name, info->type,
                          g_hash_table_contains (recorded, info->name));
          }
    }
  g_hash_table_unref (recorded);
  g_hash_table_insert (self->graphs, (gpointer) graph, entry);
}

/* ---- libonnx's error text ---- */

static void
add_error (OnyxShapes *self, const Onnx__NodeProto *node, const Onnx__GraphProto *graph,
           const char *text)
{
  const char *kind = "shape inference";
  g_autofree char *message = NULL;

  if (g_str_has_prefix (text, "[ShapeInferenceError] "))
    text += strlen ("[ShapeInferenceError] ");
  else if (g_str_has_prefix (text, "[TypeInferenceError] "))
    {
      text += strlen ("[TypeInferenceError] ");
      kind = "type inference";
    }
  if (g_str_has_prefix (text, "Shape inference error(s): "))
    text += strlen ("Shape inference error(s): ");
  if (text[0] == '\0')
    return;
  /* Problems are one line: a message that runs over several (a worker's crash
   * report) keeps its first, before anyone escapes the newline into text. */
  message = g_strdup_printf ("%s: %.*s", kind, (int) strcspn (text, "\n"), text);
  for (guint i = 0; i < self->errors->len; i++)
    {
      OnyxShapeError *seen = self->errors->pdata[i];
      if (seen->node == node && strcmp (seen->message, message) == 0)
        return;
    }
  OnyxShapeError *error = g_new0 (OnyxShapeError, 1);
  error->node = node;
  error->graph = node != NULL ? graph : NULL;
  error->message = g_steal_pointer (&message);
  g_ptr_array_add (self->errors, error);
}

/* Each line names the node it is about as "(op_type:Add, node name: onyx:N): "; an
 * error inside a subgraph is nested in its holder's, so the last such name on a
 * line is the node at fault. An error that stopped inference names it as "node
 * name onyx:N." in its text. */
static void
parse_errors (OnyxShapes *self, const char *text, GPtrArray *nodes, GPtrArray *graph_of_node)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  static const char marker[] = ", node name: onyx:";

  for (guint l = 0; lines[l] != NULL; l++)
    {
      const char *line = lines[l], *rest = line, *found;
      const Onnx__NodeProto *node = NULL;
      const Onnx__GraphProto *graph = NULL;
      while ((found = strstr (rest, marker)) != NULL)
        {
          char *end;
          guint64 n = g_ascii_strtoull (found + strlen (marker), &end, 10);
          if (end[0] == ')' && end[1] == ':' && n < nodes->len)
            {
              node = nodes->pdata[n];
              graph = graph_of_node->pdata[n];
              rest = end + 2 + (end[2] == ' ');
            }
          else
            rest = found + strlen (marker);
        }
      if (node == NULL && (found = strstr (line, "node name onyx:")) != NULL)
        {
          guint64 n = g_ascii_strtoull (found + strlen ("node name onyx:"), NULL, 10);
          if (n < nodes->len)
            {
              node = nodes->pdata[n];
              graph = graph_of_node->pdata[n];
              rest = line;
            }
        }
      g_strstrip (lines[l]);
      if (node == NULL)
        add_error (self, NULL, NULL, g_strstrip ((char *) line));
      else
        add_error (self, node, graph, rest);
    }
}

static gboolean
is_consequence (const OnyxShapeError *error)
{
  /* What a node downstream of a failed one says: its input has no type. */
  return strstr (error->message, "expected to have type but instead is null") != NULL;
}

/* Validation reports a domain without an opset import itself, without the
 * inference's "onyx:N" token. */
static gboolean
is_reported_elsewhere (const OnyxShapeError *error)
{
  return strstr (error->message, ". No opset import for domain") != NULL;
}

/* Only the first failure of a chain is worth reading. */
static void
drop_consequences (GPtrArray *errors)
{
  gboolean has_cause = FALSE;
  for (guint i = 0; i < errors->len; i++)
    has_cause = has_cause || !is_consequence (errors->pdata[i]);
  for (guint i = errors->len; i-- > 0;)
    if ((has_cause && is_consequence (errors->pdata[i])) || is_reported_elsewhere (errors->pdata[i]))
      g_ptr_array_remove_index (errors, i);
}

static void
shape_error_free (OnyxShapeError *error)
{
  g_free (error->message);
  g_free (error);
}

/* Inference in two halves: libonnx works in its worker between them. */
typedef struct {
  OnyxShapes *shapes;
  const Onnx__ModelProto *model;
  OnyxOnnxJob *job;    /* NULL for a model without a graph */
} Inference;

static OnyxShapes *
shapes_new (void)
{
  OnyxShapes *self = g_new0 (OnyxShapes, 1);

  self->ref_count = 1;
  self->graphs = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) graph_shapes_free);
  self->errors = g_ptr_array_new_with_free_func ((GDestroyNotify) shape_error_free);
  self->owned_types = g_ptr_array_new_with_free_func ((GDestroyNotify) initializer_type_free);
  return self;
}

/* Starts the job on the model itself, its payloads cut. */
static void
start_on_model (Inference *inference, const Onnx__ModelProto *model, gboolean check_types)
{
  inference->model = model;
  if (model->graph != NULL)
    {
      g_autoptr (GBytes) light = onyx_shapes_pack_light (&model->base);
      inference->job = onyx_onnx_job_start (ONYX_ONNX_JOB_INFER_SHAPES, light, check_types != FALSE);
    }
}

static OnyxShapes *
infer_finish (Inference inference)
{
  OnyxShapes *self = inference.shapes;
  const Onnx__ModelProto *model = inference.model;
  g_autoptr (GBytes) inferred = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) nodes = NULL;
  g_autoptr (GPtrArray) graph_of_node = NULL;
  g_autofree char *errors = NULL;

  if (inference.job == NULL)
    return self;
  inferred = onyx_onnx_job_finish (inference.job, &errors, &error);
  if (inferred != NULL)
    self->typed_model = (Onnx__ModelProto *) onyx_proto_unpack_pooled (
      &onnx__model_proto__descriptor, inferred, &self->typed_pool);
  /* Nodes are numbered only to read errors back. */
  if (errors != NULL)
    {
      nodes = g_ptr_array_new ();
      graph_of_node = g_ptr_array_new ();
    }
  walk_graphs (model->graph, self->typed_model != NULL ? self->typed_model->graph : NULL, NULL,
               nodes, graph_of_node, index_graph, self);
  if (error != NULL)
    add_error (self, NULL, NULL, error->message);
  if (errors != NULL)
    parse_errors (self, errors, nodes, graph_of_node);
  drop_consequences (self->errors);
  return self;
}

void
onyx_shapes_warm_up (void)
{
  onyx_onnx_start_worker ();
}

OnyxShapes *
onyx_shapes_infer (const Onnx__ModelProto *model, gboolean check_types)
{
  Inference inference = { shapes_new (), NULL, NULL };

  start_on_model (&inference, model, check_types);
  return infer_finish (inference);
}

OnyxShapes *
onyx_shapes_ref (OnyxShapes *shapes)
{
  g_atomic_int_inc (&shapes->ref_count);
  return shapes;
}

void
onyx_shapes_unref (OnyxShapes *shapes)
{
  if (shapes == NULL || !g_atomic_int_dec_and_test (&shapes->ref_count))
    return;
  g_hash_table_unref (shapes->graphs);
  g_ptr_array_unref (shapes->errors);
  g_ptr_array_unref (shapes->owned_types);
  onyx_proto_pool_free (shapes->typed_pool);
  g_free (shapes);
}

const Onnx__TypeProto *
onyx_shapes_lookup (OnyxShapes *shapes, const Onnx__GraphProto *graph, const char *name,
                    gboolean *recorded)
{
  for (GraphShapes *entry = g_hash_table_lookup (shapes->graphs, graph); entry != NULL && name != NULL;
       entry = entry->parent != NULL ? g_hash_table_lookup (shapes->graphs, entry->parent) : NULL)
    {
      Known *known = g_hash_table_lookup (entry->known, name);
      if (known != NULL)
        {
          if (recorded != NULL)
            *recorded = known->recorded;
          return known->type;
        }
    }
  if (recorded != NULL)
    *recorded = FALSE;
  return NULL;
}

Onnx__TypeProto *
onyx_shapes_new_type (OnyxShapes *shapes, const Onnx__GraphProto *graph, const char *name)
{
  const Onnx__TypeProto *type = onyx_shapes_lookup (shapes, graph, name, NULL);
  return type != NULL ? (Onnx__TypeProto *) onyx_proto_copy (&type->base) : NULL;
}

GPtrArray *
onyx_shapes_get_errors (OnyxShapes *shapes)
{
  return shapes->errors;
}

GPtrArray *
onyx_shapes_new_value_infos (OnyxShapes *shapes, const Onnx__GraphProto *graph)
{
  GPtrArray *infos = g_ptr_array_new ();
  GraphShapes *entry = g_hash_table_lookup (shapes->graphs, graph);
  g_autoptr (GHashTable) interface = g_hash_table_new (g_str_hash, g_str_equal);

  if (entry == NULL || entry->typed == NULL)
    return infos;
  /* Graph inputs and outputs carry their types themselves. */
  for (size_t i = 0; i < graph->n_input; i++)
    if (graph->input[i]->name != NULL)
      g_hash_table_add (interface, graph->input[i]->name);
  for (size_t i = 0; i < graph->n_output; i++)
    if (graph->output[i]->name != NULL)
      g_hash_table_add (interface, graph->output[i]->name);
  for (size_t i = 0; i < entry->typed->n_value_info; i++)
    {
      const Onnx__ValueInfoProto *info = entry->typed->value_info[i];
      Known *known = info->name != NULL ? g_hash_table_lookup (entry->known, info->name) : NULL;
      if (known == NULL || known->recorded || g_hash_table_contains (interface, info->name))
        continue;
      g_ptr_array_add (infos, onyx_proto_copy ((const ProtobufCMessage *) info));
    }
  return infos;
}

/* ---- the document's snapshot ---- */

#define DOCUMENT_SHAPES "onyx-shapes"

static OnyxShapes *
cache_shapes (OnyxDocument *document, OnyxShapes *shapes)
{
  onyx_document_keep_derived (document, DOCUMENT_SHAPES, onyx_document_get_revision (document), shapes,
                              (GDestroyNotify) onyx_shapes_unref);
  return shapes;
}

OnyxShapes *
onyx_document_peek_shapes (OnyxDocument *document)
{
  return onyx_document_get_derived (document, DOCUMENT_SHAPES);
}

OnyxShapes *
onyx_document_get_shapes (OnyxDocument *document)
{
  OnyxShapes *shapes = onyx_document_peek_shapes (document);

  if (shapes != NULL)
    return shapes;
  return cache_shapes (document, onyx_shapes_infer (onyx_document_get_proto (document), FALSE));
}

gboolean
onyx_document_offer_shapes (OnyxDocument *document, OnyxShapes *shapes, guint64 revision)
{
  if (revision != onyx_document_get_revision (document))
    return FALSE;
  if (onyx_document_peek_shapes (document) != shapes)
    cache_shapes (document, onyx_shapes_ref (shapes));
  return TRUE;
}

/* The loader's bytes leave out raw_data payloads but not the other payload fields
 * (float_data...): past this size the cut copy made after loading is sent instead. */
#define SCANNED_SENT_MAX (64 << 20)

static void
start_on_scanned (GBytes *scanned, gpointer data)
{
  Inference *inference = data;
  if (g_bytes_get_size (scanned) <= SCANNED_SENT_MAX)
    inference->job = onyx_onnx_job_start (ONYX_ONNX_JOB_INFER_SHAPES, scanned, FALSE);
}

OnyxDocument *
onyx_document_open_with_shapes (const char *path, GError **error)
{
  return onyx_document_open_with_shapes_full (path, NULL, NULL, error);
}

OnyxDocument *
onyx_document_open_with_shapes_full (const char *path, OnyxDocumentFunc meanwhile, gpointer data,
                                     GError **error)
{
  Inference inference = { shapes_new (), NULL, NULL };
  g_autoptr (OnyxModel) model = NULL;
  OnyxDocument *document;

  /* The helper's start (loading libonnx, its schemas) is longer than the scan: it
   * begins before the file is read. */
  onyx_shapes_warm_up ();
  model = onyx_model_new_from_file_scanned (path, start_on_scanned, &inference, error);
  if (model == NULL)
    {
      /* Loading failed after the scan: the job goes unread. */
      if (inference.job != NULL)
        {
          g_autofree char *text = NULL;
          GBytes *unread = onyx_onnx_job_finish (inference.job, &text, NULL);
          g_clear_pointer (&unread, g_bytes_unref);
        }
      onyx_shapes_unref (inference.shapes);
      return NULL;
    }
  if (inference.job != NULL)
    inference.model = onyx_model_get_proto (model);
  else
    start_on_model (&inference, onyx_model_get_proto (model), FALSE);
  document = onyx_document_new (model);
  if (meanwhile != NULL)
    meanwhile (document, data);
  cache_shapes (document, infer_finish (inference));
  return document;
}
