/* onyx-simplifier.h: Simplify, a part of the window: the group of its actions
 * ("simplify": run, and without::PASS to undo one pass of the last Simplify) and
 * its job. The model as it is now is simplified and proven on a copy in a job, the
 * document frozen meanwhile; then the document itself is simplified at once from
 * what the copy's run learned (onyx-simplify.h's tape), as one undo step, and the
 * report shows (onyx-simplify-dialog.h). */
#pragma once

#include <gio/gio.h>

#include "onyx-view-state.h"

G_BEGIN_DECLS

#define ONYX_TYPE_SIMPLIFIER (onyx_simplifier_get_type ())
G_DECLARE_FINAL_TYPE (OnyxSimplifier, onyx_simplifier, ONYX, SIMPLIFIER, GSimpleActionGroup)

OnyxSimplifier *onyx_simplifier_new (OnyxViewState *state);
/* A Simplify is under way (its job runs). */
gboolean      onyx_simplifier_is_running (OnyxSimplifier *self);

G_END_DECLS
