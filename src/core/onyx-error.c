#include "onyx-error.h"

G_DEFINE_QUARK (onyx-model-error-quark, onyx_model_error)
G_DEFINE_QUARK (onyx-edit-error-quark, onyx_edit_error)
