/* onyx-tensor-picker.c */
#include "onyx-tensor-picker.h"

#include <glib/gi18n.h>

#include "onyx-edits.h"
#include "onyx-types.h"
#include "onyx-text.h"

struct _OnyxTensorPicker {
  GtkPopover parent_instance;

  OnyxDocument *doc;
  Onnx__GraphProto *graph;        /* whose tensors, with those of the graphs around it */
  char *current;
  char *action;
  GVariant *target;     /* what the action edits: the input's index, … */

  GtkStringList *names;           /* every tensor, filled on first use */
  GHashTable *folded;             /* name → its case-folded form, matched by the filter */
  GHashTable *value_info;         /* name → ValueInfoProto of graph outputs and value_info */
  char *needle;                   /* the search, case-folded */
  GtkFilter *filter;
  GtkFilterListModel *results;
  GtkSingleSelection *selection;
  GtkWidget *search;
  GtkWidget *list;
  GtkWidget *stack;
};

G_DEFINE_FINAL_TYPE (OnyxTensorPicker, onyx_tensor_picker, GTK_TYPE_POPOVER)

/* Folded once here rather than by GtkStringFilter on every keystroke, which took
 * several times longer with 13,000 tensors (bench/bench-picker.c). */
static void
add_name (OnyxTensorPicker *self, GPtrArray *names, const char *name)
{
  g_autofree char *valid = NULL;

  if (name == NULL || name[0] == '\0' || g_hash_table_contains (self->folded, name))
    return;
  valid = g_utf8_make_valid (name, -1);
  g_hash_table_insert (self->folded, g_strdup (name), g_utf8_casefold (valid, -1));
  g_ptr_array_add (names, (gpointer) name);
}

/* Graph inputs, then node outputs in graph order, then initializers: what is read
 * most often comes first. */
static void
add_graph_names (OnyxTensorPicker *self, Onnx__GraphProto *graph, GPtrArray *names)
{
  for (size_t i = 0; i < graph->n_value_info; i++)
    if (graph->value_info[i]->name != NULL)
      g_hash_table_insert (self->value_info, graph->value_info[i]->name, graph->value_info[i]);
  for (size_t i = 0; i < graph->n_output; i++)
    if (graph->output[i]->name != NULL)
      g_hash_table_insert (self->value_info, graph->output[i]->name, graph->output[i]);

  for (size_t i = 0; i < graph->n_input; i++)
    add_name (self, names, graph->input[i]->name);
  for (size_t i = 0; i < graph->n_node; i++)
    for (size_t o = 0; o < graph->node[i]->n_output; o++)
      add_name (self, names, graph->node[i]->output[o]);
  for (size_t i = 0; i < graph->n_initializer; i++)
    add_name (self, names, graph->initializer[i]->name);
}

static void
ensure_names (OnyxTensorPicker *self)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GPtrArray) lineage = g_ptr_array_new ();

  if (self->value_info != NULL)
    return;
  self->value_info = g_hash_table_new (g_str_hash, g_str_equal);
  if (self->graph == NULL)
    return;
  /* A subgraph's own tensors first, then what the graphs around it define. */
  onyx_document_graph_lineage (self->doc, self->graph, lineage);
  for (guint g = 0; g < lineage->len; g++)
    add_graph_names (self, lineage->pdata[g], names);
  g_ptr_array_add (names, NULL);
  gtk_string_list_splice (self->names, 0, 0, (const char *const *) names->pdata);
}

/* "Graph input · float32[N×3]", "Conv /conv1 · float32[N×64]", "Initializer · float32[64]". */
/* The index of the innermost graph around the picker's that defines `name`. */
static OnyxGraphIndex *
defining_index (OnyxTensorPicker *self, const char *name)
{
  g_autoptr (GPtrArray) lineage = g_ptr_array_new ();

  onyx_document_graph_lineage (self->doc, self->graph, lineage);
  for (guint g = 0; g < lineage->len; g++)
    {
      OnyxGraphIndex *index = onyx_document_get_graph_index (self->doc, lineage->pdata[g]);
      if (onyx_graph_index_defines (index, name))
        return index;
    }
  return onyx_document_get_graph_index (self->doc, self->graph);
}

static char *
describe (OnyxTensorPicker *self, const char *name)
{
  OnyxGraphIndex *index = defining_index (self, name);
  Onnx__TensorProto *init = onyx_graph_index_initializer (index, name);
  Onnx__ValueInfoProto *info = onyx_graph_index_graph_input (index, name);
  OnyxValue *value = onyx_graph_index_lookup (index, name);
  g_autofree char *from = NULL, *type = NULL;

  if (info == NULL)
    info = g_hash_table_lookup (self->value_info, name);
  if (info != NULL && info->type != NULL)
    type = onyx_type_to_string (info->type);
  else if (init != NULL)
    {
      g_autofree char *dims = onyx_dims_to_string (init->dims, init->n_dims);
      type = g_strdup_printf ("%s[%s]", onyx_elem_type_name (init->data_type), dims);
    }

  if (value != NULL && value->producer != NULL)
    {
      g_autofree char *op = onyx_display_escape (value->producer->op_type);
      g_autofree char *who = onyx_node_describe (self->doc, value->producer);
      from = g_strdup_printf ("%s %s", op, who);
    }
  else
    from = g_strdup (init != NULL ? _("Initializer") : _("Graph input"));
  return type != NULL ? g_strdup_printf ("%s · %s", from, type) : g_steal_pointer (&from);
}

/* The full name of an ellipsized row. Asked for on hover: setting a tooltip at every
 * bind costs a round trip to the X server per row. */
static gboolean
query_tooltip_cb (GtkWidget *name, int x, int y, gboolean keyboard, GtkTooltip *tooltip)
{
  gtk_tooltip_set_text (tooltip, gtk_label_get_text (GTK_LABEL (name)));
  return TRUE;
}

static void
setup_row (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *labels = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *name = gtk_label_new (NULL);
  GtkWidget *detail = gtk_label_new (NULL);
  GtkWidget *mark = gtk_image_new_from_icon_name ("object-select-symbolic");

  gtk_label_set_xalign (GTK_LABEL (name), 0);
  gtk_label_set_xalign (GTK_LABEL (detail), 0);
  /* Long scoped names differ at both ends: keep both. */
  gtk_label_set_ellipsize (GTK_LABEL (name), PANGO_ELLIPSIZE_MIDDLE);
  gtk_label_set_ellipsize (GTK_LABEL (detail), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_set_has_tooltip (name, TRUE);
  g_signal_connect (name, "query-tooltip", G_CALLBACK (query_tooltip_cb), NULL);
  gtk_widget_add_css_class (detail, "dim-label");
  gtk_widget_add_css_class (detail, "caption");
  gtk_widget_set_hexpand (labels, TRUE);
  gtk_box_append (GTK_BOX (labels), name);
  gtk_box_append (GTK_BOX (labels), detail);
  gtk_box_append (GTK_BOX (box), labels);
  gtk_box_append (GTK_BOX (box), mark);
  gtk_widget_set_margin_top (box, 3);
  gtk_widget_set_margin_bottom (box, 3);
  gtk_list_item_set_child (item, box);
}

static void
bind_row (GtkSignalListItemFactory *factory, GtkListItem *item, OnyxTensorPicker *self)
{
  GtkWidget *box = gtk_list_item_get_child (item);
  GtkWidget *labels = gtk_widget_get_first_child (box);
  GtkWidget *name_label = gtk_widget_get_first_child (labels);
  const char *name = gtk_string_object_get_string (gtk_list_item_get_item (item));
  g_autofree char *shown = onyx_display_escape (name);
  g_autofree char *detail = describe (self, name);

  gtk_label_set_text (GTK_LABEL (name_label), shown);
  gtk_label_set_text (GTK_LABEL (gtk_widget_get_next_sibling (name_label)), detail);
  gtk_widget_set_visible (gtk_widget_get_last_child (box), g_strcmp0 (name, self->current) == 0);
}

static gboolean
match (gpointer item, gpointer data)
{
  OnyxTensorPicker *self = data;
  const char *folded;

  if (self->needle == NULL || self->needle[0] == '\0')
    return TRUE;
  folded = g_hash_table_lookup (self->folded, gtk_string_object_get_string (item));
  return folded != NULL && strstr (folded, self->needle) != NULL;
}

static void
search_changed_cb (OnyxTensorPicker *self)
{
  g_autofree char *valid = g_utf8_make_valid (gtk_editable_get_text (GTK_EDITABLE (self->search)), -1);
  char *needle = g_utf8_casefold (valid, -1);
  GtkFilterChange change = GTK_FILTER_CHANGE_DIFFERENT;

  /* A longer search only drops rows, a shorter one only adds: the model then looks
   * at just those. */
  if (self->needle != NULL && strstr (needle, self->needle) != NULL)
    change = GTK_FILTER_CHANGE_MORE_STRICT;
  else if (self->needle != NULL && strstr (self->needle, needle) != NULL)
    change = GTK_FILTER_CHANGE_LESS_STRICT;
  g_free (self->needle);
  self->needle = needle;
  gtk_filter_changed (self->filter, change);
}

static void
results_changed_cb (OnyxTensorPicker *self)
{
  gboolean any = g_list_model_get_n_items (G_LIST_MODEL (self->results)) > 0;

  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), any ? "list" : "empty");
}

void
onyx_tensor_picker_choose (OnyxTensorPicker *self, guint position)
{
  g_autoptr (GtkStringObject) item = NULL;
  g_autofree char *name = NULL;
  GtkWidget *target;

  g_return_if_fail (ONYX_IS_TENSOR_PICKER (self));
  item = g_list_model_get_item (G_LIST_MODEL (self->results), position);
  if (item == NULL)
    return;
  name = g_strdup (gtk_string_object_get_string (item));
  /* The edit rebuilds the panel, which destroys this popover and its button: close
   * first, and send the action from the button's parent, which the window still holds
   * while the action runs. */
  target = gtk_widget_get_parent (GTK_WIDGET (self));
  target = g_object_ref (target != NULL ? target : GTK_WIDGET (self));
  g_object_ref (self);
  gtk_popover_popdown (GTK_POPOVER (self));
  onyx_activate_edit_action (target, self->action, self->target, name);
  g_object_unref (self);
  g_object_unref (target);
}

static void
activate_cb (GtkListView *list, guint position, OnyxTensorPicker *self)
{
  onyx_tensor_picker_choose (self, position);
}

static void
search_activate_cb (OnyxTensorPicker *self)
{
  guint position = gtk_single_selection_get_selected (self->selection);

  if (position != GTK_INVALID_LIST_POSITION)
    onyx_tensor_picker_choose (self, position);
}

/* Down from the search goes to the list, as in other GNOME pickers. */
static gboolean
search_key_cb (GtkEventControllerKey *controller, guint keyval, guint keycode,
               GdkModifierType state, OnyxTensorPicker *self)
{
  if (keyval != GDK_KEY_Down && keyval != GDK_KEY_KP_Down)
    return FALSE;
  return gtk_widget_child_focus (self->list, GTK_DIR_DOWN) || gtk_widget_grab_focus (self->list);
}

static void
onyx_tensor_picker_map (GtkWidget *widget)
{
  OnyxTensorPicker *self = ONYX_TENSOR_PICKER (widget);

  ensure_names (self);
  GTK_WIDGET_CLASS (onyx_tensor_picker_parent_class)->map (widget);
  gtk_widget_grab_focus (self->search);
}

GtkEditable *
onyx_tensor_picker_get_search (OnyxTensorPicker *self)
{
  g_return_val_if_fail (ONYX_IS_TENSOR_PICKER (self), NULL);
  return GTK_EDITABLE (self->search);
}

GListModel *
onyx_tensor_picker_get_results (OnyxTensorPicker *self)
{
  g_return_val_if_fail (ONYX_IS_TENSOR_PICKER (self), NULL);
  ensure_names (self);
  return G_LIST_MODEL (self->results);
}

static void
onyx_tensor_picker_dispose (GObject *object)
{
  OnyxTensorPicker *self = ONYX_TENSOR_PICKER (object);

  g_clear_object (&self->doc);
  if (self->results != NULL)
    g_signal_handlers_disconnect_by_data (self->results, self);
  self->results = NULL;
  g_clear_object (&self->selection);
  g_clear_pointer (&self->value_info, g_hash_table_unref);
  g_clear_pointer (&self->folded, g_hash_table_unref);
  g_clear_pointer (&self->needle, g_free);
  g_clear_pointer (&self->current, g_free);
  g_clear_pointer (&self->action, g_free);
  g_clear_pointer (&self->target, g_variant_unref);
  G_OBJECT_CLASS (onyx_tensor_picker_parent_class)->dispose (object);
}

static void
onyx_tensor_picker_class_init (OnyxTensorPickerClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = onyx_tensor_picker_dispose;
  GTK_WIDGET_CLASS (klass)->map = onyx_tensor_picker_map;
}

static void
onyx_tensor_picker_init (OnyxTensorPicker *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *empty = gtk_label_new (_("No matching tensors"));
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  GtkEventController *key;

  self->names = gtk_string_list_new (NULL);
  self->folded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->filter = GTK_FILTER (gtk_custom_filter_new (match, self, NULL));
  /* Both take ownership; self->filter stays valid as long as self->selection. */
  self->results = gtk_filter_list_model_new (G_LIST_MODEL (self->names), self->filter);
  self->selection = gtk_single_selection_new (G_LIST_MODEL (self->results));

  self->search = gtk_search_entry_new ();
  g_object_set (self->search, "placeholder-text", _("Search tensors"), NULL);
  gtk_search_entry_set_key_capture_widget (GTK_SEARCH_ENTRY (self->search), GTK_WIDGET (self));
  g_signal_connect_swapped (self->search, "changed", G_CALLBACK (search_changed_cb), self);
  g_signal_connect_swapped (self->search, "activate", G_CALLBACK (search_activate_cb), self);
  g_signal_connect_swapped (self->search, "stop-search", G_CALLBACK (gtk_popover_popdown), self);
  key = gtk_event_controller_key_new ();
  g_signal_connect (key, "key-pressed", G_CALLBACK (search_key_cb), self);
  gtk_widget_add_controller (self->search, key);

  g_signal_connect (factory, "setup", G_CALLBACK (setup_row), self);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_row), self);
  self->list = gtk_list_view_new (GTK_SELECTION_MODEL (g_object_ref (self->selection)), factory);
  gtk_list_view_set_single_click_activate (GTK_LIST_VIEW (self->list), TRUE);
  g_signal_connect (self->list, "activate", G_CALLBACK (activate_cb), self);
  g_signal_connect_swapped (self->results, "items-changed", G_CALLBACK (results_changed_cb), self);

  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), self->list);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_size_request (scrolled, 360, 320);
  gtk_widget_add_css_class (empty, "dim-label");
  self->stack = gtk_stack_new ();
  gtk_stack_add_named (GTK_STACK (self->stack), scrolled, "list");
  gtk_stack_add_named (GTK_STACK (self->stack), empty, "empty");
  gtk_box_append (GTK_BOX (box), self->search);
  gtk_box_append (GTK_BOX (box), self->stack);
  gtk_popover_set_child (GTK_POPOVER (self), box);
}

gboolean
onyx_activate_edit_action (GtkWidget *widget, const char *action, GVariant *target, const char *text)
{
  g_autoptr (GPtrArray) children = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
  g_autoptr (GVariant) sunk = target != NULL ? g_variant_ref_sink (target) : NULL;

  if (sunk == NULL)
    return gtk_widget_activate_action_variant (widget, action, g_variant_new_string (text));
  if (g_variant_is_of_type (sunk, G_VARIANT_TYPE_TUPLE))
    for (gsize i = 0; i < g_variant_n_children (sunk); i++)
      g_ptr_array_add (children, g_variant_get_child_value (sunk, i));
  else
    g_ptr_array_add (children, g_variant_ref (sunk));
  g_ptr_array_add (children, g_variant_ref_sink (g_variant_new_string (text)));
  return gtk_widget_activate_action_variant (widget, action,
                                             g_variant_new_tuple ((GVariant *const *) children->pdata, children->len));
}

GtkWidget *
onyx_tensor_picker_new (OnyxDocument *doc, const char *current, const char *action, GVariant *target)
{
  return onyx_tensor_picker_new_in (doc, onyx_document_get_proto (doc)->graph, current, action, target);
}

GtkWidget *
onyx_tensor_picker_new_in (OnyxDocument *doc, Onnx__GraphProto *graph, const char *current,
                           const char *action, GVariant *target)
{
  OnyxTensorPicker *self = g_object_new (ONYX_TYPE_TENSOR_PICKER, NULL);

  self->doc = g_object_ref (doc);
  self->graph = graph;
  self->current = g_strdup (current);
  self->action = g_strdup (action);
  self->target = target != NULL ? g_variant_ref_sink (target) : NULL;
  return GTK_WIDGET (self);
}

GtkWidget *
onyx_tensor_picker_button_new (OnyxDocument *doc, const char *current, const char *action,
                               GVariant *target)
{
  return onyx_tensor_picker_button_new_in (doc, onyx_document_get_proto (doc)->graph, current,
                                           action, target);
}

GtkWidget *
onyx_tensor_picker_button_new_in (OnyxDocument *doc, Onnx__GraphProto *graph, const char *current,
                                  const char *action, GVariant *target)
{
  GtkWidget *button = gtk_menu_button_new ();

  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (button), "document-edit-symbolic");
  gtk_menu_button_set_popover (GTK_MENU_BUTTON (button),
                               onyx_tensor_picker_new_in (doc, graph, current, action, target));
  gtk_widget_set_tooltip_text (button, _("Connect to Another Tensor"));
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (button, "flat");
  return button;
}
