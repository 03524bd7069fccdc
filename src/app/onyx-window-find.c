/* onyx-window-find.c: the search bar (Ctrl+F). Enter selects the next graph input,
 * node (by name or operator) or node output whose name holds the text, ignoring case,
 * and cycles round. */
#include "onyx-window-private.h"

#include <glib/gi18n.h>

static gboolean
matches (const char *text, const char *needle)
{
  g_autofree char *folded = NULL;

  if (text == NULL || text[0] == '\0')
    return FALSE;
  folded = g_utf8_casefold (text, -1);
  return strstr (folded, needle) != NULL;
}

static void
search_activate_cb (OnyxWindow *self)
{
  g_autofree char *needle = g_utf8_casefold (gtk_editable_get_text (GTK_EDITABLE (self->search_entry)), -1);
  Onnx__GraphProto *graph;

  if (self->document == NULL || needle[0] == '\0')
    return;
  graph = onyx_window_get_graph (self);
  /* In the graph shown. Graph inputs come first, then nodes (name, op type, outputs), cycling on Enter. */
  for (size_t step = 1; step <= graph->n_input + graph->n_node; step++)
    {
      size_t k = (self->find_position + step) % (graph->n_input + graph->n_node);
      if (k < graph->n_input)
        {
          if (matches (graph->input[k]->name, needle))
            {
              self->find_position = k;
              onyx_window_select_tensor (self, graph->input[k]->name);
              gtk_label_set_text (self->search_status, "");
              return;
            }
          continue;
        }
      Onnx__NodeProto *node = graph->node[k - graph->n_input];
      if (matches (node->name, needle) || matches (node->op_type, needle))
        {
          self->find_position = k;
          onyx_window_select_node (self, node);
          gtk_label_set_text (self->search_status, "");
          return;
        }
      for (size_t o = 0; o < node->n_output; o++)
        if (matches (node->output[o], needle))
          {
            self->find_position = k;
            onyx_window_select_tensor (self, node->output[o]);
            gtk_label_set_text (self->search_status, "");
            return;
          }
    }
  gtk_label_set_text (self->search_status, _("Not found"));
}

static void
search_stop_cb (OnyxWindow *self)
{
  gtk_search_bar_set_search_mode (self->search_bar, FALSE);
  gtk_widget_grab_focus (GTK_WIDGET (self->canvas));
}

void
onyx_window_init_find (OnyxWindow *self)
{
  g_object_bind_property (self->find_button, "active", self->search_bar, "search-mode-enabled",
                          G_BINDING_BIDIRECTIONAL);
  gtk_search_bar_connect_entry (self->search_bar, GTK_EDITABLE (self->search_entry));
  g_signal_connect_swapped (self->search_entry, "activate", G_CALLBACK (search_activate_cb), self);
  g_signal_connect_swapped (self->search_entry, "stop-search", G_CALLBACK (search_stop_cb), self);
}
