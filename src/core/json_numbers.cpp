#include "core/json_numbers.hpp"

#include <cmath>
#include <limits>

namespace cl2 {

nlohmann::json number_or_null(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

double number_or_nan(const nlohmann::json& object, const std::string& key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace cl2
