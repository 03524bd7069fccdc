/* onyx-properties-profile.c: a node's time in the properties panel, from the profile
 * shown (onyx-profile-pane.h): its kernel's median, min and max per run and share,
 * or the kernel it was fused into, or that ONNX Runtime folded it away; the provider
 * and the shapes as run. */
#include "onyx-properties-private.h"

#include <glib/gi18n.h>

#include "onyx-graph-names.h"
#include "onyx-text.h"

void
onyx_properties_add_profile_group (OnyxProperties *self, OnyxDocument *doc, Onnx__NodeProto *node)
{
  const OnyxProfile *profile = self->state != NULL ? onyx_view_state_get_shown_profile (self->state) : NULL;
  g_autoptr (OnyxGraphList) graphs = NULL;
  g_autofree char *reference = NULL;
  const OnyxProfileNode *timed;
  const OnyxProfileKernel *kernel;
  GtkWidget *group;

  if (profile == NULL)
    return;
  graphs = onyx_graph_list_new (onyx_document_get_proto (doc));
  reference = onyx_graph_list_node_reference (graphs, node);
  if ((timed = onyx_profile_node_named (profile, reference)) == NULL)
    return;
  group = onyx_properties_add_group (self, !onyx_view_state_profile_is_current (self->state)
                                             ? _("Profile, Before the Last Edit")
                                           : onyx_view_state_shows_decoding_step (self->state)
                                             ? _("Profile, One Decoding Step") : _("Profile"));
  kernel = timed->kernel;
  if (kernel == NULL)
    {
      onyx_properties_add_row (group, _("Time per run"), _("none: ONNX Runtime folded it away or left it out"));
      return;
    }
  {
    g_autofree char *median = onyx_profile_format_us (onyx_profile_node_us (timed));
    g_autofree char *low = onyx_profile_format_us (kernel->min_us);
    g_autofree char *high = onyx_profile_format_us (kernel->max_us);
    g_autofree char *text = g_strdup_printf (_("%s, %.1f %% of the kernels (%s to %s over %u runs)"), median,
                                             onyx_profile_node_share (timed) * 100, low, high,
                                             profile->options.runs);
    onyx_properties_add_row (group, _("Time per run"), text);
  }
  {
    g_autofree char *name = onyx_display_escape (kernel->name);
    g_autofree char *op = onyx_display_escape (kernel->op);
    g_autofree char *text = timed->status == ONYX_PROFILE_FUSED
                              /* Translators: a node run by another's kernel: "FusedConv ‘Conv_0’, with …" */
                              ? g_strdup_printf (_("fused into %s ‘%s’, which runs %u nodes"), op, name,
                                                 kernel->nodes != NULL ? kernel->nodes->len : 1)
                              : g_strdup_printf ("%s ‘%s’", op, name);
    onyx_properties_add_row (group, _("Kernel"), text);
  }
  if (kernel->provider != NULL)
    onyx_properties_add_text_row (group, _("Provider"), onyx_display_escape (kernel->provider));
  if (kernel->input_shapes != NULL || kernel->output_shapes != NULL)
    {
      g_autofree char *in = onyx_display_escape (kernel->input_shapes);
      g_autofree char *out = onyx_display_escape (kernel->output_shapes);
      onyx_properties_add_text_row (group, _("Shapes as run"), g_strdup_printf ("%s → %s", in, out));
    }
}
