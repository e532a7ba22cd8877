#include "runtime/family_rules.hpp"

#include <cstdint>
#include <limits>

#include "search/candidates.hpp"
#include "search/cost_model.hpp"
#include "search/family_spec.hpp"

namespace cl2 {

namespace {

const FamilySpec* builtin_family(const std::string& name) {
  const auto& families = builtin_families();
  const auto found = families.find(name);
  return found == families.end() ? nullptr : &found->second;
}

// The variables of `config` at `problem`; nothing where M, N or K do not fit the kernel ABI's int,
// or where a parameter is missing or a define cannot be evaluated (a configuration this build's
// family no longer has).
std::optional<ExprVariables> variables(const FamilySpec& family, const KernelConfig& config, const Problem& problem,
                                       const DeviceLimits& device) {
  // The kernel ABI passes M, N and K as int.
  constexpr std::int64_t kMax = std::numeric_limits<int>::max();
  if (problem.shape.m > kMax || problem.shape.n > kMax || problem.shape.k > kMax) return std::nullopt;
  try {
    return config_variables(family, config, problem, device);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Per rule of the family, whether it holds for `vars` (one that cannot be evaluated does not).
std::vector<bool> rules_met(const FamilySpec& family, const ExprVariables& vars) {
  std::vector<bool> met;
  met.reserve(family.constraints.size());
  for (const Constraint& constraint : family.constraints) {
    try {
      met.push_back(as_bool(constraint.rule.eval(vars)));
    } catch (const std::exception&) {
      met.push_back(false);
    }
  }
  return met;
}

bool correctness_rules_met(const FamilySpec& family, const std::vector<bool>& met) {
  for (std::size_t i = 0; i < met.size(); ++i)
    if (!met[i] && !family.constraints[i].planning) return false;
  return true;
}

}  // namespace

bool FamilyRules::allows(const KernelConfig& config, const Problem& problem) const {
  const FamilySpec* family = builtin_family(config.family);
  if (!family) return false;
  const auto vars = variables(*family, config, problem, device_);
  return vars && correctness_rules_met(*family, rules_met(*family, *vars));
}

std::optional<double> FamilyRules::model_us(const KernelConfig& config, const Problem& problem) const {
  const FamilySpec* family = builtin_family(config.family);
  if (!family) return std::nullopt;
  const auto vars = variables(*family, config, problem, device_);
  if (!vars) return std::nullopt;
  try {
    return model_cost(*family, *vars);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace cl2
