#include "db/lt_algo_columns.hpp"

#include <fmt/format.h>

namespace cl2 {
namespace {

std::string joined(const std::function<std::string(std::string_view column)>& part) {
  std::string out;
  for (const std::string_view field : kLtAlgoFieldNames) {
    if (!out.empty()) out += ", ";
    out += part(fmt::format("lt_{}", field));
  }
  return out;
}

}  // namespace

std::string lt_algo_columns(std::string_view prefix) {
  return joined([&](std::string_view column) { return fmt::format("{}{}", prefix, column); });
}

std::string lt_algo_updates() {
  return joined([](std::string_view column) { return fmt::format("{0} = excluded.{0}", column); });
}

std::string lt_algo_placeholders() {
  return joined([](std::string_view) { return std::string("?"); });
}

void bind_lt_algo(Statement& statement, int first, const std::optional<LtAlgoConfig>& config) {
  if (!config) {
    for (std::size_t i = 0; i < kLtAlgoFieldCount; ++i) statement.bind_from(first + int(i), std::nullopt);
    return;
  }
  const LtAlgoConfig& c = *config;
  statement.bind_from(first, c.algo_id, c.tile, c.stages, c.splitk, c.reduction, c.swizzle, c.custom, c.cluster);
}

std::optional<LtAlgoConfig> read_lt_algo(const Statement& row, int first) {
  if (row.column_is_null(first)) return std::nullopt;
  return LtAlgoConfig{row.column_int(first),     row.column_text(first + 1), row.column_text(first + 2),
                      row.column_int(first + 3), row.column_text(first + 4), row.column_int(first + 5),
                      row.column_int(first + 6), row.column_text(first + 7)};
}

}  // namespace cl2
