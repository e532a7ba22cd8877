#include "db/problem_columns.hpp"

#include <fmt/format.h>

#include <array>

namespace cl2 {
namespace {

constexpr std::array<std::string_view, kProblemColumnCount> kNames{"m", "n", "k", "layout", "accum", "l2"};

}  // namespace

std::string problem_columns(std::string_view prefix) {
  std::string columns;
  for (const std::string_view name : kNames)
    columns += fmt::format("{}{}{}", columns.empty() ? "" : ", ", prefix, name);
  return columns;
}

std::string problem_order(std::string_view prefix) {
  std::string rank;
  for (const L2Policy policy : kL2Policies)
    rank += fmt::format(" WHEN '{}' THEN {}", to_string(policy), int(policy));
  return fmt::format("{0}m, {0}n, {0}k, {0}layout, {0}accum, CASE {0}l2{1} END", prefix, rank);
}

std::string same_problem(std::string_view a, std::string_view b) {
  std::string match;
  for (const std::string_view name : kNames)
    match += fmt::format("{0}{1}.{3} = {2}.{3}", match.empty() ? "" : " AND ", a, b, name);
  return match;
}

void bind_problem(Statement& statement, int first, const Problem& problem) {
  statement.bind_from(first, problem.shape.m, problem.shape.n, problem.shape.k, to_string(problem.layout),
                      to_string(problem.accum), to_string(problem.l2));
}

Problem read_problem(const Statement& row, int first) {
  Problem problem;
  problem.shape = {row.column_int64(first), row.column_int64(first + 1), row.column_int64(first + 2)};
  problem.layout = parse_layout(row.column_text(first + 3), "tuning database");
  problem.accum = parse_accum(row.column_text(first + 4), "tuning database");
  problem.l2 = parse_l2_policy(row.column_text(first + 5), "tuning database");
  return problem;
}

}  // namespace cl2
