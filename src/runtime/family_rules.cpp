#include "runtime/family_rules.hpp"

#include <cstdint>
#include <limits>
#include <set>
#include <string>

#include "codegen/codegen.hpp"
#include "core/errors.hpp"
#include "search/cost_model.hpp"
#include "search/family_spec.hpp"

namespace cl2 {

namespace {

// The one runtime parameter re-chosen for an untuned shape: how many slices a tile's K is cut into
// follows the shape's tile count and K, which the cost model prices (waves, k-blocks per slice).
// The raster group stays as tuned: the model has no term for its L2 reuse beyond a tie-break.
constexpr const char* kRechosenParam = "SPLIT_K";

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

}  // namespace

FamilyRules::FamilyRules(const DeviceLimits& device, const std::vector<CalibrationRecord>& calibrations)
    : device_(device), families_(builtin_families()) {
  for (const CalibrationRecord& fit : calibrations)
    if (auto it = families_.find(fit.family); it != families_.end()) apply_calibration(it->second, fit.factors, fit.scale);
  for (const auto& [name, family] : families_) rule_params_.emplace(name, constraint_params(family));
}

const FamilySpec* FamilyRules::family(const std::string& name) const {
  const auto found = families_.find(name);
  return found == families_.end() ? nullptr : &found->second;
}

bool FamilyRules::allows(const KernelConfig& config, const Problem& problem) const {
  const FamilySpec* family = this->family(config.family);
  if (!family) return false;
  const auto vars = variables(*family, config, problem, device_);
  return vars && correctness_rules_met(*family, rules_met(*family, *vars));
}

std::optional<double> FamilyRules::model_us(const KernelConfig& config, const Problem& problem) const {
  const FamilySpec* family = this->family(config.family);
  if (!family) return std::nullopt;
  const auto vars = variables(*family, config, problem, device_);
  if (!vars) return std::nullopt;
  try {
    return model_cost(*family, *vars);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::vector<KernelConfig> FamilyRules::split_k_variants(const DispatchEntry& entry, const Problem& problem) const {
  const FamilySpec* family = this->family(entry.config.family);
  if (!family || !family->runtime_params.count(kRechosenParam) || !entry.config.params.count(kRechosenParam))
    return {};
  const std::vector<std::set<std::string>>& reads = rule_params_.at(entry.config.family);
  std::vector<KernelConfig> variants;
  for (const std::int64_t value : family->params.at(kRechosenParam)) {
    if (value == entry.config.at(kRechosenParam)) continue;
    KernelConfig variant = entry.config;
    variant.params[kRechosenParam] = value;
    const auto vars = variables(*family, variant, problem, device_);
    if (!vars) continue;
    const std::vector<bool> met = rules_met(*family, *vars);
    bool admitted = true;
    for (std::size_t i = 0; i < met.size() && admitted; ++i)
      admitted = met[i] || (family->constraints[i].planning && !reads[i].count(kRechosenParam));
    // The source last: it is the template whole, and most factors fail a rule first.
    if (admitted &&
        generate_source(*family, variant, entry.problem.layout, entry.problem.accum).hash == entry.source_hash)
      variants.push_back(std::move(variant));
  }
  return variants;
}

std::vector<Candidate> FamilyRules::plan(const Problem& problem, std::size_t count,
                                         const std::set<std::string>& excluded) const {
  std::vector<const FamilySpec*> families;
  for (const auto& [name, family] : families_) families.push_back(&family);
  try {
    return plan_candidates(families, problem, device_, count, excluded);
  } catch (const UserError&) {  // no family has a valid configuration here
    return {};
  }
}

}  // namespace cl2
