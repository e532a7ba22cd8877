// Counters in the tuning database (schema 4) and winners' clocks (schema 5): a database written by
// schema 3 opens, migrates and gains the counters table and the clock columns with its rows intact; the table's metric columns are kCounterMetrics'
// keys; counters keep every value, NaN for a metric not collected and the reason where absent,
// through upsert (latest per provider) and merge.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/errors.hpp"
#include "db/tuning_db.hpp"
#include "db_test_support.hpp"

using namespace cl2;
using namespace cl2::test;

namespace {

CallCounters measured(double gpu_time_us) {
  CallCounters c;
  for (std::size_t i = 0; i < kCounterMetricCount; ++i) c.values[i] = 1.5 * double(i + 1);
  c.set(CounterMetric::GpuTimeUs, gpu_time_us);
  c.set(CounterMetric::OccupancyPct, kNotMeasured);  // dropped: it needed a second pass
  return c;
}

CountersRecord counters_row(const WinnerDb& w, Provider provider, CallCounters counters, std::int64_t kernel = 0) {
  return {w.device, w.run, w.problem, provider, kernel,
          provider == Provider::Ours ? "" : "algo 66 64x32 (the algorithm tune chose)", std::move(counters), ""};
}

}  // namespace

TEST(CountersDb, SchemaThreeDatabaseMigratesAndGainsTheTable) {
  TempDir dir;
  const std::string path = dir.file("v3.sqlite");
  write_database_at_schema(path, 3);
  EXPECT_TRUE(table_columns(path, "counters").empty());
  {
    const auto read = TuningDb::open(path, DbMode::ReadOnly);  // a migrated copy; the file stays
    EXPECT_EQ(read->schema_version(), kSchemaVersion);
    EXPECT_TRUE(read->counters(1, test_problem(4096, 4096, 4096)).empty());
    EXPECT_TRUE(table_columns(path, "counters").empty());
  }
  const auto db = TuningDb::open(path, DbMode::ReadWrite);
  EXPECT_EQ(db->schema_version(), kSchemaVersion);
  const Problem problem = test_problem(4096, 4096, 4096);
  EXPECT_DOUBLE_EQ(db->trials(1, problem).at(0).time_us, 210.5);  // the old rows read as before
  EXPECT_DOUBLE_EQ(db->winner(1, problem)->time_us, 210.5);
  EXPECT_TRUE(std::isnan(db->winner(1, problem)->sm_clock_mhz));  // measured before clocks were sampled
  EXPECT_EQ(db->winner(1, problem)->throttled_rounds, 0);
  EXPECT_TRUE(db->counters(1, problem).empty());

  const auto columns = table_columns(path, "counters");
  for (const auto& metric : kCounterMetrics)
    EXPECT_NE(std::find(columns.begin(), columns.end(), std::string(metric.key)), columns.end()) << metric.key;

  CountersRecord row{1, 1, problem, Provider::Ours, 1, "", measured(205.0), ""};
  db->upsert_counters(row);
  EXPECT_DOUBLE_EQ(db->counters(1, problem).at(0).counters.value(CounterMetric::GpuTimeUs), 205.0);
}

TEST(CountersDb, WinnersKeepTheClocksTheirFinalRoundRanAt) {
  WinnerDb w;
  w.add_winner();
  WinnerRecord winner = *w.db->winner(w.device, w.problem);
  winner.sm_clock_mhz = 1755;
  winner.throttled_rounds = 3;
  w.db->put_winner(winner);
  EXPECT_DOUBLE_EQ(w.db->winner(w.device, w.problem)->sm_clock_mhz, 1755);
  EXPECT_EQ(w.db->winner_rows().at(0).winner.throttled_rounds, 3);
}

TEST(CountersDb, OldestSchemaMigratesThroughEveryStep) {
  TempDir dir;
  const std::string path = dir.file("v1.sqlite");
  write_database_at_schema(path, 1);
  const auto db = TuningDb::open(path, DbMode::ReadWrite);
  EXPECT_EQ(db->schema_version(), kSchemaVersion);
  EXPECT_FALSE(table_columns(path, "counters").empty());
  EXPECT_EQ(table_columns(path, "baselines").back(), "trace_flag");
}

TEST(CountersDb, CountersKeepEveryValueNotCollectedAndAbsent) {
  WinnerDb w;
  const std::int64_t kernel = w.db->upsert_kernel(test_kernel(128));
  w.db->upsert_counters(counters_row(w, Provider::Ours, measured(57.1), kernel));
  w.db->upsert_counters(counters_row(w, Provider::CublasltAutotune, absent_counters("CUPTI refused")));
  const auto rows = w.db->counters(w.device, w.problem);
  ASSERT_EQ(rows.size(), 2u);
  const auto& library = rows[0].provider == Provider::Ours ? rows[1] : rows[0];
  const auto& ours = rows[0].provider == Provider::Ours ? rows[0] : rows[1];
  EXPECT_EQ(ours.kernel_id, kernel);
  EXPECT_EQ(ours.counters, measured(57.1));
  EXPECT_TRUE(std::isnan(ours.counters.value(CounterMetric::OccupancyPct)));
  EXPECT_FALSE(ours.measured_at.empty());
  EXPECT_EQ(library.kernel_id, 0);
  EXPECT_EQ(library.detail, "algo 66 64x32 (the algorithm tune chose)");
  EXPECT_EQ(library.counters.absent, "CUPTI refused");
  EXPECT_TRUE(std::isnan(library.counters.value(CounterMetric::GpuTimeUs)));

  // A later measurement replaces the provider's row: absent now, no stale values behind.
  w.db->upsert_counters(counters_row(w, Provider::Ours, absent_counters("no CUPTI"), kernel));
  for (const auto& row : w.db->counters(w.device, w.problem))
    if (row.provider == Provider::Ours) {
      EXPECT_EQ(row.counters, absent_counters("no CUPTI"));
    }
  EXPECT_EQ(w.db->counters(w.device, w.problem).size(), 2u);
}

TEST(CountersDb, MergeCopiesCountersWithTheirKernel) {
  WinnerDb source;
  source.add_winner();
  const std::int64_t kernel = source.db->upsert_kernel(test_kernel(128));
  source.db->upsert_counters(counters_row(source, Provider::Ours, measured(57.1), kernel));
  source.db->upsert_counters(counters_row(source, Provider::CublasltAutotune, measured(44.2)));
  source.db.reset();
  TempDir dir;
  const auto merged = TuningDb::open(dir.file("merged.sqlite"), DbMode::ReadWrite);
  merged->merge_from(source.path);
  merged->merge_from(source.path);  // again: nothing doubles
  const std::int64_t device = merged->devices().at(0).first;
  const auto rows = merged->counters(device, source.problem);
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) {
    if (row.provider != Provider::Ours) continue;
    EXPECT_EQ(row.counters, measured(57.1));
    EXPECT_EQ(merged->kernel(row.kernel_id)->config_json, test_kernel(128).config_json);
  }
}
