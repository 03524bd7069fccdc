/* onyx-helper-wire.c: moving bytes through the helper's socket (onyx-helper-private.h),
 * apart from the client's GSubprocess and the helper's libonnx: each side links only
 * this of the other's file (the helper starts without loading GIO). */
#include "onyx-helper-private.h"

#include <errno.h>
#include <sys/socket.h>

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
