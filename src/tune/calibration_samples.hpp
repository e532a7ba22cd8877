#pragma once
// The measured trials a family's calibration is fitted to: every verified trial of the family's
// kernels on one device, with the model's uncalibrated estimate and calibration features for it.
// `run` tells databases apart: a shape's trials are compared with each other only within one.
#include <cstdint>
#include <string>
#include <vector>

#include "db/tuning_db.hpp"
#include "search/calibration_fit.hpp"
#include "search/device_limits.hpp"
#include "search/family_spec.hpp"

namespace cl2 {

std::vector<CalibrationSample> calibration_samples(const TuningDb& db, std::int64_t device_id,
                                                   const DeviceLimits& limits, const FamilySpec& family,
                                                   const std::string& run);

}  // namespace cl2
