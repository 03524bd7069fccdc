/* onyx-file.h: what writing a file over another atomically needs, for the savers
 * of models (onyx-model.c) and arrays (onyx-array.c): a temporary file beside the
 * target, fsynced and renamed over it, with the target's permissions. */
#pragma once

#include <glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

/* The permissions the new file takes: the old one's, or the umask's default when
 * there is none. FALSE when `path` is a folder. */
gboolean onyx_file_replacing_mode (const char *path,
                                   mode_t     *mode);
/* After a rename into `dir`: its entry on disk too (best effort: the rename itself
 * already happened). */
void     onyx_file_sync_folder    (const char *dir);

G_END_DECLS
