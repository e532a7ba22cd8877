#pragma once
// A family's estimate of a variant's time: its space file's cost_us, scaled by the calibration
// factors that hold for the variant, raised to the family's floor_us where that is higher, and
// scaled by the family's calibration scale (which puts families in one unit). Planning ranks
// candidates by it; `calibrate` fits factors and scale.
#include <vector>

#include "core/expr.hpp"
#include "search/family_spec.hpp"

namespace cl2 {

// cost_us alone, before calibration (what the factors are fitted against).
double uncalibrated_cost(const FamilySpec& family, const ExprVariables& vars);

// Whether the family's floor_us is above cost_us for the variant: its time then speaks of the floor
// (DRAM), not of what the calibration factors scale, and calibrate leaves it out.
bool floor_bound(const FamilySpec& family, const ExprVariables& vars);

// For each calibration factor of the family, whether it applies to the variant.
std::vector<bool> calibration_features(const FamilySpec& family, const ExprVariables& vars);

// max(cost_us times every calibration factor that applies, floor_us) plus 5% of the lesser of the
// two, times the calibration scale.
double model_cost(const FamilySpec& family, const ExprVariables& vars);

}  // namespace cl2
