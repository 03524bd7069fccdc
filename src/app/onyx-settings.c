/* onyx-settings.c: where the app's settings schema is found: installed, in the build
 * folder, or bundled in the binary. */
#include "onyx-settings.h"

#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>

#define SCHEMA_ID "io.github.onyxviewer.Onyx"

typedef struct {
  GSettingsSchema *schema;
  GSettingsBackend *backend; /* NULL: the default, the user's settings */
} SettingsOrigin;

/* An uninstalled build runs as src/app/onyx of the build folder, whose data/ holds the
 * compiled schema: `_build/src/app/onyx MODEL.onnx` works with no GSETTINGS_SCHEMA_DIR. */
static GSettingsSchema *
lookup_build_schema (void)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *exe_dir = NULL;
  g_autofree char *data_dir = NULL;
  g_autoptr (GSettingsSchemaSource) source = NULL;

  if (exe == NULL)
    return NULL;
  exe_dir = g_path_get_dirname (exe);
  data_dir = g_build_filename (exe_dir, "..", "..", "data", NULL);
  source = g_settings_schema_source_new_from_directory (data_dir, NULL, FALSE, NULL);
  return source != NULL ? g_settings_schema_source_lookup (source, SCHEMA_ID, FALSE) : NULL;
}

/* The compiled schema bundled in the binary (data/schemas.gresource.xml). A schema
 * source is read from a folder: the copy goes to the user's cache folder and stays
 * there, as the source reads that folder again for the keys' summaries. */
static GSettingsSchema *
lookup_bundled_schema (void)
{
  g_autoptr (GBytes) compiled =
    g_resources_lookup_data ("/io/github/onyxviewer/Onyx/schemas/gschemas.compiled", 0, NULL);
  g_autofree char *dir = g_build_filename (g_get_user_cache_dir (), "onyx", "schemas", NULL);
  g_autofree char *file = g_build_filename (dir, "gschemas.compiled", NULL);
  g_autoptr (GSettingsSchemaSource) source = NULL;

  if (compiled == NULL || g_mkdir_with_parents (dir, 0700) != 0 ||
      !g_file_set_contents (file, g_bytes_get_data (compiled, NULL), g_bytes_get_size (compiled),
                            NULL))
    return NULL;
  source = g_settings_schema_source_new_from_directory (dir, NULL, FALSE, NULL);
  return source != NULL ? g_settings_schema_source_lookup (source, SCHEMA_ID, FALSE) : NULL;
}

static gpointer
find_settings_origin (gpointer unused)
{
  SettingsOrigin *found = g_new0 (SettingsOrigin, 1);
  GSettingsSchemaSource *installed = g_settings_schema_source_get_default ();

  if (installed != NULL)
    found->schema = g_settings_schema_source_lookup (installed, SCHEMA_ID, TRUE);
  if (found->schema == NULL)
    found->schema = lookup_build_schema ();
  if (found->schema == NULL && (found->schema = lookup_bundled_schema ()) != NULL)
    {
      /* A binary without its schema: its changes stay in memory, not in the user's settings. */
      g_warning ("Settings schema %s is not installed: using its defaults, not saved", SCHEMA_ID);
      found->backend = g_memory_settings_backend_new ();
    }
  return found;
}

GSettings *
onyx_settings_new (void)
{
  static GOnce once = G_ONCE_INIT;
  SettingsOrigin *origin = g_once (&once, find_settings_origin, NULL);

  if (origin->schema == NULL)
    g_error ("Settings schema %s is not installed, nor bundled in onyx", SCHEMA_ID);
  return g_settings_new_full (origin->schema, origin->backend, NULL);
}
