/* onyx-files-private.h: what the files part's files share. */
#pragma once

#include "onyx-files.h"

G_BEGIN_DECLS

struct _OnyxFiles {
  GSimpleActionGroup parent_instance;

  OnyxViewState *state;
  OnyxJob *opening;               /* the file being read, or NULL */
  guint opened;                   /* idle: what follows an open, once it is shown */
  char *graph;                    /* the graph to show once opened, or NULL */
  GFile *pending_open;            /* opened once unsaved changes are dealt with */
  OnyxFilesThen after_save;       /* closing or opening over unsaved changes */
  gpointer after_save_data;
};

/* onyx-files-save.c */
void onyx_files_add_save_actions  (OnyxFiles *self);
/* Save and Save As follow the document shown (not while a thread reads it). */
void onyx_files_follow_document   (OnyxFiles *self);
/* onyx-files-journal.c: a journal of unsaved edits written after each step, offered
 * back when the model is opened again after a crash. */
void onyx_files_follow_journal    (OnyxFiles *self);
void onyx_files_offer_restore     (OnyxFiles *self);

G_END_DECLS
