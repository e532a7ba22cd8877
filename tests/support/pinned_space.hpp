#pragma once
// Test support: a space file that pins a built-in family to one variant (each given parameter to
// one value) and keeps only the rules a kernel needs to be right, dropping those marked
// "planning", so GPU tests can run exactly the variant they mean on any shape.
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "run_tool.hpp"

namespace cl2_test {

inline std::string pinned_space(const ScratchDir& dir, const std::string& base_family, const std::string& name,
                                const std::map<std::string, std::int64_t>& pins) {
  nlohmann::json space = nlohmann::json::parse(read_all(source_path("configs/spaces/" + base_family + ".json")));
  space["family"] = name;
  space["template"] = source_path(space["template"].get<std::string>());
  for (const auto& [param, value] : pins) {
    if (!space["params"].contains(param)) throw std::invalid_argument("no parameter " + param);
    space["params"][param] = {value};
  }
  nlohmann::json kept = nlohmann::json::array();
  for (const auto& rule : space["constraints"])
    if (!rule.is_object() || !rule.value("planning", false)) kept.push_back(rule);
  space["constraints"] = kept;
  return dir.write(name + ".json", space.dump(2));
}

}  // namespace cl2_test
