/* libFuzzer target for what crosses between Onyx and its helper on a run: the
 * request the app or onyx-cli sends (onyx-run-wire.c), the result the helper sends
 * back, and the framing around both (onyx-onnx-private.h). The first byte of an
 * input says what the rest is, as the seeds are made (tools/make-fuzz-seeds.py):
 *   0 a request, as the helper decodes it;
 *   1 a result, as the app decodes it;
 *   2 what the helper reads from its socket: jobs, a run's input decoded as 0;
 *   3 what the app reads back: an answer, its result decoded as 1.
 * Whatever arrives: an error, or values that agree with themselves (every array's
 * dims with its bytes, every tensor's counts with its dims) and that encode and
 * decode back the same. */
#define _GNU_SOURCE  /* memfd_create */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz-checks.h"
#include "onyx-onnx-private.h"
#include "onyx-run.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t len);

static void
assert_same_bytes (GBytes *a, GBytes *b)
{
  g_assert_true ((a == NULL) == (b == NULL));
  g_assert_true (a == NULL || g_bytes_equal (a, b));
}

/* Bit for bit: a NaN that crossed is the same NaN. */
static void
assert_same_double (double a, double b)
{
  g_assert_true (memcmp (&a, &b, sizeof a) == 0);
}

static void
assert_same_dims (const gint64 *a, gsize n_a, const gint64 *b, gsize n_b)
{
  g_assert_cmpuint (n_a, ==, n_b);
  g_assert_true (n_a == 0 || memcmp (a, b, n_a * sizeof *a) == 0);
}

static void
assert_whole_arrays (GPtrArray *arrays)
{
  for (guint i = 0; i < arrays->len; i++)
    {
      const OnyxArray *array = arrays->pdata[i];
      gsize size = onyx_run_element_size (array->elem_type);
      guint64 count = onyx_array_count (array);

      g_assert_cmpuint (size, >, 0);
      g_assert_cmpuint (count, <=, G_MAXSIZE / size);
      g_assert_cmpuint (count * size, ==, g_bytes_get_size (array->data));
    }
}

static void
assert_same_arrays (GPtrArray *a, GPtrArray *b)
{
  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    {
      const OnyxArray *x = a->pdata[i], *y = b->pdata[i];
      g_assert_cmpstr (x->name, ==, y->name);
      g_assert_cmpint (x->elem_type, ==, y->elem_type);
      assert_same_dims (x->dims, x->n_dims, y->dims, y->n_dims);
      assert_same_bytes (x->data, y->data);
    }
}

static void
assert_same_strings (GPtrArray *a, GPtrArray *b)
{
  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    g_assert_cmpstr (a->pdata[i], ==, b->pdata[i]);
}

static void
fuzz_request (GBytes *bytes)
{
  OnyxRunRequest request, again;
  GError *error = NULL;
  GBytes *encoded;

  if (!onyx_run_request_decode (bytes, &request, &error))
    {
      assert_clear_error (error);
      g_assert_null (request.model);
      return;
    }
  g_assert_cmpuint (g_bytes_get_size (request.model), >, 0);
  g_assert_true (request.other_model == NULL || g_bytes_get_size (request.other_model) > 0);
  assert_whole_arrays (request.inputs);
  assert_whole_arrays (request.reference);
  g_assert_cmpuint (request.pairs->len % 2, ==, 0);

  encoded = onyx_run_request_encode (&request);
  if (!onyx_run_request_decode (encoded, &again, &error))
    g_error ("an encoded request does not decode: %s", error->message);
  assert_same_bytes (request.model, again.model);
  g_assert_cmpstr (request.base_dir, ==, again.base_dir);
  assert_same_bytes (request.other_model, again.other_model);
  g_assert_cmpstr (request.other_base_dir, ==, again.other_base_dir);
  assert_same_arrays (request.inputs, again.inputs);
  assert_same_arrays (request.reference, again.reference);
  assert_same_strings (request.pairs, again.pairs);
  g_assert_true (g_strv_equal ((const char *const *) request.keep, (const char *const *) again.keep));
  g_assert_cmpint (request.keep_all, ==, again.keep_all);
  assert_same_double (request.atol, again.atol);
  assert_same_double (request.rtol, again.rtol);
  onyx_run_request_clear (&again);
  onyx_run_request_clear (&request);
  g_bytes_unref (encoded);
}

static void
assert_whole_stats (GPtrArray *list)
{
  for (guint i = 0; i < list->len; i++)
    {
      const OnyxRunStats *stats = list->pdata[i];
      guint64 binned = 0;

      g_assert_nonnull (stats->name);
      g_assert_cmpuint (onyx_run_element_size (stats->elem_type), >, 0);
      g_assert_cmpuint (stats->count, ==, onyx_array_dims_count (stats->dims, stats->n_dims));
      g_assert_cmpuint (stats->count, !=, G_MAXUINT64);
      for (guint b = 0; b < ONYX_RUN_BINS; b++)
        binned += stats->histogram[b];
      g_assert_cmpuint (stats->n_nan, <=, stats->count);
      g_assert_cmpuint (stats->n_inf, <=, stats->count - stats->n_nan);
      g_assert_cmpuint (binned, <=, stats->count - stats->n_nan - stats->n_inf);
    }
}

static void
assert_same_stats (GPtrArray *a, GPtrArray *b)
{
  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    {
      const OnyxRunStats *x = a->pdata[i], *y = b->pdata[i];
      g_assert_cmpstr (x->name, ==, y->name);
      g_assert_cmpint (x->elem_type, ==, y->elem_type);
      assert_same_dims (x->dims, x->n_dims, y->dims, y->n_dims);
      g_assert_cmpuint (x->count, ==, y->count);
      g_assert_cmpuint (x->n_nan, ==, y->n_nan);
      g_assert_cmpuint (x->n_inf, ==, y->n_inf);
      assert_same_double (x->min, y->min);
      assert_same_double (x->max, y->max);
      assert_same_double (x->mean, y->mean);
      assert_same_double (x->std, y->std);
      g_assert_true (memcmp (x->histogram, y->histogram, sizeof x->histogram) == 0);
    }
}

static void
assert_same_deltas (GPtrArray *a, GPtrArray *b)
{
  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    {
      const OnyxRunDelta *x = a->pdata[i], *y = b->pdata[i];
      g_assert_cmpstr (x->name, ==, y->name);
      g_assert_cmpstr (x->other, ==, y->other);
      g_assert_cmpstr (x->mismatch, ==, y->mismatch);
      assert_same_double (x->max_abs, y->max_abs);
      assert_same_double (x->max_rel, y->max_rel);
      assert_same_double (x->max_ref, y->max_ref);
      g_assert_cmpuint (x->n_exceeding, ==, y->n_exceeding);
      assert_same_double (x->sum_sq_ref, y->sum_sq_ref);
      assert_same_double (x->sum_sq_diff, y->sum_sq_diff);
    }
}

static void
fuzz_result (GBytes *bytes)
{
  GError *error = NULL;
  OnyxRunResult *result = onyx_run_result_decode (bytes, &error);
  OnyxRunResult *again;
  GBytes *encoded;

  if (result == NULL)
    {
      assert_clear_error (error);
      return;
    }
  assert_whole_stats (result->stats);
  assert_whole_stats (result->other_stats);
  assert_whole_arrays (result->values);
  /* What the app and onyx-cli ask of any result. */
  onyx_run_result_first_nonfinite (result);
  onyx_run_result_n_exceeding (result);

  encoded = onyx_run_result_encode (result);
  again = onyx_run_result_decode (encoded, &error);
  if (again == NULL)
    g_error ("an encoded result does not decode: %s", error->message);
  assert_same_stats (result->stats, again->stats);
  assert_same_stats (result->other_stats, again->other_stats);
  assert_same_arrays (result->values, again->values);
  assert_same_deltas (result->deltas, again->deltas);
  assert_same_double (result->seconds, again->seconds);
  g_assert_cmpstr (result->runtime_version, ==, again->runtime_version);
  onyx_run_result_free (again);
  onyx_run_result_free (result);
  g_bytes_unref (encoded);
}

/* A file holding the bytes, read from its start: the framing reads an fd. */
static int
stream_of (GBytes *bytes)
{
  static int fd = -1;
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);

  if (fd < 0 && (fd = memfd_create ("fuzz-wire", MFD_CLOEXEC)) < 0)
    g_error ("fuzz-wire needs memfd_create: %s", g_strerror (errno));
  if (ftruncate (fd, 0) != 0 || (len > 0 && pwrite (fd, data, len, 0) != (ssize_t) len) ||
      lseek (fd, 0, SEEK_SET) != 0)
    g_error ("fuzz-wire cannot write its stream: %s", g_strerror (errno));
  return fd;
}

static void
fuzz_jobs (GBytes *bytes)
{
  int fd = stream_of (bytes);
  guint64 kind;
  gint64 argument;
  GBytes *input;

  while (onyx_onnx_receive_job (fd, &kind, &argument, &input))
    {
      g_assert_nonnull (input);
      if (kind == ONYX_ONNX_JOB_RUN)
        fuzz_request (input);
      g_bytes_unref (input);
    }
  g_assert_null (input);
}

static void
fuzz_answer (GBytes *bytes)
{
  int fd = stream_of (bytes);
  GBytes *result;
  char *text;

  if (!onyx_onnx_receive_answer (fd, &result, &text))
    {
      g_assert_null (result);
      g_assert_null (text);
      return;
    }
  g_assert_true (text == NULL || g_utf8_validate (text, -1, NULL));
  if (result != NULL)
    fuzz_result (result);
  g_clear_pointer (&result, g_bytes_unref);
  g_free (text);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t len)
{
  static void (*const readers[]) (GBytes *) = { fuzz_request, fuzz_result, fuzz_jobs, fuzz_answer };
  GBytes *rest;

  if (len == 0)
    return 0;
  /* A copy of its own: ASan sees a read past its end. */
  rest = g_bytes_new (data + 1, len - 1);
  readers[data[0] % G_N_ELEMENTS (readers)] (rest);
  g_bytes_unref (rest);
  return 0;
}
