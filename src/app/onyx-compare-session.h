/* onyx-compare-session.h: a comparison of the open document (B, the newer model)
 * with a model file (A). It loads A and works out the diff in a job, B frozen
 * meanwhile, and again when told B stepped, so that its diff always says how B now
 * differs from A. It knows nothing of the window: the Compare pane shows what it
 * announces. */
#pragma once

#include <gio/gio.h>

#include "onyx-diff.h"
#include "onyx-document.h"
#include "onyx-jobs.h"

G_BEGIN_DECLS

#define ONYX_TYPE_COMPARE_SESSION (onyx_compare_session_get_type ())
G_DECLARE_FINAL_TYPE (OnyxCompareSession, onyx_compare_session, ONYX, COMPARE_SESSION, GObject)

/* Signals:
 * "diff-ready" (): a new diff of A and B as B is now (onyx_compare_session_get_diff).
 * "failed" (const char *message): A could not be read; the session does nothing more.
 * Properties (read-only): "busy" (gboolean): a diff is being worked out; "name"
 * (string): A's file name, as shown. */

/* Starts at once: A is read from `path` in the first diff's job. */
OnyxCompareSession *onyx_compare_session_new      (OnyxJobs           *jobs,
                                                   OnyxDocument       *document,
                                                   const char         *path,
                                                   const char         *name);
/* The same with A in memory (the document as it was before an edit). */
OnyxCompareSession *onyx_compare_session_new_for_model (OnyxJobs     *jobs,
                                                        OnyxDocument *document,
                                                        OnyxModel    *model,
                                                        const char   *name);
/* B stepped: the diff is worked out again (a diff under way is dropped). */
void                onyx_compare_session_update   (OnyxCompareSession *self);
/* The diff as last worked out, or NULL before the first. */
const OnyxDiff     *onyx_compare_session_get_diff (OnyxCompareSession *self);
const char         *onyx_compare_session_get_name (OnyxCompareSession *self);
gboolean            onyx_compare_session_get_busy (OnyxCompareSession *self);
/* Stops following B; a diff under way is dropped when its thread is done. */
void                onyx_compare_session_stop     (OnyxCompareSession *self);

G_END_DECLS
