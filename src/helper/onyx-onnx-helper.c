/* onyx-onnx-helper: the process ONNX's library (libonnx) and ONNX Runtime run in for
 * Onyx's app and CLI, so that a crash of either fails one job and not the window. Started by
 * onyx-helper-client.c with its end of a socket on fd 3; serves typed jobs until that is
 * closed. Not for running by hand. */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onyx-onnx.h"
#ifdef ONYX_HAVE_ONNXRUNTIME
#include "onyx-ort.h"
#define RUN_JOB onyx_ort_job
#else
#define RUN_JOB NULL
#endif

int
main (int argc, char **argv)
{
  struct stat socket_end;

  if (argc != 1 || fstat (3, &socket_end) != 0 || !S_ISSOCK (socket_end.st_mode))
    {
      fprintf (stderr, "%s: runs ONNX's library for Onyx, which starts it; not for use by hand\n",
               argv[0]);
      return 2;
    }
#ifdef HAVE_CLOSEFROM
  /* Onyx spawns it inheriting descriptors (see onyx-helper-client.c): none but the
   * socket is for it. */
  closefrom (4);
#endif
  return onyx_onnx_helper_serve (3, RUN_JOB);
}
