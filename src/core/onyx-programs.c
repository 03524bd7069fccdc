/* onyx-programs.c: where Onyx's own programs are (onyx-programs.h). */
#include "onyx-programs.h"

char *
onyx_program_path (const char *built_dir, const char *name)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);

  if (self != NULL && g_str_has_prefix (self, ONYX_BUILD_ROOT "/"))
    return g_build_filename (built_dir, name, NULL);
  return g_build_filename (ONYX_LIBEXEC_DIR, name, NULL);
}
