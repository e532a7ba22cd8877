#include "tune/clean_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "core/errors.hpp"
#include "core/parallel_for.hpp"

namespace cl2 {

namespace {

// Re-planning stops after this many rounds: each round asks only for the slots the last one lost,
// and a family whose every variant spills must not walk its whole space one slot at a time.
constexpr int kMaxRounds = 4;

// With no cap (--max-candidates 0, --strategy exhaustive) a plan takes every variant the families
// plan: tens of thousands per shape for sm90 on grid-125 (10^4 to 6x10^4), hours of compiling and
// timing each. Past this many the run stops before compiling, saying so.
constexpr std::size_t kMaxUncapped = 4096;

// The plans of problems[which[i]], each leaving out its excluded configs. After the first round a
// plan may find every valid config excluded: then the shape keeps the clean candidates it has.
std::vector<std::vector<Candidate>> plan_some(const std::vector<Problem>& problems,
                                              const std::vector<std::size_t>& which,
                                              const std::vector<const FamilySpec*>& families,
                                              const DeviceLimits& limits, std::size_t max_candidates,
                                              const std::vector<std::set<std::string>>& excluded,
                                              const std::vector<std::vector<KernelConfig>>& seeds, PlanOrder order,
                                              std::size_t family_share, bool first) {
  std::vector<std::vector<Candidate>> plans(which.size());
  // Planning enumerates every variant of every family per shape: independent work, spread over the
  // CPU's threads.
  parallel_for(which.size(), 0, [&](std::size_t i) {
    try {
      const std::size_t p = which[i];
      plans[i] = plan_candidates(families, problems[p], limits, max_candidates, excluded[p],
                                 seeds.empty() ? std::vector<KernelConfig>{} : seeds[p], order, family_share);
    } catch (const UserError&) {
      if (first) throw;  // no variant applies to the shape at all: the user's error to fix
    }
  });
  return plans;
}

}  // namespace

void check_plannable(const std::vector<Problem>& problems, const std::vector<const FamilySpec*>& families,
                     const DeviceLimits& limits) {
  parallel_for(problems.size(), 0, [&](std::size_t i) {
    const auto applies = [&](const FamilySpec* family) { return family_applies(*family, problems[i], limits); };
    // Planned in full only where nothing applies, for the error that says which rule excluded it.
    if (std::none_of(families.begin(), families.end(), applies)) plan_candidates(families, problems[i], limits, 1);
  });
}

std::vector<std::vector<BuiltCandidate>> plan_clean(const std::vector<Problem>& problems,
                                                    const std::vector<const FamilySpec*>& families,
                                                    const DeviceLimits& limits, std::size_t max_candidates,
                                                    const KernelCompiler& compiler, CleanPlanStats& stats,
                                                    const std::vector<std::vector<KernelConfig>>& seeds,
                                                    const std::function<void(std::size_t, std::size_t)>& on_compiled,
                                                    PlanOrder order, std::size_t family_share) {
  std::vector<std::vector<BuiltCandidate>> clean(problems.size()), rejected(problems.size());
  std::vector<std::set<std::string>> excluded(problems.size());
  std::vector<std::size_t> pending(problems.size());
  std::iota(pending.begin(), pending.end(), std::size_t(0));
  std::size_t first_clean = 0;
  for (int round = 0; round < kMaxRounds && !pending.empty(); ++round) {
    const auto plans = plan_some(problems, pending, families, limits, max_candidates, excluded, seeds, order,
                                 family_share, round == 0);
    for (std::size_t i = 0; i < plans.size() && max_candidates == 0; ++i)
      if (plans[i].size() > kMaxUncapped)
        throw UserError(fmt::format(
            "shape {}: {} variants planned with no cap on candidates (--max-candidates 0 or --strategy "
            "exhaustive), more than {} would take hours; give --max-candidates N, --strategy race, or narrow "
            "the space with --pin or a space file",
            problems[pending[i]].text(), plans[i].size(), kMaxUncapped));
    std::vector<Problem> some;
    for (std::size_t p : pending) some.push_back(problems[p]);
    BuildCounts counts;
    auto built = build_candidates(some, plans, limits.nvrtc_arch(), compiler, counts,
                                  round == 0 ? on_compiled : std::function<void(std::size_t, std::size_t)>{});
    if (round == 0)
      stats.first_round = counts;
    else
      stats.extra_compiles += counts.unique;
    std::vector<std::size_t> lost_slots;
    for (std::size_t i = 0; i < pending.size(); ++i) {
      const std::size_t p = pending[i];
      if (round > 0 && plans[i].empty()) continue;  // nothing left to plan: keep what compiled clean
      clean[p].clear();
      bool lost = false;
      for (auto& b : built[i]) {
        if (b.rejection().empty()) {
          clean[p].push_back(std::move(b));
        } else if (excluded[p].insert(b.candidate.config.to_json()).second) {
          rejected[p].push_back(std::move(b));
          lost = true;
        }
      }
      if (round == 0) first_clean += clean[p].size();
      // With no cap every candidate is planned already: nothing could take a lost slot.
      if (lost && max_candidates != 0) lost_slots.push_back(p);
    }
    pending = std::move(lost_slots);
  }
  std::size_t final_clean = 0;
  std::vector<std::vector<BuiltCandidate>> out(problems.size());
  for (std::size_t p = 0; p < problems.size(); ++p) {
    final_clean += clean[p].size();
    out[p] = std::move(clean[p]);
    for (auto& b : rejected[p]) out[p].push_back(std::move(b));
  }
  stats.refilled = final_clean - first_clean;
  return out;
}

}  // namespace cl2
