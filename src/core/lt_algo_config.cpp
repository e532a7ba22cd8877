#include "core/lt_algo_config.hpp"

#include <fmt/format.h>

namespace cl2 {

std::array<std::string, kLtAlgoFieldCount> lt_algo_field_texts(const std::optional<LtAlgoConfig>& config,
                                                               std::string_view absent) {
  if (!config) {
    std::array<std::string, kLtAlgoFieldCount> none;
    none.fill(std::string(absent));
    return none;
  }
  const LtAlgoConfig& c = *config;
  return {std::to_string(c.algo_id), c.tile, c.stages, std::to_string(c.splitk), c.reduction,
          std::to_string(c.swizzle), std::to_string(c.custom), c.cluster};
}

std::string lt_algo_summary(const std::optional<LtAlgoConfig>& config, std::string_view absent) {
  if (!config) return std::string(absent);
  const LtAlgoConfig& c = *config;
  return fmt::format("algo {} {} stages {} split-K {} ({}) swizzle {} custom {} cluster {}", c.algo_id, c.tile,
                     c.stages, c.splitk, c.reduction, c.swizzle, c.custom, c.cluster);
}

namespace {

std::string key(std::size_t field) { return std::string(kLtAlgoFieldNames[field]); }

}  // namespace

nlohmann::json lt_algo_to_json(const std::optional<LtAlgoConfig>& config) {
  if (!config) return nullptr;
  const LtAlgoConfig& c = *config;
  return {{key(0), c.algo_id}, {key(1), c.tile},    {key(2), c.stages},  {key(3), c.splitk},
          {key(4), c.reduction}, {key(5), c.swizzle}, {key(6), c.custom}, {key(7), c.cluster}};
}

std::optional<LtAlgoConfig> lt_algo_at(const nlohmann::json& object, const std::string& at) {
  const auto it = object.find(at);
  if (it == object.end() || it->is_null()) return std::nullopt;
  const nlohmann::json& j = *it;
  auto text = [&](std::size_t field) { return j.at(key(field)).get<std::string>(); };
  auto number = [&](std::size_t field) { return j.at(key(field)).get<int>(); };
  return LtAlgoConfig{number(0), text(1), text(2), number(3), text(4), number(5), number(6), text(7)};
}

}  // namespace cl2
