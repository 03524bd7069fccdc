/* onyx-run-profile-trace.c: ONNX Runtime's profile trace read (onyx-run-profile-private.h):
 * its events (scanned in onyx-run-profile-json.c) nested and timed run by run.
 *
 * A kernel's event lies within the If, Loop or Scan kernel's event whose body ran
 * it, on the same thread: events sorted by thread and start, a stack of those still
 * open says which holds which. The runs are the model_run events in time order; a
 * kernel's event belongs to the run whose span holds its start, and the first K
 * runs' are left out. */
#include "onyx-run-profile-private.h"

#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include <stdlib.h>
#include <string.h>

/* Thread, then start, then the longer first: a body's kernels after the If holding them. */
static int
compare_events (gconstpointer a, gconstpointer b)
{
  const OnyxProfileEvent *x = a, *y = b;

  if (x->tid != y->tid)
    return x->tid < y->tid ? -1 : 1;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return (x->dur < y->dur) - (x->dur > y->dur);
}

static int
compare_spans (gconstpointer a, gconstpointer b)
{
  const OnyxProfileSpan *x = a, *y = b;
  return (x->ts > y->ts) - (x->ts < y->ts);
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

void
onyx_profile_spread (double *values, guint n, double *median, double *min, double *max)
{
  if (n == 0)
    {
      *median = *min = *max = 0;
      return;
    }
  qsort (values, n, sizeof *values, compare_doubles);
  *min = values[0];
  *max = values[n - 1];
  *median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/* Gives each event its kernel: the one of its name under the kernel whose event holds
 * it in time on the same thread. */
static void
nest_events (OnyxProfileEvents *events, OnyxProfileTrace *trace)
{
  g_autoptr (GHashTable) kernels = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr (GArray) keys = g_array_sized_new (FALSE, FALSE, sizeof (gint64), 256);
  g_autoptr (GArray) open = g_array_new (FALSE, FALSE, sizeof (guint));

  g_array_sort (events->events, compare_events);
  /* Keys live in `keys`, which must not move while the table points into it. */
  g_array_set_size (keys, events->events->len);
  for (guint i = 0; i < events->events->len; i++)
    {
      OnyxProfileEvent *event = &g_array_index (events->events, OnyxProfileEvent, i);
      const OnyxProfileEvent *parent = NULL;
      gint64 *key = &g_array_index (keys, gint64, i);
      gpointer found;

      while (open->len > 0)
        {
          parent = &g_array_index (events->events, OnyxProfileEvent, g_array_index (open, guint, open->len - 1));
          if (parent->tid == event->tid && event->ts < parent->ts + parent->dur)
            break;
          g_array_set_size (open, open->len - 1);
          parent = NULL;
        }
      *key = ((gint64) (parent != NULL ? parent->kernel + 1 : 0) << 32) | event->named;
      if (g_hash_table_lookup_extended (kernels, key, NULL, &found))
        event->kernel = GPOINTER_TO_INT (found);
      else
        {
          const OnyxProfileNamed *named = events->names->pdata[event->named];
          OnyxProfileKernel *kernel = onyx_profile_kernel_new (
            named->name, named->op, parent != NULL ? trace->kernels->pdata[parent->kernel] : NULL);
          kernel->provider = g_strdup (named->provider);
          kernel->input_shapes = g_strdup (named->inputs);
          kernel->output_shapes = g_strdup (named->outputs);
          event->kernel = (int) trace->kernels->len;
          g_ptr_array_add (trace->kernels, kernel);
          g_hash_table_insert (kernels, key, GINT_TO_POINTER (event->kernel));
        }
      g_array_append_val (open, i);
    }
}

/* The measured run holding time `ts`, or -1 (a warm-up run's, or none). */
static int
run_at (GArray *runs, guint warmup, double ts)
{
  guint low = 0, high = runs->len;

  /* The last run starting at or before ts. */
  while (low < high)
    {
      guint middle = (low + high) / 2;
      if (g_array_index (runs, OnyxProfileSpan, middle).ts <= ts)
        low = middle + 1;
      else
        high = middle;
    }
  if (low == 0 || low - 1 < warmup)
    return -1;
  const OnyxProfileSpan *run = &g_array_index (runs, OnyxProfileSpan, low - 1);
  return ts <= run->ts + run->dur ? (int) (low - 1 - warmup) : -1;
}

/* Each kernel's time in each measured run, its bodies' kernels taken out for its
 * self time; then their spread over the runs. */
static void
time_kernels (OnyxProfileEvents *events, guint warmup, OnyxProfileTrace *trace)
{
  guint n_runs = events->runs->len - warmup, n_kernels = trace->kernels->len;
  g_autofree double *inclusive = g_new0 (double, (gsize) n_kernels * n_runs);
  g_autofree double *self = g_new0 (double, (gsize) n_kernels * n_runs);
  g_autofree double *values = g_new (double, n_runs);
  g_autoptr (GHashTable) index = g_hash_table_new (NULL, NULL);

  for (guint i = 0; i < events->events->len; i++)
    {
      const OnyxProfileEvent *event = &g_array_index (events->events, OnyxProfileEvent, i);
      OnyxProfileKernel *kernel = trace->kernels->pdata[event->kernel];
      int run = run_at (events->runs, warmup, event->ts);

      if (run < 0)
        continue;
      inclusive[(gsize) event->kernel * n_runs + (guint) run] += event->dur;
      kernel->calls++;
    }
  memcpy (self, inclusive, sizeof (double) * n_kernels * n_runs);
  for (guint k = 0; k < n_kernels; k++)
    g_hash_table_insert (index, trace->kernels->pdata[k], GUINT_TO_POINTER (k));
  for (guint k = 0; k < n_kernels; k++)
    {
      const OnyxProfileKernel *kernel = trace->kernels->pdata[k];
      if (kernel->parent != NULL)
        {
          guint parent = GPOINTER_TO_UINT (g_hash_table_lookup (index, kernel->parent));
          for (guint r = 0; r < n_runs; r++)
            self[(gsize) parent * n_runs + r] -= inclusive[(gsize) k * n_runs + r];
        }
    }
  for (guint k = 0; k < n_kernels; k++)
    {
      OnyxProfileKernel *kernel = trace->kernels->pdata[k];
      double ignored;

      memcpy (values, inclusive + (gsize) k * n_runs, n_runs * sizeof (double));
      onyx_profile_spread (values, n_runs, &kernel->median_us, &kernel->min_us, &kernel->max_us);
      memcpy (values, self + (gsize) k * n_runs, n_runs * sizeof (double));
      onyx_profile_spread (values, n_runs, &kernel->self_us, &ignored, &ignored);
      kernel->self_us = MAX (kernel->self_us, 0);
    }
  for (guint r = warmup; r < events->runs->len; r++)
    g_array_append_val (trace->run_us, g_array_index (events->runs, OnyxProfileSpan, r).dur);
}

OnyxProfileTrace *
onyx_profile_trace_read (GBytes *bytes, guint warmup, GError **error)
{
  OnyxProfileEvents events;
  g_autoptr (OnyxProfileTrace) trace = g_new0 (OnyxProfileTrace, 1);
  gboolean read;

  trace->kernels = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_profile_kernel_free);
  trace->run_us = g_array_new (FALSE, FALSE, sizeof (double));
  onyx_profile_events_init (&events);
  read = onyx_profile_events_scan (bytes, &events, error);
  g_array_sort (events.runs, compare_spans);
  trace->n_runs = events.runs->len;
  trace->session_init_us = events.session_us;
  if (read && events.runs->len <= warmup)
    {
      if (events.runs->len == 0)
        g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("ONNX Runtime's trace holds no run"));
      else
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     g_dngettext (GETTEXT_PACKAGE, "ONNX Runtime's trace holds %u run, no more than the warm-up ones",
                                  "ONNX Runtime's trace holds %u runs, no more than the warm-up ones", events.runs->len),
                     events.runs->len);
      read = FALSE;
    }
  if (read)
    {
      nest_events (&events, trace);
      time_kernels (&events, warmup, trace);
    }
  onyx_profile_events_clear (&events);
  return read ? g_steal_pointer (&trace) : NULL;
}

void
onyx_profile_trace_free (OnyxProfileTrace *trace)
{
  if (trace == NULL)
    return;
  g_clear_pointer (&trace->kernels, g_ptr_array_unref);
  g_clear_pointer (&trace->run_us, g_array_unref);
  g_free (trace);
}

OnyxProfileKernel *
onyx_profile_kernel_new (const char *name, const char *op, const OnyxProfileKernel *parent)
{
  OnyxProfileKernel *kernel = g_new0 (OnyxProfileKernel, 1);

  kernel->name = g_strdup (name);
  kernel->op = g_strdup (op != NULL ? op : "");
  kernel->parent = parent;
  kernel->nodes = g_ptr_array_new ();
  return kernel;
}

void
onyx_profile_kernel_free (OnyxProfileKernel *kernel)
{
  if (kernel == NULL)
    return;
  g_free (kernel->name);
  g_free (kernel->op);
  g_free (kernel->provider);
  g_free (kernel->input_shapes);
  g_free (kernel->output_shapes);
  g_ptr_array_unref (kernel->nodes);
  g_free (kernel);
}
