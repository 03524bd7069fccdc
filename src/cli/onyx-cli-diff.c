/* onyx-cli diff: what differs between two models. */
#include <stdio.h>
#include <string.h>

#include "onyx-cli.h"
#include "onyx-diff.h"
#include "onyx-json.h"
#include "onyx-types.h"
#include "onyx-text.h"

static void
print_diff_json (OnyxModel *a, OnyxModel *b, const OnyxDiff *diff)
{
  OnyxJson *json = onyx_json_new ();

  onyx_json_begin_object (json);
  onyx_json_member_string (json, "a", onyx_model_get_display_name (a));
  onyx_json_member_string (json, "b", onyx_model_get_display_name (b));
  onyx_json_member_uint (json, "nodes_a", diff->n_nodes_a);
  onyx_json_member_uint (json, "nodes_b", diff->n_nodes_b);
  onyx_json_member_uint (json, "matched_by_name", diff->n_matched_by_name);
  onyx_json_member_uint (json, "matched_by_structure", diff->n_matched_by_structure);
  onyx_json_member_uint (json, "matched_by_order", diff->n_matched_by_order);
  /* [index in A, index in B] of every matched node. */
  onyx_json_key (json, "node_matches");
  onyx_json_begin_array (json);
  for (guint ib = 0; ib < diff->n_nodes_b; ib++)
    if (diff->node_b_to_a[ib] >= 0)
      {
        onyx_json_begin_array (json);
        onyx_json_int (json, diff->node_b_to_a[ib]);
        onyx_json_int (json, ib);
        onyx_json_end_array (json);
      }
  onyx_json_end_array (json);
  onyx_json_key (json, "differences");
  onyx_json_begin_array (json);
  for (guint i = 0; i < diff->entries->len; i++)
    {
      const OnyxDiffEntry *entry = diff->entries->pdata[i];
      onyx_json_begin_object (json);
      onyx_json_member_string (json, "subject", onyx_diff_subject_name (entry->subject));
      onyx_json_member_string (json, "change", onyx_diff_change_name (entry->change));
      onyx_json_member_string (json, "graph", entry->graph);
      onyx_json_member_string (json, "name_a", entry->name_a);
      onyx_json_member_string (json, "name_b", entry->name_b);
      onyx_json_member_int (json, "index_a", entry->index_a);
      onyx_json_member_int (json, "index_b", entry->index_b);
      onyx_json_member_string (json, "message", entry->message);
      onyx_json_member_strings (json, "details", entry->details);
      onyx_json_end_object (json);
    }
  onyx_json_end_array (json);
  onyx_json_end_object (json);
  onyx_cli_print_json (json);
}

static void
print_diff_text (OnyxModel *a, OnyxModel *b, const OnyxDiff *diff)
{
  guint matched = diff->n_matched_by_name + diff->n_matched_by_structure + diff->n_matched_by_order;

  printf ("%s → %s: %u of %u %s matched (%u by name, %u by structure", onyx_model_get_display_name (a),
          onyx_model_get_display_name (b), matched, diff->n_nodes_b, ONYX_CLI_PLURAL (diff->n_nodes_b, "node", "nodes"),
          diff->n_matched_by_name, diff->n_matched_by_structure);
  if (diff->n_matched_by_order > 0)
    printf (", %u by order", diff->n_matched_by_order);
  printf ("), %u difference%s\n", diff->entries->len, diff->entries->len == 1 ? "" : "s");
  for (guint i = 0; i < diff->entries->len; i++)
    {
      const OnyxDiffEntry *entry = diff->entries->pdata[i];
      /* Entries of the main graph go unprefixed, as they did before subgraphs were
       * diffed. */
      if (strcmp (entry->graph, "main") != 0)
        {
          g_autofree char *graph = onyx_display_escape (entry->graph);
          printf ("%s: ", graph);
        }
      /* The message shows the first detail; the others follow, one a line. */
      printf ("%s\n", entry->message);
      for (guint d = 1; d < entry->details->len; d++)
        printf ("    %s\n", (const char *) entry->details->pdata[d]);
    }
}

int
onyx_cli_diff (int argc, char **argv)
{
  gboolean as_json = FALSE;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &as_json, "Print JSON", NULL },
    { NULL }
  };
  g_autoptr (OnyxModel) a = NULL;
  g_autoptr (OnyxModel) b = NULL;
  g_autoptr (OnyxDiff) diff = NULL;
  GError *error = NULL;
  int exit_code;

  if (!onyx_cli_parse ("diff", "A B [--json]",
                       "What differs from model A to model B. Nodes are matched by name, then\n"
                       "by structure (operator and matched neighbours), so that renamed exports\n"
                       "still align. Lists added, removed, changed and renamed nodes, graph\n"
                       "inputs and outputs, initializers, opset imports and metadata, also\n"
                       "inside the If, Loop and Scan bodies of matched nodes (named by graph).\n"
                       "Exit status 0 when the models are the same, 1 when they differ.",
                       entries, &argc, &argv, 2, &exit_code))
    return exit_code;
  a = onyx_model_new_from_file (argv[2], &error);
  if (a == NULL)
    return onyx_cli_report_error (error);
  b = onyx_model_new_from_file (argv[3], &error);
  if (b == NULL)
    return onyx_cli_report_error (error);

  diff = onyx_diff_model_files (a, b, NULL);
  if (as_json)
    print_diff_json (a, b, diff);
  else
    print_diff_text (a, b, diff);
  return diff->entries->len > 0 ? ONYX_EXIT_PROBLEMS : ONYX_EXIT_OK;
}
