/* onyx-jobs.h: the one home of a window's background work.
 *
 * Every long task — opening, saving, a step's analysis, layout, compare, run,
 * generate, export, extract, conversion — runs as a job: its work in a thread of its
 * own, its end on the main thread. The runner is the only place in the app that
 * starts threads. It gives each job
 * - a label for the header bar's spinner, shown once a labelled job has run for half
 *   a second (jobs that end sooner show nothing: a spinner that flickers on every
 *   save says nothing either), with the job's progress;
 * - cancellation: the work is told, its end is still delivered (and says so), or a
 *   job is dropped and its end is never delivered (its owner went, another open
 *   replaced it);
 * - and one rule, written once: a job that reads a document says so, and the
 *   document stays frozen while it runs (no edit can begin), or — when the job works
 *   on a snapshot of revision R instead (a run) — its end says whether the document
 *   is still at R, so that what a part shows is never taken for revision R+1's. */
#pragma once

#include <gio/gio.h>

#include "onyx-document.h"

G_BEGIN_DECLS

#define ONYX_TYPE_JOBS (onyx_jobs_get_type ())
G_DECLARE_FINAL_TYPE (OnyxJobs, onyx_jobs, ONYX, JOBS, GObject)

typedef struct _OnyxJob OnyxJob;

/* The work, in the job's thread: a result, or NULL and *error (a NULL result
 * without an error is a result too). */
typedef gpointer (*OnyxJobWork) (OnyxJob *job, gpointer data, GError **error);
/* The end, on the main thread, with the work's result (freed after this returns,
 * unless taken with onyx_job_take_result) or its error (G_IO_ERROR_CANCELLED when
 * cancelled before it was done). `owner` is the spec's. */
typedef void (*OnyxJobDone) (OnyxJob *job, gpointer result, const GError *error, gpointer owner);

typedef enum {
  ONYX_JOB_FREEZE = 1 << 0,      /* the work reads the live document: frozen until the end */
} OnyxJobFlags;

typedef struct {
  const char *label;             /* "Saving model.onnx": the spinner names it; NULL: not shown */
  OnyxDocument *document;        /* the document the work is about, or NULL */
  OnyxJobFlags flags;
  gpointer owner;                /* a GObject kept until the end, handed to `done` */
  OnyxJobWork work;
  gpointer data;                 /* the work's, freed with data_free after the end */
  GDestroyNotify data_free;
  GDestroyNotify result_free;
  OnyxJobDone done;              /* NULL: nothing to do at the end */
} OnyxJobSpec;

/* Properties (read-only): "busy" (gboolean): some labelled job has run for the
 * delay, the spinner shows; "label" (string): the labelled jobs running, one a line
 * with their progress, or NULL; "running" (gboolean): any job runs. */
OnyxJobs   *onyx_jobs_new           (void);
/* Starts a job. The handle is the runner's, valid until the job ends. */
OnyxJob    *onyx_jobs_start         (OnyxJobs          *self,
                                     const OnyxJobSpec *spec);
/* Drops every job `owner` started: none of their ends will be delivered (the
 * owner's dispose). */
void        onyx_jobs_drop_owner    (OnyxJobs          *self,
                                     gpointer           owner);
gboolean    onyx_jobs_get_busy      (OnyxJobs          *self);
const char *onyx_jobs_get_label     (OnyxJobs          *self);
gboolean    onyx_jobs_is_running    (OnyxJobs          *self);
/* How long a labelled job runs before the spinner shows, in ms (tests shorten it). */
void        onyx_jobs_set_delay     (OnyxJobs          *self,
                                     guint              delay_ms);

/* From the work's thread: how far it is, 0 to 1 (the label says the percent). */
void          onyx_job_set_progress  (OnyxJob *job,
                                      double   fraction);
double        onyx_job_get_progress  (OnyxJob *job);
GCancellable *onyx_job_get_cancellable (OnyxJob *job);
/* The work is asked to stop; its end is delivered, cancelled unless it was done. */
void          onyx_job_cancel        (OnyxJob *job);
/* Its end will not be delivered (its result is freed unseen); the work is asked to
 * stop. */
void          onyx_job_drop          (OnyxJob *job);
/* At the end: the document's revision when the job started, and whether the
 * document is still at it (TRUE for a job without a document). */
guint64       onyx_job_get_revision  (OnyxJob *job);
OnyxDocument *onyx_job_get_document  (OnyxJob *job);
/* The spec's data, the work's. */
gpointer      onyx_job_get_data      (OnyxJob *job);
gboolean      onyx_job_is_current    (OnyxJob *job);
/* At the end: the result, the caller's from now on. */
gpointer      onyx_job_take_result   (OnyxJob *job);

G_END_DECLS
