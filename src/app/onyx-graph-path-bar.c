/* onyx-graph-path-bar.c: the path to the graph shown (onyx-graph-path-bar.h). */
#include "onyx-graph-path-bar.h"

#include <glib/gi18n.h>

#include "onyx-edits.h"
#include "onyx-text.h"

struct _OnyxGraphPathBar {
  GtkBox parent_instance;

  GtkBox *path;
  OnyxViewState *state;
};

G_DEFINE_FINAL_TYPE (OnyxGraphPathBar, onyx_graph_path_bar, GTK_TYPE_BOX)

/* What a part of the path shows when clicked. */
typedef struct {
  OnyxViewState *state;
  Onnx__GraphProto *graph;
  Onnx__NodeProto *select;   /* or NULL */
} PathPart;

static void
path_part_clicked_cb (GtkButton *button, PathPart *part)
{
  onyx_view_state_show_graph (part->state, part->graph);
  if (part->select != NULL)
    onyx_view_state_select_node (part->state, part->select);
}

static void
add_path_part (OnyxGraphPathBar *self, const char *label, Onnx__GraphProto *graph, Onnx__NodeProto *select,
               gboolean current)
{
  GtkWidget *button = gtk_button_new_with_label (label);
  PathPart *part = g_new0 (PathPart, 1);

  if (gtk_widget_get_first_child (GTK_WIDGET (self->path)) != NULL)
    gtk_box_append (self->path, gtk_label_new ("›"));
  part->state = self->state;
  part->graph = graph;
  part->select = select;
  gtk_widget_add_css_class (button, "flat");
  if (current)
    gtk_widget_add_css_class (button, "heading");
  if (g_utf8_strlen (label, -1) > 16)
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
  gtk_box_append (self->path, button);
}

/* The attribute of `holder` that holds `graph`: "then_branch", "body". */
static const char *
holding_attribute (Onnx__NodeProto *holder, Onnx__GraphProto *graph)
{
  for (size_t a = 0; a < holder->n_attribute; a++)
    {
      if (holder->attribute[a]->g == graph)
        return holder->attribute[a]->name;
      for (size_t g = 0; g < holder->attribute[a]->n_graphs; g++)
        if (holder->attribute[a]->graphs[g] == graph)
          return holder->attribute[a]->name;
    }
  return "?";
}

static void
update (OnyxGraphPathBar *self)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  Onnx__GraphProto *shown = onyx_view_state_get_graph (self->state);
  g_autoptr (GPtrArray) lineage = g_ptr_array_new ();
  gboolean main_graph = document == NULL || onyx_view_state_shows_main_graph (self->state);
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->path))) != NULL)
    gtk_box_remove (self->path, child);
  gtk_widget_set_visible (GTK_WIDGET (self), !main_graph);
  if (main_graph)
    return;
  add_path_part (self, _("main"), onyx_document_get_proto (document)->graph, NULL, FALSE);
  if (onyx_view_state_shows_function (self->state))
    {
      g_autofree char *name = onyx_display_escape (shown->name);
      add_path_part (self, name, shown, NULL, TRUE);
      return;
    }
  onyx_document_graph_lineage (document, shown, lineage);
  /* Outermost first; the main graph is already there. */
  for (guint i = lineage->len - 1; i-- > 0;)
    {
      Onnx__GraphProto *graph = lineage->pdata[i];
      Onnx__NodeProto *holder = onyx_document_graph_owner (document, graph);
      g_autofree char *holder_name = onyx_node_describe (document, holder);

      add_path_part (self, holder_name, lineage->pdata[i + 1], holder, FALSE);
      add_path_part (self, holding_attribute (holder, graph), graph, NULL, i == 0);
    }
}

void
onyx_graph_path_bar_set_state (OnyxGraphPathBar *self, OnyxViewState *state)
{
  g_return_if_fail (ONYX_IS_GRAPH_PATH_BAR (self) && self->state == NULL);
  /* Borrowed by the parts' buttons: the bar outlives none of them. */
  self->state = g_object_ref (state);
  g_signal_connect_object (state, "notify::graph", G_CALLBACK (update), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "notify::document", G_CALLBACK (update), self, G_CONNECT_SWAPPED);
  update (self);
}

static void
onyx_graph_path_bar_dispose (GObject *object)
{
  OnyxGraphPathBar *self = ONYX_GRAPH_PATH_BAR (object);

  g_clear_object (&self->state);
  gtk_widget_dispose_template (GTK_WIDGET (self), ONYX_TYPE_GRAPH_PATH_BAR);
  G_OBJECT_CLASS (onyx_graph_path_bar_parent_class)->dispose (object);
}

static void
onyx_graph_path_bar_class_init (OnyxGraphPathBarClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = onyx_graph_path_bar_dispose;
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/onyxviewer/Onyx/onyx-graph-path-bar.ui");
  gtk_widget_class_bind_template_child (widget_class, OnyxGraphPathBar, path);
}

static void
onyx_graph_path_bar_init (OnyxGraphPathBar *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}
