/* onyx-domain.h: operator domains: which are ONNX's own, which ONNX Runtime's, and
 * which a model uses. Below validation and graph naming, which both ask. */
#pragma once

#include <glib.h>

#include "onyx-proto.h"

G_BEGIN_DECLS

/* "" and "ai.onnx" are the same domain. */
gboolean   onyx_domain_is_default  (const char *domain);
/* Domains defined by the ONNX standard ("", ai.onnx, ai.onnx.ml, ai.onnx.training,
 * ai.onnx.preview.training); anything else needs a runtime that knows it. */
gboolean   onyx_domain_is_standard (const char *domain);
/* com.microsoft and its sub-domains (com.microsoft.nchwc…): ONNX Runtime's contrib
 * operators, which ONNX Runtime runs and other runtimes do not. */
gboolean   onyx_domain_is_onnxruntime (const char *domain);
/* The domains that nodes anywhere in the model use (every graph at any depth,
 * functions, training graphs; "" for ai.onnx) and that its functions are defined in:
 * a set of strings borrowed from the model (g_hash_table_unref it). */
GHashTable *onyx_model_used_domains  (const Onnx__ModelProto *model);

G_END_DECLS
