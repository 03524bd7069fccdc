/* onyx-diff-match.c: the first stage of a diff, which node and tensor of A is which
 * of B: by unique node names, then by structure outwards from the tensors known to
 * correspond, then per operator in file order. onyx-diff.c compares what matched. */
#include "onyx-diff-private.h"

#include <string.h>

#include "onyx-summary.h"

/* ---- One side's graph, indexed ---- */

static void
side_init (Side *side, const Onnx__ModelProto *model, const Onnx__GraphProto *graph)
{
  static const Onnx__GraphProto empty = ONNX__GRAPH_PROTO__INIT;

  if (graph == NULL)
    graph = &empty;
  side->model = model;
  side->graph = graph;
  side->n_nodes = (guint) graph->n_node;
  side->op_keys = g_new0 (char *, graph->n_node + 1);
  side->producer = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  side->consumers = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                           (GDestroyNotify) g_array_unref);
  side->initializers = g_hash_table_new (g_str_hash, g_str_equal);
  side->inputs = g_hash_table_new (g_str_hash, g_str_equal);
  side->outputs = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < side->n_nodes; i++)
    {
      const Onnx__NodeProto *node = graph->node[i];
      side->op_keys[i] = onyx_node_op_key (node);
      for (size_t k = 0; k < node->n_output; k++)
        if (named (node->output[k]) && !g_hash_table_contains (side->producer, node->output[k]))
          {
            Slot *slot = g_new (Slot, 1);
            *slot = (Slot) { i, (guint) k };
            g_hash_table_insert (side->producer, node->output[k], slot);
          }
      for (size_t k = 0; k < node->n_input; k++)
        {
          GArray *uses;
          Slot slot = { i, (guint) k };
          if (!named (node->input[k]))
            continue;
          uses = g_hash_table_lookup (side->consumers, node->input[k]);
          if (uses == NULL)
            {
              uses = g_array_new (FALSE, FALSE, sizeof (Slot));
              g_hash_table_insert (side->consumers, node->input[k], uses);
            }
          g_array_append_val (uses, slot);
        }
    }
  for (size_t i = 0; i < graph->n_initializer; i++)
    if (named (graph->initializer[i]->name))
      g_hash_table_insert (side->initializers, graph->initializer[i]->name, graph->initializer[i]);
  for (size_t i = 0; i < graph->n_input; i++)
    if (named (graph->input[i]->name))
      g_hash_table_insert (side->inputs, graph->input[i]->name, GSIZE_TO_POINTER (i + 1));
  for (size_t i = 0; i < graph->n_output; i++)
    if (named (graph->output[i]->name))
      g_hash_table_insert (side->outputs, graph->output[i]->name, GSIZE_TO_POINTER (i + 1));
}

static void
side_clear (Side *side)
{
  g_strfreev (side->op_keys);
  g_hash_table_unref (side->producer);
  g_hash_table_unref (side->consumers);
  g_hash_table_unref (side->initializers);
  g_hash_table_unref (side->inputs);
  g_hash_table_unref (side->outputs);
}

/* ---- Tensor contents ---- */

static void
add_piece (GArray *pieces, const void *data, gsize len)
{
  OnyxDiffPiece piece = { data, data != NULL ? len : 0 };
  g_array_append_val (pieces, piece);
}

GArray *
onyx_diff_tensor_pieces (const Onnx__TensorProto *tensor)
{
  GArray *pieces = g_array_new (FALSE, FALSE, sizeof (OnyxDiffPiece));

  add_piece (pieces, &tensor->data_type, sizeof tensor->data_type);
  add_piece (pieces, tensor->dims, tensor->n_dims * sizeof *tensor->dims);
  add_piece (pieces, tensor->raw_data.data, tensor->has_raw_data ? tensor->raw_data.len : 0);
  add_piece (pieces, tensor->float_data, tensor->n_float_data * sizeof *tensor->float_data);
  add_piece (pieces, tensor->int32_data, tensor->n_int32_data * sizeof *tensor->int32_data);
  add_piece (pieces, tensor->int64_data, tensor->n_int64_data * sizeof *tensor->int64_data);
  add_piece (pieces, tensor->double_data, tensor->n_double_data * sizeof *tensor->double_data);
  add_piece (pieces, tensor->uint64_data, tensor->n_uint64_data * sizeof *tensor->uint64_data);
  /* The counts are pieces too, so that lists of different lengths cannot line up. */
  add_piece (pieces, &tensor->n_string_data, sizeof tensor->n_string_data);
  for (size_t i = 0; i < tensor->n_string_data; i++)
    add_piece (pieces, tensor->string_data[i].data, tensor->string_data[i].len);
  add_piece (pieces, &tensor->n_external_data, sizeof tensor->n_external_data);
  for (size_t i = 0; i < tensor->n_external_data; i++)
    {
      const char *key = tensor->external_data[i]->key, *value = tensor->external_data[i]->value;
      add_piece (pieces, key, key != NULL ? strlen (key) : 0);
      add_piece (pieces, value, value != NULL ? strlen (value) : 0);
    }
  return pieces;
}

/* Payloads are compared a slice at a time, and each slice's pages of the files given
 * back after: two large models then cost a slice of each, not both files in memory. */
#define SLICE ((gsize) 4 << 20)

static gboolean
same_bytes (const Match *m, const guint8 *a, const guint8 *b, gsize len)
{
  for (gsize at = 0; at < len; at += SLICE)
    {
      gsize n = MIN (SLICE, len - at);
      gboolean same = memcmp (a + at, b + at, n) == 0;
      onyx_model_release_pages (m->file_a, a + at, n);
      onyx_model_release_pages (m->file_b, b + at, n);
      if (!same)
        return FALSE;
    }
  return TRUE;
}

/* Values and all, without a copy or a hash: the bytes side by side. */
gboolean
onyx_diff_same_tensor (const Match *m, const Onnx__TensorProto *a, const Onnx__TensorProto *b)
{
  g_autoptr (GArray) pieces_a = onyx_diff_tensor_pieces (a);
  g_autoptr (GArray) pieces_b = onyx_diff_tensor_pieces (b);

  if (pieces_a->len != pieces_b->len)
    return FALSE;
  for (guint i = 0; i < pieces_a->len; i++)
    {
      const OnyxDiffPiece *pa = &g_array_index (pieces_a, OnyxDiffPiece, i);
      const OnyxDiffPiece *pb = &g_array_index (pieces_b, OnyxDiffPiece, i);
      if (pa->len != pb->len || (pa->len > 0 && !same_bytes (m, pa->data, pb->data, pa->len)))
        return FALSE;
    }
  return TRUE;
}

/* A word at a time: SHA-256 ran at a few hundred MB/s, which a diff of large models
 * spent most of its time in. It only finds candidates for matching by content, so
 * collisions cost a wrong pairing at worst, with odds of one in 2^64. */
static guint64
hash_bytes (guint64 h, const guint8 *data, gsize len)
{
  const guint64 prime = G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  gsize at = 0;

  h = (h ^ len) * prime;
  for (; at + 8 <= len; at += 8)
    {
      guint64 word;
      memcpy (&word, data + at, 8);
      h = (h ^ word) * prime;
      h ^= h >> 29;
    }
  for (; at < len; at++)
    h = (h ^ data[at]) * prime;
  return h ^ (h >> 32);
}

char *
onyx_diff_tensor_digest (const Onnx__TensorProto *tensor)
{
  g_autoptr (GArray) pieces = onyx_diff_tensor_pieces (tensor);
  guint64 h = 0, total = 0;

  for (guint i = 0; i < pieces->len; i++)
    {
      const OnyxDiffPiece *piece = &g_array_index (pieces, OnyxDiffPiece, i);
      h = hash_bytes (h, piece->data, piece->len);
      total += piece->len;
    }
  return g_strdup_printf ("%016" G_GINT64_MODIFIER "x-%" G_GUINT64_FORMAT, h, total);
}

/* ---- Matching ---- */

static gboolean
correspond (Match *m, const char *ta, const char *tb)
{
  Pair pair = { ta, tb };

  if (!named (ta) || !named (tb) || g_hash_table_contains (m->ab, ta) ||
      g_hash_table_contains (m->ba, tb))
    return FALSE;
  g_hash_table_insert (m->ab, (gpointer) ta, (gpointer) tb);
  g_hash_table_insert (m->ba, (gpointer) tb, (gpointer) ta);
  g_array_append_val (m->pending, pair);
  return TRUE;
}

static void
match_inputs (Match *m, guint ia, guint ib)
{
  const Onnx__NodeProto *na = m->a.graph->node[ia], *nb = m->b.graph->node[ib];
  for (size_t k = 0; k < MIN (na->n_input, nb->n_input); k++)
    correspond (m, na->input[k], nb->input[k]);
}

/* Pairs two nodes; their outputs correspond slot by slot, and (unless told not to yet)
 * their inputs too where nothing else explains them. */
static void
match_nodes (Match *m, guint ia, guint ib, gboolean by_name, gboolean inputs)
{
  const Onnx__NodeProto *na = m->a.graph->node[ia], *nb = m->b.graph->node[ib];

  m->a_to_b[ia] = (int) ib;
  m->b_to_a[ib] = (int) ia;
  m->by_name[ib] = by_name;
  for (size_t k = 0; k < MIN (na->n_output, nb->n_output); k++)
    correspond (m, na->output[k], nb->output[k]);
  if (inputs)
    match_inputs (m, ia, ib);
}

/* How well two nodes agree on where their inputs come from: -1 when some input is
 * known to come from somewhere else. */
static int
agreement (Match *m, guint ia, guint ib)
{
  const Onnx__NodeProto *na = m->a.graph->node[ia], *nb = m->b.graph->node[ib];
  int score = 0;

  for (size_t k = 0; k < MIN (na->n_input, nb->n_input); k++)
    {
      const char *known = named (na->input[k]) ? g_hash_table_lookup (m->ab, na->input[k]) : NULL;
      const char *back = named (nb->input[k]) ? g_hash_table_lookup (m->ba, nb->input[k]) : NULL;
      if (known != NULL && g_strcmp0 (known, nb->input[k]) == 0)
        score++;
      else if (known != NULL || back != NULL)
        return -1;
    }
  return score;
}

/* The unmatched readers of a tensor pair: each B reader is matched to the A reader of
 * the same operator at the same input slot that agrees best, when that choice is the
 * only one on both sides. */
static void
match_readers (Match *m, const char *ta, const char *tb)
{
  GArray *ua = g_hash_table_lookup (m->a.consumers, ta);
  GArray *ub = g_hash_table_lookup (m->b.consumers, tb);

  if (ua == NULL || ub == NULL)
    return;
  for (guint j = 0; j < ub->len; j++)
    {
      Slot sb = g_array_index (ub, Slot, j);
      int best = -1, best_score = -1;
      gboolean tie = FALSE;

      if (m->b_to_a[sb.node] >= 0)
        continue;
      for (guint i = 0; i < ua->len; i++)
        {
          Slot sa = g_array_index (ua, Slot, i);
          int score;
          if (m->a_to_b[sa.node] >= 0 || sa.slot != sb.slot ||
              strcmp (m->a.op_keys[sa.node], m->b.op_keys[sb.node]) != 0)
            continue;
          score = agreement (m, sa.node, sb.node);
          if (score > best_score)
            best = (int) sa.node, best_score = score, tie = FALSE;
          else if (score == best_score && score >= 0 && (int) sa.node != best)
            tie = TRUE;
        }
      if (best < 0 || best_score < 0 || tie)
        continue;
      /* …and the chosen A reader has no equally good B reader besides this one. */
      for (guint k = 0; k < ub->len && !tie; k++)
        {
          Slot other = g_array_index (ub, Slot, k);
          if (k != j && m->b_to_a[other.node] < 0 && other.slot == sb.slot &&
              other.node != sb.node &&
              strcmp (m->a.op_keys[best], m->b.op_keys[other.node]) == 0 &&
              agreement (m, (guint) best, other.node) >= best_score)
            tie = TRUE;
        }
      if (!tie)
        match_nodes (m, (guint) best, sb.node, FALSE, TRUE);
    }
}

static void
follow (Match *m, Pair pair)
{
  Slot *pa = g_hash_table_lookup (m->a.producer, pair.a);
  Slot *pb = g_hash_table_lookup (m->b.producer, pair.b);

  if (pa != NULL && pb != NULL && m->a_to_b[pa->node] < 0 && m->b_to_a[pb->node] < 0 &&
      pa->slot == pb->slot && strcmp (m->a.op_keys[pa->node], m->b.op_keys[pb->node]) == 0)
    match_nodes (m, pa->node, pb->node, FALSE, TRUE);
  match_readers (m, pair.a, pair.b);
}

static GHashTable *
node_name_counts (const Side *side)
{
  GHashTable *counts = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < side->n_nodes; i++)
    {
      const char *name = side->graph->node[i]->name;
      if (named (name))
        g_hash_table_insert (counts, (gpointer) name,
                             GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (counts, name)) + 1));
    }
  return counts;
}

/* Initializers of the same name whose bytes are the same too (most of them, when
 * two versions of a model are compared) pair without hashing anyone's contents. */
static gboolean
same_dims (const Onnx__TensorProto *a, const Onnx__TensorProto *b)
{
  /* memcmp must not see the NULL that protobuf-c leaves for a scalar's dims. */
  return a->n_dims == b->n_dims &&
         (a->n_dims == 0 || memcmp (a->dims, b->dims, a->n_dims * sizeof *a->dims) == 0);
}

static void
match_identical_named_initializers (Match *m)
{
  for (size_t i = 0; i < m->a.graph->n_initializer; i++)
    {
      const Onnx__TensorProto *a = m->a.graph->initializer[i];
      const Onnx__TensorProto *b = named (a->name) ? g_hash_table_lookup (m->b.initializers, a->name) : NULL;

      if (b == NULL || g_hash_table_contains (m->ab, a->name) || g_hash_table_contains (m->ba, b->name) ||
          a->data_type != b->data_type || !same_dims (a, b) || !onyx_diff_same_tensor (m, a, b))
        continue;
      correspond (m, a->name, b->name);
      g_hash_table_add (m->same_as_named, (gpointer) a);
    }
}

/* Initializers without a counterpart yet whose contents are found once on each side. */
static void
match_initializers_by_content (Match *m)
{
  g_autoptr (GHashTable) in_a = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) in_b = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  const Onnx__GraphProto *ga = m->a.graph, *gb = m->b.graph;
  static const char ambiguous[] = "";

  for (int side = 0; side < 2; side++)
    {
      const Onnx__GraphProto *graph = side == 0 ? ga : gb;
      GHashTable *known = side == 0 ? m->ab : m->ba;
      GHashTable *by_digest = side == 0 ? in_a : in_b;
      for (size_t i = 0; i < graph->n_initializer; i++)
        {
          const char *name = graph->initializer[i]->name;
          char *digest;
          if (!named (name) || g_hash_table_contains (known, name))
            continue;
          digest = onyx_diff_tensor_digest (graph->initializer[i]);
          if (g_hash_table_contains (by_digest, digest))
            g_hash_table_insert (by_digest, digest, (gpointer) ambiguous);
          else
            g_hash_table_insert (by_digest, digest, (gpointer) name);
        }
    }
  for (size_t i = 0; i < ga->n_initializer; i++)
    {
      const char *name = ga->initializer[i]->name;
      g_autofree char *digest = NULL;
      const char *other;
      if (!named (name) || g_hash_table_contains (m->ab, name))
        continue;
      digest = onyx_diff_tensor_digest (ga->initializer[i]);
      other = g_hash_table_lookup (in_b, digest);
      if (g_hash_table_lookup (in_a, digest) != ambiguous && other != NULL && other != ambiguous)
        correspond (m, name, other);
    }
}

/* Defined in this graph, as opposed to read from the graphs around it. */
static gboolean
is_local (const Side *side, const char *name)
{
  return g_hash_table_contains (side->producer, name) || g_hash_table_contains (side->inputs, name) ||
         g_hash_table_contains (side->initializers, name);
}

const char *
onyx_diff_match_counterpart (const Match *m, const char *ta)
{
  for (; m != NULL; m = m->outer)
    {
      const char *tb = g_hash_table_lookup (m->ab, ta);
      if (tb != NULL)
        return tb;
    }
  return NULL;
}

/* What a subgraph reads from outside corresponds as it does out there, when the
 * other side's subgraph reads that too. Node order keeps the result independent of
 * hashing. */
static void
match_outer_reads (Match *m)
{
  for (guint i = 0; i < m->a.n_nodes; i++)
    {
      const Onnx__NodeProto *node = m->a.graph->node[i];
      for (size_t k = 0; k < node->n_input; k++)
        {
          const char *ta = node->input[k], *tb;
          if (!named (ta) || is_local (&m->a, ta) || (tb = onyx_diff_match_counterpart (m->outer, ta)) == NULL)
            continue;
          if (g_hash_table_contains (m->b.consumers, tb) && !is_local (&m->b, tb))
            correspond (m, ta, tb);
        }
    }
}

/* A subgraph's inputs and outputs go by position: that is how its holder binds them. */
static void
match_by_position (Match *m, Onnx__ValueInfoProto **a, size_t n_a, Onnx__ValueInfoProto **b, size_t n_b)
{
  for (size_t i = 0; i < MIN (n_a, n_b); i++)
    correspond (m, a[i]->name, b[i]->name);
}

/* Nodes still unmatched, paired per operator in the order they come in. */
static void
match_in_order (Match *m)
{
  g_autoptr (GHashTable) next_a = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint ib = 0; ib < m->b.n_nodes; ib++)
    {
      guint ia;
      if (m->b_to_a[ib] >= 0)
        continue;
      /* Each operator's search goes on from where it last stopped. */
      for (ia = GPOINTER_TO_UINT (g_hash_table_lookup (next_a, m->b.op_keys[ib])); ia < m->a.n_nodes; ia++)
        if (m->a_to_b[ia] < 0 && strcmp (m->a.op_keys[ia], m->b.op_keys[ib]) == 0)
          break;
      g_hash_table_insert (next_a, m->b.op_keys[ib], GUINT_TO_POINTER (MIN (ia + 1, m->a.n_nodes)));
      if (ia < m->a.n_nodes)
        {
          match_nodes (m, ia, ib, FALSE, TRUE);
          m->by_order[ib] = TRUE;
        }
    }
}

static void
match_main_interface (Match *m)
{
  for (size_t i = 0; i < m->a.graph->n_input; i++)
    if (g_hash_table_contains (m->b.inputs, m->a.graph->input[i]->name ? m->a.graph->input[i]->name : ""))
      correspond (m, m->a.graph->input[i]->name, m->a.graph->input[i]->name);
  for (size_t i = 0; i < m->a.graph->n_output; i++)
    if (g_hash_table_contains (m->b.outputs, m->a.graph->output[i]->name ? m->a.graph->output[i]->name : ""))
      correspond (m, m->a.graph->output[i]->name, m->a.graph->output[i]->name);
}

static void
match_graphs (Match *m)
{
  g_autoptr (GHashTable) counts_a = node_name_counts (&m->a);
  g_autoptr (GHashTable) counts_b = node_name_counts (&m->b);
  g_autoptr (GHashTable) by_name_a = g_hash_table_new (g_str_hash, g_str_equal);

  /* Names first, unique ones only: their outputs are the strongest anchors. */
  for (guint i = 0; i < m->a.n_nodes; i++)
    {
      const char *name = m->a.graph->node[i]->name;
      if (named (name) && GPOINTER_TO_UINT (g_hash_table_lookup (counts_a, name)) == 1)
        g_hash_table_insert (by_name_a, (gpointer) name, GUINT_TO_POINTER (i));
    }
  for (guint ib = 0; ib < m->b.n_nodes; ib++)
    {
      const char *name = m->b.graph->node[ib]->name;
      gpointer ia;
      if (named (name) && GPOINTER_TO_UINT (g_hash_table_lookup (counts_b, name)) == 1 &&
          g_hash_table_lookup_extended (by_name_a, name, NULL, &ia))
        match_nodes (m, GPOINTER_TO_UINT (ia), ib, TRUE, FALSE);
    }
  /* Graph inputs, outputs and initializers of the same name (a subgraph's inputs and
   * outputs by position, and what it reads from outside), then initializers of the
   * same contents. */
  if (m->outer != NULL)
    {
      match_by_position (m, m->a.graph->input, m->a.graph->n_input, m->b.graph->input, m->b.graph->n_input);
      match_by_position (m, m->a.graph->output, m->a.graph->n_output, m->b.graph->output,
                         m->b.graph->n_output);
      match_outer_reads (m);
    }
  else
    match_main_interface (m);
  /* Exporters reuse generated initializer names ("onnx::Conv_23") for other tensors,
   * so contents come before names. */
  match_identical_named_initializers (m);
  match_initializers_by_content (m);
  /* What name-matched nodes read, where nothing above explained it. */
  for (guint ib = 0; ib < m->b.n_nodes; ib++)
    if (m->by_name[ib])
      match_inputs (m, (guint) m->b_to_a[ib], ib);

  /* Then outwards from every correspondence, until nothing more matches; then once
   * more from initializers left with the same name (changed values); and last from
   * nodes that nothing told apart (identical branches, say), paired in file order. */
  for (int round = 0; round < 3; round++)
    {
      for (guint i = 0; i < m->pending->len; i++)
        follow (m, g_array_index (m->pending, Pair, i));
      g_array_set_size (m->pending, 0);
      if (round == 0)
        for (size_t i = 0; i < m->a.graph->n_initializer; i++)
          {
            const char *name = m->a.graph->initializer[i]->name;
            if (named (name) && g_hash_table_contains (m->b.initializers, name))
              correspond (m, name, name);
          }
      else if (round == 1)
        match_in_order (m);
    }
}

void
onyx_diff_match (Match *m, const Match *outer, const Onnx__ModelProto *model_a, const Onnx__GraphProto *a,
                 const Onnx__ModelProto *model_b, const Onnx__GraphProto *b)
{
  side_init (&m->a, model_a, a);
  side_init (&m->b, model_b, b);
  m->outer = outer;
  m->a_to_b = g_new (int, m->a.n_nodes + 1);
  m->b_to_a = g_new (int, m->b.n_nodes + 1);
  for (guint i = 0; i < m->a.n_nodes; i++)
    m->a_to_b[i] = -1;
  for (guint i = 0; i < m->b.n_nodes; i++)
    m->b_to_a[i] = -1;
  m->by_name = g_new0 (gboolean, m->b.n_nodes + 1);
  m->by_order = g_new0 (gboolean, m->b.n_nodes + 1);
  m->ab = g_hash_table_new (g_str_hash, g_str_equal);
  m->ba = g_hash_table_new (g_str_hash, g_str_equal);
  m->pending = g_array_new (FALSE, FALSE, sizeof (Pair));
  m->same_as_named = g_hash_table_new (NULL, NULL);
  match_graphs (m);
}

void
onyx_diff_match_clear (Match *m)
{
  g_free (m->by_name);
  g_free (m->by_order);
  g_hash_table_unref (m->ab);
  g_hash_table_unref (m->ba);
  g_array_unref (m->pending);
  g_hash_table_unref (m->same_as_named);
  side_clear (&m->a);
  side_clear (&m->b);
}
