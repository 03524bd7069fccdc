/* onyx-onnx.cc: the C interface to ONNX's reference library (onyx-onnx.h). */
#include "onyx-onnx.h"

#include <string>
#include <unordered_map>
#include <unordered_set>

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include "onyx-error.h"
#include "onyx-ort-schemas.h"

namespace {

bool
parse_model (GBytes *bytes, onnx::ModelProto &model, GError **error)
{
  gsize size = 0;
  const void *data = g_bytes_get_data (bytes, &size);

  if (size > G_MAXINT || !model.ParseFromArray (data, (int) size))
    {
      g_set_error_literal (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_MALFORMED,
                           "libonnx cannot read the model");
      return false;
    }
  return true;
}

GBytes *
serialize_model (const onnx::ModelProto &model)
{
  std::string *out = new std::string;
  model.SerializeToString (out);
  return g_bytes_new_with_free_func (out->data (), out->size (),
                                     [] (gpointer p) { delete static_cast<std::string *> (p); }, out);
}

/* The same pre-order as onyx-shapes.c walks the protobuf-c model in. */
void
rename_nodes (onnx::GraphProto *graph, guint64 &counter)
{
  for (auto &node : *graph->mutable_node ())
    {
      node.set_name ("onyx:" + std::to_string (counter++));
      for (auto &attribute : *node.mutable_attribute ())
        {
          if (attribute.has_g ())
            rename_nodes (attribute.mutable_g (), counter);
          for (auto &body : *attribute.mutable_graphs ())
            rename_nodes (&body, counter);
        }
    }
}

static bool
holds_graphs (const onnx::NodeProto &node)
{
  for (const auto &attribute : node.attribute ())
    if (attribute.has_g () || attribute.graphs_size () > 0)
      return true;
  return false;
}

/* Only the types are read back: the rest of each graph goes. Subgraphs keep their
 * positions (their holder's place among the nodes, their attribute's among the
 * attributes, emptied); nodes after the last holder and the attributes of nodes
 * that hold none go altogether, which the reader takes as "no subgraphs there". */
void
keep_types_only (onnx::GraphProto *graph)
{
  int kept = 0;
  graph->clear_initializer ();
  graph->clear_sparse_initializer ();
  graph->clear_doc_string ();
  for (int n = 0; n < graph->node_size (); n++)
    {
      onnx::NodeProto &node = *graph->mutable_node (n);
      if (!holds_graphs (node))
        {
          node.Clear ();
          continue;
        }
      kept = n + 1;
      node.clear_input ();
      node.clear_output ();
      node.clear_name ();
      node.clear_doc_string ();
      for (auto &attribute : *node.mutable_attribute ())
        {
          if (!attribute.has_g () && attribute.graphs_size () == 0)
            {
              attribute.Clear ();
              continue;
            }
          if (attribute.has_g ())
            keep_types_only (attribute.mutable_g ());
          for (auto &body : *attribute.mutable_graphs ())
            keep_types_only (&body);
        }
    }
  graph->mutable_node ()->DeleteSubrange (kept, graph->node_size () - kept);
}

/* The checker looks for external data files relative to the working folder; Onyx
 * has resolved them already, so they stand in as one byte of raw data, as the large
 * payloads left out by the caller do. */
void
inline_external (onnx::TensorProto &tensor)
{
  if (tensor.data_location () != onnx::TensorProto::EXTERNAL)
    return;
  tensor.clear_external_data ();
  tensor.set_data_location (onnx::TensorProto::DEFAULT);
  gint64 n_elements = 1;
  for (auto dim : tensor.dims ())
    n_elements *= dim;
  if (n_elements != 0)
    tensor.set_raw_data (std::string (1, '\0'));
}

void inline_external (onnx::GraphProto &graph);

void
inline_external (onnx::NodeProto &node)
{
  for (auto &attribute : *node.mutable_attribute ())
    {
      if (attribute.has_t ())
        inline_external (*attribute.mutable_t ());
      for (auto &tensor : *attribute.mutable_tensors ())
        inline_external (tensor);
      if (attribute.has_g ())
        inline_external (*attribute.mutable_g ());
      for (auto &body : *attribute.mutable_graphs ())
        inline_external (body);
    }
}

void
inline_external (onnx::GraphProto &graph)
{
  for (auto &tensor : *graph.mutable_initializer ())
    inline_external (tensor);
  for (auto &node : *graph.mutable_node ())
    inline_external (node);
}

void
inline_external (onnx::ModelProto &model)
{
  inline_external (*model.mutable_graph ());
  for (auto &function : *model.mutable_functions ())
    for (auto &node : *function.mutable_node ())
      inline_external (node);
}

/* ONNX 1.22 infers an operator defined as a function (MeanVarianceNormalization)
 * through its body without the schema's defaults for attributes the body refers to,
 * and then fails on its own body ("One and only one of the attributes 'value'…" of a
 * Constant): the copy handed to inference spells the defaults out. */
void
spell_out_defaults (onnx::NodeProto &node, const onnx::OpSchema &schema)
{
  if (!schema.HasFunction () && !schema.HasContextDependentFunction ())
    return;
  for (const auto &entry : schema.attributes ())
    {
      const onnx::AttributeProto &value = entry.second.default_value;
      bool given = false;
      if (value.type () == onnx::AttributeProto::UNDEFINED)
        continue;
      for (const auto &attribute : node.attribute ())
        given = given || attribute.name () == entry.first;
      if (!given)
        *node.add_attribute () = value;
    }
}

/* libonnx's inference functions trust the node to match its schema (the checker
 * verifies that first): a Scan without num_scan_inputs crashes it. Nodes that do not
 * verify are moved to a domain without schemas, which inference passes over; Onyx's
 * own diagnostics report what is wrong with them. Returns how many were moved. */
const char UNVERIFIED_DOMAIN[] = "onyx.unverified";

int
set_aside_unverified (onnx::GraphProto *graph, const std::unordered_map<std::string, int> &opsets)
{
  int n = 0;
  for (auto &node : *graph->mutable_node ())
    {
      const std::string domain = node.domain () == "ai.onnx" ? "" : node.domain ();
      auto opset = opsets.find (domain);
      const onnx::OpSchema *schema = opset != opsets.end ()
                                       ? onnx::OpSchemaRegistry::Schema (node.op_type (), opset->second, domain)
                                       : nullptr;
      if (schema != nullptr)
        {
          try
            {
              schema->Verify (node);
            }
          catch (const std::exception &)
            {
              node.set_domain (UNVERIFIED_DOMAIN);
              n++;
              continue;
            }
          spell_out_defaults (node, *schema);
        }
      for (auto &attribute : *node.mutable_attribute ())
        {
          if (attribute.has_g ())
            n += set_aside_unverified (attribute.mutable_g (), opsets);
          for (auto &body : *attribute.mutable_graphs ())
            n += set_aside_unverified (&body, opsets);
        }
    }
  return n;
}

int
set_aside_unverified (onnx::ModelProto &model)
{
  std::unordered_map<std::string, int> opsets;
  for (const auto &opset : model.opset_import ())
    opsets[opset.domain () == "ai.onnx" ? "" : opset.domain ()] = (int) opset.version ();
  int n = set_aside_unverified (model.mutable_graph (), opsets);
  if (n > 0)
    {
      onnx::OperatorSetIdProto *opset = model.add_opset_import ();
      opset->set_domain (UNVERIFIED_DOMAIN);
      opset->set_version (1);
    }
  return n;
}

int
default_opset (const onnx::ModelProto &model)
{
  for (const auto &opset : model.opset_import ())
    if (opset.domain ().empty () || opset.domain () == "ai.onnx")
      return (int) opset.version ();
  return -1;
}

/* Names in use in a graph, and new ones made unique against them. */
struct Names
{
  std::unordered_set<std::string> used;

  std::string
  fresh (const std::string &base)
  {
    std::string name = base;
    for (int i = 1; used.count (name) != 0; i++)
      name = base + "_" + std::to_string (i);
    used.insert (name);
    return name;
  }
};

int
known_rank (const onnx::GraphProto &graph, const std::string &name)
{
  auto rank_of = [&] (const onnx::ValueInfoProto &info) {
    if (info.name () != name || !info.type ().has_tensor_type () || !info.type ().tensor_type ().has_shape ())
      return -1;
    return info.type ().tensor_type ().shape ().dim_size ();
  };
  for (const auto &info : graph.value_info ())
    if (rank_of (info) >= 0)
      return rank_of (info);
  for (const auto &info : graph.input ())
    if (rank_of (info) >= 0)
      return rank_of (info);
  for (const auto &tensor : graph.initializer ())
    if (tensor.name () == name)
      return tensor.dims_size ();
  return -1;
}

onnx::NodeProto
make_node (Names &node_names, const std::string &base, const char *op_type,
           std::initializer_list<std::string> inputs, const std::string &output)
{
  onnx::NodeProto node;
  node.set_name (node_names.fresh (base));
  node.set_op_type (op_type);
  for (const auto &input : inputs)
    node.add_input (input);
  node.add_output (output);
  return node;
}

/* Softmax, LogSoftmax and Hardmax of opset < 13 work on the input flattened to 2D at
 * `axis`; from 13 on, on one axis. On a 2D input with axis 1 both agree, so
 * Flatten → op(axis=1) → Reshape(Shape(x)) means the same at every opset, whatever
 * the input's shape. The flattened tensor is declared 2D for the converter, which
 * needs a rank to convert the op. Returns the names of those declarations. */
std::unordered_set<std::string>
rewrite_axis_operators (onnx::ModelProto &model)
{
  std::unordered_set<std::string> declared;
  onnx::GraphProto *graph = model.mutable_graph ();
  Names tensors, node_names;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;

  for (const auto &node : graph->node ())
    {
      node_names.used.insert (node.name ());
      for (const auto &name : node.input ())
        tensors.used.insert (name);
      for (const auto &name : node.output ())
        tensors.used.insert (name);
    }
  for (const auto &info : graph->input ())
    tensors.used.insert (info.name ());
  for (const auto &tensor : graph->initializer ())
    tensors.used.insert (tensor.name ());

  for (const auto &node : graph->node ())
    {
      const std::string &op = node.op_type ();
      bool default_domain = node.domain ().empty () || node.domain () == "ai.onnx";
      if (!default_domain || (op != "Softmax" && op != "LogSoftmax" && op != "Hardmax") ||
          node.input_size () != 1 || node.output_size () != 1)
        {
          *nodes.Add () = node;
          continue;
        }
      gint64 axis = 1;
      for (const auto &attribute : node.attribute ())
        if (attribute.name () == "axis")
          axis = attribute.i ();
      int rank = known_rank (*graph, node.input (0));
      if (rank > 0 && (axis == rank - 1 || axis == -1))
        {
          *nodes.Add () = node;  // the converter only sets axis = -1
          continue;
        }

      const std::string &x = node.input (0), &y = node.output (0);
      std::string base = node.name ().empty () ? y : node.name ();
      std::string shape = tensors.fresh (y + "_shape"), flat = tensors.fresh (y + "_2d"),
                  inner = tensors.fresh (y + "_2d_out");

      *nodes.Add () = make_node (node_names, base + "/Shape", "Shape", { x }, shape);
      onnx::NodeProto flatten = make_node (node_names, base + "/Flatten", "Flatten", { x }, flat);
      onnx::AttributeProto *flatten_axis = flatten.add_attribute ();
      flatten_axis->set_name ("axis");
      flatten_axis->set_type (onnx::AttributeProto::INT);
      flatten_axis->set_i (axis);
      *nodes.Add () = flatten;

      onnx::NodeProto *op_node = nodes.Add ();
      *op_node = node;
      op_node->set_input (0, flat);
      op_node->set_output (0, inner);
      op_node->clear_attribute ();
      onnx::AttributeProto *op_axis = op_node->add_attribute ();
      op_axis->set_name ("axis");
      op_axis->set_type (onnx::AttributeProto::INT);
      op_axis->set_i (1);
      *nodes.Add () = make_node (node_names, base + "/Reshape", "Reshape", { inner, shape }, y);

      onnx::ValueInfoProto *info = graph->add_value_info ();
      info->set_name (flat);
      onnx::TensorShapeProto *dims = info->mutable_type ()->mutable_tensor_type ()->mutable_shape ();
      dims->add_dim ();
      dims->add_dim ();
      declared.insert (flat);
    }
  graph->mutable_node ()->Swap (&nodes);
  return declared;
}

} // namespace

/* Each call parses its model before it waits for the schemas (onyx_onnx_prepare):
 * in the helper they load in a thread of their own while the first model comes in. */
extern "C" GBytes *
onyx_onnx_infer_shapes (GBytes *model_bytes, gboolean check_types, char **errors, GError **error)
{
  /* One arena for the whole model: freeing thousands of small messages one
     by one cost more than the inference itself. */
  google::protobuf::ArenaOptions arena_options;
  arena_options.start_block_size = 1 << 20;
  arena_options.max_block_size = 16 << 20;
  google::protobuf::Arena arena (arena_options);
  onnx::ModelProto &model = *google::protobuf::Arena::CreateMessage<onnx::ModelProto> (&arena);
  guint64 counter = 0;

  *errors = NULL;
  if (!parse_model (model_bytes, model, error))
    return NULL;
  onyx_onnx_prepare ();
  rename_nodes (model.mutable_graph (), counter);
  inline_external (model);
  try
    {
      set_aside_unverified (model);
      onnx::ShapeInferenceOptions options (check_types != FALSE, 1, false);
      onnx::shape_inference::InferShapes (model, onnx::OpSchemaRegistry::Instance (), options);
    }
  catch (const std::exception &e)
    {
      *errors = g_strdup (e.what ());
    }
  keep_types_only (model.mutable_graph ());
  model.clear_functions ();
  return serialize_model (model);
}

extern "C" gboolean
onyx_onnx_check_model (GBytes *model_bytes, char **message)
{
  onnx::ModelProto model;
  g_autoptr (GError) error = NULL;

  *message = NULL;
  if (!parse_model (model_bytes, model, &error))
    {
      *message = g_strdup (error->message);
      return FALSE;
    }
  onyx_onnx_prepare ();
  inline_external (model);
  try
    {
      onnx::checker::check_model (model);
    }
  catch (const std::exception &e)
    {
      *message = g_strdup (e.what ());
      return FALSE;
    }
  return TRUE;
}

extern "C" GBytes *
onyx_onnx_convert_version (GBytes *model_bytes, int target, GError **error)
{
  onnx::ModelProto model;

  if (!parse_model (model_bytes, model, error))
    return NULL;
  onyx_onnx_prepare ();
  inline_external (model);
  try
    {
      int source = default_opset (model);
      if (set_aside_unverified (model) > 0)
        {
          g_set_error_literal (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID,
                               "nodes do not match their operator's schema (onyx-cli check lists "
                               "them): fix them before converting");
          return NULL;
        }
      if (source < 0)
        {
          g_set_error_literal (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_INVALID,
                               "the model imports no ai.onnx opset to convert from");
          return NULL;
        }
      if (source < 13 && target >= 13)
        {
          if (source < 12)
            model = onnx::version_conversion::ConvertVersion (model, 12);
          onnx::shape_inference::InferShapes (model);
          std::unordered_set<std::string> declared = rewrite_axis_operators (model);
          model = onnx::version_conversion::ConvertVersion (model, target);
          auto *infos = model.mutable_graph ()->mutable_value_info ();
          for (int i = infos->size (); i-- > 0;)
            if (declared.count (infos->Get (i).name ()) != 0)
              infos->DeleteSubrange (i, 1);
        }
      else
        model = onnx::version_conversion::ConvertVersion (model, target);
    }
  catch (const std::exception &e)
    {
      // The caller makes a sentence of it (onyx-convert.c).
      g_set_error_literal (error, ONYX_EDIT_ERROR, ONYX_EDIT_ERROR_LIBRARY, e.what ());
      return NULL;
    }
  return serialize_model (model);
}

extern "C" void
onyx_onnx_prepare (void)
{
  static gsize done = 0;
  if (g_once_init_enter (&done))
    {
      // Every schema is registered on first use: in the parent, not in each child;
      // ONNX Runtime's after ONNX's.
      onyx_ort_register_schemas ();
      g_once_init_leave (&done, 1);
    }
}
