// Calibrations kept in the tuning database (`calibrate --store`, schema 7): stored and read per GPU
// model and family, carried by merge, and what tune plans with and show --model judges afterwards.
#include <gtest/gtest.h>

#include "db/tuning_db.hpp"
#include "db_test_support.hpp"
#include "support/run_tool.hpp"

using namespace cl2;
using namespace cl2::test;
using namespace cl2_test;

TEST(StoredCalibration, RoundTripsAndMergesAsTheLatestFit) {
  TempDir dir;
  auto db = TuningDb::open(dir.file("a.sqlite"), DbMode::ReadWrite);
  EXPECT_FALSE(db->calibration("NVIDIA H200", "sm90").has_value());
  db->put_calibration({"NVIDIA H200", "sm90", {{"BN >= 64", 0.9}, {"PINGPONG", 1.2}}, 1.05, 300, ""});
  db->put_calibration({"NVIDIA H200", "sm80", {{"STAGES < 3", 1.3}}, std::nullopt, 20, ""});
  const auto sm90 = db->calibration("NVIDIA H200", "sm90");
  ASSERT_TRUE(sm90.has_value());
  EXPECT_EQ(sm90->factors, (std::vector<std::pair<std::string, double>>{{"BN >= 64", 0.9}, {"PINGPONG", 1.2}}));
  EXPECT_EQ(sm90->scale, 1.05);
  EXPECT_EQ(sm90->trials, 300);
  EXPECT_FALSE(sm90->fitted_at.empty());
  EXPECT_FALSE(db->calibration("NVIDIA H200", "sm80")->scale.has_value());
  EXPECT_FALSE(db->calibration("NVIDIA H100", "sm90").has_value());
  db.reset();
  auto merged = TuningDb::open(dir.file("b.sqlite"), DbMode::ReadWrite);
  merged->merge_from(dir.file("a.sqlite"));
  EXPECT_EQ(merged->calibration("NVIDIA H200", "sm90")->factors, sm90->factors);
}

// naive_backwards' hand-set model ranks its 8 variants slowest first, with one calibration factor
// that can put that right: fitted and stored, it makes tune plan one of the fast variants first on
// a new shape, where the space file's factor plans the slowest.
TEST(StoredCalibration, TunePlansWithTheStoredFitAndShowModelSaysSo) {
  ScratchDir dir;
  const std::string space = source_path("tests/data/spaces/naive_backwards.json");
  const std::string family = test_family_args("naive_backwards");
  const std::string db = dir.file("t.sqlite"), fresh = dir.file("fresh.sqlite");
  ASSERT_EQ(run_tool("tune --fake-gpu --max-candidates 0 --shapes " +
                         dir.write("tuned.json", "[[64, 64, 64], [128, 64, 64]]") + " --db " + db + family, dir)
                .status,
            0);
  const auto stored = run_tool("calibrate --store --db " + db + family, dir);
  ASSERT_EQ(stored.status, 0) << stored.err;
  EXPECT_NE(stored.out.find("Stored in " + db), std::string::npos) << stored.out;
  EXPECT_EQ(run_tool("calibrate --store --db " + db + " --db " + db + family, dir).status, 2);

  const auto show = run_tool("show --model --db " + db + " --space-file " + space, dir);
  ASSERT_EQ(show.status, 0) << show.err;
  EXPECT_NE(show.out.find("naive_backwards  database"), std::string::npos) << show.out;

  // One slot on an untuned shape: the stored fit plans a variant below 24 us; the space file's
  // factor (in a database without the fit) plans the slowest, 27 us.
  const std::string shape = dir.write("new.json", "[[256, 64, 64]]");
  for (const auto& [path, calibrated] : {std::pair{db, true}, std::pair{fresh, false}}) {
    SCOPED_TRACE(calibrated ? "stored fit" : "space file");
    const auto r = run_tool("tune --fake-gpu --max-candidates 1 --shapes " + shape + " --db " + path + family, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("cost model calibrated for") != std::string::npos, calibrated) << r.err;
    auto read = TuningDb::open(path, DbMode::ReadOnly);
    const auto winner = read->winner(read->devices().front().first, {{256, 64, 64}, Layout::TN, Accum::F32});
    ASSERT_TRUE(winner.has_value());
    if (calibrated) EXPECT_LT(winner->time_us, 24.0);
    else EXPECT_DOUBLE_EQ(winner->time_us, 27.0);
  }
}
