#include "onyx-error.h"

G_DEFINE_QUARK (onyx-model-error-quark, onyx_model_error)
G_DEFINE_QUARK (onyx-run-error-quark, onyx_run_error)

/* An extended domain, so that the details survive g_error_copy and propagation. */
typedef struct {
  char *details;
} OnyxEditErrorPrivate;

static void
onyx_edit_error_private_init (OnyxEditErrorPrivate *priv)
{
  priv->details = NULL;
}

static void
onyx_edit_error_private_copy (const OnyxEditErrorPrivate *src, OnyxEditErrorPrivate *dest)
{
  dest->details = g_strdup (src->details);
}

static void
onyx_edit_error_private_clear (OnyxEditErrorPrivate *priv)
{
  g_clear_pointer (&priv->details, g_free);
}

G_DEFINE_EXTENDED_ERROR (OnyxEditError, onyx_edit_error)

void
onyx_edit_error_set_details (GError *error, const char *details)
{
  OnyxEditErrorPrivate *priv;

  g_return_if_fail (error != NULL && error->domain == ONYX_EDIT_ERROR);
  priv = onyx_edit_error_get_private (error);
  g_free (priv->details);
  priv->details = g_strdup (details);
}

const char *
onyx_edit_error_get_details (const GError *error)
{
  if (error == NULL || error->domain != ONYX_EDIT_ERROR)
    return NULL;
  return onyx_edit_error_get_private (error)->details;
}
