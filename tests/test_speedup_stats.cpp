#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "report/speedup_stats.hpp"

using namespace cl2;

TEST(SpeedupStats, GeomeanMeanMinMax) {
  const SpeedupStats stats = speedup_stats({1.0, 4.0, 2.0});
  EXPECT_EQ(stats.count, 3);
  EXPECT_DOUBLE_EQ(stats.geomean, 2.0);  // cube root of 8
  EXPECT_DOUBLE_EQ(stats.mean, 7.0 / 3.0);
  EXPECT_DOUBLE_EQ(stats.min, 1.0);
  EXPECT_DOUBLE_EQ(stats.max, 4.0);
}

TEST(SpeedupStats, SkipsUnmeasuredAndNonPositiveRatios) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const SpeedupStats stats = speedup_stats({nan, 0.5, 0.0, -1.0, inf, 2.0});
  EXPECT_EQ(stats.count, 2);
  EXPECT_DOUBLE_EQ(stats.geomean, 1.0);
  EXPECT_DOUBLE_EQ(stats.mean, 1.25);
  EXPECT_DOUBLE_EQ(stats.min, 0.5);
  EXPECT_DOUBLE_EQ(stats.max, 2.0);
}

TEST(SpeedupStats, ManyRatiosDoNotOverflow) {
  const SpeedupStats stats = speedup_stats(std::vector<double>(2000, 1e3));
  EXPECT_NEAR(stats.geomean, 1e3, 1e-9);
}

TEST(SpeedupStats, NothingLeftGivesNaN) {
  for (const auto& ratios : {std::vector<double>{}, std::vector<double>{std::nan(""), 0.0}}) {
    const SpeedupStats stats = speedup_stats(ratios);
    EXPECT_EQ(stats.count, 0);
    EXPECT_TRUE(std::isnan(stats.geomean));
    EXPECT_TRUE(std::isnan(stats.mean));
    EXPECT_TRUE(std::isnan(stats.min));
    EXPECT_TRUE(std::isnan(stats.max));
  }
}
