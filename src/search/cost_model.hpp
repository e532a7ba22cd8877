#pragma once
// A family's estimate of a variant's time: its space file's cost_us, scaled by the calibration
// factors that hold for the variant and by the family's calibration scale. Planning ranks
// candidates by it; `calibrate` fits factors and scale.
#include <vector>

#include "core/expr.hpp"
#include "search/family_spec.hpp"

namespace cl2 {

// cost_us alone, before calibration (what the factors are fitted against).
double uncalibrated_cost(const FamilySpec& family, const ExprVariables& vars);

// For each calibration factor of the family, whether it applies to the variant.
std::vector<bool> calibration_features(const FamilySpec& family, const ExprVariables& vars);

// cost_us times every calibration factor that applies, times the calibration scale.
double model_cost(const FamilySpec& family, const ExprVariables& vars);

}  // namespace cl2
