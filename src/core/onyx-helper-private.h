/* onyx-helper-private.h: the wire between onyx-helper-client.c (the side that sends
 * jobs) and onyx-helper-serve.c (the helper's side, which alone links libonnx), in
 * onyx-helper-wire.c. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* What a job sends: its kind and its argument, then its input as a part; what comes
 * back: the result and the text, each a part. */
typedef struct {
  guint64 kind;
  gint64 argument;
} OnyxHelperRequest;

/* Move all len bytes through fd: FALSE when the other end is gone. */
gboolean onyx_helper_send_all     (int         fd,
                                   const void *data,
                                   gsize       len);
gboolean onyx_helper_receive_all  (int         fd,
                                   void       *data,
                                   gsize       len);
/* A part: len bytes (G_MAXUINT64: none, `data` unread), on the socket or, when large,
 * in a memory file passed with its length. FALSE when the other end is gone (or sent
 * what is not a part); *part is NULL for none. */
gboolean onyx_helper_send_part    (int         fd,
                                   const void *data,
                                   guint64     len);
gboolean onyx_helper_receive_part (int         fd,
                                   GBytes    **part);

G_END_DECLS
