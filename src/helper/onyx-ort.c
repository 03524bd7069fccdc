/* onyx-ort.c: ONNX Runtime in Onyx's helper: runs a model (and a second one, for a
 * comparison) on the inputs of an onyx-run.h request and answers with statistics of
 * every tensor, the values asked for and the per-tensor differences; profiles one
 * with the runtime's own profiler (onyx-run-profile.h). Only this file
 * sees the runtime's C API, and only the helper links the runtime: a crash or a
 * huge allocation in it ends the helper, not the window. */
#include "onyx-ort.h"

#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include <onnxruntime_c_api.h>
#include <onnxruntime_session_options_config_keys.h>

#include "onyx-run-profile-private.h"
#include "onyx-run.h"

/* The API version Onyx's calls need (ONNX Runtime 1.16), not the headers': the
 * runtime found at run time may be older than the headers built against. */
#define ONYX_ORT_API_VERSION 16

static const OrtApi *ort;
static OrtEnv *env;

/* The message of a failed call, freeing the status; NULL when it did not fail. */
static char *
failure (OrtStatus *status)
{
  char *message;
  if (status == NULL)
    return NULL;
  message = g_strdup (ort->GetErrorMessage (status));
  ort->ReleaseStatus (status);
  return message;
}

static gboolean
succeeded (OrtStatus *status)
{
  g_autofree char *message = failure (status);
  return message == NULL;
}

static gboolean
prepare (char **text)
{
  const OrtApiBase *base;

  if (env != NULL)
    return TRUE;
  base = OrtGetApiBase ();
  ort = base->GetApi (ONYX_ORT_API_VERSION);
  if (ort == NULL)
    {
      *text = g_strdup_printf ("ONNX Runtime %s is too old for Onyx (it needs 1.16 or newer)",
                               base->GetVersionString ());
      return FALSE;
    }
  /* Its failures come back as statuses, said once by Onyx: its own log would repeat
   * them on stderr. */
  return (*text = failure (ort->CreateEnv (ORT_LOGGING_LEVEL_FATAL, "onyx", &env))) == NULL;
}

typedef struct {
  OrtSession *session;
  GPtrArray *input_names;   /* char * */
  GPtrArray *output_names;
  GPtrArray *values;        /* OrtValue *, one per output after a run */
  double seconds;
} Run;

static void
release_values (Run *run)
{
  for (guint i = 0; run->values != NULL && i < run->values->len; i++)
    if (run->values->pdata[i] != NULL)
      ort->ReleaseValue (run->values->pdata[i]);
  g_clear_pointer (&run->values, g_ptr_array_unref);
}

static void
run_clear (Run *run)
{
  release_values (run);
  g_clear_pointer (&run->input_names, g_ptr_array_unref);
  g_clear_pointer (&run->output_names, g_ptr_array_unref);
  if (run->session != NULL)
    ort->ReleaseSession (run->session);
  run->session = NULL;
}

static GPtrArray *
session_names (OrtSession *session, gboolean inputs, char **text)
{
  OrtAllocator *allocator;
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  size_t count = 0;

  *text = failure (ort->GetAllocatorWithDefaultOptions (&allocator));
  if (*text == NULL)
    *text = failure (inputs ? ort->SessionGetInputCount (session, &count)
                            : ort->SessionGetOutputCount (session, &count));
  for (size_t i = 0; *text == NULL && i < count; i++)
    {
      char *name = NULL;
      *text = failure (inputs ? ort->SessionGetInputName (session, i, allocator, &name)
                              : ort->SessionGetOutputName (session, i, allocator, &name));
      if (name != NULL)
        {
          g_ptr_array_add (names, g_strdup (name));
          succeeded (ort->AllocatorFree (allocator, name));
        }
    }
  return names;
}

/* What a profiled session is opened with (onyx-run-profile.h); NULL for a run. */
typedef struct {
  const OnyxProfileOptions *options;
  char *trace_prefix;       /* the runtime adds a date and .json */
  char *optimized_path;     /* where it writes the model as it optimized it */
} Profiling;

/* The name, beside the optimized model, of the file its weights of 1 KiB and more go
 * to: the graph alone is read back, and a model of 2 GiB and more still saves. */
#define OPTIMIZED_WEIGHTS "weights.bin"

static char *
configure_profiling (OrtSessionOptions *options, const Profiling *profiling)
{
  static const GraphOptimizationLevel levels[] = {
    [ONYX_PROFILE_OPT_DISABLED] = ORT_DISABLE_ALL, [ONYX_PROFILE_OPT_BASIC] = ORT_ENABLE_BASIC,
    [ONYX_PROFILE_OPT_EXTENDED] = ORT_ENABLE_EXTENDED, [ONYX_PROFILE_OPT_ALL] = ORT_ENABLE_ALL,
  };
  char *text = failure (ort->SetSessionGraphOptimizationLevel (options, levels[profiling->options->opt_level]));

  if (text == NULL && profiling->options->threads > 0)
    text = failure (ort->SetIntraOpNumThreads (options, (int) profiling->options->threads));
  if (text == NULL)
    text = failure (ort->EnableProfiling (options, profiling->trace_prefix));
  if (text == NULL)
    text = failure (ort->SetOptimizedModelFilePath (options, profiling->optimized_path));
  if (text == NULL)
    text = failure (ort->AddSessionConfigEntry (options, kOrtSessionOptionsOptimizedModelExternalInitializersFileName,
                                                OPTIMIZED_WEIGHTS));
  if (text == NULL)
    text = failure (ort->AddSessionConfigEntry (
      options, kOrtSessionOptionsOptimizedModelExternalInitializersMinSizeInBytes, "1024"));
  return text;
}

static gboolean
open_session (Run *run, GBytes *model, const char *base_dir, const Profiling *profiling, char **text)
{
  OrtSessionOptions *options = NULL;
  gsize size;
  const void *data = g_bytes_get_data (model, &size);

  *text = failure (ort->CreateSessionOptions (&options));
  /* External data files are found next to the model, which the runtime, given bytes,
   * knows nothing of: tell it, and be there (older runtimes look in the current
   * folder). */
  if (*text == NULL && base_dir != NULL)
    {
      *text = failure (ort->AddSessionConfigEntry (options, kOrtSessionOptionsModelExternalInitializersFileFolderPath,
                                                   base_dir));
      if (*text == NULL && chdir (base_dir) != 0)
        *text = g_strdup_printf ("cannot open the model's folder %s", base_dir);
    }
  if (*text == NULL && profiling != NULL)
    *text = configure_profiling (options, profiling);
  if (*text == NULL)
    *text = failure (ort->CreateSessionFromArray (env, data, size, options, &run->session));
  if (options != NULL)
    ort->ReleaseSessionOptions (options);
  if (*text == NULL)
    run->input_names = session_names (run->session, TRUE, text);
  if (*text == NULL)
    run->output_names = session_names (run->session, FALSE, text);
  return *text == NULL;
}

/* Runs the session on `inputs`, by name, or by position for a second model whose
 * inputs are named otherwise, `times` times over (the outputs of the last run kept,
 * and its time). */
static gboolean
run_session (Run *run, GPtrArray *inputs, guint times, char **text)
{
  OrtMemoryInfo *memory = NULL;
  g_autoptr (GPtrArray) fed = g_ptr_array_new ();
  static guint8 nothing;
  gint64 start;

  *text = failure (ort->CreateCpuMemoryInfo (OrtArenaAllocator, OrtMemTypeDefault, &memory));
  for (guint i = 0; *text == NULL && i < run->input_names->len; i++)
    {
      const char *name = run->input_names->pdata[i];
      OnyxArray *array = onyx_array_find (inputs, name);
      OrtValue *value = NULL;
      gsize size = 0;
      void *data;

      if (array == NULL && i < inputs->len)
        array = inputs->pdata[i];
      if (array == NULL)
        {
          *text = g_strdup_printf ("no array for input '%s'", name);
          break;
        }
      data = (void *) g_bytes_get_data (array->data, &size);
      *text = failure (ort->CreateTensorWithDataAsOrtValue (memory, size > 0 ? data : &nothing, size,
                                                            array->dims, array->n_dims,
                                                            (ONNXTensorElementDataType) array->elem_type, &value));
      g_ptr_array_add (fed, value);
    }
  for (guint n = 0; *text == NULL && n < times; n++)
    {
      release_values (run);
      run->values = g_ptr_array_new ();
      g_ptr_array_set_size (run->values, run->output_names->len);
      start = g_get_monotonic_time ();
      *text = failure (ort->Run (run->session, NULL, (const char *const *) run->input_names->pdata,
                                 (const OrtValue *const *) fed->pdata, fed->len,
                                 (const char *const *) run->output_names->pdata, run->output_names->len,
                                 (OrtValue **) run->values->pdata));
      run->seconds = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
    }
  for (guint i = 0; i < fed->len; i++)
    if (fed->pdata[i] != NULL)
      ort->ReleaseValue (fed->pdata[i]);
  if (memory != NULL)
    ort->ReleaseMemoryInfo (memory);
  return *text == NULL;
}

/* An output as an array over the runtime's memory (valid while the run lives); NULL
 * for outputs that are not tensors of numbers (sequences, maps, strings). */
static OnyxArray *
output_view (Run *run, guint index)
{
  OrtValue *value = run->values->pdata[index];
  OrtTensorTypeAndShapeInfo *info = NULL;
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  size_t n_dims = 0, count = 0;
  g_autofree gint64 *dims = NULL;
  g_autoptr (GBytes) bytes = NULL;
  void *data = NULL;
  int is_tensor = 0;
  gsize size;

  if (value == NULL || !succeeded (ort->IsTensor (value, &is_tensor)) || !is_tensor ||
      !succeeded (ort->GetTensorTypeAndShape (value, &info)))
    return NULL;
  gboolean described = succeeded (ort->GetTensorElementType (info, &type)) &&
                       succeeded (ort->GetDimensionsCount (info, &n_dims));
  dims = g_new0 (gint64, MAX (n_dims, 1));
  described = described && succeeded (ort->GetDimensions (info, dims, n_dims)) &&
              succeeded (ort->GetTensorShapeElementCount (info, &count));
  ort->ReleaseTensorTypeAndShapeInfo (info);
  size = onyx_run_element_size ((int) type);
  if (!described || size == 0 || (count > 0 && !succeeded (ort->GetTensorMutableData (value, &data))))
    return NULL;
  bytes = g_bytes_new_static (count > 0 ? data : "", count * size);
  return onyx_array_new (run->output_names->pdata[index], (int) type, dims, n_dims, bytes);
}

static GPtrArray *
views_of (Run *run)
{
  /* NULL where an output is no array of numbers: views line up with the outputs. */
  GPtrArray *views = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_array_free);
  for (guint i = 0; i < run->output_names->len; i++)
    g_ptr_array_add (views, output_view (run, i));
  return views;
}

static GPtrArray *
stats_of (GPtrArray *views)
{
  GPtrArray *list = onyx_run_stats_list_new ();
  for (guint i = 0; i < views->len; i++)
    if (views->pdata[i] != NULL)
      {
        OnyxRunStats *stats = g_new0 (OnyxRunStats, 1);
        onyx_run_stats_compute (views->pdata[i], stats);
        g_ptr_array_add (list, stats);
      }
  return list;
}

static GPtrArray *
kept_values (const OnyxRunRequest *request, GPtrArray *views)
{
  GPtrArray *values = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_array_free);
  for (guint i = 0; i < views->len; i++)
    {
      const OnyxArray *view = views->pdata[i];
      if (view != NULL && (request->keep_all || (request->keep != NULL &&
                                                 g_strv_contains ((const char *const *) request->keep, view->name))))
        {
          g_autoptr (GBytes) copy = g_bytes_new (g_bytes_get_data (view->data, NULL), g_bytes_get_size (view->data));
          g_ptr_array_add (values, onyx_array_new (view->name, view->elem_type, view->dims, view->n_dims, copy));
        }
    }
  return values;
}

static GPtrArray *
deltas_of (const OnyxRunRequest *request, GPtrArray *views, GPtrArray *others)
{
  GPtrArray *deltas = onyx_run_delta_list_new ();
  for (guint i = 0; i + 1 < request->pairs->len; i += 2)
    {
      const OnyxArray *a = onyx_array_find (views, request->pairs->pdata[i]);
      const OnyxArray *b = onyx_array_find (others, request->pairs->pdata[i + 1]);
      if (a != NULL && b != NULL)
        {
          OnyxRunDelta *delta = g_new0 (OnyxRunDelta, 1);
          onyx_run_delta_compute (a, b, request->atol, request->rtol, delta);
          g_ptr_array_add (deltas, delta);
        }
    }
  return deltas;
}

typedef struct {
  Run *run;
  GBytes *model;
  char *text;
  gboolean opened;
} Opening;

static gpointer
open_in_thread (gpointer data)
{
  Opening *opening = data;

  opening->opened = open_session (opening->run, opening->model, NULL, NULL, &opening->text);
  return NULL;
}

/* Opens both models' sessions, side by side when their external data is in the same
 * folder (the current folder is the whole process's): opening is most of the time a
 * comparison takes on a big graph (Simplify's proof). */
static gboolean
open_both (const OnyxRunRequest *request, Run *run, Run *other, char **text)
{
  Opening opening = { other, request->other_model, NULL, FALSE };
  GThread *thread;

  if (g_strcmp0 (request->base_dir, request->other_base_dir) != 0)
    return open_session (run, request->model, request->base_dir, NULL, text) &&
           open_session (other, request->other_model, request->other_base_dir, NULL, text);
  if (request->base_dir != NULL && chdir (request->base_dir) != 0)
    {
      *text = g_strdup_printf ("cannot open the model's folder %s", request->base_dir);
      return FALSE;
    }
  thread = g_thread_new ("onyx-open-other", open_in_thread, &opening);
  open_session (run, request->model, request->base_dir, NULL, text);
  g_thread_join (thread);
  if (*text == NULL && !opening.opened)
    *text = g_steal_pointer (&opening.text);
  g_free (opening.text);
  return *text == NULL;
}

static GBytes *
run_job (GBytes *input, char **text)
{
  OnyxRunRequest request;
  Run run = { 0 }, other = { 0 };
  OnyxRunResult result = { 0 };
  g_autoptr (GPtrArray) views = NULL, other_views = NULL;
  g_autoptr (GError) error = NULL;
  GBytes *answer = NULL;

  *text = NULL;
  if (!onyx_run_request_decode (input, &request, &error))
    {
      *text = g_strdup_printf ("Onyx's helper cannot read the request to run the model: %s", error->message);
      return NULL;
    }
  if (prepare (text) &&
      (request.other_model == NULL ? open_session (&run, request.model, request.base_dir, NULL, text)
                                   : open_both (&request, &run, &other, text)) &&
      run_session (&run, request.inputs, 1, text) &&
      (request.other_model == NULL || run_session (&other, request.inputs, 1, text)))
    {
      views = views_of (&run);
      result.stats = stats_of (views);
      result.values = kept_values (&request, views);
      result.seconds = run.seconds;
      result.runtime_version = (char *) onyx_ort_version ();
      if (request.other_model != NULL)
        {
          other_views = views_of (&other);
          result.other_stats = stats_of (other_views);
        }
      result.deltas = deltas_of (&request, views, other_views != NULL ? other_views : request.reference);
      answer = onyx_run_result_encode (&result);
      g_clear_pointer (&result.stats, g_ptr_array_unref);
      g_clear_pointer (&result.other_stats, g_ptr_array_unref);
      g_clear_pointer (&result.values, g_ptr_array_unref);
      g_clear_pointer (&result.deltas, g_ptr_array_unref);
    }
  g_clear_pointer (&views, g_ptr_array_unref);
  g_clear_pointer (&other_views, g_ptr_array_unref);
  if (ort != NULL)
    {
      run_clear (&run);
      run_clear (&other);
    }
  onyx_run_request_clear (&request);
  return answer;
}

/* Removes the profile's folder and what the runtime wrote in it. */
static void
remove_folder (const char *folder)
{
  g_autoptr (GDir) dir = g_dir_open (folder, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (folder, name, NULL);
      g_unlink (path);
    }
  g_rmdir (folder);
}

/* The trace the runtime wrote, read back and removed. */
static GBytes *
end_profiling (OrtSession *session, char **text)
{
  OrtAllocator *allocator;
  char *path = NULL, *contents = NULL;
  gsize length = 0;
  g_autoptr (GError) error = NULL;

  *text = failure (ort->GetAllocatorWithDefaultOptions (&allocator));
  if (*text == NULL)
    *text = failure (ort->SessionEndProfiling (session, allocator, &path));
  if (*text != NULL)
    return NULL;
  if (!g_file_get_contents (path, &contents, &length, &error))
    *text = g_strdup_printf ("cannot read ONNX Runtime's trace: %s", error->message);
  g_unlink (path);
  succeeded (ort->AllocatorFree (allocator, path));
  return contents != NULL ? g_bytes_new_take (contents, length) : NULL;
}

/* K warm-up runs and N runs with the runtime's profiler on, in a folder of its own:
 * the trace and the model as the runtime optimized it come back. */
static GBytes *
profile_job (GBytes *input, char **text)
{
  OnyxProfileRequest request;
  OnyxRunRequest run_request = { 0 };
  OnyxProfileAnswer answer = { 0 };
  Profiling profiling = { 0 };
  Run run = { 0 };
  g_autoptr (GError) error = NULL;
  g_autofree char *folder = NULL, *optimized = NULL;
  gsize optimized_length = 0;
  GBytes *bytes = NULL;

  *text = NULL;
  if (!onyx_profile_request_decode (input, &request, &error))
    {
      *text = g_strdup_printf ("Onyx's helper cannot read the request to profile the model: %s", error->message);
      return NULL;
    }
  if (!onyx_run_request_decode (request.run_request, &run_request, &error))
    *text = g_strdup_printf ("Onyx's helper cannot read the run of the request to profile the model: %s",
                             error->message);
  else if ((folder = g_dir_make_tmp ("onyx-profile-XXXXXX", &error)) == NULL)
    *text = g_strdup_printf ("cannot make a folder for ONNX Runtime's trace: %s", error->message);
  if (*text == NULL && prepare (text))
    {
      profiling.options = &request.options;
      profiling.trace_prefix = g_build_filename (folder, "trace", NULL);
      profiling.optimized_path = g_build_filename (folder, "optimized.onnx", NULL);
      if (open_session (&run, run_request.model, run_request.base_dir, &profiling, text) &&
          run_session (&run, run_request.inputs, request.options.warmup + request.options.runs, text) &&
          (answer.trace = end_profiling (run.session, text)) != NULL &&
          !g_file_get_contents (profiling.optimized_path, &optimized, &optimized_length, &error))
        *text = g_strdup_printf ("cannot read the model as ONNX Runtime optimized it: %s", error->message);
    }
  if (*text == NULL)
    {
      answer.optimized = g_bytes_new_take (g_steal_pointer (&optimized), optimized_length);
      answer.runtime_version = g_strdup (onyx_ort_version ());
      bytes = onyx_profile_answer_encode (&answer);
    }
  if (ort != NULL)
    run_clear (&run);
  if (folder != NULL)
    remove_folder (folder);
  g_free (profiling.trace_prefix);
  g_free (profiling.optimized_path);
  onyx_profile_answer_clear (&answer);
  onyx_run_request_clear (&run_request);
  onyx_profile_request_clear (&request);
  return bytes;
}

GBytes *
onyx_ort_job (OnyxOnnxJobKind kind, GBytes *input, char **text)
{
  return kind == ONYX_ONNX_JOB_PROFILE ? profile_job (input, text) : run_job (input, text);
}

const char *
onyx_ort_version (void)
{
  return OrtGetApiBase ()->GetVersionString ();
}
