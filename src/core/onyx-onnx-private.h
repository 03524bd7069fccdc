/* onyx-onnx-private.h: the wire between onyx-helper-client.c (the side that sends
 * jobs) and onyx-helper-serve.c (the helper's side, which alone links libonnx), in
 * onyx-helper-wire.c; and the readers of both ends, for the fuzzer of what crosses
 * (tests/fuzz/fuzz-wire.c).
 *
 * A job is its kind and its argument (two 64-bit numbers in the host's order), then
 * its input as a part; an answer is two parts, the result then the text. A part is a
 * header of two 64-bit numbers, its length (G_MAXUINT64: none) and whether its bytes
 * are in a memory file passed with the header (SCM_RIGHTS), then its bytes unless
 * they are. */
#pragma once

#include "onyx-onnx.h"

G_BEGIN_DECLS

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
/* What precedes a part's bytes: their length (G_MAXUINT64: no part), and whether they
 * are in the memory file passed with this (SCM_RIGHTS) rather than on the socket. */
typedef struct {
  guint64 len;
  guint64 in_file;
} OnyxHelperPartHeader;

/* Sends a part's header, with `file` passed along (SCM_RIGHTS) unless it is -1:
 * onyx_helper_send_part's first step, and how the tests send what it would not. */
gboolean onyx_helper_send_header  (int         fd,
                                   guint64     len,
                                   guint64     in_file,
                                   int         file);
/* A part: len bytes (G_MAXUINT64: none, `data` unread), on the socket or, when large,
 * in a memory file passed with its length. Received: FALSE when the other end is gone
 * or sent what is not a part (a length its memory file does not have, a memory file
 * where fd is no socket); *part is NULL for none. What a length claims is not
 * allocated at once: a part on the socket grows with the bytes that arrive, so that a
 * length that lies costs the bytes sent. */
gboolean onyx_helper_send_part    (int         fd,
                                   const void *data,
                                   guint64     len);
gboolean onyx_helper_receive_part (int         fd,
                                   GBytes    **part);

/* The next job, as the helper reads it from fd; FALSE when fd ends before a whole
 * job came. The kind is as it came: unknown ones are answered, not refused here. */
gboolean onyx_onnx_receive_job    (int       fd,
                                   guint64  *kind,
                                   gint64   *argument,
                                   GBytes  **input);
/* The answer to a job, as the app reads it from fd: the result (NULL: none) and the
 * text (NULL: none; else valid UTF-8, cut at a NUL); FALSE when fd ends before a
 * whole answer came. */
gboolean onyx_onnx_receive_answer (int       fd,
                                   GBytes  **result,
                                   char    **text);

G_END_DECLS
