/* main.c: the onyx GUI. */
#include <glib/gi18n.h>
#include <locale.h>

#include "onyx-application.h"
#include "onyx-memory.h"

int
main (int argc, char *argv[])
{
  g_autoptr (OnyxApplication) app = NULL;

  onyx_memory_keep_freed ();
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  app = onyx_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
