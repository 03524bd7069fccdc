#include "onyx-graph-names.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "onyx-types.h"
#include "onyx-domain.h"
#include "onyx-text.h"

/* As onyx-graph-index.c: the loader refuses deeper message nesting long before. */
#define MAX_DEPTH 64

struct _OnyxGraphList {
  GPtrArray *entries;        /* OnyxGraphEntry*, owned */
  GHashTable *by_graph;      /* Onnx__GraphProto* → OnyxGraphEntry* */
  GHashTable *by_name;       /* name → OnyxGraphEntry* */
  GHashTable *graph_of_node; /* Onnx__NodeProto* → OnyxGraphEntry* */
  GHashTable *name_counts;   /* node name → number of nodes carrying it, model-wide */
  GHashTable *nodes_by_name; /* node name → the first Onnx__NodeProto carrying it */
};

G_DEFINE_QUARK (onyx-graph-names-error-quark, onyx_graph_path_error)

static void
entry_free (OnyxGraphEntry *entry)
{
  if (entry->function != NULL && entry->graph != NULL)
    {
      /* The view borrows the function's nodes and names: only its own arrays go. */
      for (size_t i = 0; i < entry->graph->n_input; i++)
        g_free (entry->graph->input[i]);
      for (size_t i = 0; i < entry->graph->n_output; i++)
        g_free (entry->graph->output[i]);
      g_free (entry->graph->input);
      g_free (entry->graph->output);
      g_free (entry->graph);
    }
  g_free (entry->name);
  g_free (entry);
}

static gboolean
unique_name (OnyxGraphList *list, const Onnx__NodeProto *node)
{
  return node->name != NULL && node->name[0] != '\0' &&
         GPOINTER_TO_UINT (g_hash_table_lookup (list->name_counts, node->name)) == 1;
}

/* The part of a reference before ":ATTR" or alone: "Relu_3", "#3", "If_1:then_branch#3". */
static char *
node_reference (OnyxGraphList *list, const OnyxGraphEntry *graph, const Onnx__NodeProto *node,
                gssize position)
{
  if (unique_name (list, node))
    return g_strdup (node->name);
  return g_strdup_printf ("%s#%" G_GSSIZE_FORMAT, graph->parent < 0 && graph->function == NULL
                          ? "" : graph->name, position);
}

static void count_names (OnyxGraphList *list, const Onnx__GraphProto *graph, guint depth);

static void
count_node_names (OnyxGraphList *list, Onnx__NodeProto **nodes, size_t n_nodes, guint depth)
{
  for (size_t n = 0; n < n_nodes; n++)
    {
      const Onnx__NodeProto *node = nodes[n];
      if (node->name != NULL && node->name[0] != '\0')
        {
          guint count = GPOINTER_TO_UINT (g_hash_table_lookup (list->name_counts, node->name));
          g_hash_table_insert (list->name_counts, node->name, GUINT_TO_POINTER (count + 1));
          if (count == 0)
            g_hash_table_insert (list->nodes_by_name, node->name, (gpointer) node);
        }
      for (size_t a = 0; a < node->n_attribute; a++)
        {
          if (node->attribute[a]->g != NULL)
            count_names (list, node->attribute[a]->g, depth + 1);
          for (size_t g = 0; g < node->attribute[a]->n_graphs; g++)
            count_names (list, node->attribute[a]->graphs[g], depth + 1);
        }
    }
}

static void
count_names (OnyxGraphList *list, const Onnx__GraphProto *graph, guint depth)
{
  if (depth <= MAX_DEPTH)
    count_node_names (list, graph->node, graph->n_node, depth);
}

static OnyxGraphEntry *
add_entry (OnyxGraphList *list, char *name, Onnx__GraphProto *graph)
{
  OnyxGraphEntry *entry = g_new0 (OnyxGraphEntry, 1);

  entry->name = name;
  entry->graph = graph;
  entry->parent = -1;
  g_ptr_array_add (list->entries, entry);
  g_hash_table_insert (list->by_graph, graph, entry);
  /* A name is taken once; a later duplicate (a malformed model) is still listed. */
  if (!g_hash_table_contains (list->by_name, name))
    g_hash_table_insert (list->by_name, entry->name, entry);
  return entry;
}

static void
add_subgraph (OnyxGraphList *list, int parent, Onnx__NodeProto *owner, gssize position,
              const Onnx__AttributeProto *attr, gssize element, Onnx__GraphProto *graph);

static void
add_node_graphs (OnyxGraphList *list, int at)
{
  OnyxGraphEntry *entry = list->entries->pdata[at];
  Onnx__GraphProto *graph = entry->graph;

  for (size_t n = 0; n < graph->n_node; n++)
    {
      Onnx__NodeProto *node = graph->node[n];
      g_hash_table_insert (list->graph_of_node, node, entry);
      if (entry->depth >= MAX_DEPTH)
        continue;
      for (size_t a = 0; a < node->n_attribute; a++)
        {
          const Onnx__AttributeProto *attr = node->attribute[a];
          if (attr->g != NULL)
            add_subgraph (list, at, node, (gssize) n, attr, -1, attr->g);
          for (size_t g = 0; g < attr->n_graphs; g++)
            add_subgraph (list, at, node, (gssize) n, attr, (gssize) g, attr->graphs[g]);
        }
    }
}

static void
add_subgraph (OnyxGraphList *list, int parent, Onnx__NodeProto *owner, gssize position,
              const Onnx__AttributeProto *attr, gssize element, Onnx__GraphProto *graph)
{
  OnyxGraphEntry *parent_entry = list->entries->pdata[parent];
  g_autofree char *node = node_reference (list, parent_entry, owner, position);
  char *name = element < 0
    ? g_strdup_printf ("%s:%s", node, attr->name != NULL ? attr->name : "")
    : g_strdup_printf ("%s:%s[%" G_GSSIZE_FORMAT "]", node, attr->name != NULL ? attr->name : "",
                       element);
  OnyxGraphEntry *entry;

  if (g_hash_table_contains (list->by_graph, graph))
    {
      g_free (name); /* one graph message in two places cannot be; be safe */
      return;
    }
  entry = add_entry (list, name, graph);
  entry->owner = owner;
  entry->attribute = attr->name;
  entry->parent = parent;
  entry->depth = parent_entry->depth + 1;
  add_node_graphs (list, (int) list->entries->len - 1);
}

static Onnx__ValueInfoProto **
named_values (char **names, size_t n)
{
  Onnx__ValueInfoProto **values = g_new0 (Onnx__ValueInfoProto *, MAX (n, 1));
  for (size_t i = 0; i < n; i++)
    {
      values[i] = g_new0 (Onnx__ValueInfoProto, 1);
      onnx__value_info_proto__init (values[i]);
      values[i]->name = names[i];
    }
  return values;
}

static void
add_function (OnyxGraphList *list, Onnx__ModelProto *model, Onnx__FunctionProto *function)
{
  Onnx__GraphProto *view = g_new0 (Onnx__GraphProto, 1);
  gboolean shared = FALSE;
  OnyxGraphEntry *entry;
  char *name;

  for (size_t f = 0; f < model->n_functions; f++)
    shared |= model->functions[f] != function &&
              g_strcmp0 (model->functions[f]->name, function->name) == 0;
  name = shared ? g_strdup_printf ("%s::%s", function->domain != NULL ? function->domain : "",
                                   function->name != NULL ? function->name : "")
                : g_strdup (function->name != NULL ? function->name : "");
  onnx__graph_proto__init (view);
  view->name = function->name;
  view->node = function->node;
  view->n_node = function->n_node;
  view->input = named_values (function->input, function->n_input);
  view->n_input = function->n_input;
  view->output = named_values (function->output, function->n_output);
  view->n_output = function->n_output;
  entry = add_entry (list, name, view);
  entry->function = function;
  add_node_graphs (list, (int) list->entries->len - 1);
}

static void
collect_graphs (Onnx__GraphProto *graph, guint depth, GPtrArray *graphs)
{
  g_ptr_array_add (graphs, graph);
  if (depth >= MAX_DEPTH)
    return;
  for (size_t n = 0; n < graph->n_node; n++)
    for (size_t a = 0; a < graph->node[n]->n_attribute; a++)
      {
        const Onnx__AttributeProto *attr = graph->node[n]->attribute[a];
        if (attr->g != NULL)
          collect_graphs (attr->g, depth + 1, graphs);
        for (size_t g = 0; g < attr->n_graphs; g++)
          collect_graphs (attr->graphs[g], depth + 1, graphs);
      }
}

GPtrArray *
onyx_graph_list_graphs (Onnx__ModelProto *model)
{
  GPtrArray *graphs = g_ptr_array_new ();
  if (model->graph != NULL)
    collect_graphs (model->graph, 0, graphs);
  return graphs;
}

OnyxGraphList *
onyx_graph_list_new (Onnx__ModelProto *model)
{
  OnyxGraphList *list = g_rc_box_new0 (OnyxGraphList);

  list->entries = g_ptr_array_new_with_free_func ((GDestroyNotify) entry_free);
  list->by_graph = g_hash_table_new (NULL, NULL);
  list->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  list->graph_of_node = g_hash_table_new (NULL, NULL);
  list->name_counts = g_hash_table_new (g_str_hash, g_str_equal);
  list->nodes_by_name = g_hash_table_new (g_str_hash, g_str_equal);
  if (model->graph != NULL)
    count_names (list, model->graph, 0);
  for (size_t f = 0; f < model->n_functions; f++)
    count_node_names (list, model->functions[f]->node, model->functions[f]->n_node, 0);
  if (model->graph != NULL)
    {
      add_entry (list, g_strdup ("main"), model->graph);
      add_node_graphs (list, 0);
    }
  for (size_t f = 0; f < model->n_functions; f++)
    add_function (list, model, model->functions[f]);
  return list;
}

static void
graph_list_clear (OnyxGraphList *list)
{
  g_hash_table_unref (list->by_graph);
  g_hash_table_unref (list->by_name);
  g_hash_table_unref (list->graph_of_node);
  g_hash_table_unref (list->name_counts);
  g_hash_table_unref (list->nodes_by_name);
  g_ptr_array_unref (list->entries);
}

OnyxGraphList *
onyx_graph_list_ref (OnyxGraphList *list)
{
  return g_rc_box_acquire (list);
}

void
onyx_graph_list_unref (OnyxGraphList *list)
{
  if (list != NULL)
    g_rc_box_release_full (list, (GDestroyNotify) graph_list_clear);
}

guint
onyx_graph_list_size (OnyxGraphList *list)
{
  return list->entries->len;
}

const OnyxGraphEntry *
onyx_graph_list_get (OnyxGraphList *list, guint i)
{
  g_return_val_if_fail (i < list->entries->len, NULL);
  return list->entries->pdata[i];
}

const OnyxGraphEntry *
onyx_graph_list_lookup (OnyxGraphList *list, const Onnx__GraphProto *graph)
{
  return g_hash_table_lookup (list->by_graph, graph);
}

const OnyxGraphEntry *
onyx_graph_list_graph_of (OnyxGraphList *list, const Onnx__NodeProto *node)
{
  return g_hash_table_lookup (list->graph_of_node, node);
}

/* "If_1:then_branch" when If_1 names several nodes: their graphs of that attribute. */
static void
list_candidates (OnyxGraphList *list, const char *node_name, const char *attribute,
                 GString *out)
{
  for (guint i = 0; i < list->entries->len; i++)
    {
      const OnyxGraphEntry *entry = list->entries->pdata[i];
      if (entry->owner != NULL && g_strcmp0 (entry->owner->name, node_name) == 0 &&
          g_str_has_prefix (attribute, entry->attribute != NULL ? entry->attribute : ""))
        {
          g_autofree char *shown = onyx_display_escape (entry->name);
          g_string_append_printf (out, "%s%s", out->len > 0 ? ", " : "", shown);
        }
    }
}

const OnyxGraphEntry *
onyx_graph_list_find (OnyxGraphList *list, const char *name, GError **error)
{
  const OnyxGraphEntry *entry;
  const char *colon;
  g_autofree char *shown = NULL;

  if (name[0] == '\0' || strcmp (name, "main graph") == 0)
    name = "main";
  if (g_str_has_prefix (name, "function "))
    {
      const char *rest = name + strlen ("function ");
      const char *sep = strstr (rest, "::");
      /* Problems name functions by domain and name; lists by name alone if unique. */
      entry = g_hash_table_lookup (list->by_name, rest);
      if (entry == NULL && sep != NULL)
        entry = g_hash_table_lookup (list->by_name, sep + 2);
      if (entry != NULL && entry->function != NULL)
        return entry;
    }
  if ((entry = g_hash_table_lookup (list->by_name, name)) != NULL)
    return entry;
  shown = onyx_display_escape (name);
  colon = strrchr (name, ':');
  if (colon != NULL && colon > name && colon[-1] != ':')
    {
      g_autofree char *node = g_strndup (name, colon - name);
      guint count = GPOINTER_TO_UINT (g_hash_table_lookup (list->name_counts, node));
      if (count > 1)
        {
          g_autoptr (GString) candidates = g_string_new (NULL);
          list_candidates (list, node, colon + 1, candidates);
          g_set_error (error, ONYX_GRAPH_PATH_ERROR, ONYX_GRAPH_PATH_ERROR_AMBIGUOUS,
                       _("'%s' is ambiguous: %u nodes are named so; write one of %s"), shown, count,
                       candidates->len > 0 ? candidates->str
                       /* Translators: GRAPH#N:ATTR is the syntax of a graph's name: keep it. */
                       : _("their positions (GRAPH#N:ATTR)"));
          return NULL;
        }
      if (count == 1)
        {
          g_set_error (error, ONYX_GRAPH_PATH_ERROR, ONYX_GRAPH_PATH_ERROR_NOT_FOUND,
                       _("node '%.*s' holds no graph attribute '%s'"), (int) (colon - name), name,
                       colon + 1);
          return NULL;
        }
    }
  g_set_error (error, ONYX_GRAPH_PATH_ERROR, ONYX_GRAPH_PATH_ERROR_NOT_FOUND,
               /* Translators: `onyx-cli graphs` is a command: keep it. */
               _("no graph '%s' in the model (`onyx-cli graphs` lists them)"), shown);
  return NULL;
}

static gboolean
is_call_of (const Onnx__NodeProto *node, const Onnx__FunctionProto *function)
{
  const char *domain = onyx_domain_is_default (node->domain) ? "" : node->domain;
  const char *own = onyx_domain_is_default (function->domain) ? "" : function->domain;
  return g_strcmp0 (node->op_type, function->name) == 0 && g_strcmp0 (domain, own) == 0;
}

GPtrArray *
onyx_graph_list_children (OnyxGraphList *list, const Onnx__NodeProto *node)
{
  GPtrArray *children = g_ptr_array_new ();

  for (size_t a = 0; a < node->n_attribute; a++)
    {
      const Onnx__AttributeProto *attr = node->attribute[a];
      const OnyxGraphEntry *entry;
      if (attr->g != NULL && (entry = onyx_graph_list_lookup (list, attr->g)) != NULL)
        g_ptr_array_add (children, (gpointer) entry);
      for (size_t g = 0; g < attr->n_graphs; g++)
        if ((entry = onyx_graph_list_lookup (list, attr->graphs[g])) != NULL)
          g_ptr_array_add (children, (gpointer) entry);
    }
  for (guint i = 0; i < list->entries->len; i++)
    {
      const OnyxGraphEntry *entry = list->entries->pdata[i];
      if (entry->function != NULL && is_call_of (node, entry->function))
        g_ptr_array_add (children, (gpointer) entry);
    }
  return children;
}

static gssize
position_in (const OnyxGraphEntry *entry, const Onnx__NodeProto *node)
{
  for (size_t i = 0; i < entry->graph->n_node; i++)
    if (entry->graph->node[i] == node)
      return (gssize) i;
  return -1;
}

/* Nodes named `name` anywhere, written as references, for an ambiguity message. */
static char *
same_named (OnyxGraphList *list, const char *name)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < list->entries->len; i++)
    {
      const OnyxGraphEntry *entry = list->entries->pdata[i];
      for (size_t n = 0; n < entry->graph->n_node; n++)
        if (g_strcmp0 (entry->graph->node[n]->name, name) == 0)
          g_string_append_printf (out, "%s%s#%zu", out->len > 0 ? ", " : "",
                                  i == 0 ? "" : entry->name, n);
    }
  return g_string_free (out, FALSE);
}

Onnx__NodeProto *
onyx_graph_list_find_node (OnyxGraphList *list, const char *reference,
                           const OnyxGraphEntry **graph, GError **error)
{
  const char *hash = strrchr (reference, '#');
  g_autofree char *shown = onyx_display_escape (reference);
  guint count = GPOINTER_TO_UINT (g_hash_table_lookup (list->name_counts, reference));
  Onnx__NodeProto *node;

  if (count == 1)
    {
      node = g_hash_table_lookup (list->nodes_by_name, reference);
      if (graph != NULL)
        *graph = onyx_graph_list_graph_of (list, node);
      return node;
    }
  if (count > 1)
    {
      g_autofree char *candidates = same_named (list, reference);
      g_set_error (error, ONYX_GRAPH_PATH_ERROR, ONYX_GRAPH_PATH_ERROR_AMBIGUOUS,
                   _("%u nodes are named '%s': write one of %s"), count, shown, candidates);
      return NULL;
    }
  if (hash != NULL)
    {
      g_autofree char *graph_name = g_strndup (reference, hash - reference);
      const OnyxGraphEntry *entry = onyx_graph_list_find (list, graph_name, NULL);
      guint64 position;
      if (entry != NULL &&
          g_ascii_string_to_unsigned (hash + 1, 10, 0, G_MAXSIZE, &position, NULL))
        {
          if (position < entry->graph->n_node)
            {
              if (graph != NULL)
                *graph = entry;
              return entry->graph->node[position];
            }
          g_set_error (error, ONYX_GRAPH_PATH_ERROR, ONYX_GRAPH_PATH_ERROR_NOT_FOUND,
                       ngettext ("there is no node %s: the graph has %zu node",
                                 "there is no node %s: the graph has %zu nodes", entry->graph->n_node),
                       shown, entry->graph->n_node);
          return NULL;
        }
    }
  g_set_error (error, ONYX_GRAPH_PATH_ERROR, ONYX_GRAPH_PATH_ERROR_NOT_FOUND,
               _("there is no node named '%s'"), shown);
  return NULL;
}

char *
onyx_graph_list_node_reference (OnyxGraphList *list, const Onnx__NodeProto *node)
{
  const OnyxGraphEntry *entry = onyx_graph_list_graph_of (list, node);

  if (entry == NULL)
    return NULL;
  return node_reference (list, entry, node, position_in (entry, node));
}

const char *
onyx_graph_namer_name (OnyxGraphNamer *namer, const Onnx__GraphProto *graph)
{
  const OnyxGraphEntry *entry;

  if (namer->list == NULL)
    namer->list = onyx_graph_list_new ((Onnx__ModelProto *) namer->model);
  entry = onyx_graph_list_lookup (namer->list, graph);
  return entry != NULL ? entry->name : "?";
}

void
onyx_graph_namer_clear (OnyxGraphNamer *namer)
{
  g_clear_pointer (&namer->list, onyx_graph_list_unref);
}
