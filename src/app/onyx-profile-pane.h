/* onyx-profile-pane.h: Profile, a part of the window: where the model's time goes,
 * from ONNX Runtime's own profiler (onyx-run-profile.h), on Run's inputs (Run
 * Settings). The sidebar says the totals (per run, the kernels, the overhead beyond
 * them, the session's start), the nodes and operators that take the most, and what
 * changed against the profile before (after an edit or Simplify); the graph's boxes
 * are tinted by their share, a group's and a stack's by their members', with the
 * share beside the box (the view state's profile tints and box notes); the panel
 * says a node's time. Its actions, in the group it gives the window ("profile"):
 * start, cancel, clear, settings, save-trace, save-csv. Property "revealed". */
#pragma once

#include <gtk/gtk.h>

#include "onyx-view-state.h"

G_BEGIN_DECLS

#define ONYX_TYPE_PROFILE_PANE (onyx_profile_pane_get_type ())
G_DECLARE_FINAL_TYPE (OnyxProfilePane, onyx_profile_pane, ONYX, PROFILE_PANE, GtkBox)

void          onyx_profile_pane_set_state   (OnyxProfilePane *self,
                                             OnyxViewState   *state);
GActionGroup *onyx_profile_pane_get_actions (OnyxProfilePane *self);
gboolean      onyx_profile_pane_get_revealed (OnyxProfilePane *self);
/* A profile runs (its job). */
gboolean      onyx_profile_pane_is_running  (OnyxProfilePane *self);
/* The rows of the nodes that take the most time (GtkListBox of AdwActionRow). */
GtkListBox   *onyx_profile_pane_get_nodes_list (OnyxProfilePane *self);

G_END_DECLS
