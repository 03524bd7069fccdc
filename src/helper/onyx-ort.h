/* onyx-ort.h: ONNX Runtime's side of ONYX_ONNX_JOB_RUN and ONYX_ONNX_JOB_PROFILE, in
 * the helper only. */
#pragma once

#include <glib.h>

#include "onyx-onnx.h"

G_BEGIN_DECLS

/* An onyx-run.h or onyx-run-profile.h request in, its result out; NULL with ONNX
 * Runtime's reason in *text. */
GBytes     *onyx_ort_job      (OnyxOnnxJobKind   kind,
                               GBytes           *input,
                               char            **text);
const char *onyx_ort_version  (void);

G_END_DECLS
