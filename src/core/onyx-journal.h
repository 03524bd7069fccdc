/* onyx-journal.h: the unsaved edits of a model, kept on disk so that a crash loses
 * nothing. A journal names the model file (with its size and modification time, to
 * tell whether it changed since) and lists the replay entries of every applied edit;
 * replayed on that file they give back the model that was being edited. */
#pragma once

#include "onyx-document.h"

G_BEGIN_DECLS

typedef struct {
  char *model_path;
  guint64 size;
  gint64 mtime;
  GPtrArray *entries;   /* GStrv */
} OnyxJournal;

void         onyx_journal_free     (OnyxJournal *journal);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxJournal, onyx_journal_free)

/* Where the journal of a model lives: $XDG_STATE_HOME/onyx/journals/<hash>.journal. */
char        *onyx_journal_path_for (const char *model_path);

/* Writes the document's applied edits atomically (an empty list removes the file):
 * onyx_journal_serialize, then onyx_journal_store. */
gboolean     onyx_journal_write    (OnyxDocument *doc,
                                    const char   *journal_path,
                                    GError      **error);
/* The journal of the document's applied edits; NULL without an error when nothing is
 * unsaved (the journal file is to go). */
GBytes      *onyx_journal_serialize (OnyxDocument *doc,
                                     GError      **error);
/* Writes `contents` (from onyx_journal_serialize) atomically and durably, or removes
 * the file when it is NULL; touches no document, so a thread may do it. */
gboolean     onyx_journal_store    (const char   *journal_path,
                                    GBytes       *contents,
                                    GError      **error);
/* onyx_journal_store on the disk queue's thread (onyx-disk-queue.h: writing waits
 * for the disk, which a UI must not), in the order asked; a failure is logged. */
void         onyx_journal_store_later (const char *journal_path,
                                       GBytes     *contents);
OnyxJournal *onyx_journal_read     (const char   *journal_path,
                                    GError      **error);
/* TRUE when the model file is still the one the journal was written against. */
gboolean     onyx_journal_matches  (const OnyxJournal *journal);
/* Replays the entries on a document of the journal's model, each as its own undo step.
 * Stops at the first that fails (the model changed under it), with an error. */
gboolean     onyx_journal_replay   (const OnyxJournal *journal,
                                    OnyxDocument      *doc,
                                    GError           **error);

G_END_DECLS
