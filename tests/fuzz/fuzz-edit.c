/* libFuzzer target for editing: the input picks a walkthrough model and decodes into
 * a sequence of edit steps (any of onyx-steps.h, with node and tensor choices drawn
 * from the model). After applying them: undo all gives back the original bytes, redo
 * all the edited bytes, and the live index always matches one built from scratch.
 * The diagnostics follow along and at the end agree with a full pass. */
#include <string.h>

#include "onyx-diagnose.h"
#include "onyx-document.h"
#include "onyx-steps.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t len);

static GPtrArray *models;

static void
load_models (void)
{
  const char *dir = g_getenv ("ONYX_TEST_DATA");
  const char *names[] = { "model.onnx", "model_scripted.onnx", "model_foo.onnx" };

  models = g_ptr_array_new ();
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (dir != NULL ? dir : "tests/data", names[i], NULL);
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

static guint
take (Reader *reader, guint bound)
{
  guint value = reader->pos < reader->len ? reader->data[reader->pos++] : 0;
  return bound > 0 ? value % bound : 0;
}

/* A tensor name drawn from the graph: a node input or output, or a graph input. */
static const char *
pick_tensor (Onnx__GraphProto *graph, Reader *reader)
{
  guint n = (guint) graph->n_node;
  Onnx__NodeProto *node;

  if (n == 0 || take (reader, 8) == 0)
    return graph->n_input > 0 ? graph->input[take (reader, (guint) graph->n_input)]->name : "x";
  node = graph->node[take (reader, n)];
  if (node->n_input > 0 && take (reader, 2) == 0)
    return node->input[take (reader, (guint) node->n_input)];
  return node->n_output > 0 ? node->output[0] : "x";
}

static char *
step_argument (const OnyxStepInfo *step, Onnx__GraphProto *graph, Reader *reader, guint serial)
{
  g_autofree char *node = g_strdup_printf ("#%u", take (reader, MAX ((guint) graph->n_node, 1) + 1));
  const char *input = graph->n_input > 0 ? graph->input[take (reader, (guint) graph->n_input)]->name : "x";
  const char *name = step->name;

  if (step->argument == NULL)
    return NULL;
  if (g_str_equal (name, "bypass"))
    return g_strdup_printf ("%s:%u", node, take (reader, 3));
  if (g_str_equal (name, "bypass-op"))
    return g_strdup (take (reader, 2) ? "devtech::FooOp" : "Relu");
  if (g_str_equal (name, "reconnect"))
    return g_strdup_printf ("%s:%u=%s", node, take (reader, 3), pick_tensor (graph, reader));
  if (g_str_equal (name, "rename"))
    return g_strdup_printf ("%s=fuzz_%u", pick_tensor (graph, reader), serial);
  if (g_str_equal (name, "add-output"))
    return g_strdup (pick_tensor (graph, reader));
  if (g_str_equal (name, "remove-output"))
    return g_strdup (graph->n_output > 0 ? graph->output[take (reader, (guint) graph->n_output)]->name : "y");
  if (g_str_equal (name, "remove-input"))
    return g_strdup (input);
  if (g_str_equal (name, "set-attr"))
    {
      static const char *const values[] = { "3", "0.5", "text", "[1, 2]", "[0.5]", "[\"a\", \"b\"]", "[", "" };
      static const char *const attrs[] = { "strides", "group", "fuzz", "pads" };
      return g_strdup_printf ("%s.%s=%s", node, attrs[take (reader, 4)], values[take (reader, 8)]);
    }
  if (g_str_equal (name, "set-name"))
    return g_strdup_printf ("%s=n%u", node, serial);
  if (g_str_equal (name, "set-dim"))
    return g_strdup_printf ("%s:%u=%s", input, take (reader, 5), take (reader, 2) ? "N" : "7");
  return g_strdup (node);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t len)
{
  Reader reader = { data, len, 0 };
  const OnyxStepInfo *steps = onyx_steps_list ();
  guint n_steps = 0;
  GBytes *original, *edited, *again;
  OnyxModel *model;
  OnyxDocument *doc;
  OnyxDiagnostics *diagnostics;
  GPtrArray *full;

  if (models == NULL)
    load_models ();
  while (steps[n_steps].name != NULL)
    n_steps++;
  original = models->pdata[take (&reader, models->len)];
  model = onyx_model_new_from_data (g_bytes_get_data (original, NULL), g_bytes_get_size (original),
                                    "fuzz.onnx", NULL, NULL);
  doc = onyx_document_new (model);
  diagnostics = onyx_diagnostics_new (doc);

  for (guint serial = 0; serial < 24 && reader.pos < reader.len; serial++)
    {
      const OnyxStepInfo *step = &steps[take (&reader, n_steps)];
      char *argument = step_argument (step, onyx_document_get_proto (doc)->graph, &reader, serial);
      GError *error = NULL;

      /* The diagnostics follow each applied step by themselves. */
      if (!onyx_step_apply (doc, step->name, argument, &error))
        g_error_free (error);
      g_free (argument);
    }
  full = onyx_diagnose_model (onyx_document_get_proto (doc));
  g_assert (onyx_diagnostics_get_problems (diagnostics)->len == full->len);
  /* Messages of unnamed nodes name the position they had when checked: compare
   * what the finding is about instead. */
  for (guint i = 0; i < full->len; i++)
    {
      const OnyxProblem *a = full->pdata[i];
      const OnyxProblem *b = onyx_diagnostics_get_problems (diagnostics)->pdata[i];
      g_assert (a->kind == b->kind && a->severity == b->severity && a->node_proto == b->node_proto &&
                a->node_index == b->node_index && g_strcmp0 (a->tensor, b->tensor) == 0 &&
                g_strcmp0 (a->graph, b->graph) == 0);
    }
  g_ptr_array_unref (full);
  onyx_diagnostics_free (diagnostics);

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
