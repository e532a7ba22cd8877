#include "report/model_quality.hpp"

#include <fmt/format.h>

#include <cmath>

#include "gpu/device_query.hpp"
#include "report/text_table.hpp"
#include "search/calibration_fit.hpp"
#include "tune/calibration_samples.hpp"
#include "tune/stored_calibration.hpp"

namespace cl2 {

std::string render_model_quality(const TuningDb& db, const std::vector<const FamilySpec*>& families) {
  TextTable table({{"device", Align::Left}, {"family", Align::Left}, {"calibration", Align::Left}, {"trials"},
                   {"shapes"}, {"Spearman"}, {"top-1 regret"}});
  for (const auto& [device_id, device] : db.devices()) {
    const CalibratedFamilies calibrated = with_stored_calibrations(db, device.name, families);
    for (std::size_t i = 0; i < families.size(); ++i) {
      const FamilySpec* family = calibrated.families[i];
      if (!family->supports_cc(device.cc())) continue;
      const auto samples = calibration_samples(db, device_id, device_limits(device), *family, "");
      if (samples.empty()) continue;
      std::vector<double> log_factors;
      for (const auto& factor : family->calibration) log_factors.push_back(std::log(factor.factor));
      const RankingQuality q = ranking_quality(samples, log_factors);
      table.add_row({device.name, family->name, family == families[i] ? "space file" : "database",
                     std::to_string(samples.size()), std::to_string(q.groups),
                     q.groups ? format_fixed(q.mean_spearman, 2) : std::string("-"),
                     q.groups ? format_fixed(q.top1_regret, 3) + "x" : std::string("-")});
    }
  }
  if (table.empty())
    return "No verified trials of the known families (a family tuned from a space file needs its --space-file).\n";
  return "How each family's cost model (with its calibration) ranks the measured variants of each shape:\n\n" +
         table.plain(2) +
         "\n  calibration: the space file's factors, or those `calibrate --store` kept in the database for\n"
         "  the GPU (what tune plans with); trials: verified trials the model's floor does not bind;\n"
         "  shapes: those with 3 or more of them;\n"
         "  Spearman: rank correlation of estimate and measured time within a shape, averaged over shapes;\n"
         "  top-1 regret: the model's first choice's time over the fastest measured, geomean over shapes.\n";
}

}  // namespace cl2
