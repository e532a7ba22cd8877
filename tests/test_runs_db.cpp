// The runs table (schema 8): a tuning run's time by stage is stored, read back in the order the
// stages ran, kept by merge and shown by `show`; a database of schema 7 opens, migrates and keeps
// its runs, whose stages read as none.
#include <gtest/gtest.h>

#include "db/tuning_db.hpp"
#include "db_test_support.hpp"
#include "report/show.hpp"

using namespace cl2;
using namespace cl2::test;

namespace {

const std::vector<RunStageTime> kStages = {
    {"compiling", 12.5, 3}, {"setup", 4.0, 21}, {"screening", 129.0, 2400}, {"final rounds", 61.0, 100}};

// A tuning run of `shapes_file` that completed and stored kStages; its id.
std::int64_t completed_run(TuningDb& db, const std::string& shapes_file) {
  const std::int64_t run = db.begin_run("cuda-l2-tune tune --shapes " + shapes_file, shapes_file);
  db.finish_run(run, "completed");
  db.set_run_stages(run, kStages);
  return run;
}

}  // namespace

TEST(RunsDb, StagesReadBackInTheOrderTheyRanNewestRunFirst) {
  TempDir dir;
  const auto db = TuningDb::open(dir.file("t.sqlite"), DbMode::ReadWrite);
  completed_run(*db, "a.json");
  const std::int64_t second = db->begin_run("cuda-l2-tune profile 64 64 64", "");
  const auto runs = db->runs(10);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].id, second);
  EXPECT_EQ(runs[0].status, "running");
  EXPECT_TRUE(runs[0].stages.empty());
  EXPECT_TRUE(std::isnan(runs[0].seconds));  // not finished
  EXPECT_EQ(runs[1].stages, kStages);
  EXPECT_EQ(runs[1].shapes_file, "a.json");
  EXPECT_GE(runs[1].seconds, 0.0);
  EXPECT_EQ(db->runs(1).size(), 1u);
}

TEST(RunsDb, ASchema7DatabaseMigratesAndItsRunsHaveNoStages) {
  TempDir dir;
  const std::string path = dir.file("old.sqlite");
  write_database_at_schema(path, 7);
  const auto db = TuningDb::open(path, DbMode::ReadWrite);
  EXPECT_EQ(db->schema_version(), kSchemaVersion);
  const auto runs = db->runs(10);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].command_line, "cuda-l2-tune tune");
  EXPECT_TRUE(runs[0].stages.empty());
  db->set_run_stages(runs[0].id, kStages);  // the migrated file takes them like a new one
  EXPECT_EQ(db->runs(10)[0].stages, kStages);
}

TEST(RunsDb, MergeKeepsARunsStagesAndShowListsThem) {
  TempDir dir;
  {
    completed_run(*TuningDb::open(dir.file("other.sqlite"), DbMode::ReadWrite), "grid.json");
  }
  const auto db = TuningDb::open(dir.file("main.sqlite"), DbMode::ReadWrite);
  EXPECT_EQ(db->merge_from(dir.file("other.sqlite")).runs, 1);
  ASSERT_EQ(db->runs(10).size(), 1u);
  EXPECT_EQ(db->runs(10)[0].stages, kStages);
  const std::string shown = render_db_overview(*db);
  EXPECT_NE(shown.find("compiling 13s, setup 4s, screening 2m09s (2400), final rounds 1m01s"), std::string::npos)
      << shown;
  EXPECT_NE(shown.find("grid.json"), std::string::npos) << shown;
}
