/* onyx-compare-pane.c: the differences of a comparison as a list, grouped by what
 * they concern (model, inputs, outputs, nodes, initializers). Rows keep only their
 * entry's index: the window looks the entry up in its current diff. */
#include "onyx-compare-pane.h"

#include <adwaita.h>
#include <glib/gi18n.h>

/* A GtkListBox row per difference gets slow in the thousands; the CLI lists all. */
#define MAX_ROWS 500
#define MAX_DETAILS 6
#define PANE_WIDTH 320

struct _OnyxComparePane {
  GtkBox parent_instance;

  GtkLabel *title_label;
  GtkLabel *subtitle_label;
  GtkLabel *legend_label;
  GtkStack *stack;
  GtkListBox *list;
  AdwStatusPage *empty_page;
};

G_DEFINE_FINAL_TYPE (OnyxComparePane, onyx_compare_pane, GTK_TYPE_BOX)

enum { ENTRY_ACTIVATED, N_SIGNALS };
static guint signals[N_SIGNALS];

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

static void
header_func (GtkListBoxRow *row, GtkListBoxRow *before, gpointer data)
{
  int section = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (row), "onyx-section"));
  GtkWidget *label;

  if (section < 0 ||
      (before != NULL && GPOINTER_TO_INT (g_object_get_data (G_OBJECT (before), "onyx-section")) == section))
    {
      gtk_list_box_row_set_header (row, NULL);
      return;
    }
  label = gtk_label_new (section_title (section));
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_add_css_class (label, "heading");
  gtk_widget_set_margin_start (label, 12);
  gtk_widget_set_margin_top (label, before != NULL ? 12 : 6);
  gtk_widget_set_margin_bottom (label, 3);
  gtk_list_box_row_set_header (row, label);
}

static GtkWidget *
wrapped_label (const char *text, gboolean detail)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  /* The pane's width, not the text's, sets how wide the label is. */
  gtk_label_set_max_width_chars (GTK_LABEL (label), 1);
  /* Tensor and node names are long words without spaces. */
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  if (detail)
    {
      gtk_widget_add_css_class (label, "caption");
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

static GtkWidget *
entry_row (const OnyxDiffEntry *entry, guint index)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *text = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *dot = gtk_label_new (NULL);
  g_autofree char *markup = dot_markup (entry->change);
  g_autofree char *head = message_head (entry);

  gtk_label_set_markup (GTK_LABEL (dot), markup);
  gtk_widget_set_valign (dot, GTK_ALIGN_START);
  gtk_box_append (GTK_BOX (box), dot);
  gtk_box_append (GTK_BOX (text), wrapped_label (head, FALSE));
  for (guint d = 0; d < entry->details->len && d < MAX_DETAILS; d++)
    gtk_box_append (GTK_BOX (text), wrapped_label (entry->details->pdata[d], TRUE));
  if (entry->details->len > MAX_DETAILS)
    {
      g_autofree char *more = g_strdup_printf (_("…and %u more"), entry->details->len - MAX_DETAILS);
      gtk_box_append (GTK_BOX (text), wrapped_label (more, TRUE));
    }
  if (entry->graph != NULL && strcmp (entry->graph, "main") != 0)
    {
      /* Translators: where a difference is, "in /If:then_branch". */
      g_autofree char *where = g_strdup_printf (_("in %s"), entry->graph);
      gtk_box_append (GTK_BOX (text), wrapped_label (where, TRUE));
    }
  gtk_widget_set_hexpand (text, TRUE);
  gtk_box_append (GTK_BOX (box), text);
  gtk_widget_set_margin_top (box, 4);
  gtk_widget_set_margin_bottom (box, 4);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  gtk_widget_set_tooltip_text (row, entry->message);
  /* What is only in the other model, and model-wide entries, have nothing to show here. */
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row),
                                    entry->index_b >= 0 && entry->subject != ONYX_DIFF_METADATA &&
                                    entry->subject != ONYX_DIFF_OPSET);
  g_object_set_data (G_OBJECT (row), "onyx-entry", GUINT_TO_POINTER (index + 1));
  g_object_set_data (G_OBJECT (row), "onyx-section", GINT_TO_POINTER (section_of (entry->subject)));
  return row;
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
  GtkWidget *child;

  g_return_if_fail (ONYX_IS_COMPARE_PANE (self));
  gtk_label_set_text (self->title_label, title);
  gtk_label_set_text (self->subtitle_label, subtitle);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->subtitle_label), subtitle);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->legend_label), legend_tip);
  adw_status_page_set_description (self->empty_page, same);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->list))) != NULL)
    gtk_list_box_remove (self->list, child);
  for (guint i = 0; i < n && i < MAX_ROWS; i++)
    gtk_list_box_append (self->list, entry_row (g_ptr_array_index (diff->entries, i), i));
  if (n > MAX_ROWS)
    {
      g_autofree char *more = g_strdup_printf (_("…and %u more (onyx-cli diff lists all)"), n - MAX_ROWS);
      GtkWidget *row = gtk_list_box_row_new ();
      gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), wrapped_label (more, TRUE));
      gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
      g_object_set_data (G_OBJECT (row), "onyx-section", GINT_TO_POINTER (-1));
      gtk_list_box_append (self->list, row);
    }
  gtk_stack_set_visible_child_name (self->stack, n == 0 ? "empty" : "list");
}

const char *
onyx_compare_pane_get_title (OnyxComparePane *self)
{
  g_return_val_if_fail (ONYX_IS_COMPARE_PANE (self), NULL);
  return gtk_label_get_text (self->title_label);
}

GtkListBox *
onyx_compare_pane_get_list (OnyxComparePane *self)
{
  g_return_val_if_fail (ONYX_IS_COMPARE_PANE (self), NULL);
  return self->list;
}

guint
onyx_compare_pane_row_entry (OnyxComparePane *self, GtkListBoxRow *row)
{
  /* Stored off by one: no data (NULL) is the "more" row. */
  return GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (row), "onyx-entry")) - 1;
}

static void
row_activated_cb (OnyxComparePane *self, GtkListBoxRow *row)
{
  guint entry = onyx_compare_pane_row_entry (self, row);

  if (entry != G_MAXUINT)
    g_signal_emit (self, signals[ENTRY_ACTIVATED], 0, entry);
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
  gtk_widget_dispose_template (GTK_WIDGET (object), ONYX_TYPE_COMPARE_PANE);
  G_OBJECT_CLASS (onyx_compare_pane_parent_class)->dispose (object);
}

static void
onyx_compare_pane_class_init (OnyxComparePaneClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = onyx_compare_pane_dispose;
  widget_class->measure = onyx_compare_pane_measure;
  signals[ENTRY_ACTIVATED] = g_signal_new ("entry-activated", G_TYPE_FROM_CLASS (klass),
                                           G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                           G_TYPE_NONE, 1, G_TYPE_UINT);
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

  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_label_set_markup (self->legend_label, legend);
  gtk_list_box_set_header_func (self->list, header_func, NULL, NULL);
  g_signal_connect_swapped (self->list, "row-activated", G_CALLBACK (row_activated_cb), self);
}
