#pragma once
// The SQLite tuning database (schema in db/schema.sql, versioned with PRAGMA user_version and
// identified by PRAGMA application_id, WAL journal). Only the tuning parent process writes; every
// write below is its own transaction unless grouped with transaction(), so a run killed at any
// moment keeps every finished trial and the resumed run finds them (find_trial) instead of
// redoing them.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "db/records.hpp"

struct sqlite3;

namespace cl2 {

inline constexpr int kSchemaVersion = 8;

enum class DbMode {
  ReadWrite,  // create the file (and its folder) if missing, migrate an older schema
  ReadOnly,   // the file must exist; never written (an older schema is read from a copy migrated in memory)
  ReadAsIs,   // the same, but an older schema is an error (merge attaches the file itself)
};

struct DbSummary {
  int devices = 0, kernels = 0, trials = 0, trials_ok = 0, baselines = 0, winners = 0, runs = 0;
};

// What merge_from() added to this database.
struct MergeCounts {
  int runs = 0, devices = 0, kernels = 0, trials = 0, baselines = 0, winners = 0;
};

class TuningDb {
 public:
  // Throws UserError (one line naming the path and the fix) when: the folder cannot be created or
  // written, the file is not a SQLite database or is corrupt, it is a SQLite database of another
  // program, or its schema version is newer than kSchemaVersion. Nothing is written in those cases.
  // `path_option` is where the path came from, as the fixes name it: an option (--db,
  // --runtime-db) or the C API's cl2_open.
  static std::unique_ptr<TuningDb> open(const std::string& path, DbMode mode,
                                        std::string_view path_option = "--db");
  ~TuningDb();
  TuningDb(const TuningDb&) = delete;
  TuningDb& operator=(const TuningDb&) = delete;

  const std::string& path() const { return path_; }
  int schema_version() const;

  // Runs `body` inside BEGIN IMMEDIATE ... COMMIT; rolls back and rethrows if it throws.
  void transaction(const std::function<void()>& body);

  std::int64_t begin_run(const std::string& command_line, const std::string& shapes_file);
  void finish_run(std::int64_t run_id, const std::string& status);  // "completed", "failed", ...
  void set_run_stages(std::int64_t run_id, const std::vector<RunStageTime>& stages);
  std::vector<RunRecord> runs(std::size_t latest) const;  // the `latest` most recent, newest first

  std::int64_t upsert_device(const DeviceInfo& device);  // keyed by fingerprint
  std::vector<std::pair<std::int64_t, DeviceInfo>> devices() const;

  std::int64_t upsert_kernel(const KernelRecord& kernel);  // keyed by (config_json, arch, source_hash)
  std::optional<KernelRecord> kernel(std::int64_t kernel_id) const;

  std::optional<TrialRecord> find_trial(std::int64_t device_id, std::int64_t kernel_id,
                                        const Problem& problem) const;
  // Inserts the trial; if one for (device, kernel, problem) exists already, keeps the old row and
  // returns its id, so a trial is never recorded twice.
  std::int64_t insert_trial(const TrialRecord& trial);
  std::vector<TrialRecord> trials(std::int64_t device_id, const Problem& problem) const;
  // Replaces the outcome and measurement of trial `trial.id` (a raced candidate timed again under
  // the screening rule keeps one row, with the better measurement).
  void update_trial_measurement(const TrialRecord& trial);

  void upsert_baseline(const BaselineRecord& baseline);  // keyed by (device, problem, provider)
  std::vector<BaselineRecord> baselines(std::int64_t device_id, const Problem& problem) const;

  void put_winner(const WinnerRecord& winner);  // replaces the row of (device, problem)
  std::optional<WinnerRecord> winner(std::int64_t device_id, const Problem& problem) const;

  void upsert_counters(const CountersRecord& counters);  // keyed by (device, problem, provider)
  std::vector<CountersRecord> counters(std::int64_t device_id, const Problem& problem) const;  // by provider

  void put_calibration(const CalibrationRecord& calibration);  // replaces the row of (device name, family)
  std::optional<CalibrationRecord> calibration(const std::string& device_name, const std::string& family) const;

  // The best-kernel table, ordered by device then M, N, K, layout, accum, L2 policy (warm first).
  // An empty filter takes every device; otherwise devices whose name contains it (case-insensitive).
  std::vector<WinnerRow> winner_rows(const std::string& device_filter = "") const;

  // Problems that have trials on the device, for `show`.
  std::vector<Problem> problems_with_trials(std::int64_t device_id) const;

  DbSummary summary() const;

  // Copies another tuning database of the same schema into this one, in one transaction (so not
  // inside another: SQLite attaches databases only outside transactions): runs, devices and kernels matched by their natural keys (start
  // time and command; fingerprint; configuration, arch and source hash), every trial kept once,
  // each library baseline as its latest measurement, and per device and problem the faster winner
  // (each winner was re-timed beside the libraries in its own run, so its row is taken whole).
  // Merging the same database twice adds nothing the second time.
  MergeCounts merge_from(const std::string& other_path);

 private:
  TuningDb(sqlite3* handle, std::string path);
  sqlite3* db_ = nullptr;
  std::string path_;
};

}  // namespace cl2
