/* A libFuzzer target's checks run once on each file of the folders given, without
 * libFuzzer: how the plain build runs a fuzzer's seeds and the inputs that once
 * crashed it (tests/meson.build). A folder that is not there is passed over, as
 * run-fuzzer.sh does (git keeps no empty folder); no file at all fails: a test with
 * nothing to run cannot pass. */
#include <glib.h>

int LLVMFuzzerTestOneInput (const guint8 *data, size_t len);

int
main (int argc, char **argv)
{
  guint n_inputs = 0;

  for (int i = 1; i < argc; i++)
    {
      GError *error = NULL;
      GDir *dir;
      const char *name;

      if (!g_file_test (argv[i], G_FILE_TEST_IS_DIR))
        {
          g_print ("%s: no such folder\n", argv[i]);
          continue;
        }
      if ((dir = g_dir_open (argv[i], 0, &error)) == NULL)
        g_error ("%s", error->message);
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *path = g_build_filename (argv[i], name, NULL);
          g_autofree char *contents = NULL;
          gsize len;

          if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
            continue;
          if (!g_file_get_contents (path, &contents, &len, &error))
            g_error ("%s", error->message);
          g_print ("%s\n", path);
          LLVMFuzzerTestOneInput ((const guint8 *) contents, len);
          n_inputs++;
        }
      g_dir_close (dir);
    }
  if (n_inputs == 0)
    {
      g_printerr ("%s: no input in the folders given\n", argv[0]);
      return 1;
    }
  g_print ("%u inputs checked\n", n_inputs);
  return 0;
}
