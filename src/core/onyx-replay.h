/* onyx-replay.h: replay entries, the record of an edit that the crash journal keeps
 * and applies again to the saved file (onyx_document_get_replay).
 *
 * An entry is a GStrv: the step's name, then its arguments kept apart, so that any
 * name round-trips ({ "reconnect", "#3", "0", "x", NULL }). A node is named by its
 * position before the edit: "#12" in the main graph, "GRAPH#12" in a subgraph.
 *
 * This file holds only the format. Each edit owns its entry: the edit's file
 * declares an OnyxReplayStep (its name, argument count and reader) next to the edit,
 * which writes its entry with onyx_replay_note; onyx_edit_replay (onyx-steps.h)
 * finds the reader by name. */
#pragma once

#include "onyx-document.h"

G_BEGIN_DECLS

/* Applies an entry's arguments to the document: the same edit, as one undo step. */
typedef gboolean (*OnyxReplayFunc) (OnyxDocument       *doc,
                                    const char *const  *arguments,
                                    GError            **error);

typedef struct {
  const char *name;       /* as the entry starts, and as `onyx-cli edit` names the step */
  guint n_arguments;
  OnyxReplayFunc apply;
} OnyxReplayStep;

/* Records the entry of the edit being made: `step`'s name and its arguments, as many
 * as it takes, then NULL. Called right after onyx_document_begin_command, before the
 * edit changes anything (node positions are those before it). */
void             onyx_replay_note           (OnyxDocument         *doc,
                                             const OnyxReplayStep *step,
                                             ...) G_GNUC_NULL_TERMINATED;
/* The same with the node's reference first (onyx_replay_node_ref). */
void             onyx_replay_note_node      (OnyxDocument         *doc,
                                             const OnyxReplayStep *step,
                                             Onnx__NodeProto      *node,
                                             ...) G_GNUC_NULL_TERMINATED;
/* "#12" or "GRAPH#12": where the node is now. */
char            *onyx_replay_node_ref       (OnyxDocument    *doc,
                                             Onnx__NodeProto *node);
/* The node an entry names (a position, never a name: names change). */
Onnx__NodeProto *onyx_replay_find_node      (OnyxDocument  *doc,
                                             const char    *reference,
                                             GError       **error);
/* Counts (an input slot, an axis, an opset) are decimal. */
char            *onyx_replay_count_text     (guint        value);
gboolean         onyx_replay_parse_count    (const char  *text,
                                             guint       *value,
                                             GError     **error);
/* A list of names as one argument: each escaped (g_strescape), a line each; and back. */
char            *onyx_replay_names_text     (const char *const *names);
char           **onyx_replay_parse_names    (const char        *text);

G_END_DECLS
