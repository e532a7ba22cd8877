// Seeds for a shape's plan: the winners of the nearest tuned shapes, nearest first.
#include <gtest/gtest.h>

#include "search/seeds.hpp"

using namespace cl2;

namespace {

KernelConfig config(std::int64_t variant) { return {"f", {{"VARIANT", variant}}}; }
Problem problem(std::int64_t m, std::int64_t n, std::int64_t k, Layout layout = Layout::TN) {
  return {{m, n, k}, layout, Accum::F32};
}

}  // namespace

TEST(Seeds, NearestInLogShapeComeFirstEachOnce) {
  const std::vector<std::pair<Problem, KernelConfig>> tuned = {
      {problem(4096, 4096, 4096), config(1)},  // four doublings of M and N, three of K
      {problem(256, 256, 1024), config(2)},    // one doubling of K away
      {problem(256, 256, 512), config(3)},     // the shape itself
      {problem(256, 512, 512), config(3)},     // same config again: listed once
      {problem(256, 256, 512, Layout::NN), config(4)},  // other layout: never
  };
  const auto seeds = nearest_winners(tuned, problem(256, 256, 512), 3);
  ASSERT_EQ(seeds.size(), 3u);
  EXPECT_EQ(seeds[0], config(3));
  EXPECT_EQ(seeds[1], config(2));
  EXPECT_EQ(seeds[2], config(1));
  EXPECT_EQ(nearest_winners(tuned, problem(256, 256, 512), 1).size(), 1u);
  EXPECT_TRUE(nearest_winners(tuned, problem(256, 256, 512), 0).empty());
  EXPECT_TRUE(nearest_winners({}, problem(256, 256, 512), 4).empty());
}
