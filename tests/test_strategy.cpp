// Search strategies without a GPU: what each asks of the plan, and the random order that ablates
// the cost model (deterministic per shape, only variants the families plan, not the model's pick).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/errors.hpp"
#include "search/candidates.hpp"
#include "search/device_limits.hpp"
#include "search/family_spec.hpp"
#include "tune/strategy.hpp"

using namespace cl2;

TEST(Strategy, EachStrategyAsksTheListedPlan) {
  const SearchPlan model = search_plan(Strategy::Model, 24, 0);
  EXPECT_EQ(model.planned, 24u);
  EXPECT_EQ(model.screened, 0u);
  EXPECT_EQ(model.order, PlanOrder::Model);
  const SearchPlan race = search_plan(Strategy::Race, 24, 0);
  EXPECT_EQ(race.planned, 96u);
  EXPECT_EQ(race.screened, 12u);
  EXPECT_EQ(model.family_share, kFamilyShare);
  EXPECT_EQ(race.family_share, 2 * kFamilyShare) << "a race guarantees each family an eighth of its list";
  EXPECT_EQ(search_plan(Strategy::Race, 0, 0).screened, 0u) << "with no cap every variant is screened";
  EXPECT_EQ(search_plan(Strategy::Seeded, 24, 0).seeds, 6u);
  EXPECT_EQ(search_plan(Strategy::Seeded, 24, 2).seeds, 2u);
  EXPECT_EQ(search_plan(Strategy::Random, 24, 5).order, PlanOrder::Random);
  EXPECT_EQ(search_plan(Strategy::Random, 24, 5).seeds, 0u);
  EXPECT_EQ(search_plan(Strategy::Exhaustive, 24, 0).planned, 0u);
  for (const char* name : {"model", "race", "seeded", "random", "exhaustive"})
    EXPECT_EQ(to_string(parse_strategy(name)), name);
  EXPECT_THROW(parse_strategy("fastest"), UserError);
}

TEST(Strategy, RandomOrderDrawsPlannedVariantsTheSameWayEveryRun) {
  const FamilySpec& sm90 = builtin_families().at("sm90");
  const DeviceLimits h200 = limits_for_arch("sm_90a");
  const Problem problem{{1024, 1024, 4096}, Layout::TN, Accum::F32};
  auto texts = [](const std::vector<Candidate>& list) {
    std::vector<std::string> out;
    for (const auto& c : list) out.push_back(c.config.to_json());
    return out;
  };
  const auto drawn = texts(plan_candidates({&sm90}, problem, h200, 24, {}, {}, PlanOrder::Random));
  ASSERT_EQ(drawn.size(), 24u);
  EXPECT_EQ(drawn, texts(plan_candidates({&sm90}, problem, h200, 24, {}, {}, PlanOrder::Random)));
  const auto every = texts(plan_candidates({&sm90}, problem, h200, 0));
  const std::set<std::string> planned(every.begin(), every.end());
  for (const auto& text : drawn) EXPECT_TRUE(planned.count(text)) << text;
  const auto model = texts(plan_candidates({&sm90}, problem, h200, 24));
  std::size_t shared = 0;
  for (const auto& text : drawn) shared += std::count(model.begin(), model.end(), text);
  EXPECT_LT(shared, 12u) << "a random draw of 24 from " << every.size() << " should differ from the model's 24";
}

TEST(Strategy, AFamilysGuaranteedSlotsShrinkWithItsShare) {
  // sm80's model never puts it among sm90's cheapest at 1024x64x12288, so its slots in a list of 80
  // are the guaranteed ones: at least 80 / (share x 2 families), fewer with the race's share.
  const FamilySpec& sm80 = builtin_families().at("sm80");
  const FamilySpec& sm90 = builtin_families().at("sm90");
  const DeviceLimits h200 = limits_for_arch("sm_90a");
  const Problem problem{{1024, 64, 12288}, Layout::TN, Accum::F32};
  auto sm80_slots = [&](std::size_t share) {
    const auto plan = plan_candidates({&sm80, &sm90}, problem, h200, 80, {}, {}, PlanOrder::Model, share);
    return std::count_if(plan.begin(), plan.end(), [](const Candidate& c) { return c.family->name == "sm80"; });
  };
  const auto quarter = sm80_slots(kFamilyShare), eighth = sm80_slots(2 * kFamilyShare);
  EXPECT_GE(quarter, 20);
  EXPECT_GE(eighth, 10);
  EXPECT_LT(eighth, quarter);
}
