/* onyx-profile-pane.c: Profile's sidebar and its job (onyx-profile-pane.h). */
#include "onyx-profile-pane.h"

#include <glib/gi18n.h>
#include <string.h>

#include "onyx-dialogs.h"
#include "onyx-graph-names.h"
#include "onyx-heat.h"
#include "onyx-onnx.h"
#include "onyx-text.h"

/* Rows of the nodes and operators that take the most. */
#define TOP_NODES 15
#define TOP_OPS 8
/* Boxes whose share is under this say nothing beside them (a 3,000-box graph). */
#define NOTE_SHARE 0.01
/* A stack's note names its layer's largest parts, this many (attention, MLP). */
#define STACK_NOTE_PARTS 2
/* Nodes gone since the profile before, named at most. */
#define GONE_NAMED 8

struct _OnyxProfilePane {
  GtkBox parent_instance;

  GtkLabel *subtitle;
  GtkStack *status;
  GtkLabel *error_label;
  GtkWidget *stale_box;
  GtkLabel *summary_label;
  GtkLabel *compare_label;
  GtkWidget *pass_box;
  GtkButton *prompt_button;
  GtkButton *step_button;
  GtkDrawingArea *legend_bar;
  GtkLabel *legend_high;
  GtkListBox *nodes_list;
  GtkListBox *ops_list;
  GtkWidget *layers_heading;
  GtkListBox *layers_list;
  GtkLabel *gone_label;

  OnyxViewState *state;
  GSimpleActionGroup *actions;
  OnyxProfileOptions options;
  OnyxJob *job;
  gboolean failed;            /* the last profile failed: its message shows */
  gboolean revealed;
};

G_DEFINE_FINAL_TYPE (OnyxProfilePane, onyx_profile_pane, GTK_TYPE_BOX)

enum { PROP_0, PROP_REVEALED, N_PROPS };
static GParamSpec *props[N_PROPS];

static void
set_revealed (OnyxProfilePane *self, gboolean revealed)
{
  if (self->revealed == revealed)
    return;
  self->revealed = revealed;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_REVEALED]);
}

static void
enable (OnyxProfilePane *self, const char *name, gboolean enabled)
{
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self->actions), name)),
                               enabled);
}

static void
update_actions (OnyxProfilePane *self)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  const char *reason;
  gboolean profiled = onyx_view_state_get_profile (self->state, NULL) != NULL;

  enable (self, "start", document != NULL && self->job == NULL && onyx_run_available (&reason));
  enable (self, "settings", document != NULL && self->job == NULL && onyx_run_available (&reason));
  enable (self, "cancel", self->job != NULL);
  enable (self, "clear", profiled || self->failed);
  enable (self, "save-trace", profiled);
  enable (self, "save-csv", profiled);
}

/* ---- The graph ---- */

/* Each box's share of the kernels' time (a kernel counted once per box, though it
 * runs several nodes there), the most of any box in *most. */
static double *
box_shares (OnyxProfilePane *self, const OnyxProfile *profile, guint n_boxes, double *most)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  const OnyxLayout *layout = onyx_view_state_get_layout (self->state);
  Onnx__GraphProto *view = onyx_view_state_get_graph (self->state);
  g_autoptr (OnyxGraphList) graphs = onyx_graph_list_new (onyx_document_get_proto (document));
  g_autofree int *box_of = onyx_layout_boxes_of_nodes (layout, onyx_view_state_get_engine (self->state));
  g_autoptr (GHashTable) counted = g_hash_table_new (g_direct_hash, g_direct_equal);
  double *shares = g_new0 (double, n_boxes);

  *most = 0;
  for (size_t i = 0; i < view->n_node; i++)
    {
      g_autofree char *reference = onyx_graph_list_node_reference (graphs, view->node[i]);
      const OnyxProfileNode *node = onyx_profile_node_named (profile, reference);
      int b = box_of[i];
      /* Per box and kernel: a box and a kernel's address, apart in the key. */
      gpointer key;
      if (b < 0 || (guint) b >= n_boxes || node == NULL || node->kernel == NULL)
        continue;
      key = GSIZE_TO_POINTER (((gsize) node->kernel) ^ ((gsize) b << 1));
      if (!g_hash_table_add (counted, key))
        continue;
      shares[b] += onyx_profile_node_share (node);
      *most = MAX (*most, shares[b]);
    }
  return shares;
}

static char *
format_share (double share)
{
  return share < 0.1 ? g_strdup_printf ("%.1f %%", share * 100) : g_strdup_printf ("%.0f %%", share * 100);
}

/* A stack's share, and where its median layer's time goes: "78 % · mlp 47 %, attn 40 %". */
static char *
stack_note (const OnyxProfile *profile, const OnyxLayoutNode *box, double share)
{
  g_autoptr (GString) note = g_string_new (NULL);
  g_autofree char *whole = format_share (share);

  g_string_append (note, whole);
  for (guint s = 0; profile->stacks != NULL && s < profile->stacks->len; s++)
    {
      const OnyxProfileStack *stack = profile->stacks->pdata[s];
      guint said = 0;
      if (g_strcmp0 (stack->path, box->scope) != 0)
        continue;
      for (guint p = 0; p < stack->parts->len && said < STACK_NOTE_PARTS; p++)
        {
          const OnyxProfileLayerPart *part = stack->parts->pdata[p];
          g_autofree char *part_share = format_share (part->share);
          if (part->name[0] == '\0' || part->share < NOTE_SHARE * 5)
            continue;
          g_string_append_printf (note, "%s%s %s", said++ == 0 ? " · " : ", ", part->name, part_share);
        }
    }
  return g_string_free (g_steal_pointer (&note), FALSE);
}

/* Boxes tinted by their share, the share said beside those that take a part; a
 * stack's with its layer's parts. */
static void
update_graph (OnyxProfilePane *self)
{
  const OnyxProfile *profile = onyx_view_state_get_shown_profile (self->state);
  const OnyxLayout *layout = onyx_view_state_get_layout (self->state);
  g_autofree double *shares = NULL;
  g_autofree GdkRGBA *tints = NULL;
  g_autoptr (GPtrArray) notes = NULL;
  g_autofree char *high = NULL;
  double most;
  guint n;

  if (profile == NULL || layout == NULL || onyx_view_state_get_engine (self->state) == NULL ||
      onyx_view_state_get_document (self->state) == NULL)
    {
      onyx_view_state_set_tints (self->state, ONYX_TINT_PROFILE, NULL, 0);
      onyx_view_state_set_box_notes (self->state, NULL, 0);
      return;
    }
  n = layout->nodes->len;
  shares = box_shares (self, profile, n, &most);
  tints = g_new0 (GdkRGBA, n);
  notes = g_ptr_array_new_full (n, g_free);
  for (guint b = 0; b < n; b++)
    {
      const OnyxLayoutNode *box = &g_array_index (layout->nodes, OnyxLayoutNode, b);
      if (shares[b] > 0 && most > 0)
        onyx_heat_color (shares[b] / most, &tints[b]);
      if (shares[b] < NOTE_SHARE)
        g_ptr_array_add (notes, NULL);
      else
        g_ptr_array_add (notes, box->stack_size > 0 ? stack_note (profile, box, shares[b]) : format_share (shares[b]));
    }
  onyx_view_state_set_tints (self->state, ONYX_TINT_PROFILE, tints, n);
  onyx_view_state_set_box_notes (self->state, (const char *const *) notes->pdata, n);
  high = format_share (most);
  gtk_label_set_text (self->legend_high, high);
}

/* ---- The sidebar ---- */

static void
clear_list (GtkListBox *list)
{
  GtkWidget *row;

  while ((row = gtk_widget_get_first_child (GTK_WIDGET (list))) != NULL)
    gtk_list_box_remove (list, row);
}

static gint
compare_node_times (gconstpointer a, gconstpointer b)
{
  double x = onyx_profile_node_us (*(const OnyxProfileNode *const *) a);
  double y = onyx_profile_node_us (*(const OnyxProfileNode *const *) b);

  return x < y ? 1 : x > y ? -1 : 0;
}

static GtkWidget *
list_row (const char *title, const char *subtitle)
{
  GtkWidget *row = adw_action_row_new ();
  g_autofree char *escaped = onyx_display_escape (title);

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), escaped);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  return row;
}

/* The node a row stands for is selected, in its own graph. */
static void
node_activated_cb (AdwActionRow *row, OnyxProfilePane *self)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  const char *reference = g_object_get_data (G_OBJECT (row), "node");
  Onnx__NodeProto *node = document != NULL ? onyx_document_find_node (document, reference, NULL) : NULL;

  if (node == NULL)
    return;
  onyx_view_state_select_node (self->state, node);
  onyx_view_state_reveal (self->state, ONYX_REVEAL_CENTER);
}

static void
fill_nodes (OnyxProfilePane *self, const OnyxProfile *profile)
{
  const OnyxProfile *before = onyx_view_state_get_previous_profile (self->state);
  g_autoptr (GPtrArray) timed = g_ptr_array_new ();

  clear_list (self->nodes_list);
  for (guint i = 0; i < profile->n_nodes; i++)
    if (profile->nodes[i].kernel != NULL)
      g_ptr_array_add (timed, &profile->nodes[i]);
  g_ptr_array_sort (timed, compare_node_times);
  for (guint i = 0; i < timed->len && i < TOP_NODES; i++)
    {
      const OnyxProfileNode *node = timed->pdata[i];
      g_autofree char *time = onyx_profile_format_us (onyx_profile_node_us (node));
      g_autofree char *share = format_share (onyx_profile_node_share (node));
      g_autofree char *op = onyx_display_escape (node->op_type);
      g_autofree char *kernel_op = onyx_display_escape (node->kernel->op);
      g_autofree char *subtitle = node->status == ONYX_PROFILE_FUSED
                                    /* Translators: "Conv · 1.2 ms · 12 % · in FusedConv" */
                                    ? g_strdup_printf (_("%s · %s · %s · in %s"), op, time, share, kernel_op)
                                    : g_strdup_printf ("%s · %s · %s", op, time, share);
      const OnyxProfileNode *was = before != NULL ? onyx_profile_node_named (before, node->name) : NULL;
      GtkWidget *row;
      if (was != NULL)
        {
          /* Before and after, node by node: "−22 %, 4.10 → 3.20 ms". */
          g_autofree char *change = onyx_profile_describe_change (onyx_profile_node_us (was),
                                                                  onyx_profile_node_us (node));
          char *longer = g_strdup_printf ("%s\n%s", subtitle, change);
          g_free (subtitle);
          subtitle = longer;
        }
      row = list_row (node->name, subtitle);
      g_object_set_data_full (G_OBJECT (row), "node", g_strdup (node->name), g_free);
      gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
      g_signal_connect (row, "activated", G_CALLBACK (node_activated_cb), self);
      gtk_list_box_append (self->nodes_list, row);
    }
}

static void
fill_ops (OnyxProfilePane *self, const OnyxProfile *profile)
{
  clear_list (self->ops_list);
  for (guint i = 0; i < profile->op_times->len && i < TOP_OPS; i++)
    {
      const OnyxProfileOpTime *op = profile->op_times->pdata[i];
      g_autofree char *time = onyx_profile_format_us (op->us);
      g_autofree char *share = format_share (op->share);
      g_autofree char *subtitle = g_strdup_printf (ngettext ("%s · %s · %u kernel", "%s · %s · %u kernels",
                                                             op->n_kernels), share, time, op->n_kernels);
      gtk_list_box_append (self->ops_list, list_row (op->op, subtitle));
    }
}

/* Each stack of alike layers: its share, and where its median layer's time goes. */
static void
fill_layers (OnyxProfilePane *self, const OnyxProfile *profile)
{
  guint n = profile->stacks != NULL ? profile->stacks->len : 0;

  clear_list (self->layers_list);
  gtk_widget_set_visible (self->layers_heading, n > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->layers_list), n > 0);
  for (guint s = 0; s < n; s++)
    {
      const OnyxProfileStack *stack = profile->stacks->pdata[s];
      g_autofree char *share = format_share (stack->share), *time = onyx_profile_format_us (stack->us);
      g_autofree char *layer_time = onyx_profile_format_us (stack->layer_us), *subtitle = NULL;
      g_autoptr (GString) parts = g_string_new (NULL);

      for (guint p = 0; p < stack->parts->len; p++)
        {
          const OnyxProfileLayerPart *part = stack->parts->pdata[p];
          g_autofree char *part_share = format_share (part->share);
          /* Translators: a part of a layer and its share of the layer's time, "attn 41 %";
           * "own nodes" are those directly in the layer, in none of its groups. */
          g_autofree char *one = g_strdup_printf (_("%s %s"), part->name[0] != '\0' ? part->name : _("own nodes"),
                                                  part_share);
          g_string_append_printf (parts, "%s%s", p > 0 ? ", " : "", one);
        }
      /* Translators: "31 layers · 94.8 % · 5.58 ms", then the median layer's parts:
       * "model/layers.20, the median, 180 µs: mlp 47 %, attn 40 %" */
      subtitle = g_strdup_printf (ngettext ("%u layer · %s · %s\n%s, the median, %s: %s",
                                            "%u layers · %s · %s\n%s, the median, %s: %s", stack->n_layers),
                                  stack->n_layers, share, time, stack->layer, layer_time, parts->str);
      gtk_list_box_append (self->layers_list, list_row (stack->path, subtitle));
    }
}

static void
fill_summary (OnyxProfilePane *self, const OnyxProfile *profile)
{
  g_autofree char *run = onyx_profile_format_us (profile->run_median_us);
  g_autofree char *low = onyx_profile_format_us (profile->run_min_us);
  g_autofree char *top = onyx_profile_format_us (profile->run_max_us);
  g_autofree char *kernels = onyx_profile_format_us (profile->kernels_us);
  g_autofree char *overhead = onyx_profile_format_us (profile->overhead_us);
  g_autofree char *start = onyx_profile_format_us (profile->session_init_us);
  g_autofree char *nodes = onyx_format_count_grouped (profile->n_nodes, ONYX_COUNT_LOCALIZED);
  g_autofree char *subtitle = NULL, *summary = NULL;

  subtitle = g_strdup_printf (ngettext ("%u run after %u warm-up · %s optimizations · ONNX Runtime %s",
                                        "%u runs after %u warm-up · %s optimizations · ONNX Runtime %s",
                                        profile->options.runs),
                              profile->options.runs, profile->options.warmup,
                              onyx_profile_opt_level_name (profile->options.opt_level), profile->runtime_version);
  gtk_label_set_text (self->subtitle, subtitle);
  summary = g_strdup_printf (_("Per run: %s (%s to %s)\nKernels: %s; beyond them: %s\nSession start: %s\n"
                               "Nodes: %s; %u with a kernel of their own, %u fused, %u folded by ONNX Runtime"),
                             run, low, top, kernels, overhead, start, nodes, profile->n_own, profile->n_fused,
                             profile->n_folded);
  gtk_label_set_text (self->summary_label, summary);
}

/* Against the profile before: the change per run, and the nodes gone since. */
static void
fill_comparison (OnyxProfilePane *self, const OnyxProfile *profile)
{
  const OnyxProfile *before = onyx_view_state_get_previous_profile (self->state);
  g_autoptr (GArray) changes = NULL;
  g_autoptr (GString) gone = g_string_new (NULL);
  g_autofree char *change = NULL, *text = NULL;
  guint n_gone = 0;

  gtk_widget_set_visible (GTK_WIDGET (self->compare_label), before != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->gone_label), FALSE);
  if (before == NULL)
    return;
  change = onyx_profile_describe_change (before->run_median_us, profile->run_median_us);
  /* Translators: the time of a run against the profile before: "-22 %, 4.10 → 3.20 ms" */
  text = g_strdup_printf (_("Against the profile before: %s per run"), change);
  gtk_label_set_text (self->compare_label, text);
  changes = onyx_profile_compare (before, profile);
  for (guint i = 0; i < changes->len; i++)
    {
      const OnyxProfileChange *one = &g_array_index (changes, OnyxProfileChange, i);
      if (one->after != NULL || one->before == NULL)
        continue;
      if (n_gone++ < GONE_NAMED)
        {
          g_autofree char *name = onyx_display_escape (one->before->name);
          g_string_append_printf (gone, "%s%s", gone->len > 0 ? ", " : "", name);
        }
    }
  if (n_gone > 0)
    {
      g_autofree char *said = NULL;
      if (n_gone > GONE_NAMED)
        g_string_append_printf (gone, ngettext (" and %u more", " and %u more", n_gone - GONE_NAMED),
                                n_gone - GONE_NAMED);
      said = g_strdup_printf (ngettext ("%u node gone since: %s", "%u nodes gone since: %s", n_gone), n_gone,
                              gone->str);
      gtk_label_set_text (self->gone_label, said);
      gtk_widget_set_visible (GTK_WIDGET (self->gone_label), TRUE);
    }
}

static void
update_staleness (OnyxProfilePane *self)
{
  gtk_widget_set_visible (self->stale_box, onyx_view_state_get_profile (self->state, NULL) != NULL &&
                                             !onyx_view_state_profile_is_current (self->state));
}

/* An LLM's profile has two passes: the prompt's and one decoding step. */
static void
fill_passes (OnyxProfilePane *self, const OnyxProfile *profile)
{
  g_autofree char *prompt = NULL, *step = NULL;
  GAction *pass = g_action_map_lookup_action (G_ACTION_MAP (self->actions), "pass");

  gtk_widget_set_visible (self->pass_box, profile->decoding_step != NULL);
  g_simple_action_set_state (G_SIMPLE_ACTION (pass), g_variant_new_string (
                               onyx_view_state_shows_decoding_step (self->state) ? "step" : "prompt"));
  if (profile->decoding_step == NULL)
    return;
  prompt = g_strdup_printf (ngettext ("Prompt · %d token", "Prompt · %d tokens", profile->prompt_tokens),
                            profile->prompt_tokens);
  gtk_button_set_label (self->prompt_button, prompt);
  /* Translators: an LLM's decoding step: one new token after N past ones */
  step = g_strdup_printf (_("1 Token after %d"), profile->decoding_past);
  gtk_button_set_label (self->step_button, step);
}

static void
profile_changed_cb (OnyxProfilePane *self)
{
  const OnyxProfile *last = onyx_view_state_get_profile (self->state, NULL);
  const OnyxProfile *profile = onyx_view_state_get_shown_profile (self->state);

  if (profile != NULL)
    {
      self->failed = FALSE;
      fill_passes (self, last);
      fill_summary (self, profile);
      fill_comparison (self, profile);
      fill_nodes (self, profile);
      fill_ops (self, profile);
      fill_layers (self, profile);
      gtk_stack_set_visible_child_name (self->status, "result");
    }
  update_staleness (self);
  update_graph (self);
  set_revealed (self, profile != NULL || self->job != NULL || self->failed);
  update_actions (self);
}

/* ---- The job ---- */

typedef struct {
  OnyxModel *snapshot;
  OnyxRunInputs how;          /* dims referenced */
  OnyxProfileOptions options;
} Profiling;

static void
profiling_free (Profiling *profiling)
{
  g_object_unref (profiling->snapshot);
  g_clear_pointer (&profiling->how.dims, g_hash_table_unref);
  g_free (profiling);
}

static gpointer
profile_work (OnyxJob *job, gpointer data, GError **error)
{
  Profiling *profiling = data;
  g_autoptr (GPtrArray) inputs = onyx_run_prepare_inputs (profiling->snapshot, NULL, &profiling->how, error);

  OnyxProfile *profile = inputs != NULL ? onyx_run_profile (profiling->snapshot, inputs, &profiling->options, error)
                                         : NULL;

  if (profile != NULL)
    onyx_profile_find_stacks (profile, profiling->snapshot);
  if (profile != NULL && !onyx_run_profile_decoding_step (profile, profiling->snapshot, &profiling->how, error))
    g_clear_pointer (&profile, onyx_profile_free);
  return profile;
}

static void
profile_done (OnyxJob *job, gpointer result, const GError *error, gpointer owner)
{
  OnyxProfilePane *self = owner;

  self->job = NULL;
  if (onyx_job_get_document (job) != onyx_view_state_get_document (self->state))
    {
      update_actions (self);
      return;
    }
  if (result == NULL)
    {
      self->failed = !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
      gtk_label_set_text (self->error_label, error->message);
      gtk_stack_set_visible_child_name (self->status, self->failed ? "error" : "result");
      set_revealed (self, self->failed || onyx_view_state_get_profile (self->state, NULL) != NULL);
      update_actions (self);
      return;
    }
  onyx_view_state_set_profile (self->state, onyx_job_take_result (job), onyx_job_get_revision (job));
}

static void
start (OnyxProfilePane *self)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  const OnyxRunInputs *how = onyx_view_state_get_run_inputs (self->state);
  g_autofree char *label = NULL;
  Profiling *profiling;
  OnyxJobSpec spec = { .document = document, .owner = self, .work = profile_work,
                       .data_free = (GDestroyNotify) profiling_free,
                       .result_free = (GDestroyNotify) onyx_profile_free, .done = profile_done };

  if (document == NULL || self->job != NULL)
    return;
  profiling = g_new0 (Profiling, 1);
  profiling->snapshot = onyx_model_snapshot (onyx_document_get_model (document));
  profiling->how = *how;
  profiling->how.dims = how->dims != NULL ? g_hash_table_ref (how->dims) : NULL;
  profiling->options = self->options;
  spec.data = profiling;
  label = g_strdup_printf (_("Profiling %s"), onyx_model_get_display_name (onyx_document_get_model (document)));
  spec.label = label;
  self->job = onyx_jobs_start (onyx_view_state_get_jobs (self->state), &spec);
  gtk_stack_set_visible_child_name (self->status, "running");
  set_revealed (self, TRUE);
  update_actions (self);
}

/* ---- Actions ---- */

static void
start_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  start (data);
}

static void
cancel_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  onyx_onnx_cancel (ONYX_ONNX_JOB_PROFILE);
}

static void
clear_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxProfilePane *self = data;

  self->failed = FALSE;
  onyx_view_state_set_profile (self->state, NULL, 0);
}

static void
pass_change_state (GSimpleAction *action, GVariant *value, gpointer data)
{
  OnyxProfilePane *self = data;

  g_simple_action_set_state (action, value);
  onyx_view_state_show_decoding_step (self->state, g_str_equal (g_variant_get_string (value, NULL), "step"));
}

static gboolean
save_trace (gpointer owner, GFile *file, GError **error)
{
  OnyxProfilePane *self = owner;
  const OnyxProfile *profile = onyx_view_state_get_shown_profile (self->state);
  g_autofree char *path = g_file_get_path (file);
  gsize size;
  const char *data;

  if (profile == NULL || path == NULL)
    return TRUE;
  data = g_bytes_get_data (profile->trace, &size);
  /* (Written beside and renamed over: a failure leaves any old file whole.) */
  return g_file_set_contents (path, data, (gssize) size, error);
}

static gboolean
save_csv (gpointer owner, GFile *file, GError **error)
{
  OnyxProfilePane *self = owner;
  const OnyxProfile *profile = onyx_view_state_get_shown_profile (self->state);
  g_autofree char *path = g_file_get_path (file);

  return profile == NULL || path == NULL || onyx_profile_write_csv (profile, path, error);
}

static void
choose_file (OnyxProfilePane *self, const char *title, const char *suffix, OnyxFileFunc func)
{
  GFile *near = onyx_view_state_get_file (self->state);
  GtkFileChooserNative *chooser = onyx_file_chooser_new (onyx_view_state_get_window (self->state), near, title,
                                                         _("_Save"), GTK_FILE_CHOOSER_ACTION_SAVE);
  g_autofree char *base = near != NULL ? g_file_get_basename (near) : g_strdup ("model.onnx");
  g_autofree char *name = NULL;

  if (g_str_has_suffix (base, ".onnx"))
    base[strlen (base) - strlen (".onnx")] = '\0';
  name = g_strconcat (base, suffix, NULL);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), name);
  onyx_file_chooser_run (chooser, func, self, _("Could Not Save the Profile"));
}

static void
save_trace_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  choose_file (data, _("Save ONNX Runtime's Trace"), ".profile.json", save_trace);
}

static void
save_csv_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  choose_file (data, _("Save the Profile as CSV"), ".profile.csv", save_csv);
}

/* The settings: runs, warm-up runs, threads, optimization level; Profile profiles. */
static void
settings_response_cb (AdwMessageDialog *dialog, const char *response, OnyxProfilePane *self)
{
  GtkWidget *list = adw_message_dialog_get_extra_child (dialog);

  if (!g_str_equal (response, "profile"))
    return;
  self->options.runs = (guint) gtk_spin_button_get_value_as_int (g_object_get_data (G_OBJECT (list), "runs"));
  self->options.warmup = (guint) gtk_spin_button_get_value_as_int (g_object_get_data (G_OBJECT (list), "warmup"));
  self->options.threads = (guint) gtk_spin_button_get_value_as_int (g_object_get_data (G_OBJECT (list), "threads"));
  self->options.opt_level = gtk_drop_down_get_selected (g_object_get_data (G_OBJECT (list), "level"));
  start (self);
}

static GtkWidget *
spin_row (GtkWidget *list, const char *title, const char *key, double low, double high, guint value)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *spin = gtk_spin_button_new_with_range (low, high, 1);

  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), value);
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), spin);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), spin);
  g_object_set_data (G_OBJECT (list), key, spin);
  gtk_list_box_append (GTK_LIST_BOX (list), row);
  return row;
}

static void
settings_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxProfilePane *self = data;
  AdwMessageDialog *dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (
    onyx_view_state_get_window (self->state), _("Profile Settings"),
    _("ONNX Runtime's profiler times each kernel over the runs, after the warm-up runs, which are left out. The "
      "inputs are Run's (Run Settings).")));
  GtkWidget *list = gtk_list_box_new ();
  GtkWidget *level_row = adw_action_row_new ();
  const char *const levels[] = { "disabled", "basic", "extended", "all", NULL };
  GtkWidget *level = gtk_drop_down_new_from_strings (levels);

  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");
  spin_row (list, _("Runs"), "runs", 1, ONYX_PROFILE_MAX_RUNS, self->options.runs);
  spin_row (list, _("Warm-up runs"), "warmup", 0, ONYX_PROFILE_MAX_RUNS, self->options.warmup);
  spin_row (list, _("Threads (0: one per core)"), "threads", 0, 256, self->options.threads);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (level), self->options.opt_level);
  gtk_widget_set_valign (level, GTK_ALIGN_CENTER);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (level_row), _("Graph optimizations"));
  adw_action_row_add_suffix (ADW_ACTION_ROW (level_row), level);
  g_object_set_data (G_OBJECT (list), "level", level);
  gtk_list_box_append (GTK_LIST_BOX (list), level_row);
  adw_message_dialog_set_extra_child (dialog, list);
  onyx_ask (dialog, "profile", _("_Profile"), G_CALLBACK (settings_response_cb), self);
}

/* ---- The part ---- */

static void
document_changed_cb (OnyxProfilePane *self)
{
  self->failed = FALSE;
  if (onyx_view_state_get_profile (self->state, NULL) == NULL)
    set_revealed (self, self->job != NULL);
  update_actions (self);
}

void
onyx_profile_pane_set_state (OnyxProfilePane *self, OnyxViewState *state)
{
  g_return_if_fail (ONYX_IS_PROFILE_PANE (self) && self->state == NULL);
  self->state = g_object_ref (state);
  g_signal_connect_object (state, "profile-changed", G_CALLBACK (profile_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "laid-out", G_CALLBACK (update_graph), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "stepped", G_CALLBACK (update_staleness), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (state, "notify::document", G_CALLBACK (document_changed_cb), self,
                           G_CONNECT_SWAPPED);
  update_actions (self);
}

GActionGroup *
onyx_profile_pane_get_actions (OnyxProfilePane *self)
{
  return G_ACTION_GROUP (self->actions);
}

gboolean
onyx_profile_pane_get_revealed (OnyxProfilePane *self)
{
  return self->revealed;
}

gboolean
onyx_profile_pane_is_running (OnyxProfilePane *self)
{
  return self->job != NULL;
}

GtkListBox *
onyx_profile_pane_get_nodes_list (OnyxProfilePane *self)
{
  return self->nodes_list;
}

static void
onyx_profile_pane_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  if (id == PROP_REVEALED)
    g_value_set_boolean (value, ONYX_PROFILE_PANE (object)->revealed);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
}

static void
onyx_profile_pane_dispose (GObject *object)
{
  OnyxProfilePane *self = ONYX_PROFILE_PANE (object);

  if (self->state != NULL)
    onyx_jobs_drop_owner (onyx_view_state_get_jobs (self->state), self);
  self->job = NULL;
  g_clear_object (&self->state);
  g_clear_object (&self->actions);
  gtk_widget_dispose_template (GTK_WIDGET (object), ONYX_TYPE_PROFILE_PANE);
  G_OBJECT_CLASS (onyx_profile_pane_parent_class)->dispose (object);
}

static void
onyx_profile_pane_class_init (OnyxProfilePaneClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = onyx_profile_pane_get_property;
  object_class->dispose = onyx_profile_pane_dispose;
  props[PROP_REVEALED] = g_param_spec_boolean ("revealed", NULL, NULL, FALSE,
                                               G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/onyxviewer/Onyx/onyx-profile-pane.ui");
  gtk_widget_class_bind_template_child (widget_class, OnyxProfilePane, subtitle);
  gtk_widget_class_bind_template_child (widget_class, OnyxProfilePane, status);
  gtk_widget_class_bind_template_child (widget_class, OnyxProfilePane, error_label);
  gtk_widget_class_bind_template_child (widget_class, OnyxProfilePane, stale_box);
  gtk_widget_class_bind_template_child (widget_class, OnyxProfilePane, summary_label);
  gtk_widget_class_bind_template_child (widget_class, OnyxProfilePane, compare_label);
  gtk_widget_class_bind_template_child (widget_class, OnyxProfilePane, pass_box);
  gtk_widget_class_bind_template_child (widget_class, OnyxProfilePane, prompt_button);
  gtk_widget_class_bind_template_child (widget_class, OnyxProfilePane, step_button);
  gtk_widget_class_bind_template_child (widget_class, OnyxProfilePane, legend_bar);
  gtk_widget_class_bind_template_child (widget_class, OnyxProfilePane, legend_high);
  gtk_widget_class_bind_template_child (widget_class, OnyxProfilePane, nodes_list);
  gtk_widget_class_bind_template_child (widget_class, OnyxProfilePane, ops_list);
  gtk_widget_class_bind_template_child (widget_class, OnyxProfilePane, layers_heading);
  gtk_widget_class_bind_template_child (widget_class, OnyxProfilePane, layers_list);
  gtk_widget_class_bind_template_child (widget_class, OnyxProfilePane, gone_label);
}

static void
onyx_profile_pane_init (OnyxProfilePane *self)
{
  static const GActionEntry entries[] = {
    { .name = "start", .activate = start_activated },
    { .name = "cancel", .activate = cancel_activated },
    { .name = "clear", .activate = clear_activated },
    { .name = "settings", .activate = settings_activated },
    { .name = "save-trace", .activate = save_trace_activated },
    { .name = "save-csv", .activate = save_csv_activated },
    { .name = "pass", .parameter_type = "s", .state = "'prompt'", .change_state = pass_change_state },
  };

  gtk_widget_init_template (GTK_WIDGET (self));
  self->options = (OnyxProfileOptions) ONYX_PROFILE_OPTIONS_INIT;
  self->actions = g_simple_action_group_new ();
  g_action_map_add_action_entries (G_ACTION_MAP (self->actions), entries, G_N_ELEMENTS (entries), self);
  gtk_drawing_area_set_draw_func (self->legend_bar, onyx_heat_draw_legend, NULL, NULL);
}
