// The ETA of a tuning run: the rate so far, and never past the run's time budget.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "tune/progress.hpp"

using namespace cl2;

TEST(Progress, EtaFollowsTheRateAndStopsAtTheBudget) {
  Progress unlimited(3000), budgeted(3000);
  budgeted.set_budget(5.0);
  EXPECT_EQ(unlimited.eta(), "") << "no rate before the first unit";
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  unlimited.unit_done();
  budgeted.unit_done();
  // 2999 units left at 30+ ms each: a minute and a half or more by the rate; the budget, under 5 s.
  const std::string by_rate = unlimited.eta();
  ASSERT_EQ(by_rate.rfind("ETA ", 0), 0u) << by_rate;
  EXPECT_NE(by_rate.find('m'), std::string::npos) << by_rate;
  EXPECT_EQ(budgeted.eta(), "ETA 5s");
}
