#include "bench/bench_summary_sections.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/text_table.hpp"

namespace cl2 {
namespace {

constexpr std::size_t kListedShapes = 10;
constexpr Provider kAutotune = Provider::CublasltAutotune;

struct RankedShape {
  const ShapeView* shape;
  double speedup;
};

// Shapes with an offline GPU-time speedup over cuBLASLt-autotune, fastest first; ties keep the
// run's order.
std::vector<RankedShape> ranked_vs_autotune(const BenchView& view) {
  std::vector<RankedShape> ranked;
  for (const auto& shape : view.shapes) {
    const double speedup = shape.speedup(kAutotune, offline_mode(), Figure::Gpu);
    if (std::isfinite(speedup)) ranked.push_back({&shape, speedup});
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.speedup > b.speedup; });
  return ranked;
}

std::string winner_text(const ShapeBench& bench) {
  return bench.has_winner ? bench.winner_family : "-";
}

template <typename Iterator>
std::string ranked_table(Iterator first, Iterator last) {
  TextTable table({{"#"},
                   {"shape", Align::Left},
                   {"class", Align::Left},
                   {"winner", Align::Left},
                   {"ours µs"},
                   {"cuBLASLt-autotune µs"},
                   {"speedup"}});
  int rank = 0;
  for (auto it = first; it != last && rank < int(kListedShapes); ++it) {
    const ShapeView& shape = *it->shape;
    table.add_row({std::to_string(++rank), shape.problem().text(),
                   std::string(to_string(size_class(shape.problem().shape))),
                   winner_text(shape.bench()),
                   format_fixed(shape.time_us(Provider::Ours, offline_mode(), Figure::Gpu), 3),
                   format_fixed(shape.time_us(kAutotune, offline_mode(), Figure::Gpu), 3),
                   format_speedup(it->speedup)});
  }
  return table.markdown();
}

// "512.3 (64.8%)": a rate and its share of the measured peak; the share is left out where the
// peak was not measured.
std::string rate_cell(double rate, double peak) {
  if (!std::isfinite(rate)) return "-";
  if (!(peak > 0)) return format_fixed(rate, 1);
  return fmt::format("{:.1f} ({:.1f}%)", rate, 100.0 * rate / peak);
}

std::string shape_list(const std::vector<const ShapeView*>& shapes) {
  std::vector<std::string> names;
  for (const ShapeView* shape : shapes) names.push_back(shape->problem().text());
  return fmt::format("{}", fmt::join(names, ", "));
}

bool has_timing_of_ours(const ShapeView& shape) {
  return std::any_of(shape.timings().begin(), shape.timings().end(),
                     [](const ProviderTiming& t) { return t.provider == Provider::Ours; });
}

}  // namespace

BenchMode offline_mode() { return {"offline", 0}; }

bool has_offline(const BenchView& view) {
  return std::find(view.modes.begin(), view.modes.end(), offline_mode()) != view.modes.end();
}

std::string best_and_worst_section(const BenchView& view) {
  std::string out = "\n## Best and worst shapes vs cuBLASLt-autotune (offline GPU time)\n";
  const std::vector<RankedShape> ranked = ranked_vs_autotune(view);
  if (ranked.empty()) return out + "\nNo shape has offline GPU times of both.\n";
  out += fmt::format("\n### {} best\n\n{}", std::min(kListedShapes, ranked.size()),
                     ranked_table(ranked.begin(), ranked.end()));
  out += fmt::format("\n### {} worst\n\n{}", std::min(kListedShapes, ranked.size()),
                     ranked_table(ranked.rbegin(), ranked.rend()));
  return out;
}

std::string throughput_section(const BenchView& view) {
  std::vector<const ShapeView*> largest;
  for (const auto& shape : view.shapes) largest.push_back(&shape);
  std::stable_sort(largest.begin(), largest.end(), [](const ShapeView* a, const ShapeView* b) {
    return a->problem().shape.flops() > b->problem().shape.flops();
  });
  largest.resize(std::min(largest.size(), kListedShapes));

  const BenchRun& run = *view.run;
  TextTable table({{"shape", Align::Left},
                   {"ours TFLOP/s (% of peak)"},
                   {"cuBLASLt-autotune TFLOP/s (% of peak)"},
                   {"ours GB/s (% of peak)"},
                   {"cuBLASLt-autotune GB/s (% of peak)"}});
  for (const ShapeView* shape : largest) {
    const GemmShape& gemm = shape->problem().shape;
    const double ours_us = shape->time_us(Provider::Ours, offline_mode(), Figure::Gpu);
    const double autotune_us = shape->time_us(kAutotune, offline_mode(), Figure::Gpu);
    table.add_row({shape->problem().text(), rate_cell(tflops(gemm, ours_us), run.peak_tflops),
                   rate_cell(tflops(gemm, autotune_us), run.peak_tflops),
                   rate_cell(gbps(gemm, ours_us), run.peak_gbps),
                   rate_cell(gbps(gemm, autotune_us), run.peak_gbps)});
  }
  return fmt::format("\n## Throughput of the {} largest shapes (offline GPU time)\n\nBytes = fp16 "
                     "A and B read and C written once: 2·(MK + KN + MN).\n\n{}",
                     largest.size(), table.markdown());
}

std::string bandwidth_section(const BenchView& view) {
  const BenchRun& run = *view.run;
  if (run.l2 == L2Policy::Warm || !has_offline(view)) return "";
  TextTable table({{"shape", Align::Left},
                   {"MB"},
                   {"ours µs"},
                   {"ours GB/s (% of read)"},
                   {"cuBLASLt-autotune µs"},
                   {"cuBLASLt-autotune GB/s (% of read)"}});
  for (const auto& shape : view.shapes) {
    const GemmShape& gemm = shape.problem().shape;
    const double ours_us = shape.time_us(Provider::Ours, offline_mode(), Figure::Gpu);
    const double autotune_us = shape.time_us(kAutotune, offline_mode(), Figure::Gpu);
    table.add_row({shape.problem().text(), format_fixed(double(gemm.operand_bytes()) / 1e6, 1),
                   format_fixed(ours_us, 2), rate_cell(gbps(gemm, ours_us), run.read_gbps),
                   format_fixed(autotune_us, 2), rate_cell(gbps(gemm, autotune_us), run.read_gbps)});
  }
  return fmt::format("\n## Bandwidth per shape (offline GPU time, L2 {})\n\nBytes = fp16 A and B read and "
                     "C written once: 2·(MK + KN + MN). Read = {} GB/s, what a kernel that only reads "
                     "streamed from DRAM in this run.\n\n{}",
                     to_string(run.l2), format_fixed(run.read_gbps, 0), table.markdown());
}

std::string untuned_section(const BenchView& view) {
  std::vector<const ShapeView*> not_tuned, not_timed;
  for (const auto& shape : view.shapes) {
    if (!shape.bench().has_winner) not_tuned.push_back(&shape);
    else if (!has_timing_of_ours(shape)) not_timed.push_back(&shape);
  }
  std::string out = "\n## Shapes without our kernel\n\n";
  out += not_tuned.empty() ? "Not tuned: none; every shape has a winner.\n"
                           : fmt::format("Not tuned (no winner; left out of every speedup above): "
                                         "{}\n",
                                         shape_list(not_tuned));
  if (!not_timed.empty())
    out += fmt::format("\nTuned but not timed (a winner, no timing of ours): {}\n",
                       shape_list(not_timed));
  return out;
}

}  // namespace cl2
