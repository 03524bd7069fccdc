/* onyx-helper-wire.c: moving bytes through the helper's socket (onyx-helper-private.h),
 * apart from the client's GSubprocess and the helper's libonnx: each side links only
 * this of the other's file (the helper starts without loading GIO). */
#define _GNU_SOURCE /* memfd_create */
#include "onyx-helper-private.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

/* Inputs from this size cross in a memory file passed with the request: the helper
 * has all of it at once, where through the socket it waited on each fill of the
 * socket's buffer (a 1.7 MB model in eight, each a wake-up of both sides, up to
 * 25 ms on a loaded machine). Smaller ones take the socket. */
#define MEMORY_FILE_MIN (128 << 10)

/* Moves all len bytes through fd, either way: FALSE when the other end is gone. */
static gboolean
transfer_all (int fd, void *data, gsize len, gboolean sending)
{
  guint8 *p = data;
  while (len > 0)
    {
      ssize_t n = sending ? send (fd, p, len, MSG_NOSIGNAL) : recv (fd, p, len, 0);
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
  int file = memfd_create ("onyx-helper-input", MFD_CLOEXEC);

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

/* The request's header, and `file` with it (SCM_RIGHTS). */
static gboolean
send_with_file (int fd, const OnyxHelperRequest *request, int file)
{
  union {
    char buffer[CMSG_SPACE (sizeof (int))];
    struct cmsghdr align;
  } control;
  struct iovec part = { (void *) request, sizeof *request };
  struct msghdr message = { 0 };
  struct cmsghdr *header;
  ssize_t n;

  memset (&control, 0, sizeof control);
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  message.msg_control = control.buffer;
  message.msg_controllen = sizeof control.buffer;
  header = CMSG_FIRSTHDR (&message);
  header->cmsg_level = SOL_SOCKET;
  header->cmsg_type = SCM_RIGHTS;
  header->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (header), &file, sizeof (int));
  while ((n = sendmsg (fd, &message, MSG_NOSIGNAL)) < 0 && errno == EINTR)
    ;
  if (n <= 0)
    return FALSE;
  /* The file went with the first byte; the rest of the header, if any, follows. */
  return onyx_helper_send_all (fd, (const guint8 *) request + n, sizeof *request - (gsize) n);
}

gboolean
onyx_helper_send_request (int fd, guint64 kind, gint64 argument, GBytes *input)
{
  gsize len;
  const guint8 *data = g_bytes_get_data (input, &len);
  OnyxHelperRequest request = { kind, argument, len, FALSE };
  int file = len >= MEMORY_FILE_MIN ? memory_file_with (data, len) : -1;
  gboolean sent;

  if (file < 0)
    return onyx_helper_send_all (fd, &request, sizeof request) && onyx_helper_send_all (fd, data, len);
  request.input_in_file = TRUE;
  sent = send_with_file (fd, &request, file);
  close (file);
  return sent;
}

/* The request's header, and the file that came with it (or -1). */
static gboolean
receive_with_file (int fd, OnyxHelperRequest *request, int *file)
{
  union {
    char buffer[CMSG_SPACE (sizeof (int))];
    struct cmsghdr align;
  } control;
  struct iovec part = { request, sizeof *request };
  struct msghdr message = { 0 };
  ssize_t n;

  *file = -1;
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  message.msg_control = control.buffer;
  message.msg_controllen = sizeof control.buffer;
  while ((n = recvmsg (fd, &message, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
    ;
  if (n <= 0)
    return FALSE;
  for (struct cmsghdr *header = CMSG_FIRSTHDR (&message); header != NULL; header = CMSG_NXTHDR (&message, header))
    if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS && *file < 0)
      memcpy (file, CMSG_DATA (header), sizeof (int));
  return onyx_helper_receive_all (fd, (guint8 *) request + n, sizeof *request - (gsize) n);
}

GBytes *
onyx_helper_receive_request (int fd, OnyxHelperRequest *request)
{
  g_autoptr (GMappedFile) mapped = NULL;
  guint8 *data;
  int file;

  if (!receive_with_file (fd, request, &file))
    return NULL;
  if (request->input_in_file)
    {
      if (file >= 0)
        {
          mapped = g_mapped_file_new_from_fd (file, FALSE, NULL);
          close (file);
        }
      if (mapped == NULL || g_mapped_file_get_length (mapped) != request->input_len)
        return NULL;
      return g_mapped_file_get_bytes (mapped);
    }
  if (file >= 0)
    close (file);
  data = request->input_len <= G_MAXSIZE / 2 ? g_try_malloc (MAX (request->input_len, 1)) : NULL;
  if (data == NULL || !onyx_helper_receive_all (fd, data, request->input_len))
    {
      g_free (data);
      return NULL;
    }
  return g_bytes_new_take (data, request->input_len);
}
