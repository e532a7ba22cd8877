// The limiter rules (core/limiter.hpp) as the README states them: the busiest of tensor pipe, DRAM
// and L2 when at 60% of its peak or more, else latency; units not collected take no part; absent
// counters name no limiter. The figures are the H200's from DESIGN.md where there are some.
#include <gtest/gtest.h>

#include <limits>

#include "core/limiter.hpp"

using namespace cl2;

namespace {

CallCounters counters(double tensor_pct, double dram_pct, double l2_pct) {
  CallCounters c;
  c.set(CounterMetric::GpuTimeUs, 20.5);
  c.set(CounterMetric::TensorActivePct, tensor_pct);
  c.set(CounterMetric::DramThroughputPct, dram_pct);
  c.set(CounterMetric::L2ThroughputPct, l2_pct);
  return c;
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

TEST(Limiter, BusyTensorPipeLimitsALargeGemm) {
  const LimiterVerdict v = judge_limiter(counters(97.1, 30.0, 55.0));  // 8192^3, ours
  EXPECT_EQ(v.limiter, Limiter::TensorPipe);
  EXPECT_EQ(v.why, "tensor pipe 97% of peak (DRAM 30%, L2 55%)");
}

TEST(Limiter, TheBusiestUnitAtSixtyPercentOrMoreWins) {
  EXPECT_EQ(judge_limiter(counters(17.0, 72.0, 40.0)).limiter, Limiter::Dram);
  EXPECT_EQ(judge_limiter(counters(69.0, 20.0, 85.0)).limiter, Limiter::L2);
  EXPECT_EQ(judge_limiter(counters(10.0, 60.0, 59.9)).limiter, Limiter::Dram);  // the threshold is inclusive
}

TEST(Limiter, NoUnitNearItsPeakIsLatency) {
  const LimiterVerdict v = judge_limiter(counters(28.0, 45.0, 59.9));
  EXPECT_EQ(v.limiter, Limiter::Latency);
  EXPECT_EQ(v.why, "no unit at 60% of peak: busiest L2 60% (tensor pipe 28%, DRAM 45%)");
}

TEST(Limiter, OnATieTheEarlierUnitWins) {
  EXPECT_EQ(judge_limiter(counters(80.0, 80.0, 80.0)).limiter, Limiter::TensorPipe);
  EXPECT_EQ(judge_limiter(counters(10.0, 80.0, 80.0)).limiter, Limiter::Dram);
}

TEST(Limiter, UnitsNotCollectedTakeNoPart) {
  const LimiterVerdict v = judge_limiter(counters(30.0, 20.0, kNaN));  // L2 % dropped on this chip
  EXPECT_EQ(v.limiter, Limiter::Latency);
  EXPECT_EQ(v.why.find("L2"), std::string::npos) << v.why;
  EXPECT_EQ(judge_limiter(counters(kNaN, kNaN, 90.0)).limiter, Limiter::L2);
  EXPECT_EQ(judge_limiter(counters(kNaN, kNaN, kNaN)).limiter, Limiter::Unknown);
}

TEST(Limiter, AbsentCountersNameNoLimiterAndSayWhy) {
  const LimiterVerdict v = judge_limiter(absent_counters("CUPTI could not be loaded"));
  EXPECT_EQ(v.limiter, Limiter::Unknown);
  EXPECT_EQ(v.why, "no counters: CUPTI could not be loaded");
  EXPECT_EQ(to_string(Limiter::TensorPipe), "tensor pipe");
  EXPECT_EQ(to_string(Limiter::Latency), "latency");
}
