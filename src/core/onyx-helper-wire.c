/* onyx-helper-wire.c: moving bytes through the helper's socket (onyx-onnx-private.h),
 * apart from the client's GSubprocess and the helper's libonnx: each side links only
 * this of the other's file (the helper starts without loading GIO). Whatever the other
 * side sends is checked here: a length that lies costs the bytes sent, not the bytes
 * claimed (tests/fuzz/fuzz-wire.c feeds these readers a file). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include "onyx-onnx-private.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* Parts from this size (a job's input, its result) cross in a memory file passed
 * with their length: the other side has all of it at once, where through the socket
 * it waited on each fill of the socket's buffer (a 1.7 MB model in eight, each a
 * wake-up of both sides: 10-25 ms on a loaded machine). Smaller ones take the
 * socket, as do all when no memory file can be made. */
#define MEMORY_FILE_MIN (128 << 10)

/* Moves all len bytes through fd, either way: FALSE when the other end is gone.
 * read() is recv() on the socket, and it reads a file too: the fuzzer of what crosses
 * feeds one. */
static gboolean
transfer_all (int fd, void *data, gsize len, gboolean sending)
{
  guint8 *p = data;
  while (len > 0)
    {
      ssize_t n = sending ? send (fd, p, len, MSG_NOSIGNAL) : read (fd, p, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      p += n, len -= (gsize) n;
    }
  return TRUE;
}

gboolean
onyx_helper_send_all (int fd, const void *data, gsize len)
{
  return transfer_all (fd, (void *) data, len, TRUE);
}

gboolean
onyx_helper_receive_all (int fd, void *data, gsize len)
{
  return transfer_all (fd, data, len, FALSE);
}

/* A copy of the bytes in a memory file, or -1 (then the socket serves). */
static int
memory_file_with (const guint8 *data, gsize len)
{
  int file = memfd_create ("onyx-helper-part", MFD_CLOEXEC);

  if (file < 0)
    return -1;
  while (len > 0)
    {
      ssize_t n = write (file, data, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          close (file);
          return -1;
        }
      data += n, len -= (gsize) n;
    }
  return file;
}

gboolean
onyx_helper_send_header (int fd, guint64 len, guint64 in_file, int file)
{
  OnyxHelperPartHeader header = { len, in_file };
  union {
    char buffer[CMSG_SPACE (sizeof (int))];
    struct cmsghdr align;
  } control;
  struct iovec part = { (void *) &header, sizeof header };
  struct msghdr message = { 0 };
  struct cmsghdr *rights;
  ssize_t n;

  if (file < 0)
    return onyx_helper_send_all (fd, &header, sizeof header);
  memset (&control, 0, sizeof control);
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  message.msg_control = control.buffer;
  message.msg_controllen = sizeof control.buffer;
  rights = CMSG_FIRSTHDR (&message);
  rights->cmsg_level = SOL_SOCKET;
  rights->cmsg_type = SCM_RIGHTS;
  rights->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (rights), &file, sizeof (int));
  while ((n = sendmsg (fd, &message, MSG_NOSIGNAL)) < 0 && errno == EINTR)
    ;
  if (n <= 0)
    return FALSE;
  /* The file went with the first byte; the rest of the header, if any, follows. */
  return onyx_helper_send_all (fd, (const guint8 *) &header + n, sizeof header - (gsize) n);
}

/* The header, and the file that came with it (or -1). Where fd is no socket (the
 * fuzzer's file) the header is read as bytes, and no file comes. */
static gboolean
receive_with_file (int fd, OnyxHelperPartHeader *header, int *file)
{
  union {
    char buffer[CMSG_SPACE (sizeof (int))];
    struct cmsghdr align;
  } control;
  struct iovec part = { header, sizeof *header };
  struct msghdr message = { 0 };
  ssize_t n;

  *file = -1;
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  message.msg_control = control.buffer;
  message.msg_controllen = sizeof control.buffer;
  while ((n = recvmsg (fd, &message, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
    ;
  if (n < 0 && errno == ENOTSOCK)
    return onyx_helper_receive_all (fd, header, sizeof *header);
  if (n <= 0)
    return FALSE;
  for (struct cmsghdr *rights = CMSG_FIRSTHDR (&message); rights != NULL; rights = CMSG_NXTHDR (&message, rights))
    if (rights->cmsg_level == SOL_SOCKET && rights->cmsg_type == SCM_RIGHTS && *file < 0)
      memcpy (file, CMSG_DATA (rights), sizeof (int));
  return onyx_helper_receive_all (fd, (guint8 *) header + n, sizeof *header - (gsize) n);
}

gboolean
onyx_helper_send_part (int fd, const void *data, guint64 len)
{
  int file = len != G_MAXUINT64 && len >= MEMORY_FILE_MIN ? memory_file_with (data, len) : -1;
  gboolean sent;

  if (file < 0)
    return onyx_helper_send_header (fd, len, FALSE, -1) && (len == G_MAXUINT64 || onyx_helper_send_all (fd, data, len));
  sent = onyx_helper_send_header (fd, len, TRUE, file);
  close (file);
  return sent;
}

/* What is allocated for a stated length at first: the buffer then grows with what
 * arrives, so that a length that lies costs the bytes sent, not the bytes claimed. */
#define RECEIVE_FIRST_ALLOCATION (1 << 16)

/* The len bytes that come next on fd; NULL when fd ends first or memory runs out. */
static GBytes *
receive_bytes (int fd, guint64 len)
{
  gsize capacity = (gsize) MIN (len, RECEIVE_FIRST_ALLOCATION), got = 0;
  guint8 *data;

  if (len > G_MAXSIZE / 2 || (data = g_try_malloc (MAX (capacity, 1))) == NULL)
    return NULL;
  while (got < len)
    {
      if (got == capacity)
        {
          guint8 *grown;

          capacity = (gsize) MIN (len, (guint64) capacity * 2);
          if ((grown = g_try_realloc (data, capacity)) == NULL)
            break;
          data = grown;
        }
      if (!onyx_helper_receive_all (fd, data + got, capacity - got))
        break;
      got = capacity;
    }
  if (got < len)
    {
      g_free (data);
      return NULL;
    }
  return g_bytes_new_take (data, (gsize) len);
}

/* The len bytes of a memory file, mapped; NULL when the file is not that long (its
 * size, not the length claimed, is what is mapped). */
static GBytes *
map_memory_file (int file, guint64 len)
{
  g_autoptr (GMappedFile) mapped = NULL;
  struct stat status;

  if (fstat (file, &status) != 0 || !S_ISREG (status.st_mode) || (guint64) status.st_size != len)
    return NULL;
  if ((mapped = g_mapped_file_new_from_fd (file, FALSE, NULL)) == NULL ||
      g_mapped_file_get_length (mapped) != len)
    return NULL;
  return g_mapped_file_get_bytes (mapped);
}

gboolean
onyx_helper_receive_part (int fd, GBytes **part)
{
  OnyxHelperPartHeader header;
  gboolean whole;
  int file;

  *part = NULL;
  if (!receive_with_file (fd, &header, &file))
    return FALSE;
  if (header.in_file == TRUE)
    /* (No file came where fd is no socket: no part either.) */
    whole = file >= 0 && (*part = map_memory_file (file, header.len)) != NULL;
  else if (header.in_file == FALSE)
    whole = header.len == G_MAXUINT64 || (*part = receive_bytes (fd, header.len)) != NULL;
  else
    whole = FALSE;
  /* (A file that came with a part on the socket is not read.) */
  if (file >= 0)
    close (file);
  return whole;
}

gboolean
onyx_onnx_receive_job (int fd, guint64 *kind, gint64 *argument, GBytes **input)
{
  OnyxHelperRequest request;

  *input = NULL;
  if (!onyx_helper_receive_all (fd, &request, sizeof request) || !onyx_helper_receive_part (fd, input))
    return FALSE;
  *kind = request.kind;
  *argument = request.argument;
  /* A job without an input is none. */
  return *input != NULL;
}

gboolean
onyx_onnx_receive_answer (int fd, GBytes **result, char **text)
{
  g_autoptr (GBytes) message = NULL;
  g_autofree char *until_nul = NULL;

  *text = NULL;
  if (!onyx_helper_receive_part (fd, result) || !onyx_helper_receive_part (fd, &message))
    {
      g_clear_pointer (result, g_bytes_unref);
      return FALSE;
    }
  if (message == NULL)
    return TRUE;
  /* The text ends up in messages and labels: valid UTF-8, whatever came. */
  until_nul = g_strndup (g_bytes_get_data (message, NULL), g_bytes_get_size (message));
  *text = g_utf8_make_valid (until_nul, -1);
  return TRUE;
}
