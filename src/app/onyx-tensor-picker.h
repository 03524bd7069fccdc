/* onyx-tensor-picker.h: a popover to pick any tensor of a graph (graph inputs, node
 * outputs, initializers; for a subgraph, those of the graphs around it too) from a
 * list filtered as one types, each shown
 * with its producer and type. Choosing one activates a window action with its
 * target and the tensor's name (onyx_activate_edit_action), as the properties panel's
 * entries do: the picker never edits.
 *
 * The list is built when the popover first opens, and rows describe their tensor only
 * when they are shown, so that a panel for a 13,000-node graph stays cheap. */
#pragma once

#include <gtk/gtk.h>

#include "onyx-document.h"

G_BEGIN_DECLS

#define ONYX_TYPE_TENSOR_PICKER (onyx_tensor_picker_get_type ())
G_DECLARE_FINAL_TYPE (OnyxTensorPicker, onyx_tensor_picker, ONYX, TENSOR_PICKER, GtkPopover)

/* `current` (may be NULL) is marked in the list. */
GtkWidget   *onyx_tensor_picker_new         (OnyxDocument *doc,
                                             const char   *current,
                                             const char   *action,
                                             GVariant     *target);
/* A menu button opening a new picker. */
GtkWidget   *onyx_tensor_picker_button_new  (OnyxDocument *doc,
                                             const char   *current,
                                             const char   *action,
                                             GVariant     *target);
/* The same for the tensors in scope in `graph` (the main graph or a subgraph). */
GtkWidget   *onyx_tensor_picker_new_in      (OnyxDocument     *doc,
                                             Onnx__GraphProto *graph,
                                             const char       *current,
                                             const char       *action,
                                             GVariant         *target);
GtkWidget   *onyx_tensor_picker_button_new_in (OnyxDocument     *doc,
                                               Onnx__GraphProto *graph,
                                               const char       *current,
                                               const char       *action,
                                               GVariant         *target);
/* Activates `action` from `widget` with what an editable row or a picker names
 * (`target`, typed as the action wants it; taken if floating) followed by the text
 * chosen: target ("in", 0) and "x" give ("in", 0, "x"); a lone value v gives (v, "x");
 * NULL gives "x". */
gboolean     onyx_activate_edit_action      (GtkWidget   *widget,
                                             const char  *action,
                                             GVariant    *target,
                                             const char  *text);
GtkEditable *onyx_tensor_picker_get_search  (OnyxTensorPicker *self);
/* The tensors that match the search (GtkStringObject items, the tensor names). */
GListModel  *onyx_tensor_picker_get_results (OnyxTensorPicker *self);
/* What a click on row `position` of the results does. */
void         onyx_tensor_picker_choose      (OnyxTensorPicker *self,
                                             guint             position);

G_END_DECLS
