#include "report/speedup_stats.hpp"

#include <algorithm>
#include <cmath>

namespace cl2 {

SpeedupStats speedup_stats(const std::vector<double>& ratios) {
  SpeedupStats stats;
  double log_sum = 0.0, sum = 0.0;
  for (const double ratio : ratios) {
    if (!std::isfinite(ratio) || ratio <= 0.0) continue;
    // Sum of logs rather than a running product: a product of a few hundred ratios can overflow.
    log_sum += std::log(ratio);
    sum += ratio;
    stats.min = stats.count == 0 ? ratio : std::min(stats.min, ratio);
    stats.max = stats.count == 0 ? ratio : std::max(stats.max, ratio);
    ++stats.count;
  }
  if (stats.count > 0) {
    stats.geomean = std::exp(log_sum / stats.count);
    stats.mean = sum / stats.count;
  }
  return stats;
}

}  // namespace cl2
