// TuningDb::merge_from: the other database is attached to this connection and copied with
// INSERT ... SELECT, its ids mapped to ours through the natural key of each table.
#include <fmt/format.h>
#include <sqlite3.h>

#include <string>

#include "db/counter_columns.hpp"
#include "db/lt_algo_columns.hpp"
#include "db/problem_columns.hpp"
#include "db/sqlite_statement.hpp"
#include "db/tuning_db.hpp"

namespace cl2 {
namespace {

// Rows changed by the last statement on this connection.
int changed_rows(sqlite3* db) { return sqlite3_changes(db); }

int run_counted(sqlite3* db, std::string_view sql) {
  Statement(db, sql).run();
  return changed_rows(db);
}

// Our id for each of the other database's runs, devices and kernels, as temporary tables.
constexpr std::string_view kIdMaps = R"sql(
CREATE TEMP TABLE run_map AS
  SELECT o.id AS other, m.id AS ours FROM other.runs o
  JOIN main.runs m ON m.started_at = o.started_at AND m.command_line = o.command_line
                  AND m.shapes_file = o.shapes_file;
CREATE TEMP TABLE device_map AS
  SELECT o.id AS other, m.id AS ours FROM other.devices o JOIN main.devices m ON m.fingerprint = o.fingerprint;
CREATE TEMP TABLE kernel_map AS
  SELECT o.id AS other, m.id AS ours FROM other.kernels o
  JOIN main.kernels m ON m.config_json = o.config_json AND m.arch = o.arch AND m.source_hash = o.source_hash;
)sql";

}  // namespace

MergeCounts TuningDb::merge_from(const std::string& other_path) {
  MergeCounts counts;
  {
    Statement attach(db_, "ATTACH DATABASE ? AS other");
    attach.bind_all(other_path).run();
  }
  try {
    run_in_transaction(db_, [&] {
      counts.runs = run_counted(db_, R"sql(
        INSERT INTO main.runs (started_at, finished_at, command_line, shapes_file, status, stage_seconds)
        SELECT o.started_at, o.finished_at, o.command_line, o.shapes_file, o.status, o.stage_seconds FROM other.runs o
        WHERE NOT EXISTS (SELECT 1 FROM main.runs m WHERE m.started_at = o.started_at
                          AND m.command_line = o.command_line AND m.shapes_file = o.shapes_file)
        ORDER BY o.id)sql");
      counts.devices = run_counted(db_, R"sql(
        INSERT OR IGNORE INTO main.devices (fingerprint, name, cc_major, cc_minor, num_sms, sm_clock_mhz,
          mem_clock_mhz, l2_bytes, smem_optin_bytes, driver_version, cuda_runtime_version, cublas_version,
          nvrtc_version, info_json, first_seen)
        SELECT fingerprint, name, cc_major, cc_minor, num_sms, sm_clock_mhz, mem_clock_mhz, l2_bytes,
          smem_optin_bytes, driver_version, cuda_runtime_version, cublas_version, nvrtc_version, info_json,
          first_seen FROM other.devices ORDER BY id)sql");
      counts.kernels = run_counted(db_, R"sql(
        INSERT OR IGNORE INTO main.kernels (family, config_json, source_hash, arch, compiled, registers,
          stack_bytes, spill_bytes, smem_static_bytes, compile_log)
        SELECT family, config_json, source_hash, arch, compiled, registers, stack_bytes, spill_bytes,
          smem_static_bytes, compile_log FROM other.kernels ORDER BY id)sql");
      exec_sql(db_, kIdMaps);
      // Every table keyed by a problem carries its columns (problem_columns) across as they are.
      const std::string problem = problem_columns();
      counts.trials = run_counted(db_, fmt::format(R"sql(
        INSERT OR IGNORE INTO main.trials (run_id, device_id, kernel_id, {}, status, reason, max_diff,
          tolerance, time_us, spread_pct, samples, reference_us, created_at, kernel_trace)
        SELECT r.ours, d.ours, k.ours, {}, t.status, t.reason, t.max_diff, t.tolerance, t.time_us,
          t.spread_pct, t.samples, t.reference_us, t.created_at, t.kernel_trace
        FROM other.trials t JOIN run_map r ON r.other = t.run_id JOIN device_map d ON d.other = t.device_id
          JOIN kernel_map k ON k.other = t.kernel_id ORDER BY t.id)sql",
                                                   problem, problem_columns("t.")));
      counts.baselines = run_counted(db_, fmt::format(R"sql(
        INSERT INTO main.baselines (device_id, run_id, {0}, provider, time_us, spread_pct, samples, max_diff,
          detail, measured_at, kernel_trace, trace_flag, {2})
        SELECT d.ours, r.ours, {1}, b.provider, b.time_us, b.spread_pct, b.samples, b.max_diff, b.detail,
          b.measured_at, b.kernel_trace, b.trace_flag, {3}
        FROM other.baselines b JOIN device_map d ON d.other = b.device_id JOIN run_map r ON r.other = b.run_id
        WHERE true
        ON CONFLICT (device_id, {0}, provider) DO UPDATE SET
          run_id = excluded.run_id, time_us = excluded.time_us, spread_pct = excluded.spread_pct,
          samples = excluded.samples, max_diff = excluded.max_diff, detail = excluded.detail,
          measured_at = excluded.measured_at, kernel_trace = excluded.kernel_trace,
          trace_flag = excluded.trace_flag, {4}
        WHERE excluded.measured_at > baselines.measured_at)sql",
                                                      problem, problem_columns("b."), lt_algo_columns(),
                                                      lt_algo_columns("b."), lt_algo_updates()));
      // A winner's trial is found in our trials through (device, kernel, problem).
      counts.winners = run_counted(db_, fmt::format(R"sql(
        INSERT INTO main.winners (device_id, run_id, {0}, kernel_id, trial_id, time_us, spread_pct, max_diff,
          cublas_nn_us, cublas_tn_us, cublaslt_heuristic_us, cublaslt_autotune_us, candidates_timed,
          measured_at, sm_clock_mhz, throttled_rounds)
        SELECT d.ours, r.ours, {1}, k.ours, mt.id, w.time_us, w.spread_pct, w.max_diff, w.cublas_nn_us,
          w.cublas_tn_us, w.cublaslt_heuristic_us, w.cublaslt_autotune_us, w.candidates_timed, w.measured_at,
          w.sm_clock_mhz, w.throttled_rounds
        FROM other.winners w JOIN device_map d ON d.other = w.device_id JOIN run_map r ON r.other = w.run_id
          JOIN kernel_map k ON k.other = w.kernel_id
          JOIN main.trials mt ON mt.device_id = d.ours AND mt.kernel_id = k.ours AND {2}
        WHERE true
        ON CONFLICT (device_id, {0}) DO UPDATE SET
          run_id = excluded.run_id, kernel_id = excluded.kernel_id, trial_id = excluded.trial_id,
          time_us = excluded.time_us, spread_pct = excluded.spread_pct, max_diff = excluded.max_diff,
          cublas_nn_us = excluded.cublas_nn_us, cublas_tn_us = excluded.cublas_tn_us,
          cublaslt_heuristic_us = excluded.cublaslt_heuristic_us,
          cublaslt_autotune_us = excluded.cublaslt_autotune_us, candidates_timed = excluded.candidates_timed,
          measured_at = excluded.measured_at, sm_clock_mhz = excluded.sm_clock_mhz,
          throttled_rounds = excluded.throttled_rounds
        WHERE excluded.time_us < winners.time_us)sql",
                                                    problem, problem_columns("w."), same_problem("mt", "w")));
      // Counters, like baselines, as the latest measurement per provider; a kernel the other
      // database measured is ours through kernel_map.
      run_counted(db_, fmt::format(R"sql(
        INSERT INTO main.counters (device_id, run_id, {0}, provider, kernel_id, detail, {2}, absent,
          measured_at)
        SELECT d.ours, r.ours, {1}, c.provider, k.ours, c.detail, {3}, c.absent, c.measured_at
        FROM other.counters c JOIN device_map d ON d.other = c.device_id JOIN run_map r ON r.other = c.run_id
          LEFT JOIN kernel_map k ON k.other = c.kernel_id
        WHERE true
        ON CONFLICT (device_id, {0}, provider) DO UPDATE SET
          run_id = excluded.run_id, kernel_id = excluded.kernel_id, detail = excluded.detail, {4},
          absent = excluded.absent, measured_at = excluded.measured_at
        WHERE excluded.measured_at > counters.measured_at)sql",
                                   problem, problem_columns("c."), counter_columns(), counter_columns("c."),
                                   counter_updates()));
      // Calibrations, per GPU model and family, as the latest fit.
      exec_sql(db_, R"sql(
        INSERT INTO main.calibrations (device_name, family, factors, scale, trials, fitted_at)
        SELECT device_name, family, factors, scale, trials, fitted_at FROM other.calibrations WHERE true
        ON CONFLICT (device_name, family) DO UPDATE SET factors = excluded.factors, scale = excluded.scale,
          trials = excluded.trials, fitted_at = excluded.fitted_at
        WHERE excluded.fitted_at > calibrations.fitted_at)sql");
      exec_sql(db_, "DROP TABLE temp.run_map; DROP TABLE temp.device_map; DROP TABLE temp.kernel_map;");
    });
  } catch (...) {
    exec_sql(db_, "DETACH DATABASE other");
    throw;
  }
  exec_sql(db_, "DETACH DATABASE other");
  return counts;
}

}  // namespace cl2
