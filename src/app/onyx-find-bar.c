/* onyx-find-bar.c: Find (onyx-find-bar.h). */
#include "onyx-find-bar.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <string.h>

struct _OnyxFindBar {
  AdwBin parent_instance;

  GtkSearchBar *bar;
  GtkSearchEntry *entry;
  GtkLabel *status;               /* "Not found" */
  OnyxViewState *state;
  GSimpleActionGroup *actions;
  guint position;                 /* of the last match, Enter goes on from it */
};

G_DEFINE_FINAL_TYPE (OnyxFindBar, onyx_find_bar, ADW_TYPE_BIN)

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
found (OnyxFindBar *self, guint position)
{
  self->position = position;
  gtk_label_set_text (self->status, "");
  onyx_view_state_reveal (self->state, ONYX_REVEAL_READABLE);
}

static void
search_activate_cb (OnyxFindBar *self)
{
  g_autofree char *needle = g_utf8_casefold (gtk_editable_get_text (GTK_EDITABLE (self->entry)), -1);
  Onnx__GraphProto *graph = onyx_view_state_get_graph (self->state);

  if (graph == NULL || needle[0] == '\0')
    return;
  /* In the graph shown. Graph inputs come first, then nodes (name, op type, outputs), cycling on Enter. */
  for (size_t step = 1; step <= graph->n_input + graph->n_node; step++)
    {
      size_t k = (self->position + step) % (graph->n_input + graph->n_node);
      Onnx__NodeProto *node;
      if (k < graph->n_input)
        {
          if (matches (graph->input[k]->name, needle))
            {
              onyx_view_state_select_tensor (self->state, graph->input[k]->name);
              found (self, k);
              return;
            }
          continue;
        }
      node = graph->node[k - graph->n_input];
      if (matches (node->name, needle) || matches (node->op_type, needle))
        {
          onyx_view_state_select_node (self->state, node);
          found (self, k);
          return;
        }
      for (size_t o = 0; o < node->n_output; o++)
        if (matches (node->output[o], needle))
          {
            onyx_view_state_select_tensor (self->state, node->output[o]);
            found (self, k);
            return;
          }
    }
  gtk_label_set_text (self->status, _("Not found"));
}

static void
search_stop_cb (OnyxFindBar *self)
{
  gtk_search_bar_set_search_mode (self->bar, FALSE);
  onyx_view_state_focus_graph (self->state);
}

static void
show_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxFindBar *self = data;

  gtk_search_bar_set_search_mode (self->bar, TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->entry));
}

static void
bar_changed (GSimpleAction *action, GVariant *value, gpointer data)
{
  OnyxFindBar *self = data;

  gtk_search_bar_set_search_mode (self->bar, g_variant_get_boolean (value));
}

/* The toggle follows the bar, whichever closed it (Escape, the toggle). */
static void
search_mode_cb (OnyxFindBar *self)
{
  GAction *bar = g_action_map_lookup_action (G_ACTION_MAP (self->actions), "bar");

  g_simple_action_set_state (G_SIMPLE_ACTION (bar),
                             g_variant_new_boolean (gtk_search_bar_get_search_mode (self->bar)));
}

/* Finding needs a document. */
static void
document_changed_cb (OnyxFindBar *self)
{
  gboolean doc = onyx_view_state_get_document (self->state) != NULL;

  for (const char *const *name = (const char *const[]) { "show", "bar", NULL }; *name; name++)
    g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self->actions), *name)),
                                 doc);
}

void
onyx_find_bar_set_state (OnyxFindBar *self, OnyxViewState *state)
{
  g_return_if_fail (ONYX_IS_FIND_BAR (self) && self->state == NULL);
  self->state = g_object_ref (state);
  g_signal_connect_object (state, "notify::document", G_CALLBACK (document_changed_cb), self, G_CONNECT_SWAPPED);
  document_changed_cb (self);
}

GActionGroup *
onyx_find_bar_get_actions (OnyxFindBar *self)
{
  return G_ACTION_GROUP (self->actions);
}

static void
onyx_find_bar_dispose (GObject *object)
{
  OnyxFindBar *self = ONYX_FIND_BAR (object);

  g_clear_object (&self->state);
  g_clear_object (&self->actions);
  gtk_widget_dispose_template (GTK_WIDGET (self), ONYX_TYPE_FIND_BAR);
  G_OBJECT_CLASS (onyx_find_bar_parent_class)->dispose (object);
}

static void
onyx_find_bar_class_init (OnyxFindBarClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = onyx_find_bar_dispose;
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/onyxviewer/Onyx/onyx-find-bar.ui");
  gtk_widget_class_bind_template_child (widget_class, OnyxFindBar, entry);
  gtk_widget_class_bind_template_child (widget_class, OnyxFindBar, status);
}

static void
onyx_find_bar_init (OnyxFindBar *self)
{
  static const GActionEntry entries[] = {
    { .name = "show", .activate = show_activated },
    { .name = "bar", .state = "false", .change_state = bar_changed },
  };

  gtk_widget_init_template (GTK_WIDGET (self));
  /* The bin's own child, not a template child: a template child that is a direct
   * child is disposed with the template, before the bin lets go of it. */
  self->bar = GTK_SEARCH_BAR (adw_bin_get_child (ADW_BIN (self)));
  self->actions = g_simple_action_group_new ();
  g_action_map_add_action_entries (G_ACTION_MAP (self->actions), entries, G_N_ELEMENTS (entries), self);
  gtk_search_bar_connect_entry (self->bar, GTK_EDITABLE (self->entry));
  g_signal_connect_swapped (self->bar, "notify::search-mode-enabled", G_CALLBACK (search_mode_cb), self);
  g_signal_connect_swapped (self->entry, "activate", G_CALLBACK (search_activate_cb), self);
  g_signal_connect_swapped (self->entry, "stop-search", G_CALLBACK (search_stop_cb), self);
}
