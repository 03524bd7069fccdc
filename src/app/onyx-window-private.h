/* onyx-window-private.h: the window's parts, for the UI tests that drive them. */
#pragma once

#include "onyx-window.h"
#include "onyx-files.h"
#include "onyx-generate.h"

G_BEGIN_DECLS

/* The parts that are no widgets (the widgets are found by type). */
OnyxFiles    *onyx_window_get_files    (OnyxWindow *self);
OnyxGenerate *onyx_window_get_generate (OnyxWindow *self);

G_END_DECLS
