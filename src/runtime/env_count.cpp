#include "runtime/env_count.hpp"

#include <fmt/format.h>

#include <charconv>

#include "runtime/runtime_error.hpp"

namespace cl2 {

int count_from_env(std::string_view name, const char* value, int fallback, int max, std::string_view what) {
  if (!value || !*value) return fallback;
  const std::string_view text(value);
  int count = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (error != std::errc() || end != text.data() + text.size() || count < 0 || count > max)
    throw RuntimeError(CL2_ERROR_INVALID_ARGUMENT,
                       fmt::format("{}={}: not a count from 0 to {}; set {} (0: none), or unset it for {}", name,
                                   text, max, what, fallback));
  return count;
}

}  // namespace cl2
