/* onyx-domain.c: operator domains (onyx-domain.h). */
#include "onyx-domain.h"

#include <string.h>

gboolean
onyx_domain_is_default (const char *domain)
{
  return domain == NULL || domain[0] == '\0' || strcmp (domain, "ai.onnx") == 0;
}

gboolean
onyx_domain_is_standard (const char *domain)
{
  static const char *const standard[] = {
    "ai.onnx.ml", "ai.onnx.training", "ai.onnx.preview", "ai.onnx.preview.training",
  };

  if (onyx_domain_is_default (domain))
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (standard); i++)
    if (strcmp (domain, standard[i]) == 0)
      return TRUE;
  return FALSE;
}

static void
add_node_domain (ProtobufCMessage *message, gpointer used)
{
  if (message->descriptor == &onnx__node_proto__descriptor)
    {
      const char *domain = ((Onnx__NodeProto *) message)->domain;
      g_hash_table_add (used, (gpointer) (onyx_domain_is_default (domain) ? "" : domain));
    }
}

GHashTable *
onyx_model_used_domains (const Onnx__ModelProto *model)
{
  GHashTable *used = g_hash_table_new (g_str_hash, g_str_equal);

  onyx_proto_foreach_message ((ProtobufCMessage *) &model->base, add_node_domain, used);
  /* A function's own domain is what its callers use. */
  for (size_t f = 0; f < model->n_functions; f++)
    {
      const char *domain = model->functions[f]->domain;
      g_hash_table_add (used, (gpointer) (onyx_domain_is_default (domain) ? "" : domain));
    }
  return used;
}

gboolean
onyx_domain_is_onnxruntime (const char *domain)
{
  return domain != NULL && (strcmp (domain, "com.microsoft") == 0 ||
                            g_str_has_prefix (domain, "com.microsoft."));
}
