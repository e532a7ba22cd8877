// Kernel traces in the tuning database (schema 3): a database written by schema 2 opens, migrates
// and gains the columns with its rows intact and their traces absent; trials and baselines keep
// their traces (and a baseline its flag) through insert, upsert and merge; and a winner's row names
// the kernels of its own run's baselines. A trace keeps the number of calls it covers, in its JSON:
// one stored before traces covered several calls reads as one call, with no migration.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "db/tuning_db.hpp"
#include "db_test_support.hpp"

using namespace cl2;
using namespace cl2::test;

namespace {

CallTrace split_k_trace(bool side_stream = false) {
  return {{{"nvjet_sm90_hsh_64x128_64x8_2x1_v_bz_splitK_TNN", 9, true, {66, 2, 1}, {384, 1, 1}, 1, 40.5},
           {"splitKreduce_kernel", side_stream ? 10u : 9u, !side_stream, {128, 1, 1}, {256, 1, 1}, 1, 3.25}},
          ""};
}

BaselineRecord traced_baseline(std::int64_t device, std::int64_t run, const Problem& problem, Provider provider,
                               std::optional<CallTrace> trace, const std::string& flag = "") {
  BaselineRecord b = test_baseline(device, run, problem, 48.5, "GemmEx", provider);
  b.trace = std::move(trace);
  b.trace_flag = flag;
  return b;
}

// A database whose winner's trial ran our kernel once, traced.
struct TraceDb : WinnerDb {
  std::int64_t add_winner() {
    return WinnerDb::add_winner(CallTrace{{{"cl2_gemm", 9, true, {8, 16, 1}, {384, 1, 1}, 1, 55.0}}, ""});
  }
};

}  // namespace

TEST(KernelTraceDb, SchemaTwoDatabaseMigratesAndGainsTheColumns) {
  TempDir dir;
  const std::string path = dir.file("v2.sqlite");
  write_database_at_schema(path, 2);
  const auto baseline_columns_before = table_columns(path, "baselines").size();
  EXPECT_THROW(TuningDb::open(path, DbMode::ReadAsIs), UserError);  // merge attaches the file itself
  {
    // A read-only open (show, export) reads a migrated copy in memory and leaves the file as it was.
    const auto read = TuningDb::open(path, DbMode::ReadOnly);
    EXPECT_EQ(read->schema_version(), kSchemaVersion);
    EXPECT_EQ(read->trials(1, test_problem(4096, 4096, 4096)).size(), 1u);
    EXPECT_EQ(read->trials(1, test_problem(4096, 4096, 4096)).at(0).trace, std::nullopt);
    EXPECT_EQ(table_columns(path, "baselines").size(), baseline_columns_before);
  }

  const auto db = TuningDb::open(path, DbMode::ReadWrite);
  EXPECT_EQ(db->schema_version(), kSchemaVersion);
  EXPECT_EQ(table_columns(path, "trials").back(), "kernel_trace");
  const auto baseline_columns = table_columns(path, "baselines");
  ASSERT_EQ(baseline_columns.size(), baseline_columns_before + 3);  // and schema 6's l2, after accum
  EXPECT_EQ(baseline_columns[baseline_columns.size() - 2], "kernel_trace");
  EXPECT_EQ(baseline_columns.back(), "trace_flag");

  // The old rows read as before, untraced and unflagged.
  const Problem problem = test_problem(4096, 4096, 4096);
  const auto trials = db->trials(1, problem);
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_DOUBLE_EQ(trials[0].time_us, 210.5);
  EXPECT_EQ(trials[0].trace, std::nullopt);
  const auto baselines = db->baselines(1, problem);
  ASSERT_EQ(baselines.size(), 1u);
  EXPECT_DOUBLE_EQ(baselines[0].time_us, 204.0);
  EXPECT_EQ(baselines[0].trace, std::nullopt);
  EXPECT_EQ(baselines[0].trace_flag, "");
  const auto rows = db->winner_rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0].library_kernels.empty());

  // The migrated file takes traces like a new one.
  db->upsert_baseline(traced_baseline(1, 1, problem, Provider::CublasltAutotune, split_k_trace()));
  EXPECT_EQ(db->baselines(1, problem).at(0).trace, split_k_trace());
  EXPECT_EQ(db->winner_rows().at(0).library_kernels_of(Provider::CublasltAutotune),
            split_k_trace().kernel_names());
}

TEST(KernelTraceDb, TrialsKeepTheirTraceTracedOrAbsent) {
  TraceDb t;
  const std::int64_t winner_trial = t.add_winner();
  TrialRecord untraced = ok_trial(t.run, t.device, t.db->upsert_kernel(test_kernel(64)), t.problem, 60.0);
  untraced.trace = absent_trace("CUPTI could not be loaded (libcupti.so: cannot open shared object file)");
  t.db->insert_trial(untraced);
  TrialRecord compile_failed = ok_trial(t.run, t.device, t.db->upsert_kernel(test_kernel(32)), t.problem, kNotMeasured);
  compile_failed.status = TrialStatus::CompileFailed;
  t.db->insert_trial(compile_failed);

  const auto trials = t.db->trials(t.device, t.problem);
  ASSERT_EQ(trials.size(), 3u);
  EXPECT_EQ(trials[0].id, winner_trial);
  ASSERT_TRUE(trials[0].trace.has_value());
  EXPECT_EQ(trials[0].trace->kernel_names(), std::vector<std::string>{"cl2_gemm"});
  EXPECT_EQ(trials[1].trace, untraced.trace);
  EXPECT_EQ(trials[2].trace, std::nullopt);
}

TEST(KernelTraceDb, TraceKeepsItsCallsAndOneStoredBeforeReadsAsOneCall) {
  TraceDb t;
  CallTrace sample = split_k_trace();
  sample.calls = 8;
  t.db->upsert_baseline(traced_baseline(t.device, t.run, t.problem, Provider::CublasNn, sample));
  EXPECT_EQ(t.db->baselines(t.device, t.problem).at(0).trace, sample);

  // The JSON a build before samples wrote: the same trace, no "calls".
  nlohmann::json old = to_json(split_k_trace());
  old.erase("calls");
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(t.path.c_str(), &raw), SQLITE_OK);
  exec_sql_or_fail(raw, "UPDATE baselines SET kernel_trace = '" + old.dump() + "'");
  sqlite3_close(raw);
  const auto read = t.db->baselines(t.device, t.problem).at(0).trace;
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->calls, 1);
  EXPECT_DOUBLE_EQ(read->kernel_us_per_call(), 43.75);
}

TEST(KernelTraceDb, BaselineUpsertReplacesTraceAndFlag) {
  TraceDb t;
  t.db->upsert_baseline(traced_baseline(t.device, t.run, t.problem, Provider::CublasNn, split_k_trace(true),
                                        "launched splitKreduce_kernel on a stream other than the one it was given"));
  auto b = t.db->baselines(t.device, t.problem).at(0);
  EXPECT_EQ(b.trace, split_k_trace(true));
  EXPECT_NE(b.trace_flag.find("stream other than"), std::string::npos);
  EXPECT_DOUBLE_EQ(b.time_us, 48.5);  // a flagged library time is kept

  t.db->upsert_baseline(traced_baseline(t.device, t.run, t.problem, Provider::CublasNn, std::nullopt));
  b = t.db->baselines(t.device, t.problem).at(0);
  EXPECT_EQ(b.trace, std::nullopt);  // a later untraced measurement leaves no stale trace behind
  EXPECT_EQ(b.trace_flag, "");
}

TEST(KernelTraceDb, WinnerRowsNameTheKernelsOfTheirOwnRunsBaselines) {
  TraceDb t;
  t.add_winner();
  t.db->upsert_baseline(traced_baseline(t.device, t.run, t.problem, Provider::CublasTn, split_k_trace()));
  t.db->upsert_baseline(traced_baseline(t.device, t.run, t.problem, Provider::CublasltHeuristic,
                                        absent_trace("no CUPTI")));
  t.db->upsert_baseline(traced_baseline(t.device, t.run, t.problem, Provider::CublasltAutotune,
                                        CallTrace{{{"nvjet_sm90_hsh_64x128_64x8_2x1_v_bz_TNN", 9, true, {}, {}, 1, 44.0}}, ""}));
  auto rows = t.db->winner_rows();
  ASSERT_EQ(rows.size(), 1u);  // the joins add no rows
  EXPECT_EQ(rows[0].library_kernels_of(Provider::CublasTn), split_k_trace().kernel_names());
  EXPECT_EQ(rows[0].library_kernels_of(Provider::CublasltAutotune),
            std::vector<std::string>{"nvjet_sm90_hsh_64x128_64x8_2x1_v_bz_TNN"});
  EXPECT_FALSE(rows[0].library_kernels.count(Provider::CublasltHeuristic));  // absent: no names
  EXPECT_FALSE(rows[0].library_kernels.count(Provider::CublasNn));           // no baseline at all

  // Baselines measured again by a later run describe that run's times, not this winner's.
  const std::int64_t later = t.db->begin_run("tune --retune", "s.json");
  t.db->upsert_baseline(traced_baseline(t.device, later, t.problem, Provider::CublasTn, split_k_trace()));
  EXPECT_FALSE(t.db->winner_rows().at(0).library_kernels.count(Provider::CublasTn));
}

TEST(KernelTraceDb, MergeCopiesTracesAndFlags) {
  TraceDb source;
  source.add_winner();
  source.db->upsert_baseline(traced_baseline(source.device, source.run, source.problem, Provider::CublasTn,
                                             split_k_trace(true), "flagged"));
  source.db.reset();
  TempDir dir;
  const auto merged = TuningDb::open(dir.file("merged.sqlite"), DbMode::ReadWrite);
  merged->merge_from(source.path);
  const std::int64_t device = merged->devices().at(0).first;
  const auto baseline = merged->baselines(device, source.problem).at(0);
  EXPECT_EQ(baseline.trace, split_k_trace(true));
  EXPECT_EQ(baseline.trace_flag, "flagged");
  ASSERT_TRUE(merged->trials(device, source.problem).at(0).trace.has_value());
  EXPECT_EQ(merged->winner_rows().at(0).library_kernels_of(Provider::CublasTn), split_k_trace().kernel_names());
}
