#include "search/family_spec.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/embedded_files.hpp"
#include "core/errors.hpp"

namespace cl2 {

namespace {

using nlohmann::json;

Expr parse_rule(const json& value, const std::string& source, const std::string& where) {
  std::string text;
  if (value.is_string()) text = value.get<std::string>();
  else if (value.is_number_integer()) text = std::to_string(value.get<std::int64_t>());
  else throw UserError(fmt::format("{}: {} must be an expression string", source, where));
  try {
    return Expr::parse(text);
  } catch (const std::invalid_argument& e) {
    throw UserError(fmt::format("{}: {}: {}", source, where, e.what()));
  }
}

std::array<Expr, 3> parse_triple(const json& value, const std::string& source,
                                 const std::string& where) {
  if (!value.is_array() || value.size() != 3)
    throw UserError(fmt::format("{}: {} must be a list of 3 expressions", source, where));
  return {parse_rule(value[0], source, where + "[0]"), parse_rule(value[1], source, where + "[1]"),
          parse_rule(value[2], source, where + "[2]")};
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError(fmt::format("{}: cannot read the file; check the path", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace

FamilySpec parse_family_spec(const std::string& json_text, const std::string& source,
                             const std::string& template_text, const std::string& template_path) {
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::parse_error& e) {
    throw UserError(fmt::format("{}: malformed JSON at byte {}", source, e.byte));
  }
  FamilySpec spec;
  try {
    spec.name = j.at("family").get<std::string>();
    spec.description = j.value("description", "");
    spec.template_path = template_path;
    spec.template_source = template_text;
    spec.min_cc = j.at("min_cc").get<int>();
    spec.max_cc = j.at("max_cc").get<int>();
    for (const auto& [name, values] : j.at("params").items())
      spec.params[name] = values.get<std::vector<std::int64_t>>();
    const json runtime = j.value("runtime_params", json::object());  // items() must not outlive it
    for (const auto& [name, field] : runtime.items()) spec.runtime_params[name] = field.get<std::string>();
    for (const auto& entry : j.value("defines", json::array()))
      spec.defines.emplace_back(entry.at(0).get<std::string>(),
                                parse_rule(entry.at(1), source, "defines"));
    for (const auto& entry : j.value("derived", json::array()))
      spec.derived.emplace_back(entry.at(0).get<std::string>(),
                                parse_rule(entry.at(1), source, "derived"));
    for (const auto& entry : j.at("constraints")) {
      if (entry.is_string())
        spec.constraints.push_back({parse_rule(entry, source, "constraints"), entry.get<std::string>()});
      else
        spec.constraints.push_back({parse_rule(entry.at("rule"), source, "constraints"),
                                    entry.value("why", entry.at("rule").get<std::string>()),
                                    entry.value("planning", false)});
    }
    const json& launch = j.at("launch");
    spec.launch.threads = parse_rule(launch.at("threads"), source, "launch.threads");
    spec.launch.grid = parse_triple(launch.at("grid"), source, "launch.grid");
    spec.launch.cluster = parse_triple(launch.value("cluster", json::array({1, 1, 1})), source,
                                       "launch.cluster");
    spec.launch.smem_bytes = parse_rule(launch.at("smem_bytes"), source, "launch.smem_bytes");
    spec.launch.workspace_bytes =
        parse_rule(launch.value("workspace_bytes", json("0")), source, "launch.workspace_bytes");
    spec.launch.programmatic = parse_rule(launch.value("programmatic", json("0")), source, "launch.programmatic");
    const json tensor_maps = j.value("tensor_maps", json::object());
    for (const auto& [operand, map] : tensor_maps.items()) {
      if (operand != "a" && operand != "b" && operand != "c")
        throw UserError(fmt::format("{}: tensor_maps.{}: operand must be a, b or c", source, operand));
      TensorMapSpec tm{operand, parse_rule(map.at("box_inner"), source, "box_inner"),
                       parse_rule(map.at("box_outer"), source, "box_outer"),
                       parse_rule(map.value("box_depth", json("0")), source, "box_depth"),
                       parse_rule(map.value("swizzle_bytes", json(128)), source, "swizzle_bytes"),
                       std::nullopt};
      if (map.contains("when")) tm.when = parse_rule(map["when"], source, "tensor_maps.when");
      spec.tensor_maps.push_back(std::move(tm));
    }
    spec.cost_us = parse_rule(j.at("cost_us"), source, "cost_us");
    if (j.contains("floor_us")) spec.floor_us = parse_rule(j.at("floor_us"), source, "floor_us");
    const json calibration = j.value("calibration", json::object());
    for (const auto& entry : calibration.value("factors", json::array())) {
      const double factor = entry.at(1).get<double>();
      if (!(factor > 0))
        throw UserError(fmt::format("{}: calibration factor for '{}' must be positive", source,
                                    entry.at(0).get<std::string>()));
      spec.calibration.push_back({entry.at(0).get<std::string>(), parse_rule(entry.at(0), source, "calibration"),
                                  factor});
    }
    if (calibration.contains("scale")) {
      const double scale = calibration.at("scale").get<double>();
      if (!(scale > 0))
        throw UserError(fmt::format("{}: calibration scale must be positive (got {})", source, scale));
      spec.calibration_scale = scale;
    }
    spec.compile_options = j.value("compile_options", std::vector<std::string>{});
    spec.diversity = j.value("diversity", std::vector<std::string>{});
    for (const auto& name : spec.diversity)
      if (!spec.params.count(name))
        throw UserError(fmt::format("{}: diversity names {}, which is not a parameter", source, name));
    // `what` names param=value as one of the family's own values, or the file is wrong.
    auto require_value = [&](const std::string& what, const std::string& param, std::int64_t value) {
      const auto values = spec.params.find(param);
      if (values == spec.params.end() ||
          std::find(values->second.begin(), values->second.end(), value) == values->second.end())
        throw UserError(
            fmt::format("{}: {} {}={} is not a value of the family's parameters", source, what, param, value));
    };
    if (j.contains("twin")) {
      const json& twin = j.at("twin");
      spec.twin = PlanTwin{twin.at("param").get<std::string>(), twin.at("value").get<std::int64_t>(),
                           twin.at("first").get<std::size_t>()};
      require_value("twin", spec.twin->param, spec.twin->value);
      if (spec.twin->first == 0) throw UserError(fmt::format("{}: twin.first must be at least 1", source));
    }
    const json absent = j.value("absent", json::object());
    for (const auto& [param, value] : absent.items()) {
      spec.absent[param] = value.get<std::int64_t>();
      require_value("absent", param, spec.absent[param]);
    }
  } catch (const json::exception& e) {
    throw UserError(fmt::format("{}: not a valid space file: {}", source, e.what()));
  }
  for (const auto& [name, values] : spec.params)
    if (values.empty()) throw UserError(fmt::format("{}: parameter {} has no values", source, name));
  return spec;
}

const std::map<std::string, FamilySpec>& builtin_families() {
  static const std::map<std::string, FamilySpec> families = [] {
    std::map<std::string, FamilySpec> out;
    for (const auto& path : embedded_paths_under("configs/spaces/")) {
      const std::string text(*find_embedded_file(path));
      const std::string template_path = json::parse(text).at("template").get<std::string>();
      auto template_text = find_embedded_file(template_path);
      if (!template_text)
        throw std::logic_error(fmt::format("{} names {} which is not embedded", path, template_path));
      FamilySpec spec = parse_family_spec(text, path, std::string(*template_text), template_path);
      out.emplace(spec.name, std::move(spec));
    }
    return out;
  }();
  return families;
}

FamilySpec load_family_file(const std::string& path) {
  const std::string text = read_text_file(path);
  std::string template_name;
  try {
    template_name = json::parse(text).at("template").get<std::string>();
  } catch (const json::exception&) {
    throw UserError(fmt::format("{}: not a space file (needs a \"template\" entry)", path));
  }
  const auto template_path =
      (std::filesystem::path(path).parent_path() / template_name).lexically_normal().string();
  return parse_family_spec(text, path, read_text_file(template_path), template_path);
}

std::optional<FamilySpec> pin_family(const FamilySpec& family, const std::map<std::string, std::int64_t>& pins,
                                     std::string* mismatch) {
  FamilySpec pinned = family;
  for (const auto& [name, value] : pins) {
    auto it = pinned.params.find(name);
    if (it == pinned.params.end()) continue;
    // KB_PAIR=5 would load 32 k atoms a stage against tensor maps sized for 8: a value the family
    // does not list must not compile into a variant.
    if (std::find(it->second.begin(), it->second.end(), value) == it->second.end()) {
      if (mismatch)
        *mismatch = fmt::format("family {} takes {} in {{{}}}", family.name, name, fmt::join(it->second, ", "));
      return std::nullopt;
    }
    it->second = {value};
  }
  std::erase_if(pinned.constraints, [](const Constraint& c) { return c.planning; });
  pinned.twin.reset();  // a pinned run times exactly the variant asked for
  return pinned;
}

std::vector<std::string> apply_calibration(FamilySpec& family, const std::vector<std::pair<std::string, double>>& factors,
                                           std::optional<double> scale) {
  std::vector<std::string> unknown;
  for (const auto& [rule, factor] : factors) {
    auto it = std::find_if(family.calibration.begin(), family.calibration.end(),
                           [&](const CostFactor& f) { return f.text == rule; });
    if (it == family.calibration.end()) unknown.push_back(rule);
    else it->factor = factor;
  }
  if (scale) family.calibration_scale = scale;
  return unknown;
}

std::vector<const FamilySpec*> select_families(const std::vector<std::string>& names,
                                               const std::vector<FamilySpec>& extra) {
  std::vector<const FamilySpec*> selected;
  auto add = [&](const FamilySpec* spec) {
    for (auto* s : selected)
      if (s == spec) return;
    selected.push_back(spec);
  };
  std::string known;
  for (const auto& [name, spec] : builtin_families()) known += (known.empty() ? "" : ", ") + name;
  for (const auto& spec : extra) known += ", " + spec.name;
  for (const auto& name : names) {
    if (name == "all") {
      for (const auto& [n, spec] : builtin_families()) add(&spec);
      for (const auto& spec : extra) add(&spec);
      continue;
    }
    const FamilySpec* found = nullptr;
    if (auto it = builtin_families().find(name); it != builtin_families().end()) found = &it->second;
    for (const auto& spec : extra)
      if (spec.name == name) found = &spec;
    if (!found)
      throw UserError(fmt::format("--family {}: unknown family; known families: {}", name, known));
    add(found);
  }
  return selected;
}

}  // namespace cl2
