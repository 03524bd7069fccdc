/* onyx-run-pane-private.h: what the Run pane's files share. */
#pragma once

#include "onyx-run-pane.h"

G_BEGIN_DECLS

struct _OnyxRunPane {
  GtkBox parent_instance;

  GtkLabel *subtitle;        /* the inputs */
  GtkStack *status;          /* running, error, result */
  GtkLabel *error_label;
  GtkLabel *summary_label;
  GtkWidget *compare_box;
  GtkLabel *compare_label;
  GtkWidget *divergence_button;
  GtkDropDown *color_drop;
  GtkWidget *legend;
  GtkDrawingArea *legend_bar;
  GtkLabel *legend_low, *legend_high, *legend_note;
  GtkBox *tensors_box;

  OnyxRunResult *result;
  OnyxQuantAccuracy *accuracy;  /* of a quantized model against its float twin, or NULL */
  char *compared_with;
  OnyxModel *result_model;      /* the model as it ran, which the result's indexes are of */
  double atol;
  GHashTable *stats_by_name;  /* borrowed from result */
  GHashTable *delta_by_name;
  OnyxRunColor color_by;
  double scale_low, scale_high; /* of the statistic, through asinh */
  GStrv shown;

  /* The runs (onyx-run-pane-runs.c) */
  OnyxViewState *state;
  GSimpleActionGroup *actions;
  gboolean revealed;
  struct _RunState *run;        /* NULL until the first run */
};

/* onyx-run-pane-runs.c */
void onyx_run_pane_init_runs    (OnyxRunPane *self);
void onyx_run_pane_dispose_runs (OnyxRunPane *self);
/* The node Go to First Divergence selects and Save Repro… cuts at: its index in the
 * model as it ran, and (`tensor`) the output by which it is found again in the model
 * as it is now. The first node that parts from what it was compared with, or a
 * quantized model's first layer under the threshold; -1 and NULL when none. */
int onyx_run_pane_divergence (OnyxRunPane *self, const char **tensor);
/* The actions enabled as the pane and its runs now allow. */
void onyx_run_pane_update_actions (OnyxRunPane *self);
/* The revealed property says so (and is notified). */
void onyx_run_pane_set_revealed (OnyxRunPane *self,
                                 gboolean     revealed);

G_END_DECLS
