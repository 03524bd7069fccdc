/* onyx-analysis.c: shapes, validation and quantization of a document's revision
 * (onyx-analysis.h). */
#include "onyx-analysis.h"

#include "onyx-problem-list.h"
#include "onyx-quant.h"
#include "onyx-shapes.h"
#include "onyx-summary.h"
#include "onyx-validate.h"

struct _OnyxAnalysis {
  guint64 revision;
  OnyxShapes *shapes;
  GPtrArray *validation;
  OnyxQuant *quant;
  OnyxSummary *summary;
};

OnyxAnalysis *
onyx_analysis_run (OnyxDocument *document)
{
  OnyxAnalysis *analysis = g_new0 (OnyxAnalysis, 1);
  Onnx__ModelProto *proto = onyx_document_get_proto (document);

  g_return_val_if_fail (onyx_document_is_frozen (document), analysis);
  analysis->revision = onyx_document_get_revision (document);
  /* 10 ms and more each on big graphs: why they are made off the UI thread. */
  analysis->shapes = onyx_shapes_infer (proto, FALSE);
  analysis->validation = onyx_validate_model (proto);
  /* Tens of ms on an int4 LLM, reading its scales. */
  analysis->quant = onyx_quant_new_if_any (proto, onyx_model_get_base_dir (onyx_document_get_model (document)));
  /* The model panel's counts: a walk of every message, again tens of ms. */
  analysis->summary = onyx_summary_new (proto);
  if (analysis->quant != NULL)
    onyx_quant_get_summary_from (analysis->quant, analysis->summary);
  return analysis;
}

gboolean
onyx_analysis_offer (OnyxAnalysis *analysis, OnyxDocument *document)
{
  if (!onyx_document_offer_shapes (document, analysis->shapes, analysis->revision) ||
      !onyx_quant_offer (document, g_steal_pointer (&analysis->quant), analysis->revision) ||
      !onyx_document_keep_derived (document, "summary", analysis->revision, g_steal_pointer (&analysis->summary),
                                   (GDestroyNotify) onyx_summary_free))
    return FALSE;
  return onyx_document_offer_validation (document, g_steal_pointer (&analysis->validation), analysis->revision);
}

guint64
onyx_analysis_get_revision (OnyxAnalysis *analysis)
{
  return analysis->revision;
}

void
onyx_analysis_free (OnyxAnalysis *analysis)
{
  if (analysis == NULL)
    return;
  g_clear_pointer (&analysis->shapes, onyx_shapes_unref);
  g_clear_pointer (&analysis->validation, g_ptr_array_unref);
  g_clear_pointer (&analysis->quant, onyx_quant_free);
  g_clear_pointer (&analysis->summary, onyx_summary_free);
  g_free (analysis);
}

const OnyxSummary *
onyx_analysis_summary_of (OnyxDocument *document)
{
  OnyxSummary *summary = onyx_document_get_derived (document, "summary");

  if (summary == NULL)
    {
      summary = onyx_summary_new (onyx_document_get_proto (document));
      onyx_document_keep_derived (document, "summary", onyx_document_get_revision (document), summary,
                                  (GDestroyNotify) onyx_summary_free);
    }
  return summary;
}

static gpointer
list_problems (gpointer document)
{
  OnyxProblemList *problems = onyx_problem_list_new (document);
  OnyxQuant *quant = onyx_quant_peek_document (document);
  /* What the model's page shows first, made here rather than on the UI thread. */
  const OnyxSummary *summary = onyx_analysis_summary_of (document);

  if (quant != NULL)
    onyx_quant_get_summary_from (quant, summary);
  return problems;
}

OnyxDocument *
onyx_document_open_for_view (const char *path, OnyxProblemList **problems, OnyxLayoutEngine **engine,
                             GError **error)
{
  OnyxDocument *document = onyx_document_open_with_shapes (path, error);
  GThread *checking;

  if (document == NULL)
    return NULL;
  checking = g_thread_try_new ("onyx-problems", list_problems, document, NULL);
  *engine = onyx_layout_engine_new (onyx_document_get_proto (document)->graph);
  *problems = checking != NULL ? g_thread_join (checking) : onyx_problem_list_new (document);
  return document;
}
