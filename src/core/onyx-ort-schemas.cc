// onyx-ort-schemas.cc: ONNX Runtime's operators (onyx-ort-operators.h) as schemas of
// ONNX's own registry, so that everything that reads the registry — the schema table
// written at build time, shape inference, the checker — knows them as it knows ONNX's:
// slots, attributes, types, and the shapes of the operators LLM, transformer and
// quantized exports are made of (onyx-ort-inference.cc). ai.onnx kernels that ONNX
// Runtime adds (SimplifiedLayerNormalization) are registered too, when the linked ONNX
// has no operator of that name.
#include <onnx/defs/data_type_utils.h>
#include <onnx/defs/schema.h>

#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "onyx-ort-operators.h"
#include "onyx-ort-schemas.h"

namespace {

std::set<std::pair<std::string, std::string>>& Registered() {
  static std::set<std::pair<std::string, std::string>> registered;
  return registered;
}

// Whether the linked ONNX can name the type ("tensor(int4)" is 1.16's, "tensor(int2)"
// 1.20's): a schema naming one it cannot would not register.
bool KnownType(const std::string& type) {
  try {
    onnx::Utils::DataTypeUtils::ToType(type);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// Every tensor type the linked ONNX knows (its own lists are named differently from
// release to release).
const std::vector<std::string>& AnyTensor() {
  static const std::vector<std::string> types = [] {
    static const char* const names[] = {
        "float",   "uint8",    "int8",        "uint16",        "int16",      "int32",          "int64",
        "string",  "bool",     "float16",     "double",        "uint32",     "uint64",         "complex64",
        "complex128", "bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "uint4",
        "int4"};
    std::vector<std::string> known;
    for (const char* name : names) {
      std::string type = std::string("tensor(") + name + ")";
      if (KnownType(type))
        known.push_back(type);
    }
    return known;
  }();
  return types;
}

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, separator)) {
    size_t start = part.find_first_not_of(' ');
    if (start != std::string::npos)
      parts.push_back(part.substr(start));
  }
  return parts;
}

void AddDefault(onnx::OpSchema& schema, const OnyxOrtAttribute& attr) {
  auto type = static_cast<onnx::AttributeProto::AttributeType>(attr.type);
  try {
    switch (attr.type) {
      case ONYX_ORT_ATTR_INT:
        schema.Attr(attr.name, "", type, static_cast<int64_t>(std::stoll(attr.default_value)));
        return;
      case ONYX_ORT_ATTR_FLOAT:
        schema.Attr(attr.name, "", type, std::stof(attr.default_value));
        return;
      case ONYX_ORT_ATTR_STRING:
        schema.Attr(attr.name, "", type, std::string(attr.default_value));
        return;
      default:
        break;
    }
  } catch (const std::exception&) {
  }
  schema.Attr(attr.name, "", type, false);
}

// The slots' constraint names and the constraints, the types the linked ONNX knows.
void AddParams(onnx::OpSchema& schema, const OnyxOrtParam* params, guint n, bool inputs,
               std::set<std::string>& used) {
  for (guint i = 0; i < n; i++) {
    const OnyxOrtParam& p = params[i];
    auto option = (p.flags & ONYX_ORT_VARIADIC)   ? onnx::OpSchema::Variadic
                  : (p.flags & ONYX_ORT_OPTIONAL) ? onnx::OpSchema::Optional
                                                  : onnx::OpSchema::Single;
    bool homogeneous = (p.flags & ONYX_ORT_HETEROGENEOUS) == 0;
    std::string type = p.type;
    // A fixed type the linked ONNX cannot name, or a list of them: any tensor.
    if (type.find('(') != std::string::npos && (type.find(',') != std::string::npos || !KnownType(type)))
      type = "T_" + std::string(p.name);
    used.insert(type);
    int min_arity = option == onnx::OpSchema::Variadic ? 1 : 1;
    if (inputs)
      schema.Input(static_cast<int>(i), p.name, "", type, option, homogeneous, min_arity);
    else
      schema.Output(static_cast<int>(i), p.name, "", type, option, homogeneous, min_arity);
  }
}

void Register(const OnyxOrtOperator& op) {
  onnx::OpSchema schema(op.name, "onnxruntime/docs/ContribOperators.md", 0);
  std::set<std::string> used;

  schema.SetDomain(op.domain).SinceVersion(op.since_version);
  AddParams(schema, op.inputs, op.n_inputs, true, used);
  AddParams(schema, op.outputs, op.n_outputs, false, used);
  for (guint a = 0; a < op.n_attributes; a++) {
    const OnyxOrtAttribute& attr = op.attributes[a];
    auto type = static_cast<onnx::AttributeProto::AttributeType>(attr.type);
    if (attr.default_value != nullptr)
      AddDefault(schema, attr);
    else
      schema.Attr(attr.name, "", type, attr.required != FALSE);
  }
  for (guint c = 0; c < op.n_constraints; c++) {
    std::vector<std::string> allowed;
    for (const auto& type : Split(op.constraints[c].types, ','))
      if (KnownType(type))
        allowed.push_back(type);
    if (used.count(op.constraints[c].name) == 0)
      continue;
    if (allowed.empty())
      allowed = AnyTensor();
    schema.TypeConstraint(op.constraints[c].name, allowed, "");
    used.erase(op.constraints[c].name);
  }
  // Slots the documentation types with what no constraint declares.
  for (const auto& name : used)
    if (name.find('(') == std::string::npos)
      schema.TypeConstraint(name, AnyTensor(), "");
  onyx_ort_set_inference(schema);
  onnx::RegisterSchema(schema);
  Registered().emplace(op.domain, op.name);
}

// A CPU kernel of ai.onnx (or another domain the linked ONNX knows) that ONNX has no
// operator of: slot names from the kernel table, attributes unchecked (the kernel
// table does not list them), any tensor type.
void RegisterKernel(const OnyxOrtKernel& kernel, int domain_max) {
  if (kernel.since_version > domain_max)
    return;
  for (int version = 1; version <= domain_max; version++)
    if (onnx::OpSchemaRegistry::Schema(kernel.name, version, kernel.domain) != nullptr)
      return;
  onnx::OpSchema schema(kernel.name, "onnxruntime/docs/OperatorKernels.md", 0);
  schema.SetDomain(kernel.domain).SinceVersion(kernel.since_version).AllowUncheckedAttributes();
  auto inputs = Split(kernel.inputs, ','), outputs = Split(kernel.outputs, ',');
  for (size_t i = 0; i < inputs.size(); i++)
    schema.Input(static_cast<int>(i), inputs[i], "", "T" + std::to_string(i), i == 0 ? onnx::OpSchema::Single
                                                                                      : onnx::OpSchema::Optional);
  for (size_t i = 0; i < outputs.size(); i++)
    schema.Output(static_cast<int>(i), outputs[i], "", "O" + std::to_string(i),
                  i == 0 ? onnx::OpSchema::Single : onnx::OpSchema::Optional);
  for (size_t i = 0; i < inputs.size(); i++)
    schema.TypeConstraint("T" + std::to_string(i), AnyTensor(), "");
  for (size_t i = 0; i < outputs.size(); i++)
    schema.TypeConstraint("O" + std::to_string(i), AnyTensor(), "");
  onyx_ort_set_inference(schema);
  onnx::RegisterSchema(schema);
  Registered().emplace(kernel.domain, kernel.name);
}

}  // namespace

extern "C" void
onyx_ort_register_schemas (void)
{
  static std::once_flag once;
  std::call_once(once, [] {
    auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance();
    // ONNX's schemas first: a kernel of a name ONNX knows is ONNX's operator.
    onnx::OpSchemaRegistry::Schema("Relu", 13, "");
    for (guint p = 0; p < onyx_ort_n_operator_parts; p++)
      for (guint i = 0; i < onyx_ort_operator_parts[p].n_operators; i++) {
        const OnyxOrtOperator& op = onyx_ort_operator_parts[p].operators[i];
        if (ranges.Map().count(op.domain) == 0)
          ranges.AddDomainToVersion(op.domain, 1, op.since_version);
        Register(op);
      }
    for (guint i = 0; i < onyx_ort_n_kernels; i++) {
      const OnyxOrtKernel& kernel = onyx_ort_kernels[i];
      auto range = ranges.Map().find(kernel.domain);
      if (range != ranges.Map().end() && Registered().count({kernel.domain, kernel.name}) == 0)
        RegisterKernel(kernel, range->second.second);
    }
  });
}

extern "C" gboolean
onyx_ort_is_registered (const char *domain, const char *name)
{
  return Registered().count({domain, name}) > 0;
}
