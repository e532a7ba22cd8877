#include "core/hash.hpp"

#include <fmt/format.h>

namespace cl2 {

namespace {
constexpr std::uint64_t kFnvPrime = 0x100000001b3ull;
}

ContentHash& ContentHash::add(std::string_view bytes) {
  for (unsigned char c : bytes) {
    low_ = (low_ ^ c) * kFnvPrime;
    high_ = (high_ ^ (c ^ 0x5a)) * kFnvPrime;
  }
  return *this;
}

ContentHash& ContentHash::add_field(std::string_view bytes) {
  add(fmt::format("{}:", bytes.size()));
  return add(bytes);
}

std::string ContentHash::hex() const { return fmt::format("{:016x}{:016x}", high_, low_); }

std::string content_hash(std::string_view bytes) { return ContentHash().add(bytes).hex(); }

}  // namespace cl2
