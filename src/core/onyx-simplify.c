/* Simplify: the passes run over every graph until none changes anything, Clean Up,
 * then the proof in ONNX Runtime, refusing the passes that change the outputs. */
#include <string.h>

#include "onyx-simplify-private.h"

#include <glib/gi18n-lib.h>

#include "onyx-domain.h"
#include "onyx-text.h"
#include "onyx-types.h"

/* Folding makes new constants, which make new no-ops and duplicates, and inference
 * knows more dims once a Reshape's target is constant: each round takes a step
 * further. Each costs an inference and an evaluation; past the third, TorchScript's
 * chains give a few nodes a round (transformer_24: 1,818 nodes after 3, 1,814 after
 * 4, 1,776 after 8). */
#define MAX_ROUNDS 4
#define MAX_SUBGRAPH_DEPTH 64

static const OnyxSimplifyPass *const passes[] = {
  &onyx_simplify_constants_pass,
  &onyx_simplify_branches_pass,
  &onyx_simplify_shapes_pass,
  &onyx_simplify_fold_pass,
  &onyx_simplify_noops_pass,
  &onyx_simplify_duplicates_pass,
  &onyx_simplify_fusions_pass,
};

/* A pass the tests add after the others (one that changes the outputs). */
static const OnyxSimplifyPass *test_pass;

void
onyx_simplify_set_test_pass (const OnyxSimplifyPass *pass)
{
  test_pass = pass;
}

/* The passes in run order: the table's, then the test's. */
static const OnyxSimplifyPass *
pass_at (guint i)
{
  return i < G_N_ELEMENTS (passes) ? passes[i] : i == G_N_ELEMENTS (passes) ? test_pass : NULL;
}

static guint
n_all_passes (void)
{
  return G_N_ELEMENTS (passes) + (test_pass != NULL);
}

guint
onyx_simplify_n_passes (void)
{
  return G_N_ELEMENTS (passes);
}

const char *
onyx_simplify_pass_name (guint i)
{
  return i < G_N_ELEMENTS (passes) ? passes[i]->name : NULL;
}

const char *
onyx_simplify_pass_title (guint i)
{
  return i < G_N_ELEMENTS (passes) ? _(passes[i]->title) : NULL;
}

OnyxSimplifyPasses
onyx_simplify_pass_flag (guint i)
{
  return i < G_N_ELEMENTS (passes) ? passes[i]->flag : 0;
}

gboolean
onyx_simplify_parse_passes (const char *text, OnyxSimplifyPasses *result, GError **error)
{
  g_auto (GStrv) names = g_strsplit (text, ",", -1);
  OnyxSimplifyPasses flags = 0;

  for (guint n = 0; names[n] != NULL; n++)
    {
      const char *name = g_strstrip (names[n]);
      gboolean found = strcmp (name, "all") == 0 || strcmp (name, "none") == 0;
      /* "none" adds no pass: Clean Up alone, as onyx_simplify_passes_text (0) says. */
      if (strcmp (name, "all") == 0)
        flags |= ONYX_SIMPLIFY_ALL;
      for (guint i = 0; i < G_N_ELEMENTS (passes) && !found; i++)
        if (strcmp (name, passes[i]->name) == 0)
          {
            flags |= passes[i]->flag;
            found = TRUE;
          }
      if (!found)
        {
          g_autoptr (GString) known = g_string_new ("all");
          for (guint i = 0; i < G_N_ELEMENTS (passes); i++)
            g_string_append_printf (known, ", %s", passes[i]->name);
          g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID,
                       _("no Simplify pass is named '%s' (there are %s)"), name, known->str);
          return FALSE;
        }
    }
  *result = flags;
  return TRUE;
}

char *
onyx_simplify_passes_text (OnyxSimplifyPasses flags)
{
  g_autoptr (GString) text = g_string_new (NULL);

  if ((flags & ONYX_SIMPLIFY_ALL) == ONYX_SIMPLIFY_ALL)
    return g_strdup ("all");
  if ((flags & ONYX_SIMPLIFY_ALL) == 0)
    return g_strdup ("none");
  for (guint i = 0; i < G_N_ELEMENTS (passes); i++)
    if (flags & passes[i]->flag)
      g_string_append_printf (text, "%s%s", text->len > 0 ? "," : "", passes[i]->name);
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* ---- The model's graphs and what they hold ---- */

static void
collect_graphs (Onnx__GraphProto *graph, GPtrArray *graphs, guint depth)
{
  if (depth > MAX_SUBGRAPH_DEPTH)
    return;
  g_ptr_array_add (graphs, graph);
  for (size_t n = 0; n < graph->n_node; n++)
    for (size_t a = 0; a < graph->node[n]->n_attribute; a++)
      {
        Onnx__AttributeProto *attr = graph->node[n]->attribute[a];
        if (attr->g != NULL)
          collect_graphs (attr->g, graphs, depth + 1);
        for (size_t g = 0; g < attr->n_graphs; g++)
          collect_graphs (attr->graphs[g], graphs, depth + 1);
      }
}

/* The main graph, then every subgraph (depth first): the graphs passes run on. */
static GPtrArray *
model_graphs (OnyxDocument *doc)
{
  GPtrArray *graphs = g_ptr_array_new ();

  collect_graphs (onyx_document_get_proto (doc)->graph, graphs, 0);
  return graphs;
}

/* Nodes and initializers of every graph, as sets of pointers. */
typedef struct {
  GHashTable *nodes;
  GHashTable *initializers;
} Inventory;

static void
inventory_take (OnyxDocument *doc, Inventory *inventory)
{
  g_autoptr (GPtrArray) graphs = model_graphs (doc);

  inventory->nodes = g_hash_table_new (NULL, NULL);
  inventory->initializers = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < graphs->len; i++)
    {
      Onnx__GraphProto *graph = graphs->pdata[i];
      for (size_t n = 0; n < graph->n_node; n++)
        g_hash_table_add (inventory->nodes, graph->node[n]);
      for (size_t n = 0; n < graph->n_initializer; n++)
        g_hash_table_add (inventory->initializers, graph->initializer[n]);
    }
}

static void
inventory_clear (Inventory *inventory)
{
  g_clear_pointer (&inventory->nodes, g_hash_table_unref);
  g_clear_pointer (&inventory->initializers, g_hash_table_unref);
}

static guint
count_missing (GHashTable *from, GHashTable *in)
{
  GHashTableIter iter;
  gpointer key;
  guint n = 0;

  g_hash_table_iter_init (&iter, from);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    n += !g_hash_table_contains (in, key);
  return n;
}

/* What changed between two inventories, added to a pass's counts. */
static void
count_changes (OnyxSimplifyPassReport *report, Inventory *before, Inventory *after)
{
  report->n_nodes_removed += count_missing (before->nodes, after->nodes);
  report->n_nodes_added += count_missing (after->nodes, before->nodes);
  report->n_initializers_removed += count_missing (before->initializers, after->initializers);
  report->n_initializers_added += count_missing (after->initializers, before->initializers);
}

static char *
op_key (const Onnx__NodeProto *node)
{
  return onyx_domain_is_default (node->domain) ? g_strdup (node->op_type)
                                                : g_strdup_printf ("%s::%s", node->domain, node->op_type);
}

/* Nodes by operator ("Conv", "com.microsoft::Gelu"), and the totals. */
static GHashTable *
count_ops (OnyxDocument *doc, guint *n_nodes, guint *n_initializers)
{
  GHashTable *counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GPtrArray) graphs = model_graphs (doc);

  *n_nodes = 0;
  *n_initializers = 0;
  for (guint i = 0; i < graphs->len; i++)
    {
      Onnx__GraphProto *graph = graphs->pdata[i];
      *n_nodes += graph->n_node;
      *n_initializers += graph->n_initializer;
      for (size_t n = 0; n < graph->n_node; n++)
        {
          char *key = op_key (graph->node[n]);
          guint count = GPOINTER_TO_UINT (g_hash_table_lookup (counts, key));
          g_hash_table_replace (counts, key, GUINT_TO_POINTER (count + 1));
        }
    }
  return counts;
}

static gint
compare_op_counts (gconstpointer a, gconstpointer b)
{
  const OnyxSimplifyOpCount *x = a, *y = b;

  if (x->before != y->before)
    return x->before > y->before ? -1 : 1;
  if (x->after != y->after)
    return x->after > y->after ? -1 : 1;
  return g_strcmp0 (x->op, y->op);
}

static void
fill_op_counts (OnyxSimplifyReport *report, GHashTable *before, GHashTable *after)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, before);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      OnyxSimplifyOpCount count = { g_strdup (key), GPOINTER_TO_UINT (value),
                                    GPOINTER_TO_UINT (g_hash_table_lookup (after, key)) };
      g_array_append_val (report->op_counts, count);
    }
  g_hash_table_iter_init (&iter, after);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (!g_hash_table_contains (before, key))
      {
        OnyxSimplifyOpCount count = { g_strdup (key), 0, GPOINTER_TO_UINT (value) };
        g_array_append_val (report->op_counts, count);
      }
  g_array_sort (report->op_counts, compare_op_counts);
}

/* ---- The report ---- */

static void
clear_op_count (gpointer data)
{
  g_free (((OnyxSimplifyOpCount *) data)->op);
}

static void
clear_pass_report (gpointer data)
{
  g_free (((OnyxSimplifyPassReport *) data)->refused);
}

static OnyxSimplifyReport *
report_new (void)
{
  OnyxSimplifyReport *report = g_new0 (OnyxSimplifyReport, 1);

  report->passes = g_array_new (FALSE, TRUE, sizeof (OnyxSimplifyPassReport));
  g_array_set_clear_func (report->passes, clear_pass_report);
  report->op_counts = g_array_new (FALSE, TRUE, sizeof (OnyxSimplifyOpCount));
  g_array_set_clear_func (report->op_counts, clear_op_count);
  report->notes = g_ptr_array_new_with_free_func (g_free);
  return report;
}

void
onyx_simplify_report_free (OnyxSimplifyReport *report)
{
  if (report == NULL)
    return;
  g_array_unref (report->passes);
  g_array_unref (report->op_counts);
  g_ptr_array_unref (report->notes);
  g_free (report->proof_note);
  g_free (report);
}

/* The entries of the passes asked for, then Clean Up's. */
static void
report_reset_passes (OnyxSimplifyReport *report, OnyxSimplifyPasses wanted)
{
  g_array_set_size (report->passes, 0);
  for (guint i = 0; i < n_all_passes (); i++)
    if (wanted & pass_at (i)->flag)
      {
        OnyxSimplifyPassReport entry = { .name = pass_at (i)->name, .title = _(pass_at (i)->title) };
        g_array_append_val (report->passes, entry);
      }
  {
    OnyxSimplifyPassReport cleanup = { .name = "cleanup", .title = _("Clean Up") };
    g_array_append_val (report->passes, cleanup);
  }
}

static OnyxSimplifyPassReport *
report_pass (OnyxSimplifyReport *report, const char *name)
{
  for (guint i = 0; i < report->passes->len; i++)
    if (strcmp (g_array_index (report->passes, OnyxSimplifyPassReport, i).name, name) == 0)
      return &g_array_index (report->passes, OnyxSimplifyPassReport, i);
  return NULL;
}

/* ---- Running the passes ---- */

/* One pass over every graph that is still in the model (a pass may remove the node
 * holding a subgraph). */
static gboolean
run_pass (OnyxSimplifyContext *ctx, const OnyxSimplifyPass *pass, OnyxSimplifyPassReport *entry,
          guint *n_changes, GError **error)
{
  g_autoptr (GPtrArray) graphs = model_graphs (ctx->doc);
  Inventory before = { 0 }, after = { 0 };
  gint64 start = g_get_monotonic_time ();
  gboolean ok = TRUE;

  inventory_take (ctx->doc, &before);
  for (guint i = 0; i < graphs->len && ok; i++)
    {
      Onnx__GraphProto *graph = graphs->pdata[i];
      Onnx__NodeProto *owner = onyx_document_graph_owner (ctx->doc, graph);
      guint n;
      GPtrArray *taken;
      if (i > 0 && (owner == NULL || !onyx_document_contains_node (ctx->doc, owner)))
        continue;
      taken = onyx_document_begin_subgraph_batch (ctx->doc, graph);
      n = pass->run (ctx, graph, error);
      onyx_document_end_subgraph_batch (ctx->doc, taken);
      ok = n != G_MAXUINT;
      *n_changes += ok ? n : 0;
    }
  inventory_take (ctx->doc, &after);
  count_changes (entry, &before, &after);
  inventory_clear (&before);
  inventory_clear (&after);
  entry->seconds += (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  return ok;
}

/* The passes `wanted`, round after round until none changes anything, then Clean
 * Up; their counts into `report`, which lists the passes `listed`. */
static gboolean
run_passes (OnyxSimplifyContext *ctx, OnyxSimplifyPasses listed, OnyxSimplifyPasses wanted,
            OnyxSimplifyReport *report, GError **error)
{
  report_reset_passes (report, listed);
  report->n_rounds = 0;
  for (guint round = 0; round < MAX_ROUNDS; round++)
    {
      guint n_changes = 0;
      report->n_rounds++;
      /* Inference once a round: a pass keeps what a tensor is (a folded one keeps
       * its name and value), so what the round began with stays true of every name
       * still there; names made since are unknown to it. The next round infers anew
       * what folding made known (a Reshape's shape now a constant). */
      g_clear_pointer (&ctx->shapes, onyx_shapes_unref);
      for (guint i = 0; i < n_all_passes (); i++)
        if ((wanted & pass_at (i)->flag) &&
            !run_pass (ctx, pass_at (i), report_pass (report, pass_at (i)->name), &n_changes, error))
          {
            g_prefix_error (error, _("Simplify's pass '%s' failed: "), pass_at (i)->name);
            return FALSE;
          }
      {
        OnyxSimplifyPassReport *cleanup = report_pass (report, "cleanup");
        Inventory before = { 0 }, after = { 0 };
        gint64 start = g_get_monotonic_time ();
        inventory_take (ctx->doc, &before);
        onyx_edit_cleanup (ctx->doc, NULL);
        inventory_take (ctx->doc, &after);
        count_changes (cleanup, &before, &after);
        inventory_clear (&before);
        inventory_clear (&after);
        cleanup->seconds += (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
      }
      if (n_changes == 0)
        break;
    }
  return TRUE;
}

/* ---- The proof ---- */

static const char *
random_op_in (OnyxDocument *doc)
{
  g_autoptr (GPtrArray) graphs = model_graphs (doc);

  for (guint i = 0; i < graphs->len; i++)
    {
      Onnx__GraphProto *graph = graphs->pdata[i];
      for (size_t n = 0; n < graph->n_node; n++)
        if (onyx_simplify_draws_random (graph->node[n]))
          return graph->node[n]->op_type;
    }
  return NULL;
}

static guint64
weight_bytes (Onnx__ModelProto *model)
{
  guint64 total = 0;

  for (size_t i = 0; i < model->graph->n_initializer; i++)
    {
      guint64 n;
      if (onyx_tensor_n_bytes (model->graph->initializer[i], &n))
        total += n;
    }
  return total;
}

/* Why the proof is not run on this model, or NULL when it can be. */
static char *
proof_obstacle (OnyxDocument *doc, const OnyxSimplifyOptions *options)
{
  const char *reason, *random_op;
  guint64 budget = options->proof_budget != 0 ? options->proof_budget : ONYX_SIMPLIFY_DEFAULT_PROOF_BUDGET;
  guint64 weights;

  if (!options->prove)
    return g_strdup (_("The outputs were not compared (not asked for)."));
  if (!onyx_run_available (&reason))
    return g_strdup_printf (_("The outputs were not compared: this build cannot run models (%s)."), reason);
  if ((random_op = random_op_in (doc)) != NULL)
    return g_strdup_printf (_("The outputs were not compared: the model draws random numbers (%s)."), random_op);
  weights = weight_bytes (onyx_document_get_proto (doc));
  if (weights > budget)
    {
      g_autofree char *size = g_format_size_full (weights, G_FORMAT_SIZE_IEC_UNITS);
      g_autofree char *limit = g_format_size_full (budget, G_FORMAT_SIZE_IEC_UNITS);
      return g_strdup_printf (_("The outputs were not compared: the model's %s of weights are over the "
                                "proof's budget of %s."), size, limit);
    }
  return NULL;
}

/* ---- Simplify ---- */

static gboolean
replay_simplify (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  OnyxSimplifyOptions options = { 0 };

  return onyx_simplify_parse_passes (arguments[0], &options.passes, error) &&
         onyx_edit_simplify (doc, &options, NULL, error);
}

static const OnyxReplayStep simplify_step = { "simplify", 1, replay_simplify };

const OnyxReplayStep *const onyx_simplify_replay_steps[] = { &simplify_step, NULL };

static double
seconds_since (gint64 start)
{
  return (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
}

/* Runs `run` from the state at `mark` (what was done since is undone), recording
 * afresh. */
static gboolean
apply_from (OnyxSimplifyContext *ctx, OnyxGroupMark mark, OnyxSimplifyPasses listed, OnyxSimplifyPasses run,
            OnyxSimplifyReport *report, GError **error)
{
  onyx_document_group_rewind (ctx->doc, mark);
  g_clear_pointer (&ctx->names, g_hash_table_unref);
  if (ctx->tape != NULL && !ctx->replaying)
    onyx_simplify_tape_clear (ctx->tape);
  return run_passes (ctx, listed, run, report, error);
}

/* Proves the state reached against the model before, into the report. */
static OnyxProofOutcome
prove_state (OnyxSimplifyContext *ctx, OnyxSimplifyProof *proof, OnyxSimplifyReport *report)
{
  g_autoptr (OnyxModel) after = onyx_model_snapshot (ctx->model);
  gint64 start = g_get_monotonic_time ();
  OnyxProofOutcome outcome;

  g_clear_pointer (&report->proof_note, g_free);
  outcome = onyx_simplify_proof_check (proof, after, &report->proof_note);
  report->proof_seconds += seconds_since (start);
  return outcome;
}

static gboolean
changed_since (OnyxDocument *doc, OnyxGroupMark mark)
{
  return onyx_document_group_mark (doc).n_ops != mark.n_ops;
}

/* The outputs differ: each pass alone on top of those that stood, in order, kept
 * when its outputs are equal, refused otherwise. The state after is the last one
 * that stood. */
static gboolean
refuse_differing (OnyxSimplifyContext *ctx, OnyxGroupMark start, OnyxSimplifyProof *proof,
                  const OnyxSimplifyOptions *options, OnyxSimplifyReport *report,
                  OnyxSimplifyPasses *accepted, GError **error)
{
  g_autoptr (GHashTable) refusals = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  gboolean standing = TRUE;
  g_autofree char *last_note = NULL;

  *accepted = 0;
  for (guint i = 0; i < n_all_passes (); i++)
    {
      OnyxSimplifyPasses trial = *accepted | pass_at (i)->flag;
      if (!(options->passes & pass_at (i)->flag))
        continue;
      if (!apply_from (ctx, start, options->passes, trial, report, error))
        return FALSE;
      if (!changed_since (ctx->doc, start) || prove_state (ctx, proof, report) != ONYX_PROOF_DIFFERS)
        {
          *accepted = trial;
          standing = TRUE;
          g_free (last_note);
          last_note = g_strdup (report->proof_note);
        }
      else
        {
          g_hash_table_insert (refusals, (gpointer) pass_at (i)->name, g_steal_pointer (&report->proof_note));
          standing = FALSE;
        }
    }
  if (!standing && !apply_from (ctx, start, options->passes, *accepted, report, error))
    return FALSE;
  g_free (report->proof_note);
  report->proof_note = g_steal_pointer (&last_note);
  for (guint i = 0; i < report->passes->len; i++)
    {
      OnyxSimplifyPassReport *entry = &g_array_index (report->passes, OnyxSimplifyPassReport, i);
      char *why = g_hash_table_lookup (refusals, entry->name);
      if (why != NULL)
        entry->refused = g_strdup (why);
    }
  return TRUE;
}

gboolean
onyx_edit_simplify (OnyxDocument *doc, const OnyxSimplifyOptions *options, OnyxSimplifyReport **report_out,
                    GError **error)
{
  g_autoptr (OnyxSimplifyReport) report = report_new ();
  g_autoptr (GHashTable) ops_before = NULL, ops_after = NULL;
  OnyxSimplifyProof *proof = NULL;
  g_autofree char *obstacle = NULL, *passes_text = NULL;
  OnyxSimplifyContext ctx = { 0 };
  OnyxSimplifyPasses accepted = options->passes;
  OnyxGroupMark start;
  gint64 started = g_get_monotonic_time ();
  gboolean ok;

  if (onyx_document_is_frozen (doc))
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_INVALID, _("the model is being read: try again once it is done"));
  ctx.doc = doc;
  ctx.model = onyx_document_get_model (doc);
  ctx.base_dir = onyx_model_get_base_dir (ctx.model);
  ctx.notes = report->notes;
  ctx.noted = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  ctx.tape = options->tape;
  ctx.replaying = options->tape != NULL && options->replay;
  if (ctx.tape != NULL)
    onyx_simplify_tape_rewind (ctx.tape);

  ops_before = count_ops (doc, &report->n_nodes_before, &report->n_initializers_before);
  if (!ctx.replaying && (obstacle = proof_obstacle (doc, options)) == NULL)
    {
      /* The model before runs while the passes work. */
      g_autoptr (OnyxModel) before = onyx_model_snapshot (ctx.model);
      proof = onyx_simplify_proof_start (before, options->inputs);
    }

  onyx_document_begin_group (doc, _("Simplify"));
  start = onyx_document_group_mark (doc);
  ok = run_passes (&ctx, options->passes, options->passes, report, error);
  if (ok && !changed_since (doc, start))
    report->verdict = ONYX_SIMPLIFY_UNCHANGED;
  else if (ok && proof == NULL)
    {
      report->verdict = ONYX_SIMPLIFY_NOT_PROVEN;
      report->proof_note = ctx.replaying ? NULL : g_steal_pointer (&obstacle);
    }
  else if (ok)
    {
      OnyxProofOutcome outcome = prove_state (&ctx, proof, report);
      if (outcome == ONYX_PROOF_DIFFERS && !options->force)
        {
          ok = refuse_differing (&ctx, start, proof, options, report, &accepted, error);
          report->verdict = changed_since (doc, start) ? ONYX_SIMPLIFY_PROVEN : ONYX_SIMPLIFY_UNCHANGED;
        }
      else
        report->verdict = outcome == ONYX_PROOF_EQUAL     ? ONYX_SIMPLIFY_PROVEN
                          : outcome == ONYX_PROOF_DIFFERS ? ONYX_SIMPLIFY_DIFFERS
                                                     : ONYX_SIMPLIFY_NOT_PROVEN;
    }
  /* (Waits for the run before, when nothing asked for it.) */
  g_clear_pointer (&proof, onyx_simplify_proof_free);
  if (!ok)
    {
      onyx_document_abort_group (doc);
      g_clear_pointer (&ctx.shapes, onyx_shapes_unref);
      g_clear_pointer (&ctx.names, g_hash_table_unref);
      g_hash_table_unref (ctx.noted);
      return FALSE;
    }
  /* One replay entry for the whole: the passes that stood, run again. */
  report->kept = accepted;
  onyx_document_group_drop_replay (doc, start);
  passes_text = onyx_simplify_passes_text (accepted);
  onyx_replay_note (doc, &simplify_step, passes_text, NULL);
  onyx_document_end_group (doc);

  ops_after = count_ops (doc, &report->n_nodes_after, &report->n_initializers_after);
  fill_op_counts (report, ops_before, ops_after);
  report->seconds = seconds_since (started);
  g_clear_pointer (&ctx.shapes, onyx_shapes_unref);
  g_clear_pointer (&ctx.names, g_hash_table_unref);
  g_hash_table_unref (ctx.noted);
  if (report_out != NULL)
    *report_out = g_steal_pointer (&report);
  return TRUE;
}
