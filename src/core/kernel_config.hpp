#pragma once
// One point of a family's search space: the family name and an integer value per parameter.
// Parameters are kept sorted by name, so the text form, the generated source and every hash
// derived from them are the same for the same configuration.
#include <cstdint>
#include <map>
#include <string>

namespace cl2 {

struct KernelConfig {
  std::string family;
  std::map<std::string, std::int64_t> params;

  std::int64_t at(const std::string& name) const;  // throws std::out_of_range naming the param
  std::string to_json() const;                     // {"family":"sm80","params":{"BK":32,...}}
  static KernelConfig from_json(const std::string& text);
  std::string label() const;  // "sm80 BK=32 BM=128 ..." for logs and tables
  bool operator==(const KernelConfig&) const = default;
};

}  // namespace cl2
