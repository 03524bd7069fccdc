/* onyx-programs.h: where Onyx's own programs are, for the program that starts or
 * runs one (its helpers, onyx-cli-full): beside it in the build folder when it runs
 * from there (tests, benches, `_build/src/app/onyx`), else where they are installed. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* `built_dir`/`name` when this program runs from the build folder, else
 * LIBEXECDIR/`name`. */
char *onyx_program_path (const char *built_dir,
                         const char *name);

G_END_DECLS
