#pragma once
// The families as they plan on one GPU: where the tuning database holds a calibration fitted for
// that GPU model (`calibrate --store`), its factors and scale in place of the space file's; `tune`
// plans with these and `show --model` judges them.
#include <string>
#include <vector>

#include "db/tuning_db.hpp"
#include "search/family_spec.hpp"

namespace cl2 {

struct CalibratedFamilies {
  std::vector<FamilySpec> owned;              // copies of the families the database recalibrates
  std::vector<const FamilySpec*> families;    // in the order given: a copy, or the family as it was
  std::vector<std::string> notes;             // per family recalibrated, one line saying so
};

CalibratedFamilies with_stored_calibrations(const TuningDb& db, const std::string& device_name,
                                            const std::vector<const FamilySpec*>& families);

}  // namespace cl2
