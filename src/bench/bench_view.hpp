#pragma once
// The bench run as every report reads it: each shape's timings with the derived provider
// cublas_max added, the modes present in the run in report order, and lookups of a time or a
// speedup by (provider, mode, figure) that answer NaN where something was not measured, so the
// statistics skip it (speedup_stats ignores NaN) instead of every caller checking.
#include <string>
#include <string_view>
#include <vector>

#include "bench/bench_records.hpp"

namespace cl2 {

// The two figures of every timing: GPU time (CUDA events) and per-call wall time.
enum class Figure { Wall, Gpu };
std::string_view to_string(Figure figure);  // "wall", "gpu"

// One figure's fields of a ProviderTiming.
struct FigureTiming {
  double us = 0, spread_pct = 0;
  int samples = 0;
};
FigureTiming figure_timing(const ProviderTiming& timing, Figure figure);
void set_figure_timing(ProviderTiming& timing, Figure figure, const FigureTiming& value);

// "offline" (interval 0) or "server" with its idle gap; ordered offline first, then by gap.
struct BenchMode {
  std::string mode;
  int interval_ms = 0;
  std::string label() const;  // "offline", "server 10 ms"
  bool matches(const ProviderTiming& timing) const;
  auto operator<=>(const BenchMode&) const = default;
};

// Every provider a report lists, in report order: bench_providers() with the derived cublas_max
// right after cublas_tn.
const std::vector<Provider>& report_providers();
// The providers our speedups are taken over, in the column order of speedups.csv.
const std::vector<Provider>& speedup_baselines();

// One speedup: baseline time / subject time (above 1: the subject is faster).
struct Comparison {
  Provider subject, baseline;
  std::string name() const;   // "runtime_vs_ours": speedups.csv's column after the figure
  std::string title() const;  // "runtime (libcl2) vs ours"
};
// The runtime library's speedups, kept apart from ours (which speedup_baselines lists): over our
// winners (its dispatch against the shape tuned directly) and over cuBLASLt-autotune.
inline constexpr Comparison kRuntimeVsOurs{Provider::Runtime, Provider::Ours};
inline constexpr Comparison kRuntimeVsAutotune{Provider::Runtime, Provider::CublasltAutotune};
const std::vector<Comparison>& runtime_comparisons();  // both, in that order

class ShapeView {
 public:
  explicit ShapeView(const ShapeBench& bench);
  const ShapeBench& bench() const { return *bench_; }
  const Problem& problem() const { return bench_->problem; }
  // Measured timings plus cublas_max, ordered by mode, then provider in report order.
  const std::vector<ProviderTiming>& timings() const { return timings_; }

  const ProviderTiming* find(Provider provider, const BenchMode& mode) const;
  double time_us(Provider provider, const BenchMode& mode, Figure figure) const;
  // Baseline time / our time; NaN unless both were measured.
  double speedup(Provider baseline, const BenchMode& mode, Figure figure) const;
  double speedup(const Comparison& comparison, const BenchMode& mode, Figure figure) const;

 private:
  const ShapeBench* bench_;
  std::vector<ProviderTiming> timings_;
};

// Views into `run`, which must outlive them.
struct BenchView {
  const BenchRun* run = nullptr;
  std::vector<ShapeView> shapes;  // in the run's order
  std::vector<BenchMode> modes;   // every mode some provider was measured in, in report order
  // Whether any shape has the runtime's timings or route: the runtime's columns and section are
  // left out otherwise, so runs without it render as they always did.
  bool has_runtime = false;
};
BenchView make_bench_view(const BenchRun& run);

// Rates of one GEMM call: 2·M·N·K FLOP; fp16 A and B read and C written once (operand_bytes).
double tflops(const GemmShape& shape, double time_us);  // NaN where time_us is
double gbps(const GemmShape& shape, double time_us);

// Throws UserError naming `source` (a file, or "bench run") when the run cannot be reported: no
// shapes, a provider that is not measured (cublas_max), an unknown mode, a server timing without a gap, or a timing given twice.
void validate_bench_run(const BenchRun& run, const std::string& source);

}  // namespace cl2
