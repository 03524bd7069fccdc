/* onyx-graph-view-export.c: Export View… (exactly what the canvas shows, at its
 * zoom) and Export Graph… (the whole layout), as PNG or SVG, drawn by the core
 * renderer in a job. */
#include "onyx-graph-view-private.h"

#include <glib/gi18n.h>
#include <string.h>

#include "onyx-dialogs.h"
#include "onyx-render.h"

/* An export under way: what the canvas showed when it was asked for, drawn in a
 * thread (a large graph as PNG takes seconds). */
typedef struct {
  OnyxLayout *layout;             /* shares the canvas's nodes and edges */
  gboolean view_only;
  OnyxRect area;
  double scale;
  char *path;
} Exporting;

static void
exporting_free (Exporting *exporting)
{
  onyx_layout_free (exporting->layout);
  g_free (exporting->path);
  g_free (exporting);
}

static gpointer
export (OnyxJob *job, gpointer data, GError **error)
{
  Exporting *exporting = data;
  gboolean ok = exporting->view_only
    ? onyx_render_area_to_file (exporting->layout, &exporting->area, exporting->scale, exporting->path, error)
    : onyx_render_to_file (exporting->layout, exporting->path, 1.0, error);

  return GINT_TO_POINTER (ok);
}

static void
exported (OnyxJob *job, gpointer result, const GError *error, gpointer owner)
{
  OnyxGraphView *self = owner;

  if (error == NULL)
    onyx_view_state_toast (self->state, _("Image exported"), FALSE);
  else
    onyx_show_error (onyx_view_state_get_window (self->state), _("Could Not Export the Image"), error->message);
}

gboolean
onyx_graph_view_export_image (OnyxGraphView *self, GFile *file, gboolean view_only, GError **error)
{
  const OnyxLayout *layout = onyx_canvas_get_layout (self->canvas);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *name = NULL, *label = NULL;
  OnyxJobSpec spec = { .owner = self, .work = export, .data_free = (GDestroyNotify) exporting_free,
                       .done = exported };
  Exporting *exporting;

  if (layout == NULL || path == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           layout == NULL ? _("There is no graph to export yet")
                                          : _("Images can only be exported to local files"));
      return FALSE;
    }
  exporting = g_new0 (Exporting, 1);
  exporting->layout = onyx_layout_share (layout);
  exporting->view_only = view_only;
  onyx_canvas_get_visible_area (self->canvas, &exporting->area);
  exporting->scale = onyx_canvas_get_scale (self->canvas);
  exporting->path = g_steal_pointer (&path);
  name = g_file_get_basename (file);
  label = g_strdup_printf (_("Exporting %s"), name);
  spec.label = label;
  spec.data = exporting;
  onyx_jobs_start (onyx_view_state_get_jobs (self->state), &spec);
  return TRUE;
}

static gboolean
has_image_extension (const char *name)
{
  g_autofree char *lower = g_ascii_strdown (name, -1);

  return g_str_has_suffix (lower, ".png") || g_str_has_suffix (lower, ".svg") ||
         g_str_has_suffix (lower, ".pdf");
}

static void
export_response_cb (GtkNativeDialog *dialog, int response, OnyxGraphView *self)
{
  GtkFileChooser *chooser = GTK_FILE_CHOOSER (dialog);
  gboolean view_only = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (dialog), "view-only"));
  g_autoptr (GFile) file = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *name = NULL;
  GtkFileFilter *filter;
  const char *ext;

  if (response != GTK_RESPONSE_ACCEPT)
    {
      g_object_unref (dialog);
      return;
    }
  file = gtk_file_chooser_get_file (chooser);
  name = g_file_get_basename (file);
  filter = gtk_file_chooser_get_filter (chooser);
  ext = filter != NULL ? g_object_get_data (G_OBJECT (filter), "extension") : NULL;
  /* The file type decides the extension of a name without one, and of the suggested
   * name when only the type was changed ("model.png" saved as SVG is "model.svg"). */
  if (!has_image_extension (name) ||
      (ext != NULL && g_str_equal (name, g_object_get_data (G_OBJECT (dialog), "suggested"))))
    {
      g_autoptr (GFile) parent = g_file_get_parent (file);
      char *dot = strrchr (name, '.');
      g_autofree char *renamed = NULL;

      if (dot != NULL && has_image_extension (name))
        *dot = '\0';
      renamed = g_strconcat (name, ext != NULL ? ext : ".png", NULL);
      g_object_unref (file);
      file = g_file_get_child (parent, renamed);
    }
  if (!onyx_graph_view_export_image (self, file, view_only, &error))
    onyx_show_error (onyx_view_state_get_window (self->state), _("Could Not Export the Image"), error->message);
  g_object_unref (dialog);
}

static void
add_image_filter (GtkFileChooser *chooser, const char *name, const char *mime_type,
                  const char *extension)
{
  GtkFileFilter *filter = gtk_file_filter_new ();
  g_autofree char *pattern = g_strconcat ("*", extension, NULL);

  gtk_file_filter_set_name (filter, name);
  gtk_file_filter_add_mime_type (filter, mime_type);
  gtk_file_filter_add_pattern (filter, pattern);
  g_object_set_data_full (G_OBJECT (filter), "extension", g_strdup (extension), g_free);
  gtk_file_chooser_add_filter (chooser, filter);
  g_object_unref (filter);
}

static void
choose_export_file (OnyxGraphView *self, gboolean view_only)
{
  GFile *model = onyx_view_state_get_file (self->state);
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (
    view_only ? _("Export View") : _("Export Graph"), onyx_view_state_get_window (self->state),
    GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  GtkFileChooser *chooser = GTK_FILE_CHOOSER (dialog);
  g_autofree char *base = model != NULL ? g_file_get_basename (model) : g_strdup ("model.onnx");
  char *dot = strrchr (base, '.');
  g_autofree char *suggested = NULL;

  if (dot != NULL)
    *dot = '\0';
  /* "model-view.png" beside "model.png": the two exports do not overwrite each other. */
  suggested = g_strconcat (base, view_only ? "-view" : "", ".png", NULL);
  gtk_file_chooser_set_current_name (chooser, suggested);
  g_object_set_data_full (G_OBJECT (dialog), "suggested", g_steal_pointer (&suggested), g_free);
  add_image_filter (chooser, _("PNG Image"), "image/png", ".png");
  add_image_filter (chooser, _("SVG Image"), "image/svg+xml", ".svg");
  g_object_set_data (G_OBJECT (dialog), "view-only", GINT_TO_POINTER (view_only));
  g_signal_connect (dialog, "response", G_CALLBACK (export_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
export_view_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  choose_export_file (data, TRUE);
}

static void
export_graph_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  choose_export_file (data, FALSE);
}

void
onyx_graph_view_add_export_actions (OnyxGraphView *self)
{
  static const GActionEntry entries[] = {
    { .name = "export-view", .activate = export_view_activated },
    { .name = "export-graph", .activate = export_graph_activated },
  };

  g_action_map_add_action_entries (G_ACTION_MAP (self->actions), entries, G_N_ELEMENTS (entries), self);
}
