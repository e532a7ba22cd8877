#pragma once
// Numbers that may be "not measured" (NaN) in the JSON this program writes and reads: written as
// null (nlohmann would write null for NaN too, but only as an accident of its NaN handling) and
// read back as NaN.
#include <nlohmann/json.hpp>
#include <string>

namespace cl2 {

nlohmann::json number_or_null(double value);

// The number at `key`; NaN where the key is missing or holds something else (null).
double number_or_nan(const nlohmann::json& object, const std::string& key);

}  // namespace cl2
