// Scaling a tuning run out: `tune --shard I/N` splits the shapes the same way on every machine,
// `merge` joins the shard databases into what one run would have written, and `tune --devices`
// runs one worker per GPU of a host into one database. On the CPU, with the fake worker standing
// in for the GPUs.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <numeric>
#include <set>

#include "core/errors.hpp"
#include "db/tuning_db.hpp"
#include "support/run_tool.hpp"
#include "tune/shards.hpp"

using namespace cl2;
using namespace cl2_test;

namespace {

const char* kShapes = R"([[64, 64, 64], [4096, 4096, 4096], [256, 1024, 4096], [1024, 1024, 1024], [64, 4096, 4096],
                          [777, 512, 4096], [2048, 2048, 256], [128, 128, 12288], [3000, 4096, 4096]])";

CommandResult fake_tune(const ScratchDir& dir, const std::string& db, const std::string& extra = "") {
  return run_tool("tune --fake-gpu --max-candidates 4 --shapes " + dir.write("shapes.json", kShapes) + " --db " +
                      dir.file(db) + test_family_args("naive_many") + " " + extra,
                  dir);
}

// Problem text -> (kernel configuration, time) of every winner, over all devices.
std::map<std::string, std::pair<std::string, double>> winners_of(const std::string& path) {
  std::map<std::string, std::pair<std::string, double>> out;
  for (const auto& row : TuningDb::open(path, DbMode::ReadOnly)->winner_rows())
    out[row.winner.problem.text()] = {row.kernel.config_json, row.winner.time_us};
  return out;
}

}  // namespace

TEST(Shards, EveryShapeInExactlyOneShardAndTheLoadsBalanced) {
  const std::vector<double> weights = {9, 1, 1, 1, 5, 4, 3, 3, 2, 2, 8, 1};
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::multiset<std::size_t> seen;
  for (int i = 0; i < 3; ++i) {
    const auto members = shard_members(weights, {i, 3});
    EXPECT_TRUE(std::is_sorted(members.begin(), members.end()));
    double load = 0;
    for (const auto m : members) load += weights[m];
    EXPECT_LE(load, total / 3 + 9) << "a shard holds more than its share plus the largest shape";
    seen.insert(members.begin(), members.end());
  }
  EXPECT_EQ(seen.size(), weights.size());
  EXPECT_EQ(std::set<std::size_t>(seen.begin(), seen.end()).size(), weights.size());
  EXPECT_EQ(shard_members(weights, {0, 1}).size(), weights.size());
}

TEST(Shards, SpecsOutOfRangeAreUserErrors) {
  EXPECT_EQ(parse_shard("2/4").index, 2);
  for (const char* bad : {"4/4", "-1/4", "1/0", "1", "a/b", "1/4x", "/4"})
    EXPECT_THROW(parse_shard(bad), UserError) << bad;
}

TEST(ShardMerge, ThreeShardsMergedEqualTheUnshardedRun) {
  ScratchDir dir;
  ASSERT_EQ(fake_tune(dir, "all.sqlite").status, 0);
  std::string shard_dbs;
  for (int i = 0; i < 3; ++i) {
    const auto r = fake_tune(dir, "shard" + std::to_string(i) + ".sqlite", "--shard " + std::to_string(i) + "/3");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("shard " + std::to_string(i) + "/3:"), std::string::npos) << r.err;
    shard_dbs += " " + dir.file("shard" + std::to_string(i) + ".sqlite");
  }
  const auto r = run_tool("merge" + shard_dbs + " -o " + dir.file("merged.sqlite"), dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(winners_of(dir.file("merged.sqlite")), winners_of(dir.file("all.sqlite")));
  const DbSummary merged = TuningDb::open(dir.file("merged.sqlite"), DbMode::ReadOnly)->summary();
  const DbSummary single = TuningDb::open(dir.file("all.sqlite"), DbMode::ReadOnly)->summary();
  EXPECT_EQ(merged.trials, single.trials);
  EXPECT_EQ(merged.winners, single.winners);
  EXPECT_EQ(merged.baselines, single.baselines);
  EXPECT_EQ(merged.devices, 1);
  EXPECT_EQ(merged.runs, 3);
}

TEST(ShardMerge, MergingAgainChangesNothing) {
  ScratchDir dir;
  ASSERT_EQ(fake_tune(dir, "a.sqlite", "--shard 0/2").status, 0);
  ASSERT_EQ(fake_tune(dir, "b.sqlite", "--shard 1/2").status, 0);
  const std::string merge = "merge " + dir.file("a.sqlite") + " " + dir.file("b.sqlite") + " -o " + dir.file("m.sqlite");
  ASSERT_EQ(run_tool(merge, dir).status, 0);
  const DbSummary once = TuningDb::open(dir.file("m.sqlite"), DbMode::ReadOnly)->summary();
  const auto winners_once = winners_of(dir.file("m.sqlite"));
  ASSERT_EQ(run_tool(merge, dir).status, 0);
  ASSERT_EQ(run_tool("merge " + dir.file("a.sqlite") + " -o " + dir.file("m.sqlite"), dir).status, 0);
  const DbSummary twice = TuningDb::open(dir.file("m.sqlite"), DbMode::ReadOnly)->summary();
  EXPECT_EQ(twice.runs, once.runs);
  EXPECT_EQ(twice.kernels, once.kernels);
  EXPECT_EQ(twice.trials, once.trials);
  EXPECT_EQ(twice.baselines, once.baselines);
  EXPECT_EQ(twice.winners, once.winners);
  EXPECT_EQ(winners_of(dir.file("m.sqlite")), winners_once);
}

TEST(ShardMerge, RefusesAnotherSchemaAndLeavesNoOutput) {
  ScratchDir dir;
  ASSERT_EQ(fake_tune(dir, "a.sqlite").status, 0);
  const std::string future = dir.file("future.sqlite");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(future.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA application_id = 1129067092; PRAGMA user_version = 99; CREATE TABLE runs (id INTEGER);",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  const auto r = run_tool("merge " + dir.file("a.sqlite") + " " + future + " -o " + dir.file("m.sqlite"), dir);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("future.sqlite"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("newer cuda-l2-tune"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("m.sqlite")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("m.sqlite.merging")));
}

TEST(ShardMerge, RefusesTheOutputAsAnInput) {
  ScratchDir dir;
  ASSERT_EQ(fake_tune(dir, "a.sqlite").status, 0);
  const auto r = run_tool("merge " + dir.file("a.sqlite") + " -o " + dir.file("a.sqlite"), dir);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("--output"), std::string::npos) << r.err;
}

TEST(Devices, TwoWorkersTuneEveryShapeOnceIntoOneDatabase) {
  ScratchDir dir;
  ASSERT_EQ(fake_tune(dir, "one.sqlite").status, 0);
  const auto r = run_tool("tune --fake-gpu --max-candidates 4 --devices 0,1 --shapes " + dir.write("shapes.json", kShapes) +
                              " --db " + dir.file("two.sqlite") + test_family_args("naive_many"),
                          dir, "CL2_FAKE_TRIAL_DELAY_MS=20");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("gpu0 ["), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("gpu1 ["), std::string::npos) << r.err;
  EXPECT_EQ(winners_of(dir.file("two.sqlite")), winners_of(dir.file("one.sqlite")));
  const DbSummary two = TuningDb::open(dir.file("two.sqlite"), DbMode::ReadOnly)->summary();
  EXPECT_EQ(two.trials, TuningDb::open(dir.file("one.sqlite"), DbMode::ReadOnly)->summary().trials);
  EXPECT_EQ(two.runs, 1);
}

TEST(Devices, ListsThatAreNotDistinctIndicesAreRefused) {
  ScratchDir dir;
  for (const char* bad : {"0,0", "0,x", "-1", "1,"}) {
    const auto r = fake_tune(dir, "t.sqlite", std::string("--devices ") + bad);
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("--devices"), std::string::npos) << r.err;
  }
}
