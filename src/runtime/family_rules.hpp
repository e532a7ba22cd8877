#pragma once
// What the built-in families say of one configuration at one shape on one GPU, for the runtime's
// dispatch (runtime/dispatch): whether its rules let it run there, and what the family's
// calibrated cost model estimates it takes there (the estimate tune ranks candidates by).
#include <optional>

#include "core/kernel_config.hpp"
#include "core/problem.hpp"
#include "search/device_limits.hpp"

namespace cl2 {

class FamilyRules {
 public:
  explicit FamilyRules(const DeviceLimits& device) : device_(device) {}

  // Whether the family's correctness rules (the planning-only ones left out) allow `config` at
  // `problem`; a configuration of a family this build does not know never runs.
  bool allows(const KernelConfig& config, const Problem& problem) const;

  // The family's calibrated estimate of `config` at `problem` in µs (search/cost_model), nothing
  // where the family is unknown or its model cannot be evaluated.
  std::optional<double> model_us(const KernelConfig& config, const Problem& problem) const;

 private:
  DeviceLimits device_;
};

}  // namespace cl2
