/* bench-util.h: what every benchmark here starts with. */
#pragma once

#include <stdio.h>

#include "onyx-model.h"

/* Seconds on the monotonic clock. */
static inline double
bench_now (void)
{
  return (double) g_get_monotonic_time () / 1e6;
}

/* The model of argv[1], or NULL after printing the usage or the error: then exit 2. */
static inline OnyxModel *
bench_load_model (int argc, char **argv, const char *usage)
{
  g_autoptr (GError) error = NULL;
  OnyxModel *model;

  if (argc < 2)
    {
      fprintf (stderr, "usage: %s\n", usage);
      return NULL;
    }
  model = onyx_model_new_from_file (argv[1], &error);
  if (model == NULL)
    fprintf (stderr, "%s\n", error->message);
  return model;
}
