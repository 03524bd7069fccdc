/* onyx-render-svg.c: the detailed drawing of onyx-render.c as SVG written here, with
 * text as <text> elements. cairo's SVG surface writes every glyph as a path: files ten
 * times the size, most of the export's time spent formatting their numbers, and labels
 * a browser can neither search nor select. PDF export stays with cairo. */
#include "onyx-render-private.h"

#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>

typedef struct {
  PangoFontDescription *description;
  char *family;    /* what fontconfig picked for it, as the drawing gets it */
  double size;     /* in layout points: pango's points at its 96 dpi */
  double baseline; /* below the top of the text, where pango puts the top */
  GHashTable *widths; /* text → its width in pango units, unlimited */
} Font;

typedef struct {
  FILE *out;
  const Onnx__GraphProto *graph;
  PangoLayout *pango;
  Font bold, small;
  const OnyxRenderPalette *palette;
  gboolean text;
  GString *escaped;
} Writer;

static inline void
put (Writer *w, const char *literal)
{
  fputs (literal, w->out);
}

/* Two decimals at most, trailing zeros dropped: printf's %g costs more than all the rest. */
static void
put_number (Writer *w, double value)
{
  char digits[32], *end = digits + sizeof digits, *p = end;
  long long hundredths = isfinite (value) ? llround (value * 100) : 0;
  unsigned long long whole = (unsigned long long) (hundredths < 0 ? -hundredths : hundredths);
  unsigned fraction = (unsigned) (whole % 100);

  whole /= 100;
  if (fraction % 10 != 0)
    *--p = (char) ('0' + fraction % 10);
  if (fraction != 0)
    {
      *--p = (char) ('0' + fraction / 10);
      *--p = '.';
    }
  do
    *--p = (char) ('0' + whole % 10);
  while ((whole /= 10) > 0);
  if (hundredths < 0)
    *--p = '-';
  fwrite (p, 1, (size_t) (end - p), w->out);
}

static void
put_point (Writer *w, double x, double y)
{
  put_number (w, x);
  putc (' ', w->out);
  put_number (w, y);
}

static void
put_colour (Writer *w, const Colour *colour)
{
  fprintf (w->out, "#%02x%02x%02x", (int) lround (CLAMP (colour->r, 0, 1) * 255),
           (int) lround (CLAMP (colour->g, 0, 1) * 255), (int) lround (CLAMP (colour->b, 0, 1) * 255));
}

/* Valid UTF-8 `text` as XML character data; what XML 1.0 cannot hold (control
 * characters) becomes U+FFFD. */
static void
put_escaped (Writer *w, const char *text, gssize length)
{
  const char *end = length < 0 ? text + strlen (text) : text + length;

  g_string_truncate (w->escaped, 0);
  for (const char *c = text; c < end; c = g_utf8_next_char (c))
    {
      gunichar ch = g_utf8_get_char (c);
      if (ch == '&')
        g_string_append (w->escaped, "&amp;");
      else if (ch == '<')
        g_string_append (w->escaped, "&lt;");
      else if (ch == '>')
        g_string_append (w->escaped, "&gt;");
      else if (ch == '"')
        g_string_append (w->escaped, "&quot;");
      else if ((ch < 0x20 && ch != '\t') || ch == 0xfffe || ch == 0xffff)
        g_string_append (w->escaped, "\xef\xbf\xbd");
      else
        g_string_append_len (w->escaped, c, g_utf8_next_char (c) - c);
    }
  fwrite (w->escaped->str, 1, w->escaped->len, w->out);
}

/* The path of a rounded rectangle; with `band` > 0, only its top `band` points (a box's
 * header): rounded at the top, square at the bottom. */
static void
put_box_path (Writer *w, const OnyxRect *box, double radius, double band)
{
  double r = MIN (radius, MIN (box->width, box->height) / 2);
  double x0 = box->x, y0 = box->y, x1 = box->x + box->width, y1 = box->y + box->height;

  /* A band ending within the bottom corners is drawn as the whole box: header-only op
   * boxes, the only ones that short, are all band. */
  gboolean square_bottom = band > 0 && band <= box->height - r;
  if (square_bottom)
    y1 = y0 + band;
  put (w, "M");
  put_point (w, x0 + r, y0);
  put (w, "H");
  put_number (w, x1 - r);
#define ARC_TO(x, y) (put (w, "A"), put_point (w, r, r), put (w, " 0 0 1 "), put_point (w, x, y))
  ARC_TO (x1, y0 + r);
  put (w, "V");
  if (square_bottom)
    {
      put_number (w, y1);
      put (w, "H");
      put_number (w, x0);
    }
  else
    {
      put_number (w, y1 - r);
      ARC_TO (x1 - r, y1);
      put (w, "H");
      put_number (w, x0 + r);
      ARC_TO (x0, y1 - r);
    }
  put (w, "V");
  put_number (w, y0 + r);
  ARC_TO (x0 + r, y0);
#undef ARC_TO
  put (w, "Z");
}

/* The width of `text` in `font`, in pango units: most texts repeat (op types, shapes,
 * attribute lines), and shaping them is most of the writer's time. */
static int
text_width (Writer *w, Font *font, const char *text)
{
  gpointer cached;
  int width;

  if (g_hash_table_lookup_extended (font->widths, text, NULL, &cached))
    return GPOINTER_TO_INT (cached);
  pango_layout_set_font_description (w->pango, font->description);
  pango_layout_set_text (w->pango, text, -1);
  pango_layout_set_width (w->pango, -1);
  pango_layout_get_size (w->pango, &width, NULL);
  g_hash_table_insert (font->widths, g_strdup (text), GINT_TO_POINTER (width));
  return width;
}

/* How many bytes of `text` pango keeps before the "…" when it cuts it to `limit`. */
static int
kept_length (Writer *w, Font *font, const char *text, int limit)
{
  PangoLayoutLine *line;
  int kept = 0;

  pango_layout_set_font_description (w->pango, font->description);
  pango_layout_set_text (w->pango, text, -1);
  pango_layout_set_width (w->pango, limit);
  if (!pango_layout_is_ellipsized (w->pango))
    return (int) strlen (text);
  line = pango_layout_get_line_readonly (w->pango, 0);
  for (GSList *run = line != NULL ? line->runs : NULL; run != NULL; run = run->next)
    {
      const PangoItem *item = ((PangoGlyphItem *) run->data)->item;
      if (!(item->analysis.flags & PANGO_ANALYSIS_FLAG_IS_ELLIPSIS))
        kept = MAX (kept, item->offset + item->length);
    }
  return kept;
}

/* Text placed as draw_text of onyx-render.c places it: its top left at x, y, cut with
 * "…" where pango would cut it to fit `max_width`. */
static void
put_text (Writer *w, Font *font, const char *class_name, const Colour *colour, const char *text,
          double x, double y, double max_width)
{
  g_autofree char *valid = NULL;
  const char *shown = text;
  int limit = (int) (max_width * PANGO_SCALE), length, kept;

  if (!w->text)
    return;
  if (!g_utf8_validate (text, -1, NULL))
    shown = valid = g_utf8_make_valid (text, -1);
  length = (int) strlen (shown);
  kept = text_width (w, font, shown) > limit ? kept_length (w, font, shown, limit) : length;
  put (w, "<text x=\"");
  put_number (w, x);
  put (w, "\" y=\"");
  put_number (w, y + font->baseline);
  put (w, "\" class=\"");
  put (w, class_name);
  put (w, "\" fill=\"");
  put_colour (w, colour);
  put (w, "\">");
  put_escaped (w, shown, kept);
  if (kept < length)
    put (w, "…");
  put (w, "</text>\n");
}

/* ` data-box="x y width height"`: where a box or label is, for tools (and Onyx's
 * tests) checking that nothing overlaps, without measuring text again. */
static void
put_data_box (Writer *w, const char *attribute, const OnyxRect *box)
{
  fprintf (w->out, " %s=\"", attribute);
  put_point (w, box->x, box->y);
  putc (' ', w->out);
  put_point (w, box->width, box->height);
  putc ('"', w->out);
}

/* `attribute`: "data-box" for op and value boxes, "data-group" for groups. */
static void
put_title (Writer *w, const char *attribute, const OnyxRect *box, const char *name)
{
  g_autofree char *valid = name != NULL && !g_utf8_validate (name, -1, NULL) ? g_utf8_make_valid (name, -1) : NULL;

  put (w, "<g");
  put_data_box (w, attribute, box);
  put (w, "><title>");
  put_escaped (w, valid != NULL ? valid : name != NULL ? name : "", -1);
  put (w, "</title>");
}

/* The box's outline, as outline_state of onyx-render.c strokes it when nothing is
 * selected (exports select nothing). */
static void
put_outline (Writer *w, const OnyxRect *box, double radius, gboolean dashed)
{
  put (w, dashed ? "<path class=\"o d\" d=\"" : "<path class=\"o\" d=\"");
  put_box_path (w, box, radius, 0);
  put (w, "\"/>");
}

static void
put_filled_box (Writer *w, const OnyxRect *box, double radius, double band, const Colour *colour,
                double alpha)
{
  put (w, "<path d=\"");
  put_box_path (w, box, radius, band);
  put (w, "\" fill=\"");
  put_colour (w, colour);
  if (alpha < 1)
    {
      put (w, "\" fill-opacity=\"");
      put_number (w, alpha);
    }
  put (w, "\"/>");
}

static void
write_group (Writer *w, const OnyxLayoutNode *node)
{
  const OnyxRenderPalette *palette = w->palette;
  const Colour *fill = node->expanded ? &palette->open_group : &palette->closed_group;
  double alpha = node->expanded ? palette->open_group_alpha : palette->closed_group_alpha;
  OnyxRect cards[3];
  guint n_cards = onyx_render_group_cards (node, cards);
  const OnyxRect *front = &cards[n_cards - 1];
  double x = node->box.x + 8, y = node->box.y + 4, width = front->width - 16;

  put_title (w, "data-group", &node->box, node->scope != NULL ? node->scope : node->title);
  /* As draw_group of onyx-render.c: a closed stack's cards hide those behind. */
  for (guint card = 0; card + 1 < n_cards; card++)
    {
      put_filled_box (w, &cards[card], RADIUS * 1.5, 0, &palette->body, 1);
      put_filled_box (w, &cards[card], RADIUS * 1.5, 0, fill, alpha);
      put_outline (w, &cards[card], RADIUS * 1.5, FALSE);
    }
  if (n_cards > 1)
    put_filled_box (w, front, RADIUS * 1.5, 0, &palette->body, 1);
  put_filled_box (w, front, RADIUS * 1.5, 0, fill, alpha);
  put_outline (w, front, RADIUS * 1.5, node->expanded);
  if (node->expanded)
    {
      double buttons = node->stack_size > 0 ? ONYX_LAYOUT_STACK_BUTTONS_WIDTH : 0;
      g_autofree char *header = onyx_render_group_header (node);
      put_text (w, &w->bold, "b", &palette->fg, header, x, y, width - buttons);
      if (buttons > 0)
        {
          put_text (w, &w->bold, "b", &palette->fg, "‹", onyx_render_stack_button_x (node, -1), y, 12);
          put_text (w, &w->bold, "b", &palette->fg, "›", onyx_render_stack_button_x (node, 1), y, 12);
        }
    }
  else
    {
      put_text (w, &w->bold, "b", &palette->fg, node->title, x, y, width);
      put_text (w, &w->small, "s", &palette->muted, node->subtitle, x, node->box.y + 22, width);
    }
  put (w, "</g>\n");
}

static void
write_value (Writer *w, const OnyxLayoutNode *node)
{
  gboolean outer = node->kind == ONYX_LAYOUT_OUTER || node->kind == ONYX_LAYOUT_STUB;
  double x = node->box.x + 10, width = node->box.width - 20;

  put_title (w, "data-box", &node->box, node->title);
  put_filled_box (w, &node->box, node->box.height / 2, 0, outer ? &w->palette->outer_body : &w->palette->body, 1);
  put_outline (w, &node->box, node->box.height / 2, outer);
  put_text (w, &w->bold, "b", &w->palette->fg, node->title, x, node->box.y + 4, width);
  if (node->subtitle != NULL)
    put_text (w, &w->small, "s", &w->palette->muted, node->subtitle, x, node->box.y + 20, width);
  put (w, "</g>\n");
}

static void
write_op (Writer *w, const OnyxLayoutNode *node)
{
  static const Colour white = { 1, 1, 1 };
  double x = node->box.x + 8, width = node->box.width - 16;
  const char *name = w->graph != NULL && node->index >= 0 && (size_t) node->index < w->graph->n_node
                       ? w->graph->node[node->index]->name : NULL;

  /* Its node's name; the box shows its op type. */
  put_title (w, "data-box", &node->box, name != NULL && name[0] != '\0' ? name : node->title);
  if (node->box.height > HEADER_HEIGHT)
    put_filled_box (w, &node->box, RADIUS, 0, &w->palette->body, 1);
  put_filled_box (w, &node->box, RADIUS, HEADER_HEIGHT, &onyx_render_category_colours[node->category], 1);
  put_outline (w, &node->box, RADIUS, FALSE);
  put_text (w, &w->bold, "b", &white, node->title, x, node->box.y + 4, width);
  if (node->subtitle != NULL)
    put_text (w, &w->small, "s", &w->palette->muted, node->subtitle, x, node->box.y + TEXT_TOP, width);
  for (guint i = 0; i < node->lines->len; i++)
    put_text (w, &w->small, "s", &w->palette->fg, node->lines->pdata[i], x,
              onyx_render_first_line_y (node) + i * LINE_PITCH, width);
  put (w, "</g>\n");
}

static void
write_edge (Writer *w, const OnyxLayoutEdge *edge)
{
  const GArray *pts = edge->points;
  guint n = pts->len / 2;
  double head[6];
#define PT(i) g_array_index (pts, double, 2 * (i)), g_array_index (pts, double, 2 * (i) + 1)

  if (n < 2)
    return;
  put (w, edge->implicit ? "<path class=\"e d\" d=\"M" : "<path class=\"e\" d=\"M");
  put_point (w, PT (0));
  for (guint i = 1; i + 2 < n; i += 3)
    {
      put (w, "C");
      put_point (w, PT (i));
      putc (' ', w->out);
      put_point (w, PT (i + 1));
      putc (' ', w->out);
      put_point (w, PT (i + 2));
    }
  put (w, "\"/>");
  /* Arrowhead along the last segment, as draw_edge draws it. */
  if (onyx_render_arrowhead (pts, head))
    {
      put (w, "<path class=\"a\" d=\"M");
      put_point (w, head[0], head[1]);
      put (w, "L");
      put_point (w, head[2], head[3]);
      put (w, "L");
      put_point (w, head[4], head[5]);
      put (w, "Z\"/>");
    }
  if ((edge->label != NULL || edge->mark != NULL) && edge->label_box.width >= 0 && w->text)
    {
      put (w, "<g");
      put_data_box (w, "data-label", &edge->label_box);
      put (w, ">");
      if (edge->label != NULL)
        put_text (w, &w->small, "s", &w->palette->muted, edge->label, edge->label_box.x + EDGE_LABEL_INSET,
                  edge->label_box.y, edge->label_box.width - EDGE_LABEL_INSET);
      if (edge->mark != NULL)
        {
          /* As draw_edge draws it: a tinted tag under the shape. */
          OnyxRect tag;
          onyx_render_mark_tag (edge, &tag);
          put (w, "<path class=\"m\" d=\"");
          put_box_path (w, &tag, MARK_RADIUS, 0);
          put (w, "\" fill=\"");
          put_colour (w, &w->palette->mark);
          put (w, "\"/>");
          put_text (w, &w->small, "s", &w->palette->fg, edge->mark, tag.x + ONYX_LAYOUT_MARK_PAD,
                    tag.y + MARK_TEXT_TOP, tag.width - ONYX_LAYOUT_MARK_PAD);
        }
      put (w, "</g>");
    }
  putc ('\n', w->out);
#undef PT
}

static void
font_init (Font *font, PangoLayout *pango, const char *name)
{
  PangoContext *context = pango_layout_get_context (pango);
  PangoFont *loaded;
  double dpi = pango_cairo_context_get_resolution (context);

  font->description = pango_font_description_from_string (name);
  loaded = pango_context_load_font (context, font->description);
  if (loaded != NULL)
    {
      PangoFontDescription *described = pango_font_describe (loaded);
      font->family = g_strdup (pango_font_description_get_family (described));
      pango_font_description_free (described);
      g_object_unref (loaded);
    }
  if (font->family == NULL)
    font->family = g_strdup (pango_font_description_get_family (font->description));
  /* Written as quoted CSS text in XML: no quotes, backslashes or markup of its own. */
  g_strdelimit (font->family, "'\\\"<>&", ' ');
  font->size = pango_font_description_get_size (font->description) / (double) PANGO_SCALE * (dpi > 0 ? dpi : 96) / 72;
  pango_layout_set_font_description (pango, font->description);
  pango_layout_set_text (pango, "Ag", -1);
  font->baseline = pango_layout_get_baseline (pango) / (double) PANGO_SCALE;
  font->widths = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

static void
font_clear (Font *font)
{
  pango_font_description_free (font->description);
  g_free (font->family);
  g_hash_table_unref (font->widths);
}

static void
put_font_style (Writer *w, const char *class_name, const Font *font)
{
  fprintf (w->out, ".%s{font-family:", class_name);
  fprintf (w->out, "'%s',sans-serif;font-size:", font->family);
  put_number (w, font->size);
  fprintf (w->out, "px;font-weight:%s}\n",
           pango_font_description_get_weight (font->description) >= PANGO_WEIGHT_BOLD ? "bold" : "normal");
}

static gboolean
meets (const OnyxRect *box, const OnyxRect *area, double margin)
{
  return box->width >= 0 && box->x <= area->x + area->width + margin && box->x + box->width >= area->x - margin &&
         box->y <= area->y + area->height + margin && box->y + box->height >= area->y - margin;
}

gboolean
onyx_render_svg_write (const OnyxLayout *layout, const Onnx__GraphProto *graph, const OnyxRect *area,
                       double width, double height, gboolean text, FILE *out)
{
  /* Text is measured the way onyx-layout-items.c measures it, which sized the boxes. */
  PangoFontMap *font_map = pango_cairo_font_map_new ();
  PangoContext *context = pango_font_map_create_context (font_map);
  Writer w = { out, graph, NULL };

  onyx_layout_text_context_setup (context);
  w.pango = pango_layout_new (context);

  w.palette = onyx_render_palette (FALSE);
  w.text = text;
  w.escaped = g_string_new (NULL);
  /* Cuts texts as draw_text does; no effect while the width is unlimited. */
  pango_layout_set_ellipsize (w.pango, PANGO_ELLIPSIZE_END);
  font_init (&w.bold, w.pango, FONT_BOLD);
  font_init (&w.small, w.pango, FONT_SMALL);

  put (&w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"");
  put_number (&w, width);
  put (&w, "pt\" height=\"");
  put_number (&w, height);
  put (&w, "pt\" viewBox=\"");
  put_point (&w, area->x, area->y);
  putc (' ', out);
  put_point (&w, area->width, area->height);
  put (&w, "\" xml:space=\"preserve\">\n<style>\n");
  fputs (".o{fill:none;stroke:", out);
  put_colour (&w, &w.palette->line);
  fputs (";stroke-width:1}\n.e{fill:none;stroke:", out);
  put_colour (&w, &w.palette->line);
  fputs (";stroke-width:1.1}\n.m{stroke:", out);
  put_colour (&w, &w.palette->line);
  fputs (";stroke-width:0.8}\n.a{fill:", out);
  put_colour (&w, &w.palette->line);
  fprintf (out, "}\n.d{stroke-dasharray:%g %g}\ntext{white-space:pre}\n", dashes[0], dashes[1]);
  put_font_style (&w, "b", &w.bold);
  put_font_style (&w, "s", &w.small);
  put (&w, "</style>\n<rect x=\"");
  put_number (&w, area->x);
  put (&w, "\" y=\"");
  put_number (&w, area->y);
  put (&w, "\" width=\"");
  put_number (&w, area->width);
  put (&w, "\" height=\"");
  put_number (&w, area->height);
  put (&w, "\" fill=\"#fff\"/>\n");

  /* In the order of draw_detailed: groups (outer first), edges (the last first, as its
   * sorted entries run), then the boxes. */
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      if (node->kind == ONYX_LAYOUT_GROUP && meets (&node->box, area, 0))
        write_group (&w, node);
    }
  for (guint i = layout->edges->len; i-- > 0;)
    {
      const OnyxLayoutEdge *edge = &g_array_index (layout->edges, OnyxLayoutEdge, i);
      OnyxRect bounds;
      onyx_render_edge_bounds (edge, &bounds);
      if (meets (&bounds, area, 0))
        write_edge (&w, edge);
    }
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      if (node->kind == ONYX_LAYOUT_GROUP || !meets (&node->box, area, 0))
        continue;
      if (node->kind == ONYX_LAYOUT_OP)
        write_op (&w, node);
      else
        write_value (&w, node);
    }
  put (&w, "</svg>\n");

  font_clear (&w.bold);
  font_clear (&w.small);
  g_string_free (w.escaped, TRUE);
  g_object_unref (w.pango);
  g_object_unref (context);
  g_object_unref (font_map);
  return !ferror (out);
}
