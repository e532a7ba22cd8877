// L2 policies in the tuning database (schema 6): a shape tuned warm and the same shape tuned
// rotated are two problems. A database written by schema 5 migrates with every row kept and warm,
// after which a rotated trial of the same kernel and shape goes in beside the warm one; warm and
// rotated trials, baselines, winners and counters of one shape are stored and read back apart,
// and merge carries each under its own policy. The committed schema-5 database still exports, byte
// for byte, as the committed exports.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>

#include "db/tuning_db.hpp"
#include "db_test_support.hpp"
#include "report/export.hpp"
#include "support/run_tool.hpp"

using namespace cl2;
using namespace cl2::test;

namespace {

// Rows of a query through a separate read-only connection, each row's columns joined by '|'.
std::vector<std::string> query_rows(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
  std::vector<std::string> rows;
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    std::string row;
    for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, i));
      row += (i ? "|" : "") + std::string(text ? text : "NULL");
    }
    rows.push_back(row);
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return rows;
}

// The winner of `problem` in `w`'s run: a trial of kernel `bm`, its cuBLASLt-autotune baseline and
// both calls' counters, all taking `time_us`; returns the trial's id.
std::int64_t add_winner(WinnerDb& w, const Problem& problem, std::int64_t bm, double time_us) {
  const std::int64_t kernel = w.db->upsert_kernel(test_kernel(bm));
  WinnerRecord winner = test_winner(problem, time_us, 2 * time_us, 2 * time_us, time_us);
  winner.device_id = w.device;
  winner.run_id = w.run;
  winner.kernel_id = kernel;
  winner.trial_id = w.db->insert_trial(ok_trial(w.run, w.device, kernel, problem, time_us));
  w.db->put_winner(winner);
  w.db->upsert_baseline(test_baseline(w.device, w.run, problem, time_us, "algo of " + problem.text()));
  CallCounters counters;
  counters.set(CounterMetric::GpuTimeUs, time_us);
  w.db->upsert_counters({w.device, w.run, problem, Provider::Ours, kernel, "", counters, ""});
  return winner.trial_id;
}

}  // namespace

TEST(L2PolicyDb, SchemaFiveDatabaseMigratesWithEveryRowWarm) {
  TempDir dir;
  const std::string path = dir.file("v5.sqlite");
  write_database_at_schema(path, 5);
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
    exec_sql_or_fail(raw, "INSERT INTO counters (device_id, run_id, m, n, k, layout, accum, provider, kernel_id, "
                          "gpu_time_us) VALUES (1, 1, 4096, 4096, 4096, 'tn', 'f32', 'ours', 1, 209.0)");
    sqlite3_close(raw);
  }
  const Problem warm = test_problem(4096, 4096, 4096);
  const Problem rotate = under(warm, L2Policy::Rotate);
  {
    // show and export read a copy migrated in memory and leave the file at schema 5.
    const auto read = TuningDb::open(path, DbMode::ReadOnly);
    EXPECT_EQ(read->schema_version(), kSchemaVersion);
    EXPECT_EQ(read->winner_rows().at(0).winner.problem, warm);
  }
  EXPECT_EQ(query_rows(path, "PRAGMA user_version"), std::vector<std::string>{"5"});

  const auto db = TuningDb::open(path, DbMode::ReadWrite);
  EXPECT_EQ(db->schema_version(), kSchemaVersion);
  for (const char* table : {"trials", "baselines", "winners", "counters"}) {
    const auto columns = table_columns(path, table);
    const auto accum = std::find(columns.begin(), columns.end(), "accum");
    ASSERT_NE(accum, columns.end()) << table;
    EXPECT_EQ(*(accum + 1), "l2") << table;  // the problem's columns stay together
  }
  // Each version's last column is still there, and last.
  EXPECT_EQ(table_columns(path, "trials").back(), "kernel_trace");
  EXPECT_EQ(table_columns(path, "baselines").back(), "trace_flag");
  EXPECT_EQ(table_columns(path, "winners").back(), "throttled_rounds");
  EXPECT_EQ(query_rows(path, "SELECT name FROM pragma_index_info('trials_by_problem')"),
            (std::vector<std::string>{"device_id", "m", "n", "k", "layout", "accum", "l2"}));
  // The rebuilt winners still point at trials, and every reference holds.
  const std::string trial_reference =
      "SELECT \"table\" FROM pragma_foreign_key_list('winners') WHERE \"from\" = 'trial_id'";
  EXPECT_EQ(query_rows(path, trial_reference), std::vector<std::string>{"trials"});
  EXPECT_TRUE(query_rows(path, "PRAGMA foreign_key_check").empty());
  for (const char* table : {"trials", "baselines", "winners", "counters"})
    EXPECT_EQ(query_rows(path, std::string("SELECT l2 FROM ") + table), std::vector<std::string>{"warm"}) << table;

  // The old rows read as before, as the warm problem's.
  ASSERT_EQ(db->trials(1, warm).size(), 1u);
  EXPECT_EQ(db->trials(1, warm)[0].id, 1);
  EXPECT_DOUBLE_EQ(db->trials(1, warm)[0].time_us, 210.5);
  EXPECT_DOUBLE_EQ(db->baselines(1, warm).at(0).time_us, 204.0);
  EXPECT_EQ(db->winner(1, warm)->trial_id, 1);
  EXPECT_DOUBLE_EQ(db->counters(1, warm).at(0).counters.value(CounterMetric::GpuTimeUs), 209.0);
  EXPECT_TRUE(db->trials(1, rotate).empty());
  EXPECT_FALSE(db->winner(1, rotate));

  // The same kernel on the same shape, rotated: a new trial beside the warm one.
  const std::int64_t rotated = db->insert_trial(ok_trial(1, 1, 1, rotate, 260.0));
  EXPECT_NE(rotated, 1);
  EXPECT_EQ(db->find_trial(1, 1, rotate)->id, rotated);
  EXPECT_EQ(db->find_trial(1, 1, warm)->id, 1);
  EXPECT_EQ(db->summary().trials, 2);
  EXPECT_EQ(db->problems_with_trials(1), (std::vector<Problem>{warm, rotate}));
}

TEST(L2PolicyDb, OneShapeUnderEachPolicyKeepsItsOwnRows) {
  WinnerDb w;
  const Problem warm = w.problem;
  const Problem rotate = under(warm, L2Policy::Rotate), flush = under(warm, L2Policy::Flush);
  // Rotated first: the rows still come back in the order of the policies, warm first.
  const std::int64_t rotate_trial = add_winner(w, rotate, 64, 71.5);
  const std::int64_t flush_trial = add_winner(w, flush, 256, 80.25);
  const std::int64_t warm_trial = add_winner(w, warm, 128, 57.1);
  EXPECT_EQ(w.db->summary().winners, 3);

  for (const auto& [problem, trial, time_us] : {std::tuple{warm, warm_trial, 57.1},
                                                std::tuple{rotate, rotate_trial, 71.5},
                                                std::tuple{flush, flush_trial, 80.25}}) {
    SCOPED_TRACE(problem.text());
    const auto winner = w.db->winner(w.device, problem);
    ASSERT_TRUE(winner);
    EXPECT_EQ(winner->problem, problem);
    EXPECT_EQ(winner->trial_id, trial);
    EXPECT_DOUBLE_EQ(winner->time_us, time_us);
    ASSERT_EQ(w.db->trials(w.device, problem).size(), 1u);
    EXPECT_EQ(w.db->trials(w.device, problem)[0].problem, problem);
    ASSERT_EQ(w.db->baselines(w.device, problem).size(), 1u);
    EXPECT_EQ(w.db->baselines(w.device, problem)[0].detail, "algo of " + problem.text());
    ASSERT_EQ(w.db->counters(w.device, problem).size(), 1u);
    EXPECT_DOUBLE_EQ(w.db->counters(w.device, problem)[0].counters.value(CounterMetric::GpuTimeUs), time_us);
  }
  const auto rows = w.db->winner_rows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].winner.problem, warm);
  EXPECT_EQ(rows[1].winner.problem, rotate);
  EXPECT_EQ(rows[2].winner.problem, flush);
  // One row each (the baselines joined to a winner are its own policy's), with its own kernel.
  EXPECT_EQ(rows[1].kernel.config_json, test_kernel(64).config_json);

  // Re-tuning one policy replaces its winner only.
  WinnerRecord faster = *w.db->winner(w.device, rotate);
  faster.time_us = 65.0;
  w.db->put_winner(faster);
  EXPECT_DOUBLE_EQ(w.db->winner(w.device, rotate)->time_us, 65.0);
  EXPECT_DOUBLE_EQ(w.db->winner(w.device, warm)->time_us, 57.1);
}

TEST(L2PolicyDb, MergeCarriesEachPolicyApart) {
  // The target holds the shape's warm winner; the source the same shape's rotated one, faster
  // than nothing in the target, and a slower warm one that must not replace the target's.
  WinnerDb target;
  add_winner(target, target.problem, 128, 57.1);
  WinnerDb source;
  const Problem rotate = under(source.problem, L2Policy::Rotate);
  add_winner(source, rotate, 64, 71.5);
  add_winner(source, source.problem, 256, 60.0);
  source.db.reset();

  const MergeCounts counts = target.db->merge_from(source.path);
  EXPECT_EQ(counts.trials, 2);
  EXPECT_EQ(counts.winners, 1);  // the rotated one; the slower warm one lost
  const auto warm = target.db->winner(target.device, target.problem);
  ASSERT_TRUE(warm);
  EXPECT_DOUBLE_EQ(warm->time_us, 57.1);
  const auto rotated = target.db->winner(target.device, rotate);
  ASSERT_TRUE(rotated);
  EXPECT_DOUBLE_EQ(rotated->time_us, 71.5);
  // Its trial is the rotated trial the merge brought, not the warm trial of the same kernel.
  const auto trials = target.db->trials(target.device, rotate);
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_EQ(rotated->trial_id, trials[0].id);
  EXPECT_EQ(target.db->kernel(rotated->kernel_id)->config_json, test_kernel(64).config_json);
  EXPECT_EQ(target.db->baselines(target.device, rotate).at(0).detail, "algo of " + rotate.text());
  EXPECT_DOUBLE_EQ(target.db->counters(target.device, rotate).at(0).counters.value(CounterMetric::GpuTimeUs), 71.5);
  EXPECT_EQ(target.db->trials(target.device, target.problem).size(), 2u);  // warm: ours and the source's

  // Merging again adds nothing.
  const MergeCounts again = target.db->merge_from(source.path);
  EXPECT_EQ(again.trials, 0);
  EXPECT_EQ(again.winners, 0);
}

// The grid-125 database of 9432e79 (schema 5) exports byte for byte as its exports were committed.
TEST(L2PolicyDb, CommittedSchemaFiveDatabaseExportsAsCommitted) {
  const std::string results = cl2_test::source_path("db/results/");
  const auto db = TuningDb::open(results + "h200-grid125-trials.sqlite", DbMode::ReadOnly);
  const auto rows = db->winner_rows();
  ASSERT_EQ(rows.size(), 125u);
  const std::string exported = results + "h200-tables-9432e79/h200-grid125.";
  // EXPECT_TRUE: a mismatch would print both whole files.
  EXPECT_TRUE(render_export(rows, ExportFormat::Json) == read_bytes(exported + "json"));
  EXPECT_TRUE(render_export(rows, ExportFormat::Csv) == read_bytes(exported + "csv"));
  EXPECT_TRUE(render_export(rows, ExportFormat::Markdown) == read_bytes(exported + "md"));
}
