/* test-app-profile.c: Profile in the window under Xvfb, as a person goes through it:
 * Run ▸ Profile fills the sidebar (totals, the nodes and operators that take the
 * most), tints the boxes by their share and says it beside them; a row selects its
 * node and the panel says its time; an edit marks the profile as of the model
 * before; profiling again says the change and the nodes gone; a stack's card sums
 * its layers. The window is rendered into the build dir. */
#include <adwaita.h>
#include <string.h>

#include "onyx-app-test-util.h"
#include "onyx-profile-pane.h"
#include "onyx-run.h"

static OnyxProfilePane *
profile_pane (OnyxWindow *window)
{
  return ONYX_PROFILE_PANE (test_find_widget (GTK_WIDGET (window), ONYX_TYPE_PROFILE_PANE, NULL));
}

/* Starts a profile as the menu does and waits for it. */
static void
profile (OnyxWindow *window)
{
  OnyxProfilePane *pane = profile_pane (window);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "profile.start", NULL));
  g_assert_true (onyx_profile_pane_is_running (pane));
  g_assert_true (onyx_profile_pane_get_revealed (pane));
  while (onyx_profile_pane_is_running (pane))
    g_main_context_iteration (NULL, TRUE);
  wait_for_layout (window);
  wait_for_frames (window);
}

static guint
count_rows (GtkListBox *list)
{
  guint n = 0;

  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (list)); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    n++;
  return n;
}

static GtkLabel *
find_label_containing (GtkWidget *widget, const char *text)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_is_visible (widget) &&
      strstr (gtk_label_get_text (GTK_LABEL (widget)), text) != NULL)
    return GTK_LABEL (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkLabel *found = find_label_containing (child, text);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Notes beside boxes, and tinted boxes, as the canvas has them. */
static guint
count_notes (OnyxWindow *window, guint *n_tinted)
{
  OnyxCanvas *canvas = test_canvas (window);
  const OnyxLayout *layout = onyx_canvas_get_layout (canvas);
  guint n = 0;

  *n_tinted = 0;
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      GdkRGBA tint;
      n += onyx_canvas_get_node_note (canvas, (int) i) != NULL;
      *n_tinted += onyx_canvas_get_node_tint (canvas, (int) i, &tint);
    }
  return n;
}

static void
test_profile (void)
{
  g_autofree char *path = test_data_path ("model.onnx");
  OnyxWindow *window;
  OnyxProfilePane *pane;
  GtkListBox *nodes;
  GtkListBoxRow *top;
  Onnx__NodeProto *selected;
  g_autofree char *selected_name = NULL;
  guint n_tinted, n_notes;
  g_autoptr (GString) panel = g_string_new (NULL);

  if (!onyx_run_available (NULL))
    {
      g_test_skip ("this build runs no models");
      return;
    }
  window = open_model_window (path);
  pane = profile_pane (window);
  g_assert_false (onyx_profile_pane_get_revealed (pane));
  onyx_jobs_set_delay (onyx_view_state_get_jobs (test_state (window)), 0);
  profile (window);

  /* The sidebar: totals, nodes, operators. */
  g_assert_nonnull (find_label_containing (GTK_WIDGET (pane), "Per run: "));
  g_assert_nonnull (find_label_containing (GTK_WIDGET (pane), "with a kernel of their own"));
  nodes = onyx_profile_pane_get_nodes_list (pane);
  g_assert_cmpuint (count_rows (nodes), >, 0);
  /* The graph: boxes tinted, shares beside the boxes that take a part. */
  n_notes = count_notes (window, &n_tinted);
  g_test_message ("%u notes, %u tinted boxes", n_notes, n_tinted);
  g_assert_cmpuint (n_tinted, >, 0);
  g_assert_cmpuint (n_notes, >, 0);
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "app-profile.png"), >, 10000);

  /* A row selects its node; the panel says its time. */
  top = gtk_list_box_get_row_at_index (nodes, 0);
  g_signal_emit_by_name (top, "activated");
  selected = onyx_view_state_get_selected_node (test_state (window));
  g_assert_nonnull (selected);
  selected_name = g_strdup (selected->name);
  onyx_view_state_settle (test_state (window));
  wait_for_frames (window);
  collect_text (test_properties_page (window), panel);
  g_assert_nonnull (strstr (panel->str, "Profile\n"));
  g_assert_nonnull (strstr (panel->str, "Time per run"));
  g_assert_nonnull (strstr (panel->str, "of the kernels"));

  /* An edit: the profile stays, of the model before. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "edit.bypass-node", NULL));
  wait_for_layout (window);
  g_assert_nonnull (find_label_containing (GTK_WIDGET (pane), "before the last edit"));
  /* Again: the change per run, the node gone. */
  profile (window);
  g_assert_null (find_label_containing (GTK_WIDGET (pane), "before the last edit"));
  g_assert_nonnull (find_label_containing (GTK_WIDGET (pane), "Against the profile before: "));
  g_assert_nonnull (find_label_containing (GTK_WIDGET (pane), "1 node gone since: "));
  g_assert_nonnull (find_label_containing (GTK_WIDGET (pane), selected_name));
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "app-profile-again.png"), >, 10000);

  /* Cleared: no tints, no notes, the pane hidden. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "profile.clear", NULL));
  g_assert_false (onyx_profile_pane_get_revealed (pane));
  g_assert_cmpuint (count_notes (window, &n_tinted), ==, 0);
  g_assert_cmpuint (n_tinted, ==, 0);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The KV-cached model was profiled on its prompt and on one decoding step after it:
 * the pane switches between the two, and so do the graph's notes and the panel. */
static void
test_decoding_step (OnyxWindow *window)
{
  OnyxViewState *state = test_state (window);
  const OnyxProfile *last = onyx_view_state_get_profile (state, NULL);
  OnyxProfilePane *pane = profile_pane (window);
  GtkWidget *step_button;
  g_autofree char *prompt_summary = NULL;
  GtkLabel *summary;

  g_assert_nonnull (last->decoding_step);
  g_assert_cmpint (last->prompt_tokens, >, 1);
  g_assert_cmpint (last->decoding_past, >, 0);
  g_assert_true (onyx_view_state_get_shown_profile (state) == last);
  step_button = GTK_WIDGET (find_label_containing (GTK_WIDGET (pane), "1 Token after "));
  g_assert_nonnull (step_button);
  g_assert_true (gtk_widget_is_visible (step_button));
  summary = find_label_containing (GTK_WIDGET (pane), "Per run: ");
  prompt_summary = g_strdup (gtk_label_get_text (summary));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (pane), "profile.pass", "s", "step"));
  g_assert_true (onyx_view_state_shows_decoding_step (state));
  g_assert_true (onyx_view_state_get_shown_profile (state) == last->decoding_step);
  g_assert_cmpstr (gtk_label_get_text (summary), !=, prompt_summary);
  g_assert_nonnull (find_label_containing (GTK_WIDGET (pane), "7 layers · "));
  /* A step is compared with nothing: the profile before has none. */
  g_assert_null (onyx_view_state_get_previous_profile (state));
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "app-profile-step.png"), >, 10000);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (pane), "profile.pass", "s", "prompt"));
  g_assert_false (onyx_view_state_shows_decoding_step (state));
  g_assert_cmpstr (gtk_label_get_text (summary), ==, prompt_summary);
}

/* A stack of eight layers drawn as one card: its share is its layers'. */
static void
test_stack_share (void)
{
  g_autofree char *path = test_data_path ("llm_stack.onnx");
  OnyxWindow *window;
  const OnyxLayout *layout;
  OnyxProfilePane *pane;
  GtkLabel *parts;
  guint n_cards = 0;

  if (!onyx_run_available (NULL))
    {
      g_test_skip ("this build runs no models");
      return;
    }
  window = open_model_window (path);
  onyx_jobs_set_delay (onyx_view_state_get_jobs (test_state (window)), 0);
  profile (window);
  layout = onyx_canvas_get_layout (test_canvas (window));
  for (guint i = 0; i < layout->nodes->len; i++)
    {
      const OnyxLayoutNode *node = &g_array_index (layout->nodes, OnyxLayoutNode, i);
      const char *note = onyx_canvas_get_node_note (test_canvas (window), (int) i);
      if (node->stack_size == 0)
        continue;
      g_test_message ("%s: %s", node->stack_label != NULL ? node->stack_label : "stack", note);
      g_assert_nonnull (note);
      g_assert_nonnull (strstr (note, " %"));
      /* The card says where its layer's time goes, too. */
      g_assert_true (strstr (note, "attn ") != NULL || strstr (note, "mlp ") != NULL);
      n_cards++;
    }
  g_assert_cmpuint (n_cards, >, 0);
  /* The sidebar's Layers: the stack, its share, its median layer's parts. */
  pane = profile_pane (window);
  g_assert_nonnull (find_label_containing (GTK_WIDGET (pane), "model/layers.1–7"));
  parts = find_label_containing (GTK_WIDGET (pane), "7 layers · ");
  g_assert_nonnull (parts);
  g_test_message ("%s", gtk_label_get_text (parts));
  g_assert_nonnull (strstr (gtk_label_get_text (parts), ", the median, "));
  g_assert_nonnull (strstr (gtk_label_get_text (parts), "attn "));
  g_assert_nonnull (strstr (gtk_label_get_text (parts), "mlp "));
  onyx_canvas_zoom_fit (test_canvas (window));
  g_assert_cmpuint (snapshot_to_png (GTK_WIDGET (window), "app-profile-stack.png"), >, 10000);
  test_decoding_step (window);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int argc, char *argv[])
{
  g_autofree char *home = test_private_xdg_folders ("app-profile");
  int status;

  g_test_init (&argc, &argv, NULL);
  /* Xvfb has no session bus, which GTK warns about; criticals stay fatal. */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  adw_init ();
  g_test_add_func ("/app-profile/profile", test_profile);
  g_test_add_func ("/app-profile/stack-share", test_stack_share);
  status = g_test_run ();
  test_private_xdg_folders_remove (home);
  return status;
}
