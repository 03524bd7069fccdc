// onyx-gen-schema-table: writes onyx-schema-table.c at build time from the operator
// schema registry of the ONNX library Onyx links, so that the diagnostics, the panels and
// the shape inference all know the same operators: opset 17 with Debian's ONNX 1.12,
// opset 27 with ONNX 1.22. Every standard domain with its whole version history.
//
//     onyx-gen-schema-table OUTPUT.c
//
// The table's layout is onyx-schema-private.h's. tests/test_schemas.py compares what this
// writes with what python3-onnx's registry says when both are the same release.
#include <onnx/common/version.h>
#include <onnx/defs/data_type_utils.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include "onyx-ort-schemas.h"

#include <algorithm>
#include <climits>
#include <utility>
#include <cstdio>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

const size_t kDocMax = 200;  // characters, not bytes

// A C string literal; bytes outside printable ASCII as octal escapes (which, unlike \x,
// cannot swallow the digits that follow), and no '?' (it could start a trigraph).
std::string CString(const std::string& text) {
  std::string out = "\"";
  for (unsigned char byte : text) {
    if (byte == '"' || byte == '\\') {
      out += '\\';
      out += static_cast<char>(byte);
    } else if (byte >= 32 && byte < 127 && byte != '?') {
      out += static_cast<char>(byte);
    } else {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\%03o", byte);
      out += escape;
    }
  }
  return out + "\"";
}

size_t Utf8Length(const std::string& text) {
  return std::count_if(text.begin(), text.end(), [](unsigned char c) { return (c & 0xc0) != 0x80; });
}

// The first `n` characters of UTF-8 text.
std::string Utf8Prefix(const std::string& text, size_t n) {
  size_t at = 0;
  for (size_t seen = 0; at < text.size(); at++) {
    if ((static_cast<unsigned char>(text[at]) & 0xc0) != 0x80 && seen++ == n)
      break;
  }
  return text.substr(0, at);
}

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::string CollapseSpaces(const std::string& text) {
  std::istringstream words(text);
  std::string word, out;
  while (words >> word)
    out += (out.empty() ? "" : " ") + word;
  return out;
}

// The first sentence of the doc's first paragraph, markdown links reduced to their
// text, at most kDocMax characters: one line for a panel or a list.
std::string OneLine(std::string doc) {
  doc = std::regex_replace(doc, std::regex(R"(<br\s*/?>)"), "\n\n");
  std::string text;
  const std::regex paragraph_break(R"(\n\s*\n)");
  for (std::sregex_token_iterator it(doc.begin(), doc.end(), paragraph_break, -1), end; it != end; ++it) {
    std::string paragraph = *it;
    if (std::any_of(paragraph.begin(), paragraph.end(), [](char c) { return !IsSpace(c); })) {
      text = CollapseSpaces(paragraph);
      break;
    }
  }
  text = std::regex_replace(text, std::regex(R"(\[([^\]]*)\]\([^)]*\))"), "$1");
  // A sentence ends before a capital letter, so "w.r.t. x" does not end one.
  std::smatch match;
  if (std::regex_search(text, match, std::regex(R"([.:;](\s+(?=[A-Z`(])|$))"))) {
    size_t at = match.position(0);
    char ending = text[at];
    text.erase(at + 1);
    while (!text.empty() && (text.back() == ':' || text.back() == ';'))
      text.pop_back();
    if (ending != '.')
      text += '.';
  }
  if (Utf8Length(text) > kDocMax) {
    text = Utf8Prefix(text, kDocMax - 1);
    size_t space = text.rfind(' ');
    if (space != std::string::npos)
      text.erase(space);
    text += "\u2026";
  }
  return text;
}

const char* OptionName(onnx::OpSchema::FormalParameterOption option) {
  switch (option) {
    case onnx::OpSchema::Optional:
      return "ONYX_PARAM_OPTIONAL";
    case onnx::OpSchema::Variadic:
      return "ONYX_PARAM_VARIADIC";
    default:
      return "ONYX_PARAM_SINGLE";
  }
}

const char* Bool(bool value) {
  return value ? "TRUE" : "FALSE";
}

// Variadic parameters have no upper bound (INT_MAX in the schema).
std::string Arity(int value) {
  return value == INT_MAX ? "G_MAXINT" : std::to_string(value);
}

// Emits each distinct array once, however many schema versions share it.
class Writer {
 public:
  std::string Array(const std::string& prefix, const std::string& ctype, const std::vector<std::string>& items) {
    if (items.empty())
      return "NULL";
    auto key = std::make_pair(ctype, items);
    auto found = arrays_.find(key);
    if (found != arrays_.end())
      return found->second;
    std::string name = prefix + std::to_string(arrays_.size());
    arrays_.emplace(key, name);
    lines_.push_back("static const " + ctype + " " + name + "[] = {");
    for (const auto& item : items)
      lines_.push_back("  " + item + ",");
    lines_.push_back("};");
    return name;
  }

  size_t TypeId(const std::string& type_str) {
    auto found = type_index_.find(type_str);
    if (found != type_index_.end())
      return found->second;
    type_index_.emplace(type_str, types_.size());
    types_.push_back(type_str);
    return types_.size() - 1;
  }

  const std::vector<std::string>& lines() const { return lines_; }
  // The arrays written since the last call; later ones may reuse earlier ones.
  std::vector<std::string> TakeLines() { return std::exchange(lines_, {}); }
  const std::vector<std::string>& types() const { return types_; }

 private:
  std::vector<std::string> lines_;
  std::map<std::pair<std::string, std::vector<std::string>>, std::string> arrays_;
  std::vector<std::string> types_;
  std::map<std::string, size_t> type_index_;
};

std::string Params(Writer& writer, const std::string& prefix,
                   const std::vector<onnx::OpSchema::FormalParameter>& formal) {
  std::vector<std::string> items;
  for (const auto& p : formal)
    items.push_back("{ " + CString(p.GetName()) + ", " + CString(p.GetTypeStr()) + ", " + OptionName(p.GetOption()) +
                    ", " + Bool(p.GetIsHomogeneous()) + ", " + CString(OneLine(p.GetDescription())) + " }");
  return writer.Array(prefix, "OnyxSchemaParam", items);
}

// ---- Which INT attributes name a data type (Cast's `to`, RandomNormal's `dtype`) ----
//
// The schema says so in its type inference, which sets an output's element type to the
// attribute's value: a node of the op with its required inputs typed (the first type each
// allows) is inferred twice, the attribute set to two different types its outputs allow;
// an output whose element type follows it both times makes the attribute a data type.
// An INT attribute named as one found so (GroupNormalization's stash_type, whose
// inference has no output of that type; ONNX Runtime's DequantizeWithOrder `to`, whose
// inference Onyx does not have) is one too.

// The element types `type_str` allows: its constraint's types, or the fixed type itself,
// tensors or sequences of tensors.
std::vector<int> ElemTypes(const onnx::OpSchema& schema, const std::string& type_str) {
  std::vector<std::string> allowed{type_str};
  for (const auto& constraint : schema.typeConstraintParams())
    if (constraint.type_param_str == type_str)
      allowed = constraint.allowed_type_strs;
  std::vector<int> types;
  for (const auto& type : allowed) {
    try {
      const onnx::TypeProto& proto = onnx::Utils::DataTypeUtils::ToTypeProto(onnx::Utils::DataTypeUtils::ToType(type));
      if (proto.has_tensor_type())
        types.push_back(proto.tensor_type().elem_type());
      else if (proto.has_sequence_type() && proto.sequence_type().elem_type().has_tensor_type())
        types.push_back(proto.sequence_type().elem_type().tensor_type().elem_type());
    } catch (const std::exception&) {
      // (A type string this release cannot parse allows nothing here.)
    }
  }
  return types;
}

// A value for a required attribute the probe does not vary: any the op takes.
onnx::AttributeProto SomeValue(const std::string& name, onnx::AttributeProto::AttributeType type) {
  onnx::AttributeProto attr;
  attr.set_name(name);
  attr.set_type(type);
  switch (type) {
    case onnx::AttributeProto::INT: attr.set_i(1); break;
    case onnx::AttributeProto::FLOAT: attr.set_f(1); break;
    case onnx::AttributeProto::STRING: attr.set_s("a"); break;
    case onnx::AttributeProto::INTS: attr.add_ints(1); break;
    case onnx::AttributeProto::FLOATS: attr.add_floats(1); break;
    case onnx::AttributeProto::STRINGS: attr.add_strings("a"); break;
    case onnx::AttributeProto::TENSOR:
      attr.mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
      attr.mutable_t()->add_float_data(1);
      break;
    default: break;
  }
  return attr;
}

// The element type of each output of one node of the op, `probed` set to `value`; 0
// for an output inference left untyped.
std::vector<int> InferredOutputTypes(const onnx::OpSchema& schema, const std::string& probed, int64_t value) {
  onnx::ModelProto model;
  model.set_ir_version(onnx::IR_VERSION);
  auto* opset = model.add_opset_import();
  opset->set_domain(schema.domain());
  opset->set_version(schema.SinceVersion());
  auto* graph = model.mutable_graph();
  auto* node = graph->add_node();
  node->set_op_type(schema.Name());
  node->set_domain(schema.domain());
  for (size_t i = 0; i < schema.inputs().size(); i++) {
    const auto& param = schema.inputs()[i];
    std::vector<int> types = ElemTypes(schema, param.GetTypeStr());
    if (param.GetOption() == onnx::OpSchema::Optional || types.empty()) {
      node->add_input("");  // left out: an optional zero point would decide the type instead
      continue;
    }
    std::string name = "in" + std::to_string(i);
    node->add_input(name);
    auto* input = graph->add_input();
    input->set_name(name);
    input->mutable_type()->mutable_tensor_type()->set_elem_type(types[0]);
  }
  while (node->input_size() > 0 && node->input(node->input_size() - 1).empty())
    node->mutable_input()->RemoveLast();
  for (size_t i = 0; i < schema.outputs().size(); i++)
    node->add_output("out" + std::to_string(i));
  for (const auto& [name, attr] : schema.attributes()) {
    if (name == probed) {
      onnx::AttributeProto value_attr = SomeValue(name, onnx::AttributeProto::INT);
      value_attr.set_i(value);
      *node->add_attribute() = value_attr;
    } else if (attr.required) {
      *node->add_attribute() = SomeValue(name, attr.type);
    }
  }
  try {
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception&) {
    // (Inference that throws tells nothing: the attribute is not found a data type.)
  }
  std::vector<int> types(schema.outputs().size(), 0);
  for (const auto& info : model.graph().value_info()) {
    size_t k = std::stoul(info.name().substr(3));
    const auto& type = info.type();
    if (type.has_tensor_type())
      types[k] = type.tensor_type().elem_type();
    else if (type.has_sequence_type() && type.sequence_type().elem_type().has_tensor_type())
      types[k] = type.sequence_type().elem_type().tensor_type().elem_type();
  }
  return types;
}

bool IsDataTypeAttribute(const onnx::OpSchema& schema, const std::string& name) {
  if (schema.attributes().at(name).type != onnx::AttributeProto::INT || schema.Deprecated())
    return false;
  // Two types an output allows, neither one the probe gives an input (so that an
  // output following its input is not taken for one following the attribute).
  std::set<int> input_types;
  for (const auto& param : schema.inputs()) {
    std::vector<int> types = ElemTypes(schema, param.GetTypeStr());
    if (!types.empty())
      input_types.insert(types[0]);
  }
  for (const auto& output : schema.outputs()) {
    std::vector<int> candidates;
    for (int type : ElemTypes(schema, output.GetTypeStr()))
      if (input_types.count(type) == 0 && std::find(candidates.begin(), candidates.end(), type) == candidates.end())
        candidates.push_back(type);
    if (candidates.size() < 2)
      continue;
    std::vector<int> first = InferredOutputTypes(schema, name, candidates[0]);
    std::vector<int> second = InferredOutputTypes(schema, name, candidates[1]);
    for (size_t k = 0; k < first.size(); k++)
      if (first[k] == candidates[0] && second[k] == candidates[1])
        return true;
  }
  return false;
}

// The names of the attributes inference finds data types, in any of `schemas`.
std::set<std::string> DataTypeNames(const std::vector<onnx::OpSchema>& schemas) {
  std::set<std::string> names;
  for (const auto& schema : schemas)
    for (const auto& entry : schema.attributes())
      if (IsDataTypeAttribute(schema, entry.first))
        names.insert(entry.first);
  return names;
}

std::string Attributes(Writer& writer, const onnx::OpSchema& schema, const std::set<std::string>& data_types) {
  // In name order, which the lookups rely on (1.12 keeps them in a std::map, newer
  // releases in a hash map).
  std::vector<std::string> names;
  for (const auto& entry : schema.attributes())
    names.push_back(entry.first);
  std::sort(names.begin(), names.end());
  std::vector<std::string> items;
  for (const auto& name : names) {
    const auto& attr = schema.attributes().at(name);
    std::string value = "NULL, 0";
    if (attr.default_value.type() != onnx::AttributeProto::UNDEFINED) {
      std::string data = attr.default_value.SerializeAsString();
      value = CString(data) + ", " + std::to_string(data.size());
    }
    items.push_back("{ " + CString(name) + ", " + std::to_string(static_cast<int>(attr.type)) + ", " +
                    Bool(attr.required) + ", " + value + ", " + CString(OneLine(attr.description)) + ", " +
                    Bool(attr.type == onnx::AttributeProto::INT && data_types.count(name) > 0) + " }");
  }
  return writer.Array("a", "OnyxSchemaAttribute", items);
}

std::string Constraints(Writer& writer, const onnx::OpSchema& schema) {
  std::vector<std::string> items;
  for (const auto& constraint : schema.typeConstraintParams()) {
    std::vector<std::string> allowed(constraint.allowed_type_strs);
    std::sort(allowed.begin(), allowed.end());
    std::vector<std::string> ids;
    for (const auto& type : allowed)
      ids.push_back(std::to_string(writer.TypeId(type)));
    std::string array = writer.Array("t", "guint8", ids);
    items.push_back("{ " + CString(constraint.type_param_str) + ", " + array + ", " + std::to_string(ids.size()) +
                    " }");
  }
  return writer.Array("c", "OnyxSchemaTypeConstraint", items);
}

// The table's rows for `schemas`, their arrays written by `writer`.
std::vector<std::string> Rows(Writer& writer, const std::vector<onnx::OpSchema>& schemas,
                              const std::set<std::string>& data_types) {
  std::vector<std::string> rows;
  for (const auto& s : schemas) {
    std::string inputs = Params(writer, "i", s.inputs());
    std::string outputs = Params(writer, "o", s.outputs());
    std::string attrs = Attributes(writer, s, data_types);
    std::string constraints = Constraints(writer, s);
    rows.push_back("  { " + CString(s.domain()) + ", " + CString(s.Name()) + ", " + std::to_string(s.SinceVersion()) +
                   ", " + Bool(s.Deprecated()) + ", " + inputs + ", " + std::to_string(s.inputs().size()) + ", " +
                   outputs + ", " + std::to_string(s.outputs().size()) + ", " + attrs + ", " +
                   std::to_string(s.attributes().size()) + ", " + constraints + ", " +
                   std::to_string(s.typeConstraintParams().size()) + ", " + Arity(s.min_input()) + ", " +
                   Arity(s.max_input()) + ", " + Arity(s.min_output()) + ", " + Arity(s.max_output()) + ", " +
                   CString(OneLine(s.doc() != nullptr ? s.doc() : "")) + " },");
  }
  return rows;
}

bool SchemaOrder(const onnx::OpSchema& a, const onnx::OpSchema& b) {
  return std::make_tuple(a.domain(), a.Name(), a.SinceVersion()) <
         std::make_tuple(b.domain(), b.Name(), b.SinceVersion());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT.c\n", argv[0]);
    return 2;
  }
  // A copy: registering ONNX Runtime's domains below changes the registry's map.
  const auto ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  std::vector<onnx::OpSchema> schemas;
  for (const auto& schema : onnx::OpSchemaRegistry::get_all_schemas_with_history())
    if (ranges.count(schema.domain()) > 0)
      schemas.push_back(schema);
  std::sort(schemas.begin(), schemas.end(), SchemaOrder);

  Writer writer;
  std::set<std::string> data_types = DataTypeNames(schemas);
  std::vector<std::string> rows = Rows(writer, schemas, data_types);
  if (writer.types().size() > 256) {
    std::fprintf(stderr, "%s: %zu type strings do not fit the table's guint8 indices\n", argv[0],
                 writer.types().size());
    return 1;
  }

  FILE* out = std::fopen(argv[1], "w");
  if (out == nullptr) {
    std::perror(argv[1]);
    return 1;
  }
  std::fprintf(out,
               "/* Generated at build time by onyx-gen-schema-table from the operator schemas of the\n"
               " * ONNX library Onyx links (%s, %zu schemas). Do not edit. */\n",
               onnx::LAST_RELEASE_VERSION, schemas.size());
  std::fprintf(out, "#include \"onyx-schema-private.h\"\n\n");
  for (const auto& line : writer.lines())
    std::fprintf(out, "%s\n", line.c_str());
  std::fprintf(out, "\nconst char *const onyx_schema_type_strings[] = {\n");
  for (const auto& type : writer.types())
    std::fprintf(out, "  %s,\n", CString(type).c_str());
  std::fprintf(out, "};\nconst guint onyx_schema_n_type_strings = %zu;\n\n", writer.types().size());
  std::fprintf(out, "/* Sorted by domain, name and since_version. */\nconst OnyxSchema onyx_schema_table[] = {\n");
  for (const auto& row : rows)
    std::fprintf(out, "%s\n", row.c_str());
  std::fprintf(out, "};\nconst guint onyx_schema_table_size = %zu;\n", rows.size());
  std::fprintf(out, "const char onyx_schema_table_onnx_version[] = %s;\n",
               CString(onnx::LAST_RELEASE_VERSION).c_str());

  // What the library knows beyond the schemas themselves: the newest opset of each
  // domain (ai.onnx 17 in 1.12, though no operator changed at 17 in ai.onnx.ml) and the
  // newest IR version its checker accepts.
  std::map<std::string, std::pair<int, int>> sorted_ranges(ranges.begin(), ranges.end());
  std::fprintf(out, "\nconst OnyxSchemaDomainRange onyx_schema_domain_ranges[] = {\n");
  for (const auto& [domain, range] : sorted_ranges)
    std::fprintf(out, "  { %s, %d, %d },\n", CString(domain).c_str(), range.first, range.second);
  std::fprintf(out, "};\nconst guint onyx_schema_n_domain_ranges = %zu;\n", sorted_ranges.size());
  std::fprintf(out, "const int onyx_schema_table_ir_version = %d;\n", static_cast<int>(onnx::IR_VERSION));

  // ONNX Runtime's operators, registered from onyx-ort-operators.c after ONNX's were
  // read: a table of their own, so that the one above stays the library's alone. Its
  // arrays may reuse those above; its type ids go on from theirs.
  size_t n_types = writer.types().size();
  std::set<std::string> known_domains;
  for (const auto& range : ranges)
    known_domains.insert(range.first);
  onyx_ort_register_schemas();
  std::vector<onnx::OpSchema> ort;
  for (const auto& schema : onnx::OpSchemaRegistry::get_all_schemas_with_history())
    if (onyx_ort_is_registered(schema.domain().c_str(), schema.Name().c_str()))
      ort.push_back(schema);
  std::sort(ort.begin(), ort.end(), SchemaOrder);
  writer.TakeLines();
  data_types.merge(DataTypeNames(ort));
  std::vector<std::string> ort_rows = Rows(writer, ort, data_types);
  if (writer.types().size() > 256) {
    std::fprintf(stderr, "%s: %zu type strings do not fit the table's guint8 indices\n", argv[0],
                 writer.types().size());
    return 1;
  }
  std::fprintf(out, "\n/* ONNX Runtime's operators (onyx-ort-schemas.cc), %zu schemas. */\n", ort.size());
  for (const auto& line : writer.TakeLines())
    std::fprintf(out, "%s\n", line.c_str());
  std::fprintf(out, "\nconst char *const onyx_schema_ort_type_strings[] = {\n");
  for (size_t t = n_types; t < writer.types().size(); t++)
    std::fprintf(out, "  %s,\n", CString(writer.types()[t]).c_str());
  std::fprintf(out, "  NULL\n};\nconst guint onyx_schema_ort_n_type_strings = %zu;\n", writer.types().size() - n_types);
  std::fprintf(out, "const OnyxSchema onyx_schema_ort_table[] = {\n");
  for (const auto& row : ort_rows)
    std::fprintf(out, "%s\n", row.c_str());
  std::fprintf(out, "};\nconst guint onyx_schema_ort_table_size = %zu;\n", ort_rows.size());
  std::map<std::string, std::pair<int, int>> ort_ranges;
  for (const auto& [domain, range] : onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map())
    if (known_domains.count(domain) == 0)
      ort_ranges.emplace(domain, range);
  std::fprintf(out, "const OnyxSchemaDomainRange onyx_schema_ort_domain_ranges[] = {\n");
  for (const auto& [domain, range] : ort_ranges)
    std::fprintf(out, "  { %s, %d, %d },\n", CString(domain).c_str(), range.first, range.second);
  std::fprintf(out, "  { NULL, 0, 0 }\n};\nconst guint onyx_schema_ort_n_domain_ranges = %zu;\n", ort_ranges.size());
  if (std::fclose(out) != 0) {
    std::perror(argv[1]);
    return 1;
  }
  return 0;
}
