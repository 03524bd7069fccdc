/* onyx-ort-schemas.h: ONNX Runtime's operators registered in ONNX's schema registry
 * (onyx-ort-schemas.cc), with shape inference for those LLM, transformer and quantized
 * exports are made of (onyx-ort-inference.cc). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Once per process, before the registry is read (the schema table's generator, the
 * helper's inference, checker and converter). */
void     onyx_ort_register_schemas (void);
/* Whether the schema of domain::name was registered from ONNX Runtime's facts. */
gboolean onyx_ort_is_registered    (const char *domain,
                                    const char *name);

G_END_DECLS

#ifdef __cplusplus
namespace onnx {
class OpSchema;
}
/* Sets the operator's type and shape inference, when Onyx has one for it. */
void onyx_ort_set_inference (onnx::OpSchema &schema);
#endif
