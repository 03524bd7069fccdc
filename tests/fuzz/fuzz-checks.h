/* fuzz-checks.h: what the fuzzers of what Run reads check of every input. */
#pragma once

#include <glib.h>
#include <string.h>

/* A refusal is one readable message. */
static inline void
assert_clear_error (GError *error)
{
  g_assert_nonnull (error);
  g_assert_cmpuint (strlen (error->message), >, 0);
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
  g_error_free (error);
}
