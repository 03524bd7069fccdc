/* onyx-memory.c: allocator settings (onyx-memory.h). */
#include "onyx-memory.h"

#include <malloc.h>

void
onyx_memory_keep_freed (void)
{
  /* Fixed thresholds also turn off glibc's own adjustment of them, which trims the
   * heap as soon as a few megabytes at its top are free. Blocks above the mmap
   * threshold (the largest tensor payloads) still go straight back. */
  mallopt (M_MMAP_THRESHOLD, 32 << 20);
  mallopt (M_TRIM_THRESHOLD, 256 << 20);
}
