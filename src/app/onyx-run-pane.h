/* onyx-run-pane.h: Run with ONNX Runtime (onyx-run.h), a part of the window: the
 * sidebar of a run — how it went, the colour scale the graph is drawn with and its
 * legend, the statistics and histogram of the selected node's tensors, with their
 * error when the run was compared — and the runs themselves, in jobs, the graph
 * coloured by them (the view state's run tints). Its actions, in the group it gives
 * the window ("run"): start (F5), until (up to the selected node), with-inputs,
 * settings, compare, cancel, first-divergence, repro, close. Property "revealed":
 * the pane shows. */
#pragma once

#include <gtk/gtk.h>

#include "onyx-quant.h"
#include "onyx-run.h"
#include "onyx-run-settings.h"
#include "onyx-view-state.h"

G_BEGIN_DECLS

#define ONYX_TYPE_RUN_PANE (onyx_run_pane_get_type ())
G_DECLARE_FINAL_TYPE (OnyxRunPane, onyx_run_pane, ONYX, RUN_PANE, GtkBox)

/* What the graph is coloured by (property "color-by"). */
typedef enum {
  ONYX_RUN_COLOR_NONE,
  ONYX_RUN_COLOR_MEAN,
  ONYX_RUN_COLOR_STD,
  ONYX_RUN_COLOR_MAX_ABS,   /* the largest magnitude, max(|min|, |max|) */
  ONYX_RUN_COLOR_ERROR,     /* against the comparison; only when there is one */
} OnyxRunColor;

GtkWidget           *onyx_run_pane_new           (void);
void                 onyx_run_pane_set_state     (OnyxRunPane   *self,
                                                  OnyxViewState *state);
GActionGroup        *onyx_run_pane_get_actions   (OnyxRunPane   *self);
gboolean             onyx_run_pane_is_running    (OnyxRunPane   *self);
/* Cancels a run under way, forgets inputs and comparison, hides the pane. */
void                 onyx_run_pane_reset         (OnyxRunPane   *self);
/* Feeds the next runs from an .npz (arrays that are no graph input are left) and runs. */
gboolean             onyx_run_pane_run_with_inputs (OnyxRunPane *self,
                                                    GFile       *file,
                                                    GError     **error);
/* Compares the next runs with a model (.onnx) or reference arrays (.npz) and runs. */
gboolean             onyx_run_pane_compare_with  (OnyxRunPane   *self,
                                                  GFile         *file,
                                                  GError       **error);
/* The Run Settings dialog (inputs made, symbolic dims); its Run runs with them. */
OnyxRunSettings     *onyx_run_pane_show_settings (OnyxRunPane   *self);
/* Selects the node of the first divergence: FALSE when there is none. */
gboolean             onyx_run_pane_go_to_first_divergence (OnyxRunPane *self);
/* Saves the divergent node cut out as `file` with its inputs beside it (.npz), in
 * a job; a toast says when. FALSE when there is nothing to save. */
gboolean             onyx_run_pane_save_repro    (OnyxRunPane   *self,
                                                  GFile         *file);
/* A run is under way; `inputs` says with what ("Random inputs (seed 0)"). */
void                 onyx_run_pane_set_running   (OnyxRunPane   *self,
                                                  const char    *inputs);
/* The run failed (or was cancelled): the message, in place of a result. */
void                 onyx_run_pane_set_error     (OnyxRunPane   *self,
                                                  const char    *message);
/* Takes `result`, of `model` as it ran. `compared_with` names what it was compared
 * with, or NULL; `atol`
 * is the comparison's absolute tolerance, the unit of the error scale. */
void                 onyx_run_pane_set_result    (OnyxRunPane   *self,
                                                  OnyxRunResult *result,
                                                  OnyxModel     *model,
                                                  const char    *compared_with,
                                                  double         atol);
/* Takes `accuracy`, of the quantized model's layers in the result shown against its
 * float twin (onyx_quant_accuracy_new): the comparison says where it loses most. */
void                 onyx_run_pane_set_accuracy  (OnyxRunPane       *self,
                                                  OnyxQuantAccuracy *accuracy);
/* NULL unless the result shown is of a quantized model against its float twin. */
const OnyxQuantAccuracy *onyx_run_pane_get_accuracy (OnyxRunPane   *self);
/* NULL while running, after an error, or before the first run. */
const OnyxRunResult *onyx_run_pane_get_result    (OnyxRunPane   *self);
const OnyxRunStats  *onyx_run_pane_lookup_stats  (OnyxRunPane   *self,
                                                  const char    *tensor);
const OnyxRunDelta  *onyx_run_pane_lookup_delta  (OnyxRunPane   *self,
                                                  const char    *tensor);
/* Lists these tensors' statistics (NULL-terminated; NULL: none), e.g. the outputs
 * of the selected node. */
void                 onyx_run_pane_show_tensors  (OnyxRunPane       *self,
                                                  const char *const *tensors);
OnyxRunColor         onyx_run_pane_get_color_by  (OnyxRunPane   *self);
void                 onyx_run_pane_set_color_by  (OnyxRunPane   *self,
                                                  OnyxRunColor   color_by);
/* How high a node stands on the colour scale, from 0 to 1, by its outputs
 * (NULL-terminated); -1 when coloured by error and all of them agree. FALSE when
 * none of them ran or the graph is not coloured. *nonfinite is set when one of them
 * has a NaN or an infinity. */
gboolean             onyx_run_pane_rate_node     (OnyxRunPane       *self,
                                                  const char *const *outputs,
                                                  double            *level,
                                                  gboolean          *nonfinite);
/* The scale's colour at `level` (0 to 1; green below 0, for agreement); nodes with
 * NaN or Inf take `nonfinite`'s. */
void                 onyx_run_pane_scale_color   (double         level,
                                                  GdkRGBA       *color);
void                 onyx_run_pane_nonfinite_color (GdkRGBA     *color);
/* What the run made of one tensor, a line each ("Ran: float32[1×16×63×63]", min and
 * max, mean and std, NaN/Inf, the error when compared), or NULL when it was not
 * captured. */
char                *onyx_run_pane_describe_tensor (OnyxRunPane *self,
                                                    const char  *tensor);
/* The statistics shown, one line each, for tests and accessibility. */
char                *onyx_run_pane_describe      (OnyxRunPane   *self);

G_END_DECLS
