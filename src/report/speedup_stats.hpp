#pragma once
// Summary statistics of speedup ratios (baseline time / our time). DESIGN.md reports speedups as
// geometric means; mean, min and max show how uneven they are.
#include <limits>
#include <vector>

namespace cl2 {

struct SpeedupStats {
  int count = 0;  // ratios that entered the statistics
  double geomean = std::numeric_limits<double>::quiet_NaN();
  double mean = std::numeric_limits<double>::quiet_NaN();
  double min = std::numeric_limits<double>::quiet_NaN();
  double max = std::numeric_limits<double>::quiet_NaN();
};

// Skips NaN, infinite and non-positive ratios (a missing baseline or a failed measurement), so
// one unmeasured shape does not poison the mean of the others; all NaN when none is left.
SpeedupStats speedup_stats(const std::vector<double>& ratios);

}  // namespace cl2
