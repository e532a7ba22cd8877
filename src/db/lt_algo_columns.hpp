#pragma once
// The cuBLASLt algorithm columns of the baselines table (schema 2, db/migrations/0002_*): one
// column per LtAlgoConfig field, named "lt_" + its kLtAlgoFieldNames entry, so the SELECTs, the
// upsert, the merge and the reader all take their list from here.
#include <optional>
#include <string>
#include <string_view>

#include "core/lt_algo_config.hpp"
#include "db/sqlite_statement.hpp"

namespace cl2 {

// "lt_algo_id, lt_tile, ..." with every name prefixed by `prefix` ("b." for an alias).
std::string lt_algo_columns(std::string_view prefix = "");
// "lt_algo_id = excluded.lt_algo_id, ...": an upsert's update of those columns.
std::string lt_algo_updates();
// "?, ?, ...": one placeholder per column.
std::string lt_algo_placeholders();

// Binds the columns' values from parameter `first` on: the config's fields, or all NULL.
void bind_lt_algo(Statement& statement, int first, const std::optional<LtAlgoConfig>& config);
// The config in the columns from `first` on; nullopt where lt_algo_id is NULL (no algorithm
// recorded, or a LEFT JOIN that found no baseline).
std::optional<LtAlgoConfig> read_lt_algo(const Statement& row, int first);

}  // namespace cl2
