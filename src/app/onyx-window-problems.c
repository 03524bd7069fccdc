/* onyx-window-problems.c: the open model's problems (onyx-diagnose.h) in a pane
 * under the graph, as dots on the canvas and as a count in the header bar.
 *
 * The problems follow every edit, undo and redo incrementally: OnyxProblemList
 * re-checks what each step of the document says it touched (OnyxChange). */
#include "onyx-window-private.h"

#include <glib/gi18n.h>

/* The problems: what only this file touches. */
struct _OnyxWindowProblems {
  GtkRevealer *revealer;
  OnyxProblemsPane *pane;
  GtkToggleButton *button;        /* in the header bar, with the icon and count */
  GtkImage *icon;
  GtkLabel *count;
  OnyxProblemList *diagnostics;   /* of the document, or NULL */
};

static void
update_count (OnyxWindow *self)
{
  GPtrArray *problems = self->problems->diagnostics ? onyx_problem_list_get (self->problems->diagnostics) : NULL;
  guint errors = problems ? onyx_problems_count (problems, ONYX_PROBLEM_ERROR) : 0;
  guint warnings = problems ? onyx_problems_count (problems, ONYX_PROBLEM_WARNING) : 0;
  g_autofree char *count = g_strdup_printf ("%u", errors + warnings);
  g_autofree char *tip = NULL;
  GtkWidget *box = gtk_widget_get_parent (GTK_WIDGET (self->problems->count));

  gtk_label_set_text (self->problems->count, count);
  gtk_widget_remove_css_class (box, "error");
  gtk_widget_remove_css_class (box, "warning");
  if (errors + warnings > 0)
    gtk_widget_add_css_class (box, errors > 0 ? "error" : "warning");
  gtk_image_set_from_icon_name (self->problems->icon, errors > 0 ? "dialog-error-symbolic"
                                : warnings > 0 ? "dialog-warning-symbolic" : "emblem-ok-symbolic");
  {
    g_autofree char *e = g_strdup_printf (ngettext ("%u error", "%u errors", errors), errors);
    g_autofree char *w = g_strdup_printf (ngettext ("%u warning", "%u warnings", warnings), warnings);
    /* Translators: the header bar's problems button: "Problems: 1 error, 2 warnings". */
    tip = g_strdup_printf (_("Problems: %s, %s"), e, w);
  }
  /* Set only when it changes: each setting asks the X server where the pointer is. */
  if (g_strcmp0 (gtk_widget_get_tooltip_text (GTK_WIDGET (self->problems->button)), tip) != 0)
    gtk_widget_set_tooltip_text (GTK_WIDGET (self->problems->button), tip);
}

static void
refresh (OnyxWindow *self)
{
  onyx_problems_pane_set_problems (self->problems->pane, self->problems->diagnostics
                                   ? onyx_problem_list_get (self->problems->diagnostics) : NULL);
  update_count (self);
}

void
onyx_window_problems_refresh (OnyxWindow *self)
{
  if (self->problems->diagnostics != NULL)
    refresh (self);
}

void
onyx_window_problems_attach (OnyxWindow *self, OnyxProblemList *diagnostics)
{
  g_return_if_fail (self->document != NULL && self->problems->diagnostics == NULL);
  self->problems->diagnostics = diagnostics != NULL ? diagnostics : onyx_problem_list_new (self->document);
  /* After an edit, shapes and validation are made in the layout's thread
   * (onyx-layout-session.h). */
  onyx_problem_list_set_whole_model_later (self->problems->diagnostics, TRUE);
  onyx_properties_set_diagnostics (self->properties, self->problems->diagnostics);
  refresh (self);
  /* (when the first layout came before them) */
  onyx_window_problems_update_badges (self);
}

void
onyx_window_problems_snapshot_ready (OnyxWindow *self)
{
  if (self->problems->diagnostics == NULL)
    return;
  onyx_problem_list_update_whole_model (self->problems->diagnostics);
  refresh (self);
  onyx_window_problems_update_badges (self);
}

void
onyx_window_problems_detach (OnyxWindow *self)
{
  if (self->problems->diagnostics == NULL)
    return;
  onyx_properties_set_diagnostics (self->properties, NULL);
  g_clear_pointer (&self->problems->diagnostics, onyx_problem_list_free);
  refresh (self);
}

static void
mark (guint8 *badges, int box, OnyxProblemSeverity severity)
{
  guint8 badge = severity == ONYX_PROBLEM_ERROR ? ONYX_CANVAS_BADGE_ERROR : ONYX_CANVAS_BADGE_WARNING;

  /* Information gets no dot: a graph full of them would hide the ones that matter. */
  if (box >= 0 && severity != ONYX_PROBLEM_INFO)
    badges[box] = MAX (badges[box], badge);
}

void
onyx_window_problems_update_badges (OnyxWindow *self)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (self->canvas);
  OnyxLayoutEngine *engine = onyx_layout_session_get_engine (self->layout);
  g_autofree int *box_of = NULL;         /* per node of the graph shown */
  g_autofree guint8 *badges = NULL;
  Onnx__GraphProto *graph;
  OnyxGraphIndex *index;
  GPtrArray *problems;

  if (self->problems->diagnostics == NULL || layout == NULL || engine == NULL)
    return;
  graph = onyx_window_get_graph (self);
  index = onyx_window_get_graph_index (self);
  problems = onyx_problem_list_get (self->problems->diagnostics);
  box_of = onyx_layout_boxes_of_nodes (layout, engine);
  badges = g_new0 (guint8, MAX (layout->nodes->len, 1));

  for (guint p = 0; p < problems->len; p++)
    {
      const OnyxProblem *problem = g_ptr_array_index (problems, p);
      /* A problem inside a subgraph marks the node holding it in the graph shown. */
      Onnx__NodeProto *shown = problem->node_proto != NULL
                                 ? onyx_window_node_in_view (self, problem->node_proto) : NULL;
      gssize pos = shown != NULL ? onyx_graph_index_node_position (index, shown) : -1;

      if (pos >= 0 && (size_t) pos < graph->n_node)
        mark (badges, box_of[pos], problem->severity);
      else if (problem->node_proto == NULL && problem->tensor != NULL &&
               problem->graph_proto == graph)
        /* Graph inputs and outputs are boxes of their own. */
        for (guint i = 0; i < layout->nodes->len; i++)
          {
            const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
            if ((node->kind == ONYX_LAYOUT_INPUT && (size_t) node->index < graph->n_input &&
                 g_strcmp0 (graph->input[node->index]->name, problem->tensor) == 0) ||
                (node->kind == ONYX_LAYOUT_OUTPUT && (size_t) node->index < graph->n_output &&
                 g_strcmp0 (graph->output[node->index]->name, problem->tensor) == 0))
              mark (badges, i, problem->severity);
          }
    }
  onyx_canvas_set_node_badges (self->canvas, badges, layout->nodes->len);
}

static void
problem_activated_cb (OnyxWindow *self, guint i)
{
  GPtrArray *problems;
  const OnyxProblem *problem;
  OnyxGraphIndex *index;

  if (self->problems->diagnostics == NULL)
    return;
  problems = onyx_problem_list_get (self->problems->diagnostics);
  if (i >= problems->len)
    return;
  problem = g_ptr_array_index (problems, i);
  /* Nodes of subgraphs are shown in their graph; functions' are not edited, and
   * stay a text. */
  if (problem->node_proto != NULL &&
      onyx_document_contains_node (self->document, (Onnx__NodeProto *) problem->node_proto))
    {
      /* Shows its graph, opens a closed group around it and centres it. */
      onyx_window_select_node (self, (Onnx__NodeProto *) problem->node_proto);
      onyx_canvas_center_node (self->canvas, onyx_canvas_get_selected_node (self->canvas));
    }
  else if (problem->tensor != NULL && problem->graph_proto != NULL)
    {
      if (problem->graph_proto != onyx_window_get_graph (self))
        onyx_window_show_graph (self, (Onnx__GraphProto *) problem->graph_proto);
      index = onyx_window_get_graph_index (self);
      if (onyx_graph_index_defines (index, problem->tensor) ||
          onyx_graph_index_graph_output (index, problem->tensor) != NULL)
        onyx_window_select_tensor (self, problem->tensor);
    }
}

static void
show_problems_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);

  /* Without a model there is nothing to list. */
  if (!gtk_widget_get_sensitive (GTK_WIDGET (self->problems->button)))
    return;
  gtk_toggle_button_set_active (self->problems->button,
                                !gtk_toggle_button_get_active (self->problems->button));
}

void
onyx_window_class_init_problems (GtkWidgetClass *widget_class)
{
  g_type_ensure (ONYX_TYPE_PROBLEMS_PANE);
  gtk_widget_class_bind_template_child_full (widget_class, "problems_revealer", FALSE, 0);
  gtk_widget_class_bind_template_child_full (widget_class, "problems_pane", FALSE, 0);
  gtk_widget_class_bind_template_child_full (widget_class, "problems_button", FALSE, 0);
  gtk_widget_class_bind_template_child_full (widget_class, "problems_icon", FALSE, 0);
  gtk_widget_class_bind_template_child_full (widget_class, "problems_count", FALSE, 0);
  gtk_widget_class_install_action (widget_class, "win.show-problems", NULL, show_problems_action);
}

void
onyx_window_init_problems (OnyxWindow *self)
{
  self->problems = g_new0 (OnyxWindowProblems, 1);
  self->problems->revealer = GTK_REVEALER (onyx_window_template_child (self, "problems_revealer"));
  self->problems->pane = ONYX_PROBLEMS_PANE (onyx_window_template_child (self, "problems_pane"));
  self->problems->button = GTK_TOGGLE_BUTTON (onyx_window_template_child (self, "problems_button"));
  self->problems->icon = GTK_IMAGE (onyx_window_template_child (self, "problems_icon"));
  self->problems->count = GTK_LABEL (onyx_window_template_child (self, "problems_count"));
  g_object_bind_property (self->problems->button, "active", self->problems->revealer, "reveal-child",
                          G_BINDING_SYNC_CREATE);
  g_signal_connect_swapped (self->problems->pane, "problem-activated",
                            G_CALLBACK (problem_activated_cb), self);
  refresh (self);
}

void
onyx_window_problems_dispose (OnyxWindow *self)
{
  if (self->document != NULL)
    onyx_window_problems_detach (self);
}

void
onyx_window_problems_update_state (OnyxWindow *self, gboolean doc)
{
  gtk_widget_set_sensitive (GTK_WIDGET (self->problems->button), doc);
}

OnyxProblemList *
onyx_window_problems_get_diagnostics (OnyxWindow *self)
{
  return self->problems->diagnostics;
}
