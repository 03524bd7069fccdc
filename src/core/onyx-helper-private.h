/* onyx-helper-private.h: the wire between onyx-helper-client.c (the side that sends
 * jobs) and onyx-helper-serve.c (the helper's side, which alone links libonnx), in
 * onyx-helper-wire.c. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* What a job sends: its kind, its argument and the input (on the socket after this,
 * or in a memory file passed with it); what comes back: a length and bytes for the
 * result (G_MAXUINT64: none), then for the text. */
typedef struct {
  guint64 kind;
  gint64 argument;
  guint64 input_len;
  guint64 input_in_file;
} OnyxHelperRequest;

/* Move all len bytes through fd: FALSE when the other end is gone. */
gboolean onyx_helper_send_all    (int         fd,
                                  const void *data,
                                  gsize       len);
gboolean onyx_helper_receive_all (int         fd,
                                  void       *data,
                                  gsize       len);

/* A job's request with its input: FALSE when the other end is gone. */
gboolean onyx_helper_send_request    (int                fd,
                                      guint64            kind,
                                      gint64             argument,
                                      GBytes            *input);
/* The next request and its input, or NULL when the socket is closed (or broken). */
GBytes  *onyx_helper_receive_request (int                fd,
                                      OnyxHelperRequest *request);

G_END_DECLS
