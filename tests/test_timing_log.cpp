// The measurement log (gpu/timing_log.hpp): one JSON line per measurement, whose ratio spreads
// show how much of the calls' noise the rounds share.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "gpu/timing_log.hpp"
#include "support/run_tool.hpp"

namespace cl2 {
namespace {

using cl2_test::ScratchDir;

TEST(TimingLog, AppendsOneLinePerMeasurementWithRatioSpreads) {
  ScratchDir dir;
  const std::string path = dir.file("timing.jsonl");
  // Both calls move together from round to round (a shared clock): each spreads, their ratio not.
  MeasurementRecord record{{"ours", "cublaslt_autotune"}, final_stop_rule(), StopReason::Settled, 0.002, 0.05,
                           {100, 50}, {{10.0, 11.0, 9.0, 10.5}, {20.0, 22.0, 18.0, 21.0}}, 0.0015};
  append_measurement(path, record);
  record.reason = StopReason::Capped;
  append_measurement(path, record);
  const std::string text = cl2_test::read_all(path);
  ASSERT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
  const auto line = nlohmann::json::parse(text.substr(0, text.find('\n')));
  EXPECT_EQ(line.at("reason"), "settled");
  EXPECT_DOUBLE_EQ(line.at("rule").at("max_error").get<double>(), final_stop_rule().max_error);
  EXPECT_DOUBLE_EQ(line.at("setup_s").get<double>(), 0.002);
  EXPECT_DOUBLE_EQ(line.at("warm_up_s").get<double>(), 0.0015);
  const auto& calls = line.at("calls");
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[1].at("name"), "cublaslt_autotune");
  EXPECT_EQ(calls[1].at("copies"), 50);
  EXPECT_EQ(calls[1].at("samples"), 4);
  EXPECT_DOUBLE_EQ(calls[1].at("median_us").get<double>(), 20.5);
  EXPECT_GT(calls[1].at("spread_pct").get<double>(), 5.0);
  EXPECT_NEAR(calls[1].at("ratio_spread_pct").get<double>(), 0.0, 1e-9);
  EXPECT_EQ(nlohmann::json::parse(text.substr(text.find('\n') + 1)).at("reason"), "capped");
}

TEST(TimingLog, ATrialsStepsAreOneLineOfTheirOwn) {
  ScratchDir dir;
  const std::string path = dir.file("timing.jsonl");
  append_trial_steps(path, {.prepare_seconds = 0.001, .verify_seconds = 0.0005, .measure_seconds = 0.01,
                            .verify_again_seconds = 0.0002, .trace_seconds = 0});
  const auto line = nlohmann::json::parse(cl2_test::read_all(path));
  const auto& steps = line.at("trial_steps");
  EXPECT_DOUBLE_EQ(steps.at("prepare_s").get<double>(), 0.001);
  EXPECT_DOUBLE_EQ(steps.at("verify_s").get<double>(), 0.0005);
  EXPECT_DOUBLE_EQ(steps.at("measure_s").get<double>(), 0.01);
  EXPECT_DOUBLE_EQ(steps.at("verify_again_s").get<double>(), 0.0002);
  EXPECT_DOUBLE_EQ(steps.at("trace_s").get<double>(), 0.0);
  EXPECT_FALSE(line.contains("rule"));  // told apart from a measurement by its key
}

TEST(TimingLog, AnUnwritablePathIsSkippedQuietly) {
  MeasurementRecord record{{"ours"}, screening_stop_rule(), StopReason::Settled, 0, 0, {1}, {{1.0}}};
  EXPECT_NO_THROW(append_measurement("/nonexistent-folder/timing.jsonl", record));
}

}  // namespace
}  // namespace cl2
