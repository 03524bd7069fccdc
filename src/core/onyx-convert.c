/* onyx-convert.c: edits made by ONNX's own library: recording the inferred shapes as
 * value_info, and converting the model to another opset of ai.onnx. */
#include "onyx-edits-private.h"

#include <glib/gi18n-lib.h>

#include "onyx-replay.h"

#include <string.h>

#include "onyx-graph-names.h"
#include "onyx-onnx.h"
#include "onyx-problem-list.h"
#include "onyx-schema.h"
#include "onyx-shapes.h"
#include "onyx-shapes-private.h"
#include "onyx-types.h"
#include "onyx-validate.h"
#include "onyx-text.h"

/* ---- infer-shapes ---- */

static gboolean
type_is_empty (const Onnx__TypeProto *type)
{
  return type == NULL || type->value_case == ONNX__TYPE_PROTO__VALUE__NOT_SET;
}

static gboolean
same_type (const Onnx__TypeProto *a, const Onnx__TypeProto *b)
{
  if (type_is_empty (a) || type_is_empty (b))
    return type_is_empty (a) == type_is_empty (b);
  return onyx_proto_equal (&a->base, &b->base);
}

static guint
refine_types (OnyxDocument *doc, OnyxShapes *shapes, Onnx__GraphProto *graph,
              Onnx__ValueInfoProto **infos, size_t n_infos)
{
  guint n = 0;
  for (size_t i = 0; i < n_infos; i++)
    {
      const Onnx__TypeProto *type = onyx_shapes_lookup (shapes, graph, infos[i]->name, NULL);
      if (type == NULL || same_type (type, infos[i]->type))
        continue;
      onyx_document_set_value_type (doc, infos[i], (Onnx__TypeProto *) onyx_proto_copy (&type->base));
      n++;
    }
  return n;
}

typedef struct {
  GHashTable *position;         /* node → its position + 1 */
  gsize first;                  /* the earliest node reading what a later one makes, + 1 */
  const char *tensor;           /* what it reads */
} OrderCheck;

static void
check_value_order (gpointer key, gpointer value, gpointer data)
{
  const OnyxValue *v = value;
  OrderCheck *check = data;
  gsize made;

  if (v->producer == NULL)
    return;
  made = GPOINTER_TO_SIZE (g_hash_table_lookup (check->position, v->producer));
  for (guint u = 0; u < v->uses->len; u++)
    {
      gsize at = GPOINTER_TO_SIZE (g_hash_table_lookup (check->position, g_array_index (v->uses, OnyxUse, u).node));
      if (at != 0 && at <= made && (check->first == 0 || at < check->first))
        {
          check->first = at;
          check->tensor = v->name;
        }
    }
}

/* The first node of a graph of the model that reads what a node after it (or itself)
 * makes, said as validation says it; NULL when every graph is in order. From the
 * document's indexes, by node pointers: this runs before every inference step, and a
 * whole validation (or hashing every name) cost more than the step itself. */
static char *
order_problem (OnyxDocument *doc, GPtrArray *graphs)
{
  GPtrArray *validation = onyx_document_peek_validation (doc);

  /* Unsorted nodes are a validation error (as is a cycle, or a second producer that
   * could hide one): a validation of this revision without errors has found every
   * graph in order, and the scan (5 ms on a 13k-node graph) is not needed. */
  if (validation != NULL && onyx_problems_count (validation, ONYX_PROBLEM_ERROR) == 0)
    return NULL;
  for (guint g = 0; g < graphs->len; g++)
    {
      Onnx__GraphProto *graph = graphs->pdata[g];
      g_autoptr (GHashTable) position = g_hash_table_new (g_direct_hash, g_direct_equal);
      OrderCheck check = { position, 0, NULL };

      for (size_t n = 0; n < graph->n_node; n++)
        g_hash_table_insert (position, graph->node[n], GSIZE_TO_POINTER (n + 1));
      onyx_graph_index_foreach (onyx_document_get_graph_index (doc, graph), check_value_order, &check);
      if (check.first != 0)
        {
          g_autofree char *label = onyx_node_label (graph->node[check.first - 1], (int) check.first - 1);
          g_autofree char *shown = onyx_display_escape (check.tensor);
          return g_strdup_printf (_("nodes are not in topological order: %s uses '%s' before it is produced"),
                                  label, shown);
        }
    }
  return NULL;
}

static gboolean
replay_infer_shapes (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  return onyx_edit_infer_shapes (doc, NULL, error);
}

static const OnyxReplayStep infer_shapes_step = { "infer-shapes", 0, replay_infer_shapes };

gboolean
onyx_edit_infer_shapes (OnyxDocument *doc, guint *n_written, GError **error)
{
  Onnx__ModelProto *model = onyx_document_get_proto (doc);
  /* Not functions' bodies: a function is typed at each call, not once. */
  g_autoptr (GPtrArray) graphs = onyx_graph_list_graphs (model);
  g_autofree char *unordered = order_problem (doc, graphs);
  OnyxShapes *shapes;
  guint n = 0;

  if (unordered != NULL)
    {
      g_set_error (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID,
                   _("shape inference reads the nodes in file order, so they must be sorted first "
                     "(%s): add --toposort before this step"), unordered);
      return FALSE;
    }
  shapes = onyx_shapes_ref (onyx_document_get_shapes (doc));

  onyx_document_begin_command (doc, _("Write inferred shapes"));
  onyx_replay_note (doc, &infer_shapes_step, NULL);
  for (guint g = 0; g < graphs->len; g++)
    {
      Onnx__GraphProto *graph = graphs->pdata[g];
      g_autoptr (GPtrArray) infos = onyx_shapes_new_value_infos (shapes, graph);
      onyx_document_insert_items (doc, &graph->base, "value_info", graph->n_value_info,
                                  (ProtobufCMessage *const *) infos->pdata, infos->len);
      n += infos->len;
      /* Recorded types take what inference adds to them (a dim_param it finds a
       * value for, a missing shape), as onnx.shape_inference writes them back. */
      n += refine_types (doc, shapes, graph, graph->input, graph->n_input);  /* a body's, by its holder */
      n += refine_types (doc, shapes, graph, graph->output, graph->n_output);
      n += refine_types (doc, shapes, graph, graph->value_info, graph->n_value_info - infos->len);
    }
  onyx_document_commit_command (doc);
  onyx_shapes_unref (shapes);
  if (n_written != NULL)
    *n_written = n;
  return TRUE;
}

/* ---- convert-opset ---- */

/* Large payloads went to libonnx cut to one element (onyx-shapes-private.h); what
 * comes back is matched to the original by name: initializers by theirs, Constant
 * values by the node's output. */
typedef struct {
  GHashTable *initializers;   /* name → original TensorProto */
  GHashTable *constants;      /* output name → original TensorProto of its `value` */
} Originals;

static gboolean
is_cut (const Onnx__TensorProto *tensor)
{
  guint64 n_elements;
  if (!onyx_dims_n_elements (tensor->dims, tensor->n_dims, &n_elements) || n_elements <= 1)
    return FALSE;
  return (tensor->has_raw_data && tensor->raw_data.len == 1) ||
         tensor->n_float_data == 1 || tensor->n_int32_data == 1 || tensor->n_int64_data == 1 ||
         tensor->n_double_data == 1 || tensor->n_uint64_data == 1;
}

#define COPY_ARRAY(to, from, field)                                                         \
  G_STMT_START {                                                                            \
    free ((to)->field);                                                                     \
    (to)->n_##field = (from)->n_##field;                                                    \
    (to)->field = (from)->n_##field > 0                                                     \
                    ? g_memdup2 ((from)->field, (from)->n_##field * sizeof *(from)->field)  \
                    : NULL;                                                                 \
  } G_STMT_END

/* The original's values into the converted tensor (copied: the new tensor is freed
 * on its own). */
static void
restore_payload (Onnx__TensorProto *tensor, const Onnx__TensorProto *original)
{
  free (tensor->raw_data.data);
  tensor->has_raw_data = original->has_raw_data;
  tensor->raw_data.len = original->raw_data.len;
  tensor->raw_data.data = original->raw_data.len > 0
                            ? g_memdup2 (original->raw_data.data, original->raw_data.len) : NULL;
  COPY_ARRAY (tensor, original, float_data);
  COPY_ARRAY (tensor, original, int32_data);
  COPY_ARRAY (tensor, original, int64_data);
  COPY_ARRAY (tensor, original, double_data);
  COPY_ARRAY (tensor, original, uint64_data);
}

static const Onnx__TensorProto *
constant_value (const Onnx__NodeProto *node)
{
  if (g_strcmp0 (node->op_type, "Constant") != 0 || node->n_output != 1 || !onyx_domain_is_default (node->domain))
    return NULL;
  for (size_t a = 0; a < node->n_attribute; a++)
    if (g_strcmp0 (node->attribute[a]->name, "value") == 0 && node->attribute[a]->t != NULL)
      return node->attribute[a]->t;
  return NULL;
}

static void
collect_originals (const Onnx__GraphProto *graph, Originals *originals)
{
  for (size_t i = 0; i < graph->n_initializer; i++)
    if (graph->initializer[i]->name != NULL)
      g_hash_table_insert (originals->initializers, graph->initializer[i]->name, graph->initializer[i]);
  for (size_t n = 0; n < graph->n_node; n++)
    {
      const Onnx__NodeProto *node = graph->node[n];
      const Onnx__TensorProto *value = constant_value (node);
      if (value != NULL)
        g_hash_table_insert (originals->constants, node->output[0], (gpointer) value);
      for (size_t a = 0; a < node->n_attribute; a++)
        {
          if (node->attribute[a]->g != NULL)
            collect_originals (node->attribute[a]->g, originals);
          for (size_t k = 0; k < node->attribute[a]->n_graphs; k++)
            collect_originals (node->attribute[a]->graphs[k], originals);
        }
    }
}

typedef struct {
  Originals *originals;
  gboolean lost;          /* a cut tensor could not be matched */
} Restore;

static void restore_graph (Onnx__GraphProto *graph, Restore *restore);

static void
restore_tensor (Onnx__TensorProto *tensor, const Onnx__TensorProto *original, Restore *restore)
{
  if (!is_cut (tensor))
    return;
  if (original == NULL)
    restore->lost = TRUE;
  else
    restore_payload (tensor, original);
}

static void
restore_node (Onnx__NodeProto *node, Restore *restore)
{
  const Onnx__TensorProto *value = constant_value (node);

  for (size_t a = 0; a < node->n_attribute; a++)
    {
      Onnx__AttributeProto *attribute = node->attribute[a];
      if (attribute->t != NULL)
        restore_tensor (attribute->t,
                        attribute->t == value
                          ? g_hash_table_lookup (restore->originals->constants, node->output[0]) : NULL,
                        restore);
      for (size_t k = 0; k < attribute->n_tensors; k++)
        restore_tensor (attribute->tensors[k], NULL, restore);
      if (attribute->g != NULL)
        restore_graph (attribute->g, restore);
      for (size_t k = 0; k < attribute->n_graphs; k++)
        restore_graph (attribute->graphs[k], restore);
    }
}

static void
restore_graph (Onnx__GraphProto *graph, Restore *restore)
{
  for (size_t i = 0; i < graph->n_initializer; i++)
    restore_tensor (graph->initializer[i],
                    g_hash_table_lookup (restore->originals->initializers, graph->initializer[i]->name),
                    restore);
  for (size_t n = 0; n < graph->n_node; n++)
    restore_node (graph->node[n], restore);
}

/* Two messages say the same, large payloads aside. */
static gboolean
same_light (const ProtobufCMessage *a, const ProtobufCMessage *b)
{
  g_autoptr (GBytes) packed_a = onyx_shapes_pack_light (a);
  g_autoptr (GBytes) packed_b = onyx_shapes_pack_light (b);
  return g_bytes_equal (packed_a, packed_b);
}

static Onnx__NodeProto *
find_same_node (GHashTable *by_output, const Onnx__NodeProto *node)
{
  Onnx__NodeProto *original;
  if (node->n_output == 0 || node->output[0] == NULL)
    return NULL;
  original = g_hash_table_lookup (by_output, node->output[0]);
  return original != NULL && same_light (&original->base, &node->base) ? original : NULL;
}

static gssize
initializer_position (const Onnx__GraphProto *graph, const char *name)
{
  for (size_t i = 0; i < graph->n_initializer; i++)
    if (g_strcmp0 (graph->initializer[i]->name, name) == 0)
      return (gssize) i;
  return -1;
}

/* How the main graph becomes the converted one: nodes that did not change stay as
 * they are (with their payloads), the others are replaced; likewise initializers. */
typedef struct {
  GPtrArray *order;       /* the nodes as they will be: kept originals and new ones */
  GHashTable *kept;       /* original nodes that stay */
  GHashTable *new_initializers;  /* converted initializers that replace or add one */
} Plan;

static void
plan_clear (Plan *plan)
{
  g_clear_pointer (&plan->order, g_ptr_array_unref);
  g_clear_pointer (&plan->kept, g_hash_table_unref);
  g_clear_pointer (&plan->new_initializers, g_hash_table_unref);
}

/* Only what is taken from the converted model needs its payloads back. */
static void
plan_conversion (Plan *plan, const Onnx__GraphProto *graph, Onnx__GraphProto *converted,
                 Restore *restore)
{
  g_autoptr (GHashTable) by_output = g_hash_table_new (g_str_hash, g_str_equal);

  plan->order = g_ptr_array_new ();
  plan->kept = g_hash_table_new (NULL, NULL);
  plan->new_initializers = g_hash_table_new (NULL, NULL);
  for (size_t n = 0; n < graph->n_node; n++)
    if (graph->node[n]->n_output > 0 && graph->node[n]->output[0] != NULL)
      g_hash_table_insert (by_output, graph->node[n]->output[0], graph->node[n]);
  for (size_t n = 0; n < converted->n_node; n++)
    {
      Onnx__NodeProto *same = find_same_node (by_output, converted->node[n]);
      if (same != NULL && !g_hash_table_contains (plan->kept, same))
        g_hash_table_add (plan->kept, same);
      else
        {
          same = NULL;
          restore_node (converted->node[n], restore);
        }
      g_ptr_array_add (plan->order, same != NULL ? same : converted->node[n]);
    }
  for (size_t i = 0; i < converted->n_initializer; i++)
    {
      gssize at = initializer_position (graph, converted->initializer[i]->name);
      if (at >= 0 && same_light (&graph->initializer[at]->base, &converted->initializer[i]->base))
        continue;
      restore_tensor (converted->initializer[i],
                      g_hash_table_lookup (restore->originals->initializers, converted->initializer[i]->name),
                      restore);
      g_hash_table_add (plan->new_initializers, converted->initializer[i]);
    }
}

static void
take_from (Onnx__GraphProto *converted, gpointer item)
{
  for (size_t n = 0; n < converted->n_node; n++)
    if (converted->node[n] == item)
      converted->node[n] = NULL;  /* the document owns it now */
  for (size_t i = 0; i < converted->n_initializer; i++)
    if (converted->initializer[i] == item)
      converted->initializer[i] = NULL;
}

static void
apply_conversion (OnyxDocument *doc, Plan *plan, Onnx__GraphProto *graph, Onnx__GraphProto *converted)
{
  GPtrArray *order = plan->order;

  for (size_t n = graph->n_node; n-- > 0;)
    if (!g_hash_table_contains (plan->kept, graph->node[n]))
      onyx_document_remove_item (doc, &graph->base, "node", n);
  /* Kept nodes keep their order among themselves; new ones go in between. */
  for (guint i = 0; i < order->len; i++)
    if (!g_hash_table_contains (plan->kept, order->pdata[i]))
      {
        onyx_document_insert_item (doc, &graph->base, "node", i, order->pdata[i]);
        take_from (converted, order->pdata[i]);
      }
  for (guint i = 0; i < order->len; i++)
    if (graph->node[i] != order->pdata[i])
      {
        onyx_document_set_node_order (doc, graph, (Onnx__NodeProto **) order->pdata);
        break;
      }

  for (size_t i = graph->n_initializer; i-- > 0;)
    {
      gssize at = initializer_position (converted, graph->initializer[i]->name);
      if (at < 0 || g_hash_table_contains (plan->new_initializers, converted->initializer[at]))
        onyx_document_remove_item (doc, &graph->base, "initializer", i);
    }
  for (size_t i = 0; i < converted->n_initializer; i++)
    if (g_hash_table_contains (plan->new_initializers, converted->initializer[i]))
      {
        Onnx__TensorProto *tensor = converted->initializer[i];
        onyx_document_insert_item (doc, &graph->base, "initializer", graph->n_initializer, &tensor->base);
        take_from (converted, tensor);
      }
}

static void
set_default_opset (OnyxDocument *doc, Onnx__ModelProto *model, int target)
{
  Onnx__OperatorSetIdProto *opset = g_malloc (sizeof *opset);

  for (size_t i = 0; i < model->n_opset_import; i++)
    if (onyx_domain_is_default (model->opset_import[i]->domain))
      {
        onyx_document_remove_item (doc, &model->base, "opset_import", i);
        break;
      }
  onnx__operator_set_id_proto__init (opset);
  opset->domain = g_strdup ("");
  opset->has_version = TRUE;
  opset->version = target;
  onyx_document_insert_item (doc, &model->base, "opset_import", 0, &opset->base);
}

/* protobuf-c frees NULL elements of repeated fields as nothing; the taken ones were
 * set to NULL. */
static void
free_converted (Onnx__ModelProto *converted)
{
  Onnx__GraphProto *graph = converted->graph;
  size_t kept = 0;
  for (size_t n = 0; n < graph->n_node; n++)
    if (graph->node[n] != NULL)
      graph->node[kept++] = graph->node[n];
  graph->n_node = kept;
  kept = 0;
  for (size_t i = 0; i < graph->n_initializer; i++)
    if (graph->initializer[i] != NULL)
      graph->initializer[kept++] = graph->initializer[i];
  graph->n_initializer = kept;
  onnx__model_proto__free_unpacked (converted, NULL);
}

/* The operator and versions out of the converter's assertion ("…: No Adapter From
 * Version $13 for Flatten"), as one sentence; the model as a whole when the text
 * names no operator. */
static char *
converter_sentence (const char *raw, gint64 source, int target)
{
  static const char *const patterns[] = {
    "No Adapter From Version \\$?([0-9]+) for ([^ ;\n]+)",
    "No Adapter To Version \\$?([0-9]+) for ([^ ;\n]+)",
    "No Adapter For ([^ ;\n]+)",
    "No Previous Version of ([^ ;\n]+) exists",
  };
  const char *library = onyx_schema_onnx_version ();

  for (guint p = 0; p < G_N_ELEMENTS (patterns); p++)
    {
      g_autoptr (GRegex) regex = g_regex_new (patterns[p], 0, 0, NULL);
      g_autoptr (GMatchInfo) match = NULL;
      g_autofree char *op = NULL, *shown = NULL, *number = NULL;
      gint64 from = source, to = target;

      if (!g_regex_match (regex, raw, 0, &match))
        continue;
      op = g_match_info_fetch (match, p < 2 ? 2 : 1);
      shown = onyx_display_escape (op);
      if (p < 2)
        {
          number = g_match_info_fetch (match, 1);
          *(p == 0 ? &from : &to) = g_ascii_strtoll (number, NULL, 10);
        }
      if (from > 0)
        return g_strdup_printf (_("ONNX %s cannot convert %s from opset %lld to %lld"),
                                library, shown, (long long) from, (long long) to);
      return g_strdup_printf (_("ONNX %s cannot convert %s to opset %lld"), library, shown, (long long) to);
    }
  return g_strdup_printf (_("ONNX %s cannot convert the model to opset %d"), library, target);
}

/* The worker's text as an error: a sentence, with the converter's words as details. */
static void
set_convert_error (GError **error, const char *text, gint64 source, int target)
{
  g_autofree char *sentence = NULL;
  GError *made;

  if (text[0] != ONYX_ONNX_TEXT_LIBRARY)
    {
      g_set_error_literal (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID, text + (text[0] == ONYX_ONNX_TEXT_ONYX));
      return;
    }
  sentence = converter_sentence (text + 1, source, target);
  made = g_error_new_literal (ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_LIBRARY, sentence);
  onyx_edit_error_set_details (made, text + 1);
  g_propagate_error (error, made);
}

/* A conversion worked out but not applied: what the converter made and how it
 * replaces the main graph. */
struct _OnyxConversion {
  OnyxDocument *doc;
  int target;
  gint64 source;
  Onnx__ModelProto *converted;
  Plan plan;
};

void
onyx_conversion_free (OnyxConversion *conversion)
{
  plan_clear (&conversion->plan);
  if (conversion->converted != NULL)
    free_converted (conversion->converted);
  g_object_unref (conversion->doc);
  g_free (conversion);
}

/* On the caller's thread: what can be said before any work. */
OnyxConversion *
onyx_conversion_new (OnyxDocument *doc, int target, GError **error)
{
  Onnx__ModelProto *model = onyx_document_get_proto (doc);
  OnyxConversion *conversion;
  gint64 source = -1;

  for (size_t i = 0; i < model->n_opset_import; i++)
    if (onyx_domain_is_default (model->opset_import[i]->domain))
      source = model->opset_import[i]->version;
  if (target < 1 || target > onyx_schema_domain_version (""))
    {
      onyx_edit_fail (error, ONYX_EDIT_ERROR_INVALID, _("opset %d is not an opset of ai.onnx this build knows (1 to %d)"),
                      target, onyx_schema_domain_version (""));
      return NULL;
    }
  if (source == target)
    {
      onyx_edit_fail (error, ONYX_EDIT_ERROR_INVALID, _("the model is at opset %d already"), target);
      return NULL;
    }
  conversion = g_new0 (OnyxConversion, 1);
  conversion->doc = g_object_ref (doc);
  conversion->target = target;
  conversion->source = source;
  return conversion;
}

/* The slow part, reading the model only: safe in a thread while the document is
 * frozen. */
gboolean
onyx_conversion_prepare (OnyxConversion *conversion, GError **error)
{
  Onnx__ModelProto *model = onyx_document_get_proto (conversion->doc);
  g_autoptr (GBytes) light = NULL, result = NULL;
  g_autofree char *message = NULL;
  Originals originals;
  Restore restore = { &originals, FALSE };
  Onnx__ModelProto *converted;

  light = onyx_shapes_pack_light (&model->base);
  result = onyx_onnx_run_isolated (ONYX_ONNX_JOB_CONVERT, light, conversion->target, &message, error);
  if (result == NULL)
    {
      if (message != NULL)
        set_convert_error (error, message, conversion->source, conversion->target);
      return FALSE;
    }
  converted = onnx__model_proto__unpack (NULL, g_bytes_get_size (result), g_bytes_get_data (result, NULL));
  if (converted == NULL || converted->graph == NULL)
    {
      if (converted != NULL)
        onnx__model_proto__free_unpacked (converted, NULL);
      return onyx_edit_fail (error, ONYX_EDIT_ERROR_INVALID, _("the converted model cannot be read back"));
    }
  conversion->converted = converted;
  originals.initializers = g_hash_table_new (g_str_hash, g_str_equal);
  originals.constants = g_hash_table_new (g_str_hash, g_str_equal);
  collect_originals (model->graph, &originals);
  plan_conversion (&conversion->plan, model->graph, converted->graph, &restore);
  g_hash_table_unref (originals.initializers);
  g_hash_table_unref (originals.constants);
  if (restore.lost)
    return onyx_edit_fail (error, ONYX_EDIT_ERROR_INVALID,
                           _("the converter changed a large tensor Onyx cannot match to the original"));
  return TRUE;
}

static gboolean
replay_convert_opset (OnyxDocument *doc, const char *const *arguments, GError **error)
{
  guint target;

  return onyx_replay_parse_count (arguments[0], &target, error) && onyx_edit_convert_opset (doc, (int) target, error);
}

static const OnyxReplayStep convert_opset_step = { "convert-opset", 1, replay_convert_opset };

/* On the caller's thread, the document not frozen: one command. */
void
onyx_conversion_apply (OnyxConversion *conversion)
{
  OnyxDocument *doc = conversion->doc;
  Onnx__ModelProto *model = onyx_document_get_proto (doc);
  g_autofree char *label = g_strdup_printf (_("Convert to opset %d"), conversion->target);
  g_autofree char *target = onyx_replay_count_text ((guint) conversion->target);

  onyx_document_begin_command (doc, label);
  onyx_replay_note (doc, &convert_opset_step, target, NULL);
  apply_conversion (doc, &conversion->plan, model->graph, conversion->converted->graph);
  set_default_opset (doc, model, conversion->target);
  onyx_document_commit_command (doc);
}

gboolean
onyx_edit_convert_opset (OnyxDocument *doc, int target, GError **error)
{
  OnyxConversion *conversion = onyx_conversion_new (doc, target, error);
  gboolean ok;

  if (conversion == NULL)
    return FALSE;
  ok = onyx_conversion_prepare (conversion, error);
  if (ok)
    onyx_conversion_apply (conversion);
  onyx_conversion_free (conversion);
  return ok;
}


const OnyxReplayStep *const onyx_convert_replay_steps[] = { &infer_shapes_step, &convert_opset_step, NULL };
