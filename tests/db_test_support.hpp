#pragma once
// Fixtures shared by the database, export and show tests: a temporary folder that cleans up
// after itself, small, valid records to fill a tuning database with, and a database as an older
// build wrote it.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include <nlohmann/json.hpp>
#include <vector>

#include "core/kernel_config.hpp"
#include "core/lt_algo_config.hpp"
#include "db/records.hpp"
#include "db/schema_migrations.hpp"
#include "db/tuning_db.hpp"

// Expects `text` to hold `needle`, printing the whole text where it does not.
#define CL2_EXPECT_CONTAINS(text, needle) EXPECT_NE((text).find(needle), std::string::npos) << (text)

namespace cl2::test {

class TempDir {
 public:
  TempDir() {
    std::random_device random;
    path_ = std::filesystem::temp_directory_path() /
            ("cl2-test-" + std::to_string(random()) + std::to_string(random()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;  // a test may have left a read-only folder behind: make it writable
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ignored);
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

inline DeviceInfo test_device(const std::string& name = "NVIDIA H200") {
  DeviceInfo device;
  device.name = name;
  device.cc_major = 9;
  device.cc_minor = 0;
  device.num_sms = 132;
  device.sm_clock_mhz = 1980;
  device.mem_clock_mhz = 3201;
  device.l2_bytes = 60 << 20;
  device.smem_optin_bytes = 232448;
  device.driver_version = "13.0";
  device.cuda_runtime_version = "13.0";
  device.cublas_version = "13.1.0";
  device.nvrtc_version = "13.0";
  return device;
}

inline KernelRecord test_kernel(std::int64_t bm, const std::string& family = "sm90") {
  const KernelConfig config{family, {{"BK", 64}, {"BM", bm}, {"BN", 256}, {"STAGES", 4}}};
  KernelRecord kernel;
  kernel.family = family;
  kernel.config_json = config.to_json();
  kernel.source_hash = "hash-" + std::to_string(bm);
  kernel.arch = "sm_90a";
  kernel.compiled = true;
  kernel.registers = 168;
  return kernel;
}

inline Problem test_problem(std::int64_t m, std::int64_t n, std::int64_t k, Layout layout = Layout::TN,
                            Accum accum = Accum::F32, L2Policy l2 = L2Policy::Warm) {
  return Problem{{m, n, k}, layout, accum, l2};
}

// The same problem under another L2 policy.
inline Problem under(Problem problem, L2Policy l2) {
  problem.l2 = l2;
  return problem;
}

inline TrialRecord ok_trial(std::int64_t run_id, std::int64_t device_id, std::int64_t kernel_id,
                            const Problem& problem, double time_us) {
  TrialRecord trial;
  trial.run_id = run_id;
  trial.device_id = device_id;
  trial.kernel_id = kernel_id;
  trial.problem = problem;
  trial.max_diff = 0.00048828125;
  trial.tolerance = 0.0078125;
  trial.time_us = time_us;
  trial.spread_pct = 0.4;
  trial.samples = 200;
  return trial;
}

// A cuBLASLt algorithm as the H200 reported one (data/h200-cublaslt-choices-2026-12-01.csv).
inline LtAlgoConfig test_lt_algo(int splitk = 1, const std::string& cluster = "1x2x1") {
  return {66, "64x32", "64xAUTO", splitk, splitk > 1 ? "inplace" : "none", 0, 3, cluster};
}

// A winner with its timings; the ids are left for the caller to fill in.
inline BaselineRecord test_baseline(std::int64_t device_id, std::int64_t run_id, const Problem& problem,
                                    double time_us, const std::string& detail,
                                    Provider provider = Provider::CublasltAutotune) {
  BaselineRecord baseline;
  baseline.device_id = device_id;
  baseline.run_id = run_id;
  baseline.problem = problem;
  baseline.provider = provider;
  baseline.time_us = time_us;
  baseline.detail = detail;
  return baseline;
}

inline WinnerRecord test_winner(const Problem& problem, double time_us, double cublas_nn_us,
                                double cublas_tn_us, double cublaslt_autotune_us) {
  WinnerRecord winner;
  winner.problem = problem;
  winner.time_us = time_us;
  winner.spread_pct = 0.3;
  winner.max_diff = 0.0009765625;
  winner.cublas_nn_us = cublas_nn_us;
  winner.cublas_tn_us = cublas_tn_us;
  winner.cublaslt_heuristic_us = cublaslt_autotune_us * 1.05;
  winner.cublaslt_autotune_us = cublaslt_autotune_us;
  winner.candidates_timed = 12;
  return winner;
}

// A new database with one run and one device, to which a test adds a winner of `problem`.
struct WinnerDb {
  TempDir dir;
  std::string path = dir.file("winner.sqlite");
  std::unique_ptr<TuningDb> db = TuningDb::open(path, DbMode::ReadWrite);
  std::int64_t run = db->begin_run("tune", "s.json");
  std::int64_t device = db->upsert_device(test_device());
  Problem problem = test_problem(1024, 1024, 12288);

  // The winner and its trial (with `trace`), in this run; returns the trial's id.
  std::int64_t add_winner(std::optional<CallTrace> trace = std::nullopt) {
    const std::int64_t kernel = db->upsert_kernel(test_kernel(128));
    TrialRecord trial = ok_trial(run, device, kernel, problem, 57.1);
    trial.trace = std::move(trace);
    WinnerRecord w = test_winner(problem, 57.1, 50.0, 48.0, 44.2);
    w.device_id = device;
    w.run_id = run;
    w.kernel_id = kernel;
    w.trial_id = db->insert_trial(trial);
    db->put_winner(w);
    return w.trial_id;
  }
};

inline void exec_sql_or_fail(sqlite3* db, const std::string& sql) {
  char* error = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "") << sql;
}

// What a build of schema `version` wrote: the schema (db/schema.sql and the migrations up to that
// version, never edited once shipped), its pragmas, and one run, device, kernel, trial,
// cuBLASLt-autotune baseline and winner for 4096^3 tn f32, in the columns every version has.
inline void write_database_at_schema(const std::string& path, int version) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  for (int step = 1; step <= version; ++step) exec_sql_or_fail(db, std::string(migration_script(step)));
  exec_sql_or_fail(db, "PRAGMA user_version = " + std::to_string(version) + "; PRAGMA application_id = 1129067092;");
  const std::string device = nlohmann::json(test_device()).dump();
  exec_sql_or_fail(
      db, "INSERT INTO runs (id, command_line) VALUES (1, 'cuda-l2-tune tune');"
          "INSERT INTO devices (id, fingerprint, name, cc_major, cc_minor, num_sms, sm_clock_mhz, mem_clock_mhz, "
          "l2_bytes, smem_optin_bytes, driver_version, cuda_runtime_version, cublas_version, nvrtc_version, "
          "info_json) VALUES (1, '" + test_device().fingerprint() + "', 'NVIDIA H200', 9, 0, 132, 1980, 3201, "
          "62914560, 232448, '13.0', '13.0', '13.1.0', '13.0', '" + device + "');"
          "INSERT INTO kernels (id, family, config_json, source_hash, arch, compiled, registers, stack_bytes, "
          "spill_bytes, smem_static_bytes) VALUES (1, 'sm90', '{}', 'h', 'sm_90a', 1, 168, 0, 0, 0);"
          "INSERT INTO trials (id, run_id, device_id, kernel_id, m, n, k, layout, accum, status, time_us) "
          "VALUES (1, 1, 1, 1, 4096, 4096, 4096, 'tn', 'f32', 'ok', 210.5);"
          "INSERT INTO baselines (device_id, run_id, m, n, k, layout, accum, provider, time_us, detail) "
          "VALUES (1, 1, 4096, 4096, 4096, 'tn', 'f32', 'cublaslt_autotune', 204.0, 'algo #3 of 12 tried');"
          "INSERT INTO winners (device_id, run_id, m, n, k, layout, accum, kernel_id, trial_id, time_us, "
          "cublaslt_autotune_us) VALUES (1, 1, 4096, 4096, 4096, 'tn', 'f32', 1, 1, 210.5, 204.0);");
  sqlite3_close(db);
}

// The column names of `table`, in order.
inline std::vector<std::string> table_columns(const std::string& path, const std::string& table) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, ("SELECT name FROM pragma_table_info('" + table + "')").c_str(), -1, &stmt, nullptr),
            SQLITE_OK);
  std::vector<std::string> names;
  while (sqlite3_step(stmt) == SQLITE_ROW) names.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)));
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return names;
}

}  // namespace cl2::test
