#include "runtime/shape_planner.hpp"

#include <set>
#include <string>

#include "runtime/env_count.hpp"
#include "tune/candidate_build.hpp"

namespace cl2 {

namespace {

// Planned beyond the count, so that a rejected variant's place goes to the next one without a
// second round of compiles.
constexpr std::size_t kSpareCandidates = 2;

}  // namespace

int planned_candidates_from_env(const char* value) {
  return count_from_env("CL2_PLANNED_CANDIDATES", value, kDefaultPlannedCandidates, kMaxPlannedCandidates,
                        "how many kernels planned at an untuned shape its first call times beside the nearest "
                        "winners");
}

std::vector<DispatchEntry> CompilingShapePlanner::plan(const FamilyRules& rules, const Problem& problem,
                                                       std::size_t count,
                                                       const std::vector<KernelConfig>& held) const {
  if (count == 0) return {};
  std::set<std::string> excluded;
  for (const KernelConfig& config : held) excluded.insert(config.to_json());
  const std::vector<Candidate> planned = rules.plan(problem, count + kSpareCandidates, excluded);
  if (planned.empty()) return {};
  const std::string arch = rules.device().nvrtc_arch();
  BuildCounts counts;
  const auto built = build_candidates({problem}, {planned}, arch, compiler_, counts).front();
  std::vector<DispatchEntry> entries;
  for (const BuiltCandidate& kernel : built) {
    if (entries.size() == count) break;
    if (!kernel.rejection().empty()) continue;
    DispatchEntry entry;
    entry.problem = problem;
    entry.config = kernel.candidate.config;
    entry.source_hash = kernel.source.hash;
    entry.arch = arch;
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace cl2
