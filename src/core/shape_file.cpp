#include "core/shape_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/errors.hpp"

namespace cl2 {

namespace {

using nlohmann::json;

// Kernels index rows and columns with 32-bit integers and whole matrices with 64-bit ones.
constexpr std::int64_t kMaxDim = std::numeric_limits<std::int32_t>::max();

std::int64_t read_dim(const json& value, const char* name, const std::string& where) {
  if (!value.is_number_integer()) {
    throw UserError(fmt::format("{}: {} = {} is not an integer; give a whole number >= 1", where,
                                name, value.dump()));
  }
  const std::int64_t dim = value.get<std::int64_t>();
  if (dim < 1) {
    throw UserError(
        fmt::format("{}: {} = {} is not positive; every dimension must be >= 1", where, name, dim));
  }
  if (dim > kMaxDim) {
    throw UserError(
        fmt::format("{}: {} = {} is over the limit of {}; split the GEMM", where, name, dim, kMaxDim));
  }
  return dim;
}

Problem read_entry(const json& entry, const std::string& where, const ShapeDefaults& defaults) {
  Problem problem{{}, defaults.layout, defaults.accum, defaults.l2};
  if (entry.is_array()) {
    if (entry.size() != 3) {
      throw UserError(fmt::format("{}: a triple needs exactly 3 numbers [m, n, k], got {}", where,
                                  entry.dump()));
    }
    problem.shape = {read_dim(entry[0], "m", where), read_dim(entry[1], "n", where),
                     read_dim(entry[2], "k", where)};
    return problem;
  }
  if (!entry.is_object()) {
    throw UserError(fmt::format(
        "{}: expected {{\"m\":..,\"n\":..,\"k\":..}} or [m, n, k], got {}", where, entry.dump()));
  }
  for (const char* key : {"m", "n", "k"}) {
    if (!entry.contains(key)) {
      throw UserError(fmt::format("{}: missing \"{}\"; each shape needs m, n and k", where, key));
    }
  }
  for (const auto& [key, value] : entry.items()) {
    if (key != "m" && key != "n" && key != "k" && key != "layout" && key != "accum" && key != "l2") {
      throw UserError(fmt::format(
          "{}: unknown key \"{}\"; allowed are m, n, k, layout, accum, l2", where, key));
    }
    (void)value;
  }
  problem.shape = {read_dim(entry["m"], "m", where), read_dim(entry["n"], "n", where),
                   read_dim(entry["k"], "k", where)};
  if (entry.contains("layout")) {
    if (!entry["layout"].is_string())
      throw UserError(fmt::format("{}: layout must be \"tn\" or \"nn\"", where));
    problem.layout = parse_layout(entry["layout"].get<std::string>(), where + " layout");
  }
  if (entry.contains("accum")) {
    if (!entry["accum"].is_string())
      throw UserError(fmt::format("{}: accum must be \"f32\" or \"f16\"", where));
    problem.accum = parse_accum(entry["accum"].get<std::string>(), where + " accum");
  }
  if (entry.contains("l2")) {
    if (!entry["l2"].is_string())
      throw UserError(fmt::format("{}: l2 must be \"warm\", \"rotate\" or \"flush\"", where));
    problem.l2 = parse_l2_policy(entry["l2"].get<std::string>(), where + " l2");
  }
  return problem;
}

}  // namespace

std::vector<Problem> parse_shapes(const std::string& text, const std::string& source,
                                  const ShapeDefaults& defaults) {
  json document;
  try {
    document = json::parse(text);
  } catch (const json::parse_error& e) {
    throw UserError(fmt::format("{}: malformed JSON at byte {}; fix the syntax (expected a list of "
                                "{{\"m\":..,\"n\":..,\"k\":..}} or [m, n, k])",
                                source, e.byte));
  }
  if (!document.is_array()) {
    throw UserError(fmt::format(
        "{}: top level must be a list of shapes like [{{\"m\":64,\"n\":64,\"k\":64}}]", source));
  }
  if (document.empty()) {
    throw UserError(fmt::format("{}: the list of shapes is empty; add at least one shape", source));
  }
  std::vector<Problem> problems;
  for (std::size_t i = 0; i < document.size(); ++i) {
    const std::string where = fmt::format("{}: shape #{}", source, i + 1);
    Problem problem = read_entry(document[i], where, defaults);
    bool duplicate = false;
    for (const auto& seen : problems) duplicate = duplicate || seen == problem;
    if (!duplicate) problems.push_back(problem);
  }
  return problems;
}

std::vector<Problem> load_shape_file(const std::string& path, const ShapeDefaults& defaults) {
  std::ifstream in(path);
  if (!in) {
    throw UserError(fmt::format(
        "{}: cannot read the shapes file; check the path (configs/shapes/ has examples)", path));
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_shapes(buffer.str(), path, defaults);
}

}  // namespace cl2
