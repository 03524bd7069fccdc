/* Simplify's constant conditions: an If whose condition is a constant (an
 * initializer or a Constant node: a bool of one element) is replaced by the branch
 * it takes. Copies of the branch's nodes take the If's place, its initializers join
 * the graph, and each output of the If takes the value of the branch's output: the
 * branch node making it writes the If's output name; where the branch gives an
 * outer name or an initializer, the If output's readers read that instead (an
 * Identity keeps the name of a graph output). Branch names that the rest of the
 * model uses are renamed, consistently, inside the nodes that move and the graphs
 * they hold. The next round simplifies the joined nodes. */
#include <stdlib.h>
#include <string.h>

#include "onyx-simplify-private.h"

#include <glib/gi18n-lib.h>

#include "onyx-tensor-values.h"

#define MAX_DEPTH 64

/* Whether the If's condition is a constant, and which branch it takes. */
static gboolean
constant_condition (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const Onnx__NodeProto *node,
                    gboolean *then_taken)
{
  g_autoptr (OnyxArray) cond = NULL;

  if (node->n_input < 1 || node->input[0][0] == '\0')
    return FALSE;
  cond = onyx_simplify_constant_value (ctx, graph, node->input[0], 16, NULL);
  if (cond == NULL || cond->elem_type != ONNX__TENSOR_PROTO__DATA_TYPE__BOOL || onyx_array_count (cond) != 1)
    return FALSE;
  *then_taken = *(const guint8 *) g_bytes_get_data (cond->data, NULL) != 0;
  return TRUE;
}

/* The branch an If with a constant condition takes, when it can take the If's
 * place: no inputs (an If's branches have none), no sparse initializers (which no
 * helper moves), one named output per output of the If. */
static Onnx__GraphProto *
taken_branch (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, const Onnx__NodeProto *node)
{
  const Onnx__AttributeProto *attr;
  gboolean then_taken;

  if (!onyx_simplify_is_op (node, "If") || !constant_condition (ctx, graph, node, &then_taken))
    return NULL;
  attr = onyx_simplify_attribute (node, then_taken ? "then_branch" : "else_branch");
  if (attr == NULL || attr->g == NULL || attr->g->n_input > 0 || attr->g->n_sparse_initializer > 0 ||
      attr->g->n_output != node->n_output)
    return NULL;
  for (size_t k = 0; k < attr->g->n_output; k++)
    if (attr->g->output[k]->name == NULL || attr->g->output[k]->name[0] == '\0')
      return NULL;
  return attr->g;
}

/* ---- Names ---- */

static void
add_name (GHashTable *names, const char *name)
{
  if (name != NULL && name[0] != '\0')
    g_hash_table_add (names, (gpointer) name);
}

/* The tensor and node names of `graph` and the graphs it holds, but for those in the
 * graphs `skip` holds: what stays in the model when `skip` goes. */
static void
collect_names_outside (const Onnx__GraphProto *graph, const Onnx__NodeProto *skip, GHashTable *tensors,
                       GHashTable *nodes, guint depth)
{
  if (depth > MAX_DEPTH)
    return;
  for (size_t i = 0; i < graph->n_input; i++)
    add_name (tensors, graph->input[i]->name);
  for (size_t i = 0; i < graph->n_output; i++)
    add_name (tensors, graph->output[i]->name);
  for (size_t i = 0; i < graph->n_initializer; i++)
    add_name (tensors, graph->initializer[i]->name);
  for (size_t n = 0; n < graph->n_node; n++)
    {
      const Onnx__NodeProto *node = graph->node[n];
      add_name (nodes, node->name);
      for (size_t k = 0; k < node->n_input; k++)
        add_name (tensors, node->input[k]);
      for (size_t k = 0; k < node->n_output; k++)
        add_name (tensors, node->output[k]);
      for (size_t a = 0; a < node->n_attribute && node != skip; a++)
        {
          if (node->attribute[a]->g != NULL)
            collect_names_outside (node->attribute[a]->g, skip, tensors, nodes, depth + 1);
          for (size_t g = 0; g < node->attribute[a]->n_graphs; g++)
            collect_names_outside (node->attribute[a]->graphs[g], skip, tensors, nodes, depth + 1);
        }
    }
}

/* Names a graph defines itself: its inputs, initializers and its nodes' outputs. */
static gboolean
graph_defines (const Onnx__GraphProto *graph, const char *name)
{
  for (size_t i = 0; i < graph->n_input; i++)
    if (g_strcmp0 (graph->input[i]->name, name) == 0)
      return TRUE;
  for (size_t i = 0; i < graph->n_initializer; i++)
    if (g_strcmp0 (graph->initializer[i]->name, name) == 0)
      return TRUE;
  for (size_t n = 0; n < graph->n_node; n++)
    for (size_t k = 0; k < graph->node[n]->n_output; k++)
      if (g_strcmp0 (graph->node[n]->output[k], name) == 0)
        return TRUE;
  return FALSE;
}

static void
rename_string (char **slot, GHashTable *renames)
{
  const char *renamed = *slot != NULL ? g_hash_table_lookup (renames, *slot) : NULL;

  if (renamed != NULL)
    {
      free (*slot);
      *slot = strdup (renamed);
    }
}

static void rename_in_graph (Onnx__GraphProto *graph, GHashTable *renames, guint depth);

/* The names a (copied, not yet inserted) node reads, writes, and its subgraphs read. */
static void
rename_in_node (Onnx__NodeProto *node, GHashTable *renames, guint depth)
{
  for (size_t k = 0; k < node->n_input; k++)
    rename_string (&node->input[k], renames);
  for (size_t k = 0; k < node->n_output; k++)
    rename_string (&node->output[k], renames);
  for (size_t a = 0; a < node->n_attribute; a++)
    {
      if (node->attribute[a]->g != NULL)
        rename_in_graph (node->attribute[a]->g, renames, depth + 1);
      for (size_t g = 0; g < node->attribute[a]->n_graphs; g++)
        rename_in_graph (node->attribute[a]->graphs[g], renames, depth + 1);
    }
}

/* Reads of renamed outer names inside a subgraph of a moved node: what the subgraph
 * defines itself under the same name shadows the outer one and stays. */
static void
rename_in_graph (Onnx__GraphProto *graph, GHashTable *renames, guint depth)
{
  g_autoptr (GHashTable) narrowed = NULL;
  GHashTableIter iter;
  gpointer key, value;

  if (depth > MAX_DEPTH)
    return;
  g_hash_table_iter_init (&iter, renames);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (graph_defines (graph, key))
      {
        narrowed = g_hash_table_new (g_str_hash, g_str_equal);
        break;
      }
  if (narrowed != NULL)
    {
      /* The map without the shadowed names, for this graph and those it holds. */
      g_hash_table_iter_init (&iter, renames);
      while (g_hash_table_iter_next (&iter, &key, &value))
        if (!graph_defines (graph, key))
          g_hash_table_insert (narrowed, key, value);
      renames = narrowed;
    }
  for (size_t i = 0; i < graph->n_output; i++)
    rename_string (&graph->output[i]->name, renames);
  for (size_t n = 0; n < graph->n_node; n++)
    rename_in_node (graph->node[n], renames, depth);
}

/* Whether `name` is written by a node of `graph` (not an initializer, not an outer
 * name). */
static gboolean
made_by_node (const Onnx__GraphProto *graph, const char *name)
{
  for (size_t n = 0; n < graph->n_node; n++)
    for (size_t k = 0; k < graph->node[n]->n_output; k++)
      if (g_strcmp0 (graph->node[n]->output[k], name) == 0)
        return TRUE;
  return FALSE;
}

/* Branch name → name in the graph around: the first branch output made by a node
 * becomes the If's output of the same position; a name the rest of the model uses
 * gets a new one. */
static GHashTable *
branch_renames (OnyxSimplifyContext *ctx, const Onnx__NodeProto *node, const Onnx__GraphProto *branch,
                GHashTable *outside)
{
  GHashTable *renames = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (GPtrArray) defined = g_ptr_array_new ();

  for (size_t k = 0; k < node->n_output; k++)
    {
      const char *source = branch->output[k]->name;
      if (node->output[k][0] != '\0' && source != NULL && made_by_node (branch, source) &&
          !g_hash_table_contains (renames, source))
        g_hash_table_insert (renames, g_strdup (source), g_strdup (node->output[k]));
    }
  for (size_t i = 0; i < branch->n_initializer; i++)
    g_ptr_array_add (defined, branch->initializer[i]->name);
  for (size_t n = 0; n < branch->n_node; n++)
    for (size_t k = 0; k < branch->node[n]->n_output; k++)
      g_ptr_array_add (defined, branch->node[n]->output[k]);
  for (guint i = 0; i < defined->len; i++)
    {
      const char *name = defined->pdata[i];
      if (name != NULL && name[0] != '\0' && !g_hash_table_contains (renames, name) &&
          g_hash_table_contains (outside, name))
        g_hash_table_insert (renames, g_strdup (name), onyx_simplify_unique_name (ctx, name));
    }
  return renames;
}

/* ---- Taking the branch ---- */

static Onnx__NodeProto *
identity_node (const char *name, const char *input, const char *output)
{
  Onnx__NodeProto *node = malloc (sizeof *node);

  onnx__node_proto__init (node);
  node->name = strdup (name);
  node->op_type = strdup ("Identity");
  node->n_input = node->n_output = 1;
  node->input = malloc (sizeof *node->input);
  node->input[0] = strdup (input);
  node->output = malloc (sizeof *node->output);
  node->output[0] = strdup (output);
  return node;
}

/* What the If's output `k` is once the branch is taken: the branch's output under its
 * name in the graph around (NULL when that is the If's output itself, written by the
 * node that moves). */
static const char *
taken_output (const Onnx__NodeProto *node, const Onnx__GraphProto *branch, GHashTable *renames, size_t k)
{
  const char *source = branch->output[k]->name;
  const char *renamed = g_hash_table_lookup (renames, source);

  if (node->output[k][0] == '\0' || g_strcmp0 (renamed, node->output[k]) == 0)
    return NULL;
  return renamed != NULL ? renamed : source;
}

static void
take_branch (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, Onnx__NodeProto *node, Onnx__GraphProto *branch)
{
  g_autoptr (GHashTable) outside_tensors = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) outside_nodes = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) renames = NULL;
  g_autoptr (GPtrArray) nodes = g_ptr_array_new ();
  g_autoptr (GPtrArray) initializers = g_ptr_array_new ();
  g_autoptr (GPtrArray) identities = g_ptr_array_new ();
  g_autofree char *if_name = g_strdup (node->name != NULL && node->name[0] != '\0' ? node->name : "Identity");
  OnyxGraphIndex *index = onyx_document_get_graph_index (ctx->doc, graph);
  gsize position = (gsize) onyx_graph_index_node_position (index, node);
  gboolean if_name_free = node->name != NULL && node->name[0] != '\0';

  /* The If's own name is among them: a branch node of that name is renamed, and the
   * name goes to the first Identity below. */
  collect_names_outside (onyx_document_get_proto (ctx->doc)->graph, node, outside_tensors, outside_nodes, 0);
  renames = branch_renames (ctx, node, branch, outside_tensors);
  for (size_t n = 0; n < branch->n_node; n++)
    {
      Onnx__NodeProto *copy = (Onnx__NodeProto *) onyx_model_copy_sharing (ctx->model, &branch->node[n]->base);
      rename_in_node (copy, renames, 0);
      if (copy->name != NULL && copy->name[0] != '\0' && g_hash_table_contains (outside_nodes, copy->name))
        {
          g_autofree char *name = onyx_simplify_unique_name (ctx, copy->name);
          free (copy->name);
          copy->name = strdup (name);
        }
      g_ptr_array_add (nodes, copy);
    }
  for (size_t i = 0; i < branch->n_initializer; i++)
    {
      Onnx__TensorProto *copy = (Onnx__TensorProto *) onyx_model_copy_sharing (ctx->model,
                                                                              &branch->initializer[i]->base);
      rename_string (&copy->name, renames);
      g_ptr_array_add (initializers, copy);
    }
  /* An output the branch gives as an outer name or an initializer: its readers read
   * that instead, and a graph output keeps its name through an Identity, the first
   * taking the name of the If it stands for. */
  for (size_t k = 0; k < node->n_output; k++)
    {
      const char *source = taken_output (node, branch, renames, k);
      if (source == NULL)
        continue;
      if (onyx_simplify_is_output (graph, node->output[k]))
        {
          g_autofree char *name = if_name_free ? g_strdup (if_name) : onyx_simplify_unique_name (ctx, if_name);
          if_name_free = FALSE;
          g_ptr_array_add (identities, identity_node (name, source, node->output[k]));
        }
      else
        onyx_edit_redirect_uses (ctx->doc, graph, node->output[k], source, node);
    }

  onyx_simplify_remove_node (ctx, node);
  g_ptr_array_extend_and_steal (nodes, g_steal_pointer (&identities));
  for (guint i = 0; i < nodes->len; i++)
    onyx_document_insert_item (ctx->doc, &graph->base, "node", position++, nodes->pdata[i]);
  for (guint i = 0; i < initializers->len; i++)
    onyx_simplify_add_initializer (ctx, graph, initializers->pdata[i]);
}

static guint
branches_run (OnyxSimplifyContext *ctx, Onnx__GraphProto *graph, G_GNUC_UNUSED GError **error)
{
  g_autoptr (GPtrArray) ifs = g_ptr_array_new ();
  guint n_taken = 0;

  for (size_t n = 0; n < graph->n_node; n++)
    if (taken_branch (ctx, graph, graph->node[n]) != NULL)
      g_ptr_array_add (ifs, graph->node[n]);
  for (guint i = 0; i < ifs->len; i++)
    {
      take_branch (ctx, graph, ifs->pdata[i], taken_branch (ctx, graph, ifs->pdata[i]));
      n_taken++;
    }
  return n_taken;
}

const OnyxSimplifyPass onyx_simplify_branches_pass = {
  .name = "branches",
  .title = N_("Constant conditions"),
  .flag = ONYX_SIMPLIFY_BRANCHES,
  .run = branches_run,
};
