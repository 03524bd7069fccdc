/* onyx-onnx-private.h: the framing of the jobs between onyx-helper-client.c and
 * Onyx's helper, for the fuzzer of what crosses (tests/fuzz/fuzz-wire.c).
 *
 * A job is its kind, its argument and the length of its input (three 64-bit
 * numbers in the host's order), then the input; an answer is two parts, the result
 * then the text, each a 64-bit length (G_MAXUINT64: none) then its bytes. */
#pragma once

#include "onyx-onnx.h"

G_BEGIN_DECLS

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
