/* onyx-run-settings.c: the Run Settings dialog (onyx-run-settings.h). */
#include "onyx-run-settings.h"

#include <glib/gi18n.h>
#include <string.h>

struct _OnyxRunSettings {
  AdwWindow parent_instance;

  AdwComboRow *fill_row;
  GtkSpinButton *seed, *low, *high;
  GtkWidget *range_rows[3];       /* seed, low, high: for random values only */
  GPtrArray *dim_names;           /* char*, owned */
  GPtrArray *dim_spins;           /* GtkSpinButton*, one per name */
  GHashTable *image_dims;         /* names of them that are an image's height or width:
                                   * 0 there means not given */
  OnyxModel *model;
  GHashTable *chosen;             /* name → size: chosen before, or changed here; the
                                   * other sizes are planned from them (a KV cache's
                                   * total follows its past) */
  gboolean planning;              /* the spins are being set from the plan */
};

G_DEFINE_FINAL_TYPE (OnyxRunSettings, onyx_run_settings, ADW_TYPE_WINDOW)

enum { SIGNAL_RUN, N_SIGNALS };
static guint signals[N_SIGNALS];

/* The combo's order. */
static const OnyxRunFill fills[] = { ONYX_RUN_FILL_RANDOM, ONYX_RUN_FILL_ZEROS, ONYX_RUN_FILL_ONES };

static GtkSpinButton *
spin_row (AdwPreferencesGroup *group, const char *title, const char *subtitle, double low, double high,
          double step, guint digits, double value, GtkWidget **row_out)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *spin = gtk_spin_button_new_with_range (low, high, step);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  /* Dimension names are the model's: no markup in them. */
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  if (subtitle != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), digits);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), value);
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  gtk_accessible_update_property (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), spin);
  adw_preferences_group_add (group, row);
  if (row_out != NULL)
    *row_out = row;
  return GTK_SPIN_BUTTON (spin);
}

/* The size a dim takes where nothing chose it: as planned, else 1 (an image's 0: to
 * be given). */
static int
planned_size (OnyxRunSettings *self, GHashTable *sizes, const char *name)
{
  gpointer size;

  if (g_hash_table_lookup_extended (sizes, name, NULL, &size))
    return GPOINTER_TO_INT (size);
  return g_hash_table_contains (self->image_dims, name) ? 0 : 1;
}

/* A size changed by hand is chosen; the sizes planned from the chosen ones follow. */
static void
dim_changed_cb (GtkSpinButton *spin, OnyxRunSettings *self)
{
  g_autoptr (GHashTable) sizes = NULL;
  guint changed;

  if (self->planning || !g_ptr_array_find (self->dim_spins, spin, &changed))
    return;
  g_hash_table_insert (self->chosen, g_strdup (self->dim_names->pdata[changed]),
                       GINT_TO_POINTER (gtk_spin_button_get_value_as_int (spin)));
  sizes = onyx_run_plan_sizes (self->model, self->chosen);
  self->planning = TRUE;
  for (guint i = 0; i < self->dim_names->len; i++)
    if (!g_hash_table_contains (self->chosen, self->dim_names->pdata[i]))
      gtk_spin_button_set_value (self->dim_spins->pdata[i], planned_size (self, sizes, self->dim_names->pdata[i]));
  self->planning = FALSE;
}

static void
fill_changed_cb (OnyxRunSettings *self)
{
  gboolean random = fills[MIN (adw_combo_row_get_selected (self->fill_row), G_N_ELEMENTS (fills) - 1)] ==
                    ONYX_RUN_FILL_RANDOM;

  for (guint i = 0; i < G_N_ELEMENTS (self->range_rows); i++)
    gtk_widget_set_sensitive (self->range_rows[i], random);
}

static void
run_clicked_cb (OnyxRunSettings *self)
{
  g_signal_emit (self, signals[SIGNAL_RUN], 0);
  gtk_window_destroy (GTK_WINDOW (self));
}

void
onyx_run_settings_get_inputs (OnyxRunSettings *self, OnyxRunInputs *inputs)
{
  guint selected = adw_combo_row_get_selected (self->fill_row);

  inputs->fill = fills[MIN (selected, G_N_ELEMENTS (fills) - 1)];
  inputs->seed = (guint64) gtk_spin_button_get_value_as_int (self->seed);
  inputs->low = gtk_spin_button_get_value (self->low);
  inputs->high = MAX (gtk_spin_button_get_value (self->high), inputs->low + 1e-6);
  inputs->dims = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  /* Only what was chosen: the rest is planned again at the run, from it. */
  for (guint i = 0; i < self->dim_names->len; i++)
    {
      int size = gtk_spin_button_get_value_as_int (self->dim_spins->pdata[i]);
      if (g_hash_table_contains (self->chosen, self->dim_names->pdata[i]) &&
          (size > 0 || !g_hash_table_contains (self->image_dims, self->dim_names->pdata[i])))
        g_hash_table_insert (inputs->dims, g_strdup (self->dim_names->pdata[i]), GINT_TO_POINTER (size));
    }
}

static GtkWidget *
build_header (OnyxRunSettings *self)
{
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *run = gtk_button_new_with_mnemonic (_("_Run"));

  GtkWidget *cancel = gtk_button_new_with_mnemonic (_("_Cancel"));

  /* A dialog's header: Cancel and the action, no window buttons. */
  adw_header_bar_set_show_end_title_buttons (ADW_HEADER_BAR (header), FALSE);
  adw_header_bar_set_show_start_title_buttons (ADW_HEADER_BAR (header), FALSE);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (cancel), "window.close");
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), cancel);
  gtk_widget_add_css_class (run, "suggested-action");
  g_signal_connect_swapped (run, "clicked", G_CALLBACK (run_clicked_cb), self);
  adw_header_bar_pack_end (ADW_HEADER_BAR (header), run);
  gtk_window_set_default_widget (GTK_WINDOW (self), run);
  return header;
}

/* What Onyx makes of each input when its values are random (token ids, a mask…). */
static void
add_plans (AdwPreferencesPage *page, OnyxModel *model)
{
  g_autoptr (GPtrArray) plans = onyx_run_plan_inputs (model);
  AdwPreferencesGroup *group = NULL;

  for (guint i = 0; i < plans->len; i++)
    {
      const OnyxInputPlan *plan = plans->pdata[i];
      GtkWidget *row;
      if (plan->why == NULL)
        continue;
      if (group == NULL)
        {
          group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
          adw_preferences_group_set_title (group, _("Made for Each Input"));
          adw_preferences_group_set_description (group, _("With random values, as the model reads them."));
          adw_preferences_page_add (page, group);
        }
      row = adw_action_row_new ();
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), plan->name);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), plan->why);
      adw_preferences_group_add (group, row);
    }
}

OnyxRunSettings *
onyx_run_settings_new (GtkWindow *parent, OnyxModel *model, const OnyxRunInputs *current)
{
  OnyxRunSettings *self = g_object_new (ONYX_TYPE_RUN_SETTINGS, "transient-for", parent, "modal", TRUE,
                                        "title", _("Run Settings"), "default-width", 420, NULL);
  g_autoptr (GPtrArray) dims = onyx_run_input_dim_params (onyx_model_get_proto (model)->graph);
  g_autoptr (GPtrArray) image_dims = onyx_run_image_dims (model);
  g_autoptr (GHashTable) sizes_chosen = onyx_run_plan_sizes (model, current->dims);
  GHashTableIter iter;
  gpointer key, size;
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *page = adw_preferences_page_new ();
  AdwPreferencesGroup *values = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  AdwPreferencesGroup *sizes = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  const char *const choices[] = { _("Random"), _("Zeros"), _("Ones"), NULL };

  adw_preferences_group_set_title (values, _("Inputs Not Given"));
  adw_preferences_group_set_description (values, _("Run With Inputs… takes arrays from an .npz instead."));
  self->fill_row = ADW_COMBO_ROW (adw_combo_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->fill_row), _("Values"));
  adw_combo_row_set_model (self->fill_row, G_LIST_MODEL (gtk_string_list_new (choices)));
  for (guint i = 0; i < G_N_ELEMENTS (fills); i++)
    if (fills[i] == current->fill)
      adw_combo_row_set_selected (self->fill_row, i);
  adw_preferences_group_add (values, GTK_WIDGET (self->fill_row));
  self->seed = spin_row (values, _("Seed"), NULL, 0, G_MAXINT, 1, 0, (double) current->seed, &self->range_rows[0]);
  self->low = spin_row (values, _("From"), NULL, -1e9, 1e9, 0.1, 3, current->low, &self->range_rows[1]);
  self->high = spin_row (values, _("To"), _("Uniform in [from, to); whole numbers for integer inputs"),
                         -1e9, 1e9, 0.1, 3, current->high, &self->range_rows[2]);
  g_signal_connect_swapped (self->fill_row, "notify::selected", G_CALLBACK (fill_changed_cb), self);
  fill_changed_cb (self);
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), values);

  adw_preferences_group_set_title (sizes, _("Symbolic Dimensions"));
  adw_preferences_group_set_description (sizes, dims->len > 0 ? _("The size each takes in this run.")
                                                              : _("The inputs have none."));
  /* An image's free height and width are asked for, not taken as 1 (a 1×1 picture);
   * unnamed ones by INPUT:AXIS, as --dim names them. */
  for (guint i = 0; i < image_dims->len; i++)
    {
      g_hash_table_add (self->image_dims, g_strdup (image_dims->pdata[i]));
      if (strchr (image_dims->pdata[i], ':') != NULL)
        g_ptr_array_add (dims, image_dims->pdata[i]);
    }
  self->model = g_object_ref (model);
  if (current->dims != NULL)
    {
      g_hash_table_iter_init (&iter, current->dims);
      while (g_hash_table_iter_next (&iter, &key, &size))
        g_hash_table_insert (self->chosen, g_strdup (key), size);
    }
  for (guint i = 0; i < dims->len; i++)
    {
      gboolean image = g_hash_table_contains (self->image_dims, dims->pdata[i]);
      GtkSpinButton *spin = spin_row (sizes, dims->pdata[i],
                                      image ? _("An image’s height or width: the size it is made at") : NULL, 0,
                                      G_MAXINT, 1, 0, planned_size (self, sizes_chosen, dims->pdata[i]), NULL);
      g_ptr_array_add (self->dim_names, g_strdup (dims->pdata[i]));
      g_ptr_array_add (self->dim_spins, spin);
      g_signal_connect (spin, "value-changed", G_CALLBACK (dim_changed_cb), self);
    }
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), sizes);
  add_plans (ADW_PREFERENCES_PAGE (page), model);

  gtk_box_append (GTK_BOX (box), build_header (self));
  gtk_widget_set_vexpand (page, TRUE);
  gtk_box_append (GTK_BOX (box), page);
  adw_window_set_content (ADW_WINDOW (self), box);
  return self;
}

static void
onyx_run_settings_finalize (GObject *object)
{
  OnyxRunSettings *self = ONYX_RUN_SETTINGS (object);

  g_ptr_array_unref (self->dim_names);
  g_ptr_array_unref (self->dim_spins);
  g_hash_table_unref (self->image_dims);
  g_hash_table_unref (self->chosen);
  g_clear_object (&self->model);
  G_OBJECT_CLASS (onyx_run_settings_parent_class)->finalize (object);
}

static void
onyx_run_settings_class_init (OnyxRunSettingsClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = onyx_run_settings_finalize;
  signals[SIGNAL_RUN] = g_signal_new ("run", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                      G_TYPE_NONE, 0);
  gtk_widget_class_add_binding_action (GTK_WIDGET_CLASS (klass), GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
onyx_run_settings_init (OnyxRunSettings *self)
{
  self->dim_names = g_ptr_array_new_with_free_func (g_free);
  self->dim_spins = g_ptr_array_new ();
  self->image_dims = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->chosen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}
