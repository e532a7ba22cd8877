#include <gtest/gtest.h>

#include <algorithm>

#include "db/tuning_db.hpp"
#include "db_test_support.hpp"
#include "report/show.hpp"

using namespace cl2;
using namespace cl2::test;

namespace {

// A database holding one problem with three verified trials, two failures, baselines and a winner.
struct ShowFixture : ::testing::Test {
  TempDir dir;
  std::unique_ptr<TuningDb> db = TuningDb::open(dir.file("show.sqlite"), DbMode::ReadWrite);
  Problem problem = test_problem(4096, 4096, 4096);

  void SetUp() override {
    const std::int64_t run = db->begin_run("tune", "shapes.json");
    const std::int64_t device = db->upsert_device(test_device());
    auto add_trial = [&](std::int64_t bm, TrialStatus status, double time_us,
                         const std::string& reason) {
      const std::int64_t kernel = db->upsert_kernel(test_kernel(bm));
      TrialRecord trial = ok_trial(run, device, kernel, problem, time_us);
      trial.status = status;
      trial.reason = reason;
      return db->insert_trial(trial);
    };
    add_trial(32, TrialStatus::CompileFailed, kNotMeasured,
              "error: too much shared memory\nsecond line of the log");
    add_trial(64, TrialStatus::Ok, 930.5, "");
    const std::int64_t best = add_trial(128, TrialStatus::Ok, 812.25, "");
    add_trial(192, TrialStatus::VerifyFailed, kNotMeasured, "max_diff 3.5 above tolerance");
    add_trial(256, TrialStatus::Ok, 870.0, "");

    BaselineRecord autotune = test_baseline(device, run, problem, 845.5, "algo 7 of 24");
    autotune.lt_algo = test_lt_algo(2, "2x1x1");
    db->upsert_baseline(autotune);
    // Measured before algorithms were recorded, as every baseline of a schema-1 database.
    db->upsert_baseline(test_baseline(device, run, problem, 850.0, "heuristic top-1", Provider::CublasltHeuristic));

    WinnerRecord winner = test_winner(problem, 812.25, 900.0, 880.0, 845.5);
    winner.device_id = device;
    winner.run_id = run;
    winner.kernel_id = db->upsert_kernel(test_kernel(128));
    winner.trial_id = best;
    db->put_winner(winner);
  }
};

std::size_t line_of(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << "no '" << needle << "' in\n" << text;
  const auto end = text.begin() + static_cast<std::ptrdiff_t>(std::min(at, text.size()));
  return static_cast<std::size_t>(std::count(text.begin(), end, '\n'));
}

}  // namespace

TEST_F(ShowFixture, OverviewCountsDevicesAndWinners) {
  const std::string text = render_db_overview(*db);
  CL2_EXPECT_CONTAINS(text, db->path());
  CL2_EXPECT_CONTAINS(text, "(schema " + std::to_string(kSchemaVersion) + ")");
  CL2_EXPECT_CONTAINS(text, "1 runs, 1 devices, 5 kernels, 5 trials (3 ok), 2 baselines, 1 winners");
  CL2_EXPECT_CONTAINS(text, "NVIDIA H200  9.0  132");
  CL2_EXPECT_CONTAINS(text, "4096x4096x4096 tn f32");
  CL2_EXPECT_CONTAINS(text, "1.083x");  // 880 / 812.25
}

TEST_F(ShowFixture, OverviewNamesTheAutotunedAlgorithm) {
  const std::string text = render_db_overview(*db);
  CL2_EXPECT_CONTAINS(text, "cuBLASLt-autotune algorithm");
  CL2_EXPECT_CONTAINS(text, "algo 66 64x32 stages 64xAUTO split-K 2 (inplace) swizzle 0 custom 3 cluster 2x1x1");
}

TEST_F(ShowFixture, BaselinesListTheirAlgorithmOrDashes) {
  const std::string text = render_problem_trials(*db, problem);
  CL2_EXPECT_CONTAINS(text, "algo_id  tile   stages   splitk  reduction  swizzle  custom  cluster");
  CL2_EXPECT_CONTAINS(text, "algo 7 of 24     66       64x32  64xAUTO  2       inplace    0        3       2x1x1");
  CL2_EXPECT_CONTAINS(text, "heuristic top-1  -        -      -        -       -          -        -       -");
}

// The kernels a traced baseline ran stand beside its time, and its flag, if any, at the end.
TEST_F(ShowFixture, BaselinesListTheirKernelsBesideTheTimeAndAnyFlag) {
  const std::int64_t device = db->devices().at(0).first;
  const std::int64_t run = db->begin_run("tune", "shapes.json");
  BaselineRecord split_k = test_baseline(device, run, problem, 901.0, "GemmEx", Provider::CublasTn);
  split_k.trace = CallTrace{{{"nvjet_sm90_hsh_64x128_64x8_2x1_v_bz_splitK_TNN", 9, true, {66, 2, 1}, {384, 1, 1}, 1, 850.0},
                             {"splitKreduce_kernel", 10, false, {128, 1, 1}, {256, 1, 1}, 1, 40.0}},
                            ""};
  split_k.trace_flag = "launched splitKreduce_kernel on a stream other than the one it was given";
  db->upsert_baseline(split_k);
  BaselineRecord untraced = test_baseline(device, run, problem, 902.0, "GemmEx", Provider::CublasNn);
  untraced.trace = absent_trace("CUPTI could not be loaded");
  db->upsert_baseline(untraced);

  const std::string text = render_problem_trials(*db, problem);
  CL2_EXPECT_CONTAINS(text, "cublas_tn            901.00  nvjet_sm90_hsh_64x128_64x8_2x1_v_bz_splitK_TNN + splitKreduce_kernel");
  CL2_EXPECT_CONTAINS(text, "-        launched splitKreduce_kernel on a stream other than the one it was given\n");
  CL2_EXPECT_CONTAINS(text, "cublas_nn            902.00  (not traced)");
}

TEST_F(ShowFixture, TrialsAreSortedFastestFirstWithFailuresLast) {
  const std::string text = render_problem_trials(*db, problem);
  CL2_EXPECT_CONTAINS(text, "cublaslt_autotune    845.50  -               -        0         -  algo 7 of 24");
  CL2_EXPECT_CONTAINS(text, "Trials: 5 (3 ok), * = winner");
  const std::size_t best = line_of(text, "812.25");
  EXPECT_EQ(line_of(text, "    *  ok "), best);
  const std::size_t second = line_of(text, "870.00");
  const std::size_t third = line_of(text, "930.50");
  const std::size_t compile = line_of(text, "compile_failed");
  const std::size_t verify = line_of(text, "verify_failed");
  EXPECT_LT(best, second);
  EXPECT_LT(second, third);
  EXPECT_LT(third, compile);
  EXPECT_LT(third, verify);
  CL2_EXPECT_CONTAINS(text, "sm90 BK=64 BM=128 BN=256 STAGES=4");
  EXPECT_NE(text.find("error: too much shared memory"), std::string::npos);
  EXPECT_EQ(text.find("second line of the log"), std::string::npos);
}

TEST_F(ShowFixture, ProblemWithoutTrialsSaysSo) {
  EXPECT_EQ(render_problem_trials(*db, test_problem(1, 2, 3)),
            "No trials of 1x2x3 tn f32 in " + db->path() + ".\n");
}

// The fixture's shape tuned rotated too: its own trials under its own header, and asking for the
// warm problem of a shape tuned only rotated points at --l2.
TEST_F(ShowFixture, EachPolicyOfAShapeShowsItsOwnTrialsAndHeader) {
  const std::int64_t device = db->devices().at(0).first;
  const std::int64_t run = db->begin_run("tune --l2 rotate", "shapes.json");
  const Problem rotate = under(problem, L2Policy::Rotate);
  db->insert_trial(ok_trial(run, device, db->upsert_kernel(test_kernel(64)), rotate, 1024.5));
  const std::string rotated = render_problem_trials(*db, rotate);
  CL2_EXPECT_CONTAINS(rotated, "4096x4096x4096 tn f32 l2 rotate on NVIDIA H200 (device 1)\n");
  CL2_EXPECT_CONTAINS(rotated, "Trials: 1 (1 ok), no winner yet");
  CL2_EXPECT_CONTAINS(render_problem_trials(*db, problem), "4096x4096x4096 tn f32 on NVIDIA H200");
  CL2_EXPECT_CONTAINS(render_problem_trials(*db, problem), "Trials: 5 (3 ok)");

  const Problem only_rotated = test_problem(64, 64, 64, Layout::TN, Accum::F32, L2Policy::Rotate);
  const std::int64_t kernel = db->upsert_kernel(test_kernel(128));
  db->insert_trial(ok_trial(run, device, kernel, only_rotated, 3.5));
  db->insert_trial(ok_trial(run, device, kernel, under(only_rotated, L2Policy::Flush), 4.5));
  EXPECT_EQ(render_problem_trials(*db, under(only_rotated, L2Policy::Warm)),
            "No trials of 64x64x64 tn f32 in " + db->path() +
                "; it has the shape under --l2 rotate or --l2 flush.\n");
}

TEST(Show, EmptyDatabaseOverview) {
  TempDir dir;
  const auto db = TuningDb::open(dir.file("empty.sqlite"), DbMode::ReadWrite);
  const std::string text = render_db_overview(*db);
  CL2_EXPECT_CONTAINS(text, "0 runs, 0 devices");
  CL2_EXPECT_CONTAINS(text, "No winners yet.");
}
