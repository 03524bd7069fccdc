/* onyx-run-profile-map.c: the trace's kernels said on the file's nodes
 * (onyx-run-profile-private.h).
 *
 * ONNX Runtime times the graph it optimized, whose nodes are not the file's: it folds
 * constants, eliminates nodes that do nothing (Identity, a Cast to the same type),
 * fuses patterns into one node (Conv+BatchNormalization+Relu into FusedConv named
 * after the Conv, Gemm+Tanh into FusedGemm "fused NAME", MatMul+Add into Gemm
 * "NAME/MatMulAddFusion", LayerNormalization "NAME/LayerNormFusion/"…), at level all
 * moves convolutions to the NCHWc layout (a Conv named after its output tensor,
 * "OUT_nchwc", between ReorderInput/ReorderOutput nodes), and names what it makes
 * in ways that change between releases. Names alone cannot say which file nodes a
 * kernel covers, so the helper has the runtime write the model as it optimized it,
 * and the mapping follows the tensors:
 *
 * - Tensors keep their names through most rewrites. A tensor of the file that the
 *   optimized graph has too (made by a node, an input or an initializer) is an
 *   anchor; an NCHWc kernel's outputs stand for the file tensor it is named after,
 *   and a reorder's for the tensor it reorders.
 * - Each kernel (in the optimized graph's order) covers the file nodes found walking
 *   back from the file tensors it makes, through tensors that are not anchors nor
 *   its own inputs, and not constant (initializers, Constant nodes and what only they
 *   feed: folded, not fused): its region.
 * - In a region, the node of the kernel's own name is OWN. When the kernel is still
 *   that node's own operator, the other nodes of its region were absorbed without a
 *   kernel of theirs (a BatchNormalization folded into the Conv's weights, a Cast or
 *   Identity eliminated, a Reshape's shape computation folded): FOLDED. Otherwise
 *   the kernel is a fusion and its region's nodes are FUSED into it.
 * - A kernel that makes no tensor of the file (an inlined function's nodes but the
 *   last, a pattern split in several kernels) covers the nodes of the kernel its
 *   outputs lead to, its time joined to theirs.
 * - Nodes no kernel covers are FOLDED. Kernels that cover none (reorders, memory
 *   copies) are added kernels.
 *
 * Subgraphs (If/Loop/Scan bodies) map the same way, each with its counterpart:
 * the body of the optimized node of the same name as the file's. Nodes without a
 * unique name ran under their reference (onyx-run-profile-names.c), so that every
 * kernel's name points at one node. */
#include "onyx-run-profile-private.h"

#include <string.h>

#include "onyx-graph-names.h"

/* ---- Graphs of the file ---- */

/* What a walk over one graph of the file needs. */
typedef struct {
  Onnx__GraphProto *graph;
  guint first;               /* its nodes in profile->nodes */
  GHashTable *producer;      /* tensor → position + 1 */
  GHashTable *constant;      /* tensors known before any run */
  GHashTable *known;         /* every tensor it has: made, inputs, initializers */
} FileGraph;

static gboolean
has_subgraph (const Onnx__NodeProto *node)
{
  for (size_t a = 0; a < node->n_attribute; a++)
    if (node->attribute[a]->g != NULL || node->attribute[a]->n_graphs > 0)
      return TRUE;
  return FALSE;
}

/* Whether every value the node takes is constant: the runtime folds such a node,
 * unless it draws random numbers or holds a graph. */
static gboolean
foldable (const Onnx__NodeProto *node, GHashTable *constant)
{
  if (has_subgraph (node) || g_str_has_prefix (node->op_type, "Random"))
    return FALSE;
  for (size_t i = 0; i < node->n_input; i++)
    if (node->input[i][0] != '\0' && !g_hash_table_contains (constant, node->input[i]))
      return FALSE;
  return TRUE;
}

static void
file_graph_init (FileGraph *file, Onnx__GraphProto *graph, guint first)
{
  file->graph = graph;
  file->first = first;
  file->producer = g_hash_table_new (g_str_hash, g_str_equal);
  file->constant = g_hash_table_new (g_str_hash, g_str_equal);
  file->known = g_hash_table_new (g_str_hash, g_str_equal);
  for (size_t i = 0; i < graph->n_initializer; i++)
    {
      g_hash_table_add (file->constant, graph->initializer[i]->name);
      g_hash_table_add (file->known, graph->initializer[i]->name);
    }
  for (size_t i = 0; i < graph->n_input; i++)
    g_hash_table_add (file->known, graph->input[i]->name);
  /* Inputs that have an initializer too can be fed: not constant. */
  for (size_t i = 0; i < graph->n_input; i++)
    g_hash_table_remove (file->constant, graph->input[i]->name);
  for (size_t n = 0; n < graph->n_node; n++)
    {
      const Onnx__NodeProto *node = graph->node[n];
      gboolean constant = foldable (node, file->constant);
      for (size_t o = 0; o < node->n_output; o++)
        if (node->output[o][0] != '\0')
          {
            g_hash_table_insert (file->producer, node->output[o], GUINT_TO_POINTER (n + 1));
            g_hash_table_add (file->known, node->output[o]);
            if (constant)
              g_hash_table_add (file->constant, node->output[o]);
          }
    }
}

static void
file_graph_clear (FileGraph *file)
{
  g_hash_table_unref (file->producer);
  g_hash_table_unref (file->constant);
  g_hash_table_unref (file->known);
}

/* ---- Graphs of the optimized model ---- */

typedef struct {
  Onnx__GraphProto *graph;
  int file;                  /* the file's graph it is the optimized form of; -1: none */
  const OnyxProfileKernel *owner; /* the kernel of the node holding it; NULL for main */
  GHashTable *producer;      /* tensor → Onnx__NodeProto * */
  GHashTable *equivalent;    /* its tensor → the file's tensor it stands for ("" none) */
} OptGraph;

typedef struct {
  OnyxProfile *profile;
  OnyxGraphList *files;      /* the file's graph list, entries as profile->graphs */
  FileGraph *file_graphs;
  GPtrArray *opt_graphs;     /* OptGraph */
  GHashTable *trace_kernels; /* "PARENT\nNAME" → OnyxProfileKernel * of the trace */
  GHashTable *kernel_of;     /* optimized Onnx__NodeProto * → its OnyxProfileKernel * */
  gboolean *claimed;         /* per node of the file */
} Mapping;

static void
opt_graph_free (gpointer data)
{
  OptGraph *opt = data;
  g_hash_table_unref (opt->producer);
  g_hash_table_unref (opt->equivalent);
  g_free (opt);
}

static char *
kernel_key (const OnyxProfileKernel *parent, const char *name)
{
  return g_strdup_printf ("%p\n%s", (const void *) parent, name);
}

/* The file's graph held by attribute `attribute` of the file's node named `owner` in
 * file graph `parent`; -1 when there is none. */
static int
file_subgraph (Mapping *mapping, int parent, const char *owner, const char *attribute)
{
  const OnyxProfileNode *node = owner != NULL ? g_hash_table_lookup (mapping->profile->by_name, owner) : NULL;
  g_autoptr (GPtrArray) children = NULL;

  if (node == NULL || parent < 0 || node->graph != (guint) parent)
    return -1;
  children = onyx_graph_list_children (mapping->files,
                                       mapping->file_graphs[parent].graph->node[node->index]);
  for (guint c = 0; c < children->len; c++)
    {
      const OnyxGraphEntry *entry = children->pdata[c];
      if (entry->function == NULL && g_strcmp0 (entry->attribute, attribute) == 0)
        for (guint g = 0; g < mapping->profile->graphs->len; g++)
          if (mapping->file_graphs[g].graph == entry->graph)
            return (int) g;
    }
  return -1;
}

/* Each node's kernel: the trace's of its name under its graph's owner, or one that
 * never ran (a branch not taken). */
static void
add_opt_graph (Mapping *mapping, Onnx__GraphProto *graph, int file, const OnyxProfileKernel *owner, guint depth)
{
  OptGraph *opt = g_new0 (OptGraph, 1);

  opt->graph = graph;
  opt->file = file;
  opt->owner = owner;
  opt->producer = g_hash_table_new (g_str_hash, g_str_equal);
  opt->equivalent = g_hash_table_new (g_str_hash, g_str_equal);
  g_ptr_array_add (mapping->opt_graphs, opt);
  for (size_t n = 0; n < graph->n_node; n++)
    {
      Onnx__NodeProto *node = graph->node[n];
      g_autofree char *key = kernel_key (owner, node->name != NULL ? node->name : "");
      OnyxProfileKernel *kernel = g_hash_table_lookup (mapping->trace_kernels, key);

      if (kernel != NULL)
        g_hash_table_remove (mapping->trace_kernels, key);
      else
        {
          g_autofree char *op = onyx_profile_qualified_op (node);
          kernel = onyx_profile_kernel_new (node->name != NULL ? node->name : "", op, owner);
          g_ptr_array_add (mapping->profile->kernels, kernel);
        }
      g_hash_table_insert (mapping->kernel_of, node, kernel);
      for (size_t o = 0; o < node->n_output; o++)
        g_hash_table_insert (opt->producer, node->output[o], node);
      if (depth >= 64)
        continue;
      for (size_t a = 0; a < node->n_attribute; a++)
        if (node->attribute[a]->g != NULL)
          add_opt_graph (mapping, node->attribute[a]->g,
                         file_subgraph (mapping, file, node->name, node->attribute[a]->name), kernel, depth + 1);
    }
}

/* Reorders and copies between devices: what they make is what they take. */
static gboolean
is_layout_kernel (const Onnx__NodeProto *node)
{
  return (g_strcmp0 (node->domain, "com.microsoft.nchwc") == 0 && g_str_has_prefix (node->op_type, "Reorder")) ||
         g_str_has_prefix (node->op_type, "Memcpy");
}

#define NCHWC_SUFFIX "_nchwc"

/* The file's tensor an optimized tensor stands for, or NULL. */
static const char *
equivalent (OptGraph *opt, const FileGraph *file, const char *tensor, guint depth)
{
  const char *found;
  const Onnx__NodeProto *producer;

  if (tensor == NULL || tensor[0] == '\0')
    return NULL;
  if (g_hash_table_contains (file->known, tensor))
    return tensor;
  if ((found = g_hash_table_lookup (opt->equivalent, tensor)) != NULL)
    return found[0] != '\0' ? found : NULL;
  found = "";
  producer = g_hash_table_lookup (opt->producer, tensor);
  if (producer != NULL && is_layout_kernel (producer) && producer->n_input > 0 && depth < 1000)
    found = equivalent (opt, file, producer->input[0], depth + 1);
  else if (producer != NULL && producer->n_output > 0 && g_strcmp0 (producer->output[0], tensor) == 0 &&
           producer->name != NULL && g_str_has_suffix (producer->name, NCHWC_SUFFIX))
    {
      g_autofree char *stem = g_strndup (producer->name, strlen (producer->name) - strlen (NCHWC_SUFFIX));
      gpointer key;
      if (g_hash_table_lookup_extended (file->known, stem, &key, NULL))
        found = key;
    }
  g_hash_table_insert (opt->equivalent, (gpointer) tensor, (gpointer) (found != NULL ? found : ""));
  return found != NULL && found[0] != '\0' ? found : NULL;
}

static void
add_equivalent (GHashTable *set, OptGraph *opt, const FileGraph *file, const char *tensor)
{
  const char *same = equivalent (opt, file, tensor, 0);
  if (same != NULL)
    g_hash_table_add (set, (gpointer) same);
}

/* The file's tensors the optimized graph has: where walks stop. */
static GHashTable *
anchors_of (OptGraph *opt, const FileGraph *file)
{
  GHashTable *anchors = g_hash_table_new (g_str_hash, g_str_equal);

  for (size_t i = 0; i < opt->graph->n_input; i++)
    add_equivalent (anchors, opt, file, opt->graph->input[i]->name);
  for (size_t i = 0; i < opt->graph->n_initializer; i++)
    add_equivalent (anchors, opt, file, opt->graph->initializer[i]->name);
  for (size_t n = 0; n < opt->graph->n_node; n++)
    for (size_t o = 0; o < opt->graph->node[n]->n_output; o++)
      add_equivalent (anchors, opt, file, opt->graph->node[n]->output[o]);
  return anchors;
}

static gboolean
same_operator (const Onnx__NodeProto *a, const Onnx__NodeProto *b)
{
  g_autofree char *x = onyx_profile_qualified_op (a), *y = onyx_profile_qualified_op (b);
  return strcmp (x, y) == 0;
}

static int
by_position (gconstpointer a, gconstpointer b)
{
  const OnyxProfileNode *x = *(OnyxProfileNode *const *) a, *y = *(OnyxProfileNode *const *) b;
  return (x->index > y->index) - (x->index < y->index);
}

/* The file's nodes the kernel of optimized node `node` covers, and their status. */
static void
claim_region (Mapping *mapping, OptGraph *opt, const FileGraph *file, GHashTable *anchors,
              const Onnx__NodeProto *node)
{
  OnyxProfileKernel *kernel = g_hash_table_lookup (mapping->kernel_of, node);
  g_autoptr (GHashTable) inputs = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GPtrArray) pending = g_ptr_array_new ();
  g_autoptr (GPtrArray) region = g_ptr_array_new ();
  OnyxProfileNode *own = NULL;
  gboolean absorbs;

  for (size_t i = 0; i < node->n_input; i++)
    add_equivalent (inputs, opt, file, node->input[i]);
  for (size_t o = 0; o < node->n_output; o++)
    {
      const char *made = equivalent (opt, file, node->output[o], 0);
      if (made != NULL)
        g_ptr_array_add (pending, (gpointer) made);
    }
  while (pending->len > 0)
    {
      const char *tensor = g_ptr_array_steal_index_fast (pending, pending->len - 1);
      guint position = GPOINTER_TO_UINT (g_hash_table_lookup (file->producer, tensor));
      const Onnx__NodeProto *proto;
      OnyxProfileNode *covered;

      if (position == 0 || mapping->claimed[file->first + position - 1])
        continue;
      covered = &mapping->profile->nodes[file->first + position - 1];
      proto = file->graph->node[position - 1];
      mapping->claimed[file->first + position - 1] = TRUE;
      g_ptr_array_add (region, covered);
      if (g_strcmp0 (covered->name, node->name) == 0)
        own = covered;
      for (size_t i = 0; i < proto->n_input; i++)
        if (proto->input[i][0] != '\0' && !g_hash_table_contains (anchors, proto->input[i]) &&
            !g_hash_table_contains (inputs, proto->input[i]) && !g_hash_table_contains (file->constant, proto->input[i]))
          g_ptr_array_add (pending, proto->input[i]);
    }
  g_ptr_array_sort (region, by_position);
  /* Still the own node's operator: the rest was absorbed, not fused. */
  absorbs = own != NULL && same_operator (file->graph->node[own->index], node);
  if (own != NULL)
    {
      own->status = ONYX_PROFILE_OWN;
      own->kernel = kernel;
      g_ptr_array_add (kernel->nodes, own);
    }
  for (guint r = 0; r < region->len; r++)
    {
      OnyxProfileNode *covered = region->pdata[r];
      if (covered == own || absorbs)
        continue;
      covered->status = ONYX_PROFILE_FUSED;
      covered->kernel = kernel;
      g_ptr_array_add (kernel->nodes, covered);
    }
}

/* The first kernel that covers nodes of the file downstream of `node` (through
 * kernels that cover none), or NULL. */
static OnyxProfileKernel *
covering_downstream (Mapping *mapping, OptGraph *opt, GHashTable *consumers, const Onnx__NodeProto *node)
{
  g_autoptr (GPtrArray) pending = g_ptr_array_new ();
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);

  g_ptr_array_add (pending, (gpointer) node);
  for (guint at = 0; at < pending->len; at++)
    {
      const Onnx__NodeProto *from = pending->pdata[at];
      for (size_t o = 0; o < from->n_output; o++)
        {
          GPtrArray *readers = g_hash_table_lookup (consumers, from->output[o]);
          for (guint r = 0; readers != NULL && r < readers->len; r++)
            {
              OnyxProfileKernel *kernel = g_hash_table_lookup (mapping->kernel_of, readers->pdata[r]);
              if (kernel != NULL && kernel->nodes->len > 0)
                return kernel;
              if (g_hash_table_add (seen, readers->pdata[r]))
                g_ptr_array_add (pending, readers->pdata[r]);
            }
        }
    }
  return NULL;
}

/* Kernels that make no tensor of the file (the nodes of an inlined function but its
 * last, part of a pattern the runtime split) run for the nodes of the kernel their
 * outputs lead to: they cover those too, their time joined to the nodes'. Reorders
 * and copies stay added kernels. */
static void
join_inner_kernels (Mapping *mapping, OptGraph *opt)
{
  g_autoptr (GHashTable) consumers = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                            (GDestroyNotify) g_ptr_array_unref);

  for (size_t n = 0; n < opt->graph->n_node; n++)
    for (size_t i = 0; i < opt->graph->node[n]->n_input; i++)
      {
        const char *input = opt->graph->node[n]->input[i];
        GPtrArray *readers = g_hash_table_lookup (consumers, input);
        if (readers == NULL)
          g_hash_table_insert (consumers, (gpointer) input, readers = g_ptr_array_new ());
        g_ptr_array_add (readers, opt->graph->node[n]);
      }
  for (size_t n = 0; n < opt->graph->n_node; n++)
    {
      const Onnx__NodeProto *node = opt->graph->node[n];
      OnyxProfileKernel *kernel = g_hash_table_lookup (mapping->kernel_of, node), *downstream;

      if (is_layout_kernel (node) || kernel->nodes->len > 0 ||
          (downstream = covering_downstream (mapping, opt, consumers, node)) == NULL)
        continue;
      for (guint c = 0; c < downstream->nodes->len; c++)
        {
          OnyxProfileNode *covered = downstream->nodes->pdata[c];
          g_ptr_array_add (kernel->nodes, covered);
          if (covered->joined == NULL)
            covered->joined = g_ptr_array_new ();
          g_ptr_array_add (covered->joined, kernel);
        }
    }
}

static void
map_graph (Mapping *mapping, OptGraph *opt)
{
  const FileGraph *file = &mapping->file_graphs[opt->file];
  g_autoptr (GHashTable) anchors = anchors_of (opt, file);

  for (size_t n = 0; n < opt->graph->n_node; n++)
    if (!is_layout_kernel (opt->graph->node[n]))
      claim_region (mapping, opt, file, anchors, opt->graph->node[n]);
  join_inner_kernels (mapping, opt);
}

void
onyx_profile_map (OnyxProfile *profile, Onnx__ModelProto *model, OnyxProfileTrace *trace,
                  Onnx__ModelProto *optimized)
{
  g_autoptr (GPtrArray) graphs = onyx_graph_list_graphs (model);
  Mapping mapping = { profile, onyx_graph_list_new (model), g_new0 (FileGraph, profile->graphs->len),
                      g_ptr_array_new_with_free_func (opt_graph_free),
                      g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL), g_hash_table_new (NULL, NULL),
                      g_new0 (gboolean, MAX (profile->n_nodes, 1)) };

  for (guint g = 0; g < profile->graphs->len; g++)
    file_graph_init (&mapping.file_graphs[g], graphs->pdata[g], ((OnyxProfileGraph *) profile->graphs->pdata[g])->first_node);
  /* The trace's kernels become the profile's; those no optimized node claims are added. */
  profile->kernels = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_profile_kernel_free);
  for (guint k = 0; k < trace->kernels->len; k++)
    {
      OnyxProfileKernel *kernel = trace->kernels->pdata[k];
      g_ptr_array_add (profile->kernels, kernel);
      g_hash_table_insert (mapping.trace_kernels, kernel_key (kernel->parent, kernel->name), kernel);
    }
  g_ptr_array_set_free_func (trace->kernels, NULL);
  g_ptr_array_set_size (trace->kernels, 0);
  if (optimized != NULL && optimized->graph != NULL)
    add_opt_graph (&mapping, optimized->graph, 0, NULL, 0);
  for (guint o = 0; o < mapping.opt_graphs->len; o++)
    {
      OptGraph *opt = mapping.opt_graphs->pdata[o];
      if (opt->file >= 0)
        map_graph (&mapping, opt);
    }
  /* Kernels no optimized node names (none, as the runtime writes them) and those whose
   * node covers no node of the file alike: the runtime's additions. */
  profile->added_kernels = g_ptr_array_new ();
  for (guint k = 0; k < profile->kernels->len; k++)
    {
      OnyxProfileKernel *kernel = profile->kernels->pdata[k];
      if (kernel->nodes->len == 0 && kernel->calls > 0)
        g_ptr_array_add (profile->added_kernels, kernel);
    }
  for (guint g = 0; g < profile->graphs->len; g++)
    file_graph_clear (&mapping.file_graphs[g]);
  g_free (mapping.file_graphs);
  g_free (mapping.claimed);
  g_ptr_array_unref (mapping.opt_graphs);
  g_hash_table_unref (mapping.trace_kernels);
  g_hash_table_unref (mapping.kernel_of);
  onyx_graph_list_unref (mapping.files);
}
