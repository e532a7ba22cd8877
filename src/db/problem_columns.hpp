#pragma once
// How a problem sits in the tuning database's tables: five consecutive columns or parameters m, n,
// k, layout, accum. Shared by every file that reads or writes rows keyed by a problem.
#include <string_view>

#include "core/problem.hpp"
#include "db/sqlite_statement.hpp"

namespace cl2 {

inline constexpr std::string_view kProblemMatch = "m = ? AND n = ? AND k = ? AND layout = ? AND accum = ?";

// Timestamps are made by SQLite, so every row of a database uses one clock and one format.
inline constexpr std::string_view kNowUtc = "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')";

void bind_problem(Statement& statement, int first, const Problem& problem);
Problem read_problem(const Statement& row, int first);

}  // namespace cl2
