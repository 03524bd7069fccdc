/* onyx-ort.h: ONNX Runtime's side of ONYX_ONNX_JOB_RUN, in the helper only. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* An onyx-run.h request in, its result out; NULL with ONNX Runtime's reason in *text. */
GBytes     *onyx_ort_run_job  (GBytes  *input,
                               char   **text);
const char *onyx_ort_version  (void);

G_END_DECLS
