/* The profile's trace reader (onyx-run-profile-trace.c) timed on a trace file: best
 * of 5 reads, in wall time and in this thread's CPU time (what it takes on a machine
 * that other work leaves alone). bench-profile.py makes a trace of 100,000 kernel
 * events from a real one and runs this on it (the budget: under 0.2 s).
 *   bench-profile-read TRACE.json [WARMUP]
 * Prints JSON: kernel calls measured, runs, kernels, megabytes, seconds, cpu_seconds. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double
cpu_seconds (void)
{
  struct timespec now;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &now);
  return (double) now.tv_sec + (double) now.tv_nsec / 1e9;
}

#include "onyx-run-profile-private.h"

int
main (int argc, char **argv)
{
  g_autoptr (GMappedFile) file = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = NULL;
  guint warmup = argc > 2 ? (guint) atoi (argv[2]) : 1;
  double best = G_MAXDOUBLE, best_cpu = G_MAXDOUBLE;

  if (argc < 2 || (file = g_mapped_file_new (argv[1], FALSE, &error)) == NULL)
    {
      g_printerr ("usage: bench-profile-read TRACE.json [WARMUP]%s%s\n", error != NULL ? ": " : "",
                  error != NULL ? error->message : "");
      return 2;
    }
  bytes = g_mapped_file_get_bytes (file);
  for (int i = 0; i < 5; i++)
    {
      gint64 start = g_get_monotonic_time ();
      double cpu_start = cpu_seconds ();
      g_autoptr (OnyxProfileTrace) trace = onyx_profile_trace_read (bytes, warmup, &error);
      double took = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC, cpu = cpu_seconds () - cpu_start;
      guint calls = 0;

      if (trace == NULL)
        {
          g_printerr ("%s\n", error->message);
          return 1;
        }
      best = MIN (best, took);
      best_cpu = MIN (best_cpu, cpu);
      for (guint k = 0; i == 0 && k < trace->kernels->len; k++)
        calls += ((OnyxProfileKernel *) trace->kernels->pdata[k])->calls;
      if (i == 0)
        printf ("{\"measured_calls\": %u, \"runs\": %u, \"kernels\": %u, \"megabytes\": %.1f", calls, trace->n_runs,
                trace->kernels->len, g_bytes_get_size (bytes) / 1e6);
    }
  printf (", \"seconds\": %.4f, \"cpu_seconds\": %.4f}\n", best, best_cpu);
  return 0;
}
