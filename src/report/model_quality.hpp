#pragma once
// `show --model`: how well each family's cost model, as it plans (its calibration factors applied:
// the space file's, or those the database keeps for the GPU), ranks the variants the database measured, per device: the rank correlation
// between estimate and measured time within each shape, and how much slower the model's first
// choice ran than the fastest measured. The same measures as `calibrate` prints for a fit.
#include <string>
#include <vector>

#include "db/tuning_db.hpp"
#include "search/family_spec.hpp"

namespace cl2 {

// One row per device and family with verified trials; a line saying so where there are none.
std::string render_model_quality(const TuningDb& db, const std::vector<const FamilySpec*>& families);

}  // namespace cl2
