/* onyx-torch-names.h: the names torch's function-per-module exports give their
 * model-local functions, read back as module paths and classes.
 *
 * The dynamo exporter of torch 2.1–2.4 wrapped every module call in a function named
 * `<class path>_<module path>_<call counter>`, dots written as `_`
 * ("transformers_models_…_Speech2Text2DecoderLayer_model_decoder_layers_0_1"), and
 * named each call of it after the function and the call's position ("…_1_38"). The
 * module path's own underscores ("self_attn") cannot be told from its dots there; the
 * model's parameter names ("model.decoder.layers.0.self_attn.q_proj.weight") can, and
 * are what the path is matched against. Dynamo's mangled attribute paths
 * ("getattr_L__self___layer1___0___conv1") are read too. */
#pragma once

#include <glib.h>

#include "onyx-proto.h"

G_BEGIN_DECLS

/* The module paths that parameter names tell: every prefix of a dotted name but the
 * last part ("a.b.weight" → "a", "a.b"). */
typedef struct _OnyxTorchModules OnyxTorchModules;

OnyxTorchModules *onyx_torch_modules_new       (void);
void              onyx_torch_modules_free      (OnyxTorchModules       *modules);
/* Adds the modules of the graph's initializers and inputs (a function's view lists
 * the parameters it is passed as inputs). */
void              onyx_torch_modules_add_graph (OnyxTorchModules       *modules,
                                                const Onnx__GraphProto *graph);
void              onyx_torch_modules_add_name  (OnyxTorchModules       *modules,
                                                const char             *name);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxTorchModules, onyx_torch_modules_free)

typedef struct {
  char *path;         /* "model.decoder.layers.0" */
  char *class_name;   /* "Speech2Text2DecoderLayer" */
  guint call;         /* 1 for the module's first call, 2 for its second… */
} OnyxTorchCall;

/* Reads `name` as a module function's name (`n_counters` 1) or as the name of a
 * call of one (2: the call's position follows). FALSE, and `out` untouched, when it
 * is not of that form. `modules` may be NULL: the path then keeps its underscores. */
gboolean onyx_torch_call_parse (const OnyxTorchModules *modules,
                                const char             *name,
                                guint                   n_counters,
                                OnyxTorchCall          *out);
void     onyx_torch_call_clear (OnyxTorchCall *call);

/* "model.decoder.layers.0 · Speech2Text2DecoderLayer" (not escaped). */
char    *onyx_torch_call_label (const OnyxTorchCall *call);

/* The function of an operator-level call ("aten_view" of "aten_view_3",
 * "_aten_convolution_onnx" of "_aten_convolution_onnx_0"), or NULL for any other
 * name. */
char    *onyx_torch_op_call_function (const char *name);

G_END_DECLS
