/* onyx-profiles.c: the profiles the view state keeps (onyx-profiles.h). */
#include "onyx-profiles.h"

gboolean
onyx_profiles_clear (OnyxProfiles *self)
{
  gboolean had = self->profile != NULL || self->previous != NULL;

  g_clear_pointer (&self->profile, onyx_profile_free);
  g_clear_pointer (&self->previous, onyx_profile_free);
  return had;
}

void
onyx_profiles_set (OnyxProfiles *self, OnyxProfile *profile, guint64 revision)
{
  if (profile != NULL && self->profile != NULL)
    {
      g_clear_pointer (&self->previous, onyx_profile_free);
      self->previous = g_steal_pointer (&self->profile);
    }
  else
    onyx_profiles_clear (self);
  self->profile = profile;
  self->revision = revision;
}

static const OnyxProfile *
pass_shown (const OnyxProfiles *self, const OnyxProfile *profile)
{
  if (profile == NULL || !self->step_shown || self->profile == NULL || self->profile->decoding_step == NULL)
    return profile;
  return profile->decoding_step;
}

const OnyxProfile *
onyx_profiles_shown (const OnyxProfiles *self)
{
  return pass_shown (self, self->profile);
}

const OnyxProfile *
onyx_profiles_previous_shown (const OnyxProfiles *self)
{
  const OnyxProfile *previous = pass_shown (self, self->previous);

  /* A step against a prompt's pass would say nothing. */
  return previous == self->previous && onyx_profiles_shown (self) != self->profile ? NULL : previous;
}
