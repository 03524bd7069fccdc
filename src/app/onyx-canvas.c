/* onyx-canvas.c: pan/zoom view of an OnyxLayout.
 *
 * The graph without hover and selection is drawn once into a render node that
 * covers the visible area plus a margin (an overview as an image, see
 * onyx-canvas-cache.c), so panning inside the margin and hovering only translate
 * that node and redraw the few highlighted boxes on top of it.
 * The core's renderer culls everything outside the area it is given. Where the view
 * starts when a graph opens or is fitted: onyx-canvas-view.c. */
#include "onyx-canvas.h"

#include <adwaita.h>
#include <math.h>

#include "onyx-canvas-private.h"
#include "onyx-frame-share.h"

#define MAX_SCALE 4.0
#define CLICK_SLOP 4.0

/* What to show once the widget has a size. */
typedef enum {
  PENDING_NONE,
  PENDING_FIT,
  PENDING_FIRST_VIEW,
} PendingView;

struct _OnyxCanvas {
  GtkWidget parent_instance;

  OnyxLayout *layout;
  OnyxRenderIndex *index;

  double scale;
  double ox, oy;              /* layout point at the widget's top-left corner */
  PendingView pending_view;

  int selected, selected_edge, hovered;
  GHashTable *highlighted;    /* neighbours of the hovered node */
  GdkRGBA *tints;             /* per layout node (alpha 0: none), or NULL */
  OnyxCanvasTensorNote tensor_note;
  gpointer tensor_note_data;
  guint8 *badges;             /* OnyxCanvasBadge per layout node, or NULL */
  GPtrArray *notes;           /* PangoLayout * per layout node (NULL entries), or NULL */

  /* The cached graph layer, in layout coordinates × cache_scale. */
  GskRenderNode *cache;
  gboolean first_draw_due;    /* a layout shown in a new view, not drawn yet */
  OnyxRect cache_rect;
  double cache_scale;
  gboolean cache_dark;
  int cache_scale_factor;

  double drag_ox, drag_oy;
  int alloc_width, alloc_height; /* the last size: resizes keep the centre in view */
  double zoom_start_scale;
};

G_DEFINE_FINAL_TYPE (OnyxCanvas, onyx_canvas, GTK_TYPE_WIDGET)

enum { ITEM_ACTIVATED, ITEM_OPENED, LINE_ACTIVATED, STACK_STEPPED, MARK_ACTIVATED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
invalidate_cache (OnyxCanvas *self)
{
  g_clear_pointer (&self->cache, gsk_render_node_unref);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static gboolean
is_dark (void)
{
  return adw_style_manager_get_dark (adw_style_manager_get_default ());
}

static void
visible_rect (OnyxCanvas *self, OnyxRect *rect)
{
  rect->x = self->ox;
  rect->y = self->oy;
  rect->width = gtk_widget_get_width (GTK_WIDGET (self)) / self->scale;
  rect->height = gtk_widget_get_height (GTK_WIDGET (self)) / self->scale;
}

static gboolean
rect_contains (const OnyxRect *outer, const OnyxRect *inner)
{
  return inner->x >= outer->x && inner->y >= outer->y &&
         inner->x + inner->width <= outer->x + outer->width &&
         inner->y + inner->height <= outer->y + outer->height;
}

static void
render_cache (OnyxCanvas *self, const OnyxRect *visible)
{
  OnyxRenderOptions options;

  onyx_render_cache_area (visible, &self->cache_rect);
  self->cache_scale = self->scale;
  self->cache_dark = is_dark ();
  self->cache_scale_factor = gtk_widget_get_scale_factor (GTK_WIDGET (self));
  onyx_render_options_init (&options);
  options.scale = self->scale;
  options.dark = self->cache_dark;
  g_clear_pointer (&self->cache, gsk_render_node_unref);
  self->cache = onyx_canvas_render_cache (self->layout, self->index, &self->cache_rect, &options,
                                          self->cache_scale_factor);
}

/* Redraws a small area with hover/selection on, clipped to it. */
static void
draw_overlay_area (OnyxCanvas *self, cairo_t *cr, const OnyxRect *area,
                   const OnyxRenderOptions *options)
{
  OnyxRect r = { area->x - 4, area->y - 4, area->width + 8, area->height + 8 };

  cairo_save (cr);
  cairo_rectangle (cr, r.x, r.y, r.width, r.height);
  cairo_clip (cr);
  /* Translucent group fills would darken if drawn over the cached layer again:
   * start from the view background (Adwaita's view_bg_color, as in style.css). */
  if (options->dark)
    cairo_set_source_rgb (cr, 0x1e / 255.0, 0x1e / 255.0, 0x1e / 255.0);
  else
    cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  onyx_render_draw (cr, self->layout, self->index, &r, options);
  cairo_restore (cr);
}

static const OnyxLayoutNode *
layout_node (OnyxCanvas *self, int i)
{
  return &g_array_index (self->layout->nodes, OnyxLayoutNode, i);
}

/* Tinted nodes get a coloured frame just outside their box, drawn over the cached
 * layer (and the hover/selection boxes) so that setting tints costs no re-render.
 * The frame keeps its width on screen at any zoom: an overview still shows it. */
static void
append_tints (OnyxCanvas *self, GtkSnapshot *snapshot, const OnyxRect *visible)
{
  const float width = 3, gap = 2;

  if (self->tints == NULL)
    return;
  for (guint i = 0; i < self->layout->nodes->len; i++)
    {
      const OnyxRect *box = &layout_node (self, i)->box;
      GskRoundedRect frame;
      float x, y, w, h;

      if (self->tints[i].alpha <= 0 || box->x > visible->x + visible->width ||
          box->y > visible->y + visible->height || box->x + box->width < visible->x ||
          box->y + box->height < visible->y)
        continue;
      x = (box->x - self->ox) * self->scale - gap - width;
      y = (box->y - self->oy) * self->scale - gap - width;
      w = box->width * self->scale + 2 * (gap + width);
      h = box->height * self->scale + 2 * (gap + width);
      gsk_rounded_rect_init_from_rect (&frame, &GRAPHENE_RECT_INIT (x, y, w, h), 4 + gap + width);
      gtk_snapshot_append_border (snapshot, &frame, (const float[4]) { width, width, width, width },
                                  (const GdkRGBA[4]) { self->tints[i], self->tints[i],
                                                       self->tints[i], self->tints[i] });
    }
}

/* Problem dots keep their size on screen at any zoom, like the tint frames, and sit
 * on the box's top right corner, outside any tint frame's colour. */
static void
append_badges (OnyxCanvas *self, GtkSnapshot *snapshot, const OnyxRect *visible)
{
  const float radius = 6, ring = 1.5;
  GdkRGBA colors[] = { { 0 }, { 0.21, 0.52, 0.89, 1 }, { 0.90, 0.65, 0.04, 1 }, { 0.88, 0.11, 0.14, 1 } };
  GdkRGBA background = is_dark () ? (GdkRGBA) { 0.12, 0.12, 0.12, 1 } : (GdkRGBA) { 1, 1, 1, 1 };

  if (self->badges == NULL)
    return;
  for (guint i = 0; i < self->layout->nodes->len; i++)
    {
      const OnyxRect *box = &layout_node (self, i)->box;
      GskRoundedRect dot;
      float cx, cy;

      if (self->badges[i] == ONYX_CANVAS_BADGE_NONE || self->badges[i] >= G_N_ELEMENTS (colors) ||
          box->x > visible->x + visible->width || box->y > visible->y + visible->height ||
          box->x + box->width < visible->x || box->y + box->height < visible->y)
        continue;
      cx = (box->x + box->width - self->ox) * self->scale;
      cy = (box->y - self->oy) * self->scale;
      gsk_rounded_rect_init_from_rect (&dot, &GRAPHENE_RECT_INIT (cx - radius - ring, cy - radius - ring,
                                                                  2 * (radius + ring), 2 * (radius + ring)),
                                       radius + ring);
      gtk_snapshot_push_rounded_clip (snapshot, &dot);
      gtk_snapshot_append_color (snapshot, &background, &dot.bounds);
      gtk_snapshot_pop (snapshot);
      gsk_rounded_rect_init_from_rect (&dot, &GRAPHENE_RECT_INIT (cx - radius, cy - radius, 2 * radius, 2 * radius),
                                       radius);
      gtk_snapshot_push_rounded_clip (snapshot, &dot);
      gtk_snapshot_append_color (snapshot, &colors[self->badges[i]], &dot.bounds);
      gtk_snapshot_pop (snapshot);
    }
}

static void
draw_again (gpointer canvas, gpointer unused)
{
  gtk_widget_queue_draw (canvas);
}

static void
onyx_canvas_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  OnyxCanvas *self = ONYX_CANVAS (widget);
  OnyxRenderOptions options;
  OnyxRect visible;
  graphene_rect_t bounds;
  cairo_t *cr;
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  double cache_x = -self->ox * self->scale, cache_y = -self->oy * self->scale;

  if (self->layout == NULL || width <= 0 || height <= 0)
    return;
  /* A graph's first drawing waits for the next frame when another part filled this
   * one (a new page of the panel): the canvas showed nothing before either. */
  if (self->first_draw_due && onyx_frame_share_is_filled (widget))
    {
      onyx_frame_share_after (widget, draw_again, g_object_ref (self), g_object_unref);
      return;
    }
  self->first_draw_due = FALSE;

  visible_rect (self, &visible);
  /* An overview's image stays on whole device pixels: between them it would blur. */
  if (onyx_render_is_coarse (self->scale))
    {
      int factor = gtk_widget_get_scale_factor (widget);
      cache_x = round (cache_x * factor) / factor, cache_y = round (cache_y * factor) / factor;
    }
  if (self->cache == NULL || self->cache_scale != self->scale ||
      self->cache_dark != is_dark () || self->cache_scale_factor != gtk_widget_get_scale_factor (widget) ||
      !rect_contains (&self->cache_rect, &visible))
    render_cache (self, &visible);

  gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (cache_x, cache_y));
  gtk_snapshot_append_node (snapshot, self->cache);
  gtk_snapshot_restore (snapshot);

  if (self->selected < 0 && self->hovered < 0 && self->selected_edge < 0)
    {
      append_tints (self, snapshot, &visible);
      append_badges (self, snapshot, &visible);
      onyx_canvas_notes_append (self->notes, self->layout, snapshot, &visible, self->scale, self->ox, self->oy,
                            is_dark ());
      gtk_snapshot_pop (snapshot);
      return;
    }

  graphene_rect_init (&bounds, 0, 0, width, height);
  cr = gtk_snapshot_append_cairo (snapshot, &bounds);
  cairo_scale (cr, self->scale, self->scale);
  cairo_translate (cr, -self->ox, -self->oy);
  onyx_render_options_init (&options);
  options.scale = self->scale;
  options.dark = self->cache_dark;
  options.selected = self->selected;
  options.hovered = self->hovered;
  options.selected_edge = self->selected_edge;
  options.highlighted = self->highlighted;

  if (self->selected_edge >= 0 && (guint) self->selected_edge < self->layout->edges->len)
    {
      OnyxRect r;
      onyx_render_edge_bounds (&g_array_index (self->layout->edges, OnyxLayoutEdge, self->selected_edge), &r);
      draw_overlay_area (self, cr, &r, &options);
    }
  if (self->selected >= 0)
    draw_overlay_area (self, cr, &layout_node (self, self->selected)->box, &options);
  if (self->hovered >= 0)
    {
      GHashTableIter iter;
      gpointer key;

      draw_overlay_area (self, cr, &layout_node (self, self->hovered)->box, &options);
      g_hash_table_iter_init (&iter, self->highlighted);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        draw_overlay_area (self, cr, &layout_node (self, GPOINTER_TO_INT (key))->box, &options);
    }
  cairo_destroy (cr);
  append_tints (self, snapshot, &visible);
  append_badges (self, snapshot, &visible);
  onyx_canvas_notes_append (self->notes, self->layout, snapshot, &visible, self->scale, self->ox, self->oy,
                            is_dark ());
  gtk_snapshot_pop (snapshot);
}

static void
clamp_view (OnyxCanvas *self)
{
  OnyxRect visible;
  const OnyxRect *b;

  if (self->layout == NULL)
    return;
  /* Keep at least part of the graph in view. */
  visible_rect (self, &visible);
  b = &self->layout->bounds;
  self->ox = CLAMP (self->ox, b->x - visible.width * 0.9, b->x + b->width - visible.width * 0.1);
  self->oy = CLAMP (self->oy, b->y - visible.height * 0.9, b->y + b->height - visible.height * 0.1);
}

/* Zooms to `scale` keeping the layout point under widget point (wx, wy) in place. */
static void
zoom_at (OnyxCanvas *self, double scale, double wx, double wy)
{
  double lx = self->ox + wx / self->scale, ly = self->oy + wy / self->scale;

  self->scale = CLAMP (scale, ONYX_CANVAS_MIN_SCALE, MAX_SCALE);
  self->ox = lx - wx / self->scale;
  self->oy = ly - wy / self->scale;
  clamp_view (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Shows `view` now, or once the widget has a size. */
static void
show_view (OnyxCanvas *self, PendingView view)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));

  if (self->layout == NULL)
    return;
  if (width <= 0 || height <= 0)
    {
      self->pending_view = view;
      return;
    }
  self->pending_view = PENDING_NONE;
  if (view == PENDING_FIT)
    onyx_canvas_view_fit (self->layout, width, height, &self->scale, &self->ox, &self->oy);
  else
    onyx_canvas_view_first (self->layout, width, height, &self->scale, &self->ox, &self->oy);
  clamp_view (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
onyx_canvas_zoom_fit (OnyxCanvas *self)
{
  g_return_if_fail (ONYX_IS_CANVAS (self));
  show_view (self, PENDING_FIT);
}

void
onyx_canvas_show_first_view (OnyxCanvas *self)
{
  g_return_if_fail (ONYX_IS_CANVAS (self));
  show_view (self, PENDING_FIRST_VIEW);
}

static void
onyx_canvas_size_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  OnyxCanvas *self = ONYX_CANVAS (widget);

  /* A sidebar sliding in, or a dragged pane handle, should not push the graph aside. */
  if (self->pending_view == PENDING_NONE && self->alloc_width > 0 && self->alloc_height > 0)
    {
      self->ox += (self->alloc_width - width) / 2.0 / self->scale;
      self->oy += (self->alloc_height - height) / 2.0 / self->scale;
    }
  self->alloc_width = width;
  self->alloc_height = height;
  if (self->pending_view != PENDING_NONE)
    show_view (self, self->pending_view);
}

static void
to_layout (OnyxCanvas *self, double wx, double wy, double *lx, double *ly)
{
  *lx = self->ox + wx / self->scale;
  *ly = self->oy + wy / self->scale;
}

static void
set_hovered (OnyxCanvas *self, int hovered)
{
  if (hovered == self->hovered)
    return;
  self->hovered = hovered;
  g_hash_table_remove_all (self->highlighted);
  if (hovered >= 0)
    for (guint i = 0; i < self->layout->edges->len; i++)
      {
        const OnyxLayoutEdge *e = &g_array_index (self->layout->edges, OnyxLayoutEdge, i);
        if (e->from == hovered)
          g_hash_table_add (self->highlighted, GINT_TO_POINTER (e->to));
        else if (e->to == hovered)
          g_hash_table_add (self->highlighted, GINT_TO_POINTER (e->from));
      }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
motion_cb (GtkEventControllerMotion *motion, double x, double y, OnyxCanvas *self)
{
  double lx, ly;

  if (self->layout == NULL)
    return;
  to_layout (self, x, y, &lx, &ly);
  set_hovered (self, onyx_layout_hit_test (self->layout, lx, ly));
}

static gboolean
onyx_canvas_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip)
{
  OnyxCanvas *self = ONYX_CANVAS (widget);
  g_autofree char *text = NULL;
  double lx, ly;

  to_layout (self, x, y, &lx, &ly);
  if (self->layout != NULL && !keyboard)
    text = onyx_canvas_tooltip_text (self->layout, self->index, lx, ly, 5 / self->scale, self->tensor_note,
                                     self->tensor_note_data);
  if (text != NULL)
    gtk_tooltip_set_text (tooltip, text);
  return text != NULL;
}

void
onyx_canvas_set_tensor_note (OnyxCanvas *self, OnyxCanvasTensorNote note, gpointer user_data)
{
  self->tensor_note = note;
  self->tensor_note_data = user_data;
}

static void
leave_cb (GtkEventControllerMotion *motion, OnyxCanvas *self)
{
  if (self->layout != NULL)
    set_hovered (self, -1);
}

static void
drag_begin_cb (GtkGestureDrag *gesture, double x, double y, OnyxCanvas *self)
{
  self->drag_ox = self->ox;
  self->drag_oy = self->oy;
  gtk_widget_grab_focus (GTK_WIDGET (self));
}

static void
drag_update_cb (GtkGestureDrag *gesture, double dx, double dy, OnyxCanvas *self)
{
  self->ox = self->drag_ox - dx / self->scale;
  self->oy = self->drag_oy - dy / self->scale;
  clamp_view (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
drag_end_cb (GtkGestureDrag *gesture, double dx, double dy, OnyxCanvas *self)
{
  double sx, sy, lx, ly;
  int node, edge = -1, step;

  if (self->layout == NULL || hypot (dx, dy) > CLICK_SLOP)
    return;
  /* A press without movement is a click. */
  gtk_gesture_drag_get_start_point (gesture, &sx, &sy);
  to_layout (self, sx, sy, &lx, &ly);
  /* A quantization mark lies beside its edge, outside any box. */
  if ((edge = onyx_render_mark_hit_test (self->layout, self->index, lx, ly)) >= 0)
    {
      g_signal_emit (self, signals[MARK_ACTIVATED], 0, edge);
      return;
    }
  node = onyx_layout_hit_test (self->layout, lx, ly);
  if (node < 0)
    edge = onyx_render_edge_hit_test (self->layout, self->index, lx, ly, 5 / self->scale);
  else if ((step = onyx_layout_stack_button_at (&g_array_index (self->layout->nodes, OnyxLayoutNode, node), lx, ly)) != 0)
    {
      g_signal_emit (self, signals[STACK_STEPPED], 0, node, step);
      return;
    }
  else
    {
      /* A line standing for a graph node of its own (a folded Constant) selects that. */
      const GArray *line_nodes = g_array_index (self->layout->nodes, OnyxLayoutNode, node).line_nodes;
      int line = onyx_render_line_hit_test (self->layout, node, lx, ly);
      if (line >= 0 && g_array_index (line_nodes, int, line) >= 0)
        {
          g_signal_emit (self, signals[LINE_ACTIVATED], 0, node, line);
          return;
        }
    }
  g_signal_emit (self, signals[ITEM_ACTIVATED], 0, node, edge);
}

/* A double click on a node opens it (the graphs inside an If or Loop). */
static void
pressed_cb (GtkGestureClick *gesture, int n_press, double x, double y, OnyxCanvas *self)
{
  double lx, ly;
  int node;

  if (n_press != 2 || self->layout == NULL)
    return;
  to_layout (self, x, y, &lx, &ly);
  node = onyx_layout_hit_test (self->layout, lx, ly);
  if (node >= 0)
    g_signal_emit (self, signals[ITEM_OPENED], 0, node);
}

static gboolean
scroll_cb (GtkEventControllerScroll *scroll, double dx, double dy, OnyxCanvas *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (scroll));
  double step = gtk_event_controller_scroll_get_unit (scroll) == GDK_SCROLL_UNIT_WHEEL ? 50 : 1;

  if (self->layout == NULL)
    return FALSE;
  if (state & GDK_CONTROL_MASK)
    {
      double x = gtk_widget_get_width (GTK_WIDGET (self)) / 2.0;
      double y = gtk_widget_get_height (GTK_WIDGET (self)) / 2.0;
      GdkEvent *event = gtk_event_controller_get_current_event (GTK_EVENT_CONTROLLER (scroll));
      double ex, ey;

      /* Zoom around the pointer. */
      if (event != NULL && gdk_event_get_position (event, &ex, &ey))
        {
          graphene_point_t p;
          GtkNative *native = gtk_widget_get_native (GTK_WIDGET (self));
          double nx, ny;
          gtk_native_get_surface_transform (native, &nx, &ny);
          if (gtk_widget_compute_point (GTK_WIDGET (native), GTK_WIDGET (self),
                                        &GRAPHENE_POINT_INIT (ex - nx, ey - ny), &p))
            x = p.x, y = p.y;
        }
      zoom_at (self, self->scale * pow (1.1, -dy * (step > 1 ? 1 : 0.1)), x, y);
      return TRUE;
    }
  self->ox += dx * step / self->scale;
  self->oy += dy * step / self->scale;
  clamp_view (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  return TRUE;
}

static void
zoom_begin_cb (GtkGesture *gesture, GdkEventSequence *sequence, OnyxCanvas *self)
{
  self->zoom_start_scale = self->scale;
}

static void
zoom_changed_cb (GtkGestureZoom *gesture, double scale, OnyxCanvas *self)
{
  double x, y;

  /* Between the fingers; the widget's centre when the gesture has no touch points
   * (scale-changed emitted by hand, as the tests do). */
  if (!gtk_gesture_is_active (GTK_GESTURE (gesture)) ||
      !gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &x, &y))
    x = gtk_widget_get_width (GTK_WIDGET (self)) / 2.0, y = gtk_widget_get_height (GTK_WIDGET (self)) / 2.0;
  zoom_at (self, self->zoom_start_scale * scale, x, y);
}

/* Zooms by `factor` around the middle of the canvas. */
static void
zoom_centred (OnyxCanvas *self, double factor)
{
  GtkWidget *widget = GTK_WIDGET (self);

  zoom_at (self, self->scale * factor, gtk_widget_get_width (widget) / 2.0, gtk_widget_get_height (widget) / 2.0);
}

static void
zoom_in_action (GtkWidget *widget, const char *name, GVariant *param)
{
  zoom_centred (ONYX_CANVAS (widget), 1.25);
}

static void
zoom_out_action (GtkWidget *widget, const char *name, GVariant *param)
{
  zoom_centred (ONYX_CANVAS (widget), 1 / 1.25);
}

static void
zoom_fit_action (GtkWidget *widget, const char *name, GVariant *param)
{
  onyx_canvas_zoom_fit (ONYX_CANVAS (widget));
}

static void
first_view_action (GtkWidget *widget, const char *name, GVariant *param)
{
  onyx_canvas_show_first_view (ONYX_CANVAS (widget));
}

static void
style_changed_cb (OnyxCanvas *self)
{
  invalidate_cache (self);
}

static void
clear_layout (OnyxCanvas *self)
{
  g_clear_pointer (&self->index, onyx_render_index_free);
  g_clear_pointer (&self->layout, onyx_layout_free);
  g_clear_pointer (&self->cache, gsk_render_node_unref);
  g_clear_pointer (&self->tints, g_free);
  g_clear_pointer (&self->badges, g_free);
  g_clear_pointer (&self->notes, g_ptr_array_unref);
  g_hash_table_remove_all (self->highlighted);
  self->hovered = self->selected = self->selected_edge = -1;
}

static void
onyx_canvas_dispose (GObject *object)
{
  OnyxCanvas *self = ONYX_CANVAS (object);

  clear_layout (self);
  g_clear_pointer (&self->highlighted, g_hash_table_unref);
  g_signal_handlers_disconnect_by_data (adw_style_manager_get_default (), self);
  G_OBJECT_CLASS (onyx_canvas_parent_class)->dispose (object);
}

static void
onyx_canvas_class_init (OnyxCanvasClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = onyx_canvas_dispose;
  widget_class->snapshot = onyx_canvas_snapshot;
  widget_class->query_tooltip = onyx_canvas_query_tooltip;
  widget_class->size_allocate = onyx_canvas_size_allocate;

  signals[ITEM_ACTIVATED] = g_signal_new ("item-activated", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_INT);
  signals[ITEM_OPENED] = g_signal_new ("item-opened", G_TYPE_FROM_CLASS (klass),
                                       G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                       G_TYPE_NONE, 1, G_TYPE_INT);
  signals[LINE_ACTIVATED] = g_signal_new ("line-activated", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_INT);
  /* A click on an edge's quantization mark: the edge. */
  signals[MARK_ACTIVATED] = g_signal_new ("mark-activated", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 1, G_TYPE_INT);
  /* A click on an open stack's step buttons: the stack's node, -1 or 1. */
  signals[STACK_STEPPED] = g_signal_new ("stack-stepped", G_TYPE_FROM_CLASS (klass),
                                         G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                         G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_INT);

  gtk_widget_class_install_action (widget_class, "canvas.zoom-in", NULL, zoom_in_action);
  gtk_widget_class_install_action (widget_class, "canvas.zoom-out", NULL, zoom_out_action);
  gtk_widget_class_install_action (widget_class, "canvas.zoom-fit", NULL, zoom_fit_action);
  gtk_widget_class_install_action (widget_class, "canvas.first-view", NULL, first_view_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, 0, "canvas.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Add, 0, "canvas.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_equal, 0, "canvas.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_minus, 0, "canvas.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Subtract, 0, "canvas.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, 0, "canvas.zoom-fit", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_0, 0, "canvas.zoom-fit", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Home, 0, "canvas.first-view", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Home, 0, "canvas.first-view", NULL);

  gtk_widget_class_set_css_name (widget_class, "onyxcanvas");
}

static void
onyx_canvas_init (OnyxCanvas *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;

  self->scale = 1.0;
  self->hovered = self->selected = self->selected_edge = -1;
  self->highlighted = g_hash_table_new (NULL, NULL);
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
  gtk_widget_add_css_class (GTK_WIDGET (self), "onyx-canvas");
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);

  controller = gtk_event_controller_motion_new ();
  g_signal_connect (controller, "motion", G_CALLBACK (motion_cb), self);
  g_signal_connect (controller, "leave", G_CALLBACK (leave_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  gesture = gtk_gesture_drag_new ();
  g_signal_connect (gesture, "drag-begin", G_CALLBACK (drag_begin_cb), self);
  g_signal_connect (gesture, "drag-update", G_CALLBACK (drag_update_cb), self);
  g_signal_connect (gesture, "drag-end", G_CALLBACK (drag_end_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_click_new ();
  g_signal_connect (gesture, "pressed", G_CALLBACK (pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  controller = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect (controller, "scroll", G_CALLBACK (scroll_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  gesture = gtk_gesture_zoom_new ();
  g_signal_connect (gesture, "begin", G_CALLBACK (zoom_begin_cb), self);
  g_signal_connect (gesture, "scale-changed", G_CALLBACK (zoom_changed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  g_signal_connect_swapped (adw_style_manager_get_default (), "notify::dark",
                            G_CALLBACK (style_changed_cb), self);
}

GtkWidget *
onyx_canvas_new (void)
{
  return g_object_new (ONYX_TYPE_CANVAS, NULL);
}

void
onyx_canvas_set_layout (OnyxCanvas *self, OnyxLayout *layout, gboolean keep_view)
{
  g_return_if_fail (ONYX_IS_CANVAS (self));

  clear_layout (self);
  self->layout = layout;
  if (layout != NULL)
    {
      self->index = onyx_render_index_new (layout);
      self->first_draw_due = !keep_view;
      if (!keep_view)
        onyx_canvas_show_first_view (self);
      else
        clamp_view (self);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

const OnyxLayout *
onyx_canvas_get_layout (OnyxCanvas *self)
{
  g_return_val_if_fail (ONYX_IS_CANVAS (self), NULL);
  return self->layout;
}

void
onyx_canvas_set_selection (OnyxCanvas *self, int node, int edge)
{
  g_return_if_fail (ONYX_IS_CANVAS (self));
  self->selected = node;
  self->selected_edge = edge;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
onyx_canvas_set_node_tints (OnyxCanvas *self, const GdkRGBA *tints, guint n_tints)
{
  g_return_if_fail (ONYX_IS_CANVAS (self));
  g_return_if_fail (tints == NULL || (self->layout != NULL && n_tints == self->layout->nodes->len));
  g_clear_pointer (&self->tints, g_free);
  if (tints != NULL)
    self->tints = g_memdup2 (tints, n_tints * sizeof (GdkRGBA));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
onyx_canvas_get_node_tint (OnyxCanvas *self, int node, GdkRGBA *tint)
{
  g_return_val_if_fail (ONYX_IS_CANVAS (self), FALSE);
  if (self->tints == NULL || node < 0 || (guint) node >= self->layout->nodes->len ||
      self->tints[node].alpha <= 0)
    return FALSE;
  if (tint != NULL)
    *tint = self->tints[node];
  return TRUE;
}

void
onyx_canvas_set_node_badges (OnyxCanvas *self, const guint8 *badges, guint n_badges)
{
  g_return_if_fail (ONYX_IS_CANVAS (self));
  g_return_if_fail (badges == NULL || (self->layout != NULL && n_badges == self->layout->nodes->len));
  g_clear_pointer (&self->badges, g_free);
  if (badges != NULL)
    self->badges = g_memdup2 (badges, n_badges);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
onyx_canvas_set_node_notes (OnyxCanvas *self, const char *const *notes, guint n_notes)
{
  g_return_if_fail (ONYX_IS_CANVAS (self));
  g_return_if_fail (notes == NULL || (self->layout != NULL && n_notes == self->layout->nodes->len));
  g_clear_pointer (&self->notes, g_ptr_array_unref);
  if (notes != NULL)
    self->notes = onyx_canvas_notes_new (GTK_WIDGET (self), notes, n_notes);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

const char *
onyx_canvas_get_node_note (OnyxCanvas *self, int node)
{
  g_return_val_if_fail (ONYX_IS_CANVAS (self), NULL);
  if (self->notes == NULL || node < 0 || (guint) node >= self->notes->len || self->notes->pdata[node] == NULL)
    return NULL;
  return pango_layout_get_text (self->notes->pdata[node]);
}

OnyxCanvasBadge
onyx_canvas_get_node_badge (OnyxCanvas *self, int node)
{
  g_return_val_if_fail (ONYX_IS_CANVAS (self), ONYX_CANVAS_BADGE_NONE);
  if (self->badges == NULL || node < 0 || (guint) node >= self->layout->nodes->len)
    return ONYX_CANVAS_BADGE_NONE;
  return self->badges[node];
}

int
onyx_canvas_get_selected_node (OnyxCanvas *self)
{
  g_return_val_if_fail (ONYX_IS_CANVAS (self), -1);
  return self->selected;
}

int
onyx_canvas_get_selected_edge (OnyxCanvas *self)
{
  g_return_val_if_fail (ONYX_IS_CANVAS (self), -1);
  return self->selected_edge;
}

double
onyx_canvas_get_scale (OnyxCanvas *self)
{
  return self->scale;
}

void
onyx_canvas_get_visible_area (OnyxCanvas *self, OnyxRect *area)
{
  g_return_if_fail (ONYX_IS_CANVAS (self));
  visible_rect (self, area);
}

void
onyx_canvas_center_node (OnyxCanvas *self, int node)
{
  OnyxRect visible;
  const OnyxRect *box;

  g_return_if_fail (ONYX_IS_CANVAS (self));
  if (self->layout == NULL || node < 0 || (guint) node >= self->layout->nodes->len)
    return;
  visible_rect (self, &visible);
  box = &layout_node (self, node)->box;
  self->ox = box->x + box->width / 2 - visible.width / 2;
  self->oy = box->y + box->height / 2 - visible.height / 2;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
onyx_canvas_present_node (OnyxCanvas *self, int node)
{
  g_return_if_fail (ONYX_IS_CANVAS (self));
  if (self->layout == NULL || node < 0 || (guint) node >= self->layout->nodes->len)
    return;
  if (self->scale < ONYX_CANVAS_READABLE_SCALE)
    {
      self->scale = 1.0;
      onyx_canvas_center_node (self, node);
      return;
    }
  onyx_canvas_reveal_node (self, node);
}

void
onyx_canvas_reveal_node (OnyxCanvas *self, int node)
{
  OnyxRect visible;

  g_return_if_fail (ONYX_IS_CANVAS (self));
  if (self->layout == NULL || node < 0 || (guint) node >= self->layout->nodes->len)
    return;
  visible_rect (self, &visible);
  if (!rect_contains (&visible, &layout_node (self, node)->box))
    onyx_canvas_center_node (self, node);
}
