#pragma once
// How a problem sits in the tuning database's tables: six consecutive columns or parameters m, n,
// k, layout, accum, l2 (the L2 policy, schema 6). Shared by every file that reads or writes rows
// keyed by a problem, so a column added to the problem is added here and nowhere else.
#include <algorithm>
#include <string>
#include <string_view>

#include "core/problem.hpp"
#include "db/sqlite_statement.hpp"

namespace cl2 {

inline constexpr int kProblemColumnCount = 6;
inline constexpr std::string_view kProblemMatch =
    "m = ? AND n = ? AND k = ? AND layout = ? AND accum = ? AND l2 = ?";
inline constexpr std::string_view kProblemPlaceholders = "?, ?, ?, ?, ?, ?";
static_assert(std::count(kProblemMatch.begin(), kProblemMatch.end(), '?') == kProblemColumnCount &&
                  std::count(kProblemPlaceholders.begin(), kProblemPlaceholders.end(), '?') == kProblemColumnCount,
              "one parameter per problem column");

// Timestamps are made by SQLite, so every row of a database uses one clock and one format.
inline constexpr std::string_view kNowUtc = "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')";

// "m, n, k, layout, accum, l2" with every name prefixed by `prefix` ("w." for an alias).
std::string problem_columns(std::string_view prefix = "");
// An ORDER BY of those columns: by shape, layout and accumulator, then the L2 policies in the
// order of L2Policy (warm first), not alphabetically.
std::string problem_order(std::string_view prefix = "");
// "a.m = b.m AND ... AND a.l2 = b.l2": the rows of aliases `a` and `b` are about one problem.
std::string same_problem(std::string_view a, std::string_view b);

void bind_problem(Statement& statement, int first, const Problem& problem);
Problem read_problem(const Statement& row, int first);

}  // namespace cl2
