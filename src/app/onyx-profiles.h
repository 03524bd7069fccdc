/* onyx-profiles.h: the profiles the view state keeps — the one shown, the one before
 * it (for before and after), and which of a profile's passes is shown: the run
 * profiled, or an LLM's decoding step profiled with it. */
#pragma once

#include "onyx-run-profile.h"

G_BEGIN_DECLS

typedef struct {
  OnyxProfile *profile;       /* the last made, or NULL */
  OnyxProfile *previous;      /* the one before it, or NULL */
  guint64 revision;           /* of the document `profile` was made of */
  gboolean step_shown;        /* its decoding step is shown, where it has one */
} OnyxProfiles;

/* TRUE when it had any. */
gboolean           onyx_profiles_clear          (OnyxProfiles *self);
/* Takes `profile`: the one kept so far becomes the previous; NULL clears both. */
void               onyx_profiles_set            (OnyxProfiles *self,
                                                 OnyxProfile  *profile,
                                                 guint64       revision);
/* The pass shown of the last profile, or NULL. */
const OnyxProfile *onyx_profiles_shown          (const OnyxProfiles *self);
/* The same pass of the profile before, or NULL (it has no such pass). */
const OnyxProfile *onyx_profiles_previous_shown (const OnyxProfiles *self);

G_END_DECLS
