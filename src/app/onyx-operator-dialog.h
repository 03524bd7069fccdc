/* onyx-operator-dialog.h: a modal window to choose an operator and its attributes:
 * a searchable list of the operators of the model's imported opsets (domain::name and
 * the schema's one-line doc), and for the one chosen a form with one row per schema
 * attribute (type, required mark, default as placeholder, doc). Used by Replace
 * Operator… (pre-filled from the node) and Insert Node After…
 *
 * The dialog never edits: its "operator.apply" action emits ::apply, and the window
 * runs the edit with what onyx_operator_dialog_get_values() gives. */
#pragma once

#include <gtk/gtk.h>

#include "onyx-proto.h"
#include "onyx-schema.h"

G_BEGIN_DECLS

#define ONYX_TYPE_OPERATOR_DIALOG (onyx_operator_dialog_get_type ())
G_DECLARE_FINAL_TYPE (OnyxOperatorDialog, onyx_operator_dialog, ONYX, OPERATOR_DIALOG, GtkWindow)

/* `node` (nullable) is the node being replaced: its attributes pre-fill the form, and
 * those the chosen operator does not know are listed as dropped. The dialog keeps
 * pointers into `model` and `node`: it must go before they change. */
OnyxOperatorDialog *onyx_operator_dialog_new          (GtkWindow              *parent,
                                                       const char             *title,
                                                       const char             *apply_label,
                                                       const Onnx__ModelProto *model,
                                                       const Onnx__NodeProto  *node);
GtkEditable        *onyx_operator_dialog_get_search   (OnyxOperatorDialog *self);
/* The operators matching the search, as shown. */
guint               onyx_operator_dialog_get_n_shown  (OnyxOperatorDialog *self);
/* Chooses an operator (as a click on its row does); FALSE when it is not listed. */
gboolean            onyx_operator_dialog_choose       (OnyxOperatorDialog *self,
                                                       const char         *domain,
                                                       const char         *op_type);
/* The schema chosen, or NULL. */
const OnyxSchema   *onyx_operator_dialog_get_schema   (OnyxOperatorDialog *self);
/* The form's entry for attribute `name` of the chosen operator, or NULL. */
GtkEditable        *onyx_operator_dialog_get_field    (OnyxOperatorDialog *self,
                                                       const char         *name);
/* Attributes to set, as (name, text) pairs in a flat NULL-terminated strv: the fields
 * filled in and changed from what they were pre-filled with. */
char              **onyx_operator_dialog_get_values   (OnyxOperatorDialog *self);
/* The node's attributes the chosen operator does not know (NULL-terminated strv). */
char              **onyx_operator_dialog_get_dropped  (OnyxOperatorDialog *self);

G_END_DECLS
