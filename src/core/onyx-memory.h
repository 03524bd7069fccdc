/* onyx-memory.h: how Onyx's processes use the C allocator. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Every Onyx process (app, CLI, libonnx's worker) calls this first. Inference after
 * each edit frees and remakes tens of megabytes; glibc's malloc would hand them back
 * to the kernel and fault them in again on the next run, which on a virtual machine
 * costs more than the work itself (transformer_96: some 3,000 faults of ~10 µs).
 * Freed memory is kept for reuse instead, up to a bound. */
void onyx_memory_keep_freed (void);

G_END_DECLS
