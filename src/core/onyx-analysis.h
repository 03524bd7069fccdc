/* onyx-analysis.h: what is worked out of a whole model when it opens and after each
 * change of a document — its shapes (ONNX's inference, which label the edges and type every
 * tensor), its validation, its quantization (onyx_quant_peek_document) and its counts
 * (onyx_analysis_summary_of) — made off
 * the document's thread while the document is frozen, then offered back for the
 * revision it was made of. The app runs it after every edit, before the layout
 * (onyx-view-state.c); anything that edits a document and then wants them can. */
#pragma once

#include "onyx-document.h"
#include "onyx-layout.h"
#include "onyx-problem-list.h"
#include "onyx-summary.h"

G_BEGIN_DECLS

typedef struct _OnyxAnalysis OnyxAnalysis;

/* Analyses the document's model at its current revision. Any thread; the caller
 * keeps the document frozen (onyx_document_freeze) until it is done. */
OnyxAnalysis *onyx_analysis_run    (OnyxDocument *document);
/* On the document's own thread: its snapshot (onyx_document_get_shapes), its
 * validation (OnyxProblemList's) and its quantization become these, unless the document changed since it
 * was analysed: FALSE then, and nothing is kept. */
gboolean      onyx_analysis_offer  (OnyxAnalysis *analysis,
                                    OnyxDocument *document);
guint64       onyx_analysis_get_revision (OnyxAnalysis *analysis);
/* The model's counts (onyx_summary_new) at the document's revision: the analysis's,
 * or made now and kept until the next change. Borrowed. */
const OnyxSummary *onyx_analysis_summary_of (OnyxDocument *document);
void          onyx_analysis_free   (OnyxAnalysis *analysis);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OnyxAnalysis, onyx_analysis_free)

/* Opens the model at `path` with all its first view needs: the document with its
 * first shapes (onyx_document_open_with_shapes), its problems and the layout engine
 * of its main graph, the last two made side by side (each about 50 ms on a
 * 13k-node graph, both only reading the model). Any thread; NULL and *error when
 * the file cannot be read. */
OnyxDocument *onyx_document_open_for_view (const char        *path,
                                           OnyxProblemList  **problems,
                                           OnyxLayoutEngine **engine,
                                           GError           **error);

G_END_DECLS
