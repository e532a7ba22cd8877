#include "db/problem_columns.hpp"

namespace cl2 {

void bind_problem(Statement& statement, int first, const Problem& problem) {
  statement.bind_from(first, problem.shape.m, problem.shape.n, problem.shape.k, to_string(problem.layout),
                      to_string(problem.accum));
}

Problem read_problem(const Statement& row, int first) {
  Problem problem;
  problem.shape = {row.column_int64(first), row.column_int64(first + 1), row.column_int64(first + 2)};
  problem.layout = parse_layout(row.column_text(first + 3), "tuning database");
  problem.accum = parse_accum(row.column_text(first + 4), "tuning database");
  return problem;
}

}  // namespace cl2
