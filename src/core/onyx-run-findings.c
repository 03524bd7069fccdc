/* onyx-run-findings.c: what a run found, said for a person (onyx-run-private.h):
 * the node ONNX Runtime could not run or failed at. */
#include "onyx-run-private.h"

#include <glib/gi18n-lib.h>

#include <string.h>

/* "'/FooOp' (devtech::FooOp)", "'(unnamed)' (Resize)" */
static char *
describe_node (const Onnx__NodeProto *node)
{
  gboolean named = node->name != NULL && node->name[0] != '\0';
  gboolean custom = node->domain != NULL && node->domain[0] != '\0';

  return g_strdup_printf ("'%s' (%s%s%s)", named ? node->name : _("(unnamed)"), custom ? node->domain : "",
                          custom ? "::" : "", node->op_type);
}

/* Whether ONNX Runtime's message is about this node: it names nodes by operator
 * ("devtech:FooOp(-1) is not a registered function/op", "Could not find an
 * implementation for Min(13) node with name ''") or by name ("Node (x)", "'x'");
 * a kernel that failed on the data says "running Resize node. Name:''". */
static gboolean
names_node (const char *text, const Onnx__NodeProto *node, gboolean at_run)
{
  const char *domain = node->domain != NULL && node->domain[0] != '\0' ? node->domain : "ai.onnx";
  g_autofree char *op = g_strdup_printf ("%s:%s(", domain, node->op_type);
  g_autofree char *kernel = g_strdup_printf ("implementation for %s(", node->op_type);
  g_autofree char *running = g_strdup_printf ("running %s node. Name:'%s'", node->op_type,
                                              node->name != NULL ? node->name : "");
  gboolean named = node->name != NULL && node->name[0] != '\0';
  g_autofree char *quoted = named ? g_strdup_printf ("'%s'", node->name) : NULL;
  g_autofree char *bracketed = named ? g_strdup_printf ("Node (%s)", node->name) : NULL;

  if (at_run)
    return strstr (text, running) != NULL;
  return strstr (text, op) != NULL || strstr (text, kernel) != NULL ||
         (quoted != NULL && strstr (text, quoted) != NULL) || (bracketed != NULL && strstr (text, bracketed) != NULL);
}

char *
onyx_run_refusal_message (OnyxModel *model, const char *runtime_text)
{
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  /* The runtime's messages may list things on lines of their own. */
  g_autoptr (GRegex) breaks = g_regex_new ("\\s*\\n\\s*", 0, 0, NULL);
  g_autofree char *text = g_regex_replace_literal (breaks, runtime_text, -1, 0, " ", 0, NULL);
  gboolean at_run = strstr (text, "Non-zero status code returned while running") != NULL;

  g_strstrip (text);
  for (size_t i = 0; i < graph->n_node; i++)
    if (names_node (text, graph->node[i], at_run))
      {
        g_autofree char *node = describe_node (graph->node[i]);
        return at_run ? g_strdup_printf (_("ONNX Runtime failed at node %s on these inputs: %s"), node, text)
                      : g_strdup_printf (_("ONNX Runtime cannot run node %s: %s"), node, text);
      }
  return g_strdup_printf (_("ONNX Runtime cannot run %s: %s"), onyx_model_get_display_name (model), text);
}
