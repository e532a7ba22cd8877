// Seeds for a shape's plan: the winners of the nearest tuned shapes, nearest first.
#include <gtest/gtest.h>

#include <algorithm>

#include "search/candidates.hpp"
#include "search/device_limits.hpp"
#include "search/family_spec.hpp"
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

// A winner tuned before sm90 had PDL (an older database: its config has no PDL) still seeds the
// variant it was, PDL at the family's absent value: a variant the model ranks far beyond the cut
// gets a slot in the plan.
TEST(Seeds, AWinnerFromBeforeAParameterExistedSeedsTheVariantItWas) {
  const FamilySpec& sm90 = builtin_families().at("sm90");
  ASSERT_EQ(sm90.absent.at("PDL"), 0);
  const Problem shape = problem(1024, 256, 4096);
  const DeviceLimits h200 = limits_for_arch("sm_90a");
  const auto every = plan_candidates({&sm90}, shape, h200, 0);
  ASSERT_GT(every.size(), 200u);
  const KernelConfig deep = every[200].config;
  ASSERT_EQ(deep.at("PDL"), 0);
  KernelConfig old = deep;
  old.params.erase("PDL");
  EXPECT_EQ(with_absent_params(sm90, old), deep);
  const auto has_deep = [&](const std::vector<Candidate>& plan) {
    return std::any_of(plan.begin(), plan.end(), [&](const Candidate& c) { return c.config == deep; });
  };
  EXPECT_FALSE(has_deep(plan_candidates({&sm90}, shape, h200, 24)));
  EXPECT_TRUE(has_deep(plan_candidates({&sm90}, shape, h200, 24, {}, {old})));
  const KernelConfig other{"sm80", {{"BM", 64}}};
  EXPECT_EQ(with_absent_params(sm90, other), other);  // another family's config: unchanged
}
