// Where a tuning run's time went (tune/stage_times.hpp): requests land in their stages, and the
// summary line says each stage's share and what per-candidate stages cost per candidate.
#include <gtest/gtest.h>

#include "tune/stage_times.hpp"

namespace cl2 {
namespace {

TEST(StageTimes, RequestsLandInTheirStages) {
  EXPECT_EQ(stage_of(ProblemRequest{}), RunStage::Setup);
  EXPECT_EQ(stage_of(HelloRequest{}), RunStage::Setup);
  EXPECT_EQ(stage_of(BaselinesRequest{}), RunStage::Libraries);
  EXPECT_EQ(stage_of(FinalRequest{}), RunStage::Final);
  TrialRequest trial{std::vector<KernelRun>(3)};
  for (auto& run : trial.kernels) run.stop = screening_stop_rule();
  EXPECT_EQ(stage_of(trial), RunStage::Screening);
  for (auto& run : trial.kernels) run.stop = race_stop_rule();
  EXPECT_EQ(stage_of(trial), RunStage::Racing);
  EXPECT_EQ(units_of(trial), 3u);  // three candidates timed side by side count as three
  EXPECT_EQ(units_of(FinalRequest{}), 1u);
}

TEST(StageTimes, SummaryGivesSharesPerCandidateCostsAndTheRest) {
  StageTimes times;
  times.add(RunStage::Compiling, 30.0);
  for (int i = 0; i < 4; ++i) times.add(RunStage::Screening, 0.025);
  times.add(RunStage::Final, 60.0);
  const std::string line = times.summary(100.0, 1);
  EXPECT_NE(line.find("compiling 30.0s (30%)"), std::string::npos) << line;
  EXPECT_NE(line.find("screening 0.1s (0%), 4 candidates at 25 ms"), std::string::npos) << line;
  EXPECT_NE(line.find("final rounds 1m00s (60%)"), std::string::npos) << line;
  EXPECT_NE(line.find("the rest 9.9s"), std::string::npos) << line;
  EXPECT_EQ(line.find("racing"), std::string::npos) << line;  // a stage that never ran is left out
}

TEST(StageTimes, SeveralGpusSayTheirTimesAreSummed) {
  StageTimes times;
  times.add(RunStage::Screening, 80.0);
  times.add(RunStage::Screening, 80.0);
  const std::string line = times.summary(100.0, 2);
  EXPECT_NE(line.find("screening 2m40s (160%)"), std::string::npos) << line;
  EXPECT_NE(line.find("summed over 2 GPUs"), std::string::npos) << line;
  EXPECT_EQ(line.find("the rest"), std::string::npos) << line;
}

}  // namespace
}  // namespace cl2
