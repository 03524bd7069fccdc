/* onyx-disk-queue.h: small files written in the background (the crash journal, the
 * desktop's recent files). Each write waits for the disk (an fsync), which a UI
 * thread must not: one thread does them, in the order asked. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Calls write (data, NULL) in the queue's thread, after every write pushed before;
 * `write` owns `data`. */
void onyx_disk_queue_push  (GFunc    write,
                            gpointer data);
/* Waits until every write pushed so far is done (the application's shutdown, before
 * reading what was being written). */
void onyx_disk_queue_flush (void);

G_END_DECLS
