/* onyx-header-bar.c: the window's header bar (onyx-header-bar.h). */
#include "onyx-header-bar.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "onyx-graph-path-bar.h"
#include "onyx-problems-button.h"

struct _OnyxHeaderBar {
  AdwBin parent_instance;

  AdwWindowTitle *window_title;
  GtkWidget *undo_button;
  GtkWidget *redo_button;
  GMenu *edit_section;            /* Undo/Redo items naming the step */
  GMenu *recent_menu;
  OnyxGraphPathBar *path_bar;
  OnyxProblemsButton *problems_button;
  GtkSpinner *spinner;

  OnyxViewState *state;
  char *title;
};

G_DEFINE_FINAL_TYPE (OnyxHeaderBar, onyx_header_bar, ADW_TYPE_BIN)

enum { PROP_0, PROP_TITLE, N_PROPS };
static GParamSpec *props[N_PROPS];

static void
set_title (OnyxHeaderBar *self, const char *title)
{
  if (g_strcmp0 (self->title, title) == 0)
    return;
  g_free (self->title);
  self->title = g_strdup (title);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_TITLE]);
}

static void
update_title (OnyxHeaderBar *self)
{
  GFile *file = onyx_view_state_get_file (self->state);
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  g_autofree char *base = NULL, *dir = NULL, *title = NULL;

  if (file == NULL)
    {
      adw_window_title_set_title (self->window_title, "Onyx");
      adw_window_title_set_subtitle (self->window_title, NULL);
      set_title (self, g_str_equal (onyx_view_state_get_page (self->state), "error") ? _("Could Not Open the Model")
                                                                                     : "Onyx");
      return;
    }
  base = g_file_get_basename (file);
  dir = g_file_get_parse_name (file);
  title = document != NULL && onyx_document_is_modified (document) ? g_strdup_printf ("• %s", base) : g_strdup (base);
  adw_window_title_set_title (self->window_title, title);
  adw_window_title_set_subtitle (self->window_title, dir);
  set_title (self, title);
}

/* Undo and Redo name the step they undo or redo. */
static void
update_undo (OnyxHeaderBar *self)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  const char *undo = document != NULL ? onyx_document_get_undo_label (document) : NULL;
  const char *redo = document != NULL ? onyx_document_get_redo_label (document) : NULL;
  g_autofree char *undo_tip = undo ? g_strdup_printf (_("Undo “%s”"), undo) : g_strdup (_("Undo"));
  g_autofree char *redo_tip = redo ? g_strdup_printf (_("Redo “%s”"), redo) : g_strdup (_("Redo"));

  gtk_widget_set_tooltip_text (self->undo_button, undo_tip);
  gtk_widget_set_tooltip_text (self->redo_button, redo_tip);
  g_menu_remove_all (self->edit_section);
  if (document != NULL)
    {
      /* Menu labels read "_" as a mnemonic; node names are full of them. */
      g_autoptr (GString) undo_label = g_string_new (undo_tip);
      g_autoptr (GString) redo_label = g_string_new (redo_tip);
      g_string_replace (undo_label, "_", "__", 0);
      g_string_replace (redo_label, "_", "__", 0);
      g_menu_append (self->edit_section, undo_label->str, "edit.undo");
      g_menu_append (self->edit_section, redo_label->str, "edit.redo");
    }
}

static void
changed_cb (OnyxHeaderBar *self)
{
  update_title (self);
  update_undo (self);
}

/* The spinner shows while a background job has run for a while; its tooltip names
 * the jobs. */
static void
jobs_changed_cb (OnyxHeaderBar *self)
{
  OnyxJobs *jobs = onyx_view_state_get_jobs (self->state);
  gboolean busy = onyx_jobs_get_busy (jobs);

  gtk_widget_set_tooltip_text (GTK_WIDGET (self->spinner), onyx_jobs_get_label (jobs));
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), busy);
  gtk_spinner_set_spinning (self->spinner, busy);
}

void
onyx_header_bar_set_state (OnyxHeaderBar *self, OnyxViewState *state)
{
  OnyxJobs *jobs = onyx_view_state_get_jobs (state);

  g_return_if_fail (ONYX_IS_HEADER_BAR (self) && self->state == NULL);
  self->state = g_object_ref (state);
  onyx_graph_path_bar_set_state (self->path_bar, state);
  onyx_problems_button_set_state (self->problems_button, state);

  for (const char *const *signal = (const char *const[]) { "notify::file", "notify::document", "notify::page",
         "stepped", NULL }; *signal; signal++)
    g_signal_connect_object (state, *signal, G_CALLBACK (changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (jobs, "notify::busy", G_CALLBACK (jobs_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (jobs, "notify::label", G_CALLBACK (jobs_changed_cb), self, G_CONNECT_SWAPPED);
  changed_cb (self);
  jobs_changed_cb (self);
}

const char *
onyx_header_bar_get_title (OnyxHeaderBar *self)
{
  return self->title;
}

GMenu *
onyx_header_bar_get_recent_menu (OnyxHeaderBar *self)
{
  return self->recent_menu;
}

static void
onyx_header_bar_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_TITLE: g_value_set_string (value, ONYX_HEADER_BAR (object)->title); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
onyx_header_bar_dispose (GObject *object)
{
  OnyxHeaderBar *self = ONYX_HEADER_BAR (object);

  g_clear_object (&self->state);
  gtk_widget_dispose_template (GTK_WIDGET (self), ONYX_TYPE_HEADER_BAR);
  G_OBJECT_CLASS (onyx_header_bar_parent_class)->dispose (object);
}

static void
onyx_header_bar_finalize (GObject *object)
{
  g_free (ONYX_HEADER_BAR (object)->title);
  G_OBJECT_CLASS (onyx_header_bar_parent_class)->finalize (object);
}

static void
onyx_header_bar_class_init (OnyxHeaderBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = onyx_header_bar_get_property;
  object_class->dispose = onyx_header_bar_dispose;
  object_class->finalize = onyx_header_bar_finalize;
  props[PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, "Onyx",
                                           G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);
  g_type_ensure (ONYX_TYPE_GRAPH_PATH_BAR);
  g_type_ensure (ONYX_TYPE_PROBLEMS_BUTTON);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/onyxviewer/Onyx/onyx-header-bar.ui");
  gtk_widget_class_bind_template_child (widget_class, OnyxHeaderBar, window_title);
  gtk_widget_class_bind_template_child (widget_class, OnyxHeaderBar, undo_button);
  gtk_widget_class_bind_template_child (widget_class, OnyxHeaderBar, redo_button);
  gtk_widget_class_bind_template_child (widget_class, OnyxHeaderBar, edit_section);
  gtk_widget_class_bind_template_child (widget_class, OnyxHeaderBar, recent_menu);
  gtk_widget_class_bind_template_child (widget_class, OnyxHeaderBar, path_bar);
  gtk_widget_class_bind_template_child (widget_class, OnyxHeaderBar, problems_button);

  gtk_widget_class_bind_template_child (widget_class, OnyxHeaderBar, spinner);
}

static void
onyx_header_bar_init (OnyxHeaderBar *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->title = g_strdup ("Onyx");
}
