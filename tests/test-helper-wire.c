/* The wire between Onyx and its helpers (onyx-onnx-private.h), over a socket pair
 * and over a file: parts on the socket and in memory files arrive whole, and what a
 * header claims that the bytes or the file do not hold is refused, without a
 * descriptor left behind. (tests/fuzz/fuzz-wire.c feeds the readers files.) */
#define _GNU_SOURCE /* memfd_create */
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "onyx-onnx-private.h"

static int
open_descriptors (void)
{
  g_autoptr (GDir) dir = g_dir_open ("/proc/self/fd", 0, NULL);
  int n = 0;

  g_assert_nonnull (dir);
  while (g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

/* A memory file of `len` bytes. */
static int
memory_file (gsize len)
{
  int file = memfd_create ("test-helper-wire", MFD_CLOEXEC);

  g_assert_cmpint (file, >=, 0);
  g_assert_cmpint (ftruncate (file, (off_t) len), ==, 0);
  return file;
}

/* The header, with `file` passed along unless it is -1. */
static void
send_header (int fd, guint64 len, guint64 in_file, int file)
{
  g_assert_true (onyx_helper_send_header (fd, len, in_file, file));
}

typedef struct {
  int fd;
  const guint8 *data;
  guint64 len;
} Sending;

static gpointer
send_in_thread (gpointer data)
{
  Sending *sending = data;
  return GINT_TO_POINTER (onyx_helper_send_part (sending->fd, sending->data, sending->len));
}

/* Parts below and from the memory-file size, and none, each way of the pair. */
static void
test_parts_arrive_whole (void)
{
  static const gsize sizes[] = { 0, 7, (128 << 10) - 1, 128 << 10, 3 << 20 };
  g_autoptr (GBytes) none = NULL;
  int ends[2];
  guint n_checked = 0;

  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      g_autofree guint8 *data = g_malloc (MAX (sizes[i], 1));
      g_autoptr (GBytes) part = NULL;
      g_autoptr (GBytes) expected = NULL;
      Sending sending = { ends[i % 2], data, sizes[i] };
      GThread *sender;

      for (gsize k = 0; k < sizes[i]; k++)
        data[k] = (guint8) (k * 13 + i);
      expected = g_bytes_new (data, sizes[i]);
      /* From a thread: a part on the socket may not fit its buffer. */
      sender = g_thread_new ("sender", send_in_thread, &sending);
      g_assert_true (onyx_helper_receive_part (ends[1 - i % 2], &part));
      g_assert_true (GPOINTER_TO_INT (g_thread_join (sender)));
      g_assert_nonnull (part);
      g_assert_true (g_bytes_equal (part, expected));
      n_checked++;
    }
  g_assert_true (onyx_helper_send_part (ends[0], NULL, G_MAXUINT64));
  g_assert_true (onyx_helper_receive_part (ends[1], &none));
  g_assert_null (none);
  n_checked++;
  close (ends[0]);
  close (ends[1]);
  g_assert_cmpuint (n_checked, ==, G_N_ELEMENTS (sizes) + 1);
}

/* A memory file is taken at its own size: a header claiming another length, or a
 * file with no header saying so, is no part; nor is a header saying "in a file"
 * with none, or what is neither. No descriptor stays open. */
static void
test_claims_refused (void)
{
  struct {
    guint64 len;
    guint64 in_file;
    gssize file_size; /* -1: no file passed */
    gboolean accepted;
  } cases[] = {
    { 200000, TRUE, 200000, TRUE },
    { 200000, TRUE, 100000, FALSE },          /* the file is shorter */
    { 200000, TRUE, 300000, FALSE },          /* longer */
    { G_MAXUINT64, TRUE, 4096, FALSE },       /* "none", in a file */
    { (guint64) 2 << 40, TRUE, 4096, FALSE }, /* 2 TiB claimed */
    { 200000, TRUE, -1, FALSE },              /* no file came */
    { 200000, 2, 200000, FALSE },             /* neither in a file nor not */
  };
  int before = open_descriptors ();
  guint n_checked = 0;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GBytes) part = NULL;
      int ends[2];
      int file = cases[i].file_size >= 0 ? memory_file ((gsize) cases[i].file_size) : -1;

      g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends), ==, 0);
      send_header (ends[0], cases[i].len, cases[i].in_file, file);
      if (file >= 0)
        close (file);
      g_assert_cmpint (onyx_helper_receive_part (ends[1], &part), ==, cases[i].accepted);
      g_assert_true ((part != NULL) == cases[i].accepted);
      if (part != NULL)
        g_assert_cmpuint (g_bytes_get_size (part), ==, cases[i].len);
      close (ends[0]);
      close (ends[1]);
      g_clear_pointer (&part, g_bytes_unref);
      g_assert_cmpint (open_descriptors (), ==, before);
      n_checked++;
    }
  g_assert_cmpuint (n_checked, ==, G_N_ELEMENTS (cases));
}

/* A file passed with a part on the socket is closed, and the part read. */
static void
test_stray_file_closed (void)
{
  int before = open_descriptors ();
  g_autoptr (GBytes) part = NULL;
  int ends[2];
  int file = memory_file (10);

  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends), ==, 0);
  send_header (ends[0], 3, FALSE, file);
  close (file);
  g_assert_true (onyx_helper_send_all (ends[0], "abc", 3));
  g_assert_true (onyx_helper_receive_part (ends[1], &part));
  g_assert_cmpmem (g_bytes_get_data (part, NULL), g_bytes_get_size (part), "abc", 3);
  close (ends[0]);
  close (ends[1]);
  g_assert_cmpint (open_descriptors (), ==, before);
}

/* A length that lies on the socket ends with the bytes that came. */
static void
test_length_lies (void)
{
  g_autoptr (GBytes) part = NULL;
  int ends[2];

  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends), ==, 0);
  send_header (ends[0], (guint64) 2 << 40, FALSE, -1);
  g_assert_true (onyx_helper_send_all (ends[0], "abc", 3));
  close (ends[0]);
  g_assert_false (onyx_helper_receive_part (ends[1], &part));
  g_assert_null (part);
  close (ends[1]);
}

/* Where fd is a file (the fuzzer's), jobs and answers are read as bytes: a part on
 * the "socket" arrives, one said to be in a memory file cannot. */
static void
test_file_stream (void)
{
  OnyxHelperRequest request = { ONYX_ONNX_JOB_ECHO, 42 };
  OnyxHelperPartHeader in_bytes = { 3, FALSE }, in_file = { 200000, TRUE };
  int stream = memory_file (0);
  g_autoptr (GBytes) input = NULL;
  guint64 kind = 0;
  gint64 argument = 0;

  g_assert_cmpint (write (stream, &request, sizeof request), ==, sizeof request);
  g_assert_cmpint (write (stream, &in_bytes, sizeof in_bytes), ==, sizeof in_bytes);
  g_assert_cmpint (write (stream, "abc", 3), ==, 3);
  g_assert_cmpint (write (stream, &request, sizeof request), ==, sizeof request);
  g_assert_cmpint (write (stream, &in_file, sizeof in_file), ==, sizeof in_file);
  g_assert_cmpint (lseek (stream, 0, SEEK_SET), ==, 0);
  g_assert_true (onyx_onnx_receive_job (stream, &kind, &argument, &input));
  g_assert_cmpuint (kind, ==, ONYX_ONNX_JOB_ECHO);
  g_assert_cmpint (argument, ==, 42);
  g_assert_cmpmem (g_bytes_get_data (input, NULL), g_bytes_get_size (input), "abc", 3);
  g_clear_pointer (&input, g_bytes_unref);
  g_assert_false (onyx_onnx_receive_job (stream, &kind, &argument, &input));
  g_assert_null (input);
  close (stream);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/helper-wire/parts", test_parts_arrive_whole);
  g_test_add_func ("/helper-wire/claims-refused", test_claims_refused);
  g_test_add_func ("/helper-wire/stray-file", test_stray_file_closed);
  g_test_add_func ("/helper-wire/length-lies", test_length_lies);
  g_test_add_func ("/helper-wire/file-stream", test_file_stream);
  return g_test_run ();
}
