// Kernels planned at an untuned shape (runtime/shape_planner) without a GPU: timed after the
// nearest winners at the first call and chosen where fastest; none that repeats a nearest winner,
// whose slot goes to the plan's next;
// nothing planned for a tuned shape, without a planner, with planning or timing off; the planner
// that compiles keeps the plan's order and its sources; CL2_PLANNED_CANDIDATES.
#include <algorithm>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "codegen/codegen.hpp"
#include "runtime/runtime.hpp"
#include "runtime/runtime_error.hpp"
#include "runtime/runtime_open.hpp"
#include "support/fake_gemm_backend.hpp"
#include "db_test_support.hpp"
#include "support/run_tool.hpp"
#include "support/env_count_checks.hpp"
#include "support/runtime_fixtures.hpp"
#include "support/scoped_env.hpp"

using namespace cl2;
using namespace cl2_test;

namespace {

const Problem kTuned = tn(4096, 4096, 4096), kUntuned = tn(777, 1024, 4096);

// Gives the configurations it was made with that are not held, as entries of their own, and counts
// the requests.
class FakePlanner : public ShapePlanner {
 public:
  explicit FakePlanner(std::vector<KernelConfig> configs) : configs_(std::move(configs)) {}
  std::vector<DispatchEntry> plan(const FamilyRules&, const Problem& problem, std::size_t count,
                                  const std::vector<KernelConfig>& held) const override {
    ++requests;
    std::vector<DispatchEntry> entries;
    for (const KernelConfig& config : configs_)
      if (entries.size() < count && std::find(held.begin(), held.end(), config) == held.end())
        entries.push_back(entry(problem, config));
    return entries;
  }
  mutable int requests = 0;

 private:
  std::vector<KernelConfig> configs_;
};

struct PlannedRuntime {
  DispatchTable table;
  std::vector<Decision> nearest;
  FakeBackend* fake = nullptr;
  FakePlanner* planner = nullptr;
  std::unique_ptr<Runtime> runtime;

  PlannedRuntime(std::vector<KernelConfig> planned, DispatchOptions options = {}) {
    table.entries.push_back(entry(kTuned, sm90_config(kTuned, any_config, {{"KB_PAIR", 1}})));
    table.entries.push_back(entry(tn(256, 256, 256), sm90_config(tn(256, 256, 256), any_config, {{"KB_PAIR", 0}})));
    nearest = ranked_decisions(table, kUntuned, true, h200_rules());
    auto backend = std::make_unique<FakeBackend>();
    fake = backend.get();
    auto made = std::make_unique<FakePlanner>(std::move(planned));
    planner = made.get();
    runtime = std::make_unique<Runtime>(table, h200_limits(), std::move(backend), options, std::move(made));
  }
};

// Two configurations valid at kUntuned that no nearest winner has: wider tiles.
std::vector<KernelConfig> two_planned() {
  return {sm90_config(kUntuned, any_config, {{"BN", 128}}), sm90_config(kUntuned, any_config, {{"BN", 256}})};
}

}  // namespace

TEST(RuntimePlanned, PlannedKernelsAreTimedAfterTheNearestAndTheFastestIsKept) {
  const std::vector<KernelConfig> planned = two_planned();
  PlannedRuntime t(planned);
  ASSERT_EQ(t.nearest.size(), 2u);
  // The plan's second is the fastest.
  t.fake->launch_us = [&](const CandidateLaunch& run, std::size_t) {
    return run.entry->config == planned[1] ? 6.0 : 10.0;
  };
  const std::string pending = t.runtime->describe(kUntuned);
  EXPECT_NE(pending.find("; first-call timing of the model's first 2 and 2 planned at the shape pending"),
            std::string::npos)
      << pending;
  const Decision& d = t.runtime->gemm(call(kUntuned));
  EXPECT_EQ(d.route, Route::OursPlanned);
  EXPECT_EQ(chosen_by(d), "planned-timed");
  EXPECT_EQ(d.config, planned[1]);
  EXPECT_EQ(d.entry->problem, kUntuned) << "planned at the shape, not tuned anywhere";
  EXPECT_EQ(d.timed_us, (std::vector<double>{10, 10, 10, 6}));
  ASSERT_EQ(t.fake->timed.size(), 1u);
  ASSERT_EQ(t.fake->timed[0].size(), std::size_t(4 * kTimingRounds));
  // Each round: the nearest winners in the model's order, then the plan's.
  EXPECT_EQ(t.fake->timed[0][0].entry->config, t.nearest[0].config);
  EXPECT_EQ(t.fake->timed[0][1].entry->config, t.nearest[1].config);
  EXPECT_EQ(t.fake->timed[0][2].entry->config, planned[0]);
  EXPECT_EQ(t.fake->timed[0][3].entry->config, planned[1]);
  EXPECT_EQ(t.fake->last_entry, d.entry) << "run last, so that C is its result";
  const FamilySpec& sm90 = builtin_families().at("sm90");
  EXPECT_EQ(t.fake->last_geometry, launch_geometry(sm90, config_variables(sm90, planned[1], kUntuned, h200_limits())));
  CL2_EXPECT_CONTAINS(d.why, "ours planned at this shape (the 2nd of tune's plan here that compiled clean, model ");
  CL2_EXPECT_CONTAINS(d.why, "; first-call timing of the model's first 2 and 2 planned at the shape (median of 5): "
                             "10.0, 10.0, 10.0, 6.0 (chosen) us");
  EXPECT_EQ(&t.runtime->gemm(call(kUntuned)), &d) << "kept";
  EXPECT_EQ(t.planner->requests, 1) << "planned once per shape";
}

TEST(RuntimePlanned, ANearestWinnerIsNotTimedTwiceAndItsSlotGoesToTheNextPlanned) {
  const std::vector<KernelConfig> probe = two_planned();
  PlannedRuntime first_pass(probe);
  // The plan's first is the nearest's first configuration: the planner is told it is held, and
  // both slots go to the plan's others.
  PlannedRuntime t({first_pass.nearest[0].config, probe[0], probe[1]});
  t.runtime->gemm(call(kUntuned));
  ASSERT_EQ(t.fake->timed.size(), 1u);
  ASSERT_EQ(t.fake->timed[0].size(), std::size_t(4 * kTimingRounds));
  EXPECT_EQ(t.fake->timed[0][2].entry->config, probe[0]);
  EXPECT_EQ(t.fake->timed[0][3].entry->config, probe[1]);
}

TEST(RuntimePlanned, NothingIsPlannedForATunedShapeOrWithPlanningOrTimingOff) {
  {
    PlannedRuntime t(two_planned());
    EXPECT_EQ(chosen_by(t.runtime->gemm(call(kTuned))), "exact");
    EXPECT_EQ(t.planner->requests, 0);
  }
  for (const DispatchOptions options : {DispatchOptions{.planned_candidates = 0},
                                        DispatchOptions{.timed_candidates = 0, .planned_candidates = 2}}) {
    PlannedRuntime t(two_planned(), options);
    EXPECT_EQ(t.runtime->gemm(call(kUntuned)).route, Route::OursNearest);
    EXPECT_EQ(t.planner->requests, 0);
  }
}

TEST(RuntimePlanned, TheCompilingPlannerKeepsThePlansOrderAndSources) {
  ScratchDir cache;
  const CompilingShapePlanner planner{KernelCompiler(cache.path().string())};
  const std::vector<DispatchEntry> entries = planner.plan(h200_rules(), kUntuned, 2, {});
  ASSERT_EQ(entries.size(), 2u) << "the plan's variants at 777x1024x4096 compile clean";
  const std::vector<Candidate> plan = h200_rules().plan(kUntuned, 4);
  std::size_t next = 0;
  for (const DispatchEntry& e : entries) {
    while (next < plan.size() && !(plan[next].config == e.config)) ++next;
    ASSERT_LT(next, plan.size()) << e.config.label() << " is not in the plan's order";
    EXPECT_EQ(e.problem, kUntuned);
    EXPECT_EQ(e.arch, "sm_90a");
    EXPECT_EQ(e.source_hash,
              generate_source(builtin_families().at(e.config.family), e.config, kUntuned.layout, kUntuned.accum).hash);
    EXPECT_TRUE(h200_rules().allows(e.config, kUntuned));
    ++next;
  }
  // Holding the plan's first: two others, the plan's own without it.
  const std::vector<DispatchEntry> without_first = planner.plan(h200_rules(), kUntuned, 2, {entries[0].config});
  const std::vector<Candidate> plan_without = h200_rules().plan(kUntuned, 2, {entries[0].config.to_json()});
  ASSERT_EQ(without_first.size(), 2u);
  ASSERT_EQ(plan_without.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_NE(without_first[i].config, entries[0].config);
    EXPECT_EQ(without_first[i].config, plan_without[i].config);
  }
  EXPECT_TRUE(planner.plan(h200_rules(), kUntuned, 0, {}).empty());
}

TEST(RuntimePlanned, TheEnvironmentVariableIsACountOrAnError) {
  EXPECT_EQ(planned_candidates_from_env(nullptr), kDefaultPlannedCandidates);
  EXPECT_EQ(planned_candidates_from_env("0"), 0);
  EXPECT_EQ(planned_candidates_from_env("8"), kMaxPlannedCandidates);
  expect_counts_refused(planned_candidates_from_env, {"9", "-1", "two"}, [](const char* bad) {
    return fmt::format("CL2_PLANNED_CANDIDATES={}: not a count from 0 to 8; set how many kernels planned at an "
                       "untuned shape its first call times beside the nearest winners (0: none), or unset it for 2",
                       bad);
  });
  ScopedEnv three("CL2_PLANNED_CANDIDATES", "3");
  EXPECT_EQ(open_options(0).planned_candidates, 3);
  EXPECT_EQ(open_options(CL2_OPEN_NO_FIRST_CALL_TIMING).planned_candidates, 0);
  ScopedEnv bad("CL2_PLANNED_CANDIDATES", "many");
  EXPECT_THROW(open_options(0), RuntimeError);
}
