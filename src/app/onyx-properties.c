/* onyx-properties.c: rebuilt from the document on every selection change or edit; a
 * panel shows at most a few hundred rows, so rebuilding is simpler than tracking. A
 * page built the same as the one shown, but for its rows' values, is not shown: the
 * shown one takes its values, and only the labels that changed are laid out again
 * (GTK lays a row's wrapped label out a dozen times and more when it is new). */
#include "onyx-properties-private.h"

#include <glib/gi18n.h>

#include "onyx-attribute.h"
#include "onyx-edits.h"
#include "onyx-frame-share.h"
#include "onyx-graph-index.h"
#include "onyx-graph-names.h"
#include "onyx-metadata.h"
#include "onyx-page-shape.h"
#include "onyx-problems-pane.h"
#include "onyx-quant.h"
#include "onyx-row-layout.h"
#include "onyx-spare-rows.h"
#include "onyx-schema.h"
#include "onyx-shapes.h"
#include "onyx-summary.h"
#include "onyx-tensor-picker.h"
#include "onyx-tensor-values.h"
#include "onyx-types.h"
#include "onyx-validate.h"
#include "onyx-text.h"

#define MAX_VALUES 10000

G_DEFINE_FINAL_TYPE (OnyxProperties, onyx_properties, GTK_TYPE_BOX)

void
onyx_properties_clear (OnyxProperties *self)
{
  if (self->page != NULL)
    gtk_box_remove (GTK_BOX (self), g_steal_pointer (&self->page));
  if (self->kept != NULL)
    gtk_box_remove (GTK_BOX (self), g_steal_pointer (&self->kept));
}

void
onyx_properties_begin_page (OnyxProperties *self)
{
  g_return_if_fail (self->building == NULL);
  self->building = g_object_ref_sink (gtk_box_new (GTK_ORIENTATION_VERTICAL, 18));
}

static void
take_tags (GtkWidget *page, GtkWidget *built)
{
  g_object_set_data (G_OBJECT (page), "onyx-model-page-document",
                     g_object_get_data (G_OBJECT (built), "onyx-model-page-document"));
  g_object_set_data (G_OBJECT (page), "onyx-model-page-graph",
                     g_object_get_data (G_OBJECT (built), "onyx-model-page-graph"));
}

/* Pages no longer shown go in a turn of their own, after the frame (a page of dozens
 * of rows takes milliseconds to destroy), their plain rows kept for the next. */
static gboolean
drop_retired_cb (gpointer data)
{
  OnyxProperties *self = data;

  self->drop_retired = 0;
  for (guint i = 0; i < self->retired->len; i++)
    {
      GtkWidget *page = self->retired->pdata[i];
      onyx_spare_rows_keep (page);
      if (gtk_widget_get_parent (page) == GTK_WIDGET (self))
        gtk_box_remove (GTK_BOX (self), page);
    }
  g_ptr_array_set_size (self->retired, 0);
  return G_SOURCE_REMOVE;
}

static void
retire_page (OnyxProperties *self, GtkWidget *page)
{
  gtk_widget_set_visible (page, FALSE);
  g_ptr_array_add (self->retired, g_object_ref (page));
  if (self->drop_retired == 0)
    self->drop_retired = g_idle_add_full (G_PRIORITY_LOW, drop_retired_cb, self, NULL);
}

/* Shows the page built: the one shown or the one kept when either is built the same,
 * else the new one. The page shown before is kept, hidden. */
void
onyx_properties_present_page (OnyxProperties *self)
{
  g_autoptr (GtkWidget) page = g_steal_pointer (&self->building);
  g_autoptr (OnyxPageShape) built = onyx_page_shape_new (page);
  GtkWidget *shown = NULL;

  if (self->page != NULL && onyx_page_shape_take_values (built, self->page))
    {
      take_tags (self->page, page);
      retire_page (self, page);
      return;
    }
  if (self->kept != NULL && onyx_page_shape_take_values (built, self->kept))
    {
      take_tags (self->kept, page);
      retire_page (self, page);
      shown = g_steal_pointer (&self->kept);
    }
  else
    {
      shown = page;
      gtk_box_append (GTK_BOX (self), page);
      /* New rows: their labels are measured for the first time in the next frame. */
      onyx_frame_share_fill (GTK_WIDGET (self));
    }
  if (self->kept != NULL)
    retire_page (self, g_steal_pointer (&self->kept));
  if (self->page != NULL)
    gtk_widget_set_visible (self->kept = self->page, FALSE);
  gtk_widget_set_visible (self->page = shown, TRUE);
}

/* The page being built is the model's page of `doc` with `graph` shown: what the panel
 * shows again, as it was, while a step's analysis is made (onyx-properties-model.c). */
void
onyx_properties_tag_model_page (OnyxProperties *self, OnyxDocument *doc, Onnx__GraphProto *graph)
{
  g_object_set_data (G_OBJECT (self->building), "onyx-model-page-document", doc);
  g_object_set_data (G_OBJECT (self->building), "onyx-model-page-graph", graph);
}

static gboolean
is_model_page (GtkWidget *page, OnyxDocument *doc, Onnx__GraphProto *graph)
{
  return page != NULL && g_object_get_data (G_OBJECT (page), "onyx-model-page-document") == doc &&
         g_object_get_data (G_OBJECT (page), "onyx-model-page-graph") == graph;
}

/* Shows the model's page already built (shown, or kept hidden), as it was; FALSE when
 * there is none. */
static gboolean
show_built_model_page (OnyxProperties *self, OnyxDocument *doc, Onnx__GraphProto *graph)
{
  GtkWidget *kept = self->kept;

  if (is_model_page (self->page, doc, graph))
    return TRUE;
  if (!is_model_page (kept, doc, graph))
    return FALSE;
  gtk_widget_set_visible (self->kept = self->page, FALSE);
  gtk_widget_set_visible (self->page = kept, TRUE);
  return TRUE;
}

GtkWidget *
onyx_properties_add_group (OnyxProperties *self, const char *title)
{
  GtkWidget *group = adw_preferences_group_new ();

  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), title);
  gtk_box_append (GTK_BOX (self->building), group);
  return group;
}

/* A read-only "key: value" row; the value is escaped and selectable. */
static GtkWidget *
new_row (const char *title, const char *value)
{
  g_autofree char *escaped = g_markup_escape_text (value != NULL ? value : "", -1);
  GtkWidget *row = onyx_spare_rows_take ();

  if (row == NULL)
    {
      row = adw_action_row_new ();
      adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 12);
      gtk_widget_add_css_class (row, "property");
      onyx_row_layout_stack_labels (row);
      onyx_spare_rows_mark (row);
    }
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), escaped);
  return row;
}

GtkWidget *
onyx_properties_add_row (GtkWidget *group, const char *title, const char *value)
{
  GtkWidget *row = new_row (title, value);

  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
  return row;
}

GtkWidget *
onyx_properties_new_link_row (const char *title, const char *value, const char *action, GVariant *target)
{
  GtkWidget *row = new_row (title, value);

  gtk_actionable_set_action_target_value (GTK_ACTIONABLE (row), target);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (row), action);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), gtk_image_new_from_icon_name ("go-next-symbolic"));
  return row;
}

GtkWidget *
onyx_properties_add_link_row (GtkWidget *group, const char *title, const char *value,
              const char *action, GVariant *target)
{
  GtkWidget *row = onyx_properties_new_link_row (title, value, action, target);

  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
  return row;
}

/* A sample group of rows laid out off screen while the window waits for a file (once
 * a process: fonts and styles are shared): the first page finds them loaded. */
static gboolean
warm_up_cb (gpointer data)
{
  OnyxProperties *self = data;
  GtkWidget *group = g_object_ref_sink (adw_preferences_group_new ());
  GVariant *target = g_variant_new_string ("");
  int minimum, natural;

  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), "Model");
  onyx_properties_add_row (group, "Operator", "com.microsoft::GroupQueryAttention · float32[1×32×128] (inferred)");
  onyx_properties_add_link_row (group, "Input 0", "/model/layers.0/attn/MatMul_output_0", "graph.select-tensor", target);
  gtk_widget_measure (group, GTK_ORIENTATION_VERTICAL, MAX (gtk_widget_get_width (GTK_WIDGET (self)), 300),
                      &minimum, &natural, NULL, NULL);
  g_object_unref (group);
  return G_SOURCE_REMOVE;
}

/* Takes `owned_value`. A field with nothing in it (a Paddle model's producer, a
 * scalar's dimensions) is left out rather than shown blank. */
void
onyx_properties_add_text_row (GtkWidget *group, const char *title, char *owned_value)
{
  if (owned_value != NULL && owned_value[0] != '\0')
    onyx_properties_add_row (group, title, owned_value);
  g_free (owned_value);
}

/* A metadata entry shows even when its value is empty: its key is news. */
void
onyx_properties_add_metadata_row (GtkWidget *group, const char *key, char *owned_value)
{
  onyx_properties_add_row (group, key, owned_value);
  g_free (owned_value);
}

/* A button at the end of a row, activating `action`. */
void
onyx_properties_add_suffix_button (GtkWidget *row, const char *mnemonic, const char *tooltip, const char *action)
{
  GtkWidget *button = gtk_button_new_with_mnemonic (mnemonic);

  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), action);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
}

static void
add_button (GtkWidget *box, const char *label, const char *action, GVariant *target,
            gboolean destructive)
{
  GtkWidget *button = gtk_button_new_with_mnemonic (label);

  if (target != NULL)
    gtk_actionable_set_action_target_value (GTK_ACTIONABLE (button), target);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), action);
  if (destructive)
    gtk_widget_add_css_class (button, "destructive-action");
  gtk_box_append (GTK_BOX (box), button);
}

/* An editable row whose apply button activates `action` with its target and the new
 * text (onyx_activate_edit_action). */
static void
entry_applied_cb (AdwEntryRow *row, gpointer data)
{
  const char *action = g_object_get_data (G_OBJECT (row), "action");
  GVariant *target = g_object_get_data (G_OBJECT (row), "target");

  onyx_activate_edit_action (GTK_WIDGET (row), action, target, gtk_editable_get_text (GTK_EDITABLE (row)));
}

/* `target` (NULL, or taken if floating) says what the row edits, typed as `action`
 * wants it. */
static void
add_entry_row (GtkWidget *group, const char *title, const char *text,
               const char *action, GVariant *target)
{
  GtkWidget *row = adw_entry_row_new ();

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_editable_set_text (GTK_EDITABLE (row), text);
  adw_entry_row_set_show_apply_button (ADW_ENTRY_ROW (row), TRUE);
  g_object_set_data_full (G_OBJECT (row), "action", g_strdup (action), g_free);
  if (target != NULL)
    g_object_set_data_full (G_OBJECT (row), "target", g_variant_ref_sink (target),
                            (GDestroyNotify) g_variant_unref);
  g_signal_connect (row, "apply", G_CALLBACK (entry_applied_cb), NULL);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
}

char *
onyx_properties_format_count (guint64 n)
{
  return onyx_format_count_grouped (n, ONYX_COUNT_LOCALIZED);
}

/* A message's metadata_props as rows, each value escaped as the file has it; the
 * entries a node's Module section is made of are left out when it has one. */
void
onyx_properties_add_metadata_group (OnyxProperties *self, const char *title, const ProtobufCMessage *message,
                    gboolean skip_module)
{
  g_autoptr (GPtrArray) entries = onyx_metadata_get (message);
  GtkWidget *group = NULL;

  for (guint i = 0; i < entries->len; i++)
    {
      const OnyxMetadataEntry *entry = entries->pdata[i];
      g_autofree char *key = NULL;
      if (skip_module && onyx_metadata_key_is_module (entry->key))
        continue;
      if (group == NULL)
        group = onyx_properties_add_group (self, title);
      key = onyx_display_escape (entry->key);
      onyx_properties_add_metadata_row (group, key, onyx_display_escape (entry->value));
    }
}

/* On a node's output row: a new node reading that output. */
static GtkWidget *
insert_after_button (const char *tensor)
{
  GtkWidget *button = gtk_button_new_from_icon_name ("list-add-symbolic");

  gtk_widget_set_tooltip_text (button, _("Insert Node After…"));
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (button, "flat");
  gtk_actionable_set_action_target_value (GTK_ACTIONABLE (button), g_variant_new_string (tensor));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "edit.insert-node-after");
  return button;
}

static Onnx__ValueInfoProto *
value_info_named (Onnx__GraphProto *graph, const char *name)
{
  for (size_t i = 0; i < graph->n_value_info; i++)
    if (g_strcmp0 (graph->value_info[i]->name, name) == 0)
      return graph->value_info[i];
  return NULL;
}

/* The type `graph` itself gives `name` (input, output, value_info), or NULL. */
static const Onnx__TypeProto *
recorded_type (OnyxDocument *doc, Onnx__GraphProto *graph, const char *name)
{
  OnyxGraphIndex *index = onyx_document_get_graph_index (doc, graph);
  const Onnx__ValueInfoProto *info = onyx_graph_index_graph_input (index, name);

  if (info == NULL)
    info = onyx_graph_index_graph_output (index, name);
  if (info == NULL)
    info = value_info_named (graph, name);
  return info != NULL ? info->type : NULL;
}

/* "float32[N×16×63×63]" as ONNX's shape inference knows it, marked when the file
 * does not record it; NULL when nothing is known. Right after an edit the shapes
 * are still being made (with the layout): the recorded type meanwhile, else "…". */
static char *
tensor_type_text (OnyxDocument *doc, Onnx__GraphProto *graph, const char *name)
{
  OnyxShapes *shapes = onyx_document_peek_shapes (doc);
  gboolean recorded = TRUE;
  const Onnx__TypeProto *type = shapes != NULL ? onyx_shapes_lookup (shapes, graph, name, &recorded)
                                               : recorded_type (doc, graph, name);
  g_autofree char *text = type != NULL ? onyx_type_to_string (type) : NULL;

  if (shapes == NULL && text == NULL)
    return g_strdup ("…");

  if (text == NULL)
    return NULL;
  /* Translators: a tensor's type that Onyx worked out, as opposed to one the file states. */
  return recorded ? g_steal_pointer (&text) : g_strdup_printf (_("%s (inferred)"), text);
}

static GtkWidget *
add_tensor_link (GtkWidget *group, OnyxDocument *doc, Onnx__GraphProto *graph, const char *label,
                 const char *name)
{
  g_autofree char *escaped = onyx_display_escape (name);
  g_autofree char *title = g_strdup_printf ("%s: %s", label, escaped);
  g_autofree char *type = NULL;

  if (name == NULL || name[0] == '\0')
    return onyx_properties_add_row (group, label, _("(not connected)"));
  type = tensor_type_text (doc, graph, name);
  return onyx_properties_add_link_row (group, title, type != NULL ? type : "", "graph.select-tensor", g_variant_new_string (name));
}

/* The node's problems, first in the panel: they are why people look at it. */
static void
add_problem_rows (OnyxProperties *self, Onnx__NodeProto *node)
{
  GPtrArray *problems = self->problems ? onyx_problem_list_get (self->problems) : NULL;
  GtkWidget *group = NULL;

  for (guint i = 0; problems != NULL && i < problems->len; i++)
    {
      const OnyxProblem *p = g_ptr_array_index (problems, i);
      GtkWidget *row, *icon;
      if (p->node_proto != node)
        continue;
      if (group == NULL)
        group = onyx_properties_add_group (self, _("Problems"));
      row = onyx_properties_add_row (group, onyx_problem_severity_label (p->severity), p->message);
      icon = gtk_image_new_from_icon_name (onyx_problem_severity_icon (p->severity));
      gtk_widget_add_css_class (icon, onyx_problem_severity_class (p->severity));
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), icon);
    }
}

/* What the operator is by the ONNX schema in force at the model's opset. */
static const OnyxSchema *
add_schema_rows (GtkWidget *group, OnyxDocument *doc, Onnx__NodeProto *node)
{
  Onnx__ModelProto *model = onyx_document_get_proto (doc);
  const OnyxSchema *schema = onyx_schema_for_node (node, model->opset_import, model->n_opset_import);
  g_autofree char *url = NULL;
  GtkWidget *link;

  if (schema != NULL && onyx_schema_is_onnxruntime (schema))
    onyx_properties_add_row (group, _("Schema"), _("An operator of ONNX Runtime: the model runs on ONNX Runtime"));
  else if (onyx_domain_is_onnxruntime (node->domain))
    {
      onyx_properties_add_row (group, _("Schema"), _("Not in ONNX Runtime’s documentation: an operator of another "
                                     "ONNX Runtime, or a custom one"));
      return NULL;
    }
  else if (!onyx_domain_is_standard (node->domain))
    {
      onyx_properties_add_row (group, _("Schema"), _("Custom operator: no ONNX schema describes it; "
                                     "standard runtimes need its implementation"));
      return NULL;
    }
  if (schema == NULL && onyx_opset_version (model->opset_import, model->n_opset_import, node->domain) >
                            onyx_schema_domain_version (node->domain))
    onyx_properties_add_text_row (group, _("Schema"),
                  /* Translators: the version of the ONNX library Onyx was built with */
                  g_strdup_printf (_("This model’s opset is newer than ONNX %s knows: see the "
                                     "documentation"), onyx_schema_onnx_version ()));
  else if (schema == NULL || schema->deprecated)
    onyx_properties_add_row (group, _("Schema"), _("Not defined at this model’s opset"));
  else
    {
      if (schema->doc != NULL && schema->doc[0] != '\0')
        onyx_properties_add_row (group, _("Summary"), schema->doc);
      onyx_properties_add_text_row (group, _("Version"), g_strdup_printf (_("Since opset %d"), schema->since_version));
    }
  url = onyx_schema_docs_url (node->domain, node->op_type);
  if (url != NULL)
    {
      g_autofree char *label = g_strdup_printf (schema != NULL && onyx_schema_is_onnxruntime (schema)
                                                  ? _("%s in ONNX Runtime’s Documentation")
                                                  : _("%s in the ONNX Documentation"),
                                                node->op_type);
      link = gtk_link_button_new_with_label (url, label);
      gtk_widget_set_halign (link, GTK_ALIGN_START);
      gtk_widget_add_css_class (link, "onyx-docs-link");
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), link);
    }
  return schema != NULL && !schema->deprecated ? schema : NULL;
}

/* Attributes the node leaves out run with the schema's default: shown dimmed. */
static void
add_default_rows (GtkWidget **group, OnyxProperties *self, const OnyxSchema *schema,
                  Onnx__NodeProto *node)
{
  g_autoptr (GPtrArray) defaults = schema ? onyx_schema_omitted_defaults (schema, node) : NULL;

  for (guint i = 0; defaults != NULL && i < defaults->len; i++)
    {
      const OnyxSchemaAttribute *a = g_ptr_array_index (defaults, i);
      g_autofree char *value = onyx_schema_attribute_default_text (a);
      g_autofree char *text = g_strdup_printf (_("%s (default)"), value ? value : "");
      GtkWidget *row;
      if (*group == NULL)
        *group = onyx_properties_add_group (self, _("Attributes"));
      row = onyx_properties_add_row (*group, a->name, text);
      gtk_widget_add_css_class (row, "dim-label");
      gtk_widget_add_css_class (row, "default-attribute");
    }
}

/* GRAPH and GRAPHS attributes: a row per graph that opens it ("graph.open-graph"). */
static void
add_graph_rows (GtkWidget *group, OnyxGraphList *graphs, const Onnx__AttributeProto *attr)
{
  g_autofree char *name = onyx_display_escape (attr->name);

  for (size_t g = 0; g < (attr->g != NULL ? 1 : attr->n_graphs); g++)
    {
      Onnx__GraphProto *graph = attr->g != NULL ? attr->g : attr->graphs[g];
      const OnyxGraphEntry *entry = onyx_graph_list_lookup (graphs, graph);
      g_autofree char *title = attr->g != NULL ? g_strdup (name) : g_strdup_printf ("%s[%zu]", name, g);
      g_autofree char *value = g_strdup_printf (ngettext ("graph of %zu node — open",
                                                          "graph of %zu nodes — open", graph->n_node),
                                                graph->n_node);
      if (entry != NULL)
        onyx_properties_add_link_row (group, title, value, "graph.open-graph", g_variant_new_string (entry->name));
    }
}

/* "train.py:96 in forward" over its code line, in monospace. */
static GtkWidget *
add_frame_row (GtkWidget *group, const char *title, const OnyxSourceFrame *frame)
{
  g_autofree char *location = onyx_source_frame_location (frame);
  g_autofree char *shown = onyx_display_escape (location);
  g_autofree char *where = g_markup_escape_text (shown, -1);
  g_autofree char *code = frame->code != NULL ? onyx_display_escape (frame->code) : NULL;
  g_autofree char *code_markup = code != NULL ? g_markup_printf_escaped ("\n<tt>%s</tt>", code) : NULL;
  g_autofree char *markup = g_strconcat (where, code_markup, NULL);
  g_autofree char *file = onyx_display_escape (frame->file);
  GtkWidget *row = onyx_properties_add_row (group, title, NULL);

  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), markup);
  /* The whole path: the row shows the file's name only. */
  gtk_widget_set_tooltip_text (row, file);
  return row;
}

/* Where the dynamo exporter says the node comes from: its module, the classes down
 * to it, and the user's line of code that made it. */
static gboolean
add_module_rows (OnyxProperties *self, Onnx__NodeProto *node)
{
  g_autoptr (OnyxModuleInfo) info = onyx_module_info_new_for_node (node, TRUE);
  GtkWidget *group;
  guint depth;

  if (info == NULL)
    return FALSE;
  /* Translators: the PyTorch module (nn.Module) a node was exported from. */
  group = onyx_properties_add_group (self, _("PyTorch Module"));
  depth = g_strv_length (info->path);
  if (depth > 0)
    {
      g_autofree char *label = onyx_module_info_label (info, depth - 1);
      g_autofree char *path = g_strjoinv (" › ", info->path);
      onyx_properties_add_text_row (group, _("Module"), onyx_display_escape (label));
      onyx_properties_add_text_row (group, _("Path"), onyx_display_escape (path));
    }
  else if (info->op != NULL)
    onyx_properties_add_row (group, _("Module"), _("the model itself (top level)"));
  if (info->root_class != NULL || info->classes != NULL || info->op_class != NULL)
    {
      g_autofree char *chain = onyx_module_info_class_chain (info);
      onyx_properties_add_text_row (group, _("Classes"), onyx_display_escape (chain));
    }
  for (guint i = 0; i < info->frames->len; i++)
    {
      const OnyxSourceFrame *frame = info->frames->pdata[i];
      /* Translators: the source line that made the node, then the other calls of the
       * Python stack it was made in. */
      add_frame_row (group, i == 0 ? _("Source") : _("Stack"), frame);
    }
  return TRUE;
}

void
onyx_properties_show_node (OnyxProperties *self, OnyxDocument *doc, Onnx__GraphProto *graph,
                           Onnx__NodeProto *node)
{
  const OnyxSchema *schema;
  GtkWidget *attributes = NULL;
  GtkWidget *group, *box;
  const char *domain = node->domain != NULL && node->domain[0] ? node->domain : "ai.onnx";
  gboolean has_module;

  onyx_properties_begin_page (self);
  group = onyx_properties_add_group (self, _("Node"));
  onyx_properties_add_text_row (group, _("Operator"), onyx_display_escape (node->op_type));
  onyx_properties_add_text_row (group, _("Domain"), g_strdup_printf ("%s (%s)", domain,
                onyx_domain_is_standard (node->domain) ? _("standard ONNX")
                : onyx_domain_is_onnxruntime (node->domain) ? _("ONNX Runtime’s") : _("custom")));
  add_entry_row (group, _("Name"), node->name != NULL ? node->name : "", "edit.rename-node", NULL);
  if (node->doc_string != NULL && node->doc_string[0] != '\0')
    onyx_properties_add_text_row (group, _("Description"), onyx_display_escape (node->doc_string));
  schema = add_schema_rows (group, doc, node);
  add_problem_rows (self, node);
  onyx_properties_add_profile_group (self, doc, node);
  onyx_properties_add_quant_node_group (self, doc, node);
  has_module = add_module_rows (self, node);

  box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_margin_top (box, 6);
  add_button (box, _("_Bypass"), "edit.bypass-node", NULL, FALSE);
  add_button (box, _("_Delete"), "edit.delete-node", NULL, TRUE);
  add_button (box, _("Delete with _Descendants"), "edit.delete-descendants", NULL, TRUE);
  gtk_box_append (GTK_BOX (self->building), box);
  box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  add_button (box, _("R_eplace Operator…"), "edit.replace-operator", NULL, FALSE);
  add_button (box, _("E_xtract to New Model…"), "edit.extract-model", NULL, FALSE);
  gtk_box_append (GTK_BOX (self->building), box);

  if (node->n_attribute > 0)
    {
      /* Names of the graphs the node holds, made once and only if it holds any. */
      g_autoptr (OnyxGraphList) graphs = NULL;
      group = attributes = onyx_properties_add_group (self, _("Attributes"));
      for (size_t i = 0; i < node->n_attribute; i++)
        {
          Onnx__AttributeProto *a = node->attribute[i];
          g_autofree char *value = onyx_attribute_to_string (a);
          g_autofree char *name = onyx_display_escape (a->name);
          if (onyx_attribute_type_is_text (a->type))
            add_entry_row (group, name, value, "edit.set-attribute", g_variant_new_string (a->name));
          else if (a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH ||
                   a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS)
            {
              if (graphs == NULL)
                graphs = onyx_graph_list_new (onyx_document_get_proto (doc));
              add_graph_rows (group, graphs, a);
            }
          else
            onyx_properties_add_row (group, name, value);
        }
    }
  add_default_rows (&attributes, self, schema, node);
  onyx_properties_add_metadata_group (self, _("Metadata"), &node->base, has_module);

  group = onyx_properties_add_group (self, _("Inputs"));
  for (size_t i = 0; i < node->n_input; i++)
    {
      /* The schema's name for the slot (Conv's X, W, B), else its position. */
      g_autofree char *slot = schema ? onyx_schema_input_name (schema, i) : NULL;
      g_autofree char *label = slot ? g_strdup (slot) : g_strdup_printf (_("Input %zu"), i);
      GtkWidget *row = add_tensor_link (group, doc, graph, label, node->input[i]);
      /* Any input, an unconnected optional one too, can read any tensor of the graph. */
      adw_action_row_add_suffix (ADW_ACTION_ROW (row),
                                 onyx_tensor_picker_button_new_in (doc, graph, node->input[i], "edit.reconnect-input",
                                                                   g_variant_new_uint32 ((guint32) i)));
    }
  group = onyx_properties_add_group (self, _("Outputs"));
  for (size_t i = 0; i < node->n_output; i++)
    {
      g_autofree char *slot = schema ? onyx_schema_output_name (schema, i) : NULL;
      g_autofree char *label = slot ? g_strdup (slot) : g_strdup_printf (_("Output %zu"), i);
      GtkWidget *row = add_tensor_link (group, doc, graph, label, node->output[i]);
      if (node->output[i] != NULL && node->output[i][0] != '\0')
        adw_action_row_add_suffix (ADW_ACTION_ROW (row), insert_after_button (node->output[i]));
    }
  onyx_properties_present_page (self);
}

static void
add_type_row (GtkWidget *group, OnyxDocument *doc, Onnx__GraphProto *graph, const char *name)
{
  g_autofree char *type = tensor_type_text (doc, graph, name);
  if (type != NULL)
    onyx_properties_add_row (group, _("Type"), type);
}

static void
add_initializer_rows (OnyxProperties *self, OnyxDocument *doc, Onnx__TensorProto *tensor)
{
  GtkWidget *group = onyx_properties_add_group (self, _("Initializer"));
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxTensorValues) values = NULL;
  guint64 n_elements = 0, n_bytes = 0;

  onyx_properties_add_row (group, _("Element type"), onyx_elem_type_name (tensor->data_type));
  onyx_properties_add_text_row (group, _("Dimensions"), onyx_dims_to_string (tensor->dims, tensor->n_dims));
  if (onyx_dims_n_elements (tensor->dims, tensor->n_dims, &n_elements))
    onyx_properties_add_text_row (group, _("Elements"), onyx_properties_format_count (n_elements));
  if (onyx_tensor_n_bytes (tensor, &n_bytes))
    onyx_properties_add_text_row (group, _("Size"), g_format_size (n_bytes));

  values = onyx_tensor_values_read (tensor, onyx_model_get_base_dir (onyx_document_get_model (doc)),
                                    MAX_VALUES, &error);
  if (values == NULL)
    {
      onyx_properties_add_row (group, _("Values"), error->message);
      return;
    }
  if (values->has_stats)
    {
      onyx_properties_add_text_row (group, _("Minimum"), g_strdup_printf ("%g", values->min));
      onyx_properties_add_text_row (group, _("Maximum"), g_strdup_printf ("%g", values->max));
      onyx_properties_add_text_row (group, _("Mean"), g_strdup_printf ("%g", values->mean));
    }
  onyx_properties_add_text_row (group, values->n_values < values->n_elements ? _("First values") : _("Values"),
                onyx_tensor_values_format (values, MAX_VALUES));
}

void
onyx_properties_show_tensor (OnyxProperties *self, OnyxDocument *doc, Onnx__GraphProto *graph_shown,
                             const char *name)
{
  OnyxGraphIndex *index = onyx_document_get_graph_index (doc, graph_shown);
  Onnx__ValueInfoProto *input = onyx_graph_index_graph_input (index, name);
  Onnx__ValueInfoProto *output = onyx_graph_index_graph_output (index, name);
  Onnx__TensorProto *init = onyx_graph_index_initializer (index, name);
  OnyxValue *value = onyx_graph_index_lookup (index, name);
  Onnx__GraphProto *graph = onyx_graph_index_get_graph (index);
  GtkWidget *group, *box;

  onyx_properties_begin_page (self);
  group = onyx_properties_add_group (self, input != NULL && init == NULL ? _("Graph Input")
                           : output != NULL ? _("Graph Output") : _("Tensor"));
  add_entry_row (group, _("Name"), name, "edit.rename-tensor", g_variant_new_string (name));

  if (input != NULL)
    {
      Onnx__TypeProto *t = input->type;
      add_type_row (group, doc, graph, name);
      if (init == NULL && t != NULL && t->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
          t->tensor_type->shape != NULL)
        {
          Onnx__TensorShapeProto *shape = t->tensor_type->shape;
          for (size_t i = 0; i < shape->n_dim; i++)
            {
              Onnx__TensorShapeProto__Dimension *d = shape->dim[i];
              g_autofree char *title = g_strdup_printf (_("Dimension %zu"), i);
              g_autofree char *text =
                d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE
                  ? g_strdup_printf ("%" G_GINT64_FORMAT, d->dim_value)
                  : g_strdup (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM
                              ? d->dim_param : "?");
              add_entry_row (group, title, text, "edit.set-input-dim", g_variant_new ("(su)", name, (guint32) i));
            }
        }
    }
  else if (init == NULL)
    add_type_row (group, doc, graph, name);
  /* Quantization is read in the main graph only. */
  if (graph == onyx_document_get_proto (doc)->graph)
    onyx_properties_add_quant_tensor_rows (group, doc, name);

  if (value != NULL && value->producer != NULL)
    {
      g_autofree char *who = onyx_node_describe (doc, value->producer);
      gssize pos = onyx_graph_index_node_position (index, value->producer);
      onyx_properties_add_link_row (group, _("Produced by"), who, "graph.select-node", g_variant_new_int32 (pos));
    }
  else if (input == NULL && init == NULL && onyx_document_graph_owner (doc, graph) != NULL)
    onyx_properties_add_row (group, _("Produced by"), _("a graph around this one (read from outside)"));
  if (value != NULL)
    for (guint i = 0; i < value->uses->len; i++)
      {
        OnyxUse *use = &g_array_index (value->uses, OnyxUse, i);
        g_autofree char *who = onyx_node_describe (doc, use->node);
        gssize pos = onyx_graph_index_node_position (index, use->node);
        onyx_properties_add_link_row (group, _("Used by"), who, "graph.select-node", g_variant_new_int32 (pos));
      }

  box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  if (output != NULL)
    add_button (box, _("_Remove from Graph Outputs"), "edit.remove-output",
                g_variant_new_string (name), TRUE);
  else if (value != NULL && value->producer != NULL)
    add_button (box, _("_Add as Graph Output"), "edit.add-output", g_variant_new_string (name), FALSE);
  add_button (box, _("_Insert Node After…"), "edit.insert-node-after", g_variant_new_string (name), FALSE);
  add_button (box, _("E_xtract to New Model…"), "edit.extract-model", NULL, FALSE);
  gtk_box_append (GTK_BOX (self->building), box);

  if (init != NULL)
    add_initializer_rows (self, doc, init);
  if (input != NULL || output != NULL || (input = value_info_named (graph, name)) != NULL)
    onyx_properties_add_metadata_group (self, _("Metadata"), &(input != NULL ? input : output)->base, FALSE);
  onyx_properties_present_page (self);
}

/* ---- What the panel shows: the view state's selection ---- */

static void
refresh (OnyxProperties *self)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  Onnx__GraphProto *graph = onyx_view_state_get_graph (self->state);

  self->problems = onyx_view_state_get_problems (self->state);
  if (document == NULL)
    {
      onyx_properties_clear (self);
      return;
    }
  switch (onyx_view_state_get_selection (self->state))
    {
    case ONYX_SELECTION_NODE:
      onyx_properties_show_node (self, document, graph, onyx_view_state_get_selected_node (self->state));
      break;
    case ONYX_SELECTION_TENSOR:
      onyx_properties_show_tensor (self, document, graph, onyx_view_state_get_selected_tensor (self->state));
      break;
    default:
      onyx_properties_show_model (self, document, graph);
    }
}

static void
document_changed_cb (OnyxProperties *self)
{
  /* A model opened is shown once it settled (after its first layout started). */
  if (onyx_view_state_get_document (self->state) == NULL)
    refresh (self);
}

/* Whether the model's page waits for the step's analysis, which makes its counts and
 * quantization: made once, when it comes (made twice a step, an int4 LLM's page took
 * its step over 33 ms). Meanwhile the page as it was shows. */
static gboolean
model_page_waits (OnyxProperties *self)
{
  return onyx_view_state_get_selection (self->state) == ONYX_SELECTION_MODEL &&
         onyx_view_state_get_document (self->state) != NULL && onyx_view_state_is_analysing (self->state);
}

static void
selection_changed_cb (OnyxProperties *self)
{
  if (!model_page_waits (self) ||
      !show_built_model_page (self, onyx_view_state_get_document (self->state), onyx_view_state_get_graph (self->state)))
    refresh (self);
}

static void
settled_cb (OnyxProperties *self)
{
  if (!model_page_waits (self))
    refresh (self);
}

void
onyx_properties_set_state (OnyxProperties *self, OnyxViewState *state)
{
  static gboolean warmed_up;

  g_return_if_fail (ONYX_IS_PROPERTIES (self) && self->state == NULL);
  self->state = g_object_ref (state);
  g_signal_connect_object (state, "notify::selection", G_CALLBACK (selection_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "notify::document", G_CALLBACK (document_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "settled", G_CALLBACK (settled_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "analysed", G_CALLBACK (refresh), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "profile-changed", G_CALLBACK (refresh), self, G_CONNECT_SWAPPED);
  if (!warmed_up)
    g_idle_add_full (G_PRIORITY_LOW, warm_up_cb, g_object_ref (self), g_object_unref);
  warmed_up = TRUE;
}

static void
onyx_properties_dispose (GObject *object)
{
  OnyxProperties *self = ONYX_PROPERTIES (object);

  if (!self->disposed)
    onyx_spare_rows_release ();
  self->disposed = TRUE;
  g_clear_handle_id (&self->drop_retired, g_source_remove);
  g_clear_pointer (&self->retired, g_ptr_array_unref);

  self->problems = NULL;
  g_clear_object (&self->state);
  G_OBJECT_CLASS (onyx_properties_parent_class)->dispose (object);
}

static void
onyx_properties_class_init (OnyxPropertiesClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = onyx_properties_dispose;
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "onyxproperties");
}

static void
onyx_properties_init (OnyxProperties *self)
{
  onyx_spare_rows_hold ();
  self->retired = g_ptr_array_new_with_free_func (g_object_unref);
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  gtk_box_set_spacing (GTK_BOX (self), 18);
  gtk_widget_set_margin_start (GTK_WIDGET (self), 12);
  gtk_widget_set_margin_end (GTK_WIDGET (self), 12);
  gtk_widget_set_margin_top (GTK_WIDGET (self), 12);
  gtk_widget_set_margin_bottom (GTK_WIDGET (self), 12);
}
