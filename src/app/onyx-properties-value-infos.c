/* onyx-properties-value-infos.c: the model page's inputs and outputs, a KV cache's
 * dozens of them gathered into families (onyx-name-family.h) whose rows are made
 * when opened. */
#include "onyx-properties-private.h"
#include "onyx-row-layout.h"

#include <glib/gi18n.h>

#include "onyx-name-family.h"
#include "onyx-types.h"
#include "onyx-text.h"

/* Gathered into families past this many rows (a screen's worth), families of at
 * least this many names. */
#define FAMILIES_PAST_ROWS 16
#define FAMILY_MIN_MEMBERS 4

/* An input or output: its name, its type, a link that selects it. */
static GtkWidget *
new_value_info_row (const Onnx__ValueInfoProto *info)
{
  g_autofree char *name = onyx_display_escape (info->name);
  g_autofree char *type = onyx_type_to_string (info->type);

  return onyx_properties_new_link_row (name, type, "graph.select-tensor", g_variant_new_string (info->name));
}

/* A family's members are made when it is first opened: 64 KV-cache rows rebuilt
 * after every edit would stall the window. */
static void
family_expanded_cb (AdwExpanderRow *row, GParamSpec *pspec, gpointer data)
{
  GPtrArray *members = g_object_get_data (G_OBJECT (row), "members");

  if (!adw_expander_row_get_expanded (row) || members == NULL)
    return;
  for (guint i = 0; i < members->len; i++)
    adw_expander_row_add_row (row, new_value_info_row (members->pdata[i]));
  g_object_set_data (G_OBJECT (row), "members", NULL);
}

/* Whether the page shown has the family `title` open: it stays open when the page
 * is made again after an edit. */
static gboolean
family_open_in (GtkWidget *widget, const char *title)
{
  if (widget == NULL)
    return FALSE;
  if (ADW_IS_EXPANDER_ROW (widget) &&
      g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), title) == 0)
    return adw_expander_row_get_expanded (ADW_EXPANDER_ROW (widget));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    if (family_open_in (child, title))
      return TRUE;
  return FALSE;
}

void
onyx_properties_add_value_infos (GtkWidget *group, GtkWidget *shown_page, Onnx__ValueInfoProto **infos, size_t n,
                                 gboolean inputs)
{
  g_autofree const char **names = g_new (const char *, n + 1);
  g_autoptr (GArray) families = NULL;

  for (size_t i = 0; i < n; i++)
    names[i] = infos[i]->name;
  families = onyx_name_families (names, (guint) n, n > FAMILIES_PAST_ROWS ? FAMILY_MIN_MEMBERS : G_MAXUINT);
  for (guint f = 0; f < families->len; f++)
    {
      const OnyxNameFamily *family = &g_array_index (families, OnyxNameFamily, f);
      g_autofree char *escaped = NULL, *count = NULL;
      GPtrArray *members;
      GtkWidget *row;

      if (family->title == NULL)
        {
          adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), new_value_info_row (infos[family->first]));
          continue;
        }
      escaped = onyx_display_escape (family->title);
      count = g_strdup_printf (inputs ? ngettext ("%u input", "%u inputs", family->n)
                                      : ngettext ("%u output", "%u outputs", family->n), family->n);
      row = adw_expander_row_new ();
      onyx_row_layout_stack_labels (row);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), escaped);
      adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (row), count);
      members = g_ptr_array_new ();
      for (guint i = family->first; i < family->first + family->n; i++)
        g_ptr_array_add (members, infos[i]);
      g_object_set_data_full (G_OBJECT (row), "members", members, (GDestroyNotify) g_ptr_array_unref);
      g_signal_connect (row, "notify::expanded", G_CALLBACK (family_expanded_cb), NULL);
      adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row), family_open_in (shown_page, escaped));
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
    }
}
