/* onyx-row-layout.c: see onyx-row-layout.h. */
#include "onyx-row-layout.h"

static GtkSizeRequestMode
height_for_width (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
measure_stack (GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum, int *natural,
               int *minimum_baseline, int *natural_baseline)
{
  *minimum = *natural = 0;
  /* No width of its own: the labels wrap to whatever the row gives. */
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    return;
  /* Asked for its height at that minimum width of 0 (GTK does, for a row's least
   * height), a label would break after each character and shape each one alone:
   * 16 such asks were half the layout of an LLM's model page. The height of the
   * lines unbroken answers it; an allocated width is measured as it is. */
  if (for_size == 0)
    for_size = -1;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      int child_minimum, child_natural;
      if (!gtk_widget_should_layout (child))
        continue;
      gtk_widget_measure (child, GTK_ORIENTATION_VERTICAL, for_size, &child_minimum, &child_natural, NULL, NULL);
      *minimum += child_minimum;
      *natural += child_natural;
    }
}

static void
allocate_stack (GtkWidget *widget, int width, int height, int baseline)
{
  int y = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      int child_minimum, child_natural;
      if (!gtk_widget_should_layout (child))
        continue;
      gtk_widget_measure (child, GTK_ORIENTATION_VERTICAL, width, &child_minimum, &child_natural, NULL, NULL);
      gtk_widget_allocate (child, width, child_natural, -1, gsk_transform_translate (NULL, &GRAPHENE_POINT_INIT (0, y)));
      y += child_natural;
    }
}

GtkWidget *
onyx_widget_find_descendant (GtkWidget *widget, gboolean (*matches) (GtkWidget *widget))
{
  if (matches (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = onyx_widget_find_descendant (child, matches);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
is_subtitle (GtkWidget *widget)
{
  return GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, "subtitle");
}

static GtkWidget *
find_subtitle (GtkWidget *row)
{
  return onyx_widget_find_descendant (row, is_subtitle);
}

GtkWidget *
onyx_row_layout_title_box (GtkWidget *row)
{
  GtkWidget *subtitle = find_subtitle (row);

  return subtitle != NULL ? gtk_widget_get_parent (subtitle) : NULL;
}

void
onyx_row_layout_stack_labels (GtkWidget *row)
{
  GtkWidget *subtitle = find_subtitle (row);
  GtkWidget *box = subtitle != NULL ? gtk_widget_get_parent (subtitle) : NULL;

  /* Only the vertical box of the title and the subtitle. */
  if (box == NULL || !GTK_IS_BOX (box) || gtk_orientable_get_orientation (GTK_ORIENTABLE (box)) != GTK_ORIENTATION_VERTICAL)
    return;
  for (GtkWidget *child = gtk_widget_get_first_child (box); child != NULL; child = gtk_widget_get_next_sibling (child))
    if (!GTK_IS_LABEL (child))
      return;
  gtk_widget_set_layout_manager (box, gtk_custom_layout_new (height_for_width, measure_stack, allocate_stack));
}
