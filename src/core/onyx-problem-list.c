/* onyx-problem-list.c: the problems of an OnyxDocument's model, kept up to date
 * with each step of the document (OnyxChange). */
#include "onyx-problem-list.h"
#include "onyx-diagnose-private.h"

#include <string.h>

#include "onyx-graph-index.h"
#include "onyx-shapes.h"
#include "onyx-types.h"

typedef struct {
  GPtrArray *problems;   /* onyx_diagnose_node's problems, its subgraphs' included */
  OnyxProblem *dead;     /* while no graph output depends on the node */
  GPtrArray *touched;    /* names (owned) it read and wrote when last checked */
} NodeState;

struct _OnyxProblemList {
  OnyxDocument *document;
  GHashTable *functions;
  OnyxKnownTypes *types;          /* of the main graph */
  OnyxGraphNamer namer;           /* subgraphs' names, made again after each change */
  GHashTable *states;    /* Onnx__NodeProto* → NodeState* */
  GPtrArray *validation; /* onyx_validate_model()'s problems (shared with the document) */
  GPtrArray *lists;      /* initializers, graph inputs/outputs, dims */
  GPtrArray *shape_errors;        /* of the document's current shapes */
  GPtrArray *quant_problems;      /* of its current quantization */
  gboolean whole_model_later;     /* see onyx_problem_list_set_whole_model_later */
  GPtrArray *in_functions;
  GPtrArray *result;     /* borrowed pointers, assembled by get_problems */
  gboolean result_valid; /* nothing changed since: the window asks several times a step */
  gboolean graph_wide_stale;      /* validation and lists wait for the next get_problems */
};

static void
node_state_free (NodeState *state)
{
  g_ptr_array_unref (state->problems);
  onyx_problem_free (state->dead);
  g_ptr_array_unref (state->touched);
  g_free (state);
}

static NodeState *
ensure_state (OnyxProblemList *self, Onnx__NodeProto *node)
{
  NodeState *state = g_hash_table_lookup (self->states, node);
  if (state == NULL)
    {
      state = g_new0 (NodeState, 1);
      state->problems = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_problem_free);
      state->touched = g_ptr_array_new_with_free_func (g_free);
      g_hash_table_insert (self->states, node, state);
    }
  return state;
}

static OnyxCheckedGraph
main_graph (OnyxProblemList *self)
{
  Onnx__ModelProto *proto = onyx_document_get_proto (self->document);
  OnyxCheckedGraph g = { "main graph", proto->opset_import, proto->n_opset_import, self->functions,
                         self->types, &self->namer, proto->graph };
  return g;
}

/* Every name the node reads (its subgraphs' outer reads too) and writes. */
static void
node_names (const Onnx__NodeProto *node, GPtrArray *names)
{
  onyx_node_collect_reads (node, names);
  for (size_t k = 0; k < node->n_output; k++)
    if (node->output[k] != NULL && node->output[k][0] != '\0')
      g_ptr_array_add (names, node->output[k]);
}

/* Named nodes need no position for their messages; the position of every listed
 * node is set when the list is assembled. */
static int
message_position (OnyxProblemList *self, Onnx__NodeProto *node)
{
  if (node->name != NULL && node->name[0] != '\0')
    return -1;
  return (int) onyx_graph_index_node_position (onyx_document_get_index (self->document), node);
}

static void set_live (OnyxProblemList *self, Onnx__NodeProto *node, gboolean live);

/* Re-runs a node's own checks; TRUE when its outputs' known types changed. */
static gboolean
recheck_node (OnyxProblemList *self, Onnx__NodeProto *node)
{
  NodeState *state = ensure_state (self, node);
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  OnyxCheckedGraph g = main_graph (self);
  gboolean changed;

  g_ptr_array_set_size (state->problems, 0);
  changed = onyx_diagnose_node (&g, node, message_position (self, node), state->problems);
  g_ptr_array_set_size (state->touched, 0);
  node_names (node, names);
  for (guint i = 0; i < names->len; i++)
    g_ptr_array_add (state->touched, g_strdup (names->pdata[i]));
  /* The node may have been renamed: its dead problem names it too. */
  if (state->dead != NULL)
    set_live (self, node, FALSE);
  return changed;
}

static gboolean
is_live (OnyxProblemList *self, Onnx__NodeProto *node)
{
  NodeState *state = g_hash_table_lookup (self->states, node);
  return state == NULL || state->dead == NULL;
}

static void
set_live (OnyxProblemList *self, Onnx__NodeProto *node, gboolean live)
{
  NodeState *state = ensure_state (self, node);
  OnyxCheckedGraph g = main_graph (self);

  g_clear_pointer (&state->dead, onyx_problem_free);
  if (!live)
    {
      g_autoptr (GPtrArray) one = g_ptr_array_new ();
      onyx_diagnose_add_dead (one, &g, node, message_position (self, node));
      state->dead = one->pdata[0];
    }
}

/* A node is live when a graph output is one of its outputs or a live node reads one. */
static gboolean
reaches_output (OnyxProblemList *self, Onnx__NodeProto *node)
{
  OnyxGraphIndex *index = onyx_document_get_index (self->document);

  for (size_t k = 0; k < node->n_output; k++)
    {
      const char *name = node->output[k];
      OnyxValue *value;
      if (name == NULL || name[0] == '\0')
        continue;
      if (onyx_graph_index_graph_output (index, name) != NULL)
        return TRUE;
      value = onyx_graph_index_lookup (index, name);
      for (guint u = 0; value != NULL && u < value->uses->len; u++)
        {
          Onnx__NodeProto *reader = g_array_index (value->uses, OnyxUse, u).node;
          if (reader != node && is_live (self, reader))
            return TRUE;
        }
    }
  return FALSE;
}

static gboolean
is_read (gpointer data, const char *name)
{
  OnyxGraphIndex *index = data;
  return onyx_graph_index_n_uses (index, name) > 0 ||
         onyx_graph_index_graph_output (index, name) != NULL;
}

#define DOCUMENT_VALIDATION "onyx-validation"

gboolean
onyx_document_offer_validation (OnyxDocument *document, GPtrArray *validation, guint64 revision)
{
  return onyx_document_keep_derived (document, DOCUMENT_VALIDATION, revision, validation,
                                     (GDestroyNotify) g_ptr_array_unref);
}

GPtrArray *
onyx_document_peek_validation (OnyxDocument *document)
{
  return onyx_document_get_derived (document, DOCUMENT_VALIDATION);
}

/* The document's validation, made now unless it is made elsewhere; NULL while it is
 * not made yet. */
static GPtrArray *
document_validation (OnyxProblemList *self)
{
  GPtrArray *validation = onyx_document_peek_validation (self->document);

  if (validation != NULL || self->whole_model_later)
    return validation;
  validation = onyx_validate_model (onyx_document_get_proto (self->document));
  onyx_document_offer_validation (self->document, validation, onyx_document_get_revision (self->document));
  return validation;
}

static void
refresh_graph_wide (OnyxProblemList *self)
{
  Onnx__ModelProto *proto = onyx_document_get_proto (self->document);
  OnyxCheckedGraph g = main_graph (self);

  g_ptr_array_set_size (self->lists, 0);
  onyx_diagnose_graph_lists (&g, proto->graph, is_read, onyx_document_get_index (self->document),
                             self->lists);
  /* Removing the last node of a domain makes its import unused. */
  onyx_diagnose_opset_imports (proto, self->lists);
  onyx_diagnose_onnxruntime (proto, self->lists);
  onyx_diagnose_library_limits (proto, self->lists);
  onyx_diagnose_exporter_faults (proto, self->lists);
  onyx_problem_list_update_whole_model (self);
}

void
onyx_problem_list_update_whole_model (OnyxProblemList *self)
{
  Onnx__ModelProto *proto = onyx_document_get_proto (self->document);
  GPtrArray *validation = document_validation (self);
  /* Shapes flow through the whole graph: ONNX's inference runs once per step. */
  OnyxShapes *shapes = self->whole_model_later ? onyx_document_peek_shapes (self->document)
                                               : onyx_document_get_shapes (self->document);
  OnyxQuant *quant;

  self->result_valid = FALSE;
  g_clear_pointer (&self->validation, g_ptr_array_unref);
  if (validation != NULL)
    self->validation = g_ptr_array_ref (validation);
  g_ptr_array_set_size (self->shape_errors, 0);
  if (shapes != NULL)
    onyx_diagnose_shape_errors (proto, shapes, &self->namer, self->shape_errors);
  /* Quantization's checks read the neighbours' constants: its analysis is the step's,
   * like the shapes (in the app, made in the analysis' thread). */
  g_ptr_array_set_size (self->quant_problems, 0);
  quant = self->whole_model_later ? onyx_quant_peek_document (self->document)
                                  : onyx_quant_of_document (self->document);
  if (quant != NULL)
    onyx_diagnose_quant_of (quant, self->quant_problems, NULL);
}

void
onyx_problem_list_set_whole_model_later (OnyxProblemList *self, gboolean later)
{
  self->whole_model_later = later;
}

static void
recheck_all (OnyxProblemList *self)
{
  Onnx__ModelProto *proto = onyx_document_get_proto (self->document);
  Onnx__GraphProto *graph = proto->graph;
  g_autoptr (GPtrArray) outputs = g_ptr_array_new ();
  g_autofree gboolean *live = NULL;
  OnyxCheckedGraph g;

  g_hash_table_remove_all (self->states);
  onyx_known_types_free (self->types);
  self->types = onyx_known_types_new (NULL);
  onyx_known_types_declare_graph (self->types, graph);
  g = main_graph (self);
  for (size_t i = 0; i < graph->n_node; i++)
    {
      NodeState *state = ensure_state (self, graph->node[i]);
      g_autoptr (GPtrArray) names = g_ptr_array_new ();
      onyx_diagnose_node (&g, graph->node[i], (int)i, state->problems);
      node_names (graph->node[i], names);
      for (guint k = 0; k < names->len; k++)
        g_ptr_array_add (state->touched, g_strdup (names->pdata[k]));
    }
  for (size_t i = 0; i < graph->n_output; i++)
    g_ptr_array_add (outputs, graph->output[i]->name);
  live = onyx_diagnose_find_live (graph->node, graph->n_node, outputs);
  for (size_t i = 0; i < graph->n_node; i++)
    if (!live[i])
      {
        NodeState *state = ensure_state (self, graph->node[i]);
        g_autoptr (GPtrArray) one = g_ptr_array_new ();
        onyx_diagnose_add_dead (one, &g, graph->node[i], (int)i);
        state->dead = one->pdata[0];
      }

  g_ptr_array_set_size (self->in_functions, 0);
  g_hash_table_unref (self->functions);
  self->functions = onyx_diagnose_local_functions (proto);
  onyx_diagnose_functions (proto, self->functions, &self->namer, self->in_functions);
  refresh_graph_wide (self);
}

/* Queue of nodes, each at most once in it at a time. */
typedef struct {
  GQueue queue;
  GHashTable *queued;
} Work;

static void
work_push (Work *work, Onnx__NodeProto *node)
{
  if (node != NULL && g_hash_table_add (work->queued, node))
    g_queue_push_tail (&work->queue, node);
}

static Onnx__NodeProto *
work_pop (Work *work)
{
  Onnx__NodeProto *node = g_queue_pop_head (&work->queue);
  if (node != NULL)
    g_hash_table_remove (work->queued, node);
  return node;
}

/* The nodes producing or reading a name. */
static void
push_neighbours (Work *work, OnyxGraphIndex *index, const char *name, gboolean producer,
                 gboolean readers)
{
  OnyxValue *value = onyx_graph_index_lookup (index, name);

  if (value == NULL)
    return;
  if (producer)
    work_push (work, value->producer);
  for (guint u = 0; readers && u < value->uses->len; u++)
    work_push (work, g_array_index (value->uses, OnyxUse, u).node);
}

/* After an edit of `node` (a node of the main graph, or one just removed from it):
 * the node, the nodes producing or reading the tensors it touched before and after,
 * and downstream types and upstream reach as far as they change. The graph-wide
 * lists are left to the caller. */
static void
recheck_neighbourhood (OnyxProblemList *self, Onnx__NodeProto *node)
{
  OnyxGraphIndex *index = onyx_document_get_index (self->document);
  gboolean in_graph = onyx_graph_index_node_position (index, node) >= 0;
  NodeState *state = g_hash_table_lookup (self->states, node);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) visits = g_hash_table_new (NULL, NULL);
  g_autoptr (GPtrArray) reads = g_ptr_array_new ();
  Work types = { G_QUEUE_INIT, g_hash_table_new (NULL, NULL) };
  Work live = { G_QUEUE_INIT, g_hash_table_new (NULL, NULL) };
  Onnx__NodeProto *next;

  /* What the node touched before the edit and what it touches now. */
  if (state != NULL)
    for (guint i = 0; i < state->touched->len; i++)
      g_ptr_array_add (names, g_strdup (state->touched->pdata[i]));
  {
    g_autoptr (GPtrArray) now = g_ptr_array_new ();
    node_names (node, now);
    for (guint i = 0; i < now->len; i++)
      g_ptr_array_add (names, g_strdup (now->pdata[i]));
  }

  if (in_graph)
    work_push (&types, node);
  else
    {
      /* Gone: what it made is no longer known, unless another node makes it now. */
      OnyxCheckedGraph g = main_graph (self);
      for (size_t k = 0; k < node->n_output; k++)
        {
          OnyxValue *value;
          if (node->output[k] == NULL || node->output[k][0] == '\0')
            continue;
          value = onyx_graph_index_lookup (index, node->output[k]);
          if (value == NULL || value->producer == NULL)
            onyx_known_types_infer (g.types, node->output[k], NULL);
        }
      g_hash_table_remove (self->states, node);
    }
  for (guint i = 0; i < names->len; i++)
    push_neighbours (&types, index, names->pdata[i], TRUE, TRUE);

  /* OnyxKnownTypes flow downstream as far as what is known of them changes. A cycle (which
   * validation reports) could feed itself: each node is re-checked a few times at most. */
  while ((next = work_pop (&types)) != NULL)
    {
      guint n_visits = GPOINTER_TO_UINT (g_hash_table_lookup (visits, next));
      if (n_visits >= 3)
        continue;
      g_hash_table_insert (visits, next, GUINT_TO_POINTER (n_visits + 1));
      work_push (&live, next);
      if (recheck_node (self, next))
        for (size_t k = 0; k < next->n_output; k++)
          if (next->output[k] != NULL && next->output[k][0] != '\0')
            push_neighbours (&types, index, next->output[k], FALSE, TRUE);
    }

  /* Reach of the graph outputs changes upstream, as far as it changes. */
  for (guint i = 0; i < names->len; i++)
    push_neighbours (&live, index, names->pdata[i], TRUE, FALSE);
  while ((next = work_pop (&live)) != NULL)
    {
      gboolean now;
      /* A node no update was asked for (put back by an undo, say) is checked now. */
      if (!g_hash_table_contains (self->states, next))
        recheck_node (self, next);
      now = reaches_output (self, next);
      if (now == is_live (self, next))
        continue;
      set_live (self, next, now);
      g_ptr_array_set_size (reads, 0);
      onyx_node_collect_reads (next, reads);
      for (guint i = 0; i < reads->len; i++)
        push_neighbours (&live, index, reads->pdata[i], TRUE, FALSE);
    }

  g_hash_table_unref (types.queued);
  g_hash_table_unref (live.queued);
}

static void
document_changed_cb (OnyxDocument *document, const OnyxChange *change, OnyxProblemList *self)
{
  if (change == NULL)
    return;  /* saved: nothing in the model changed */
  self->result_valid = FALSE;
  onyx_graph_namer_clear (&self->namer);
  if (change->whole_model)
    {
      recheck_all (self);
      return;
    }
  for (guint i = 0; i < change->nodes->len; i++)
    recheck_neighbourhood (self, change->nodes->pdata[i]);
  /* Validation and the graph lists hash every name (9 ms on a 13k-node graph): once
   * for the whole step, when the problems are asked for, which the app does after the
   * step's frame. */
  self->graph_wide_stale = TRUE;
}

OnyxProblemList *
onyx_problem_list_new (OnyxDocument *document)
{
  OnyxProblemList *self = g_new0 (OnyxProblemList, 1);

  self->document = g_object_ref (document);
  self->namer.model = onyx_document_get_proto (document);
  self->functions = g_hash_table_new (g_str_hash, g_str_equal);
  self->states = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) node_state_free);
  self->lists = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_problem_free);
  self->shape_errors = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_problem_free);
  self->quant_problems = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_problem_free);
  self->in_functions = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_problem_free);
  self->result = g_ptr_array_new ();
  recheck_all (self);
  g_signal_connect (document, "changed", G_CALLBACK (document_changed_cb), self);
  return self;
}

void
onyx_problem_list_free (OnyxProblemList *self)
{
  if (self == NULL)
    return;
  g_signal_handlers_disconnect_by_func (self->document, document_changed_cb, self);
  g_hash_table_unref (self->states);
  onyx_known_types_free (self->types);
  g_hash_table_unref (self->functions);
  g_clear_pointer (&self->validation, g_ptr_array_unref);
  g_ptr_array_unref (self->lists);
  g_ptr_array_unref (self->shape_errors);
  g_ptr_array_unref (self->quant_problems);
  g_ptr_array_unref (self->in_functions);
  g_ptr_array_unref (self->result);
  onyx_graph_namer_clear (&self->namer);
  g_object_unref (self->document);
  g_free (self);
}

static void
append_all (GPtrArray *to, GPtrArray *from)
{
  for (guint i = 0; i < from->len; i++)
    g_ptr_array_add (to, from->pdata[i]);
}

GPtrArray *
onyx_problem_list_get (OnyxProblemList *self)
{
  Onnx__GraphProto *graph = onyx_document_get_proto (self->document)->graph;

  if (self->graph_wide_stale)
    {
      self->graph_wide_stale = FALSE;
      refresh_graph_wide (self);
    }
  if (self->result_valid)
    return self->result;
  g_ptr_array_set_size (self->result, 0);
  if (self->validation != NULL)
    append_all (self->result, self->validation);
  for (size_t i = 0; i < graph->n_node; i++)
    {
      NodeState *state = g_hash_table_lookup (self->states, graph->node[i]);
      if (state == NULL)
        continue;
      for (guint p = 0; p < state->problems->len; p++)
        {
          OnyxProblem *problem = state->problems->pdata[p];
          if (problem->node_proto == graph->node[i])
            problem->node_index = (int) i;
          g_ptr_array_add (self->result, problem);
        }
      if (state->dead != NULL)
        {
          state->dead->node_index = (int) i;
          g_ptr_array_add (self->result, state->dead);
        }
    }
  append_all (self->result, self->lists);
  append_all (self->result, self->quant_problems);
  append_all (self->result, self->shape_errors);
  append_all (self->result, self->in_functions);
  onyx_diagnose_drop_repeated_inference (self->result);
  onyx_diagnose_fold_explained (onyx_document_get_proto (self->document), self->result);
  /* Subgraphs are named by their holder's name or position, which later edits of
   * other nodes may change: named as they are now. */
  for (guint i = 0; i < self->result->len; i++)
    {
      OnyxProblem *problem = self->result->pdata[i];
      const char *name;
      if (problem->graph_proto == NULL || problem->graph_proto == graph)
        continue;
      name = onyx_graph_namer_name (&self->namer, problem->graph_proto);
      if (strcmp (name, problem->graph) != 0)
        {
          g_free (problem->graph);
          problem->graph = g_strdup (name);
        }
    }
  self->result_valid = TRUE;
  return self->result;
}

