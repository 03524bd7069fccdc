/* Repeated blocks: an 8-layer decoder (tests/data/llm_stack.onnx, from
 * tools/make-llm-model.py --layers 8) folds its alike layers into one stack box, shows
 * the member asked for, unfolds under Expand All, and breaks the run where a layer
 * differs, including after an edit on the member shown. */
#include <stdlib.h>
#include <string.h>

#include "onyx-document.h"
#include "onyx-edits.h"
#include "onyx-layout.h"
#include "onyx-test-util.h"

static OnyxLayout *
lay_out (OnyxLayoutEngine *engine, OnyxExpandMode mode, const char *const *extra)
{
  g_autoptr (GHashTable) expanded = onyx_layout_engine_expansion (engine, mode, extra, NULL);
  OnyxLayout *layout = onyx_layout_engine_run (engine, expanded, NULL, NULL, NULL);
  g_assert_nonnull (layout);
  return layout;
}

static int
compare_titles (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The stack nodes' titles, sorted and joined: "layers.1–7". */
static char *
stacks_of (const OnyxLayout *layout)
{
  g_autoptr (GPtrArray) titles = g_ptr_array_new ();

  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      if (node->stack_size > 0)
        g_ptr_array_add (titles, node->title);
    }
  g_ptr_array_sort (titles, compare_titles);
  g_ptr_array_add (titles, NULL);
  return g_strjoinv (" ", (char **) titles->pdata);
}

static int
stack_node (const OnyxLayout *layout)
{
  for (guint i = 0; i < layout->nodes->len; i++)
    if (g_array_index (layout->nodes, OnyxLayoutNode, i).stack_size > 0)
      return (int) i;
  return -1;
}

/* The layer ("/model/layers.5/…" → 5) of every op box inside node `stack`: all the same
 * one, returned; -1 when there are none. */
static int
layer_shown_in (const OnyxLayout *layout, const Onnx__GraphProto *graph, int stack)
{
  int layer = -1;

  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      const char *at;
      int found;
      if (node->kind != ONYX_LAYOUT_OP || !onyx_layout_is_within (layout, (int) i, stack))
        continue;
      at = strstr (graph->node[node->index]->name, "/layers.");
      g_assert_nonnull (at);
      found = atoi (at + strlen ("/layers."));
      if (layer >= 0)
        g_assert_cmpint (found, ==, layer);
      layer = found;
    }
  return layer;
}

static Onnx__NodeProto *
node_named (const Onnx__GraphProto *graph, const char *name)
{
  for (size_t n = 0; n < graph->n_node; n++)
    if (g_str_equal (graph->node[n]->name, name))
      return graph->node[n];
  g_error ("no node %s", name);
  return NULL;
}

static void
test_alike_layers_fold (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("llm_stack.onnx");
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  g_autoptr (OnyxLayoutEngine) engine = onyx_layout_engine_new (graph);
  g_autoptr (OnyxLayout) layout = lay_out (engine, ONYX_EXPAND_AUTO, NULL);
  g_autoptr (OnyxLayout) all = lay_out (engine, ONYX_EXPAND_ALL, NULL);
  g_autoptr (OnyxLayout) opened = NULL;
  g_autofree char *stacks = stacks_of (layout);
  g_autofree char *none = stacks_of (all);
  g_autofree int *boxes = onyx_layout_boxes_of_nodes (layout, engine);
  int stack = stack_node (layout);
  const OnyxLayoutNode *node;
  const char *open_it[2] = { NULL, NULL };
  guint n_ops = 0;

  /* Layer 0 starts with a plain norm where the others take the previous layer's
   * residual: it differs and is drawn on its own. */
  g_assert_cmpstr (stacks, ==, "layers.1–7");
  node = &g_array_index (layout->nodes, OnyxLayoutNode, stack);
  g_assert_cmpuint (node->stack_size, ==, 7);
  g_assert_cmpstr (node->subtitle, ==, "7 × 11 nodes");
  g_assert_cmpstr (node->scope, ==, "model/layers.1–7");
  /* Auto leaves it one box: every layer in it is in that box. */
  g_assert_false (node->expanded);
  for (size_t n = 0; n < graph->n_node; n++)
    if (strstr (graph->node[n]->name, "/layers.0/") == NULL && strstr (graph->node[n]->name, "/layers.") != NULL)
      g_assert_cmpint (boxes[n], ==, stack);
  for (guint i = 0; i < layout->nodes->len; i++)
    n_ops += g_array_index (layout->nodes, OnyxLayoutNode, i).kind == ONYX_LAYOUT_OP;
  g_assert_cmpuint (n_ops, <, graph->n_node / 3);

  /* Opened, at its first member, with that member's KV cache beside it and the groups
   * inside open as Auto would open them. */
  open_it[0] = node->scope;
  opened = lay_out (engine, ONYX_EXPAND_AUTO, open_it);
  g_clear_pointer (&boxes, g_free);
  boxes = onyx_layout_boxes_of_nodes (opened, engine);
  stack = stack_node (opened);
  node = &g_array_index (opened->nodes, OnyxLayoutNode, stack);
  g_assert_true (node->expanded);
  g_assert_cmpuint (node->stack_shown, ==, 0);
  g_assert_cmpstr (node->stack_label, ==, "layers.1");
  g_assert_cmpint (layer_shown_in (opened, graph, stack), ==, 1);
  for (guint i = 0; i < opened->nodes->len; i++)
    {
      const OnyxLayoutNode *value = &g_array_index (opened->nodes, OnyxLayoutNode, i);
      if (value->kind == ONYX_LAYOUT_INPUT && g_str_has_prefix (value->title, "past_key_values."))
        g_assert_true (g_str_has_prefix (value->title, "past_key_values.0.") ||
                       (g_str_has_prefix (value->title, "past_key_values.1.") && onyx_layout_is_within (opened, (int) i, stack)));
    }
  /* Layer 0 is no member: its edge comes in through the stack's border, no stub. */
  for (guint i = 0; i < opened->nodes->len; i++)
    if (g_array_index (opened->nodes, OnyxLayoutNode, i).kind == ONYX_LAYOUT_STUB &&
        g_array_index (opened->nodes, OnyxLayoutNode, i).index >= 0)
      g_assert_cmpstr (g_array_index (opened->nodes, OnyxLayoutNode, i).title, ==, "to layers.2");
  /* The layers not shown are in the stack's box, those shown in their own. */
  for (size_t n = 0; n < graph->n_node; n++)
    if (strstr (graph->node[n]->name, "/layers.6/") != NULL)
      g_assert_cmpint (boxes[n], ==, stack);
    else if (strstr (graph->node[n]->name, "/layers.1/") != NULL)
      g_assert_cmpint (g_array_index (opened->nodes, OnyxLayoutNode, boxes[n]).kind, ==, ONYX_LAYOUT_OP);

  /* Every member open: each drawn, no stack. */
  g_assert_cmpstr (none, ==, "");
  n_ops = 0;
  for (guint i = 0; i < all->nodes->len; i++)
    n_ops += g_array_index (all->nodes, OnyxLayoutNode, i).kind == ONYX_LAYOUT_OP;
  g_assert_cmpuint (n_ops, ==, graph->n_node);
}

static void
test_member_shown_as_asked (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("llm_stack.onnx");
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  g_autoptr (OnyxLayoutEngine) engine = onyx_layout_engine_new (graph);
  /* As Find opens the scopes around a match in layer 5. */
  const char *const around[] = { "model/layers.5/attn", NULL };
  const char *const closed[] = { "model", NULL };
  g_autoptr (OnyxLayout) layout = lay_out (engine, ONYX_EXPAND_NONE, around);
  g_autoptr (OnyxLayout) top = lay_out (engine, ONYX_EXPAND_NONE, closed);
  int stack = stack_node (layout);
  const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, stack);
  gboolean kv_inside = FALSE;

  g_assert_true (node->expanded);
  g_assert_cmpuint (node->stack_shown, ==, 4);
  g_assert_cmpstr (node->stack_label, ==, "layers.5");
  g_assert_cmpint (layer_shown_in (layout, graph, stack), ==, 5);
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *value = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      kv_inside |= g_str_equal (value->title, "present.5.value") && onyx_layout_is_within (layout, (int) i, stack);
    }
  g_assert_true (kv_inside);
  /* Its neighbours as stubs: what it reads from layers.4, what layers.6 reads of it. */
  {
    guint n_stubs = 0, n_stub_edges = 0;
    for (guint i = 0; i < layout->nodes->len; i++)
      {
        const OnyxLayoutNode *stub = &g_array_index (layout->nodes, OnyxLayoutNode, i);
        if (stub->kind != ONYX_LAYOUT_STUB || stub->index < 0)
          continue;
        n_stubs++;
        g_assert_cmpint (stub->parent, ==, stack);
        g_assert_true (g_str_equal (stub->title, "from layers.4") ? stub->index == 3
                                                                   : g_str_equal (stub->title, "to layers.6") && stub->index == 5);
        for (guint e = 0; e < layout->edges->len; e++)
          {
            const OnyxLayoutEdge *edge = &g_array_index (layout->edges, OnyxLayoutEdge, e);
            if (edge->from != (int) i && edge->to != (int) i)
              continue;
            n_stub_edges++;
            /* To or from a node of layers.5, carrying a tensor of layers.4 or of its own. */
            g_assert_true (onyx_layout_is_within (layout, edge->from == (int) i ? edge->to : edge->from, stack));
            g_assert_nonnull (strstr (edge->tensor, stub->index == 3 ? "/layers.4/" : "/layers.5/"));
          }
      }
    g_assert_cmpuint (n_stubs, ==, 2);
    g_assert_cmpuint (n_stub_edges, >=, 2);
  }
  g_assert_cmpstr (onyx_layout_engine_stack_member (engine, node->scope, 4), ==, "model/layers.5");
  g_assert_cmpstr (onyx_layout_engine_stack_of_member (engine, "model/layers.5"), ==, node->scope);
  g_assert_null (onyx_layout_engine_stack_of_member (engine, "model/layers.5/attn"));
  g_assert_null (onyx_layout_engine_stack_of_member (engine, "model/layers.0"));
  g_assert_cmpuint (onyx_layout_engine_stack_size (engine, node->scope), ==, 7);
  /* The same node and group of another layer. */
  {
    int gqa = -1;
    for (size_t n = 0; n < graph->n_node; n++)
      if (g_str_equal (graph->node[n]->name, "/model/layers.5/attn/GroupQueryAttention"))
        gqa = (int) n;
    gqa = onyx_layout_engine_twin_node (engine, (guint) gqa, "model/layers.2");
    g_assert_cmpint (gqa, >=, 0);
    g_assert_cmpstr (graph->node[gqa]->name, ==, "/model/layers.2/attn/GroupQueryAttention");
    g_assert_cmpstr (onyx_layout_engine_twin_scope (engine, "model/layers.5/attn", "model/layers.2"), ==,
                     "model/layers.2/attn");
    g_assert_cmpstr (onyx_layout_engine_twin_scope (engine, "model/layers.5", "model/layers.2"), ==, "model/layers.2");
    g_assert_null (onyx_layout_engine_twin_scope (engine, "model/layers.0/attn", "model/layers.2"));
    g_assert_cmpint (onyx_layout_engine_twin_node (engine, (guint) gqa, "model/layers.0"), ==, -1);
  }
  /* The stack and its steps' buttons: on the header's right end only. */
  g_assert_cmpint (onyx_layout_stack_button_at (node, node->box.x + node->box.width - 30, node->box.y + 10), ==, -1);
  g_assert_cmpint (onyx_layout_stack_button_at (node, node->box.x + node->box.width - 10, node->box.y + 10), ==, 1);
  g_assert_cmpint (onyx_layout_stack_button_at (node, node->box.x + 20, node->box.y + 10), ==, 0);
  g_assert_cmpint (onyx_layout_stack_button_at (node, node->box.x + node->box.width - 10, node->box.y + 60), ==, 0);

  /* Closed, one box with its count. */
  stack = stack_node (top);
  node = &g_array_index (top->nodes, OnyxLayoutNode, stack);
  g_assert_false (node->expanded);
  g_assert_cmpint (onyx_layout_stack_button_at (node, node->box.x + node->box.width - 10, node->box.y + 10), ==, 0);
}

/* A layer changed (by an edit on the member shown) breaks the run: the stacks on
 * either side fold, the changed layer is drawn on its own, open as it was asked. */
static void
test_differing_layer_breaks_run (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("llm_stack.onnx");
  g_autoptr (OnyxDocument) doc = onyx_document_new (model);
  const Onnx__GraphProto *graph = onyx_document_get_proto (doc)->graph;
  g_autoptr (OnyxLayoutEngine) engine = onyx_layout_engine_new (graph);
  const char *const around[] = { "model/layers.4/mlp/act_fn", NULL };
  g_autoptr (OnyxLayout) before = lay_out (engine, ONYX_EXPAND_NONE, around);
  g_autoptr (OnyxLayout) after = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *stacks = NULL;
  int stack = stack_node (before), sigmoid = -1;
  gboolean layer_open = FALSE;

  /* The Sigmoid box the stack shows is layer 4's: bypassing it edits layer 4. */
  for (guint i = 0; i < before->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (before->nodes, OnyxLayoutNode, i);
      if (node->kind == ONYX_LAYOUT_OP && g_str_equal (node->title, "Sigmoid") && onyx_layout_is_within (before, (int) i, stack))
        sigmoid = node->index;
    }
  g_assert_cmpint (sigmoid, >=, 0);
  g_assert_cmpstr (graph->node[sigmoid]->name, ==, "/model/layers.4/mlp/act_fn/Sigmoid");
  g_assert_true (onyx_edit_bypass_node (doc, graph->node[sigmoid], 0, &error));
  g_assert_no_error (error);
  graph = onyx_document_get_proto (doc)->graph;
  for (size_t n = 0; n < graph->n_node; n++)
    g_assert_cmpstr (graph->node[n]->name, !=, "/model/layers.4/mlp/act_fn/Sigmoid");
  g_assert_nonnull (node_named (graph, "/model/layers.5/mlp/act_fn/Sigmoid"));

  onyx_layout_engine_graph_changed (engine);
  after = lay_out (engine, ONYX_EXPAND_NONE, around);
  stacks = stacks_of (after);
  g_assert_cmpstr (stacks, ==, "layers.1–3 layers.5–7");
  for (guint i = 0; i < after->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (after->nodes, OnyxLayoutNode, i);
      layer_open |= node->kind == ONYX_LAYOUT_GROUP && g_strcmp0 (node->scope, "model/layers.4") == 0 && node->expanded;
    }
  g_assert_true (layer_open);
}

/* With every layer drawn, what every layer reads from the attention mask's subgraph
 * is a stub beside each reader but the first, not an edge across the picture. */
static void
test_fanout_stubs (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("llm_stack.onnx");
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  g_autoptr (OnyxLayoutEngine) engine = onyx_layout_engine_new (graph);
  g_autoptr (OnyxLayout) all = lay_out (engine, ONYX_EXPAND_ALL, NULL);
  gboolean layer_read[8] = { FALSE };
  guint n_stubs = 0, n_real = 0;

  for (guint e = 0; e < all->edges->len; e++)
    {
      const OnyxLayoutEdge *edge = &g_array_index (all->edges, OnyxLayoutEdge, e);
      const OnyxLayoutNode *from = &g_array_index (all->nodes, OnyxLayoutNode, edge->from);
      const OnyxLayoutNode *to = &g_array_index (all->nodes, OnyxLayoutNode, edge->to);
      const char *at;
      if (strstr (edge->tensor, "attn_mask_subgraph/") == NULL || to->kind != ONYX_LAYOUT_OP ||
          strstr (graph->node[to->index]->name, "GroupQueryAttention") == NULL)
        continue;
      at = strstr (graph->node[to->index]->name, "/layers.");
      layer_read[atoi (at + strlen ("/layers."))] = TRUE;
      if (from->kind == ONYX_LAYOUT_STUB)
        {
          /* Beside its reader: in the same group, just above it. */
          n_stubs++;
          g_assert_cmpstr (from->title, ==, "from attn_mask_subgraph");
          g_assert_cmpint (from->index, ==, -1);
          g_assert_cmpint (from->parent, ==, to->parent);
          g_assert_cmpfloat (to->box.y - (from->box.y + from->box.height), <, 120);
        }
      else
        {
          /* The first reader (layer 0's) keeps the edge from the mask's nodes. */
          n_real++;
          g_assert_nonnull (strstr (graph->node[to->index]->name, "/layers.0/"));
          g_assert_cmpint (from->kind, ==, ONYX_LAYOUT_OP);
        }
    }
  for (guint l = 0; l < 8; l++)
    g_assert_true (layer_read[l]);
  g_assert_cmpuint (n_stubs, ==, 7);
  g_assert_cmpuint (n_real, >=, 1);
}

/* Groups are made in the order their first node comes in the file, which a
 * TorchScript export may have backwards (a constant of the last layer first): runs
 * are found by number. */
static void
test_members_found_by_number (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("llm_stack.onnx");
  Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  g_autoptr (OnyxLayoutEngine) engine = NULL;
  g_autoptr (OnyxLayout) layout = NULL;
  g_autofree char *stacks = NULL;

  for (size_t n = 0; n < graph->n_node / 2; n++)
    {
      Onnx__NodeProto *swap = graph->node[n];
      graph->node[n] = graph->node[graph->n_node - 1 - n];
      graph->node[graph->n_node - 1 - n] = swap;
    }
  /* The KV cache's inputs, filed in their layers, come first. */
  for (size_t i = 0; i < graph->n_input / 2; i++)
    {
      Onnx__ValueInfoProto *swap = graph->input[i];
      graph->input[i] = graph->input[graph->n_input - 1 - i];
      graph->input[graph->n_input - 1 - i] = swap;
    }
  engine = onyx_layout_engine_new (graph);
  layout = lay_out (engine, ONYX_EXPAND_AUTO, NULL);
  stacks = stacks_of (layout);
  g_assert_cmpstr (stacks, ==, "layers.1–7");
  g_assert_cmpstr (g_array_index (layout->nodes, OnyxLayoutNode, stack_node (layout)).stack_label, ==, "layers.1");
}

/* A dynamo export's module paths ("model.layers.3" holds "model.layers.3.self_attn")
 * fold the same way. */
static void
test_dynamo_module_paths_fold (void)
{
  g_autoptr (OnyxModel) model = test_load_data ("llm_stack_dynamo.onnx");
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  g_autoptr (OnyxLayoutEngine) engine = onyx_layout_engine_new (graph);
  const char *const open_it[] = { "model/model.layers.0–3", NULL };
  g_autoptr (OnyxLayout) layout = lay_out (engine, ONYX_EXPAND_AUTO, open_it);
  g_autofree char *stacks = stacks_of (layout);
  int stack = stack_node (layout);
  guint n_open_inside = 0;

  g_assert_cmpstr (stacks, ==, "model.layers.0–3 · LlamaDecoderLayer");
  g_assert_cmpstr (g_array_index (layout->nodes, OnyxLayoutNode, stack).subtitle, ==, "4 × 40 nodes");
  /* The groups inside the member shown are open as Auto opened them. */
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      n_open_inside += node->kind == ONYX_LAYOUT_GROUP && node->expanded && (int) i != stack &&
                       onyx_layout_is_within (layout, (int) i, stack);
    }
  g_assert_cmpuint (n_open_inside, >=, 2);
  /* Its module paths name the member in each scope below it. */
  g_assert_cmpstr (onyx_layout_engine_twin_scope (engine, "model/model.layers.1/model.layers.1.self_attn",
                                                  "model/model.layers.3"), ==,
                   "model/model.layers.3/model.layers.3.self_attn");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  onyx_layout_disk_cache_set_default (NULL);
  g_test_add_func ("/layout-stacks/alike-layers-fold", test_alike_layers_fold);
  g_test_add_func ("/layout-stacks/member-shown-as-asked", test_member_shown_as_asked);
  g_test_add_func ("/layout-stacks/differing-layer-breaks-run", test_differing_layer_breaks_run);
  g_test_add_func ("/layout-stacks/dynamo-module-paths", test_dynamo_module_paths_fold);
  g_test_add_func ("/layout-stacks/members-found-by-number", test_members_found_by_number);
  g_test_add_func ("/layout-stacks/fanout-stubs", test_fanout_stubs);
  return g_test_run ();
}
