/* Simplify's report for people (onyx-cli edit --simplify) and for programs (--json). */
#include "onyx-simplify.h"

#include <glib/gi18n-lib.h>

#include "onyx-json.h"
#include "onyx-text.h"

static void
append_part (GString *text, const char *part)
{
  g_string_append_printf (text, "%s%s", text->len > 0 ? ", " : "", part);
}

char *
onyx_simplify_pass_describe (const OnyxSimplifyPassReport *pass)
{
  GString *text = g_string_new (NULL);

  if (pass->n_nodes_removed > 0)
    {
      g_autofree char *part = g_strdup_printf (ngettext ("%u node removed", "%u nodes removed", pass->n_nodes_removed),
                                               pass->n_nodes_removed);
      append_part (text, part);
    }
  if (pass->n_nodes_added > 0)
    {
      g_autofree char *part = g_strdup_printf (ngettext ("%u node added", "%u nodes added", pass->n_nodes_added),
                                               pass->n_nodes_added);
      append_part (text, part);
    }
  if (pass->n_initializers_removed > 0)
    {
      g_autofree char *part = g_strdup_printf (ngettext ("%u initializer removed", "%u initializers removed",
                                                         pass->n_initializers_removed),
                                               pass->n_initializers_removed);
      append_part (text, part);
    }
  if (pass->n_initializers_added > 0)
    {
      g_autofree char *part = g_strdup_printf (ngettext ("%u initializer added", "%u initializers added",
                                                         pass->n_initializers_added),
                                               pass->n_initializers_added);
      append_part (text, part);
    }
  if (text->len == 0)
    g_string_append (text, _("nothing"));
  return g_string_free (text, FALSE);
}

const char *
onyx_simplify_verdict_text (OnyxSimplifyVerdict verdict)
{
  switch (verdict)
    {
    case ONYX_SIMPLIFY_PROVEN: return _("proven equal");
    case ONYX_SIMPLIFY_UNCHANGED: return _("nothing to simplify");
    case ONYX_SIMPLIFY_DIFFERS: return _("outputs differ");
    case ONYX_SIMPLIFY_NOT_PROVEN: default: return _("not proven");
    }
}

static const char *
verdict_name (OnyxSimplifyVerdict verdict)
{
  switch (verdict)
    {
    case ONYX_SIMPLIFY_PROVEN: return "proven";
    case ONYX_SIMPLIFY_UNCHANGED: return "unchanged";
    case ONYX_SIMPLIFY_DIFFERS: return "differs";
    case ONYX_SIMPLIFY_NOT_PROVEN: default: return "not-proven";
    }
}

char *
onyx_simplify_report_format (const OnyxSimplifyReport *report, gboolean verbose)
{
  GString *text = g_string_new (NULL);
  g_autofree char *duration = onyx_format_duration (report->seconds);

  g_string_append_printf (text, ngettext ("simplified: %u → %u nodes, %u → %u initializers (%s, %u round)\n",
                                          "simplified: %u → %u nodes, %u → %u initializers (%s, %u rounds)\n",
                                          report->n_rounds),
                          report->n_nodes_before, report->n_nodes_after, report->n_initializers_before,
                          report->n_initializers_after, duration, report->n_rounds);
  for (guint i = 0; i < report->passes->len; i++)
    {
      const OnyxSimplifyPassReport *pass = &g_array_index (report->passes, OnyxSimplifyPassReport, i);
      g_autofree char *counts = onyx_simplify_pass_describe (pass);
      g_autofree char *took = onyx_format_duration (pass->seconds);
      if (pass->refused != NULL)
        g_string_append_printf (text, _("  %s: refused: %s\n"), pass->title, pass->refused);
      else
        g_string_append_printf (text, "  %s: %s (%s)\n", pass->title, counts, took);
    }
  if (report->proof_note != NULL)
    {
      g_autofree char *took = onyx_format_duration (report->proof_seconds);
      g_string_append_printf (text, _("%s: %s (%s)\n"), onyx_simplify_verdict_text (report->verdict), report->proof_note, took);
    }
  else
    g_string_append_printf (text, "%s\n", onyx_simplify_verdict_text (report->verdict));
  for (guint i = 0; i < report->notes->len; i++)
    g_string_append_printf (text, "  %s\n", (const char *) report->notes->pdata[i]);
  if (verbose && report->op_counts->len > 0)
    {
      guint width = 8;
      for (guint i = 0; i < report->op_counts->len; i++)
        width = MAX (width, g_utf8_strlen (g_array_index (report->op_counts, OnyxSimplifyOpCount, i).op, -1));
      g_string_append_printf (text, "  %-*s %8s %8s\n", (int) width, _("operator"), _("before"), _("after"));
      for (guint i = 0; i < report->op_counts->len; i++)
        {
          const OnyxSimplifyOpCount *count = &g_array_index (report->op_counts, OnyxSimplifyOpCount, i);
          g_autofree char *op = onyx_display_escape (count->op);
          g_string_append_printf (text, "  %-*s %8u %8u%s\n", (int) width, op, count->before, count->after,
                                  count->before != count->after ? "  *" : "");
        }
    }
  return g_string_free (text, FALSE);
}

char *
onyx_simplify_report_to_json (const OnyxSimplifyReport *report)
{
  OnyxJson *json = onyx_json_new ();

  onyx_json_begin_object (json);
  onyx_json_member_uint (json, "nodes_before", report->n_nodes_before);
  onyx_json_member_uint (json, "nodes_after", report->n_nodes_after);
  onyx_json_member_uint (json, "initializers_before", report->n_initializers_before);
  onyx_json_member_uint (json, "initializers_after", report->n_initializers_after);
  onyx_json_member_uint (json, "rounds", report->n_rounds);
  onyx_json_member_double (json, "seconds", report->seconds);
  onyx_json_member_string (json, "verdict", verdict_name (report->verdict));
  onyx_json_member_string (json, "proof", report->proof_note);
  onyx_json_member_double (json, "proof_seconds", report->proof_seconds);
  onyx_json_key (json, "passes");
  onyx_json_begin_array (json);
  for (guint i = 0; i < report->passes->len; i++)
    {
      const OnyxSimplifyPassReport *pass = &g_array_index (report->passes, OnyxSimplifyPassReport, i);
      onyx_json_begin_object (json);
      onyx_json_member_string (json, "name", pass->name);
      onyx_json_member_string (json, "title", pass->title);
      onyx_json_member_uint (json, "nodes_removed", pass->n_nodes_removed);
      onyx_json_member_uint (json, "nodes_added", pass->n_nodes_added);
      onyx_json_member_uint (json, "initializers_removed", pass->n_initializers_removed);
      onyx_json_member_uint (json, "initializers_added", pass->n_initializers_added);
      onyx_json_member_double (json, "seconds", pass->seconds);
      onyx_json_member_string (json, "refused", pass->refused);
      onyx_json_end_object (json);
    }
  onyx_json_end_array (json);
  onyx_json_key (json, "operators");
  onyx_json_begin_array (json);
  for (guint i = 0; i < report->op_counts->len; i++)
    {
      const OnyxSimplifyOpCount *count = &g_array_index (report->op_counts, OnyxSimplifyOpCount, i);
      onyx_json_begin_object (json);
      onyx_json_member_string (json, "op", count->op);
      onyx_json_member_uint (json, "before", count->before);
      onyx_json_member_uint (json, "after", count->after);
      onyx_json_end_object (json);
    }
  onyx_json_end_array (json);
  onyx_json_member_strings (json, "notes", report->notes);
  onyx_json_end_object (json);
  return onyx_json_finish (json);
}
