/* onyx-disk-queue.c: one writer thread for small files (see the header). */
#include "onyx-disk-queue.h"

static GThreadPool *writer;
G_LOCK_DEFINE_STATIC (writer);

static void
run_write (gpointer job, gpointer unused)
{
  GFunc write = ((gpointer *) job)[0];
  gpointer data = ((gpointer *) job)[1];

  write (data, NULL);
  g_free (job);
}

void
onyx_disk_queue_push (GFunc write, gpointer data)
{
  gpointer *job = g_new (gpointer, 2);

  job[0] = (gpointer) write;
  job[1] = data;
  G_LOCK (writer);
  /* One thread: writes are done in the order asked. */
  if (writer == NULL)
    writer = g_thread_pool_new (run_write, NULL, 1, FALSE, NULL);
  g_thread_pool_push (writer, job, NULL);
  G_UNLOCK (writer);
}

void
onyx_disk_queue_flush (void)
{
  GThreadPool *pool;

  G_LOCK (writer);
  pool = g_steal_pointer (&writer);
  G_UNLOCK (writer);
  /* Freeing the pool waits for what it was given; the next write makes another. */
  if (pool != NULL)
    g_thread_pool_free (pool, FALSE, TRUE);
}
