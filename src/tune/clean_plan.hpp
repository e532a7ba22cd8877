#pragma once
// The candidates each shape will time, planned and compiled so that `max_candidates` slots go to
// variants that compiled clean: a variant ptxas spilled (or that failed to compile) gives its slot to
// the next one the plan would have taken. Rejected variants stay in the list, after the clean ones,
// so that the tuner records why they were not timed.
#include <functional>
#include <vector>

#include "tune/candidate_build.hpp"

namespace cl2 {

struct CleanPlanStats {
  BuildCounts first_round;      // the plan as first cut: what was compiled and rejected
  std::size_t refilled = 0;     // slots handed on from rejected variants to later candidates
  std::size_t extra_compiles = 0;  // unique kernels compiled (or read from the cache) for them
};

// Throws the UserError of a shape that no variant of the families fits (what plan_clean would
// throw), compiling nothing and planning in full only such a shape: for shapes planned later.
void check_plannable(const std::vector<Problem>& problems, const std::vector<const FamilySpec*>& families,
                     const DeviceLimits& limits);

// `seeds[i]` (empty, or one list per problem) go first into problem i's plan (search/seeds.hpp).
std::vector<std::vector<BuiltCandidate>> plan_clean(
    const std::vector<Problem>& problems, const std::vector<const FamilySpec*>& families,
    const DeviceLimits& limits, std::size_t max_candidates, const KernelCompiler& compiler,
    CleanPlanStats& stats, const std::vector<std::vector<KernelConfig>>& seeds = {},
    const std::function<void(std::size_t, std::size_t)>& on_compiled = {}, PlanOrder order = PlanOrder::Model,
    std::size_t family_share = kFamilyShare);

}  // namespace cl2
