#pragma once
// What every view of the best-kernel table derives from the winner rows: the rows grouped by
// device, the geometric-mean speedups overall and per size class, throughput, and a compact text
// of a kernel's configuration.
#include <string>
#include <string_view>
#include <vector>

#include "db/records.hpp"
#include "report/speedup_stats.hpp"

namespace cl2 {

struct DeviceWinners {
  DeviceInfo device;
  std::vector<WinnerRow> rows;  // in the order given
};

// Groups by device fingerprint, devices in order of first appearance.
std::vector<DeviceWinners> group_by_device(const std::vector<WinnerRow>& rows);

struct ClassSummary {
  std::string_view name;  // "overall", "small", "mid", "large"
  int shapes = 0;
  SpeedupStats vs_cublas_max;
  SpeedupStats vs_cublaslt_autotune;
};

// Four summaries, in the order overall, small, mid, large (classes of cl2::size_class).
std::vector<ClassSummary> summarize_by_size_class(const std::vector<WinnerRow>& rows);

// Whether some row was tuned under an L2 policy other than warm: only then do the exports name each
// row's policy, so that exports of all-warm databases keep the bytes they had before policies.
bool any_not_warm(const std::vector<WinnerRow>& rows);

double tflops(const WinnerRecord& winner);  // of our kernel; NaN when not timed

// "BK=32 BM=128 STAGES=4": the parameters of a KernelConfig JSON, without the family.
std::string config_params_text(const std::string& config_json);

}  // namespace cl2
