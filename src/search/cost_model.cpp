#include "search/cost_model.hpp"

namespace cl2 {

double uncalibrated_cost(const FamilySpec& family, const ExprVariables& vars) {
  return as_double(family.cost_us.eval(vars));
}

std::vector<bool> calibration_features(const FamilySpec& family, const ExprVariables& vars) {
  std::vector<bool> applies;
  applies.reserve(family.calibration.size());
  for (const auto& f : family.calibration) applies.push_back(as_bool(f.when.eval(vars)));
  return applies;
}

double model_cost(const FamilySpec& family, const ExprVariables& vars) {
  double cost = uncalibrated_cost(family, vars) * family.calibration_scale.value_or(1.0);
  for (const auto& f : family.calibration)
    if (as_bool(f.when.eval(vars))) cost *= f.factor;
  return cost;
}

}  // namespace cl2
