#pragma once
// Two best-kernel tables side by side (last night's and tonight's, say): per device and shape,
// how our winner's time and its speedup over cuBLASLt-autotune moved, judged against the noise
// the measurements recorded, and what changed underneath (driver, CUDA, cuBLAS, NVRTC versions,
// the winning kernel or its template source).
#include <string>
#include <vector>

#include "db/records.hpp"

namespace cl2 {

struct CompareOptions {
  double min_change_pct = 3.0;  // changes below this are never reported
  double noise_factor = 2.0;    // ... nor below this many times the recorded spreads combined
};

enum class Verdict {
  Unchanged,
  Improved,       // ours faster, or ahead of the library by more than the threshold
  Regressed,      // ours slower by more than the threshold
  LibraryAhead,   // ours as fast as before, but the library gained on it by more than the threshold
  Lost,           // a winner before, none now (nothing verified, or the shape was not tuned)
  New,            // no winner before
};
std::string_view to_string(Verdict verdict);
bool is_failure(Verdict verdict);

struct ShapeComparison {
  Problem problem;
  Verdict verdict = Verdict::Unchanged;
  const WinnerRow* before = nullptr;  // null for New
  const WinnerRow* after = nullptr;   // null for Lost
  double threshold_pct = 0;
  double ours_change_pct = 0;     // + is slower
  double speedup_change_pct = 0;  // vs cuBLASLt-autotune; - is losing ground
  std::string kernel_change;      // "" | "other configuration" | "template source changed"
};

struct DeviceComparison {
  std::string name;  // GPU name as recorded
  std::vector<std::string> version_changes;  // "driver 13.0 -> 13.1"
  std::vector<ShapeComparison> shapes;       // in the order of the tables, before's shapes first
  int count(Verdict verdict) const;
};

struct Comparison {
  std::vector<DeviceComparison> devices;
  bool has_failures() const;
};

// Devices are matched by GPU name, compute capability and SM count (a driver update makes a new
// device fingerprint, and is exactly what a comparison is for); shapes by M, N, K, layout, accum and
// L2 policy.
Comparison compare_tables(const std::vector<WinnerRow>& before, const std::vector<WinnerRow>& after,
                          const CompareOptions& options);

// The comparison for people (Markdown) and for CI (JUnit XML: one test case per device and shape,
// failed where the verdict is a failure).
std::string render_comparison_markdown(const Comparison& comparison, const std::string& before_name,
                                       const std::string& after_name, const CompareOptions& options);
std::string render_comparison_junit(const Comparison& comparison);

}  // namespace cl2
