/* onyx-compare-pane.c: "Compare With…". The open model is B, the newer one, and
 * the chosen file is A: the graph on screen is B's, so what B added, changed or
 * renamed is framed in colour on it, and what only A has (removed) is listed. The
 * diff is worked out by an OnyxCompareSession, again after each of B's steps, so the
 * list always says how B now differs from A.
 *
 * The differences are a list grouped by what they concern (model, inputs, outputs,
 * nodes, initializers): a GtkListView over a GListModel of OnyxCompareRow, so
 * thousands of differences cost no more than a screenful. Rows keep their entry's
 * index in the current diff. */
#include "onyx-compare-pane.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "onyx-compare-session.h"
#include "onyx-dialogs.h"
#include "onyx-pane-label.h"

#define MAX_DETAILS 6
#define PANE_WIDTH 320

struct _OnyxComparePane {
  GtkBox parent_instance;

  GtkLabel *title_label;
  GtkLabel *subtitle_label;
  GtkLabel *legend_label;
  GtkStack *stack;
  GtkListView *list;
  GListStore *rows;             /* OnyxCompareRow */
  AdwStatusPage *empty_page;

  OnyxViewState *state;
  OnyxCompareSession *session;  /* or NULL */
  GSimpleActionGroup *actions;
};

/* One difference as the list shows it, made when the diff is set. */
struct _OnyxCompareRow {
  GObject parent_instance;
  guint entry;
  int section;
  OnyxDiffChange change;
  gboolean activatable;
  char *message;                /* the whole message: the row's tooltip */
  char *text;                   /* the head line */
  char *details;                /* lines under it, or NULL */
};

G_DEFINE_FINAL_TYPE (OnyxCompareRow, onyx_compare_row, G_TYPE_OBJECT)

static void
onyx_compare_row_finalize (GObject *object)
{
  OnyxCompareRow *self = ONYX_COMPARE_ROW (object);

  g_free (self->message);
  g_free (self->text);
  g_free (self->details);
  G_OBJECT_CLASS (onyx_compare_row_parent_class)->finalize (object);
}

static void
onyx_compare_row_class_init (OnyxCompareRowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = onyx_compare_row_finalize;
}

static void
onyx_compare_row_init (OnyxCompareRow *self)
{
}

guint
onyx_compare_row_get_entry (OnyxCompareRow *self)
{
  return self->entry;
}

const char *
onyx_compare_row_get_message (OnyxCompareRow *self)
{
  return self->message;
}

gboolean
onyx_compare_row_get_activatable (OnyxCompareRow *self)
{
  return self->activatable;
}

G_DEFINE_FINAL_TYPE (OnyxComparePane, onyx_compare_pane, GTK_TYPE_BOX)

enum { PROP_0, PROP_REVEALED, N_PROPS };
static GParamSpec *props[N_PROPS];

void
onyx_diff_change_color (OnyxDiffChange change, GdkRGBA *color)
{
  /* GNOME palette. Blue is the canvas' selection, so changes are amber. */
  static const char *const colors[] = {
    [ONYX_DIFF_ADDED] = "#2ec27e",
    [ONYX_DIFF_REMOVED] = "#e01b24",
    [ONYX_DIFF_CHANGED] = "#e5a50a",
    [ONYX_DIFF_RENAMED] = "#9141ac",
  };

  gdk_rgba_parse (color, colors[change]);
}

static char *
dot_markup (OnyxDiffChange change)
{
  GdkRGBA color;

  onyx_diff_change_color (change, &color);
  return g_strdup_printf ("<span foreground=\"#%02x%02x%02x\">●</span>", (int) (color.red * 255),
                          (int) (color.green * 255), (int) (color.blue * 255));
}

/* Metadata and opsets are one section, "Model". */
static int
section_of (OnyxDiffSubject subject)
{
  return subject == ONYX_DIFF_OPSET ? ONYX_DIFF_METADATA : (int) subject;
}

static const char *
section_title (int section)
{
  switch (section)
    {
    case ONYX_DIFF_METADATA: return _("Model");
    case ONYX_DIFF_GRAPH_INPUT: return _("Inputs");
    case ONYX_DIFF_GRAPH_OUTPUT: return _("Outputs");
    case ONYX_DIFF_NODE: return _("Nodes");
    default: return _("Initializers");
    }
}

/* About as many characters as fit the pane's 300 pixels beside the dot. */
#define LABEL_CHARS 28

static GtkWidget *
wrapped_label (const char *css_class)
{
  GtkWidget *label = onyx_pane_label_new (NULL, LABEL_CHARS, LABEL_CHARS);

  if (css_class != NULL)
    {
      gtk_widget_add_css_class (label, css_class);
      gtk_widget_add_css_class (label, "dim-label");
    }
  return label;
}

/* The message without the first detail the core appends after ": ", since the
 * details are listed under it. */
static char *
message_head (const OnyxDiffEntry *entry)
{
  g_autofree char *more = NULL, *suffix = NULL;

  if (entry->details->len == 0)
    return g_strdup (entry->message);
  more = entry->details->len > 1 ? g_strdup_printf (" (and %u more)", entry->details->len - 1)
                                 : g_strdup ("");
  suffix = g_strdup_printf (": %s%s", (const char *) entry->details->pdata[0], more);
  if (!g_str_has_suffix (entry->message, suffix))
    return g_strdup (entry->message);
  return g_strndup (entry->message, strlen (entry->message) - strlen (suffix));
}

static OnyxCompareRow *
compare_row_new (const OnyxDiffEntry *entry, guint index)
{
  OnyxCompareRow *row = g_object_new (ONYX_TYPE_COMPARE_ROW, NULL);
  g_autoptr (GString) details = g_string_new (NULL);

  row->entry = index;
  row->section = section_of (entry->subject);
  row->change = entry->change;
  /* What is only in the other model, and model-wide entries, have nothing to show here. */
  row->activatable = entry->index_b >= 0 && entry->subject != ONYX_DIFF_METADATA &&
                     entry->subject != ONYX_DIFF_OPSET;
  row->message = g_strdup (entry->message);
  row->text = message_head (entry);
  for (guint d = 0; d < entry->details->len && d < MAX_DETAILS; d++)
    g_string_append_printf (details, "%s%s", d > 0 ? "\n" : "", (const char *) entry->details->pdata[d]);
  if (entry->details->len > MAX_DETAILS)
    {
      g_string_append_c (details, '\n');
      g_string_append_printf (details, _("…and %u more"), entry->details->len - MAX_DETAILS);
    }
  if (entry->graph != NULL && strcmp (entry->graph, "main") != 0)
    {
      /* Translators: where a difference is, "in /If:then_branch". */
      g_autofree char *where = g_strdup_printf (_("in %s"), entry->graph);
      g_string_append_printf (details, "%s%s", details->len > 0 ? "\n" : "", where);
    }
  row->details = details->len > 0 ? g_strdup (details->str) : NULL;
  return row;
}

static const char *
row_message (gpointer row)
{
  return ((OnyxCompareRow *) row)->message;
}

/* A row: the section's title when it starts one, the coloured dot, the head line
 * and the details. The dot overlays the text's start margin rather than sitting
 * beside it in a box: a horizontal box measures a wrapped label's width for its
 * height, which GtkLabel finds by laying the text out a dozen times, in every frame
 * the pane is allocated. */
static void
setup_row (GtkSignalListItemFactory *factory, GtkListItem *item)
{
  GtkWidget *outer = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *heading = gtk_label_new (NULL);
  GtkWidget *overlay = gtk_overlay_new ();
  GtkWidget *text = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *dot = gtk_label_new (NULL);
  GtkWidget *head = wrapped_label (NULL);
  GtkWidget *details = wrapped_label ("caption");

  gtk_label_set_xalign (GTK_LABEL (heading), 0);
  gtk_widget_add_css_class (heading, "heading");
  gtk_widget_set_margin_bottom (heading, 6);
  gtk_box_append (GTK_BOX (outer), heading);
  gtk_widget_set_halign (dot, GTK_ALIGN_START);
  gtk_widget_set_valign (dot, GTK_ALIGN_START);
  gtk_box_append (GTK_BOX (text), head);
  gtk_box_append (GTK_BOX (text), details);
  gtk_widget_set_margin_start (text, 20);
  gtk_overlay_set_child (GTK_OVERLAY (overlay), text);
  gtk_overlay_add_overlay (GTK_OVERLAY (overlay), dot);
  onyx_pane_row_tooltip (overlay, item, row_message);
  gtk_widget_set_margin_top (overlay, 4);
  gtk_widget_set_margin_bottom (overlay, 4);
  gtk_box_append (GTK_BOX (outer), overlay);
  g_object_set_data (G_OBJECT (outer), "heading", heading);
  g_object_set_data (G_OBJECT (outer), "dot", dot);
  g_object_set_data (G_OBJECT (outer), "head", head);
  g_object_set_data (G_OBJECT (outer), "details", details);
  gtk_list_item_set_child (item, outer);
}

static void
bind_row (GtkSignalListItemFactory *factory, GtkListItem *item, OnyxComparePane *self)
{
  OnyxCompareRow *row = gtk_list_item_get_item (item);
  guint position = gtk_list_item_get_position (item);
  g_autoptr (OnyxCompareRow) before = position > 0 ? g_list_model_get_item (G_LIST_MODEL (self->rows), position - 1)
                                                   : NULL;
  GObject *outer = G_OBJECT (gtk_list_item_get_child (item));
  GtkWidget *heading = g_object_get_data (outer, "heading");
  GtkWidget *details = g_object_get_data (outer, "details");
  g_autofree char *markup = dot_markup (row->change);

  gtk_label_set_text (GTK_LABEL (heading), section_title (row->section));
  gtk_widget_set_visible (heading, before == NULL || before->section != row->section);
  gtk_widget_set_margin_top (heading, before != NULL ? 12 : 6);
  gtk_label_set_markup (g_object_get_data (outer, "dot"), markup);
  gtk_label_set_text (g_object_get_data (outer, "head"), row->text);
  gtk_label_set_text (GTK_LABEL (details), row->details != NULL ? row->details : "");
  gtk_widget_set_visible (details, row->details != NULL);
  gtk_list_item_set_activatable (item, row->activatable);
}

/* The colours on the graph; removed nodes are only in the list. */
static char *
legend_markup (void)
{
  static const struct { OnyxDiffChange change; const char *label; } items[] = {
    { ONYX_DIFF_ADDED, N_("Added") },
    { ONYX_DIFF_CHANGED, N_("Changed") },
    { ONYX_DIFF_RENAMED, N_("Renamed") },
  };
  GString *markup = g_string_new (NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (items); i++)
    {
      g_autofree char *dot = dot_markup (items[i].change);
      g_autofree char *label = g_markup_escape_text (_(items[i].label), -1);
      g_string_append_printf (markup, "%s%s %s", i > 0 ? "   " : "", dot, label);
    }
  return g_string_free (markup, FALSE);
}

void
onyx_compare_pane_set_diff (OnyxComparePane *self, const OnyxDiff *diff, const char *other_name)
{
  guint n = diff != NULL ? diff->entries->len : 0;
  g_autofree char *title = n == 0 ? g_strdup (_("No Differences"))
                                  : g_strdup_printf (ngettext ("%u Difference", "%u Differences", n), n);
  g_autofree char *subtitle = g_strdup_printf (_("Compared with %s"), other_name ? other_name : "");
  g_autofree char *legend_tip = g_strdup_printf (_("Added: only in this model. Removed: only in %s, "
                                                   "listed but not drawn."), other_name ? other_name : "");
  g_autofree char *same = g_strdup_printf (_("This model and %s are the same."), other_name ? other_name : "");
  g_autoptr (GPtrArray) rows = NULL;

  g_return_if_fail (ONYX_IS_COMPARE_PANE (self));
  gtk_label_set_text (self->title_label, title);
  gtk_label_set_text (self->subtitle_label, subtitle);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->subtitle_label), subtitle);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->legend_label), legend_tip);
  adw_status_page_set_description (self->empty_page, same);
  rows = g_ptr_array_new_full (n, g_object_unref);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (rows, compare_row_new (g_ptr_array_index (diff->entries, i), i));
  g_list_store_splice (self->rows, 0, g_list_model_get_n_items (G_LIST_MODEL (self->rows)), rows->pdata, rows->len);
  gtk_stack_set_visible_child_name (self->stack, n == 0 ? "empty" : "list");
}

const char *
onyx_compare_pane_get_title (OnyxComparePane *self)
{
  g_return_val_if_fail (ONYX_IS_COMPARE_PANE (self), NULL);
  return gtk_label_get_text (self->title_label);
}

GListModel *
onyx_compare_pane_get_rows (OnyxComparePane *self)
{
  g_return_val_if_fail (ONYX_IS_COMPARE_PANE (self), NULL);
  return G_LIST_MODEL (self->rows);
}

/* ---- The part: the comparison, its frames on the graph ---- */

static const OnyxDiff *
current_diff (OnyxComparePane *self)
{
  return self->session != NULL ? onyx_compare_session_get_diff (self->session) : NULL;
}

/* A collapsed group shows several changes as one: their kind when all agree,
 * "changed" otherwise. */
static void
merge_change (int *group, int change)
{
  if (*group < 0)
    *group = change;
  else if (*group != change)
    *group = ONYX_DIFF_CHANGED;
}

/* Per node of the graph shown: how it differs, -1 when it does not. A node holding a
 * subgraph with differences inside counts as changed. */
static int *
node_changes (OnyxComparePane *self, Onnx__GraphProto *view)
{
  OnyxGraphIndex *index = onyx_view_state_get_graph_index (self->state);
  const OnyxDiff *diff = current_diff (self);
  int *change = g_new (int, MAX (view->n_node, 1));

  for (size_t i = 0; i < view->n_node; i++)
    change[i] = -1;
  for (guint e = 0; e < diff->entries->len; e++)
    {
      const OnyxDiffEntry *entry = g_ptr_array_index (diff->entries, e);
      Onnx__NodeProto *node, *shown;
      gssize pos;

      if (entry->subject != ONYX_DIFF_NODE || entry->index_b < 0 || entry->graph_b == NULL ||
          (size_t) entry->index_b >= entry->graph_b->n_node)
        continue;
      node = entry->graph_b->node[entry->index_b];
      if ((shown = onyx_view_state_node_in_view (self->state, node)) == NULL ||
          (pos = onyx_graph_index_node_position (index, shown)) < 0)
        continue;
      merge_change (&change[pos], shown == node ? (int) entry->change : ONYX_DIFF_CHANGED);
    }
  return change;
}

/* The frames follow each layout (collapsed groups take their nodes'). */
static void
update_tints (OnyxComparePane *self)
{
  const OnyxLayout *layout = onyx_view_state_get_layout (self->state);
  OnyxLayoutEngine *engine = onyx_view_state_get_engine (self->state);
  const OnyxDiff *diff = current_diff (self);
  g_autofree int *change = NULL;              /* per layout node, -1 for none */
  g_autofree int *by_node = NULL;             /* per node of the graph shown */
  g_autofree int *box_of = NULL;
  g_autofree GdkRGBA *tints = NULL;
  Onnx__GraphProto *view;
  guint n;

  /* Functions are not compared; a layout on its way brings its own frames. */
  if (diff == NULL || layout == NULL || onyx_view_state_shows_function (self->state) || engine == NULL)
    return;
  view = onyx_view_state_get_graph (self->state);
  by_node = node_changes (self, view);
  n = layout->nodes->len;
  change = g_new (int, n);
  for (guint i = 0; i < n; i++)
    change[i] = -1;
  /* On the box showing each node: its own, its reader's when folded, or the closed
   * group it is in, which shows several changes as one. */
  box_of = onyx_layout_boxes_of_nodes (layout, engine);
  for (guint b = 0; b < view->n_node; b++)
    if (by_node[b] >= 0 && box_of[b] >= 0)
      merge_change (&change[box_of[b]], by_node[b]);
  /* Graph inputs and outputs that changed are boxes of their own. */
  for (guint e = 0; e < diff->entries->len; e++)
    {
      const OnyxDiffEntry *entry = g_ptr_array_index (diff->entries, e);
      OnyxLayoutKind kind = entry->subject == ONYX_DIFF_GRAPH_INPUT ? ONYX_LAYOUT_INPUT : ONYX_LAYOUT_OUTPUT;

      if ((entry->subject != ONYX_DIFF_GRAPH_INPUT && entry->subject != ONYX_DIFF_GRAPH_OUTPUT) ||
          entry->index_b < 0 || entry->graph_b != view)
        continue;
      for (guint i = 0; i < n; i++)
        {
          const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
          if (node->kind == kind && node->index == entry->index_b)
            change[i] = entry->change;
        }
    }
  tints = g_new0 (GdkRGBA, n);
  for (guint i = 0; i < n; i++)
    if (change[i] >= 0)
      onyx_diff_change_color (change[i], &tints[i]);
  onyx_view_state_set_tints (self->state, ONYX_TINT_COMPARE, tints, n);
}

static void
update_actions (OnyxComparePane *self)
{
  gboolean doc = onyx_view_state_get_document (self->state) != NULL;

  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self->actions), "with")),
                               doc);
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self->actions), "close")),
                               current_diff (self) != NULL);
}

/* The pane shows once A was read; then it follows every diff. */
static void
diff_ready_cb (OnyxComparePane *self)
{
  onyx_compare_pane_set_diff (self, current_diff (self), onyx_compare_session_get_name (self->session));
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_REVEALED]);
  /* An edit starts a layout; the frames follow when it is done (layout indices of
   * the old layout would point at other nodes now). */
  update_tints (self);
  update_actions (self);
}

void
onyx_compare_pane_stop (OnyxComparePane *self)
{
  if (self->session == NULL)
    return;
  g_signal_handlers_disconnect_by_data (self->session, self);
  onyx_compare_session_stop (self->session);
  g_clear_object (&self->session);
  onyx_compare_pane_set_diff (self, NULL, NULL);
  onyx_view_state_set_tints (self->state, ONYX_TINT_COMPARE, NULL, 0);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_REVEALED]);
  update_actions (self);
}

static void
failed_cb (OnyxComparePane *self, const char *message)
{
  onyx_compare_pane_stop (self);
  onyx_show_error (onyx_view_state_get_window (self->state), _("Could Not Open the Model"), message);
}

static void
follow_session (OnyxComparePane *self, OnyxCompareSession *session)
{
  self->session = session;
  g_signal_connect_swapped (self->session, "diff-ready", G_CALLBACK (diff_ready_cb), self);
  g_signal_connect_swapped (self->session, "failed", G_CALLBACK (failed_cb), self);
}

/* The view state asks: a model in memory (the document before Simplify). */
static void
compare_with_cb (OnyxComparePane *self, OnyxModel *model, const char *name)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);

  if (document == NULL)
    return;
  onyx_compare_pane_stop (self);
  follow_session (self, onyx_compare_session_new_for_model (onyx_view_state_get_jobs (self->state), document,
                                                            model, name));
}

gboolean
onyx_compare_pane_compare_with (OnyxComparePane *self, GFile *file, GError **error)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *name = NULL;

  g_return_val_if_fail (document != NULL, FALSE);
  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("Only local files can be opened"));
      return FALSE;
    }
  onyx_compare_pane_stop (self);
  name = g_file_get_basename (file);
  /* Read in the session's job: a model of a few GB takes seconds. */
  follow_session (self, onyx_compare_session_new (onyx_view_state_get_jobs (self->state), document, path, name));
  return TRUE;
}

gboolean
onyx_compare_pane_is_busy (OnyxComparePane *self)
{
  return self->session != NULL && onyx_compare_session_get_busy (self->session);
}

gboolean
onyx_compare_pane_get_revealed (OnyxComparePane *self)
{
  return current_diff (self) != NULL;
}

const OnyxDiff *
onyx_compare_pane_get_diff (OnyxComparePane *self)
{
  return current_diff (self);
}

static void
stepped_cb (OnyxComparePane *self, const OnyxChange *change)
{
  /* Only saved: B is what it was. */
  if (self->session != NULL && (change != NULL || current_diff (self) == NULL))
    onyx_compare_session_update (self->session);
}

static void
document_changed_cb (OnyxComparePane *self)
{
  /* Another model shown (or none): what was compared was the other one. */
  onyx_compare_pane_stop (self);
  update_actions (self);
}

static void
activate_cb (OnyxComparePane *self, guint position)
{
  g_autoptr (OnyxCompareRow) row = g_list_model_get_item (G_LIST_MODEL (self->rows), position);
  const OnyxDiff *diff = current_diff (self);
  const OnyxDiffEntry *entry;
  Onnx__GraphProto *graph;
  size_t b;

  if (row == NULL || !row->activatable || diff == NULL || row->entry >= diff->entries->len)
    return;
  entry = g_ptr_array_index (diff->entries, row->entry);
  /* In the graph B's entry is in: a row of a branch opens the branch. */
  if (entry->index_b < 0 || (graph = (Onnx__GraphProto *) entry->graph_b) == NULL)
    return;
  if (entry->subject != ONYX_DIFF_NODE && graph != onyx_view_state_get_graph (self->state))
    onyx_view_state_show_graph (self->state, graph);
  b = (size_t) entry->index_b;
  switch (entry->subject)
    {
    case ONYX_DIFF_NODE:
      if (b < graph->n_node)
        {
          onyx_view_state_select_node (self->state, graph->node[b]);
          onyx_view_state_reveal (self->state, ONYX_REVEAL_CENTER);
        }
      break;
    case ONYX_DIFF_GRAPH_INPUT:
      if (b < graph->n_input)
        onyx_view_state_select_tensor (self->state, graph->input[b]->name);
      break;
    case ONYX_DIFF_GRAPH_OUTPUT:
      if (b < graph->n_output)
        onyx_view_state_select_tensor (self->state, graph->output[b]->name);
      break;
    case ONYX_DIFF_INITIALIZER:
      if (b < graph->n_initializer)
        onyx_view_state_select_tensor (self->state, graph->initializer[b]->name);
      break;
    default:
      break;
    }
}

static gboolean
compare_file (gpointer owner, GFile *file, GError **error)
{
  return onyx_compare_pane_compare_with (owner, file, error);
}

static void
with_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxComparePane *self = data;
  GtkFileChooserNative *chooser = onyx_file_chooser_new (onyx_view_state_get_window (self->state),
                                                         onyx_view_state_get_file (self->state),
                                                         _("Compare With Model"), _("C_ompare"),
                                                         GTK_FILE_CHOOSER_ACTION_OPEN);

  onyx_add_onnx_filter (GTK_FILE_CHOOSER (chooser));
  onyx_file_chooser_run (chooser, compare_file, self, _("Could Not Open the Model"));
}

static void
close_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  onyx_compare_pane_stop (data);
}

void
onyx_compare_pane_set_state (OnyxComparePane *self, OnyxViewState *state)
{
  g_return_if_fail (ONYX_IS_COMPARE_PANE (self) && self->state == NULL);
  self->state = g_object_ref (state);
  g_signal_connect_object (state, "notify::document", G_CALLBACK (document_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "stepped", G_CALLBACK (stepped_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "compare-with", G_CALLBACK (compare_with_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "laid-out", G_CALLBACK (update_tints), self, G_CONNECT_SWAPPED);
  update_actions (self);
}

GActionGroup *
onyx_compare_pane_get_actions (OnyxComparePane *self)
{
  return G_ACTION_GROUP (self->actions);
}

static void
onyx_compare_pane_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_REVEALED:
      g_value_set_boolean (value, onyx_compare_pane_get_revealed (ONYX_COMPARE_PANE (object)));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* A sidebar of a fixed width: long names wrap instead of widening it. */
static void
onyx_compare_pane_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                           int *minimum, int *natural, int *minimum_baseline, int *natural_baseline)
{
  GTK_WIDGET_CLASS (onyx_compare_pane_parent_class)->measure (widget, orientation, for_size, minimum,
                                                              natural, minimum_baseline, natural_baseline);
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    *natural = MAX (*minimum, PANE_WIDTH);
}

static void
onyx_compare_pane_dispose (GObject *object)
{
  OnyxComparePane *self = ONYX_COMPARE_PANE (object);

  /* A diff under way is dropped when its job is done. */
  if (self->session != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->session, self);
      onyx_compare_session_stop (self->session);
      g_clear_object (&self->session);
    }
  g_clear_object (&self->state);
  g_clear_object (&self->actions);
  g_clear_object (&self->rows);
  gtk_widget_dispose_template (GTK_WIDGET (object), ONYX_TYPE_COMPARE_PANE);
  G_OBJECT_CLASS (onyx_compare_pane_parent_class)->dispose (object);
}

static void
onyx_compare_pane_class_init (OnyxComparePaneClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = onyx_compare_pane_dispose;
  object_class->get_property = onyx_compare_pane_get_property;
  widget_class->measure = onyx_compare_pane_measure;
  props[PROP_REVEALED] = g_param_spec_boolean ("revealed", NULL, NULL, FALSE,
                                               G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/onyxviewer/Onyx/onyx-compare-pane.ui");
  gtk_widget_class_bind_template_child (widget_class, OnyxComparePane, title_label);
  gtk_widget_class_bind_template_child (widget_class, OnyxComparePane, subtitle_label);
  gtk_widget_class_bind_template_child (widget_class, OnyxComparePane, legend_label);
  gtk_widget_class_bind_template_child (widget_class, OnyxComparePane, stack);
  gtk_widget_class_bind_template_child (widget_class, OnyxComparePane, list);
  gtk_widget_class_bind_template_child (widget_class, OnyxComparePane, empty_page);
}

static void
onyx_compare_pane_init (OnyxComparePane *self)
{
  g_autofree char *legend = legend_markup ();
  g_autoptr (GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();
  g_autoptr (GtkSingleSelection) selection = NULL;
  static const GActionEntry entries[] = {
    { .name = "with", .activate = with_activated },
    { .name = "close", .activate = close_activated },
  };

  gtk_widget_init_template (GTK_WIDGET (self));
  self->actions = g_simple_action_group_new ();
  g_action_map_add_action_entries (G_ACTION_MAP (self->actions), entries, G_N_ELEMENTS (entries), self);
  gtk_label_set_markup (self->legend_label, legend);
  self->rows = g_list_store_new (ONYX_TYPE_COMPARE_ROW);
  selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (self->rows)));
  /* Nothing is selected until a row is clicked. */
  gtk_single_selection_set_autoselect (selection, FALSE);
  gtk_single_selection_set_can_unselect (selection, TRUE);
  g_signal_connect (factory, "setup", G_CALLBACK (setup_row), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_row), self);
  gtk_list_view_set_factory (self->list, factory);
  gtk_list_view_set_model (self->list, GTK_SELECTION_MODEL (selection));
  g_signal_connect_swapped (self->list, "activate", G_CALLBACK (activate_cb), self);
}
