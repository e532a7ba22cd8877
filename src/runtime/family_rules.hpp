#pragma once
// What the built-in families say of one configuration at one shape on one GPU, for the runtime's
// dispatch (runtime/dispatch): whether its rules let it run there, what the family's calibrated
// cost model estimates it takes there (the estimate tune ranks candidates by), and which other
// split-K factors would run from the same cubin there.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/kernel_config.hpp"
#include "core/problem.hpp"
#include "runtime/dispatch_table.hpp"
#include "search/candidates.hpp"
#include "search/device_limits.hpp"
#include "search/family_spec.hpp"

namespace cl2 {

class FamilyRules {
 public:
  // `calibrations`: fits the database keeps for this GPU (calibrate --store), applied to the
  // built-in families as tune applies them when it plans.
  explicit FamilyRules(const DeviceLimits& device, const std::vector<CalibrationRecord>& calibrations = {});

  // Whether the family's correctness rules (the planning-only ones left out) allow `config` at
  // `problem`; a configuration of a family this build does not know never runs.
  bool allows(const KernelConfig& config, const Problem& problem) const;

  // The family's calibrated estimate of `config` at `problem` in µs (search/cost_model), nothing
  // where the family is unknown or its model cannot be evaluated.
  std::optional<double> model_us(const KernelConfig& config, const Problem& problem) const;

  // The configuration of `entry` with each other split-K factor that its family's correctness
  // rules allow at `problem`, that meets every planning rule reading the factor there (no such
  // variant was ever timed, so it must be one tune would have planned at this shape: those rules
  // hold what the model misses, e.g. sm90 splits through DSMEM only where the clusters fit in one
  // wave), and whose generated source is the entry's, so that it runs from the entry's cubin with
  // other kernel arguments. Split-K is a kernel argument, but some of the family's compile-time
  // defines depend on it (sm90: whether to split at all, how the slices are reduced), so not every
  // factor shares the cubin.
  std::vector<KernelConfig> split_k_variants(const DispatchEntry& entry, const Problem& problem) const;

  // The families' first `count` configurations at `problem` as tune would plan them there (valid,
  // calibrated model's cheapest first, the families' diversity rule applied), leaving out those
  // whose KernelConfig::to_json text is in `excluded`; none where no family has a valid one.
  std::vector<Candidate> plan(const Problem& problem, std::size_t count,
                              const std::set<std::string>& excluded = {}) const;

  const DeviceLimits& device() const { return device_; }

 private:
  const FamilySpec* family(const std::string& name) const;  // null for a family this build lacks

  DeviceLimits device_;
  std::map<std::string, FamilySpec> families_;  // the built-in families, calibrated for this GPU
  // Per family, the parameters each of its rules reads (search/candidates' constraint_params),
  // worked out once here rather than at every untuned shape's first call.
  std::map<std::string, std::vector<std::set<std::string>>> rule_params_;
};

}  // namespace cl2
