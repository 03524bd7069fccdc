/* onyx-window.c: the window builds its parts, gives them the view state and places
 * them (onyx-window.h); it shows the page the state is at, the toasts it asks for,
 * and asks about unsaved changes before it closes. */
#include "onyx-window-private.h"

#include <glib/gi18n.h>

#include "onyx-compare-pane.h"
#include "onyx-convert-dialog.h"
#include "onyx-simplifier.h"
#include "onyx-editor.h"
#include "onyx-find-bar.h"
#include "onyx-graph-view.h"
#include "onyx-header-bar.h"
#include "onyx-problems-pane.h"
#include "onyx-properties.h"
#include "onyx-recent.h"
#include "onyx-profile-pane.h"
#include "onyx-run-pane.h"

struct _OnyxWindow {
  AdwApplicationWindow parent_instance;

  /* template children: the parts with a widget, and where the pages are */
  AdwToastOverlay *toast_overlay;
  OnyxHeaderBar *header_bar;
  OnyxFindBar *find_bar;
  GtkStack *stack;
  AdwStatusPage *error_page;
  GtkWidget *recent_group;
  GtkListBox *recent_list;
  OnyxGraphView *graph_view;
  OnyxProperties *properties;
  OnyxProblemsPane *problems_pane;
  OnyxComparePane *compare_pane;
  OnyxRunPane *run_pane;
  OnyxProfilePane *profile_pane;

  OnyxViewState *state;
  /* the parts without a widget */
  OnyxFiles *files;
  OnyxEditor *editor;
  OnyxRecent *recent;
  OnyxGenerate *generate;
  OnyxSimplifier *simplifier;
  GActionGroup *convert;

  gboolean close_confirmed;
};

G_DEFINE_FINAL_TYPE (OnyxWindow, onyx_window, ADW_TYPE_APPLICATION_WINDOW)

OnyxViewState *
onyx_window_get_view_state (OnyxWindow *self)
{
  g_return_val_if_fail (ONYX_IS_WINDOW (self), NULL);
  return self->state;
}

OnyxDocument *
onyx_window_get_document (OnyxWindow *self)
{
  g_return_val_if_fail (ONYX_IS_WINDOW (self), NULL);
  return onyx_view_state_get_document (self->state);
}

GFile *
onyx_window_get_file (OnyxWindow *self)
{
  g_return_val_if_fail (ONYX_IS_WINDOW (self), NULL);
  return onyx_view_state_get_file (self->state);
}

const char *
onyx_window_get_page (OnyxWindow *self)
{
  g_return_val_if_fail (ONYX_IS_WINDOW (self), NULL);
  return onyx_view_state_get_page (self->state);
}

gboolean
onyx_window_is_opening (OnyxWindow *self)
{
  g_return_val_if_fail (ONYX_IS_WINDOW (self), FALSE);
  return onyx_files_is_opening (self->files);
}

gboolean
onyx_window_has_model (OnyxWindow *self)
{
  return onyx_window_get_document (self) != NULL || onyx_window_is_opening (self);
}

void
onyx_window_open_file (OnyxWindow *self, GFile *file)
{
  onyx_window_open_file_at (self, file, NULL);
}

void
onyx_window_open_file_at (OnyxWindow *self, GFile *file, const char *graph)
{
  g_return_if_fail (ONYX_IS_WINDOW (self));
  onyx_files_open (self->files, file, graph);
}

OnyxFiles *
onyx_window_get_files (OnyxWindow *self)
{
  return self->files;
}

OnyxGenerate *
onyx_window_get_generate (OnyxWindow *self)
{
  return self->generate;
}

/* ---- What the state asks of the window ---- */

static void
page_changed_cb (OnyxWindow *self)
{
  const char *error = onyx_view_state_get_error (self->state);

  if (error != NULL)
    {
      /* The description is markup; file names may hold "<" or "&". */
      g_autofree char *markup = g_markup_escape_text (error, -1);
      adw_status_page_set_description (self->error_page, markup);
    }
  gtk_stack_set_visible_child_name (self->stack, onyx_view_state_get_page (self->state));
}

static void
toast_cb (OnyxWindow *self, const char *message, gboolean with_undo)
{
  AdwToast *toast = adw_toast_new (message);

  if (with_undo)
    {
      adw_toast_set_button_label (toast, _("Undo"));
      adw_toast_set_action_name (toast, "edit.undo");
    }
  adw_toast_set_timeout (toast, 4);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

/* A model in a window of its own, of the same application. */
static void
open_elsewhere_cb (OnyxWindow *self, GFile *file)
{
  OnyxWindow *other = onyx_window_new (gtk_window_get_application (GTK_WINDOW (self)));

  gtk_window_present (GTK_WINDOW (other));
  onyx_window_open_file (other, file);
}

/* ---- Closing ---- */

static void
close_now (gpointer data)
{
  OnyxWindow *self = data;

  self->close_confirmed = TRUE;
  gtk_window_close (GTK_WINDOW (self));
}

static gboolean
onyx_window_close_request (GtkWindow *window)
{
  OnyxWindow *self = ONYX_WINDOW (window);
  OnyxDocument *document = onyx_window_get_document (self);
  GSettings *settings = onyx_view_state_get_settings (self->state);
  int width, height;

  if (!self->close_confirmed && document != NULL && onyx_document_is_modified (document))
    {
      onyx_files_confirm_discard (self->files, close_now, self);
      return TRUE;
    }
  gtk_window_get_default_size (window, &width, &height);
  g_settings_set_int (settings, "window-width", width);
  g_settings_set_int (settings, "window-height", height);
  g_settings_set_boolean (settings, "window-maximized", gtk_window_is_maximized (window));
  onyx_view_state_clear (self->state);
  return GTK_WINDOW_CLASS (onyx_window_parent_class)->close_request (window);
}

/* ---- GObject ---- */

static void
onyx_window_dispose (GObject *object)
{
  OnyxWindow *self = ONYX_WINDOW (object);

  if (self->state != NULL)
    g_signal_handlers_disconnect_by_data (self->state, self);
  /* The parts let go of their jobs and of the state; a job still running ends
   * unseen, holding what it reads. */
  gtk_widget_dispose_template (GTK_WIDGET (self), ONYX_TYPE_WINDOW);
  g_clear_object (&self->files);
  g_clear_object (&self->editor);
  g_clear_object (&self->recent);
  g_clear_object (&self->generate);
  g_clear_object (&self->simplifier);
  g_clear_object (&self->convert);
  g_clear_object (&self->state);
  G_OBJECT_CLASS (onyx_window_parent_class)->dispose (object);
}

static void
onyx_window_class_init (OnyxWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = onyx_window_dispose;
  GTK_WINDOW_CLASS (klass)->close_request = onyx_window_close_request;
  g_type_ensure (ONYX_TYPE_HEADER_BAR);
  g_type_ensure (ONYX_TYPE_FIND_BAR);
  g_type_ensure (ONYX_TYPE_GRAPH_VIEW);
  g_type_ensure (ONYX_TYPE_PROPERTIES);
  g_type_ensure (ONYX_TYPE_PROBLEMS_PANE);
  g_type_ensure (ONYX_TYPE_COMPARE_PANE);
  g_type_ensure (ONYX_TYPE_RUN_PANE);
  g_type_ensure (ONYX_TYPE_PROFILE_PANE);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/onyxviewer/Onyx/onyx-window.ui");
  gtk_widget_class_bind_template_child (widget_class, OnyxWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, OnyxWindow, header_bar);
  gtk_widget_class_bind_template_child (widget_class, OnyxWindow, find_bar);
  gtk_widget_class_bind_template_child (widget_class, OnyxWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, OnyxWindow, error_page);
  gtk_widget_class_bind_template_child (widget_class, OnyxWindow, recent_group);
  gtk_widget_class_bind_template_child (widget_class, OnyxWindow, recent_list);
  gtk_widget_class_bind_template_child (widget_class, OnyxWindow, graph_view);
  gtk_widget_class_bind_template_child (widget_class, OnyxWindow, properties);
  gtk_widget_class_bind_template_child (widget_class, OnyxWindow, problems_pane);
  gtk_widget_class_bind_template_child (widget_class, OnyxWindow, compare_pane);
  gtk_widget_class_bind_template_child (widget_class, OnyxWindow, run_pane);
  gtk_widget_class_bind_template_child (widget_class, OnyxWindow, profile_pane);
  /* In the bubble phase: the search entry and dialogs take Escape first. */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "graph.graph-up", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Up, 0, "graph.step-stack", "i", -1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Down, 0, "graph.step-stack", "i", 1);
}

static void
onyx_window_init (OnyxWindow *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  GSettings *settings;

  gtk_widget_init_template (widget);
  self->state = onyx_view_state_new (GTK_WINDOW (self));
  settings = onyx_view_state_get_settings (self->state);
  gtk_window_set_default_size (GTK_WINDOW (self), g_settings_get_int (settings, "window-width"),
                               g_settings_get_int (settings, "window-height"));
  if (g_settings_get_boolean (settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));

  /* The parts, each given the state, each action group in one place. */
  self->files = onyx_files_new (self->state);
  self->editor = onyx_editor_new (self->state);
  self->generate = onyx_generate_new (self->state);
  self->simplifier = onyx_simplifier_new (self->state);
  self->convert = onyx_convert_dialog_actions_new (self->state);
  self->recent = onyx_recent_new (self->state, self->recent_group, self->recent_list,
                                  onyx_header_bar_get_recent_menu (self->header_bar));
  onyx_header_bar_set_state (self->header_bar, self->state);
  onyx_find_bar_set_state (self->find_bar, self->state);
  onyx_graph_view_set_state (self->graph_view, self->state);
  onyx_properties_set_state (self->properties, self->state);
  onyx_problems_pane_set_state (self->problems_pane, self->state);
  onyx_compare_pane_set_state (self->compare_pane, self->state);
  onyx_run_pane_set_state (self->run_pane, self->state);
  onyx_profile_pane_set_state (self->profile_pane, self->state);
  gtk_widget_insert_action_group (widget, "file", G_ACTION_GROUP (self->files));
  gtk_widget_insert_action_group (widget, "edit", G_ACTION_GROUP (self->editor));
  gtk_widget_insert_action_group (widget, "graph", onyx_graph_view_get_actions (self->graph_view));
  gtk_widget_insert_action_group (widget, "find", onyx_find_bar_get_actions (self->find_bar));
  gtk_widget_insert_action_group (widget, "problems", onyx_problems_pane_get_actions (self->problems_pane));
  gtk_widget_insert_action_group (widget, "compare", onyx_compare_pane_get_actions (self->compare_pane));
  gtk_widget_insert_action_group (widget, "run", onyx_run_pane_get_actions (self->run_pane));
  gtk_widget_insert_action_group (widget, "profile", onyx_profile_pane_get_actions (self->profile_pane));
  gtk_widget_insert_action_group (widget, "generate", G_ACTION_GROUP (self->generate));
  gtk_widget_insert_action_group (widget, "simplify", G_ACTION_GROUP (self->simplifier));
  gtk_widget_insert_action_group (widget, "convert", self->convert);
  onyx_files_accept_drops (self->files, widget);

  g_object_bind_property (self->header_bar, "title", self, "title", G_BINDING_SYNC_CREATE);
  g_signal_connect_swapped (self->state, "notify::page", G_CALLBACK (page_changed_cb), self);
  g_signal_connect_swapped (self->state, "toast", G_CALLBACK (toast_cb), self);
  g_signal_connect_swapped (self->state, "open-elsewhere", G_CALLBACK (open_elsewhere_cb), self);
  page_changed_cb (self);
}

OnyxWindow *
onyx_window_new (GtkApplication *application)
{
  return g_object_new (ONYX_TYPE_WINDOW, "application", application, NULL);
}
