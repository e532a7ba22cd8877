// summary.md: what the run was measured on, then CUDA-L2's table (speedups per mode, per-call wall
// time first because that is how CUDA-L2 measures, then GPU time), the same split by size class,
// the runtime library's section where it was benched, the best and worst shapes, throughput
// against the measured peaks, and the shapes not tuned.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "bench/bench_renderers.hpp"
#include "bench/bench_runtime_section.hpp"
#include "bench/bench_summary_sections.hpp"
#include "bench/bench_summary_tables.hpp"
#include "bench/bench_traces.hpp"

namespace cl2 {
namespace {

// The baselines of CUDA-L2's summary table, in its column order.
const std::vector<Provider>& summary_baselines() {
  static const std::vector<Provider> providers = {Provider::Torch, Provider::CublasMax,
                                                  Provider::CublasltHeuristic, Provider::CublasltAutotune};
  return providers;
}

std::string peak_text(double value, const char* unit, const char* how) {
  return std::isfinite(value) && value > 0 ? fmt::format("{:.1f} {} ({})", value, unit, how)
                                           : fmt::format("not measured ({})", unit);
}

std::string l2_policy_text(L2Policy policy) {
  switch (policy) {
    case L2Policy::Warm: return "warm (the same inputs every call, resident in L2 where they fit)";
    case L2Policy::Rotate:
      return "rotate (calls back to back, cycling through copies of A, B and C larger than 3x the L2: "
             "operands come from DRAM; our sm90 kernels are launched to overlap the previous call, their "
             "weights requested while it finishes (programmatic dependent launch), as are the runtime's, "
             "opened as a program whose weights no kernel writes (CL2_OPEN_WEIGHTS_READ_ONLY); the libraries' "
             "calls are launched plainly)";
    case L2Policy::Flush: return "cold (inputs are not resident in L2 when a call starts)";
  }
  return "?";
}

std::string shape_counts(const BenchView& view) {
  int by_class[3] = {0, 0, 0}, tuned = 0;
  for (const auto& shape : view.shapes) {
    ++by_class[static_cast<int>(size_class(shape.problem().shape))];
    tuned += shape.bench().has_winner ? 1 : 0;
  }
  const int total = static_cast<int>(view.shapes.size());
  return fmt::format("{} (small {}, mid {}, large {}); tuned {}, not tuned {}", total, by_class[0],
                     by_class[1], by_class[2], tuned, total - tuned);
}

std::string device_section(const BenchView& view) {
  const BenchRun& run = *view.run;
  const DeviceInfo& d = run.device;
  std::vector<std::string> modes;
  for (const auto& mode : view.modes) modes.push_back(mode.label());
  std::string out = "# cuda-l2-tune bench: ours vs torch.matmul, cuBLAS and cuBLASLt\n\n";
  out += fmt::format("- GPU: {}, sm_{}{}, {} SMs, {} MB L2\n", d.name, d.cc_major, d.cc_minor,
                     d.num_sms, d.l2_bytes >> 20);
  out += fmt::format("- Clocks (rated): SM {} MHz, memory {} MHz\n", d.sm_clock_mhz, d.mem_clock_mhz);
  out += fmt::format("- Software: driver {}, CUDA runtime {}, cuBLAS {}, NVRTC {}\n",
                     d.driver_version, d.cuda_runtime_version, d.cublas_version, d.nvrtc_version);
  out += fmt::format("- Measured at: {}\n", run.measured_at);
  out += fmt::format("- Measured peaks: {}; {}{}\n",
                     peak_text(run.peak_tflops, "TFLOP/s", "cuBLAS fp16 GEMM 8192³, fp32 accumulation"),
                     peak_text(run.peak_gbps, "GB/s", "device-to-device copy, bytes read + written"),
                     run.read_gbps > 0 ? "; " + peak_text(run.read_gbps, "GB/s", "read-only streaming kernel, 1 GiB")
                                       : std::string());
  out += "- L2: " + l2_policy_text(run.l2) + "\n";
  out += fmt::format("- Shapes: {}\n", shape_counts(view));
  out += fmt::format("- Modes: {}\n", fmt::join(modes, ", "));
  return out;
}

bool torch_timed_with_f16_accum(const BenchView& view) {
  return std::any_of(view.shapes.begin(), view.shapes.end(), [&](const ShapeView& shape) {
    if (shape.problem().accum != Accum::F16) return false;
    for (const auto& mode : view.modes)
      if (shape.find(Provider::Torch, mode)) return true;
    return false;
  });
}

std::string reading_guide(const BenchView& view) {
  std::string out =
      "Speedup = baseline time / our time for one shape (above 1: ours is faster). Each cell is "
      "the geometric mean (arithmetic mean in parentheses) over the shapes where both were "
      "measured; \"[n shapes]\" follows when that is fewer than the row's shapes, the shapes with "
      "a time of ours. cuBLAS-max is the faster of cuBLAS NN and TN, per shape and figure. "
      "Offline: calls back to back; server N ms: each call alone after an idle gap of N ms. Size "
      "classes by 2·M·N·K: small < 2·512³, mid < 2·4096³, large from there.\n";
  if (torch_timed_with_f16_accum(view))
    out += "\ntorch.matmul has no fp16-accumulation switch: on f16-accum shapes it runs with its "
           "default (fp32 accumulation).\n";
  return out;
}

// CUDA-L2's columns: our speedup over each of its baselines.
std::vector<SummaryColumn> ours_columns() {
  std::vector<SummaryColumn> columns;
  for (const auto& baseline : summary_baselines())
    columns.push_back({fmt::format("vs {}", provider_title(baseline)), {Provider::Ours, baseline}});
  return columns;
}

std::string mode_tables(const BenchView& view) {
  std::string out;
  for (const Figure figure : {Figure::Wall, Figure::Gpu})
    out += fmt::format("\n## {}\n\n{}", figure_title(figure),
                       speedup_table("mode", mode_rows(view), figure, ours_columns(), Provider::Ours));
  return out;
}

std::string size_class_tables(const BenchView& view) {
  std::string out = "\n## By size class (offline)\n";
  if (!has_offline(view)) return out + "\nNo offline timings in this run.\n";
  std::vector<SpeedupRow> rows;
  for (const SizeClass size : {SizeClass::Small, SizeClass::Mid, SizeClass::Large}) {
    SpeedupRow row{std::string(to_string(size)), offline_mode(), {}};
    for (const auto& shape : view.shapes)
      if (size_class(shape.problem().shape) == size) row.shapes.push_back(&shape);
    rows.push_back(std::move(row));
  }
  rows.push_back({"all", offline_mode(), all_shapes(view)});
  for (const Figure figure : {Figure::Wall, Figure::Gpu})
    out += fmt::format("\n### {}\n\n{}", figure_title(figure),
                       speedup_table("class", rows, figure, ours_columns(), Provider::Ours));
  return out;
}

}  // namespace

std::string render_bench_summary(const BenchView& view) {
  return device_section(view) + "\n" + reading_guide(view) + mode_tables(view) +
         size_class_tables(view) + runtime_section(view) + best_and_worst_section(view) +
         throughput_section(view) + bandwidth_section(view) + trace_section(view) + untuned_section(view);
}

}  // namespace cl2
