/* onyx-steps-report.c: what a step changed in the model, counted (onyx-steps-private.h):
 * the nodes, initializers, graph inputs and outputs, functions and opset imports it
 * removed or added, said in a line and, for a longer account, by name. */
#include "onyx-steps-private.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "onyx-domain.h"
#include "onyx-graph-names.h"
#include "onyx-name-family.h"
#include "onyx-text.h"

/* Most names a line of the longer account lists; past FAMILIES_PAST names, those
 * that differ only in a number are gathered (fewer would read as ranges they are not:
 * "Conv_22–26" of 22, 23, 25 and 26). */
#define MAX_DETAIL_NAMES 40
#define FAMILIES_PAST 12
/* Inputs, outputs and opset imports are named in the line up to this many. */
#define MAX_NAMED 3

/* The things of one kind the model has: an identity each (a node's address, an
 * initializer's graph and name, a name), in model order, and what to call it. */
typedef struct {
  GPtrArray *keys;     /* owned strings */
  GPtrArray *names;    /* owned strings, escaped, parallel to keys */
  GHashTable *index;   /* key → TRUE */
} Things;

typedef enum { NODES, INITIALIZERS, INPUTS, OUTPUTS, FUNCTIONS, OPSETS, N_KINDS } Kind;

struct _OnyxStepCensus {
  Things kinds[N_KINDS];
};

static void
things_add (Things *things, char *key, char *name)
{
  if (g_hash_table_contains (things->index, key))
    {
      g_free (key);
      g_free (name);
      return;
    }
  g_ptr_array_add (things->keys, key);
  g_ptr_array_add (things->names, name);
  g_hash_table_add (things->index, key);
}

static void
count_graph (OnyxStepCensus *census, const Onnx__GraphProto *graph)
{
  for (size_t n = 0; n < graph->n_node; n++)
    {
      const Onnx__NodeProto *node = graph->node[n];
      char *name = node->name != NULL && node->name[0] != '\0'
                     ? onyx_display_escape (node->name)
                     : g_strdup_printf ("#%zu (%s)", n, node->op_type != NULL ? node->op_type : "?");
      things_add (&census->kinds[NODES], g_strdup_printf ("%p", (gpointer) node), name);
    }
  for (size_t i = 0; i < graph->n_initializer; i++)
    things_add (&census->kinds[INITIALIZERS], g_strdup_printf ("%p/%s", (gpointer) graph, graph->initializer[i]->name),
                onyx_display_escape (graph->initializer[i]->name));
}

OnyxStepCensus *
onyx_step_census_new (OnyxDocument *doc)
{
  Onnx__ModelProto *model = onyx_document_get_proto (doc);
  g_autoptr (GPtrArray) graphs = onyx_graph_list_graphs (model);
  OnyxStepCensus *census = g_new0 (OnyxStepCensus, 1);

  for (guint k = 0; k < N_KINDS; k++)
    {
      census->kinds[k].keys = g_ptr_array_new_with_free_func (g_free);
      census->kinds[k].names = g_ptr_array_new_with_free_func (g_free);
      census->kinds[k].index = g_hash_table_new (g_str_hash, g_str_equal);
    }
  for (guint g = 0; g < graphs->len; g++)
    count_graph (census, graphs->pdata[g]);
  for (size_t i = 0; i < model->graph->n_input; i++)
    things_add (&census->kinds[INPUTS], g_strdup (model->graph->input[i]->name),
                onyx_display_escape (model->graph->input[i]->name));
  for (size_t i = 0; i < model->graph->n_output; i++)
    things_add (&census->kinds[OUTPUTS], g_strdup (model->graph->output[i]->name),
                onyx_display_escape (model->graph->output[i]->name));
  for (size_t i = 0; i < model->n_functions; i++)
    {
      char *label = g_strdup_printf ("%s::%s", model->functions[i]->domain != NULL ? model->functions[i]->domain : "",
                                     model->functions[i]->name != NULL ? model->functions[i]->name : "");
      things_add (&census->kinds[FUNCTIONS], label, onyx_display_escape (label));
    }
  for (size_t i = 0; i < model->n_opset_import; i++)
    {
      const char *domain = onyx_domain_is_default (model->opset_import[i]->domain) ? "ai.onnx"
                                                                                  : model->opset_import[i]->domain;
      things_add (&census->kinds[OPSETS], g_strdup (domain), onyx_display_escape (domain));
    }
  return census;
}

void
onyx_step_census_free (OnyxStepCensus *census)
{
  for (guint k = 0; k < N_KINDS; k++)
    {
      g_hash_table_unref (census->kinds[k].index);
      g_ptr_array_unref (census->kinds[k].keys);
      g_ptr_array_unref (census->kinds[k].names);
    }
  g_free (census);
}

/* The names of `from` whose keys `other` lacks (borrowed). */
static GPtrArray *
missing_from (const Things *from, const Things *other)
{
  GPtrArray *names = g_ptr_array_new ();

  for (guint i = 0; i < from->keys->len; i++)
    if (!g_hash_table_contains (other->index, from->keys->pdata[i]))
      g_ptr_array_add (names, from->names->pdata[i]);
  return names;
}

/* "12 nodes", "the graph output y", "the opset imports devtech and custom". */
static char *
phrase (Kind kind, GPtrArray *names)
{
  guint n = names->len;
  g_autofree char *listed = NULL;

  switch (kind)
    {
    case NODES: return g_strdup_printf (ngettext ("%u node", "%u nodes", n), n);
    case INITIALIZERS: return g_strdup_printf (ngettext ("%u initializer", "%u initializers", n), n);
    case FUNCTIONS: return g_strdup_printf (ngettext ("%u local function", "%u local functions", n), n);
    default: break;
    }
  if (n > MAX_NAMED)
    return g_strdup_printf (kind == INPUTS ? ngettext ("%u graph input", "%u graph inputs", n)
                            : kind == OUTPUTS ? ngettext ("%u graph output", "%u graph outputs", n)
                                              : ngettext ("%u opset import", "%u opset imports", n), n);
  listed = onyx_step_join_words (names);
  return g_strdup_printf (kind == INPUTS ? ngettext ("the graph input %s", "the graph inputs %s", n)
                          : kind == OUTPUTS ? ngettext ("the graph output %s", "the graph outputs %s", n)
                                            : ngettext ("the opset import %s", "the opset imports %s", n),
                          listed);
}

char *
onyx_step_join_words (GPtrArray *words)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < words->len; i++)
    {
      /* Translators: between the last two items of a list, "a, b and c". */
      const char *separator = i == 0 ? "" : i + 1 < words->len ? ", " : _(" and ");
      g_string_append_printf (text, "%s%s", separator, (const char *) words->pdata[i]);
    }
  return g_string_free (text, FALSE);
}

/* A line of the longer account: "removed nodes: a, b, … and 9 more". */
static void
add_detail (GString *details, gboolean removed, Kind kind, GPtrArray *names)
{
  g_autofree char *listed = NULL;
  const char *format;

  if (names->len == 0 || details == NULL)
    return;
  listed = onyx_name_families_join ((const char *const *) names->pdata, names->len,
                                    names->len > FAMILIES_PAST ? 4 : G_MAXUINT, MAX_DETAIL_NAMES);
  switch (kind)
    {
    case NODES: format = removed ? _("removed nodes: %s") : _("added nodes: %s"); break;
    case INITIALIZERS: format = removed ? _("removed initializers: %s") : _("added initializers: %s"); break;
    case FUNCTIONS: format = removed ? _("removed local functions: %s") : _("added local functions: %s"); break;
    case INPUTS: format = removed ? _("removed graph inputs: %s") : _("added graph inputs: %s"); break;
    case OUTPUTS: format = removed ? _("removed graph outputs: %s") : _("added graph outputs: %s"); break;
    default: format = removed ? _("removed opset imports: %s") : _("added opset imports: %s"); break;
    }
  if (details->len > 0)
    g_string_append_c (details, '\n');
  g_string_append_printf (details, format, listed);
}

char *
onyx_step_census_changes (OnyxStepCensus *before, OnyxDocument *doc, GString *details)
{
  g_autoptr (GPtrArray) removed_parts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) added_parts = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *removed = NULL, *added = NULL;
  OnyxStepCensus *after = onyx_step_census_new (doc);

  for (int removing = 1; removing >= 0; removing--)
    for (guint k = 0; k < N_KINDS; k++)
      {
        g_autoptr (GPtrArray) names = removing ? missing_from (&before->kinds[k], &after->kinds[k])
                                               : missing_from (&after->kinds[k], &before->kinds[k]);
        if (names->len == 0)
          continue;
        g_ptr_array_add (removing ? removed_parts : added_parts, phrase (k, names));
        add_detail (details, removing, k, names);
      }
  onyx_step_census_free (after);
  if (removed_parts->len > 0)
    {
      g_autofree char *listed = onyx_step_join_words (removed_parts);
      /* Translators: what a step took from the model: "removed 12 nodes and 3 initializers". */
      removed = g_strdup_printf (_("removed %s"), listed);
    }
  if (added_parts->len > 0)
    {
      g_autofree char *listed = onyx_step_join_words (added_parts);
      /* Translators: what a step put in the model: "added 45 nodes". */
      added = g_strdup_printf (_("added %s"), listed);
    }
  if (removed != NULL && added != NULL)
    return g_strdup_printf ("%s; %s", removed, added);
  return g_strdup (removed != NULL ? removed : added);
}
