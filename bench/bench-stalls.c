/* bench-stalls.c: how long the app's main loop stops answering, phase by phase, in
 * the real window (run by hand under Xvfb):
 *
 *   xvfb-run -a -s '-screen 0 1280x800x24 -extension MIT-SHM' \
 *     _build/bench/bench-stalls MODEL.onnx [PHASE...]
 *
 * Without MIT-SHM: cairo's X11 path then sends each frame over the socket instead of
 * through fresh shared memory, whose pages the kernel faults in frame after frame
 * on this VM (15-35 ms of every full-window frame, the app's or not); docs/performance.md
 * gives the figures with it too.
 *
 * Phases: open (until idle; it also prints when the first frame showing the graph
 * was painted), 20 edits (Bypass of single-input
 * nodes, as the walkthrough does), undo all, redo all, save (to a copy beside the
 * model, removed after: external data is only found from the model's own folder),
 * Compare With the file itself, and Run when this build has
 * ONNX Runtime. Each action is started from the main loop, as a click would be, and
 * the phase lasts until the window is idle again (layout done, nothing running).
 * A high-priority timeout ticking every millisecond records the longest gap between
 * its ticks: the longest the window could not have drawn a frame or taken a click.
 * The goal (issue 26) is no stall over 33 ms. BENCH_STALLS_TRACE=1 prints each stall
 * over 20 ms and each frame over 20 ms split into layout and paint (on stderr).
 * PHASEs name the phases to run after open (edits, undo, redo, save, compare, run);
 * all by default, but Run on a model of more than 4 GB of weights.
 *
 * For a model with a few GB of external data, make one with make-external-model; for
 * an LLM as onnxruntime-genai's builder writes them (32 layers, 66 inputs, 65 outputs,
 * the shape that stalled most per node, issue 36):
 *
 *   /usr/bin/python3 tools/make-llm-model.py --layers 32 --hidden 256 --heads 8 \
 *     --kv-heads 4 --intermediate 512 --vocab 1000 /tmp/llm/llm.onnx */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "bench-util.h"
#include "onyx-analysis.h"
#include "onyx-disk-queue.h"
#include "onyx-memory.h"
#include "onyx-run.h"
#include "onyx-shapes.h"
#include "onyx-canvas.h"
#include "onyx-compare-pane.h"
#include "onyx-run-pane.h"
#include "onyx-window-private.h"

typedef struct {
  gint64 last;
  gint64 longest;
} Watchdog;

static gboolean
watchdog_tick (gpointer data)
{
  Watchdog *watchdog = data;
  gint64 now = g_get_monotonic_time ();

  watchdog->longest = MAX (watchdog->longest, now - watchdog->last);
  /* BENCH_STALLS_TRACE=1: each stall over 20 ms as CLOCK_MONOTONIC seconds, to cut a
   * `perf record -k mono` profile down to the stalls (bench/stall-profile.py). */
  if (watchdog->last != 0 && now - watchdog->last > 20000 && g_getenv ("BENCH_STALLS_TRACE") != NULL)
    fprintf (stderr, "stall %.6f %.6f\n", watchdog->last / 1e6, now / 1e6);
  watchdog->last = now;
  return G_SOURCE_CONTINUE;
}

static GtkWidget *find_widget (GtkWidget *widget, GType type);

/* When the open started, and when the first frame showing a layout was painted. */
typedef struct {
  OnyxCanvas *canvas;
  gint64 started;
  gint64 first_frame;
} FirstFrame;

static gboolean
window_busy (OnyxWindow *window)
{
  FirstFrame *first = g_object_get_data (G_OBJECT (window), "first-frame");

  /* An open lasts until its graph was painted. */
  return onyx_window_is_opening (window) || (first->started != 0 && first->first_frame == 0) || onyx_view_state_is_laying_out (onyx_window_get_view_state (window)) ||
         onyx_view_state_is_analysing (onyx_window_get_view_state (window)) ||
         onyx_compare_pane_is_busy (ONYX_COMPARE_PANE (find_widget (GTK_WIDGET (window), ONYX_TYPE_COMPARE_PANE))) ||
         onyx_run_pane_is_running (ONYX_RUN_PANE (find_widget (GTK_WIDGET (window), ONYX_TYPE_RUN_PANE))) ||
         onyx_jobs_get_label (onyx_view_state_get_jobs (onyx_window_get_view_state (window))) != NULL ||
         (onyx_window_get_document (window) != NULL && onyx_document_is_frozen (onyx_window_get_document (window)));
}

typedef void (*Action) (OnyxWindow *window, gpointer data);

typedef struct {
  OnyxWindow *window;
  Action action;
  gpointer data;
  gboolean done;
} Pending;

static gboolean
start_action (gpointer data)
{
  Pending *pending = data;

  pending->action (pending->window, pending->data);
  pending->done = TRUE;
  return G_SOURCE_REMOVE;
}

/* Runs `action` from the main loop `times` times, each after the window is idle
 * again; prints the longest stall and the phase's wall time. */
static void
phase (OnyxWindow *window, Watchdog *watchdog, const char *name, Action action, gpointer data, int times)
{
  double start = bench_now ();

  while (g_main_context_iteration (NULL, FALSE))
    ;
  watchdog->last = g_get_monotonic_time ();
  watchdog->longest = 0;
  for (int i = 0; i < times; i++)
    {
      Pending pending = { window, action, data, FALSE };
      gint64 longest_before = watchdog->longest;

      watchdog->longest = 0;
      g_idle_add (start_action, &pending);
      while (!pending.done || window_busy (window))
        g_main_context_iteration (NULL, TRUE);
      /* BENCH_STALLS_EACH=1: each action's own longest stall, to find the slow one. */
      if (g_getenv ("BENCH_STALLS_EACH") != NULL)
        printf ("  %-10s #%-3d %7.1f ms  window %d×%d\n", name, i, watchdog->longest / 1000.0,
                gtk_widget_get_width (GTK_WIDGET (window)), gtk_widget_get_height (GTK_WIDGET (window)));
      watchdog->longest = MAX (watchdog->longest, longest_before);
    }
  /* What the last action left queued (redraws, rows) belongs to it. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  printf ("%-12s longest stall %7.1f ms   phase %8.1f ms%s\n", name, watchdog->longest / 1000.0,
          (bench_now () - start) * 1000, watchdog->longest > 33000 ? "   (over 33 ms)" : "");
}

static gboolean
wanted (int argc, char **argv, const char *phase)
{
  if (argc <= 2)
    return TRUE;
  for (int i = 2; i < argc; i++)
    if (g_str_equal (argv[i], phase))
      return TRUE;
  return FALSE;
}

/* Weights beyond this are not run unless "run" is named: a Llama-70B-shaped model's
 * 47 GB of sparse weights take ONNX Runtime minutes and tens of GB to load. */
#define MAX_RUN_BYTES (4 * 1024 * 1024 * 1024ull)

static gboolean
runs_in_time (OnyxWindow *window, int argc)
{
  const OnyxSummary *summary = onyx_analysis_summary_of (onyx_window_get_document (window));

  if (argc > 2 || summary->parameter_bytes <= MAX_RUN_BYTES)
    return TRUE;
  printf ("%-12s left out: %.1f GB of weights (name the phase to run it)\n", "run",
          summary->parameter_bytes / 1e9);
  return FALSE;
}

static GtkWidget *
find_widget (GtkWidget *widget, GType type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_widget (child, type);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* BENCH_STALLS_TRACE=1 also splits each frame over 20 ms into the frame clock's phases
 * (events and before-paint, update, layout, paint): these handlers run after GTK's own
 * handler of each phase, so each mark is where that phase ended. */
typedef struct {
  gint64 marks[4];
} FrameMarks;

static void
frame_mark_cb (GdkFrameClock *clock, gpointer index)
{
  FrameMarks *frame = g_object_get_data (G_OBJECT (clock), "bench-frame-marks");

  frame->marks[GPOINTER_TO_INT (index)] = g_get_monotonic_time ();
}

static void
frame_report_cb (GdkFrameClock *clock, FrameMarks *frame)
{
  gint64 start = gdk_frame_clock_get_frame_time (clock), now = g_get_monotonic_time ();

  if (frame->marks[0] == 0 || now - frame->marks[0] < 20000)
    return;
  fprintf (stderr, "frame %.1f ms: to before-paint %.1f, update %.1f, layout %.1f, paint %.1f\n",
           (now - MIN (start, frame->marks[0])) / 1000.0, (frame->marks[0] - MIN (start, frame->marks[0])) / 1000.0,
           (frame->marks[1] - frame->marks[0]) / 1000.0, (frame->marks[2] - frame->marks[1]) / 1000.0,
           (frame->marks[3] - frame->marks[2]) / 1000.0);
  memset (frame, 0, sizeof *frame);
}

static void
trace_frames (GdkFrameClock *clock)
{
  static const char *phases[] = { "before-paint", "update", "layout", "paint" };
  FrameMarks *frame = g_new0 (FrameMarks, 1);

  g_object_set_data_full (G_OBJECT (clock), "bench-frame-marks", frame, g_free);
  for (guint i = 0; i < G_N_ELEMENTS (phases); i++)
    g_signal_connect (clock, phases[i], G_CALLBACK (frame_mark_cb), GINT_TO_POINTER (i));
  g_signal_connect (clock, "after-paint", G_CALLBACK (frame_report_cb), frame);
}

static void
after_paint_cb (GdkFrameClock *clock, FirstFrame *first)
{
  if (first->first_frame == 0 && first->started != 0 && onyx_canvas_get_layout (first->canvas) != NULL)
    first->first_frame = g_get_monotonic_time ();
}

static void
open_action (OnyxWindow *window, gpointer data)
{
  FirstFrame *first = g_object_get_data (G_OBJECT (window), "first-frame");

  first->started = g_get_monotonic_time ();
  onyx_window_open_file (window, data);
}

/* The next single-input, single-output node of the main graph (Relu, Dropout…). */
static Onnx__NodeProto *
next_bypassable (OnyxWindow *window)
{
  Onnx__GraphProto *graph = onyx_document_get_proto (onyx_window_get_document (window))->graph;

  for (size_t i = 0; i < graph->n_node; i++)
    if (graph->node[i]->n_input == 1 && graph->node[i]->n_output == 1)
      return graph->node[i];
  return NULL;
}

/* A click selecting the node, then (the next time) Bypass: two events, as a person
 * makes them. */
static void
edit_action (OnyxWindow *window, gpointer data)
{
  Onnx__NodeProto *node = next_bypassable (window);

  if (node == NULL)
    return;
  if (onyx_view_state_get_selected_node (onyx_window_get_view_state (window)) != node)
    onyx_view_state_select_node (onyx_window_get_view_state (window), node);
  else
    gtk_widget_activate_action (GTK_WIDGET (window), "edit.bypass-node", NULL);
}

static void
named_action (OnyxWindow *window, gpointer data)
{
  gtk_widget_activate_action (GTK_WIDGET (window), data, NULL);
}

static void
save_action (OnyxWindow *window, gpointer data)
{
  onyx_files_save (onyx_window_get_files (window), data);
}

static void
compare_action (OnyxWindow *window, gpointer data)
{
  g_autoptr (GError) error = NULL;

  if (!onyx_compare_pane_compare_with (ONYX_COMPARE_PANE (find_widget (GTK_WIDGET (window), ONYX_TYPE_COMPARE_PANE)),
                                       data, &error))
    fprintf (stderr, "compare: %s\n", error->message);
}

int
main (int argc, char **argv)
{
  g_autofree char *folder = NULL, *copy_path = NULL, *copy_name = NULL;
  g_autoptr (GFile) file = NULL, copy = NULL;
  Watchdog watchdog = { 0 };
  FirstFrame first = { 0 };
  OnyxWindow *window;
  int edits = 20;

  if (argc < 2)
    {
      fprintf (stderr, "usage: xvfb-run -a bench-stalls MODEL.onnx\n");
      return 2;
    }
  /* Xvfb has no GPU: GL through llvmpipe makes every frame a stall of its own that
   * the app does not have on a real display; cairo draws what Onyx draws. */
  g_setenv ("GSK_RENDERER", "cairo", FALSE);
  gtk_init ();
  adw_init ();
  onyx_memory_keep_freed ();
  file = g_file_new_for_commandline_arg (argv[1]);
  folder = g_path_get_dirname (g_file_peek_path (file));
  copy_name = g_strdup_printf (".onyx-stalls-%d.onnx", (int) getpid ());
  copy_path = g_build_filename (folder, copy_name, NULL);
  copy = g_file_new_for_path (copy_path);
  g_timeout_add_full (G_PRIORITY_HIGH, 1, watchdog_tick, &watchdog, NULL);

  window = onyx_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  while (!gtk_widget_get_mapped (GTK_WIDGET (window)))
    g_main_context_iteration (NULL, TRUE);
  /* The helper starts idle after start-up, as in the app. */
  onyx_shapes_warm_up ();

  printf ("%s\n", argv[1]);
  first.canvas = ONYX_CANVAS (find_widget (GTK_WIDGET (window), ONYX_TYPE_CANVAS));
  g_object_set_data (G_OBJECT (window), "first-frame", &first);
  g_signal_connect (gtk_widget_get_frame_clock (GTK_WIDGET (window)), "after-paint", G_CALLBACK (after_paint_cb), &first);
  if (g_getenv ("BENCH_STALLS_TRACE") != NULL)
    trace_frames (gtk_widget_get_frame_clock (GTK_WIDGET (window)));
  phase (window, &watchdog, "open", open_action, file, 1);
  if (onyx_window_get_document (window) == NULL)
    return 1;
  printf ("%-12s first laid-out frame after %6.1f ms\n", "", (first.first_frame - first.started) / 1000.0);
  if (wanted (argc, argv, "edits"))
    phase (window, &watchdog, "20 edits", edit_action, NULL, 2 * edits);
  if (wanted (argc, argv, "undo"))
    phase (window, &watchdog, "undo all", named_action, "edit.undo", edits);
  if (wanted (argc, argv, "redo"))
    phase (window, &watchdog, "redo all", named_action, "edit.redo", edits);
  if (wanted (argc, argv, "save"))
    phase (window, &watchdog, "save", save_action, copy, 1);
  if (wanted (argc, argv, "compare"))
    phase (window, &watchdog, "compare", compare_action, file, 1);
  if (wanted (argc, argv, "run") && onyx_run_available (NULL) && runs_in_time (window, argc))
    phase (window, &watchdog, "run", named_action, "run.start", 1);
  /* Edits left unsaved would be offered back by the next run (or the app). */
  onyx_files_discard_journal (onyx_window_get_files (window));
  onyx_disk_queue_flush ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (copy_path);
  return 0;
}
