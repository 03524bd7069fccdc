/* onyx-window-generate.c: Run ▸ Generate Tokens… for LLMs with a KV cache. A dialog
 * asks for the prompt's token ids and how many tokens to make; the model as it is
 * now (edits included) is fed its own greedy choice step by step in a thread
 * (onyx_run_generate), and a dialog shows the tokens, each step's time and how far
 * its logits are from one pass over the whole sequence, and where the cache parts
 * from that pass when it does. */
#include "onyx-window-private.h"

#include <glib/gi18n.h>
#include <string.h>

#include "onyx-run.h"
#include "onyx-types.h"
#include "onyx-text.h"

#define DEFAULT_PROMPT "1, 2, 3, 4"
#define DEFAULT_NEW_TOKENS 8
#define MAX_NEW_TOKENS 512
#define STEPS_MAX_HEIGHT 260 /* px */

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

static void
generate_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Generating *generating = data;
  GError *error = NULL;
  OnyxGenerateReport *report = onyx_run_generate (generating->snapshot, (const gint64 *) generating->prompt->data,
                                                  generating->prompt->len, generating->n_new, &error);

  if (report != NULL)
    g_task_return_pointer (task, report, (GDestroyNotify) onyx_generate_report_free);
  else
    g_task_return_error (task, error);
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
show_report (OnyxWindow *self, const OnyxGenerateReport *report)
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
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), heading, body));
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

static void
generated_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (OnyxWindow) self = onyx_window_job_end (data);
  g_autoptr (OnyxGenerateReport) report = NULL;
  g_autoptr (GError) error = NULL;

  self->generating = FALSE;
  onyx_window_update_state (self);
  report = g_task_propagate_pointer (G_TASK (result), &error);
  if (report != NULL)
    show_report (self, report);
  else
    onyx_window_show_error (self, _("Could Not Generate"), error->message);
}

/* Starts generating from the model as it is now; the user goes on meanwhile. */
gboolean
onyx_window_generate (OnyxWindow *self, const char *prompt_text, guint n_new, GError **error)
{
  g_autoptr (GArray) prompt = parse_prompt (prompt_text, error);
  g_autoptr (GTask) task = NULL;
  Generating *generating;

  if (prompt == NULL)
    return FALSE;
  generating = g_new0 (Generating, 1);
  generating->snapshot = onyx_model_snapshot (onyx_document_get_model (self->document));
  generating->prompt = g_steal_pointer (&prompt);
  generating->n_new = n_new;
  self->generating = TRUE;
  task = g_task_new (NULL, NULL, generated_cb, onyx_window_job_begin (self, _("Generating tokens")));
  g_task_set_task_data (task, generating, (GDestroyNotify) generating_free);
  g_task_run_in_thread (task, generate_thread);
  onyx_window_update_state (self);
  return TRUE;
}

static void
ask_response_cb (AdwMessageDialog *dialog, const char *response, OnyxWindow *self)
{
  GtkEditable *prompt = g_object_get_data (G_OBJECT (dialog), "prompt");
  GtkSpinButton *count = g_object_get_data (G_OBJECT (dialog), "count");
  g_autoptr (GError) error = NULL;

  if (!g_str_equal (response, "generate"))
    return;
  if (!onyx_window_generate (self, gtk_editable_get_text (prompt), (guint) gtk_spin_button_get_value_as_int (count),
                             &error))
    onyx_window_show_error (self, _("Could Not Generate"), error->message);
}

static void
generate_action (GtkWidget *widget, const char *name, GVariant *param)
{
  OnyxWindow *self = ONYX_WINDOW (widget);
  AdwMessageDialog *dialog;
  GtkWidget *list, *prompt, *count_row, *count;

  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (
      GTK_WINDOW (self), _("Generate Tokens"),
      _("The model is fed its own most likely token step by step, its present outputs becoming the next "
        "past inputs, and each step is checked against one pass over the whole sequence.")));
  list = gtk_list_box_new ();
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");
  prompt = adw_entry_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (prompt), _("Prompt Token IDs"));
  gtk_editable_set_text (GTK_EDITABLE (prompt), DEFAULT_PROMPT);
  gtk_list_box_append (GTK_LIST_BOX (list), prompt);
  count_row = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (count_row), _("Tokens to Make"));
  count = gtk_spin_button_new_with_range (1, MAX_NEW_TOKENS, 1);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (count), DEFAULT_NEW_TOKENS);
  gtk_widget_set_valign (count, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (count_row), count);
  gtk_list_box_append (GTK_LIST_BOX (list), count_row);
  adw_message_dialog_set_extra_child (dialog, list);
  g_object_set_data (G_OBJECT (dialog), "prompt", prompt);
  g_object_set_data (G_OBJECT (dialog), "count", count);
  onyx_window_ask (self, dialog, "generate", _("_Generate"), G_CALLBACK (ask_response_cb));
}

void
onyx_window_generate_update_state (OnyxWindow *self, gboolean doc)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.run-generate",
                                 doc && !self->generating && onyx_run_available (NULL) &&
                                 onyx_run_has_present_outputs (onyx_document_get_proto (self->document)->graph));
}

void
onyx_window_class_init_generate (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.run-generate", NULL, generate_action);
}
