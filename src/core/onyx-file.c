/* onyx-file.c: atomic replacement of files (onyx-file.h). */
#include "onyx-file.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <unistd.h>

gboolean
onyx_file_replacing_mode (const char *path, mode_t *mode)
{
  GStatBuf st;
  mode_t mask;

  if (g_stat (path, &st) == 0)
    {
      *mode = st.st_mode & 07777;
      return !S_ISDIR (st.st_mode);
    }
  mask = umask (0);
  umask (mask);
  *mode = 0666 & ~mask;
  return TRUE;
}

void
onyx_file_sync_folder (const char *dir)
{
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd >= 0)
    {
      fsync (fd);
      close (fd);
    }
}
