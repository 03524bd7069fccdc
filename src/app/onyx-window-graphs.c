/* onyx-window-graphs.c: which graph of the model the window shows — the main graph,
 * the body of an If, Loop or Scan node at any depth, or a model-local function —
 * and going into and out of them: a double click on a node holding graphs (or the
 * node panel's graph rows) opens one, the path in the header bar and Back (Alt+Left,
 * Escape) go up. Edits work in the graph shown; functions are read only. */
#include "onyx-window-private.h"

/* The graph shown: what only this file touches. */
struct _OnyxWindowGraphs {
  Onnx__GraphProto *shown;        /* NULL for the main graph */
  OnyxGraphList *function_graphs; /* holds the view of the function shown, or NULL */
  OnyxGraphIndex *function_index; /* of the function shown, or NULL */
  GtkWidget *back_button;
  GtkBox *path;                   /* "main › /If › then_branch" */
};

#include <glib/gi18n.h>

#include "onyx-edits.h"
#include "onyx-types.h"
#include "onyx-text.h"

Onnx__GraphProto *
onyx_window_get_graph (OnyxWindow *self)
{
  if (self->document == NULL)
    return NULL;
  return self->graphs->shown != NULL ? self->graphs->shown : onyx_document_get_proto (self->document)->graph;
}

gboolean
onyx_window_shows_function (OnyxWindow *self)
{
  return self->document != NULL && self->graphs->shown != NULL &&
         onyx_document_graph_owner (self->document, self->graphs->shown) == NULL &&
         self->graphs->shown != onyx_document_get_proto (self->document)->graph;
}

OnyxGraphIndex *
onyx_window_get_graph_index (OnyxWindow *self)
{
  /* A function's view is not a graph of the document, and is never edited. */
  if (onyx_window_shows_function (self))
    {
      if (self->graphs->function_index == NULL)
        self->graphs->function_index = onyx_graph_index_new (self->graphs->shown);
      return self->graphs->function_index;
    }
  return onyx_document_get_graph_index (self->document, onyx_window_get_graph (self));
}

Onnx__NodeProto *
onyx_window_node_in_view (OnyxWindow *self, const Onnx__NodeProto *node)
{
  Onnx__GraphProto *view = onyx_window_get_graph (self);

  for (guint depth = 0; node != NULL && depth < 64; depth++)
    {
      Onnx__GraphProto *graph = onyx_document_graph_of_node (self->document, node);
      if (graph == NULL)
        return NULL;
      if (graph == view)
        return (Onnx__NodeProto *) node;
      node = onyx_document_graph_owner (self->document, graph);
    }
  return NULL;
}

/* "main › /If › then_branch": each part a flat button. The holder's part shows the
 * graph it is in, with the holder selected. */
typedef struct {
  OnyxWindow *window;
  Onnx__GraphProto *graph;
  Onnx__NodeProto *select;   /* or NULL */
} PathPart;

static void
path_part_clicked_cb (GtkButton *button, PathPart *part)
{
  OnyxWindow *self = part->window;
  Onnx__NodeProto *select = part->select;

  onyx_window_show_graph (self, part->graph);
  if (select != NULL)
    onyx_window_select_node (self, select);
}

static void
add_path_part (OnyxWindow *self, const char *label, Onnx__GraphProto *graph,
               Onnx__NodeProto *select, gboolean current)
{
  GtkWidget *button = gtk_button_new_with_label (label);
  PathPart *part = g_new0 (PathPart, 1);
  gboolean ellipsize = TRUE;

  if (gtk_widget_get_first_child (GTK_WIDGET (self->graphs->path)) != NULL)
    gtk_box_append (self->graphs->path, gtk_label_new ("›"));
  if (g_utf8_strlen (label, -1) <= 16)
    ellipsize = FALSE;
  part->window = self;
  part->graph = graph;
  part->select = select;
  gtk_widget_add_css_class (button, "flat");
  if (current)
    gtk_widget_add_css_class (button, "heading");
  if (ellipsize)
    {
      /* Long names shrink, but not to nothing: a header bar hands out minimum sizes. */
      GtkLabel *text = GTK_LABEL (gtk_button_get_child (GTK_BUTTON (button)));
      gtk_label_set_ellipsize (text, PANGO_ELLIPSIZE_MIDDLE);
      gtk_label_set_width_chars (text, 14);
      gtk_label_set_max_width_chars (text, 28);
      gtk_widget_set_tooltip_text (button, label);
    }
  g_signal_connect_data (button, "clicked", G_CALLBACK (path_part_clicked_cb), part,
                         (GClosureNotify) (void (*) (void)) g_free, 0);
  gtk_box_append (self->graphs->path, button);
}

static void
update_path (OnyxWindow *self)
{
  Onnx__GraphProto *main_graph;
  g_autoptr (GPtrArray) lineage = g_ptr_array_new ();
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->graphs->path))) != NULL)
    gtk_box_remove (self->graphs->path, child);
  gtk_widget_set_visible (GTK_WIDGET (self->graphs->path), self->graphs->shown != NULL);
  gtk_widget_set_visible (self->graphs->back_button, self->graphs->shown != NULL);
  if (self->document == NULL || self->graphs->shown == NULL)
    return;
  main_graph = onyx_document_get_proto (self->document)->graph;
  add_path_part (self, _("main"), main_graph, NULL, FALSE);
  if (onyx_window_shows_function (self))
    {
      g_autofree char *name = onyx_display_escape (self->graphs->shown->name);
      add_path_part (self, name, self->graphs->shown, NULL, TRUE);
      return;
    }
  onyx_document_graph_lineage (self->document, self->graphs->shown, lineage);
  /* Outermost first; the main graph is already there. */
  for (guint i = lineage->len - 1; i-- > 0;)
    {
      Onnx__GraphProto *graph = lineage->pdata[i];
      Onnx__GraphProto *around = lineage->pdata[i + 1];
      Onnx__NodeProto *holder = onyx_document_graph_owner (self->document, graph);
      g_autofree char *holder_name = onyx_node_describe (self->document, holder);
      const char *attribute = "?";

      for (size_t a = 0; a < holder->n_attribute; a++)
        {
          if (holder->attribute[a]->g == graph)
            attribute = holder->attribute[a]->name;
          for (size_t g = 0; g < holder->attribute[a]->n_graphs; g++)
            if (holder->attribute[a]->graphs[g] == graph)
              attribute = holder->attribute[a]->name;
        }
      add_path_part (self, holder_name, around, holder, FALSE);
      add_path_part (self, attribute, graph, NULL, i == 0);
    }
}

/* A running layout of the old engine is cancelled quietly (another graph is shown);
 * it reads on until it notices, so a function's view stays with the old engine's list. */
static void
rebuild_engine (OnyxWindow *self)
{
  g_autoptr (OnyxGraphList) graphs = NULL;
  const OnyxGraphEntry *entry = NULL;
  OnyxLayoutEngine *engine;

  if (self->graphs->shown != NULL)
    {
      graphs = self->graphs->function_graphs != NULL
        ? onyx_graph_list_ref (self->graphs->function_graphs)
        : onyx_graph_list_new (onyx_document_get_proto (self->document));
      entry = onyx_graph_list_lookup (graphs, self->graphs->shown);
    }
  engine = entry != NULL ? onyx_layout_engine_new_for_entry (graphs, entry)
                         : onyx_layout_engine_new (onyx_window_get_graph (self));
  onyx_layout_session_set_graph (self->layout, self->document, engine);
}

/* `functions` (taken, may be NULL): the list holding a function's view. */
static void
show_graph_from (OnyxWindow *self, Onnx__GraphProto *graph, OnyxGraphList *functions)
{
  Onnx__GraphProto *main_graph = onyx_document_get_proto (self->document)->graph;

  if (graph == main_graph)
    graph = NULL;
  if (graph == self->graphs->shown)
    {
      g_clear_pointer (&functions, onyx_graph_list_unref);
      return;
    }
  self->graphs->shown = graph;
  g_clear_pointer (&self->graphs->function_index, onyx_graph_index_free);
  g_clear_pointer (&self->graphs->function_graphs, onyx_graph_list_unref);
  self->graphs->function_graphs = functions;
  rebuild_engine (self);
  update_path (self);
  onyx_window_select_model (self);
  onyx_layout_session_relayout (self->layout, FALSE);
}

void
onyx_window_show_graph (OnyxWindow *self, Onnx__GraphProto *graph)
{
  g_return_if_fail (self->document != NULL);
  show_graph_from (self, graph, NULL);
}

/* The graphs a node opens: its graph attributes, or the function it calls. */
static gboolean
open_node (OnyxWindow *self, Onnx__NodeProto *node)
{
  g_autoptr (OnyxGraphList) graphs = onyx_graph_list_new (onyx_document_get_proto (self->document));
  g_autoptr (GPtrArray) children = onyx_graph_list_children (graphs, node);
  const OnyxGraphEntry *entry;

  if (children->len == 0)
    return FALSE;
  entry = children->pdata[0];
  /* A function's view belongs to the list: it is kept while the function shows. */
  show_graph_from (self, entry->graph, entry->function != NULL ? g_steal_pointer (&graphs) : NULL);
  return TRUE;
}

static void
item_opened_cb (OnyxWindow *self, int index)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (self->canvas);
  const OnyxLayoutNode *node;
  Onnx__GraphProto *graph = onyx_window_get_graph (self);

  if (layout == NULL || index < 0 || (guint) index >= layout->nodes->len)
    return;
  node = &g_array_index (layout->nodes, OnyxLayoutNode, index);
  if (node->kind == ONYX_LAYOUT_OP && (size_t) node->index < graph->n_node)
    open_node (self, graph->node[node->index]);
}

static void
open_graph_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);
  g_autoptr (OnyxGraphList) graphs = NULL;
  g_autoptr (GError) error = NULL;
  const OnyxGraphEntry *entry;

  if (self->document == NULL)
    return;
  graphs = onyx_graph_list_new (onyx_document_get_proto (self->document));
  entry = onyx_graph_list_find (graphs, g_variant_get_string (param, NULL), &error);
  if (entry == NULL)
    {
      onyx_window_toast (self, error->message, FALSE);
      return;
    }
  show_graph_from (self, entry->graph, entry->function != NULL ? g_steal_pointer (&graphs) : NULL);
}

static void
graph_up_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);
  Onnx__NodeProto *holder;

  if (self->document == NULL || self->graphs->shown == NULL)
    return;
  /* Up to the graph around, with the node holding this one selected. */
  holder = onyx_document_graph_owner (self->document, self->graphs->shown);
  onyx_window_show_graph (self, holder != NULL ? onyx_document_graph_of_node (self->document, holder)
                                               : onyx_document_get_proto (self->document)->graph);
  if (holder != NULL)
    onyx_window_select_node (self, holder);
}

static gboolean
function_in_model (OnyxWindow *self)
{
  Onnx__ModelProto *model = onyx_document_get_proto (self->document);
  const OnyxGraphEntry *entry = self->graphs->function_graphs != NULL
    ? onyx_graph_list_lookup (self->graphs->function_graphs, self->graphs->shown) : NULL;

  for (size_t f = 0; entry != NULL && f < model->n_functions; f++)
    if (model->functions[f] == entry->function)
      return TRUE;
  return FALSE;
}

void
onyx_window_graphs_document_changed (OnyxWindow *self)
{
  Onnx__NodeProto *holder;

  if (self->graphs->shown == NULL)
    return;
  if (onyx_window_shows_function (self))
    {
      /* Inline Functions removed the function shown. */
      if (!function_in_model (self))
        {
          onyx_window_show_graph (self, onyx_document_get_proto (self->document)->graph);
          onyx_window_toast (self, _("The graph shown is no longer in the model"), FALSE);
        }
      return;
    }
  /* The node holding the graph shown was deleted: back to the main graph. */
  holder = onyx_document_graph_owner (self->document, self->graphs->shown);
  if (holder == NULL || !onyx_document_contains_node (self->document, holder))
    {
      onyx_window_show_graph (self, onyx_document_get_proto (self->document)->graph);
      onyx_window_toast (self, _("The graph shown is no longer in the model"), FALSE);
      return;
    }
  /* Holders named after nodes: a rename shows in the path. */
  update_path (self);
}

void
onyx_window_graphs_reset (OnyxWindow *self)
{
  self->graphs->shown = NULL;
  g_clear_pointer (&self->graphs->function_index, onyx_graph_index_free);
  g_clear_pointer (&self->graphs->function_graphs, onyx_graph_list_unref);
  update_path (self);
}

void
onyx_window_class_init_graphs (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_child_full (widget_class, "graph_path", FALSE, 0);
  gtk_widget_class_bind_template_child_full (widget_class, "graph_back_button", FALSE, 0);
  gtk_widget_class_install_action (widget_class, "win.open-graph", "s", open_graph_action);
  gtk_widget_class_install_action (widget_class, "win.graph-up", NULL, graph_up_action);
  /* In the bubble phase: the search entry and dialogs take Escape first. */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "win.graph-up", NULL);
}

void
onyx_window_init_graphs (OnyxWindow *self)
{
  self->graphs = g_new0 (OnyxWindowGraphs, 1);
  self->graphs->path = GTK_BOX (onyx_window_template_child (self, "graph_path"));
  self->graphs->back_button = GTK_WIDGET (onyx_window_template_child (self, "graph_back_button"));
  g_signal_connect_swapped (self->canvas, "item-opened", G_CALLBACK (item_opened_cb), self);
  update_path (self);
}

gboolean
onyx_window_shows_main_graph (OnyxWindow *self)
{
  return self->graphs->shown == NULL;
}

GtkWidget *
onyx_window_graphs_get_path_bar (OnyxWindow *self)
{
  return GTK_WIDGET (self->graphs->path);
}
