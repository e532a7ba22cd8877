// TuningDb's counters table (schema 4): one row per device, problem and provider, its metric
// columns named by kCounterMetrics' keys, so a metric added there needs only a migration here.
#include <fmt/format.h>

#include <string>

#include "db/counter_columns.hpp"
#include "db/problem_columns.hpp"
#include "db/tuning_db.hpp"

namespace cl2 {
namespace {

// Each metric's key with `format` applied ("{}": the name alone).
std::string each_metric(std::string_view format) {
  std::string columns;
  for (const auto& metric : kCounterMetrics)
    columns += (columns.empty() ? "" : ", ") + fmt::format(fmt::runtime(format), metric.key);
  return columns;
}

// The columns before the metrics: device_id, run_id, the problem's from kProblemAt on, then
// provider, kernel_id and detail from kAfterProblem on.
const std::string& key_columns() {
  static const std::string columns =
      fmt::format("device_id, run_id, {}, provider, kernel_id, detail", problem_columns());
  return columns;
}
constexpr int kProblemAt = 2, kAfterProblem = kProblemAt + kProblemColumnCount;
constexpr int kKeyColumnCount = kAfterProblem + 3;

CountersRecord read_counters(const Statement& row) {
  CountersRecord record;
  record.device_id = row.column_int64(0);
  record.run_id = row.column_int64(1);
  record.problem = read_problem(row, kProblemAt);
  record.provider = parse_provider(row.column_text(kAfterProblem));
  record.kernel_id = row.column_is_null(kAfterProblem + 1) ? 0 : row.column_int64(kAfterProblem + 1);
  record.detail = row.column_text(kAfterProblem + 2);
  for (std::size_t i = 0; i < kCounterMetrics.size(); ++i)
    record.counters.values[i] = row.column_double(kKeyColumnCount + int(i));
  record.counters.absent = row.column_text(kKeyColumnCount + int(kCounterMetricCount));
  record.measured_at = row.column_text(kKeyColumnCount + int(kCounterMetricCount) + 1);
  return record;
}

}  // namespace

std::string counter_columns(std::string_view prefix) { return each_metric(std::string(prefix) + "{}"); }

std::string counter_updates() { return each_metric("{0} = excluded.{0}"); }

void TuningDb::upsert_counters(const CountersRecord& record) {
  std::string placeholders;
  for (std::size_t i = 0; i < kKeyColumnCount + kCounterMetricCount + 1; ++i) placeholders += i ? ", ?" : "?";
  Statement upsert(db_, fmt::format("INSERT INTO counters ({}, {}, absent) VALUES ({}) "
                                    "ON CONFLICT (device_id, {}, provider) DO UPDATE SET "
                                    "run_id = excluded.run_id, kernel_id = excluded.kernel_id, "
                                    "detail = excluded.detail, {}, absent = excluded.absent, measured_at = {}",
                                    key_columns(), counter_columns(), placeholders, problem_columns(),
                                    counter_updates(), kNowUtc));
  // Parameters count from 1 where columns count from 0.
  upsert.bind_all(record.device_id, record.run_id);
  bind_problem(upsert, kProblemAt + 1, record.problem);
  upsert.bind_from(kAfterProblem + 1, to_string(record.provider));
  if (record.kernel_id > 0) upsert.bind_from(kAfterProblem + 2, record.kernel_id);
  else upsert.bind_from(kAfterProblem + 2, std::nullopt);
  upsert.bind_from(kAfterProblem + 3, record.detail);
  int index = kKeyColumnCount + 1;
  for (const double value : record.counters.values) upsert.bind_from(index++, value);
  upsert.bind_from(index, record.counters.absent);
  upsert.run();
}

std::vector<CountersRecord> TuningDb::counters(std::int64_t device_id, const Problem& problem) const {
  Statement query(db_, fmt::format("SELECT {}, {}, absent, measured_at FROM counters WHERE device_id = ? AND {} "
                                   "ORDER BY provider",
                                   key_columns(), counter_columns(), kProblemMatch));
  query.bind_all(device_id);
  bind_problem(query, 2, problem);
  std::vector<CountersRecord> records;
  while (query.step()) records.push_back(read_counters(query));
  return records;
}

}  // namespace cl2
