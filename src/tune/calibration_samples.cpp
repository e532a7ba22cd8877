#include "tune/calibration_samples.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "search/candidates.hpp"
#include "search/cost_model.hpp"

namespace cl2 {
namespace {

// A kernel tuned by an older version of the family may lack parameters added since (sm90's
// SPLIT_DSMEM): unless the family says what their absence means (its "absent" values: sm90's PDL),
// its model cannot cost it, so it is no sample of this family.
bool names_every_param(const FamilySpec& family, const KernelConfig& config) {
  return std::all_of(family.params.begin(), family.params.end(), [&](const auto& param) {
    return config.params.count(param.first) != 0 || family.absent.count(param.first) != 0;
  });
}

}  // namespace

std::vector<CalibrationSample> calibration_samples(const TuningDb& db, std::int64_t device_id,
                                                   const DeviceLimits& limits, const FamilySpec& family,
                                                   const std::string& run) {
  std::vector<CalibrationSample> samples;
  std::map<std::int64_t, std::optional<KernelConfig>> configs;  // kernel id -> config, if the family's
  for (const Problem& problem : db.problems_with_trials(device_id)) {
    for (const TrialRecord& trial : db.trials(device_id, problem)) {
      if (trial.status != TrialStatus::Ok || !(trial.time_us > 0)) continue;
      auto [it, fresh] = configs.try_emplace(trial.kernel_id);
      if (fresh)
        if (const auto kernel = db.kernel(trial.kernel_id)) {
          KernelConfig config = KernelConfig::from_json(kernel->config_json);
          if (config.family == family.name && names_every_param(family, config)) it->second = std::move(config);
        }
      if (!it->second) continue;
      const ExprVariables vars = config_variables(family, *it->second, problem, limits);
      if (floor_bound(family, vars)) continue;
      samples.push_back({problem.text(), run + " " + problem.text(), std::log(uncalibrated_cost(family, vars)),
                         calibration_features(family, vars), std::log(trial.time_us)});
    }
  }
  return samples;
}

}  // namespace cl2
