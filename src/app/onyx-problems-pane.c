/* onyx-problems-pane.c: the problems as a GtkListView over a GListModel of
 * OnyxProblemRow: only the rows on screen are widgets, so a model with thousands of
 * problems lists them all. Rows keep copies of the texts and their problem's index
 * in the document's current list. The part follows the view state: the list, the
 * dots on the canvas, and the selection a row makes. */
#include "onyx-problems-pane.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <string.h>

#include "onyx-canvas.h"
#include "onyx-pane-label.h"
#include "onyx-text-family.h"

/* Problems alike but for one number (the same fault on every layer), this many and
 * more, are one row. */
#define MIN_ALIKE 3

struct _OnyxProblemsPane {
  GtkBox parent_instance;

  GtkLabel *title_label;
  GtkStack *stack;
  GtkListView *list;
  GListStore *rows;             /* OnyxProblemRow, errors first */

  OnyxViewState *state;
  GSimpleActionGroup *actions;
};

/* One problem as the list shows it, or problems alike but for a number ("…
 * /model/layers.0–79/attn/…"), made when the problems are set. */
struct _OnyxProblemRow {
  GObject parent_instance;
  guint problem;                /* the first of `members` */
  GArray *members;              /* guint: the problems' indexes in the document's list */
  guint next;                   /* the member activating the row selects next */
  OnyxProblemKind kind;
  OnyxProblemSeverity severity;
  char *message;
  char *where;                  /* "Node a · Tensor b", or NULL */
};

G_DEFINE_FINAL_TYPE (OnyxProblemRow, onyx_problem_row, G_TYPE_OBJECT)

static void
onyx_problem_row_finalize (GObject *object)
{
  OnyxProblemRow *self = ONYX_PROBLEM_ROW (object);

  g_free (self->message);
  g_free (self->where);
  g_clear_pointer (&self->members, g_array_unref);
  G_OBJECT_CLASS (onyx_problem_row_parent_class)->finalize (object);
}

static void
onyx_problem_row_class_init (OnyxProblemRowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = onyx_problem_row_finalize;
}

static void
onyx_problem_row_init (OnyxProblemRow *self)
{
}

guint
onyx_problem_row_get_problem (OnyxProblemRow *self)
{
  g_return_val_if_fail (ONYX_IS_PROBLEM_ROW (self), G_MAXUINT);
  return self->problem;
}

const char *
onyx_problem_row_get_message (OnyxProblemRow *self)
{
  g_return_val_if_fail (ONYX_IS_PROBLEM_ROW (self), NULL);
  return self->message;
}

guint
onyx_problem_row_get_n_problems (OnyxProblemRow *self)
{
  g_return_val_if_fail (ONYX_IS_PROBLEM_ROW (self), 0);
  return self->members->len;
}

G_DEFINE_FINAL_TYPE (OnyxProblemsPane, onyx_problems_pane, GTK_TYPE_BOX)

enum { PROP_0, PROP_REVEALED, N_PROPS };
static GParamSpec *props[N_PROPS];

const char *
onyx_problem_severity_icon (OnyxProblemSeverity severity)
{
  switch (severity)
    {
    case ONYX_PROBLEM_ERROR: return "dialog-error-symbolic";
    case ONYX_PROBLEM_WARNING: return "dialog-warning-symbolic";
    default: return "dialog-information-symbolic";
    }
}

const char *
onyx_problem_severity_class (OnyxProblemSeverity severity)
{
  switch (severity)
    {
    case ONYX_PROBLEM_ERROR: return "error";
    case ONYX_PROBLEM_WARNING: return "warning";
    default: return "dim-label";
    }
}

const char *
onyx_problem_severity_label (OnyxProblemSeverity severity)
{
  switch (severity)
    {
    case ONYX_PROBLEM_ERROR: return _("Error");
    case ONYX_PROBLEM_WARNING: return _("Warning");
    default: return _("Information");
    }
}

/* The node and tensor a problem concerns, and its graph when not the main one. */
static char *
problem_where (const OnyxProblem *problem)
{
  g_autoptr (GString) where = g_string_new (NULL);

  if (problem->node != NULL)
    g_string_append_printf (where, _("Node %s"), problem->node[0] ? problem->node : _("(unnamed)"));
  if (problem->tensor != NULL)
    {
      g_autofree char *tensor = g_strdup_printf (_("Tensor %s"), problem->tensor);
      g_string_append_printf (where, "%s%s", where->len ? " · " : "", tensor);
    }
  if (problem->graph != NULL && g_strcmp0 (problem->graph, "main graph") != 0)
    g_string_append_printf (where, "%s%s", where->len ? " · " : "", problem->graph);
  return where->len > 0 ? g_strdup (where->str) : NULL;
}

/* The members' places as one: their common text, or their family's ("Node
 * /model/layers.0–79/attn/GroupQueryAttention"), or NULL when they differ more. */
static char *
family_where (GPtrArray *wheres)
{
  g_autoptr (GPtrArray) families = NULL;
  gboolean same = TRUE;

  for (guint i = 1; i < wheres->len && same; i++)
    same = g_strcmp0 (wheres->pdata[0], wheres->pdata[i]) == 0;
  if (same)
    return g_strdup (wheres->pdata[0]);
  families = onyx_text_families ((const char *const *) wheres->pdata, wheres->len, wheres->len);
  return families->len == 1 ? g_strdup (((OnyxTextFamily *) families->pdata[0])->text) : NULL;
}

/* The row of a family of problems (`indexes` maps its members to the list's). */
static OnyxProblemRow *
problem_row_new (GPtrArray *problems, const OnyxTextFamily *family, const guint *indexes)
{
  OnyxProblemRow *row = g_object_new (ONYX_TYPE_PROBLEM_ROW, NULL);
  g_autoptr (GPtrArray) wheres = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *where = NULL;
  const OnyxProblem *first;

  row->members = g_array_sized_new (FALSE, FALSE, sizeof (guint), family->members->len);
  for (guint m = 0; m < family->members->len; m++)
    {
      guint index = indexes[g_array_index (family->members, guint, m)];
      g_array_append_val (row->members, index);
      g_ptr_array_add (wheres, problem_where (g_ptr_array_index (problems, index)));
    }
  row->problem = g_array_index (row->members, guint, 0);
  first = g_ptr_array_index (problems, row->problem);
  row->kind = first->kind;
  row->severity = first->severity;
  /* The family's text is the kind's name, then the message. */
  row->message = g_strdup (strchr (family->text, '\x1f') + 1);
  where = family_where (wheres);
  if (row->members->len == 1)
    row->where = g_steal_pointer (&where);
  else if (where != NULL)
    /* Translators: problems alike but for a number, "80 alike · Node /model/layers.0–79/…" */
    row->where = g_strdup_printf (ngettext ("%u alike · %s", "%u alike · %s", row->members->len),
                                  row->members->len, where);
  else
    row->where = g_strdup_printf (ngettext ("%u alike", "%u alike", row->members->len), row->members->len);
  return row;
}

/* The rows of one severity: problems alike gathered. */
static void
add_rows (GPtrArray *rows, GPtrArray *problems, OnyxProblemSeverity severity, guint *count)
{
  g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) indexes = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GPtrArray) families = NULL;

  for (guint i = 0; problems != NULL && i < problems->len; i++)
    {
      const OnyxProblem *p = g_ptr_array_index (problems, i);
      if (p->severity != severity)
        continue;
      /* Alike: of the same kind, the message the same but for a number. */
      g_ptr_array_add (texts, g_strdup_printf ("%s\x1f%s", onyx_problem_kind_name (p->kind), p->message));
      g_array_append_val (indexes, i);
    }
  *count = texts->len;
  families = onyx_text_families ((const char *const *) texts->pdata, texts->len, MIN_ALIKE);
  for (guint f = 0; f < families->len; f++)
    g_ptr_array_add (rows, problem_row_new (problems, families->pdata[f], (const guint *) indexes->data));
}

static const char *
row_message (gpointer row)
{
  return ((OnyxProblemRow *) row)->message;
}

/* The help button's tooltip, asked for as the row's is: set at each row made, its text
 * asked the X server where the pointer was (a round trip a row, and an edit that
 * changes the Problems makes rows). */
static gboolean
query_help_tooltip (GtkWidget *button, int x, int y, gboolean keyboard, GtkTooltip *tooltip, gpointer unused)
{
  gtk_tooltip_set_text (tooltip, _("What This Means"));
  return TRUE;
}

/* The section of the manual's Problems page on a kind of problem. */
static char *
help_uri (OnyxProblemKind kind)
{
  const char *name = onyx_problem_kind_name (kind);

  /* The kind's name in --json keeps ONNX's word; the manual's section is "checker". */
  return g_strdup_printf ("help:onyx/problems#%s", g_str_equal (name, "onnx-checker") ? "checker" : name);
}

static void
help_clicked_cb (GtkButton *button, GtkListItem *item)
{
  OnyxProblemRow *row = gtk_list_item_get_item (item);
  g_autofree char *uri = NULL;

  if (row == NULL)
    return;
  uri = help_uri (row->kind);
  gtk_show_uri (GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (button))), uri, GDK_CURRENT_TIME);
}

/* A row: the severity's icon, the message and, under it, where; a link to what the
 * manual says of its kind. */
static void
setup_row (GtkSignalListItemFactory *factory, GtkListItem *item)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *text = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *icon = gtk_image_new ();
  GtkWidget *message = gtk_label_new (NULL);
  GtkWidget *where = gtk_label_new (NULL);
  GtkWidget *help = gtk_button_new_from_icon_name ("help-browser-symbolic");

  gtk_box_append (GTK_BOX (box), icon);
  gtk_label_set_xalign (GTK_LABEL (message), 0);
  gtk_label_set_ellipsize (GTK_LABEL (message), PANGO_ELLIPSIZE_END);
  gtk_label_set_xalign (GTK_LABEL (where), 0);
  gtk_label_set_ellipsize (GTK_LABEL (where), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_add_css_class (where, "caption");
  gtk_widget_add_css_class (where, "dim-label");
  gtk_box_append (GTK_BOX (text), message);
  gtk_box_append (GTK_BOX (text), where);
  gtk_widget_set_hexpand (text, TRUE);
  gtk_box_append (GTK_BOX (box), text);
  gtk_widget_add_css_class (help, "flat");
  gtk_widget_set_valign (help, GTK_ALIGN_CENTER);
  gtk_widget_set_has_tooltip (help, TRUE);
  g_signal_connect (help, "query-tooltip", G_CALLBACK (query_help_tooltip), NULL);
  /* What the tooltip says, for screen readers, without asking the X server. */
  gtk_accessible_update_property (GTK_ACCESSIBLE (help), GTK_ACCESSIBLE_PROPERTY_LABEL, _("What This Means"), -1);
  g_signal_connect (help, "clicked", G_CALLBACK (help_clicked_cb), item);
  gtk_box_append (GTK_BOX (box), help);
  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 6);
  gtk_widget_set_margin_start (box, 6);
  onyx_pane_row_tooltip (box, item, row_message);
  gtk_list_item_set_child (item, box);
}

static void
bind_row (GtkSignalListItemFactory *factory, GtkListItem *item)
{
  OnyxProblemRow *row = gtk_list_item_get_item (item);
  GtkWidget *box = gtk_list_item_get_child (item);
  GtkWidget *icon = gtk_widget_get_first_child (box);
  GtkWidget *message = gtk_widget_get_first_child (gtk_widget_get_next_sibling (icon));
  GtkWidget *where = gtk_widget_get_next_sibling (message);

  gtk_image_set_from_icon_name (GTK_IMAGE (icon), onyx_problem_severity_icon (row->severity));
  for (int severity = ONYX_PROBLEM_ERROR; severity <= ONYX_PROBLEM_INFO; severity++)
    gtk_widget_remove_css_class (icon, onyx_problem_severity_class (severity));
  gtk_widget_add_css_class (icon, onyx_problem_severity_class (row->severity));
  gtk_accessible_update_property (GTK_ACCESSIBLE (icon), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  onyx_problem_severity_label (row->severity), -1);
  gtk_label_set_text (GTK_LABEL (message), row->message);
  gtk_label_set_text (GTK_LABEL (where), row->where != NULL ? row->where : "");
  gtk_widget_set_visible (where, row->where != NULL);
}

/* Shown the same: the list need not make its widget again. */
static gboolean
row_looks_same (const OnyxProblemRow *a, const OnyxProblemRow *b)
{
  return a->severity == b->severity && g_str_equal (a->message, b->message) && g_strcmp0 (a->where, b->where) == 0 &&
         a->members->len == b->members->len;
}

/* Only the rows between the unchanged first and last ones are replaced; those keep
 * their widgets and take the new problems' indexes. After an edit most problems
 * are the same, and a list of dozens made again each time stalls the window. */
/* The row at `position` stays when it looks like `row`, taking its problem's index. */
static gboolean
keep_row (GListStore *store, guint position, const OnyxProblemRow *row)
{
  g_autoptr (OnyxProblemRow) old = g_list_model_get_item (G_LIST_MODEL (store), position);

  if (!row_looks_same (old, row))
    return FALSE;
  old->problem = row->problem;
  g_array_unref (old->members);
  old->members = g_array_ref (row->members);
  return TRUE;
}

static void
replace_rows (GListStore *store, GPtrArray *rows)
{
  guint n_old = g_list_model_get_n_items (G_LIST_MODEL (store)), same_start = 0, same_end = 0;

  while (same_start < MIN (n_old, rows->len) && keep_row (store, same_start, rows->pdata[same_start]))
    same_start++;
  while (same_end < MIN (n_old, rows->len) - same_start &&
         keep_row (store, n_old - 1 - same_end, rows->pdata[rows->len - 1 - same_end]))
    same_end++;
  /* (An empty array has no pdata at all.) */
  if (same_start + same_end < MAX (n_old, rows->len))
    g_list_store_splice (store, same_start, n_old - same_start - same_end,
                         rows->len > 0 ? rows->pdata + same_start : NULL, rows->len - same_start - same_end);
}

void
onyx_problems_pane_set_problems (OnyxProblemsPane *self, GPtrArray *problems)
{
  guint n = problems != NULL ? problems->len : 0, counts[3] = { 0, 0, 0 };
  g_autoptr (GPtrArray) rows = g_ptr_array_new_full (n, g_object_unref);
  g_autofree char *title = NULL;

  g_return_if_fail (ONYX_IS_PROBLEMS_PANE (self));
  /* Errors first, then warnings, then the rest; graph order within each. */
  for (int severity = ONYX_PROBLEM_ERROR; severity <= ONYX_PROBLEM_INFO; severity++)
    add_rows (rows, problems, severity, &counts[severity]);
  replace_rows (self->rows, rows);
  if (n == 0)
    title = g_strdup (_("No Problems"));
  else
    {
      g_autofree char *errors = g_strdup_printf (ngettext ("%u error", "%u errors", counts[ONYX_PROBLEM_ERROR]),
                                                 counts[ONYX_PROBLEM_ERROR]);
      g_autofree char *warnings = g_strdup_printf (ngettext ("%u warning", "%u warnings",
                                                             counts[ONYX_PROBLEM_WARNING]),
                                                   counts[ONYX_PROBLEM_WARNING]);
      /* Notes are problems of severity "information". */
      g_autofree char *notes = g_strdup_printf (ngettext ("%u note", "%u notes", counts[ONYX_PROBLEM_INFO]),
                                                counts[ONYX_PROBLEM_INFO]);
      /* Translators: the problems pane's title: "Problems: 1 error, 2 warnings, 0 notes". */
      title = g_strdup_printf (_("Problems: %s, %s, %s"), errors, warnings, notes);
    }
  gtk_label_set_text (self->title_label, title);
  gtk_stack_set_visible_child_name (self->stack, n == 0 ? "empty" : "list");
}

GListModel *
onyx_problems_pane_get_rows (OnyxProblemsPane *self)
{
  g_return_val_if_fail (ONYX_IS_PROBLEMS_PANE (self), NULL);
  return G_LIST_MODEL (self->rows);
}

/* ---- The part: the document's problems, dots on the canvas, a row selects ---- */

static GPtrArray *
current_problems (OnyxProblemsPane *self)
{
  OnyxProblemList *problems = self->state != NULL ? onyx_view_state_get_problems (self->state) : NULL;

  return problems != NULL ? onyx_problem_list_get (problems) : NULL;
}

static void
mark (guint8 *badges, int box, OnyxProblemSeverity severity)
{
  guint8 badge = severity == ONYX_PROBLEM_ERROR ? ONYX_CANVAS_BADGE_ERROR : ONYX_CANVAS_BADGE_WARNING;

  /* Information gets no dot: a graph full of them would hide the ones that matter. */
  if (box >= 0 && severity != ONYX_PROBLEM_INFO)
    badges[box] = MAX (badges[box], badge);
}

/* A dot on each box showing a node with a problem (closed groups show their
 * nodes'), in the graph shown. */
static void
update_badges (OnyxProblemsPane *self)
{
  const OnyxLayout *layout = onyx_view_state_get_layout (self->state);
  OnyxLayoutEngine *engine = onyx_view_state_get_engine (self->state);
  GPtrArray *problems = current_problems (self);
  g_autofree int *box_of = NULL;         /* per node of the graph shown */
  g_autofree guint8 *badges = NULL;
  Onnx__GraphProto *graph;
  OnyxGraphIndex *index;

  if (problems == NULL || layout == NULL || engine == NULL)
    return;
  graph = onyx_view_state_get_graph (self->state);
  index = onyx_view_state_get_graph_index (self->state);
  box_of = onyx_layout_boxes_of_nodes (layout, engine);
  badges = g_new0 (guint8, MAX (layout->nodes->len, 1));
  for (guint p = 0; p < problems->len; p++)
    {
      const OnyxProblem *problem = g_ptr_array_index (problems, p);
      /* A problem inside a subgraph marks the node holding it in the graph shown. */
      Onnx__NodeProto *shown = problem->node_proto != NULL
                                 ? onyx_view_state_node_in_view (self->state, problem->node_proto) : NULL;
      gssize pos = shown != NULL ? onyx_graph_index_node_position (index, shown) : -1;

      if (pos >= 0 && (size_t) pos < graph->n_node)
        mark (badges, box_of[pos], problem->severity);
      else if (problem->node_proto == NULL && problem->tensor != NULL && problem->graph_proto == graph)
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
  onyx_view_state_set_badges (self->state, badges, layout->nodes->len);
}

static void
refresh (OnyxProblemsPane *self)
{
  onyx_problems_pane_set_problems (self, current_problems (self));
}

/* A step's whole-model problems came: the list and the dots follow. */
static void
analysed_cb (OnyxProblemsPane *self)
{
  refresh (self);
  update_badges (self);
}

static void
document_changed_cb (OnyxProblemsPane *self)
{
  /* A model opened is listed once it settled (after its first layout started). */
  if (onyx_view_state_get_document (self->state) == NULL)
    refresh (self);
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self->actions), "show")),
                               onyx_view_state_get_document (self->state) != NULL);
}

static void
settled_cb (OnyxProblemsPane *self)
{
  refresh (self);
  /* (when the first layout came before them) */
  update_badges (self);
}

static void
activate_cb (OnyxProblemsPane *self, guint position)
{
  g_autoptr (OnyxProblemRow) row = g_list_model_get_item (G_LIST_MODEL (self->rows), position);
  GPtrArray *problems = current_problems (self);
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  const OnyxProblem *problem;
  OnyxGraphIndex *index;
  guint member;

  if (row == NULL || problems == NULL)
    return;
  /* A row of problems alike selects them in turn. */
  member = g_array_index (row->members, guint, row->next);
  row->next = (row->next + 1) % row->members->len;
  if (member >= problems->len)
    return;
  problem = g_ptr_array_index (problems, member);
  /* Nodes of subgraphs are shown in their graph; functions' are not edited, and
   * stay a text. */
  if (problem->node_proto != NULL && onyx_document_contains_node (document, (Onnx__NodeProto *) problem->node_proto))
    {
      /* Shows its graph, opens a closed group around it and centres it. */
      onyx_view_state_select_node (self->state, (Onnx__NodeProto *) problem->node_proto);
      onyx_view_state_reveal (self->state, ONYX_REVEAL_CENTER);
    }
  else if (problem->tensor != NULL && problem->graph_proto != NULL)
    {
      if (problem->graph_proto != onyx_view_state_get_graph (self->state))
        onyx_view_state_show_graph (self->state, (Onnx__GraphProto *) problem->graph_proto);
      index = onyx_view_state_get_graph_index (self->state);
      if (onyx_graph_index_defines (index, problem->tensor) ||
          onyx_graph_index_graph_output (index, problem->tensor) != NULL)
        onyx_view_state_select_tensor (self->state, problem->tensor);
    }
}

static void
show_changed (GSimpleAction *action, GVariant *value, gpointer data)
{
  OnyxProblemsPane *self = data;

  g_simple_action_set_state (action, value);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_REVEALED]);
}

void
onyx_problems_pane_set_state (OnyxProblemsPane *self, OnyxViewState *state)
{
  g_return_if_fail (ONYX_IS_PROBLEMS_PANE (self) && self->state == NULL);
  self->state = g_object_ref (state);
  g_signal_connect_object (state, "notify::document", G_CALLBACK (document_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "settled", G_CALLBACK (settled_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "analysed", G_CALLBACK (analysed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "laid-out", G_CALLBACK (update_badges), self, G_CONNECT_SWAPPED);
  document_changed_cb (self);
}

GActionGroup *
onyx_problems_pane_get_actions (OnyxProblemsPane *self)
{
  return G_ACTION_GROUP (self->actions);
}

gboolean
onyx_problems_pane_get_revealed (OnyxProblemsPane *self)
{
  GVariant *state = g_action_group_get_action_state (G_ACTION_GROUP (self->actions), "show");
  gboolean revealed = g_variant_get_boolean (state);

  g_variant_unref (state);
  return revealed;
}

static void
onyx_problems_pane_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_REVEALED:
      g_value_set_boolean (value, onyx_problems_pane_get_revealed (ONYX_PROBLEMS_PANE (object)));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
onyx_problems_pane_dispose (GObject *object)
{
  OnyxProblemsPane *self = ONYX_PROBLEMS_PANE (object);

  g_clear_object (&self->rows);
  g_clear_object (&self->state);
  g_clear_object (&self->actions);
  gtk_widget_dispose_template (GTK_WIDGET (self), ONYX_TYPE_PROBLEMS_PANE);
  G_OBJECT_CLASS (onyx_problems_pane_parent_class)->dispose (object);
}

static void
onyx_problems_pane_class_init (OnyxProblemsPaneClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = onyx_problems_pane_dispose;
  object_class->get_property = onyx_problems_pane_get_property;
  props[PROP_REVEALED] = g_param_spec_boolean ("revealed", NULL, NULL, FALSE,
                                               G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/onyxviewer/Onyx/onyx-problems-pane.ui");
  gtk_widget_class_bind_template_child (widget_class, OnyxProblemsPane, title_label);
  gtk_widget_class_bind_template_child (widget_class, OnyxProblemsPane, stack);
  gtk_widget_class_bind_template_child (widget_class, OnyxProblemsPane, list);
  gtk_widget_class_set_css_name (widget_class, "onyxproblems");
}

static void
onyx_problems_pane_init (OnyxProblemsPane *self)
{
  static const GActionEntry entries[] = {
    { .name = "show", .state = "false", .change_state = show_changed },
  };
  g_autoptr (GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();

  gtk_widget_init_template (GTK_WIDGET (self));
  self->rows = g_list_store_new (ONYX_TYPE_PROBLEM_ROW);
  g_signal_connect (factory, "setup", G_CALLBACK (setup_row), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_row), NULL);
  gtk_list_view_set_model (self->list, GTK_SELECTION_MODEL (gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->rows)))));
  gtk_list_view_set_factory (self->list, factory);
  g_signal_connect_swapped (self->list, "activate", G_CALLBACK (activate_cb), self);
  gtk_stack_set_visible_child_name (self->stack, "empty");
  /* Show Problems (the header bar's button, Ctrl+Shift+M) toggles the pane. */
  self->actions = g_simple_action_group_new ();
  g_action_map_add_action_entries (G_ACTION_MAP (self->actions), entries, G_N_ELEMENTS (entries), self);
}
