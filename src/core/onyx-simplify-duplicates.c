/* Simplify's duplicates: what is computed twice is computed once.
 *
 * Equal initializers and Constant nodes are shared: the first holder of a value
 * stays and readers of the others read it. Then a node that does what an earlier
 * node of its graph does (same operator, the same inputs in the same order, equal
 * attributes and subgraphs) goes, its readers reading the earlier one's outputs:
 * common subexpression elimination, as ONNX Runtime's basic level does. Nodes are
 * keyed by all of that, so one sweep in graph order merges whole chains (TorchScript
 * repeats Shape → Gather → Unsqueeze on one tensor for each use of a size). */
#include <stdlib.h>
#include <string.h>

#include "onyx-simplify-private.h"

#include <glib/gi18n-lib.h>

#include "onyx-domain.h"
#include "onyx-external.h"
#include "onyx-schema.h"
#include "onyx-tensor-values.h"
#include "onyx-types.h"

/* Values larger than this are shared only when they are the same bytes of the same
 * data file: reading them to compare would cost more than the sharing saves. */
#define LARGEST_COMPARED ONYX_SIMPLIFY_LARGEST_FOLD
/* An attribute packing to more (a tensor, a subgraph) is keyed by its size alone and
 * compared whole when the rest matches. */
#define LARGEST_KEYED_ATTRIBUTE 4096
/* One sweep in graph order merges every chain of a sorted graph; nodes out of order
 * take more. */
#define MAX_SWEEPS 8
#define MAX_SUBGRAPH_DEPTH 64

/* ---- Keys: what two things must share to compute the same ---- */

static void
key_add_int (GByteArray *key, gint64 value)
{
  g_byte_array_append (key, (const guint8 *) &value, sizeof value);
}

/* Length first, so that no two lists of strings make the same bytes. */
static void
key_add_string (GByteArray *key, const char *text)
{
  gsize length = text != NULL ? strlen (text) : 0;

  key_add_int (key, (gint64) length);
  g_byte_array_append (key, (const guint8 *) text, (guint) length);
}

static void
key_add_dims (GByteArray *key, int elem_type, const gint64 *dims, gsize n_dims)
{
  key_add_int (key, elem_type);
  key_add_int (key, (gint64) n_dims);
  for (gsize i = 0; i < n_dims; i++)
    key_add_int (key, dims[i]);
}

/* 64-bit FNV-1a over the bytes: a constant's contents, compared whole on a match. */
static guint64
content_hash (GBytes *bytes)
{
  gsize size;
  const guint8 *data = g_bytes_get_data (bytes, &size);
  guint64 hash = G_GUINT64_CONSTANT (14695981039346656037);

  for (gsize i = 0; i < size; i++)
    hash = (hash ^ data[i]) * G_GUINT64_CONSTANT (1099511628211);
  return hash;
}

/* ---- Equal constants shared ---- */

typedef struct {
  OnyxSimplifyContext *ctx;
  Onnx__GraphProto *graph;
  /* Element type and dims (and for a large external value where its bytes are) →
   * the first holder's name while it is the only one, or "" once values of that
   * signature are keyed by contents too. */
  GHashTable *signatures;
  /* Signature and contents (or the signature of a large external value) → the
   * holders' names (GPtrArray of char *), first holder first. */
  GHashTable *holders;
} Sharing;

/* What identifies a constant without reading it: element type and dims, and for a
 * value larger than LARGEST_COMPARED where its external bytes are (*exact then).
 * NULL for what is not compared (strings, 4-bit types, large values held in the
 * model file, Constant nodes whose value cannot be read). */
static GBytes *
value_signature (Sharing *sharing, const Onnx__TensorProto *tensor, const Onnx__NodeProto *constant,
                 gboolean *exact)
{
  GByteArray *key = g_byte_array_new ();
  const char *location;
  guint64 n_bytes, offset, length;

  *exact = FALSE;
  if (tensor != NULL)
    {
      if (!onyx_tensor_n_bytes (tensor, &n_bytes) || onyx_array_element_size (tensor->data_type) == 0)
        return g_byte_array_unref (key), NULL;
      key_add_dims (key, tensor->data_type, tensor->dims, tensor->n_dims);
      *exact = n_bytes > LARGEST_COMPARED;
      /* Which kind of key follows: contents (a hash), or where the bytes are. */
      key_add_int (key, *exact);
      if (*exact)
        {
          if (!onyx_tensor_external_span (tensor, &location, &offset, &length))
            return g_byte_array_unref (key), NULL;
          key_add_string (key, location);
          key_add_int (key, (gint64) offset);
          key_add_int (key, (gint64) length);
        }
    }
  else
    {
      /* value_float, value_ints…: small, read at once. */
      g_autoptr (OnyxArray) value = onyx_simplify_constant_node_value (sharing->ctx, constant, LARGEST_COMPARED,
                                                                        NULL);
      if (value == NULL)
        return g_byte_array_unref (key), NULL;
      key_add_dims (key, value->elem_type, value->dims, value->n_dims);
      key_add_int (key, FALSE);
    }
  return g_byte_array_free_to_bytes (key);
}

static OnyxArray *
read_value (Sharing *sharing, const char *name)
{
  return onyx_simplify_constant_value (sharing->ctx, sharing->graph, name, LARGEST_COMPARED, NULL);
}

/* The signature with a hash of the contents after it. */
static GBytes *
contents_key (GBytes *signature, const OnyxArray *value)
{
  GByteArray *key = g_byte_array_new ();

  g_byte_array_append (key, g_bytes_get_data (signature, NULL), (guint) g_bytes_get_size (signature));
  key_add_int (key, (gint64) content_hash (value->data));
  return g_byte_array_free_to_bytes (key);
}

static GPtrArray *
holders_of (Sharing *sharing, GBytes *key)
{
  GPtrArray *names = g_hash_table_lookup (sharing->holders, key);

  if (names == NULL)
    {
      names = g_ptr_array_new_with_free_func (g_free);
      g_hash_table_insert (sharing->holders, g_bytes_ref (key), names);
    }
  return names;
}

/* An earlier holder of the same value as `name`, or NULL (then `name` is one). */
static const char *
find_equal_constant (Sharing *sharing, const char *name, const Onnx__TensorProto *tensor,
                     const Onnx__NodeProto *constant)
{
  gboolean exact;
  g_autoptr (GBytes) signature = value_signature (sharing, tensor, constant, &exact);
  g_autoptr (GBytes) key = NULL;
  g_autoptr (OnyxArray) value = NULL;
  const char *first;
  GPtrArray *names;

  if (signature == NULL)
    return NULL;
  if (exact)
    {
      names = holders_of (sharing, signature);
      if (names->len > 0)
        return names->pdata[0];
      g_ptr_array_add (names, g_strdup (name));
      return NULL;
    }
  /* Contents are read only once a second value of the same type and dims shows up. */
  first = g_hash_table_lookup (sharing->signatures, signature);
  if (first == NULL)
    {
      g_hash_table_insert (sharing->signatures, g_bytes_ref (signature), g_strdup (name));
      return NULL;
    }
  if (first[0] != '\0')
    {
      g_autoptr (OnyxArray) first_value = read_value (sharing, first);
      if (first_value != NULL)
        {
          g_autoptr (GBytes) first_key = contents_key (signature, first_value);
          g_ptr_array_add (holders_of (sharing, first_key), g_strdup (first));
        }
      g_hash_table_insert (sharing->signatures, g_bytes_ref (signature), g_strdup (""));
    }
  value = read_value (sharing, name);
  if (value == NULL)
    return NULL;
  key = contents_key (signature, value);
  names = holders_of (sharing, key);
  for (guint i = 0; i < names->len; i++)
    {
      g_autoptr (OnyxArray) other = read_value (sharing, names->pdata[i]);
      if (other != NULL && g_bytes_equal (other->data, value->data))
        return names->pdata[i];
    }
  g_ptr_array_add (names, g_strdup (name));
  return NULL;
}

static gboolean
is_read (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const char *name)
{
  return name[0] != '\0' && (onyx_simplify_n_uses (ctx, graph, name) > 0 || onyx_simplify_is_output (graph, name));
}

/* Initializers first (they are in scope everywhere), in their order, then Constant
 * nodes in graph order: a later holder's readers read the first. */
static guint
share_constants (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph)
{
  g_autoptr (GHashTable) signatures = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                                             (GDestroyNotify) g_bytes_unref, g_free);
  g_autoptr (GHashTable) holders = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                                          (GDestroyNotify) g_bytes_unref,
                                                          (GDestroyNotify) g_ptr_array_unref);
  /* Initializers whose readers now read an equal one. */
  g_autoptr (GHashTable) shared = g_hash_table_new (NULL, NULL);
  g_autoptr (GPtrArray) constants = g_ptr_array_new ();
  OnyxGraphIndex *index = onyx_document_get_graph_index (ctx->doc, graph);
  Sharing sharing = { ctx, graph, signatures, holders };
  guint n_shared = 0;

  for (size_t i = 0; i < graph->n_initializer; i++)
    {
      Onnx__TensorProto *tensor = graph->initializer[i];
      const char *earlier;
      /* A graph input's default is never shared: a caller may feed another value. */
      if (onyx_graph_index_graph_input (index, tensor->name) != NULL || !is_read (ctx, graph, tensor->name))
        continue;
      earlier = find_equal_constant (&sharing, tensor->name, tensor, NULL);
      if (earlier == NULL || onyx_simplify_n_uses (ctx, graph, tensor->name) == 0)
        continue;
      onyx_edit_redirect_uses (ctx->doc, graph, tensor->name, earlier, NULL);
      /* A graph output keeps its name, and so its initializer. */
      if (!onyx_simplify_is_output (graph, tensor->name))
        g_hash_table_add (shared, tensor);
      n_shared++;
    }
  /* From the end, so that positions still to come stay where they are. */
  for (size_t i = graph->n_initializer; i-- > 0;)
    if (g_hash_table_contains (shared, graph->initializer[i]))
      onyx_document_remove_item (ctx->doc, &graph->base, "initializer", i);

  for (size_t n = 0; n < graph->n_node; n++)
    {
      Onnx__NodeProto *node = graph->node[n];
      if (onyx_simplify_is_op (node, "Constant") && node->n_attribute == 1 && node->n_output == 1 &&
          is_read (ctx, graph, node->output[0]))
        g_ptr_array_add (constants, node);
    }
  for (guint i = 0; i < constants->len; i++)
    {
      Onnx__NodeProto *node = constants->pdata[i];
      const char *earlier = find_equal_constant (&sharing, node->output[0], onyx_simplify_constant_tensor (node),
                                                 node);
      const char *sources[1] = { earlier };
      if (earlier != NULL && onyx_simplify_merge_outputs (ctx, graph, node, sources))
        n_shared++;
    }
  return n_shared;
}

/* ---- Nodes that compute the same ---- */

/* Dropout draws random numbers in training: with is_test 0 before opset 7, with a
 * training_mode input not known to be false from opset 12 (7 to 11 leave it to the
 * runtime, which infers). */
static gboolean
dropout_trains (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const Onnx__NodeProto *node)
{
  Onnx__ModelProto *model = onyx_document_get_proto (ctx->doc);
  gint64 opset = onyx_opset_version (model->opset_import, model->n_opset_import, "");
  g_autoptr (OnyxArray) training = NULL;

  if (!onyx_simplify_is_op (node, "Dropout"))
    return FALSE;
  if (opset < 7)
    return onyx_simplify_attribute_int (node, "is_test", 0) == 0;
  if (opset < 12 || node->n_input < 3 || node->input[2][0] == '\0')
    return FALSE;
  training = onyx_simplify_constant_value (ctx, graph, node->input[2], 16, NULL);
  return training == NULL || training->elem_type != ONNX__TENSOR_PROTO__DATA_TYPE__BOOL ||
         g_bytes_get_size (training->data) != 1 || *(const guint8 *) g_bytes_get_data (training->data, NULL) != 0;
}

static gboolean graph_deterministic (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, guint depth);

/* Whether the node gives the same outputs every time for the same inputs: operators
 * of ONNX's own domains (others' may keep state or draw numbers, as ONNX Runtime
 * assumes too) that draw no random numbers, nor do their subgraphs. */
static gboolean
node_deterministic (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const Onnx__NodeProto *node, guint depth)
{
  if (!onyx_domain_is_standard (node->domain) || onyx_simplify_draws_random (node) ||
      dropout_trains (ctx, graph, node))
    return FALSE;
  for (size_t a = 0; a < node->n_attribute; a++)
    {
      const Onnx__AttributeProto *attr = node->attribute[a];
      if (attr->g != NULL && !graph_deterministic (ctx, attr->g, depth + 1))
        return FALSE;
      for (size_t g = 0; g < attr->n_graphs; g++)
        if (!graph_deterministic (ctx, attr->graphs[g], depth + 1))
          return FALSE;
    }
  return TRUE;
}

static gboolean
graph_deterministic (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, guint depth)
{
  if (depth > MAX_SUBGRAPH_DEPTH)
    return FALSE;
  for (size_t n = 0; n < graph->n_node; n++)
    if (!node_deterministic (ctx, graph, graph->node[n], depth))
      return FALSE;
  return TRUE;
}

static int
compare_attribute_names (gconstpointer a, gconstpointer b)
{
  const Onnx__AttributeProto *const *x = a, *const *y = b;

  return g_strcmp0 ((*x)->name, (*y)->name);
}

/* The attributes by name: their order in the file means nothing. */
static Onnx__AttributeProto **
sorted_attributes (const Onnx__NodeProto *node)
{
  Onnx__AttributeProto **sorted = g_memdup2 (node->attribute, node->n_attribute * sizeof *sorted);

  if (node->n_attribute > 1)
    qsort (sorted, node->n_attribute, sizeof *sorted, compare_attribute_names);
  return sorted;
}

static size_t
n_present (char **names, size_t n)
{
  while (n > 0 && names[n - 1][0] == '\0')
    n--;
  return n;
}

/* Operator, inputs in order (trailing omitted ones dropped: they are absent either
 * way), which outputs are asked for (Split makes as many parts as outputs), and the
 * attributes by name: small ones whole, large ones by size. */
static GBytes *
node_key (const Onnx__NodeProto *node)
{
  GByteArray *key = g_byte_array_new ();
  g_autofree Onnx__AttributeProto **attributes = sorted_attributes (node);
  size_t n_inputs = n_present (node->input, node->n_input);
  size_t n_outputs = n_present (node->output, node->n_output);

  key_add_string (key, onyx_domain_is_default (node->domain) ? "" : node->domain);
  key_add_string (key, node->op_type);
  key_add_int (key, (gint64) n_inputs);
  for (size_t k = 0; k < n_inputs; k++)
    key_add_string (key, node->input[k]);
  key_add_int (key, (gint64) n_outputs);
  for (size_t k = 0; k < n_outputs; k++)
    key_add_int (key, node->output[k][0] != '\0');
  for (size_t a = 0; a < node->n_attribute; a++)
    {
      const ProtobufCMessage *attr = &attributes[a]->base;
      size_t size = protobuf_c_message_get_packed_size (attr);
      key_add_string (key, attributes[a]->name);
      key_add_int (key, (gint64) size);
      if (size <= LARGEST_KEYED_ATTRIBUTE)
        {
          guint at = key->len;
          g_byte_array_set_size (key, (guint) (at + size));
          protobuf_c_message_pack (attr, key->data + at);
        }
    }
  return g_byte_array_free_to_bytes (key);
}

/* The attributes the key holds by size alone, compared whole (nodes of equal keys). */
static gboolean
large_attributes_equal (const Onnx__NodeProto *a, const Onnx__NodeProto *b)
{
  g_autofree Onnx__AttributeProto **x = sorted_attributes (a);
  g_autofree Onnx__AttributeProto **y = sorted_attributes (b);

  for (size_t i = 0; i < a->n_attribute; i++)
    if (protobuf_c_message_get_packed_size (&x[i]->base) > LARGEST_KEYED_ATTRIBUTE &&
        !onyx_proto_equal (&x[i]->base, &y[i]->base))
      return FALSE;
  return TRUE;
}

static gboolean
node_read (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const Onnx__NodeProto *node)
{
  for (size_t k = 0; k < node->n_output; k++)
    if (is_read (ctx, graph, node->output[k]))
      return TRUE;
  return FALSE;
}

/* An earlier node of `chain` that computes what `node` (keyed `key`) does, or NULL. */
static Onnx__NodeProto *
find_twin (OnyxGraphIndex *index, GPtrArray *chain, const Onnx__NodeProto *node, GBytes *key)
{
  for (guint i = 0; i < chain->len; i++)
    {
      Onnx__NodeProto *earlier = chain->pdata[i];
      g_autoptr (GBytes) now = NULL;
      if (!onyx_graph_index_has_node (index, earlier))
        continue;
      /* Its inputs may have moved since (a graph out of order). */
      now = node_key (earlier);
      if (g_bytes_equal (now, key) && large_attributes_equal (node, earlier))
        return earlier;
    }
  return NULL;
}

/* One sweep in graph order: how many nodes merged (or had their readers moved, when
 * a graph output keeps them). */
static guint
merge_nodes_once (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph)
{
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref,
                                                       (GDestroyNotify) g_ptr_array_unref);
  g_autoptr (GPtrArray) nodes = g_ptr_array_new ();
  OnyxGraphIndex *index = onyx_document_get_graph_index (ctx->doc, graph);
  guint n_merged = 0;

  for (size_t n = 0; n < graph->n_node; n++)
    g_ptr_array_add (nodes, graph->node[n]);
  for (guint i = 0; i < nodes->len; i++)
    {
      Onnx__NodeProto *node = nodes->pdata[i], *twin;
      g_autoptr (GBytes) key = NULL;
      GPtrArray *chain;

      if (!onyx_graph_index_has_node (index, node) || !node_read (ctx, graph, node) ||
          !node_deterministic (ctx, graph, node, 0))
        continue;
      key = node_key (node);
      chain = g_hash_table_lookup (seen, key);
      twin = chain != NULL ? find_twin (index, chain, node, key) : NULL;
      if (twin != NULL)
        {
          g_autofree const char **sources = g_new0 (const char *, node->n_output);
          for (size_t k = 0; k < node->n_output && k < twin->n_output; k++)
            sources[k] = twin->output[k];
          n_merged += onyx_simplify_merge_outputs (ctx, graph, node, sources);
          continue;
        }
      if (chain == NULL)
        {
          chain = g_ptr_array_new ();
          g_hash_table_insert (seen, g_bytes_ref (key), chain);
        }
      g_ptr_array_add (chain, node);
    }
  return n_merged;
}

static guint
duplicates_run (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, G_GNUC_UNUSED GError **error)
{
  guint n_changes = share_constants (ctx, graph);

  for (guint sweep = 0; sweep < MAX_SWEEPS; sweep++)
    {
      guint n = merge_nodes_once (ctx, graph);
      n_changes += n;
      if (n == 0)
        break;
    }
  return n_changes;
}

const OnyxSimplifyPass onyx_simplify_duplicates_pass = {
  .name = "duplicates",
  .title = N_("Duplicates"),
  .flag = ONYX_SIMPLIFY_DUPLICATES,
  .run = duplicates_run,
};
