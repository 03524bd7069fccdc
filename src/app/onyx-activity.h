/* onyx-activity.h: what the window is doing in the background (saving, comparing,
 * converting…), shown by a spinner in the header bar once a job has run for half a
 * second, its tooltip naming the jobs. Jobs that finish sooner show nothing: a
 * spinner that flickers on every save says nothing either. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ONYX_TYPE_ACTIVITY (onyx_activity_get_type ())
G_DECLARE_FINAL_TYPE (OnyxActivity, onyx_activity, ONYX, ACTIVITY, GObject)

/* Properties: "busy" (gboolean, read-only): the spinner shows, some job has run
 * longer than the delay; "label" (string, read-only): the running jobs, one a line,
 * or NULL. */

/* `spinner` is shown and spun while busy; it is hidden otherwise. */
OnyxActivity *onyx_activity_new       (GtkSpinner   *spinner);
/* A job starts: `label` says what it does ("Saving model.onnx"). Returns its id. */
guint         onyx_activity_begin     (OnyxActivity *self,
                                       const char   *label);
/* How far the job `id` is, 0 to 1: its label says the percent from now on. */
void          onyx_activity_set_progress (OnyxActivity *self,
                                          guint         id,
                                          double        fraction);
/* The job `id` is done (or was dropped); 0 is ignored. */
void          onyx_activity_end       (OnyxActivity *self,
                                       guint         id);
gboolean      onyx_activity_get_busy  (OnyxActivity *self);
/* The running jobs' labels, one a line; NULL when none runs. */
const char   *onyx_activity_get_label (OnyxActivity *self);
/* How long a job runs before the spinner shows, in milliseconds (tests shorten it). */
void          onyx_activity_set_delay (OnyxActivity *self,
                                       guint         delay_ms);

G_END_DECLS
