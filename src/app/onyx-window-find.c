/* onyx-window-find.c: the search bar (Ctrl+F). Enter selects the next graph input,
 * node (by name or operator) or node output whose name holds the text, ignoring case,
 * cycles round, and brings the match into view readable. */
#include "onyx-window-private.h"

#include <glib/gi18n.h>

struct _OnyxWindowFind {
  GtkSearchBar *bar;
  GtkSearchEntry *entry;
  GtkLabel *status;               /* "Not found" */
  GtkToggleButton *button;        /* in the header bar */
  guint position;                 /* of the last match, Enter goes on from it */
};

static gboolean
matches (const char *text, const char *needle)
{
  g_autofree char *folded = NULL;

  if (text == NULL || text[0] == '\0')
    return FALSE;
  folded = g_utf8_casefold (text, -1);
  return strstr (folded, needle) != NULL;
}

/* The match, selected, is brought into view at a zoom that reads, whatever the zoom
 * was (a node found in a big graph seen whole is otherwise a dot). */
static void
found (OnyxWindow *self)
{
  gtk_label_set_text (self->find->status, "");
  onyx_window_present_selection (self);
}

static void
search_activate_cb (OnyxWindow *self)
{
  g_autofree char *needle = g_utf8_casefold (gtk_editable_get_text (GTK_EDITABLE (self->find->entry)), -1);
  Onnx__GraphProto *graph;

  if (self->document == NULL || needle[0] == '\0')
    return;
  graph = onyx_window_get_graph (self);
  /* In the graph shown. Graph inputs come first, then nodes (name, op type, outputs), cycling on Enter. */
  for (size_t step = 1; step <= graph->n_input + graph->n_node; step++)
    {
      size_t k = (self->find->position + step) % (graph->n_input + graph->n_node);
      if (k < graph->n_input)
        {
          if (matches (graph->input[k]->name, needle))
            {
              self->find->position = k;
              onyx_window_select_tensor (self, graph->input[k]->name);
              found (self);
              return;
            }
          continue;
        }
      Onnx__NodeProto *node = graph->node[k - graph->n_input];
      if (matches (node->name, needle) || matches (node->op_type, needle))
        {
          self->find->position = k;
          onyx_window_select_node (self, node);
          found (self);
          return;
        }
      for (size_t o = 0; o < node->n_output; o++)
        if (matches (node->output[o], needle))
          {
            self->find->position = k;
            onyx_window_select_tensor (self, node->output[o]);
            found (self);
            return;
          }
    }
  gtk_label_set_text (self->find->status, _("Not found"));
}

static void
search_stop_cb (OnyxWindow *self)
{
  gtk_search_bar_set_search_mode (self->find->bar, FALSE);
  gtk_widget_grab_focus (GTK_WIDGET (self->canvas));
}

/* Ctrl+F: the search bar, its entry focused. */
static void
find_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);

  gtk_search_bar_set_search_mode (self->find->bar, TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->find->entry));
}

void
onyx_window_class_init_find (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_child_full (widget_class, "search_bar", FALSE, 0);
  gtk_widget_class_bind_template_child_full (widget_class, "search_entry", FALSE, 0);
  gtk_widget_class_bind_template_child_full (widget_class, "search_status", FALSE, 0);
  gtk_widget_class_bind_template_child_full (widget_class, "find_button", FALSE, 0);
  gtk_widget_class_install_action (widget_class, "win.find", NULL, find_action);
}

void
onyx_window_init_find (OnyxWindow *self)
{
  self->find = g_new0 (OnyxWindowFind, 1);
  self->find->bar = GTK_SEARCH_BAR (onyx_window_template_child (self, "search_bar"));
  self->find->entry = GTK_SEARCH_ENTRY (onyx_window_template_child (self, "search_entry"));
  self->find->status = GTK_LABEL (onyx_window_template_child (self, "search_status"));
  self->find->button = GTK_TOGGLE_BUTTON (onyx_window_template_child (self, "find_button"));
  g_object_bind_property (self->find->button, "active", self->find->bar, "search-mode-enabled",
                          G_BINDING_BIDIRECTIONAL);
  gtk_search_bar_connect_entry (self->find->bar, GTK_EDITABLE (self->find->entry));
  g_signal_connect_swapped (self->find->entry, "activate", G_CALLBACK (search_activate_cb), self);
  g_signal_connect_swapped (self->find->entry, "stop-search", G_CALLBACK (search_stop_cb), self);
}

/* Finding needs a document. */
void
onyx_window_find_update_state (OnyxWindow *self, gboolean doc)
{
  gtk_widget_set_sensitive (GTK_WIDGET (self->find->button), doc);
}
