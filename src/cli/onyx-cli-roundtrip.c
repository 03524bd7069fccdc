/* onyx-cli roundtrip. */
#include "onyx-cli.h"
#include "onyx-model.h"

int
onyx_cli_roundtrip (int argc, char **argv)
{
  g_autoptr (OnyxModel) model = NULL;
  GError *error = NULL;
  int exit_code;

  if (!onyx_cli_parse ("roundtrip", "IN OUT",
                       "Load IN and save it unchanged to OUT (atomically: OUT is replaced only\n"
                       "once the new file is completely written).",
                       NULL, &argc, &argv, 2, &exit_code))
    return exit_code;
  model = onyx_model_new_from_file (argv[2], &error);
  if (model == NULL)
    return onyx_cli_report_error (error);
  if (!onyx_model_save (model, argv[3], &error))
    return onyx_cli_report_error (error);
  return ONYX_EXIT_OK;
}
