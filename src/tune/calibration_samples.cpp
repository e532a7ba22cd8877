#include "tune/calibration_samples.hpp"

#include <cmath>
#include <map>

#include "search/candidates.hpp"
#include "search/cost_model.hpp"

namespace cl2 {

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
          if (config.family == family.name) it->second = std::move(config);
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
