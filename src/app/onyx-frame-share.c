/* onyx-frame-share.c: see onyx-frame-share.h. */
#include "onyx-frame-share.h"

/* A frame painted, or this long without one (a window covered or minimised). */
#define FALLBACK_MS 100

typedef struct {
  GFunc func;
  gpointer data;
  GDestroyNotify destroy;
} Waiting;

typedef struct {
  GdkFrameClock *clock;     /* while a frame is filled */
  gulong after_paint;
  guint fallback, run;
  GArray *waiting;          /* Waiting */
} Share;

static void
share_stop_waiting (Share *share)
{
  if (share->after_paint != 0)
    g_clear_signal_handler (&share->after_paint, share->clock);
  g_clear_object (&share->clock);
  g_clear_handle_id (&share->fallback, g_source_remove);
}

static void
share_free (Share *share)
{
  share_stop_waiting (share);
  g_clear_handle_id (&share->run, g_source_remove);
  for (guint i = 0; i < share->waiting->len; i++)
    {
      Waiting *waiting = &g_array_index (share->waiting, Waiting, i);
      if (waiting->destroy != NULL)
        waiting->destroy (waiting->data);
    }
  g_array_unref (share->waiting);
  g_free (share);
}

static Share *
share_of (GtkWidget *widget, gboolean create)
{
  GtkRoot *root = gtk_widget_get_root (widget);
  Share *share;

  if (root == NULL)
    return NULL;
  share = g_object_get_data (G_OBJECT (root), "onyx-frame-share");
  if (share == NULL && create)
    {
      share = g_new0 (Share, 1);
      share->waiting = g_array_new (FALSE, FALSE, sizeof (Waiting));
      g_object_set_data_full (G_OBJECT (root), "onyx-frame-share", share, (GDestroyNotify) share_free);
    }
  return share;
}

/* In a turn of its own: not inside the frame just painted. */
static gboolean
run_waiting (gpointer data)
{
  Share *share = data;
  g_autoptr (GArray) waiting = share->waiting;

  share->run = 0;
  share->waiting = g_array_new (FALSE, FALSE, sizeof (Waiting));
  for (guint i = 0; i < waiting->len; i++)
    {
      Waiting *each = &g_array_index (waiting, Waiting, i);
      each->func (each->data, NULL);
      if (each->destroy != NULL)
        each->destroy (each->data);
    }
  return G_SOURCE_REMOVE;
}

static void
frame_done (Share *share)
{
  share_stop_waiting (share);
  if (share->waiting->len > 0 && share->run == 0)
    share->run = g_idle_add_full (G_PRIORITY_DEFAULT, run_waiting, share, NULL);
}

static void
after_paint_cb (GdkFrameClock *clock, Share *share)
{
  frame_done (share);
}

static gboolean
fallback_cb (gpointer data)
{
  Share *share = data;

  share->fallback = 0;
  frame_done (share);
  return G_SOURCE_REMOVE;
}

void
onyx_frame_share_fill (GtkWidget *widget)
{
  GdkFrameClock *clock;
  Share *share;

  if (!gtk_widget_get_mapped (widget) || (clock = gtk_widget_get_frame_clock (widget)) == NULL ||
      (share = share_of (widget, TRUE)) == NULL || share->clock != NULL)
    return;
  share->clock = g_object_ref (clock);
  share->after_paint = g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint_cb), share);
  share->fallback = g_timeout_add (FALLBACK_MS, fallback_cb, share);
  gdk_frame_clock_request_phase (clock, GDK_FRAME_CLOCK_PHASE_PAINT);
}

gboolean
onyx_frame_share_is_filled (GtkWidget *widget)
{
  Share *share = share_of (widget, FALSE);

  return share != NULL && share->clock != NULL;
}

void
onyx_frame_share_after (GtkWidget *widget, GFunc func, gpointer data, GDestroyNotify destroy)
{
  Share *share = share_of (widget, FALSE);
  Waiting waiting = { func, data, destroy };

  if (share == NULL || (share->clock == NULL && share->run == 0))
    {
      func (data, NULL);
      if (destroy != NULL)
        destroy (data);
      return;
    }
  g_array_append_val (share->waiting, waiting);
}
