/* onyx-generate.c: Run ▸ Generate Tokens… for LLMs with a KV cache, a part of the
 * window (onyx-generate.h). A dialog asks for the prompt's token ids and how many
 * tokens to make; the model as it is now (edits included) is fed its own greedy
 * choice step by step in a job (onyx_run_generate), and a dialog shows the tokens,
 * each step's time and how far its logits are from one pass over the whole
 * sequence, and where the cache parts from that pass when it does. */
#include "onyx-generate.h"

#include <glib/gi18n.h>
#include <string.h>

#include "onyx-dialogs.h"
#include "onyx-generate-dialog.h"
#include "onyx-run.h"
#include "onyx-text.h"

#define STEPS_MAX_HEIGHT 260 /* px */

struct _OnyxGenerate {
  GSimpleActionGroup parent_instance;

  OnyxViewState *state;
  gboolean generating;
};

G_DEFINE_FINAL_TYPE (OnyxGenerate, onyx_generate, G_TYPE_SIMPLE_ACTION_GROUP)

typedef struct {
  OnyxModel *snapshot;
  GArray *prompt; /* gint64 */
  guint n_new;
} Generating;

static void
generating_free (Generating *generating)
{
  g_object_unref (generating->snapshot);
  g_array_unref (generating->prompt);
  g_free (generating);
}

/* "1, 2, 3" → token ids; NULL (and *error) when it is not whole numbers ≥ 0. */
static GArray *
parse_prompt (const char *text, GError **error)
{
  g_auto (GStrv) parts = g_strsplit_set (text, ", ", -1);
  g_autoptr (GArray) prompt = g_array_new (FALSE, FALSE, sizeof (gint64));

  for (guint i = 0; parts[i] != NULL; i++)
    {
      gint64 token;
      if (parts[i][0] == '\0')
        continue;
      if (!g_ascii_string_to_signed (parts[i], 10, 0, G_MAXINT64, &token, NULL))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       _("“%s” is not a token id: the prompt is token ids separated by commas, e.g. 1, 2, 3"),
                       parts[i]);
          return NULL;
        }
      g_array_append_val (prompt, token);
    }
  if (prompt->len == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("The prompt needs at least one token id"));
      return NULL;
    }
  return g_steal_pointer (&prompt);
}

static gpointer
generate (OnyxJob *job, gpointer data, GError **error)
{
  Generating *generating = data;

  return onyx_run_generate (generating->snapshot, (const gint64 *) generating->prompt->data,
                            generating->prompt->len, generating->n_new, error);
}

/* One line a step: "Step 3: token 17 in 0.1 ms, logits within 9.5e-07 of one pass
 * (largest 3.6)". */
static char *
describe_steps (const OnyxGenerateReport *report)
{
  GString *text = g_string_new (NULL);

  for (guint s = 0; s < report->step_seconds->len; s++)
    {
      g_autofree char *took = onyx_format_duration (g_array_index (report->step_seconds, double, s));
      /* (A 64-bit format inside a translatable string defeats xgettext.) */
      g_autofree char *token = g_strdup_printf ("%" G_GINT64_FORMAT,
                                                g_array_index (report->tokens, gint64, report->n_prompt + s));
      if (s > 0)
        g_string_append_c (text, '\n');
      g_string_append_printf (text, _("Step %u: token %s in %s"), s + 1, token, took);
      if (s < report->step_differences->len)
        g_string_append_printf (text, _(", logits within %.2g of one pass (largest %.2g)"),
                                g_array_index (report->step_differences, double, s),
                                g_array_index (report->step_scales, double, s));
    }
  return g_string_free (text, FALSE);
}

static void
show_report (GtkWindow *parent, const OnyxGenerateReport *report)
{
  g_autofree char *heading = NULL, *verdict = NULL, *body = NULL, *steps = describe_steps (report);
  AdwMessageDialog *dialog;
  GtkWidget *label, *scrolled;

  if (report->step_error != NULL)
    {
      heading = g_strdup_printf (_("ONNX Runtime Refused Step %d"), report->first_bad_step + 1);
      verdict = g_strdup_printf (_("%s. The KV cache or its lengths are wired wrongly."), report->step_error);
    }
  else if (report->first_bad_step >= 0)
    {
      heading = g_strdup_printf (_("Step %d Parts From One Pass"), report->first_bad_step + 1);
      verdict = report->first_bad_cache != NULL
                    ? g_strdup_printf (_("Its logits differ from one pass over the whole sequence, first in %s: "
                                         "the KV cache or positions are wired wrongly."), report->first_bad_cache)
                    : g_strdup (_("Its logits differ from one pass over the whole sequence: the KV cache or "
                                  "positions are wired wrongly."));
    }
  else
    {
      heading = g_strdup (_("The Cache Keeps to One Pass"));
      verdict = g_strdup (_("At every step the logits made with the KV cache match one pass over the whole "
                            "sequence."));
    }
  body = g_strdup_printf (ngettext ("%s\n\n%u token generated with ONNX Runtime %s after a prompt of %zu.",
                                    "%s\n\n%u tokens generated with ONNX Runtime %s after a prompt of %zu.",
                                    report->step_seconds->len),
                          verdict, report->step_seconds->len, report->runtime_version, report->n_prompt);
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (parent, heading, body));
  label = gtk_label_new (steps);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_add_css_class (label, "caption");
  /* Hundreds of steps scroll rather than grow the dialog past the screen. */
  scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_AUTOMATIC, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scrolled), TRUE);
  gtk_scrolled_window_set_propagate_natural_width (GTK_SCROLLED_WINDOW (scrolled), TRUE);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scrolled), STEPS_MAX_HEIGHT);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), label);
  adw_message_dialog_set_extra_child (dialog, scrolled);
  adw_message_dialog_add_response (dialog, "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

static void update_actions (OnyxGenerate *self);

static void
generated (OnyxJob *job, gpointer result, const GError *error, gpointer owner)
{
  OnyxGenerate *self = owner;
  GtkWindow *parent = onyx_view_state_get_window (self->state);

  self->generating = FALSE;
  update_actions (self);
  if (result != NULL)
    show_report (parent, result);
  else
    onyx_show_error (parent, _("Could Not Generate"), error->message);
}

gboolean
onyx_generate_start (OnyxGenerate *self, const char *prompt_text, guint n_new, GError **error)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);
  g_autoptr (GArray) prompt = parse_prompt (prompt_text, error);
  OnyxJobSpec spec = { .label = _("Generating tokens"), .document = document, .owner = self, .work = generate,
                       .data_free = (GDestroyNotify) generating_free,
                       .result_free = (GDestroyNotify) onyx_generate_report_free, .done = generated };
  Generating *generating;

  if (prompt == NULL)
    return FALSE;
  generating = g_new0 (Generating, 1);
  generating->snapshot = onyx_model_snapshot (onyx_document_get_model (document));
  generating->prompt = g_steal_pointer (&prompt);
  generating->n_new = n_new;
  spec.data = generating;
  self->generating = TRUE;
  onyx_jobs_start (onyx_view_state_get_jobs (self->state), &spec);
  update_actions (self);
  return TRUE;
}

static void
response_cb (OnyxGenerateDialog *dialog, const char *response, OnyxGenerate *self)
{
  g_autoptr (GError) error = NULL;

  if (g_str_equal (response, "generate") &&
      !onyx_generate_start (self, onyx_generate_dialog_get_prompt (dialog), onyx_generate_dialog_get_count (dialog),
                            &error))
    onyx_show_error (onyx_view_state_get_window (self->state), _("Could Not Generate"), error->message);
}

static void
show_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  OnyxGenerate *self = data;
  OnyxGenerateDialog *dialog = onyx_generate_dialog_new (onyx_view_state_get_window (self->state));

  g_signal_connect_object (dialog, "response", G_CALLBACK (response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* For models whose present* outputs feed past* inputs, with ONNX Runtime, one
 * generation at a time. */
static void
update_actions (OnyxGenerate *self)
{
  OnyxDocument *document = onyx_view_state_get_document (self->state);

  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self), "show")),
                               document != NULL && !self->generating && onyx_run_available (NULL) &&
                               onyx_run_has_present_outputs (onyx_document_get_proto (document)->graph));
}

static void
onyx_generate_dispose (GObject *object)
{
  OnyxGenerate *self = ONYX_GENERATE (object);

  g_clear_object (&self->state);
  G_OBJECT_CLASS (onyx_generate_parent_class)->dispose (object);
}

static void
onyx_generate_class_init (OnyxGenerateClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = onyx_generate_dispose;
}

static void
onyx_generate_init (OnyxGenerate *self)
{
  static const GActionEntry entries[] = {
    { .name = "show", .activate = show_activated },
  };

  g_action_map_add_action_entries (G_ACTION_MAP (self), entries, G_N_ELEMENTS (entries), self);
}

OnyxGenerate *
onyx_generate_new (OnyxViewState *state)
{
  OnyxGenerate *self = g_object_new (ONYX_TYPE_GENERATE, NULL);

  self->state = g_object_ref (state);
  g_signal_connect_object (state, "notify::document", G_CALLBACK (update_actions), self, G_CONNECT_SWAPPED);
  update_actions (self);
  return self;
}
