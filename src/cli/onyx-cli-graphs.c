/* onyx-cli graphs: every graph of the model — the main graph, the bodies of If, Loop
 * and Scan nodes at any depth, and the model's functions — by the names --graph takes. */
#include <stdio.h>

#include "onyx-cli.h"
#include "onyx-graph-index.h"
#include "onyx-types.h"
#include "onyx-text.h"

/* Names the graph reads from the graphs around it. */
static GPtrArray *
outer_reads (const OnyxGraphEntry *entry)
{
  return entry->parent < 0 ? g_ptr_array_new () : onyx_graph_outer_reads (entry->graph);
}

static void
print_json (OnyxGraphList *graphs)
{
  g_autoptr (OnyxJson) json = onyx_json_new ();

  onyx_json_begin_array (json);
  for (guint i = 0; i < onyx_graph_list_size (graphs); i++)
    {
      const OnyxGraphEntry *entry = onyx_graph_list_get (graphs, i);
      g_autoptr (GPtrArray) reads = outer_reads (entry);
      onyx_json_begin_object (json);
      onyx_json_member_string (json, "name", entry->name);
      onyx_json_member_string (json, "kind", entry->function != NULL ? "function"
                               : entry->parent < 0 ? "main" : "subgraph");
      onyx_json_member_uint (json, "nodes", entry->graph->n_node);
      onyx_json_member_uint (json, "depth", entry->depth);
      onyx_json_member_string (json, "parent", entry->parent >= 0
                               ? onyx_graph_list_get (graphs, (guint) entry->parent)->name : NULL);
      onyx_json_member_string (json, "held_by", entry->owner != NULL ? entry->owner->op_type : NULL);
      onyx_json_member_string (json, "attribute", entry->attribute);
      onyx_json_member_strings (json, "outer_reads", reads);
      onyx_json_end_object (json);
    }
  onyx_json_end_array (json);
  onyx_cli_print_json (g_steal_pointer (&json));
}

static void
print_text (OnyxGraphList *graphs)
{
  for (guint i = 0; i < onyx_graph_list_size (graphs); i++)
    {
      const OnyxGraphEntry *entry = onyx_graph_list_get (graphs, i);
      g_autoptr (GPtrArray) reads = outer_reads (entry);
      g_autofree char *name = onyx_display_escape (entry->name);
      g_autoptr (GString) line = g_string_new (NULL);

      g_string_append_printf (line, "%*s%s  %zu node%s", (int) entry->depth * 2, "", name,
                              entry->graph->n_node, entry->graph->n_node == 1 ? "" : "s");
      if (entry->function != NULL)
        g_string_append (line, ", function");
      else if (entry->owner != NULL)
        g_string_append_printf (line, ", %s body", entry->owner->op_type);
      if (reads->len > 0)
        {
          g_autofree char *shown = onyx_cli_join_names ((const char *const *) reads->pdata, reads->len);
          g_string_append_printf (line, ", reads from outside: %s", shown);
        }
      onyx_cli_print_wrapped (line->str, entry->depth * 2 + 4);
    }
}

int
onyx_cli_graphs (int argc, char **argv)
{
  gboolean as_json = FALSE;
  int exit_code;
  g_autoptr (OnyxModel) model = onyx_cli_open_model (
    "graphs",
    "List the graphs of the model: the main graph, the graphs inside If, Loop and\n"
    "Scan nodes (nested ones indented), and the model's local functions, each by\n"
    "the name that --graph takes, with its node count and what it reads from the\n"
    "graphs around it.",
    &argc, &argv, &as_json, &exit_code);
  g_autoptr (OnyxGraphList) graphs = NULL;

  if (model == NULL)
    return exit_code;
  graphs = onyx_graph_list_new (onyx_model_get_proto (model));
  if (as_json)
    print_json (graphs);
  else
    print_text (graphs);
  return ONYX_EXIT_OK;
}
