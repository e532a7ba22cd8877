#include "search/cost_model.hpp"

#include <algorithm>

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

namespace {
// Of the two bounds the lesser still costs a little (overlap is never perfect), which also orders
// variants that all sit on the floor: the one that does less besides comes first.
constexpr double kLesserBoundShare = 0.05;
}  // namespace

bool floor_bound(const FamilySpec& family, const ExprVariables& vars) {
  return family.floor_us && as_double(family.floor_us->eval(vars)) > uncalibrated_cost(family, vars);
}

double model_cost(const FamilySpec& family, const ExprVariables& vars) {
  double cost = uncalibrated_cost(family, vars);
  for (const auto& f : family.calibration)
    if (as_bool(f.when.eval(vars))) cost *= f.factor;
  if (family.floor_us) {
    const double floor = as_double(family.floor_us->eval(vars));
    cost = std::max(cost, floor) + kLesserBoundShare * std::min(cost, floor);
  }
  return cost * family.calibration_scale.value_or(1.0);
}

}  // namespace cl2
