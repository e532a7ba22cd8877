#include "tune/stored_calibration.hpp"

#include <fmt/format.h>

namespace cl2 {

CalibratedFamilies with_stored_calibrations(const TuningDb& db, const std::string& device_name,
                                            const std::vector<const FamilySpec*>& families) {
  CalibratedFamilies out;
  out.owned.reserve(families.size());  // `families` points into it
  for (const FamilySpec* family : families) {
    const auto stored = db.calibration(device_name, family->name);
    if (!stored) {
      out.families.push_back(family);
      continue;
    }
    FamilySpec& copy = out.owned.emplace_back(*family);
    const auto unknown = apply_calibration(copy, stored->factors, stored->scale);
    out.families.push_back(&copy);
    out.notes.push_back(fmt::format(
        "{}: cost model calibrated for {} by this database ({} trials, fitted {}){}", family->name, device_name,
        stored->trials, stored->fitted_at,
        unknown.empty() ? "" : fmt::format("; {} of its rules are no longer in the space file and were left out",
                                           unknown.size())));
  }
  return out;
}

}  // namespace cl2
