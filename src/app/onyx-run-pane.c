/* onyx-run-pane.c: the Run sidebar (onyx-run-pane.h): what a run's result shows,
 * its colour scale and legend, the selected tensors' statistics. The runs
 * themselves: onyx-run-pane-runs.c. */
#include "onyx-run-pane-private.h"

#include "onyx-heat.h"

#include <glib/gi18n.h>
#include <math.h>

#include "onyx-pane-label.h"
#include "onyx-types.h"
#include "onyx-text.h"

G_DEFINE_FINAL_TYPE (OnyxRunPane, onyx_run_pane, GTK_TYPE_BOX)

enum { PROP_0, PROP_COLOR_BY, PROP_REVEALED, N_PROPS };
static GParamSpec *props[N_PROPS];

/* ---- The scale ---- */

void
onyx_run_pane_scale_color (double level, GdkRGBA *color)
{
  if (level < 0)
    *color = (GdkRGBA) { 0.200f, 0.820f, 0.478f, 1 }; /* green: agrees */
  else
    onyx_heat_color (level, color);
}

void
onyx_run_pane_nonfinite_color (GdkRGBA *color)
{
  *color = (GdkRGBA) { 0.753f, 0.380f, 0.796f, 1 }; /* GNOME's purple */
}

static double
statistic (const OnyxRunStats *stats, OnyxRunColor color_by)
{
  switch (color_by)
    {
    case ONYX_RUN_COLOR_MEAN: return stats->mean;
    case ONYX_RUN_COLOR_STD: return stats->std;
    case ONYX_RUN_COLOR_MAX_ABS: return MAX (fabs (stats->min), fabs (stats->max));
    default: return NAN;
    }
}

/* -1 within the tolerance; above it, six decades of max |a − b| / atol. */
static double
error_level (const OnyxRunDelta *delta, double atol)
{
  if (delta->mismatch != NULL)
    return 1;
  if (delta->n_exceeding == 0)
    return -1;
  return CLAMP (log10 (MAX (delta->max_abs, atol) / MAX (atol, 1e-30)) / 6, 0, 1);
}

/* Statistics span decades and signs: asinh keeps both readable on one scale. */
static void
update_scale (OnyxRunPane *self)
{
  gboolean any = FALSE;

  self->scale_low = self->scale_high = 0;
  for (guint i = 0; self->result != NULL && i < self->result->stats->len; i++)
    {
      double t = asinh (statistic (self->result->stats->pdata[i], self->color_by));
      if (isnan (t))
        continue;
      self->scale_low = any ? MIN (self->scale_low, t) : t;
      self->scale_high = any ? MAX (self->scale_high, t) : t;
      any = TRUE;
    }
}

gboolean
onyx_run_pane_rate_node (OnyxRunPane *self, const char *const *outputs, double *level, gboolean *nonfinite)
{
  gboolean rated = FALSE;

  *level = 0;
  *nonfinite = FALSE;
  if (self->result == NULL || self->color_by == ONYX_RUN_COLOR_NONE)
    return FALSE;
  if (self->color_by == ONYX_RUN_COLOR_ERROR)
    *level = -1;
  for (const char *const *name = outputs; *name != NULL; name++)
    {
      const OnyxRunStats *stats = onyx_run_pane_lookup_stats (self, *name);
      const OnyxRunDelta *delta = onyx_run_pane_lookup_delta (self, *name);

      if (stats != NULL && stats->n_nan + stats->n_inf > 0)
        *nonfinite = rated = TRUE;
      if (self->color_by == ONYX_RUN_COLOR_ERROR && delta != NULL)
        {
          /* The worst of its outputs. */
          *level = MAX (*level, error_level (delta, self->atol));
          rated = TRUE;
        }
      else if (self->color_by != ONYX_RUN_COLOR_ERROR && stats != NULL && !rated &&
               !isnan (statistic (stats, self->color_by)))
        {
          /* The first output, the one a node is known by. */
          double span = self->scale_high - self->scale_low;
          *level = span > 0 ? (asinh (statistic (stats, self->color_by)) - self->scale_low) / span : 0.5;
          rated = TRUE;
        }
    }
  return rated;
}

/* ---- Drawing ---- */

static void
draw_histogram (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  const OnyxRunStats *stats = data;
  GdkRGBA fg;
  guint32 top = 1;
  double bar = (double) width / ONYX_RUN_BINS;

#if GTK_CHECK_VERSION (4, 10, 0)
  gtk_widget_get_color (GTK_WIDGET (area), &fg);
#else
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (area)), &fg);
#endif
  for (guint i = 0; i < ONYX_RUN_BINS; i++)
    top = MAX (top, stats->histogram[i]);
  fg.alpha *= 0.12f;
  gdk_cairo_set_source_rgba (cr, &fg);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);
  fg.alpha = 0.75f;
  gdk_cairo_set_source_rgba (cr, &fg);
  for (guint i = 0; i < ONYX_RUN_BINS; i++)
    if (stats->histogram[i] > 0)
      {
        /* At least a pixel: a bin with anything in it is seen. */
        double h = MAX (1, (height - 2) * (double) stats->histogram[i] / top);
        cairo_rectangle (cr, i * bar + 0.5, height - h, MAX (bar - 1, 1), h);
      }
  cairo_fill (cr);
}

/* ---- Text ---- */

static char *
format_number (double value)
{
  if (isnan (value))
    return g_strdup ("—");
  return g_strdup_printf ("%.5g", value);
}

static char *
describe_shape (const OnyxRunStats *stats)
{
  g_autofree char *dims = onyx_dims_to_string (stats->dims, stats->n_dims);
  return g_strdup_printf ("%s[%s]", onyx_elem_type_name (stats->elem_type), dims);
}

static char *
describe_delta (const OnyxRunDelta *delta)
{
  g_autofree char *abs = NULL, *rel = NULL, *count = NULL;

  if (delta->mismatch != NULL)
    return g_strdup_printf (_("Not comparable: %s"), delta->mismatch);
  abs = format_number (delta->max_abs);
  rel = format_number (delta->max_rel);
  if (delta->n_exceeding == 0)
    return g_strdup_printf (_("Within tolerance: max |Δ| %s, max relative %s"), abs, rel);
  count = g_strdup_printf ("%" G_GUINT64_FORMAT, delta->n_exceeding);
  return g_strdup_printf (ngettext ("%s value exceeds: max |Δ| %s, max relative %s",
                                    "%s values exceed: max |Δ| %s, max relative %s",
                                    (gulong) MIN (delta->n_exceeding, G_MAXULONG)),
                          count, abs, rel);
}

/* The lines of one tensor's card (and of describe). */
static GPtrArray *
tensor_lines (OnyxRunPane *self, const OnyxRunStats *stats, const OnyxRunDelta *delta)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *min = format_number (stats->min), *max = format_number (stats->max);
  g_autofree char *mean = format_number (stats->mean), *std = format_number (stats->std);

  g_ptr_array_add (lines, describe_shape (stats));
  g_ptr_array_add (lines, g_strdup_printf (_("min %s   max %s"), min, max));
  g_ptr_array_add (lines, g_strdup_printf (_("mean %s   std %s"), mean, std));
  if (stats->n_nan + stats->n_inf > 0)
    {
      g_autofree char *nan = g_strdup_printf ("%" G_GUINT64_FORMAT, stats->n_nan);
      g_autofree char *inf = g_strdup_printf ("%" G_GUINT64_FORMAT, stats->n_inf);
      g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, stats->count);
      g_ptr_array_add (lines, g_strdup_printf (_("%s NaN, %s Inf of %s values"), nan, inf, count));
    }
  if (delta != NULL && delta->dequantized)
    g_ptr_array_add (lines, g_strdup (_("Compared as the float values it stands for")));
  if (delta != NULL)
    g_ptr_array_add (lines, describe_delta (delta));
  return lines;
}

static GtkWidget *
caption (const char *text, const char *style)
{
  /* The pane keeps its width; long names and messages wrap. Some captions share a
   * line with another (the colour legend's ends). */
  GtkWidget *label = onyx_pane_label_new (text, 10, 30);

  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  if (style != NULL)
    gtk_widget_add_css_class (label, style);
  return label;
}

static GtkWidget *
tensor_card (OnyxRunPane *self, const char *name)
{
  const OnyxRunStats *stats = onyx_run_pane_lookup_stats (self, name);
  const OnyxRunDelta *delta = onyx_run_pane_lookup_delta (self, name);
  GtkWidget *card = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *title = caption (name, "heading");
  g_autoptr (GPtrArray) lines = NULL;

  gtk_label_set_wrap (GTK_LABEL (title), FALSE);
  gtk_label_set_ellipsize (GTK_LABEL (title), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_set_tooltip_text (title, name);
  gtk_box_append (GTK_BOX (card), title);
  if (stats == NULL)
    {
      gtk_box_append (GTK_BOX (card), caption (_("Not captured by this run"), "dim-label"));
      return card;
    }
  lines = tensor_lines (self, stats, delta);
  for (guint i = 0; i < lines->len; i++)
    {
      gboolean alarm = (stats->n_nan + stats->n_inf > 0 && i == 3) ||
                       (i == lines->len - 1 && onyx_run_delta_exceeds (delta));
      GtkWidget *line = caption (lines->pdata[i], alarm ? "error" : "caption");
      if (i > 0)
        gtk_widget_add_css_class (line, "numeric");
      gtk_box_append (GTK_BOX (card), line);
    }
  if (stats->count > stats->n_nan + stats->n_inf)
    {
      GtkWidget *histogram = gtk_drawing_area_new ();
      g_autofree char *min = format_number (stats->min), *max = format_number (stats->max);
      g_autofree char *tip = g_strdup_printf (_("Histogram of the finite values, %s to %s"), min, max);

      gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (histogram), 56);
      gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (histogram), draw_histogram, (gpointer) stats, NULL);
      gtk_widget_set_tooltip_text (histogram, tip);
      gtk_widget_set_margin_top (histogram, 4);
      gtk_box_append (GTK_BOX (card), histogram);
    }
  return card;
}

static void
rebuild_tensors (OnyxRunPane *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->tensors_box))) != NULL)
    gtk_box_remove (self->tensors_box, child);
  if (self->result == NULL)
    return;
  if (self->shown == NULL || self->shown[0] == NULL)
    {
      gtk_box_append (self->tensors_box, caption (_("Select a node or tensor to see its values."), "dim-label"));
      return;
    }
  for (char **name = self->shown; *name != NULL; name++)
    gtk_box_append (self->tensors_box, tensor_card (self, *name));
}

static void
update_legend (OnyxRunPane *self)
{
  g_autofree char *low = format_number (sinh (self->scale_low));
  g_autofree char *high = format_number (sinh (self->scale_high));
  gboolean error = self->color_by == ONYX_RUN_COLOR_ERROR;
  gboolean shown = self->result != NULL && self->color_by != ONYX_RUN_COLOR_NONE;

  gtk_widget_set_visible (self->legend, shown);
  gtk_widget_set_visible (GTK_WIDGET (self->legend_note), shown);
  gtk_label_set_text (self->legend_low, error ? _("atol") : low);
  gtk_label_set_text (self->legend_high, error ? _("10⁶ × atol") : high);
  gtk_label_set_text (self->legend_note, error ? _("Green: within the tolerance. Purple: NaN or Inf values.")
                                               : _("Purple: NaN or Inf values."));
}

/* ---- State ---- */

static void
clear_result (OnyxRunPane *self)
{
  g_hash_table_remove_all (self->stats_by_name);
  g_hash_table_remove_all (self->delta_by_name);
  g_clear_pointer (&self->result, onyx_run_result_free);
  g_clear_pointer (&self->accuracy, onyx_quant_accuracy_free);
  g_clear_pointer (&self->compared_with, g_free);
  g_clear_object (&self->result_model);
}

/* No result: the status page says why (running, error). */
static void
show_without_result (OnyxRunPane *self, const char *page)
{
  clear_result (self);
  gtk_stack_set_visible_child_name (self->status, page);
  update_legend (self);
  rebuild_tensors (self);
}

void
onyx_run_pane_set_running (OnyxRunPane *self, const char *inputs)
{
  g_return_if_fail (ONYX_IS_RUN_PANE (self));
  gtk_label_set_text (self->subtitle, inputs);
  show_without_result (self, "running");
}

void
onyx_run_pane_set_error (OnyxRunPane *self, const char *message)
{
  g_return_if_fail (ONYX_IS_RUN_PANE (self));
  gtk_label_set_text (self->error_label, message);
  show_without_result (self, "error");
}

/* Against its float twin a quantized model parts at its first layer: what says where it
 * loses is each layer's signal-to-noise ratio (as onyx-cli run --compare gives it). */
static char *
describe_accuracy (const OnyxQuantAccuracy *accuracy)
{
  g_autofree char *compared = NULL, *worst = NULL, *below = NULL;

  /* Translators: layers of a quantized model whose values were compared with the float
   * model's; the plural follows the second number, the layers that run quantized. */
  compared = g_strdup_printf (ngettext ("Quantized layers compared: %u of %u", "Quantized layers compared: %u of %u",
                                        accuracy->n_quantized),
                              accuracy->layers->len, accuracy->n_quantized);
  if (accuracy->layers->len > 0)
    {
      const OnyxQuantLayer *layer = accuracy->layers->pdata[0];
      /* Translators: the layer that keeps the least of its signal, and its ratio in dB. */
      worst = g_strdup_printf (_("Least accurate: %s, %.1f dB"), onyx_node_name_or_op (layer->node), layer->sqnr_db);
    }
  if (accuracy->first_below != NULL)
    below = g_strdup_printf (_("First layer under %g dB: %s, %.1f dB"), accuracy->threshold_db,
                             onyx_node_name_or_op (accuracy->first_below->node), accuracy->first_below->sqnr_db);
  else
    below = g_strdup_printf (_("No layer under %g dB"), accuracy->threshold_db);
  return worst != NULL ? g_strdup_printf ("%s\n%s\n%s", compared, worst, below) : g_strdup_printf ("%s\n%s", compared, below);
}

static void
summarize (OnyxRunPane *self)
{
  const OnyxRunResult *result = self->result;
  guint nonfinite = 0, exceeding = 0;
  g_autofree char *ran = NULL;
  g_autofree char *took = onyx_format_duration (result->seconds);
  const char *divergent;

  for (guint i = 0; i < result->stats->len; i++)
    {
      const OnyxRunStats *stats = result->stats->pdata[i];
      nonfinite += stats->n_nan + stats->n_inf > 0;
    }
  /* TRANSLATORS: the first %s is a duration such as "12 ms" or "1.3 s", the second ONNX
   * Runtime's version ("1.31.1"). */
  ran = g_strdup_printf (ngettext ("Ran in %s with ONNX Runtime %s: %u tensor captured",
                                   "Ran in %s with ONNX Runtime %s: %u tensors captured", result->stats->len),
                         took, result->runtime_version, result->stats->len);
  if (nonfinite > 0)
    {
      g_autofree char *warn = g_strdup_printf (ngettext ("%u has NaN or Inf values (in purple)",
                                                            "%u have NaN or Inf values (in purple)", nonfinite),
                                               nonfinite);
      /* Where they start: the first node that made them. */
      g_autofree char *first = onyx_run_result_describe_nonfinite (result, self->result_model);
      g_autofree char *all = g_strdup_printf ("%s\n%s\n%s", ran, warn, first);
      gtk_label_set_text (self->summary_label, all);
    }
  else
    gtk_label_set_text (self->summary_label, ran);

  gtk_widget_set_visible (self->compare_box, self->compared_with != NULL);
  if (self->compared_with == NULL)
    return;
  exceeding = onyx_run_result_n_exceeding (result);
  {
    /* Translators: the plural follows the first count, the tensors that exceed it */
    g_autofree char *head = g_strdup_printf (ngettext ("Compared with %s: %u of %u tensors exceeds the tolerance",
                                                       "Compared with %s: %u of %u tensors exceed the tolerance",
                                                       exceeding),
                                             self->compared_with, exceeding, result->deltas->len);
    gboolean diverging = FALSE;
    g_autofree char *first = NULL;

    /* Differences within float noise of each tensor's scale are no divergence. */
    for (guint i = 0; i < result->deltas->len; i++)
      diverging |= onyx_run_delta_diverges (result->deltas->pdata[i], ONYX_RUN_DEFAULT_ATOL,
                                            ONYX_RUN_DEFAULT_SCALE_RTOL);
    first = self->accuracy != NULL ? describe_accuracy (self->accuracy)
      : result->first_divergence_delta != NULL
      ? g_strdup_printf (_("First divergence: %s"), result->first_divergence_delta->name)
      : g_strdup (diverging ? _("No single first divergence")
                            : exceeding > 0 ? _("No divergence beyond float noise") : _("No divergence"));
    g_autofree char *text = g_strdup_printf ("%s\n%s", head, first);
    gtk_label_set_text (self->compare_label, text);
  }
  gtk_widget_set_sensitive (self->divergence_button, onyx_run_pane_divergence (self, &divergent) >= 0);
}

void
onyx_run_pane_set_result (OnyxRunPane *self, OnyxRunResult *result, OnyxModel *model, const char *compared_with,
                          double atol)
{
  g_return_if_fail (ONYX_IS_RUN_PANE (self) && result != NULL);
  clear_result (self);
  self->result = result;
  self->result_model = g_object_ref (model);
  self->atol = atol;
  self->compared_with = g_strdup (compared_with);
  for (guint i = 0; i < result->stats->len; i++)
    g_hash_table_insert (self->stats_by_name, ((OnyxRunStats *) result->stats->pdata[i])->name,
                         result->stats->pdata[i]);
  for (guint i = 0; result->deltas != NULL && i < result->deltas->len; i++)
    g_hash_table_insert (self->delta_by_name, ((OnyxRunDelta *) result->deltas->pdata[i])->name,
                         result->deltas->pdata[i]);
  gtk_stack_set_visible_child_name (self->status, "result");
  summarize (self);
  /* A comparison is what one looks at first; else the magnitudes. */
  onyx_run_pane_set_color_by (self, compared_with != NULL ? ONYX_RUN_COLOR_ERROR
                                    : self->color_by == ONYX_RUN_COLOR_ERROR ? ONYX_RUN_COLOR_MAX_ABS
                                    : self->color_by);
  update_scale (self);
  update_legend (self);
  rebuild_tensors (self);
  /* The graph's colours follow the result even when the choice stayed. */
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_COLOR_BY]);
}

void
onyx_run_pane_set_accuracy (OnyxRunPane *self, OnyxQuantAccuracy *accuracy)
{
  g_return_if_fail (ONYX_IS_RUN_PANE (self) && self->result != NULL);
  g_clear_pointer (&self->accuracy, onyx_quant_accuracy_free);
  self->accuracy = accuracy;
  summarize (self);
  onyx_run_pane_update_actions (self);
}

const OnyxQuantAccuracy *
onyx_run_pane_get_accuracy (OnyxRunPane *self)
{
  return self->accuracy;
}

const OnyxRunResult *
onyx_run_pane_get_result (OnyxRunPane *self)
{
  return self->result;
}

const OnyxRunStats *
onyx_run_pane_lookup_stats (OnyxRunPane *self, const char *tensor)
{
  return tensor != NULL ? g_hash_table_lookup (self->stats_by_name, tensor) : NULL;
}

const OnyxRunDelta *
onyx_run_pane_lookup_delta (OnyxRunPane *self, const char *tensor)
{
  return tensor != NULL ? g_hash_table_lookup (self->delta_by_name, tensor) : NULL;
}

void
onyx_run_pane_show_tensors (OnyxRunPane *self, const char *const *tensors)
{
  g_strfreev (self->shown);
  self->shown = g_strdupv ((char **) tensors);
  rebuild_tensors (self);
}

OnyxRunColor
onyx_run_pane_get_color_by (OnyxRunPane *self)
{
  return self->color_by;
}

void
onyx_run_pane_set_color_by (OnyxRunPane *self, OnyxRunColor color_by)
{
  if (color_by == ONYX_RUN_COLOR_ERROR && self->compared_with == NULL)
    color_by = ONYX_RUN_COLOR_MAX_ABS;
  if (self->color_by == color_by)
    return;
  self->color_by = color_by;
  gtk_drop_down_set_selected (self->color_drop, color_by);
  update_scale (self);
  update_legend (self);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_COLOR_BY]);
}

char *
onyx_run_pane_describe_tensor (OnyxRunPane *self, const char *tensor)
{
  const OnyxRunStats *stats = onyx_run_pane_lookup_stats (self, tensor);
  g_autoptr (GPtrArray) lines = NULL;

  if (stats == NULL)
    return NULL;
  lines = tensor_lines (self, stats, onyx_run_pane_lookup_delta (self, tensor));
  g_ptr_array_add (lines, NULL);
  {
    g_autofree char *joined = g_strjoinv ("\n", (char **) lines->pdata);
    return g_strdup_printf (_("Ran: %s"), joined);
  }
}

char *
onyx_run_pane_describe (OnyxRunPane *self)
{
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "%s\n", gtk_stack_get_visible_child_name (self->status));
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->status), "error") == 0)
    g_string_append_printf (text, "%s\n", gtk_label_get_text (self->error_label));
  if (self->result == NULL)
    return g_string_free (text, FALSE);
  g_string_append_printf (text, "%s\n", gtk_label_get_text (self->summary_label));
  if (self->compared_with != NULL)
    g_string_append_printf (text, "%s\n", gtk_label_get_text (self->compare_label));
  for (char **name = self->shown; name != NULL && *name != NULL; name++)
    {
      const OnyxRunStats *stats = onyx_run_pane_lookup_stats (self, *name);
      g_autoptr (GPtrArray) lines = NULL;

      g_string_append_printf (text, "%s\n", *name);
      if (stats == NULL)
        continue;
      lines = tensor_lines (self, stats, onyx_run_pane_lookup_delta (self, *name));
      for (guint i = 0; i < lines->len; i++)
        g_string_append_printf (text, "  %s\n", (char *) lines->pdata[i]);
    }
  g_string_append_printf (text, "inputs: %s\n", gtk_label_get_text (self->subtitle));
  return g_string_free (text, FALSE);
}

/* ---- Building ---- */

static void
color_drop_cb (OnyxRunPane *self)
{
  onyx_run_pane_set_color_by (self, gtk_drop_down_get_selected (self->color_drop));
}

static void
onyx_run_pane_init (OnyxRunPane *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->stats_by_name = g_hash_table_new (g_str_hash, g_str_equal);
  self->delta_by_name = g_hash_table_new (g_str_hash, g_str_equal);
  self->color_by = ONYX_RUN_COLOR_MAX_ABS;
  gtk_drawing_area_set_draw_func (self->legend_bar, onyx_heat_draw_legend, NULL, NULL);
  gtk_label_set_xalign (self->legend_high, 1);
  gtk_drop_down_set_selected (self->color_drop, self->color_by);
  g_signal_connect_swapped (self->color_drop, "notify::selected", G_CALLBACK (color_drop_cb), self);
  onyx_run_pane_init_runs (self);
  update_legend (self);
}

static void
onyx_run_pane_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  OnyxRunPane *self = ONYX_RUN_PANE (object);

  if (id == PROP_COLOR_BY)
    g_value_set_int (value, self->color_by);
  else if (id == PROP_REVEALED)
    g_value_set_boolean (value, self->revealed);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
}

static void
onyx_run_pane_set_property (GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
  if (id == PROP_COLOR_BY)
    onyx_run_pane_set_color_by (ONYX_RUN_PANE (object), g_value_get_int (value));
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
}

static void
onyx_run_pane_dispose (GObject *object)
{
  onyx_run_pane_dispose_runs (ONYX_RUN_PANE (object));
  gtk_widget_dispose_template (GTK_WIDGET (object), ONYX_TYPE_RUN_PANE);
  G_OBJECT_CLASS (onyx_run_pane_parent_class)->dispose (object);
}

static void
onyx_run_pane_finalize (GObject *object)
{
  OnyxRunPane *self = ONYX_RUN_PANE (object);

  clear_result (self);
  g_hash_table_unref (self->stats_by_name);
  g_hash_table_unref (self->delta_by_name);
  g_strfreev (self->shown);
  G_OBJECT_CLASS (onyx_run_pane_parent_class)->finalize (object);
}

static void
onyx_run_pane_class_init (OnyxRunPaneClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = onyx_run_pane_get_property;
  object_class->set_property = onyx_run_pane_set_property;
  object_class->dispose = onyx_run_pane_dispose;
  object_class->finalize = onyx_run_pane_finalize;
  props[PROP_COLOR_BY] = g_param_spec_int ("color-by", NULL, NULL, ONYX_RUN_COLOR_NONE, ONYX_RUN_COLOR_ERROR,
                                           ONYX_RUN_COLOR_MAX_ABS, G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                           G_PARAM_STATIC_STRINGS);
  props[PROP_REVEALED] = g_param_spec_boolean ("revealed", NULL, NULL, FALSE,
                                               G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/onyxviewer/Onyx/onyx-run-pane.ui");
  gtk_widget_class_bind_template_child (widget_class, OnyxRunPane, subtitle);
  gtk_widget_class_bind_template_child (widget_class, OnyxRunPane, status);
  gtk_widget_class_bind_template_child (widget_class, OnyxRunPane, error_label);
  gtk_widget_class_bind_template_child (widget_class, OnyxRunPane, summary_label);
  gtk_widget_class_bind_template_child (widget_class, OnyxRunPane, compare_box);
  gtk_widget_class_bind_template_child (widget_class, OnyxRunPane, compare_label);
  gtk_widget_class_bind_template_child (widget_class, OnyxRunPane, divergence_button);
  gtk_widget_class_bind_template_child (widget_class, OnyxRunPane, color_drop);
  gtk_widget_class_bind_template_child (widget_class, OnyxRunPane, legend);
  gtk_widget_class_bind_template_child (widget_class, OnyxRunPane, legend_bar);
  gtk_widget_class_bind_template_child (widget_class, OnyxRunPane, legend_low);
  gtk_widget_class_bind_template_child (widget_class, OnyxRunPane, legend_high);
  gtk_widget_class_bind_template_child (widget_class, OnyxRunPane, legend_note);
  gtk_widget_class_bind_template_child (widget_class, OnyxRunPane, tensors_box);
}

void
onyx_run_pane_set_revealed (OnyxRunPane *self, gboolean revealed)
{
  if (self->revealed == revealed)
    return;
  self->revealed = revealed;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_REVEALED]);
}

GtkWidget *
onyx_run_pane_new (void)
{
  return g_object_new (ONYX_TYPE_RUN_PANE, NULL);
}
