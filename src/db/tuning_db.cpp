// Reading and writing the records of the tuning database. Each record type has one column list
// and one reader next to each other, so a SELECT and the code reading its row cannot drift apart.
#include "db/tuning_db.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "db/lt_algo_columns.hpp"
#include "db/problem_columns.hpp"
#include "db/sqlite_statement.hpp"

namespace cl2 {
namespace {

// A kernel_trace column (schema 3): the trace's JSON, NULL where there is none.
void bind_trace(Statement& statement, int index, const std::optional<CallTrace>& trace) {
  if (trace) statement.bind_from(index, to_json(*trace).dump());
  else statement.bind_from(index, std::nullopt);
}

std::optional<CallTrace> read_trace(const Statement& row, int column) {
  if (row.column_is_null(column)) return std::nullopt;
  return call_trace_from_json(nlohmann::json::parse(row.column_text(column)));
}

DeviceInfo parse_device(const std::string& info_json) {
  return nlohmann::json::parse(info_json).get<DeviceInfo>();
}

constexpr std::string_view kKernelColumns =
    "kr.id, kr.family, kr.config_json, kr.source_hash, kr.arch, kr.compiled, kr.registers, "
    "kr.stack_bytes, kr.spill_bytes, kr.smem_static_bytes, kr.compile_log";
constexpr int kKernelColumnCount = 11;

KernelRecord read_kernel(const Statement& row, int first) {
  KernelRecord kernel;
  kernel.id = row.column_int64(first);
  kernel.family = row.column_text(first + 1);
  kernel.config_json = row.column_text(first + 2);
  kernel.source_hash = row.column_text(first + 3);
  kernel.arch = row.column_text(first + 4);
  kernel.compiled = row.column_int(first + 5) != 0;
  kernel.registers = row.column_int(first + 6);
  kernel.stack_bytes = row.column_int(first + 7);
  kernel.spill_bytes = row.column_int(first + 8);
  kernel.smem_static_bytes = row.column_int(first + 9);
  kernel.compile_log = row.column_text(first + 10);
  return kernel;
}

// In each row reader below, `p` is the first of the problem's columns and `q` the first column after
// them, so that a column added to the problem (problem_columns.hpp) renumbers nothing here.
const std::string& trial_columns() {
  static const std::string columns = fmt::format(
      "id, run_id, device_id, kernel_id, {}, status, reason, max_diff, tolerance, time_us, spread_pct, "
      "samples, reference_us, created_at, kernel_trace",
      problem_columns());
  return columns;
}

TrialRecord read_trial(const Statement& row) {
  constexpr int p = 4, q = p + kProblemColumnCount;
  TrialRecord trial;
  trial.id = row.column_int64(0);
  trial.run_id = row.column_int64(1);
  trial.device_id = row.column_int64(2);
  trial.kernel_id = row.column_int64(3);
  trial.problem = read_problem(row, p);
  trial.status = parse_trial_status(row.column_text(q));
  trial.reason = row.column_text(q + 1);
  trial.max_diff = row.column_double(q + 2);
  trial.tolerance = row.column_double(q + 3);
  trial.time_us = row.column_double(q + 4);
  trial.spread_pct = row.column_double(q + 5);
  trial.samples = row.column_int(q + 6);
  trial.reference_us = row.column_double(q + 7);
  trial.created_at = row.column_text(q + 8);
  trial.trace = read_trace(row, q + 9);
  return trial;
}

const std::string& baseline_columns() {
  static const std::string columns = fmt::format(
      "device_id, run_id, {}, provider, time_us, spread_pct, samples, max_diff, detail, measured_at, "
      "kernel_trace, trace_flag, {}",
      problem_columns(), lt_algo_columns());
  return columns;
}

BaselineRecord read_baseline(const Statement& row) {
  constexpr int p = 2, q = p + kProblemColumnCount;
  BaselineRecord baseline;
  baseline.device_id = row.column_int64(0);
  baseline.run_id = row.column_int64(1);
  baseline.problem = read_problem(row, p);
  baseline.provider = parse_provider(row.column_text(q));
  baseline.time_us = row.column_double(q + 1);
  baseline.spread_pct = row.column_double(q + 2);
  baseline.samples = row.column_int(q + 3);
  baseline.max_diff = row.column_double(q + 4);
  baseline.detail = row.column_text(q + 5);
  baseline.measured_at = row.column_text(q + 6);
  baseline.trace = read_trace(row, q + 7);
  baseline.trace_flag = row.column_text(q + 8);
  baseline.lt_algo = read_lt_algo(row, q + 9);
  return baseline;
}

const std::string& winner_columns() {
  static const std::string columns = fmt::format(
      "w.device_id, w.run_id, {}, w.kernel_id, w.trial_id, w.time_us, w.spread_pct, w.max_diff, "
      "w.cublas_nn_us, w.cublas_tn_us, w.cublaslt_heuristic_us, w.cublaslt_autotune_us, "
      "w.candidates_timed, w.measured_at, w.sm_clock_mhz, w.throttled_rounds",
      problem_columns("w."));
  return columns;
}
constexpr int kWinnerColumnCount = 2 + kProblemColumnCount + 13;  // the ids, the problem, and the rest

WinnerRecord read_winner(const Statement& row, int first) {
  const int p = first + 2, q = p + kProblemColumnCount;
  WinnerRecord winner;
  winner.device_id = row.column_int64(first);
  winner.run_id = row.column_int64(first + 1);
  winner.problem = read_problem(row, p);
  winner.kernel_id = row.column_int64(q);
  winner.trial_id = row.column_int64(q + 1);
  winner.time_us = row.column_double(q + 2);
  winner.spread_pct = row.column_double(q + 3);
  winner.max_diff = row.column_double(q + 4);
  winner.cublas_nn_us = row.column_double(q + 5);
  winner.cublas_tn_us = row.column_double(q + 6);
  winner.cublaslt_heuristic_us = row.column_double(q + 7);
  winner.cublaslt_autotune_us = row.column_double(q + 8);
  winner.candidates_timed = row.column_int(q + 9);
  winner.measured_at = row.column_text(q + 10);
  winner.sm_clock_mhz = row.column_double(q + 11);
  winner.throttled_rounds = row.column_int(q + 12);
  return winner;
}

// A winner's baseline of one cuBLASLt provider, from the winner's own run (see WinnerRow).
std::string winner_baseline_join(std::string_view alias, Provider provider) {
  return fmt::format("LEFT JOIN baselines {0} ON {0}.device_id = w.device_id AND {0}.run_id = w.run_id AND "
                     "{2} AND {0}.provider = '{1}'",
                     alias, to_string(provider), same_problem(alias, "w"));
}

}  // namespace

std::int64_t TuningDb::upsert_device(const DeviceInfo& device) {
  Statement upsert(db_,
                   "INSERT INTO devices (fingerprint, name, cc_major, cc_minor, num_sms, "
                   "sm_clock_mhz, mem_clock_mhz, l2_bytes, smem_optin_bytes, driver_version, "
                   "cuda_runtime_version, cublas_version, nvrtc_version, info_json) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                   "ON CONFLICT (fingerprint) DO UPDATE SET sm_clock_mhz = excluded.sm_clock_mhz, "
                   "mem_clock_mhz = excluded.mem_clock_mhz, l2_bytes = excluded.l2_bytes, "
                   "smem_optin_bytes = excluded.smem_optin_bytes, info_json = excluded.info_json "
                   "RETURNING id");
  upsert.bind_all(device.fingerprint(), device.name, device.cc_major, device.cc_minor,
                  device.num_sms, device.sm_clock_mhz, device.mem_clock_mhz, device.l2_bytes,
                  device.smem_optin_bytes, device.driver_version, device.cuda_runtime_version,
                  device.cublas_version, device.nvrtc_version, nlohmann::json(device).dump());
  return returned_id(upsert);
}

std::vector<std::pair<std::int64_t, DeviceInfo>> TuningDb::devices() const {
  Statement query(db_, "SELECT id, info_json FROM devices ORDER BY id");
  std::vector<std::pair<std::int64_t, DeviceInfo>> devices;
  while (query.step())
    devices.emplace_back(query.column_int64(0), parse_device(query.column_text(1)));
  return devices;
}

std::int64_t TuningDb::upsert_kernel(const KernelRecord& kernel) {
  // A recompile of the same source (a newer NVRTC, say) replaces the compile results.
  Statement upsert(db_,
                   "INSERT INTO kernels (family, config_json, source_hash, arch, compiled, "
                   "registers, stack_bytes, spill_bytes, smem_static_bytes, compile_log) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                   "ON CONFLICT (config_json, arch, source_hash) DO UPDATE SET "
                   "compiled = excluded.compiled, registers = excluded.registers, "
                   "stack_bytes = excluded.stack_bytes, spill_bytes = excluded.spill_bytes, "
                   "smem_static_bytes = excluded.smem_static_bytes, "
                   "compile_log = excluded.compile_log RETURNING id");
  upsert.bind_all(kernel.family, kernel.config_json, kernel.source_hash, kernel.arch,
                  kernel.compiled, kernel.registers, kernel.stack_bytes, kernel.spill_bytes,
                  kernel.smem_static_bytes, kernel.compile_log);
  return returned_id(upsert);
}

std::optional<KernelRecord> TuningDb::kernel(std::int64_t kernel_id) const {
  Statement query(db_, fmt::format("SELECT {} FROM kernels kr WHERE kr.id = ?", kKernelColumns));
  if (!query.bind_all(kernel_id).step()) return std::nullopt;
  return read_kernel(query, 0);
}

std::optional<TrialRecord> TuningDb::find_trial(std::int64_t device_id, std::int64_t kernel_id,
                                                const Problem& problem) const {
  Statement query(db_, fmt::format("SELECT {} FROM trials WHERE device_id = ? AND kernel_id = ? "
                                   "AND {}",
                                   trial_columns(), kProblemMatch));
  query.bind_all(device_id, kernel_id);
  bind_problem(query, 3, problem);
  if (!query.step()) return std::nullopt;
  return read_trial(query);
}

std::int64_t TuningDb::insert_trial(const TrialRecord& trial) {
  std::int64_t id = 0;
  transaction([&] {
    // DO NOTHING on the unique key only: any other constraint violation still fails loudly,
    // where INSERT OR IGNORE would drop the row silently.
    Statement insert(db_, fmt::format("INSERT INTO trials (run_id, device_id, kernel_id, {0}, status, reason, "
                                      "max_diff, tolerance, time_us, spread_pct, samples, reference_us, "
                                      "kernel_trace) VALUES (?, ?, ?, {1}, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                                      "ON CONFLICT (device_id, kernel_id, {0}) DO NOTHING",
                                      problem_columns(), kProblemPlaceholders));
    insert.bind_all(trial.run_id, trial.device_id, trial.kernel_id);
    bind_problem(insert, 4, trial.problem);
    constexpr int q = 4 + kProblemColumnCount;
    insert.bind_from(q, to_string(trial.status), trial.reason, trial.max_diff, trial.tolerance,
                     trial.time_us, trial.spread_pct, trial.samples, trial.reference_us);
    bind_trace(insert, q + 8, trial.trace);
    insert.run();
    id = find_trial(trial.device_id, trial.kernel_id, trial.problem).value().id;
  });
  return id;
}

void TuningDb::update_trial_measurement(const TrialRecord& trial) {
  Statement update(db_, "UPDATE trials SET status = ?, reason = ?, max_diff = ?, tolerance = ?, time_us = ?, "
                        "spread_pct = ?, samples = ?, reference_us = ?, kernel_trace = ? WHERE id = ?");
  update.bind_all(to_string(trial.status), trial.reason, trial.max_diff, trial.tolerance, trial.time_us,
                  trial.spread_pct, trial.samples, trial.reference_us);
  bind_trace(update, 9, trial.trace);
  update.bind_from(10, trial.id);
  update.run();
}

std::vector<TrialRecord> TuningDb::trials(std::int64_t device_id, const Problem& problem) const {
  Statement query(db_, fmt::format("SELECT {} FROM trials WHERE device_id = ? AND {} ORDER BY id",
                                   trial_columns(), kProblemMatch));
  query.bind_all(device_id);
  bind_problem(query, 2, problem);
  std::vector<TrialRecord> trials;
  while (query.step()) trials.push_back(read_trial(query));
  return trials;
}

void TuningDb::upsert_baseline(const BaselineRecord& baseline) {
  Statement upsert(db_, fmt::format(
                            "INSERT INTO baselines (device_id, run_id, {0}, provider, time_us, spread_pct, "
                            "samples, max_diff, detail, kernel_trace, trace_flag, {1}) "
                            "VALUES (?, ?, {2}, ?, ?, ?, ?, ?, ?, ?, ?, {3}) "
                            "ON CONFLICT (device_id, {0}, provider) DO UPDATE "
                            "SET run_id = excluded.run_id, time_us = excluded.time_us, "
                            "spread_pct = excluded.spread_pct, samples = excluded.samples, "
                            "max_diff = excluded.max_diff, detail = excluded.detail, "
                            "kernel_trace = excluded.kernel_trace, trace_flag = excluded.trace_flag, {4}, "
                            "measured_at = {5}",
                            problem_columns(), lt_algo_columns(), kProblemPlaceholders, lt_algo_placeholders(),
                            lt_algo_updates(), kNowUtc));
  upsert.bind_all(baseline.device_id, baseline.run_id);
  bind_problem(upsert, 3, baseline.problem);
  constexpr int q = 3 + kProblemColumnCount;
  upsert.bind_from(q, to_string(baseline.provider), baseline.time_us, baseline.spread_pct, baseline.samples,
                   baseline.max_diff, baseline.detail);
  bind_trace(upsert, q + 6, baseline.trace);
  upsert.bind_from(q + 7, baseline.trace_flag);
  bind_lt_algo(upsert, q + 8, baseline.lt_algo);
  upsert.run();
}

std::vector<BaselineRecord> TuningDb::baselines(std::int64_t device_id,
                                                const Problem& problem) const {
  Statement query(db_, fmt::format("SELECT {} FROM baselines WHERE device_id = ? AND {} "
                                   "ORDER BY provider",
                                   baseline_columns(), kProblemMatch));
  query.bind_all(device_id);
  bind_problem(query, 2, problem);
  std::vector<BaselineRecord> baselines;
  while (query.step()) baselines.push_back(read_baseline(query));
  return baselines;
}

void TuningDb::put_winner(const WinnerRecord& winner) {
  Statement replace(db_, fmt::format("INSERT OR REPLACE INTO winners (device_id, run_id, {}, kernel_id, trial_id, "
                                     "time_us, spread_pct, max_diff, cublas_nn_us, cublas_tn_us, "
                                     "cublaslt_heuristic_us, cublaslt_autotune_us, candidates_timed, "
                                     "sm_clock_mhz, throttled_rounds) "
                                     "VALUES (?, ?, {}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                     problem_columns(), kProblemPlaceholders));
  replace.bind_all(winner.device_id, winner.run_id);
  bind_problem(replace, 3, winner.problem);
  replace.bind_from(3 + kProblemColumnCount, winner.kernel_id, winner.trial_id, winner.time_us, winner.spread_pct,
                    winner.max_diff, winner.cublas_nn_us, winner.cublas_tn_us,
                    winner.cublaslt_heuristic_us, winner.cublaslt_autotune_us,
                    winner.candidates_timed, winner.sm_clock_mhz, winner.throttled_rounds);
  replace.run();
}

std::optional<WinnerRecord> TuningDb::winner(std::int64_t device_id,
                                             const Problem& problem) const {
  Statement query(db_, fmt::format("SELECT {} FROM winners w WHERE w.device_id = ? AND {}",
                                   winner_columns(), kProblemMatch));
  query.bind_all(device_id);
  bind_problem(query, 2, problem);
  if (!query.step()) return std::nullopt;
  return read_winner(query, 0);
}

std::vector<WinnerRow> TuningDb::winner_rows(const std::string& device_filter) const {
  // One join per library baseline, aliased by its provider's name: each for its traced kernels,
  // the cuBLASLt ones also for their algorithms.
  const auto alias = [](Provider provider) { return std::string(to_string(provider)); };
  std::string joins, traces;
  for (const Provider provider : kBaselineProviders) {
    joins += fmt::format(" {}", winner_baseline_join(alias(provider), provider));
    traces += fmt::format(", {}.kernel_trace", alias(provider));
  }
  Statement query(db_, fmt::format("SELECT d.info_json, {}, {}, {}, {}{} FROM winners w "
                                   "JOIN devices d ON d.id = w.device_id "
                                   "JOIN kernels kr ON kr.id = w.kernel_id{} "
                                   "WHERE ?1 = '' OR instr(lower(d.name), lower(?1)) > 0 "
                                   "ORDER BY d.name, d.id, {}",
                                   winner_columns(), kKernelColumns,
                                   lt_algo_columns(alias(Provider::CublasltHeuristic) + "."),
                                   lt_algo_columns(alias(Provider::CublasltAutotune) + "."), traces, joins,
                                   problem_order("w.")));
  query.bind_all(device_filter);
  constexpr int kKernel = 1 + kWinnerColumnCount, kHeuristic = kKernel + kKernelColumnCount,
                kAutotune = kHeuristic + int(kLtAlgoFieldCount), kTraces = kAutotune + int(kLtAlgoFieldCount);
  std::vector<WinnerRow> rows;
  while (query.step()) {
    WinnerRow row{parse_device(query.column_text(0)), read_winner(query, 1), read_kernel(query, kKernel),
                  read_lt_algo(query, kHeuristic), read_lt_algo(query, kAutotune), {}};
    int column = kTraces;
    for (const Provider provider : kBaselineProviders)
      if (const auto trace = read_trace(query, column++); trace && trace->traced())
        row.library_kernels[provider] = trace->kernel_names();
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<Problem> TuningDb::problems_with_trials(std::int64_t device_id) const {
  Statement query(db_, fmt::format("SELECT DISTINCT {} FROM trials WHERE device_id = ? ORDER BY {}",
                                   problem_columns(), problem_order()));
  query.bind_all(device_id);
  std::vector<Problem> problems;
  while (query.step()) problems.push_back(read_problem(query, 0));
  return problems;
}

DbSummary TuningDb::summary() const {
  Statement query(db_,
                  "SELECT (SELECT count(*) FROM devices), (SELECT count(*) FROM kernels), "
                  "(SELECT count(*) FROM trials), "
                  "(SELECT count(*) FROM trials WHERE status = 'ok'), "
                  "(SELECT count(*) FROM baselines), (SELECT count(*) FROM winners), "
                  "(SELECT count(*) FROM runs)");
  query.step();
  return {query.column_int(0), query.column_int(1), query.column_int(2), query.column_int(3),
          query.column_int(4), query.column_int(5), query.column_int(6)};
}

}  // namespace cl2
