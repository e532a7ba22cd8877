#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <regex>
#include <stdexcept>

#include "core/errors.hpp"
#include "db/tuning_db.hpp"
#include "db_test_support.hpp"

using namespace cl2;
using namespace cl2::test;

namespace {

// The first value of a query, through a separate read-only connection.
std::string query_value(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
  std::string value;
  if (sqlite3_step(stmt) == SQLITE_ROW)
    value = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return value;
}

// A database with one run, one device and one kernel, the ids every record needs.
struct DbFixture : ::testing::Test {
  TempDir dir;
  std::string path = dir.file("tuning.sqlite");
  std::unique_ptr<TuningDb> db = TuningDb::open(path, DbMode::ReadWrite);
  std::int64_t run = db->begin_run("cuda-l2-tune tune --shapes s.json", "s.json");
  std::int64_t device = db->upsert_device(test_device());
  std::int64_t kernel = db->upsert_kernel(test_kernel(128));
  Problem problem = test_problem(4096, 4096, 4096);
};

}  // namespace

TEST(Db, CreatesFoldersSchemaAndPragmas) {
  TempDir dir;
  const std::string path = dir.file("nested/folders/tuning.sqlite");
  {
    const auto db = TuningDb::open(path, DbMode::ReadWrite);
    EXPECT_EQ(db->path(), path);
    EXPECT_EQ(db->schema_version(), kSchemaVersion);
    const DbSummary summary = db->summary();
    EXPECT_EQ(summary.devices + summary.kernels + summary.trials + summary.runs, 0);
  }
  EXPECT_EQ(query_value(path, "PRAGMA application_id"), std::to_string(0x434C3254));
  EXPECT_EQ(query_value(path, "PRAGMA user_version"), std::to_string(kSchemaVersion));
  EXPECT_EQ(query_value(path, "PRAGMA journal_mode"), "wal");
}

TEST(Db, EmptyFileBecomesATuningDatabase) {
  TempDir dir;
  const std::string path = dir.file("empty.sqlite");
  write_bytes(path, "");
  EXPECT_EQ(TuningDb::open(path, DbMode::ReadWrite)->schema_version(), kSchemaVersion);
}

TEST_F(DbFixture, ReopenReadOnlyKeepsDataAndRefusesWrites) {
  const std::int64_t trial = db->insert_trial(ok_trial(run, device, kernel, problem, 812.5));
  db.reset();
  for (const DbMode mode : {DbMode::ReadWrite, DbMode::ReadOnly}) {
    const auto reopened = TuningDb::open(path, mode);
    const auto found = reopened->find_trial(device, kernel, problem);
    ASSERT_TRUE(found);
    EXPECT_EQ(found->id, trial);
    EXPECT_DOUBLE_EQ(found->time_us, 812.5);
    EXPECT_EQ(reopened->devices().at(0).second.name, "NVIDIA H200");
  }
  const auto read_only = TuningDb::open(path, DbMode::ReadOnly);
  EXPECT_THROW(read_only->begin_run("x", ""), UserError);
}

TEST_F(DbFixture, ReadOnlyOpenLeavesNoSideFiles) {
  db.reset();
  EXPECT_EQ(TuningDb::open(path, DbMode::ReadOnly)->summary().devices, 1);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            1);
}

TEST_F(DbFixture, UpsertDeviceIsKeyedByFingerprint) {
  DeviceInfo same = test_device();
  same.sm_clock_mhz = 1755;  // not part of the identity: updates the row
  EXPECT_EQ(db->upsert_device(same), device);
  ASSERT_EQ(db->devices().size(), 1u);
  EXPECT_EQ(db->devices()[0].second.sm_clock_mhz, 1755);

  DeviceInfo new_driver = test_device();
  new_driver.driver_version = "13.1";
  EXPECT_NE(db->upsert_device(new_driver), device);
  EXPECT_EQ(db->devices().size(), 2u);
}

TEST_F(DbFixture, UpsertKernelIsKeyedByConfigArchAndSource) {
  KernelRecord recompiled = test_kernel(128);
  recompiled.registers = 200;
  EXPECT_EQ(db->upsert_kernel(recompiled), kernel);
  EXPECT_EQ(db->kernel(kernel)->registers, 200);

  KernelRecord new_source = test_kernel(128);
  new_source.source_hash = "other";
  EXPECT_NE(db->upsert_kernel(new_source), kernel);
  EXPECT_FALSE(db->kernel(9999));
}

TEST_F(DbFixture, TrialIsRecordedOncePerDeviceKernelAndProblem) {
  const std::int64_t first = db->insert_trial(ok_trial(run, device, kernel, problem, 100.0));
  EXPECT_EQ(db->insert_trial(ok_trial(run, device, kernel, problem, 50.0)), first);
  const auto trials = db->trials(device, problem);
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_DOUBLE_EQ(trials[0].time_us, 100.0);  // the first record is kept

  const Problem nn = test_problem(4096, 4096, 4096, Layout::NN);
  EXPECT_NE(db->insert_trial(ok_trial(run, device, kernel, nn, 50.0)), first);
  EXPECT_EQ(db->summary().trials, 2);
  EXPECT_FALSE(db->find_trial(device, kernel, test_problem(1, 2, 3)));
}

TEST_F(DbFixture, TrialWithUnknownDeviceViolatesForeignKey) {
  EXPECT_THROW(db->insert_trial(ok_trial(run, 4242, kernel, problem, 1.0)), std::runtime_error);
  EXPECT_EQ(db->summary().trials, 0);
}

TEST_F(DbFixture, NanRoundTripsAsNotMeasured) {
  TrialRecord failed = ok_trial(run, device, kernel, problem, kNotMeasured);
  failed.status = TrialStatus::VerifyFailed;
  failed.reason = "max_diff 3.5 above tolerance";
  failed.max_diff = 3.5;
  failed.spread_pct = kNotMeasured;
  failed.reference_us = kNotMeasured;
  db->insert_trial(failed);
  const TrialRecord read = db->trials(device, problem).at(0);
  EXPECT_EQ(read.status, TrialStatus::VerifyFailed);
  EXPECT_EQ(read.reason, failed.reason);
  EXPECT_TRUE(std::isnan(read.time_us));
  EXPECT_TRUE(std::isnan(read.spread_pct));
  EXPECT_TRUE(std::isnan(read.reference_us));
  EXPECT_DOUBLE_EQ(read.max_diff, 3.5);
  EXPECT_DOUBLE_EQ(read.tolerance, failed.tolerance);
  EXPECT_TRUE(std::regex_match(read.created_at,
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
      << read.created_at;
}

TEST_F(DbFixture, TransactionRollsBackWhenTheBodyThrows) {
  EXPECT_THROW(db->transaction([&] {
    db->insert_trial(ok_trial(run, device, kernel, problem, 10.0));
    throw std::runtime_error("worker died");
  }),
               std::runtime_error);
  EXPECT_EQ(db->summary().trials, 0);

  db->transaction([&] {
    db->insert_trial(ok_trial(run, device, kernel, problem, 10.0));
    EXPECT_THROW(db->transaction([&] {  // a nested failure undoes only its own writes
      db->upsert_kernel(test_kernel(64));
      throw std::runtime_error("inner");
    }),
                 std::runtime_error);
  });
  EXPECT_EQ(db->summary().trials, 1);
  EXPECT_EQ(db->summary().kernels, 1);
}

TEST_F(DbFixture, BaselineUpsertReplacesTheProvidersTiming) {
  BaselineRecord baseline = test_baseline(device, run, problem, 900.0, "algo 3 of 12");
  db->upsert_baseline(baseline);
  baseline.time_us = 880.0;
  db->upsert_baseline(baseline);
  baseline.provider = Provider::CublasTn;
  baseline.time_us = kNotMeasured;
  db->upsert_baseline(baseline);
  const auto baselines = db->baselines(device, problem);
  ASSERT_EQ(baselines.size(), 2u);
  EXPECT_EQ(baselines[0].provider, Provider::CublasTn);
  EXPECT_TRUE(std::isnan(baselines[0].time_us));
  EXPECT_EQ(baselines[1].provider, Provider::CublasltAutotune);
  EXPECT_DOUBLE_EQ(baselines[1].time_us, 880.0);
  EXPECT_EQ(baselines[1].detail, "algo 3 of 12");
}

TEST_F(DbFixture, PutWinnerReplacesTheProblemsRow) {
  const std::int64_t trial = db->insert_trial(ok_trial(run, device, kernel, problem, 800.0));
  WinnerRecord winner = test_winner(problem, 800.0, 900.0, 850.0, kNotMeasured);
  winner.device_id = device;
  winner.run_id = run;
  winner.kernel_id = kernel;
  winner.trial_id = trial;
  db->put_winner(winner);
  winner.time_us = 790.0;
  winner.cublaslt_autotune_us = 820.0;
  db->put_winner(winner);
  EXPECT_EQ(db->summary().winners, 1);
  const auto read = db->winner(device, problem);
  ASSERT_TRUE(read);
  EXPECT_DOUBLE_EQ(read->time_us, 790.0);
  EXPECT_DOUBLE_EQ(read->cublaslt_autotune_us, 820.0);
  EXPECT_TRUE(std::isnan(read->cublaslt_heuristic_us));
  EXPECT_DOUBLE_EQ(read->cublas_max_us(), 850.0);
  EXPECT_EQ(read->trial_id, trial);
}

TEST_F(DbFixture, WinnerRowsJoinDevicesAndKernelsAndFilterByName) {
  const std::int64_t a100 = db->upsert_device(test_device("NVIDIA A100-SXM4-80GB"));
  const std::int64_t other_kernel = db->upsert_kernel(test_kernel(64, "sm80"));
  const Problem small = test_problem(64, 64, 64);
  for (const auto& [dev, kern, prob] : {std::tuple{device, kernel, problem},
                                        std::tuple{device, kernel, small},
                                        std::tuple{a100, other_kernel, small}}) {
    const std::int64_t trial = db->insert_trial(ok_trial(run, dev, kern, prob, 5.0));
    WinnerRecord winner = test_winner(prob, 5.0, 6.0, 6.0, 6.0);
    winner.device_id = dev;
    winner.run_id = run;
    winner.kernel_id = kern;
    winner.trial_id = trial;
    db->put_winner(winner);
  }
  const auto all = db->winner_rows();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].device.name, "NVIDIA A100-SXM4-80GB");  // by device name, then shape
  EXPECT_EQ(all[0].kernel.family, "sm80");
  EXPECT_EQ(all[1].winner.problem, small);
  EXPECT_EQ(all[2].winner.problem, problem);
  EXPECT_EQ(all[2].kernel.config_json, test_kernel(128).config_json);

  const auto h200 = db->winner_rows("h200");
  ASSERT_EQ(h200.size(), 2u);
  EXPECT_EQ(h200[0].device.name, "NVIDIA H200");
  EXPECT_TRUE(db->winner_rows("v100").empty());
}

TEST_F(DbFixture, ProblemsWithTrialsAreDistinctAndSorted) {
  const Problem small = test_problem(64, 64, 64);
  db->insert_trial(ok_trial(run, device, kernel, problem, 1.0));
  db->insert_trial(ok_trial(run, device, db->upsert_kernel(test_kernel(64)), problem, 1.0));
  db->insert_trial(ok_trial(run, device, kernel, small, 1.0));
  EXPECT_EQ(db->problems_with_trials(device), (std::vector<Problem>{small, problem}));
}

TEST_F(DbFixture, FinishRunRecordsStatusAndTime) {
  db->finish_run(run, "completed");
  db.reset();
  EXPECT_EQ(query_value(path, "SELECT status || ' ' || (finished_at IS NOT NULL) FROM runs"),
            "completed 1");
}

TEST(DbTrialStatus, SpellingsRoundTrip) {
  for (const TrialStatus status :
       {TrialStatus::Ok, TrialStatus::VerifyFailed, TrialStatus::CompileFailed,
        TrialStatus::Rejected, TrialStatus::LaunchFailed, TrialStatus::Fault, TrialStatus::Timeout})
    EXPECT_EQ(parse_trial_status(to_string(status)), status);
  EXPECT_EQ(to_string(TrialStatus::CompileFailed), "compile_failed");
  EXPECT_THROW(parse_trial_status("crashed"), std::invalid_argument);
}
