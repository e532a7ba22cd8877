#include "core/kernel_config.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace cl2 {

std::int64_t KernelConfig::at(const std::string& name) const {
  auto it = params.find(name);
  if (it == params.end())
    throw std::out_of_range(fmt::format("config of family {} has no parameter {}", family, name));
  return it->second;
}

std::string KernelConfig::to_json() const {
  nlohmann::json j;
  j["family"] = family;
  j["params"] = nlohmann::json::object();
  for (const auto& [name, value] : params) j["params"][name] = value;
  return j.dump();  // nlohmann keeps object keys sorted: a stable text form
}

KernelConfig KernelConfig::from_json(const std::string& text) {
  const auto j = nlohmann::json::parse(text);
  KernelConfig config;
  config.family = j.at("family").get<std::string>();
  for (const auto& [name, value] : j.at("params").items())
    config.params[name] = value.get<std::int64_t>();
  return config;
}

std::string KernelConfig::label() const {
  std::string text = family;
  for (const auto& [name, value] : params) text += fmt::format(" {}={}", name, value);
  return text;
}

}  // namespace cl2
