/* onyx-replay.c: the format of replay entries (onyx-replay.h). */
#include "onyx-replay.h"

#include <stdarg.h>
#include <string.h>

#include "onyx-document-private.h"
#include "onyx-error.h"
#include "onyx-graph-names.h"

/* `first` (may be NULL) then the arguments of `args`. */
static void
note_valist (OnyxDocument *doc, const OnyxReplayStep *step, const char *first, va_list args)
{
  g_autoptr (GPtrArray) entry = g_ptr_array_new_with_free_func (g_free);

  g_ptr_array_add (entry, g_strdup (step->name));
  if (first != NULL)
    g_ptr_array_add (entry, g_strdup (first));
  for (const char *arg = va_arg (args, const char *); arg != NULL; arg = va_arg (args, const char *))
    g_ptr_array_add (entry, g_strdup (arg));
  /* The reader checks the count too: a writer that disagrees is a bug here, not a
   * journal nobody can read later. */
  g_return_if_fail (entry->len - 1 == step->n_arguments);
  g_ptr_array_add (entry, NULL);
  onyx_document_note_replay (doc, (char **) g_ptr_array_steal (entry, NULL));
}

void
onyx_replay_note (OnyxDocument *doc, const OnyxReplayStep *step, ...)
{
  va_list args;

  va_start (args, step);
  note_valist (doc, step, NULL, args);
  va_end (args);
}

void
onyx_replay_note_node (OnyxDocument *doc, const OnyxReplayStep *step, Onnx__NodeProto *node, ...)
{
  g_autofree char *ref = onyx_replay_node_ref (doc, node);
  va_list args;

  va_start (args, node);
  note_valist (doc, step, ref, args);
  va_end (args);
}

char *
onyx_replay_node_ref (OnyxDocument *doc, Onnx__NodeProto *node)
{
  Onnx__GraphProto *main_graph = onyx_document_get_proto (doc)->graph;
  Onnx__GraphProto *graph = onyx_document_graph_of_node (doc, node);
  g_autoptr (OnyxGraphList) graphs = NULL;
  gssize position;

  if (graph == NULL)
    graph = main_graph;
  position = onyx_graph_index_node_position (onyx_document_get_graph_index (doc, graph), node);
  if (graph == main_graph)
    return g_strdup_printf ("#%" G_GSSIZE_FORMAT, position);
  graphs = onyx_graph_list_new (onyx_document_get_proto (doc));
  return g_strdup_printf ("%s#%" G_GSSIZE_FORMAT, onyx_graph_list_graph_of (graphs, node)->name, position);
}

Onnx__NodeProto *
onyx_replay_find_node (OnyxDocument *doc, const char *reference, GError **error)
{
  if (strchr (reference, '#') == NULL)
    {
      g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID,
                   "a replayed node must be given as #N or GRAPH#N");
      return NULL;
    }
  return onyx_document_find_node (doc, reference, error);
}

char *
onyx_replay_count_text (guint value)
{
  return g_strdup_printf ("%u", value);
}

gboolean
onyx_replay_parse_count (const char *text, guint *value, GError **error)
{
  guint64 parsed;

  if (!g_ascii_string_to_unsigned (text, 10, 0, G_MAXINT32, &parsed, NULL))
    {
      g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID, "'%s' is not a count in a replay entry", text);
      return FALSE;
    }
  *value = (guint) parsed;
  return TRUE;
}

char *
onyx_replay_names_text (const char *const *names)
{
  GString *encoded = g_string_new (NULL);

  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      g_autofree char *escaped = g_strescape (names[i], NULL);
      g_string_append_printf (encoded, "%s\n", escaped);
    }
  return g_string_free (encoded, FALSE);
}

char **
onyx_replay_parse_names (const char *text)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint n = g_strv_length (lines);
  char **names = g_new0 (char *, MAX (n, 1));

  /* The text ends with a newline: its last piece is empty. */
  for (guint i = 0; i + 1 < n; i++)
    names[i] = g_strcompress (lines[i]);
  return names;
}
