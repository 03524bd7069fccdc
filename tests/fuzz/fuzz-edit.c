/* libFuzzer target for editing: the input picks a walkthrough model and decodes into
 * a sequence of edit steps (test_random_edit of onyx-test-util.h: any of onyx-steps.h,
 * with node and tensor choices drawn from the model). After applying them: undo all
 * gives back the original bytes, redo all the edited bytes, and the live index always
 * matches one built from scratch. The diagnostics follow along and at the end agree
 * with a full pass. */
#include "onyx-diagnose.h"
#include "onyx-problem-list.h"
#include "onyx-test-util.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t len);

static GPtrArray *models;

static void
load_models (void)
{
  const char *dir = g_getenv ("ONYX_TEST_DATA");

  models = g_ptr_array_new ();
  for (guint i = 0; i < G_N_ELEMENTS (test_walkthrough_models); i++)
    {
      g_autofree char *path = g_build_filename (dir != NULL ? dir : "tests/data",
                                                test_walkthrough_models[i], NULL);
      GError *error = NULL;
      OnyxModel *model = onyx_model_new_from_file (path, &error);
      if (model == NULL)
        g_error ("fuzz-edit needs the walkthrough models (ONYX_TEST_DATA): %s", error->message);
      g_ptr_array_add (models, onyx_model_serialize (model));
      g_object_unref (model);
    }
}

typedef struct {
  const guint8 *data;
  size_t len;
  size_t pos;
} Reader;

/* The next input byte below `bound` (a TestPick); 0 once the input is used up. */
static guint
take (gpointer source, guint bound)
{
  Reader *reader = source;
  guint value = reader->pos < reader->len ? reader->data[reader->pos++] : 0;
  return bound > 0 ? value % bound : 0;
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t len)
{
  Reader reader = { data, len, 0 };
  GBytes *original, *edited, *again;
  OnyxModel *model;
  OnyxDocument *doc;
  OnyxProblemList *diagnostics;
  GPtrArray *full;

  if (models == NULL)
    load_models ();
  original = models->pdata[take (&reader, models->len)];
  model = onyx_model_new_from_data (g_bytes_get_data (original, NULL), g_bytes_get_size (original),
                                    "fuzz.onnx", NULL, NULL);
  doc = onyx_document_new (model);
  diagnostics = onyx_problem_list_new (doc);

  for (guint serial = 0; serial < 24 && reader.pos < reader.len; serial++)
    {
      /* The diagnostics follow each applied step by themselves. */
      g_auto (TestEdit) edit = test_random_edit (doc, TEST_EDITS_ANY, take, &reader, serial);
      (void) edit;
    }
  full = onyx_diagnose_model (onyx_document_get_proto (doc));
  g_assert (onyx_problem_list_get (diagnostics)->len == full->len);
  /* Messages of unnamed nodes name the position they had when checked: compare
   * what the problem is about instead. */
  for (guint i = 0; i < full->len; i++)
    {
      const OnyxProblem *a = full->pdata[i];
      const OnyxProblem *b = onyx_problem_list_get (diagnostics)->pdata[i];
      g_assert (a->kind == b->kind && a->severity == b->severity && a->node_proto == b->node_proto &&
                a->node_index == b->node_index && g_strcmp0 (a->tensor, b->tensor) == 0 &&
                g_strcmp0 (a->graph, b->graph) == 0);
    }
  g_ptr_array_unref (full);
  onyx_problem_list_free (diagnostics);

  edited = onyx_document_serialize (doc);
  while (onyx_document_undo (doc))
    ;
  again = onyx_model_serialize (model);
  g_assert (g_bytes_equal (original, again));
  g_bytes_unref (again);
  while (onyx_document_redo (doc))
    ;
  again = onyx_document_serialize (doc);
  g_assert (g_bytes_equal (edited, again));
  g_bytes_unref (again);
  g_bytes_unref (edited);
  g_object_unref (doc);
  g_object_unref (model);
  return 0;
}
