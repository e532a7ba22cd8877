// bench.csv (every timing, one row per shape, mode and provider, cublas_max included) and
// speedups.csv (CUDA-L2's per-shape speedup table, one row per shape and mode). Columns are only
// ever appended, so scripts reading by name or position keep working; unmeasured values are empty.
// A run with the runtime library gets its columns after all others: in bench.csv the route of its
// rows and how the runtime chose it, in speedups.csv its speedups over ours and cuBLASLt-autotune;
// a run without it has neither, so results committed before it render as they were.
#include <fmt/format.h>

#include <cmath>

#include "bench/bench_renderers.hpp"

namespace cl2 {
namespace {

constexpr std::string_view kBenchHeader =
    "M,N,K,layout,accum,size_class,provider,mode,interval_ms,gpu_us,gpu_spread_pct,gpu_samples,"
    "wall_us,wall_spread_pct,wall_samples,tflops_gpu,gbps_gpu";
constexpr std::string_view kRuntimeHeader = ",route,route_detail,chosen_by";

// Microseconds with three decimals keep nanoseconds at any size.
constexpr int kMicrosDecimals = 3;
constexpr int kRatioDecimals = 4;

std::vector<std::string> problem_fields(const Problem& problem) {
  return {std::to_string(problem.shape.m), std::to_string(problem.shape.n),
          std::to_string(problem.shape.k), std::string(to_string(problem.layout)),
          std::string(to_string(problem.accum))};
}

std::string bench_row(const ShapeView& shape, const ProviderTiming& timing, bool with_route) {
  const GemmShape& gemm = shape.problem().shape;
  std::vector<std::string> fields = problem_fields(shape.problem());
  fields.insert(fields.end(), {std::string(to_string(size_class(gemm))),
                               std::string(to_string(timing.provider)), timing.mode,
                               std::to_string(timing.interval_ms)});
  for (const Figure figure : {Figure::Gpu, Figure::Wall}) {
    const FigureTiming t = figure_timing(timing, figure);
    fields.insert(fields.end(), {csv_number(t.us, kMicrosDecimals),
                                 csv_number(t.spread_pct, kMicrosDecimals),
                                 std::to_string(t.samples)});
  }
  fields.push_back(csv_number(tflops(gemm, timing.gpu_us), kRatioDecimals));
  fields.push_back(csv_number(gbps(gemm, timing.gpu_us), kRatioDecimals));
  if (with_route) {
    const auto& route = shape.bench().runtime_route;
    const bool routed = timing.provider == Provider::Runtime && route;
    fields.push_back(routed ? route->route : "");
    fields.push_back(routed ? route->detail : "");
    fields.push_back(routed ? route->chosen_by : "");
  }
  return csv_line(fields);
}

// A column of speedups.csv: ours over each baseline per figure ("gpu_vs_torch", the names they
// always had), then, with the runtime, its speedups ("gpu_runtime_vs_ours").
struct SpeedupColumn {
  Figure figure;
  Comparison comparison;
  std::string name;
};

std::vector<SpeedupColumn> speedup_columns(bool with_runtime) {
  std::vector<SpeedupColumn> columns;
  for (const Figure figure : {Figure::Gpu, Figure::Wall})
    for (const auto& baseline : speedup_baselines())
      columns.push_back(
          {figure, {Provider::Ours, baseline}, fmt::format("{}_vs_{}", to_string(figure), to_string(baseline))});
  if (with_runtime)
    for (const Figure figure : {Figure::Gpu, Figure::Wall})
      for (const auto& comparison : runtime_comparisons())
        columns.push_back({figure, comparison, fmt::format("{}_{}", to_string(figure), comparison.name())});
  return columns;
}

std::string speedups_header(bool with_runtime) {
  std::vector<std::string> names = {"mnk", "layout", "accum", "mode", "interval_ms"};
  for (const auto& column : speedup_columns(with_runtime)) names.push_back(column.name);
  return csv_line(names);
}

bool measured_in(const ShapeView& shape, const BenchMode& mode) {
  for (const auto& timing : shape.timings())
    if (mode.matches(timing)) return true;
  return false;
}

std::string speedups_row(const ShapeView& shape, const BenchMode& mode, bool with_runtime) {
  const Problem& problem = shape.problem();
  std::vector<std::string> fields = {
      fmt::format("{}_{}_{}", problem.shape.m, problem.shape.n, problem.shape.k),
      std::string(to_string(problem.layout)), std::string(to_string(problem.accum)), mode.mode,
      std::to_string(mode.interval_ms)};
  for (const auto& column : speedup_columns(with_runtime))
    fields.push_back(csv_number(shape.speedup(column.comparison, mode, column.figure), kRatioDecimals));
  return csv_line(fields);
}

}  // namespace

std::string csv_number(double value, int decimals) {
  return std::isfinite(value) ? fmt::format("{:.{}f}", value, decimals) : "";
}

std::string render_bench_csv(const BenchView& view) {
  std::string out = std::string(kBenchHeader) + std::string(view.has_runtime ? kRuntimeHeader : "") + "\n";
  for (const auto& shape : view.shapes)
    for (const auto& timing : shape.timings()) out += bench_row(shape, timing, view.has_runtime);
  return out;
}

std::string render_speedups_csv(const BenchView& view) {
  std::string out = speedups_header(view.has_runtime);
  for (const auto& shape : view.shapes)
    for (const auto& mode : view.modes)
      if (measured_in(shape, mode)) out += speedups_row(shape, mode, view.has_runtime);
  return out;
}

}  // namespace cl2
