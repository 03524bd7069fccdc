/* onyx-simplify-dialog.h: what Simplify did, in a window beside the main one: nodes
 * and initializers before → after, the proof's verdict and sentence, each pass with
 * what it removed and added and its time (and a button that undoes it on its own:
 * simplify.without::PASS), the operators before → after (as onnxslim prints them),
 * and Show Changes, which compares the document with the model as it was before
 * (the view state's compare-with). */
#pragma once

#include <adwaita.h>

#include "onyx-simplify.h"
#include "onyx-view-state.h"

G_BEGIN_DECLS

#define ONYX_TYPE_SIMPLIFY_DIALOG (onyx_simplify_dialog_get_type ())
G_DECLARE_FINAL_TYPE (OnyxSimplifyDialog, onyx_simplify_dialog, ONYX, SIMPLIFY_DIALOG, AdwWindow)

/* `actions`: the simplifier's group, whose without::PASS the pass rows activate;
 * `before`: the model as it was (kept for Show Changes). */
OnyxSimplifyDialog *onyx_simplify_dialog_new (OnyxViewState            *state,
                                              GActionGroup             *actions,
                                              const OnyxSimplifyReport *report,
                                              OnyxModel                *before);

G_END_DECLS
