/* onyx-diff.c: the second stage of a diff, what differs between the matched models
 * (onyx-diff-match.c matched them), as entries, graph by graph down into the graphs
 * that matched nodes hold; and the public API of onyx-diff.h. */
#include "onyx-diff-private.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "onyx-attribute.h"
#include "onyx-graph-names.h"
#include "onyx-schema.h"
#include "onyx-types.h"
#include "onyx-validate.h"
#include "onyx-text.h"

/* As onyx-graph-names.c: the loader refuses deeper message nesting long before. */
#define MAX_DEPTH 64

/* ---- Scopes and entries ---- */

/* The pair of graphs being compared, and where its entries go. */
typedef struct {
  OnyxDiff *diff;
  Match *m;
  const char *graph_name;          /* B's name of the graph, "main" for the main graph */
  const Onnx__GraphProto *graph_a, *graph_b;
  int *change_b;                   /* the main graph's node_change_b; NULL in subgraphs */
  OnyxGraphNamer *namer_b;         /* names B's subgraphs */
  guint depth;
} Scope;

static OnyxDiffEntry *
entry_new (Scope *scope, OnyxDiffSubject subject, OnyxDiffChange change, const char *name_a,
           const char *name_b, int index_a, int index_b)
{
  OnyxDiffEntry *entry = g_new0 (OnyxDiffEntry, 1);
  entry->graph = g_strdup (scope->graph_name);
  entry->graph_a = scope->graph_a;
  entry->graph_b = scope->graph_b;
  entry->subject = subject;
  entry->change = change;
  entry->name_a = g_strdup (name_a);
  entry->name_b = g_strdup (name_b);
  entry->index_a = index_a;
  entry->index_b = index_b;
  entry->details = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (scope->diff->entries, entry);
  return entry;
}

static void
entry_drop (Scope *scope, OnyxDiffEntry *entry)
{
  g_ptr_array_remove (scope->diff->entries, entry);
}

static void
entry_free (OnyxDiffEntry *entry)
{
  g_free (entry->graph);
  g_free (entry->name_a);
  g_free (entry->name_b);
  g_free (entry->message);
  g_ptr_array_unref (entry->details);
  g_free (entry);
}

static void add_detail (OnyxDiffEntry *entry, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
add_detail (OnyxDiffEntry *entry, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_ptr_array_add (entry->details, g_strdup_vprintf (format, args));
  va_end (args);
}

/* The head of an entry's message, by change and subject (onyx_diff_change_name and
 * onyx_diff_subject_name are the untranslated keywords for the same). */
static const char *const message_heads[ONYX_DIFF_RENAMED + 1][ONYX_DIFF_INITIALIZER + 1] = {
  [ONYX_DIFF_ADDED] = {
    /* Translators: the head of a difference between two models; %s is what differs,
     * "Conv_3", or "Conv_3 → Conv_4" when it has a new name. */
    [ONYX_DIFF_METADATA] = N_("added metadata %s"),
    [ONYX_DIFF_OPSET] = N_("added opset %s"),
    [ONYX_DIFF_GRAPH_INPUT] = N_("added graph input %s"),
    [ONYX_DIFF_GRAPH_OUTPUT] = N_("added graph output %s"),
    [ONYX_DIFF_NODE] = N_("added node %s"),
    [ONYX_DIFF_INITIALIZER] = N_("added initializer %s"),
  },
  [ONYX_DIFF_REMOVED] = {
    [ONYX_DIFF_METADATA] = N_("removed metadata %s"),
    [ONYX_DIFF_OPSET] = N_("removed opset %s"),
    [ONYX_DIFF_GRAPH_INPUT] = N_("removed graph input %s"),
    [ONYX_DIFF_GRAPH_OUTPUT] = N_("removed graph output %s"),
    [ONYX_DIFF_NODE] = N_("removed node %s"),
    [ONYX_DIFF_INITIALIZER] = N_("removed initializer %s"),
  },
  [ONYX_DIFF_CHANGED] = {
    [ONYX_DIFF_METADATA] = N_("changed metadata %s"),
    [ONYX_DIFF_OPSET] = N_("changed opset %s"),
    [ONYX_DIFF_GRAPH_INPUT] = N_("changed graph input %s"),
    [ONYX_DIFF_GRAPH_OUTPUT] = N_("changed graph output %s"),
    [ONYX_DIFF_NODE] = N_("changed node %s"),
    [ONYX_DIFF_INITIALIZER] = N_("changed initializer %s"),
  },
  [ONYX_DIFF_RENAMED] = {
    [ONYX_DIFF_METADATA] = N_("renamed metadata %s"),
    [ONYX_DIFF_OPSET] = N_("renamed opset %s"),
    [ONYX_DIFF_GRAPH_INPUT] = N_("renamed graph input %s"),
    [ONYX_DIFF_GRAPH_OUTPUT] = N_("renamed graph output %s"),
    [ONYX_DIFF_NODE] = N_("renamed node %s"),
    [ONYX_DIFF_INITIALIZER] = N_("renamed initializer %s"),
  },
};

/* "changed node Conv_3: attribute strides: [2, 2] → [1, 1]" (details after the first
 * are counted). The ": " before the first detail and the count after it stay
 * untranslated: the compare pane takes them off again to show the head alone. */
static void
finish_entry (OnyxDiffEntry *entry, const char *label_a, const char *label_b)
{
  GString *message = g_string_new (NULL);
  guint change = MIN ((guint) entry->change, (guint) ONYX_DIFF_RENAMED);
  guint subject = MIN ((guint) entry->subject, (guint) ONYX_DIFF_INITIALIZER);
  g_autofree char *labels = NULL;

  if (entry->change == ONYX_DIFF_ADDED)
    labels = g_strdup (label_b);
  else if (entry->change == ONYX_DIFF_REMOVED || g_strcmp0 (label_a, label_b) == 0)
    labels = g_strdup (label_a);
  else
    labels = g_strdup_printf ("%s → %s", label_a, label_b);
  g_string_append_printf (message, _(message_heads[change][subject]), labels);
  if (entry->details->len > 0)
    g_string_append_printf (message, ": %s", (const char *) entry->details->pdata[0]);
  if (entry->details->len > 1)
    g_string_append_printf (message, " (and %u more)", entry->details->len - 1);
  entry->message = g_string_free (message, FALSE);
}

static void
finish_named (OnyxDiffEntry *entry)
{
  g_autofree char *a = onyx_display_escape (entry->name_a);
  g_autofree char *b = onyx_display_escape (entry->name_b);
  finish_entry (entry, a, b);
}

static void
compare_text (Scope *scope, const char *field, const char *a, const char *b)
{
  if (g_strcmp0 (a != NULL ? a : "", b != NULL ? b : "") != 0)
    {
      OnyxDiffEntry *entry = entry_new (scope, ONYX_DIFF_METADATA, ONYX_DIFF_CHANGED, field, field, -1, -1);
      g_autofree char *shown_a = onyx_display_escape (a);
      g_autofree char *shown_b = onyx_display_escape (b);
      add_detail (entry, "\"%s\" → \"%s\"", shown_a, shown_b);
      finish_named (entry);
    }
}

static void
compare_number (Scope *scope, const char *field, gboolean has_a, gint64 a, gboolean has_b, gint64 b)
{
  if (has_a != has_b || a != b)
    {
      OnyxDiffEntry *entry = entry_new (scope, ONYX_DIFF_METADATA, ONYX_DIFF_CHANGED, field, field, -1, -1);
      g_autofree char *shown_a = has_a ? g_strdup_printf ("%" G_GINT64_FORMAT, a) : g_strdup (_("unset"));
      g_autofree char *shown_b = has_b ? g_strdup_printf ("%" G_GINT64_FORMAT, b) : g_strdup (_("unset"));
      add_detail (entry, "%s → %s", shown_a, shown_b);
      finish_named (entry);
    }
}

/* Pairs the items of two lists: first through `corresponding` (A's name → B's name;
 * may be NULL), then items of the same name, the k-th of a name in A with the k-th in
 * B (names repeat in hostile files). Per item of A: its partner's position in B, or
 * -1; `paired_b` marks B's items that have one. */
static int *
pair_names (GHashTable *corresponding, const char *const *names_a, gsize n_a,
            const char *const *names_b, gsize n_b, gboolean *paired_b)
{
  g_autoptr (GHashTable) where_b = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                          (GDestroyNotify) g_queue_free);
  int *partner = g_new (int, n_a + 1);

  for (gsize j = 0; j < n_b; j++)
    {
      GQueue *queue = g_hash_table_lookup (where_b, names_b[j]);
      if (queue == NULL)
        g_hash_table_insert (where_b, (gpointer) names_b[j], queue = g_queue_new ());
      g_queue_push_tail (queue, GSIZE_TO_POINTER (j));
    }
  for (int pass = 0; pass < 2; pass++)
    for (gsize i = 0; i < n_a; i++)
      {
        const char *wanted = names_a[i];
        GQueue *queue;
        gsize j;

        if (pass == 0)
          {
            partner[i] = -1;
            wanted = corresponding != NULL && named (names_a[i])
                     ? g_hash_table_lookup (corresponding, names_a[i]) : NULL;
          }
        else if (partner[i] >= 0)
          continue;
        queue = wanted != NULL ? g_hash_table_lookup (where_b, wanted) : NULL;
        if (queue == NULL || g_queue_is_empty (queue))
          continue;
        j = GPOINTER_TO_SIZE (g_queue_pop_head (queue));
        partner[i] = (int) j;
        paired_b[j] = TRUE;
      }
  return partner;
}

static const char **
property_keys (const Onnx__ModelProto *model)
{
  const char **keys = g_new (const char *, model->n_metadata_props + 1);
  for (size_t i = 0; i < model->n_metadata_props; i++)
    keys[i] = model->metadata_props[i]->key != NULL ? model->metadata_props[i]->key : "";
  return keys;
}

static const char *
property_value (const Onnx__StringStringEntryProto *entry)
{
  return entry->value != NULL ? entry->value : "";
}

static void
compare_metadata (Scope *scope, const Onnx__ModelProto *a, const Onnx__ModelProto *b)
{
  compare_number (scope, "ir_version", a->has_ir_version, a->ir_version, b->has_ir_version, b->ir_version);
  compare_text (scope, "producer_name", a->producer_name, b->producer_name);
  compare_text (scope, "producer_version", a->producer_version, b->producer_version);
  compare_text (scope, "domain", a->domain, b->domain);
  compare_number (scope, "model_version", a->has_model_version, a->model_version, b->has_model_version,
                  b->model_version);
  compare_text (scope, "doc_string", a->doc_string, b->doc_string);
  compare_text (scope, "graph name", a->graph != NULL ? a->graph->name : NULL,
                b->graph != NULL ? b->graph->name : NULL);
  compare_text (scope, "graph doc_string", a->graph != NULL ? a->graph->doc_string : NULL,
                b->graph != NULL ? b->graph->doc_string : NULL);

  {
    g_autofree const char **keys_a = property_keys (a);
    g_autofree const char **keys_b = property_keys (b);
    g_autofree gboolean *paired_b = g_new0 (gboolean, b->n_metadata_props + 1);
    g_autofree int *partner = pair_names (NULL, keys_a, a->n_metadata_props, keys_b, b->n_metadata_props,
                                          paired_b);

    for (size_t i = 0; i < a->n_metadata_props + b->n_metadata_props; i++)
      {
        gboolean in_a = i < a->n_metadata_props;
        gsize at = in_a ? i : i - a->n_metadata_props;
        const Onnx__StringStringEntryProto *entry = in_a ? a->metadata_props[at] : b->metadata_props[at];
        g_autofree char *shown_key = onyx_display_escape (in_a ? keys_a[at] : keys_b[at]);
        g_autofree char *label = g_strdup_printf ("metadata_props[%s]", shown_key);
        g_autofree char *shown = onyx_display_escape (property_value (entry));
        OnyxDiffEntry *result;

        if (in_a && partner[at] >= 0)
          {
            const Onnx__StringStringEntryProto *other = b->metadata_props[partner[at]];
            g_autofree char *shown_other = NULL;
            if (strcmp (property_value (entry), property_value (other)) == 0)
              continue;
            shown_other = onyx_display_escape (property_value (other));
            result = entry_new (scope, ONYX_DIFF_METADATA, ONYX_DIFF_CHANGED, keys_a[at], keys_a[at], -1, -1);
            add_detail (result, "\"%s\" → \"%s\"", shown, shown_other);
          }
        else if (in_a || !paired_b[at])
          {
            result = entry_new (scope, ONYX_DIFF_METADATA, in_a ? ONYX_DIFF_REMOVED : ONYX_DIFF_ADDED,
                                in_a ? keys_a[at] : NULL, in_a ? NULL : keys_b[at], -1, -1);
            add_detail (result, "\"%s\"", shown);
          }
        else
          continue;
        finish_entry (result, label, label);
      }
  }
}

static const char *
shown_domain (const char *domain)
{
  return onyx_domain_is_default (domain) ? "ai.onnx" : domain;
}

static const char **
opset_keys (const Onnx__ModelProto *model)
{
  const char **keys = g_new (const char *, model->n_opset_import + 1);
  for (size_t i = 0; i < model->n_opset_import; i++)
    keys[i] = shown_domain (model->opset_import[i]->domain);
  return keys;
}

static void
compare_opsets (Scope *scope, const Onnx__ModelProto *a, const Onnx__ModelProto *b)
{
  g_autofree const char **keys_a = opset_keys (a);
  g_autofree const char **keys_b = opset_keys (b);
  g_autofree gboolean *paired_b = g_new0 (gboolean, b->n_opset_import + 1);
  g_autofree int *partner = pair_names (NULL, keys_a, a->n_opset_import, keys_b, b->n_opset_import, paired_b);

  for (size_t i = 0; i < a->n_opset_import + b->n_opset_import; i++)
    {
      gboolean in_a = i < a->n_opset_import;
      gsize at = in_a ? i : i - a->n_opset_import;
      const Onnx__OperatorSetIdProto *opset = in_a ? a->opset_import[at] : b->opset_import[at];
      const char *domain = in_a ? keys_a[at] : keys_b[at];
      OnyxDiffEntry *entry;

      if (in_a && partner[at] >= 0)
        {
          gint64 version = b->opset_import[partner[at]]->version;
          if (version == opset->version)
            continue;
          entry = entry_new (scope, ONYX_DIFF_OPSET, ONYX_DIFF_CHANGED, domain, domain, (int) at, partner[at]);
          add_detail (entry, _("version %lld → %lld"), (long long) opset->version, (long long) version);
        }
      else if (in_a || !paired_b[at])
        {
          entry = entry_new (scope, ONYX_DIFF_OPSET, in_a ? ONYX_DIFF_REMOVED : ONYX_DIFF_ADDED,
                             in_a ? domain : NULL, in_a ? NULL : domain, in_a ? (int) at : -1,
                             in_a ? -1 : (int) at);
          add_detail (entry, _("version %lld"), (long long) opset->version);
        }
      else
        continue;
      finish_named (entry);
    }
}

static const char **
value_names (Onnx__ValueInfoProto **list, size_t n)
{
  const char **names = g_new (const char *, n + 1);
  for (size_t i = 0; i < n; i++)
    names[i] = list[i]->name != NULL ? list[i]->name : "";
  return names;
}

static void
compare_values (Scope *scope, gboolean outputs)
{
  const Match *m = scope->m;
  OnyxDiffSubject subject = outputs ? ONYX_DIFF_GRAPH_OUTPUT : ONYX_DIFF_GRAPH_INPUT;
  Onnx__ValueInfoProto **list_a = outputs ? m->a.graph->output : m->a.graph->input;
  Onnx__ValueInfoProto **list_b = outputs ? m->b.graph->output : m->b.graph->input;
  size_t n_a = outputs ? m->a.graph->n_output : m->a.graph->n_input;
  size_t n_b = outputs ? m->b.graph->n_output : m->b.graph->n_input;
  g_autofree const char **names_a = value_names (list_a, n_a);
  g_autofree const char **names_b = value_names (list_b, n_b);
  g_autofree gboolean *paired_b = g_new0 (gboolean, n_b + 1);
  g_autofree int *partner = pair_names (m->ab, names_a, n_a, names_b, n_b, paired_b);

  for (size_t i = 0; i < n_a + n_b; i++)
    {
      gboolean in_a = i < n_a;
      gsize at = in_a ? i : i - n_a;
      g_autofree char *type = onyx_type_to_string (in_a ? list_a[at]->type : list_b[at]->type);
      g_autofree char *type_b = NULL;
      OnyxDiffEntry *entry;

      if (in_a && partner[at] >= 0)
        {
          gsize j = (gsize) partner[at];
          type_b = onyx_type_to_string (list_b[j]->type);
          if (strcmp (type, type_b) == 0 && strcmp (names_a[at], names_b[j]) == 0)
            continue;
          entry = entry_new (scope, subject, ONYX_DIFF_CHANGED, names_a[at], names_b[j], (int) at, (int) j);
          if (strcmp (type, type_b) != 0)
            add_detail (entry, "%s → %s", type, type_b);
          else
            entry->change = ONYX_DIFF_RENAMED;
        }
      else if (in_a || !paired_b[at])
        {
          entry = entry_new (scope, subject, in_a ? ONYX_DIFF_REMOVED : ONYX_DIFF_ADDED,
                             in_a ? names_a[at] : NULL, in_a ? NULL : names_b[at],
                             in_a ? (int) at : -1, in_a ? -1 : (int) at);
          add_detail (entry, "%s", type);
        }
      else
        continue;
      finish_named (entry);
    }
}

static char *
tensor_summary (const Onnx__TensorProto *tensor)
{
  g_autofree char *dims = onyx_dims_to_string (tensor->dims, tensor->n_dims);
  return g_strdup_printf ("%s[%s]", onyx_elem_type_name (tensor->data_type), dims);
}

static const char **
initializer_names (const Onnx__GraphProto *graph)
{
  const char **names = g_new (const char *, graph->n_initializer + 1);
  for (size_t i = 0; i < graph->n_initializer; i++)
    names[i] = graph->initializer[i]->name != NULL ? graph->initializer[i]->name : "";
  return names;
}

static void
compare_initializers (Scope *scope)
{
  const Match *m = scope->m;
  const Onnx__GraphProto *ga = m->a.graph, *gb = m->b.graph;
  g_autofree const char **names_a = initializer_names (ga);
  g_autofree const char **names_b = initializer_names (gb);
  g_autofree gboolean *paired_b = g_new0 (gboolean, gb->n_initializer + 1);
  /* Correspondences first: exporters give other tensors the names of old ones. */
  g_autofree int *partner = pair_names (m->ab, names_a, ga->n_initializer, names_b, gb->n_initializer,
                                        paired_b);

  for (size_t i = 0; i < ga->n_initializer + gb->n_initializer; i++)
    {
      gboolean in_a = i < ga->n_initializer;
      gsize at = in_a ? i : i - ga->n_initializer;
      const Onnx__TensorProto *tensor = in_a ? ga->initializer[at] : gb->initializer[at];
      g_autofree char *summary = tensor_summary (tensor);
      OnyxDiffEntry *entry;

      if (in_a && partner[at] >= 0)
        {
          gsize j = (gsize) partner[at];
          const Onnx__TensorProto *other = gb->initializer[j];
          g_autofree char *summary_b = tensor_summary (other);
          entry = entry_new (scope, ONYX_DIFF_INITIALIZER, ONYX_DIFF_CHANGED, names_a[at], names_b[j],
                             (int) at, (int) j);
          if (strcmp (summary, summary_b) != 0)
            add_detail (entry, "%s → %s", summary, summary_b);
          else if (!g_hash_table_contains (m->same_as_named, tensor) &&
                   !onyx_diff_same_tensor (m, tensor, other))
            add_detail (entry, _("values differ"));
          if (entry->details->len == 0)
            {
              if (strcmp (names_a[at], names_b[j]) == 0)
                {
                  entry_drop (scope, entry);
                  continue;
                }
              entry->change = ONYX_DIFF_RENAMED;
            }
        }
      else if (in_a || !paired_b[at])
        {
          entry = entry_new (scope, ONYX_DIFF_INITIALIZER, in_a ? ONYX_DIFF_REMOVED : ONYX_DIFF_ADDED,
                             in_a ? names_a[at] : NULL, in_a ? NULL : names_b[at],
                             in_a ? (int) at : -1, in_a ? -1 : (int) at);
          add_detail (entry, "%s", summary);
        }
      else
        continue;
      finish_named (entry);
    }
}

static gboolean
same_attribute (const Onnx__AttributeProto *a, const Onnx__AttributeProto *b)
{
  return onyx_proto_equal (&a->base, &b->base);
}

/* The attribute's own fields, its graphs left out. */
static gboolean
same_apart_from_graphs (const Onnx__AttributeProto *a, const Onnx__AttributeProto *b)
{
  Onnx__AttributeProto bare_a = *a, bare_b = *b;

  bare_a.g = bare_b.g = NULL;
  bare_a.graphs = bare_b.graphs = NULL;
  bare_a.n_graphs = bare_b.n_graphs = 0;
  return same_attribute (&bare_a, &bare_b);
}

/* Graph attributes that both nodes have are diffed as graphs (compare_held_graphs),
 * not compared whole. */
static gboolean
diffed_as_graphs (const Scope *scope, const Onnx__AttributeProto *a, const Onnx__AttributeProto *b)
{
  return a != NULL && b != NULL && scope->depth < MAX_DEPTH && a->type == b->type &&
         ((a->g != NULL && b->g != NULL) || (a->n_graphs > 0 && b->n_graphs > 0));
}

static int
compare_attribute_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

static void
compare_attributes (const Scope *scope, OnyxDiffEntry *entry, const Onnx__NodeProto *na,
                    const Onnx__NodeProto *nb)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GHashTable) listed = g_hash_table_new (g_str_hash, g_str_equal);

  for (int side = 0; side < 2; side++)
    {
      const Onnx__NodeProto *node = side == 0 ? na : nb;
      for (size_t i = 0; i < node->n_attribute; i++)
        if (node->attribute[i]->name != NULL && g_hash_table_add (listed, node->attribute[i]->name))
          g_ptr_array_add (names, node->attribute[i]->name);
    }
  g_ptr_array_sort (names, compare_attribute_names);
  for (guint i = 0; i < names->len; i++)
    {
      const Onnx__AttributeProto *a = onyx_node_find_attribute (na, names->pdata[i], NULL);
      const Onnx__AttributeProto *b = onyx_node_find_attribute (nb, names->pdata[i], NULL);
      g_autofree char *name = onyx_display_escape (names->pdata[i]);
      g_autofree char *text_a = a != NULL ? onyx_attribute_to_string (a) : NULL;
      g_autofree char *text_b = b != NULL ? onyx_attribute_to_string (b) : NULL;

      if (a == NULL)
        add_detail (entry, _("attribute %s added: %s"), name, text_b);
      else if (b == NULL)
        add_detail (entry, _("attribute %s removed (was %s)"), name, text_a);
      else if (diffed_as_graphs (scope, a, b))
        {
          if (a->n_graphs != b->n_graphs)
            add_detail (entry, ngettext ("attribute %s: %zu graph → %zu", "attribute %s: %zu graphs → %zu", a->n_graphs),
                        name, a->n_graphs, b->n_graphs);
          else if (!same_apart_from_graphs (a, b))
            add_detail (entry, _("attribute %s: differs apart from its graphs"), name);
        }
      else if (!same_attribute (a, b))
        {
          if (strcmp (text_a, text_b) == 0)
            add_detail (entry, _("attribute %s: %s → %s (contents differ)"), name, text_a, text_b);
          else
            add_detail (entry, _("attribute %s: %s → %s"), name, text_a, text_b);
        }
    }
}

static char *
slot_label (const OnyxSchema *schema, gboolean output, size_t k)
{
  g_autofree char *name = schema == NULL ? NULL : output ? onyx_schema_output_name (schema, k)
                                                         : onyx_schema_input_name (schema, k);
  if (name != NULL && output)
    /* Translators: a node's output slot by position, and its name in the operator's
     * schema: "output 0 (Y)". */
    return g_strdup_printf (_("output %zu (%s)"), k, name);
  if (name != NULL)
    /* Translators: a node's input slot by position, and its name in the operator's
     * schema: "input 0 (X)". */
    return g_strdup_printf (_("input %zu (%s)"), k, name);
  return output ? g_strdup_printf (_("output %zu"), k) : g_strdup_printf (_("input %zu"), k);
}

static const char *
slot_name (char **names, size_t n, size_t k)
{
  return k < n && names[k] != NULL ? names[k] : "";
}

static void compare_graph_contents (Scope *scope);

/* Two graphs that matched nodes hold: a scope of their own below `outer`. */
static void
compare_subgraphs (const Scope *outer, const Onnx__GraphProto *ga, const Onnx__GraphProto *gb)
{
  Match m = { 0 };
  Scope scope = *outer;

  m.file_a = outer->m->file_a;
  m.file_b = outer->m->file_b;
  onyx_diff_match (&m, outer->m, outer->m->a.model, ga, outer->m->b.model, gb);
  scope.m = &m;
  scope.graph_name = onyx_graph_namer_name (outer->namer_b, gb);
  scope.graph_a = ga;
  scope.graph_b = gb;
  scope.change_b = NULL;
  scope.depth = outer->depth + 1;
  compare_text (&scope, "graph name", ga->name, gb->name);
  compare_text (&scope, "graph doc_string", ga->doc_string, gb->doc_string);
  compare_graph_contents (&scope);
  onyx_diff_match_clear (&m);
  g_free (m.a_to_b);
  g_free (m.b_to_a);
}

/* The graphs of two matched nodes' attributes of the same name, a GRAPHS list element
 * by element (extra elements show as the holder's difference). */
static void
compare_held_graphs (const Scope *scope, const Onnx__NodeProto *na, const Onnx__NodeProto *nb)
{
  for (size_t i = 0; i < nb->n_attribute; i++)
    {
      const Onnx__AttributeProto *b = nb->attribute[i], *a;

      /* A name given twice (hostile files): the first counts, as in compare_attributes. */
      if (b->name == NULL || onyx_node_find_attribute (nb, b->name, NULL) != b)
        continue;
      a = onyx_node_find_attribute (na, b->name, NULL);
      if (!diffed_as_graphs (scope, a, b))
        continue;
      if (a->g != NULL && b->g != NULL)
        compare_subgraphs (scope, a->g, b->g);
      for (size_t k = 0; k < MIN (a->n_graphs, b->n_graphs); k++)
        compare_subgraphs (scope, a->graphs[k], b->graphs[k]);
    }
}

static void
mark_change_b (Scope *scope, guint ib, OnyxDiffChange change)
{
  if (scope->change_b != NULL)
    scope->change_b[ib] = change;
}

/* What differs between two matched nodes; renames apart, each is a change. Then what
 * differs in the graphs they hold. */
static void
compare_nodes (Scope *scope, guint ia, guint ib)
{
  const Match *m = scope->m;
  const Onnx__NodeProto *na = m->a.graph->node[ia], *nb = m->b.graph->node[ib];
  const OnyxSchema *schema = onyx_schema_for_node (nb, m->b.model->opset_import, m->b.model->n_opset_import);
  OnyxDiffEntry *entry = entry_new (scope, ONYX_DIFF_NODE, ONYX_DIFF_CHANGED, na->name != NULL ? na->name : "",
                                    nb->name != NULL ? nb->name : "", (int) ia, (int) ib);
  g_autofree char *label_a = onyx_node_label (na, (int) ia);
  g_autofree char *label_b = onyx_node_label (nb, (int) ib);
  guint n_renames = 0;
  gboolean renamed;

  if (strcmp (m->a.op_keys[ia], m->b.op_keys[ib]) != 0)
    add_detail (entry, _("operator %s → %s"), m->a.op_keys[ia], m->b.op_keys[ib]);
  compare_attributes (scope, entry, na, nb);
  if (na->n_input != nb->n_input)
    add_detail (entry, ngettext ("%zu input → %zu", "%zu inputs → %zu", na->n_input), na->n_input, nb->n_input);
  for (size_t k = 0; k < MAX (na->n_input, nb->n_input); k++)
    {
      const char *ta = slot_name (na->input, na->n_input, k), *tb = slot_name (nb->input, nb->n_input, k);
      const char *expected = named (ta) ? onyx_diff_match_counterpart (m, ta) : "";
      g_autofree char *slot = NULL, *shown_a = NULL, *shown_b = NULL;

      if (g_strcmp0 (expected != NULL ? expected : ta, tb) == 0)
        continue;
      slot = slot_label (schema, FALSE, k);
      /* Translators: what an input slot reads when it reads no tensor. */
      shown_a = onyx_display_escape (named (ta) ? ta : _("nothing"));
      shown_b = onyx_display_escape (named (tb) ? tb : _("nothing"));
      /* Translators: "input 0 (X) reads a → b": the tensor the slot reads, in A and in B. */
      add_detail (entry, _("%s reads %s → %s"), slot, shown_a, shown_b);
    }
  if (na->n_output != nb->n_output)
    add_detail (entry, ngettext ("%zu output → %zu", "%zu outputs → %zu", na->n_output), na->n_output, nb->n_output);

  /* Renamed outputs are listed after the changes (a new node name shows in the
   * entry's names). */
  renamed = g_strcmp0 (na->name, nb->name) != 0;
  for (size_t k = 0; k < MIN (na->n_output, nb->n_output); k++)
    if (g_strcmp0 (na->output[k], nb->output[k]) != 0)
      {
        g_autofree char *slot = slot_label (schema, TRUE, k);
        g_autofree char *shown_a = onyx_display_escape (na->output[k]);
        g_autofree char *shown_b = onyx_display_escape (nb->output[k]);
        n_renames++;
        /* Translators: "output 0 (Y) renamed a → b". */
        add_detail (entry, _("%s renamed %s → %s"), slot, shown_a, shown_b);
      }
  if (entry->details->len == 0 && !renamed)
    entry_drop (scope, entry);
  else
    {
      if (entry->details->len == n_renames)
        entry->change = ONYX_DIFF_RENAMED;
      mark_change_b (scope, ib, entry->change);
      finish_entry (entry, label_a, label_b);
    }
  compare_held_graphs (scope, na, nb);
}

static void
node_only_in (Scope *scope, const Side *side, guint i, gboolean in_b)
{
  const Onnx__NodeProto *node = side->graph->node[i];
  g_autofree char *label = onyx_node_label (node, (int) i);
  OnyxDiffEntry *entry = entry_new (scope, ONYX_DIFF_NODE, in_b ? ONYX_DIFF_ADDED : ONYX_DIFF_REMOVED,
                                    in_b ? NULL : (node->name != NULL ? node->name : ""),
                                    in_b ? (node->name != NULL ? node->name : "") : NULL,
                                    in_b ? -1 : (int) i, in_b ? (int) i : -1);
  add_detail (entry, "%s", side->op_keys[i]);
  if (in_b)
    mark_change_b (scope, i, ONYX_DIFF_ADDED);
  finish_entry (entry, label, label);
}

/* Inputs, outputs, nodes (with the graphs they hold) and initializers of a scope. */
static void
compare_graph_contents (Scope *scope)
{
  const Match *m = scope->m;

  compare_values (scope, FALSE);
  compare_values (scope, TRUE);
  for (guint ib = 0; ib < m->b.n_nodes; ib++)
    {
      if (m->b_to_a[ib] >= 0)
        compare_nodes (scope, (guint) m->b_to_a[ib], ib);
      else
        node_only_in (scope, &m->b, ib, TRUE);
    }
  for (guint ia = 0; ia < m->a.n_nodes; ia++)
    if (m->a_to_b[ia] < 0)
      node_only_in (scope, &m->a, ia, FALSE);
  compare_initializers (scope);
}

static OnyxDiff *
diff_models (const Onnx__ModelProto *a, const Onnx__ModelProto *b, OnyxModel *file_a, OnyxModel *file_b)
{
  OnyxDiff *diff = g_new0 (OnyxDiff, 1);
  OnyxGraphNamer namer_b = ONYX_GRAPH_NAMER_INIT (b);
  Match m = { 0 };
  Scope scope = { diff, &m, "main", a->graph, b->graph, NULL, &namer_b, 0 };

  m.file_a = file_a;
  m.file_b = file_b;
  onyx_diff_match (&m, NULL, a, a->graph, b, b->graph);
  diff->entries = g_ptr_array_new_with_free_func ((GDestroyNotify) entry_free);
  diff->n_nodes_a = m.a.n_nodes;
  diff->n_nodes_b = m.b.n_nodes;
  diff->node_a_to_b = m.a_to_b;
  diff->node_b_to_a = m.b_to_a;
  diff->node_change_b = g_new (int, m.b.n_nodes + 1);
  for (guint i = 0; i < m.b.n_nodes; i++)
    diff->node_change_b[i] = -1;
  for (guint ib = 0; ib < m.b.n_nodes; ib++)
    if (m.b_to_a[ib] >= 0)
      {
        if (m.by_name[ib])
          diff->n_matched_by_name++;
        else if (m.by_order[ib])
          diff->n_matched_by_order++;
        else
          diff->n_matched_by_structure++;
      }

  scope.change_b = diff->node_change_b;

  compare_metadata (&scope, a, b);
  compare_opsets (&scope, a, b);
  compare_graph_contents (&scope);

  onyx_diff_match_clear (&m);
  onyx_graph_namer_clear (&namer_b);
  return diff;
}

OnyxDiff *
onyx_diff_models (const Onnx__ModelProto *a, const Onnx__ModelProto *b)
{
  return diff_models (a, b, NULL, NULL);
}

OnyxDiff *
onyx_diff_model_files (OnyxModel *a, OnyxModel *b, const Onnx__ModelProto *proto_b)
{
  return diff_models (onyx_model_get_proto (a), proto_b != NULL ? proto_b : onyx_model_get_proto (b), a, b);
}

void
onyx_diff_free (OnyxDiff *diff)
{
  if (diff == NULL)
    return;
  g_ptr_array_unref (diff->entries);
  g_free (diff->node_a_to_b);
  g_free (diff->node_b_to_a);
  g_free (diff->node_change_b);
  g_free (diff);
}

const char *
onyx_diff_subject_name (OnyxDiffSubject subject)
{
  switch (subject)
    {
    case ONYX_DIFF_METADATA: return "metadata";
    case ONYX_DIFF_OPSET: return "opset";
    case ONYX_DIFF_GRAPH_INPUT: return "graph-input";
    case ONYX_DIFF_GRAPH_OUTPUT: return "graph-output";
    case ONYX_DIFF_NODE: return "node";
    default: return "initializer";
    }
}

const char *
onyx_diff_change_name (OnyxDiffChange change)
{
  switch (change)
    {
    case ONYX_DIFF_ADDED: return "added";
    case ONYX_DIFF_REMOVED: return "removed";
    case ONYX_DIFF_CHANGED: return "changed";
    default: return "renamed";
    }
}
