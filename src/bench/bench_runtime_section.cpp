#include "bench/bench_runtime_section.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "bench/bench_summary_sections.hpp"
#include "bench/bench_summary_tables.hpp"
#include "report/speedup_stats.hpp"
#include "report/text_table.hpp"

namespace cl2 {
namespace {

// The runtime's per-shape table lists the shapes slowest against ours first, up to this many.
constexpr std::size_t kListedShapes = 50;

const Comparison kOursVsAutotune{Provider::Ours, Provider::CublasltAutotune};

// The runtime's comparisons, then ours over cuBLASLt-autotune beside them: the summary's two
// separate answers to "how fast against the library" (what the runtime dispatches; ours alone).
std::vector<Comparison> comparisons() {
  std::vector<Comparison> all = runtime_comparisons();
  all.push_back(kOursVsAutotune);
  return all;
}

std::string intro(const BenchView& view) {
  return fmt::format(
      "\n## The runtime library (libcl2) against our kernels alone\n\n"
      "`runtime` is libcl2's dispatch as a program calls it, host cost included, from {}: a tuned "
      "shape's own winner (or the cuBLASLt algorithm its tuning timed faster), else, of the winners "
      "of the nearest tuned shapes that are valid for it (split-K re-chosen where the same kernel "
      "runs it), the fastest of the cost model's first few timed at the shape's first call, beside "
      "the first kernels tune would plan at the shape where the runtime can compile them, opened "
      "from a database (`nearest-timed`, `planned-timed`; the model's first alone where timing is "
      "off: `nearest-model`), else cuBLASLt's heuristic. "
      "`ours` is each shape's winner in the benched database, launched directly; the tables above "
      "are ours alone. Every runtime output was verified like ours before it was timed. X vs Y = "
      "Y's time / X's time (above 1: X is faster).\n\n",
      view.run->runtime_db.empty() ? "its database" : "`" + view.run->runtime_db + "`");
}

// "- runtime (libcl2) vs ours, offline GPU time: geomean 0.953 (mean 0.960, min 0.801) over 20
// shapes": one line per comparison, for scripts to find.
std::string headline(const BenchView& view, const BenchMode& mode) {
  std::string out;
  for (const Comparison& c : comparisons()) {
    std::vector<double> ratios;
    for (const auto& shape : view.shapes) ratios.push_back(shape.speedup(c, mode, Figure::Gpu));
    const SpeedupStats stats = speedup_stats(ratios);
    out += stats.count == 0 ? fmt::format("- {}, {} GPU time: no shape has both\n", c.title(), mode.label())
                            : fmt::format("- {}, {} GPU time: geomean {:.3f} (mean {:.3f}, min {:.3f}) over {} "
                                          "shapes\n",
                                          c.title(), mode.label(), stats.geomean, stats.mean, stats.min, stats.count);
  }
  return out;
}

std::string tables(const BenchView& view) {
  std::vector<SummaryColumn> columns;
  for (const Comparison& c : comparisons()) columns.push_back({c.title(), c});
  std::string out;
  for (const Figure figure : {Figure::Gpu, Figure::Wall})
    out += fmt::format("\n### Runtime speedups, {}\n\n{}", figure_title(figure),
                       speedup_table("mode", mode_rows(view), figure, columns, Provider::Runtime));
  return out;
}

// "ours_exact 1, ours_nearest 2": how many shapes had each value of `field`, where recorded.
std::string counts_of(const BenchView& view, std::string RuntimeRoute::*field) {
  std::map<std::string, int> counts;
  for (const auto& shape : view.shapes)
    if (const auto& route = shape.bench().runtime_route; route && !((*route).*field).empty())
      ++counts[(*route).*field];
  std::vector<std::string> parts;
  for (const auto& [value, count] : counts) parts.push_back(fmt::format("{} {}", value, count));
  return fmt::format("{}", fmt::join(parts, ", "));
}

// "Routes: ours_exact 1, ours_nearest 2; chosen: exact 1, nearest-timed 2.": the second part only
// where the run recorded how the runtime chose.
std::string route_counts(const BenchView& view) {
  const std::string routes = counts_of(view, &RuntimeRoute::route);
  const std::string chosen = counts_of(view, &RuntimeRoute::chosen_by);
  return fmt::format("Routes: {}{}.\n", routes.empty() ? "none recorded" : routes,
                     chosen.empty() ? "" : "; chosen: " + chosen);
}

std::string routes_table(const BenchView& view, const BenchMode& mode) {
  std::vector<const ShapeView*> shapes;
  for (const auto& shape : view.shapes)
    if (shape.bench().runtime_route || shape.find(Provider::Runtime, mode)) shapes.push_back(&shape);
  // Slowest against ours first; shapes without that speedup (no winner of ours) after them.
  auto key = [&](const ShapeView* shape) {
    const double speedup = shape->speedup(kRuntimeVsOurs, mode, Figure::Gpu);
    return std::isnan(speedup) ? HUGE_VAL : speedup;
  };
  std::stable_sort(shapes.begin(), shapes.end(), [&](auto* a, auto* b) { return key(a) < key(b); });
  const std::size_t total = shapes.size();
  shapes.resize(std::min(total, kListedShapes));
  TextTable table({{"shape", Align::Left},
                   {"route", Align::Left},
                   {"chosen", Align::Left},
                   {"the runtime's choice", Align::Left},
                   {"runtime µs"},
                   {"ours µs"},
                   {"vs ours"},
                   {"cuBLASLt-autotune µs"},
                   {"vs cuBLASLt-autotune"}});
  for (const ShapeView* shape : shapes) {
    const auto& route = shape->bench().runtime_route;
    table.add_row({shape->problem().text(), route ? route->route : "-",
                   route && !route->chosen_by.empty() ? route->chosen_by : "-", route ? route->detail : "-",
                   format_fixed(shape->time_us(Provider::Runtime, mode, Figure::Gpu), 3),
                   format_fixed(shape->time_us(Provider::Ours, mode, Figure::Gpu), 3),
                   format_speedup(shape->speedup(kRuntimeVsOurs, mode, Figure::Gpu)),
                   format_fixed(shape->time_us(Provider::CublasltAutotune, mode, Figure::Gpu), 3),
                   format_speedup(shape->speedup(kRuntimeVsAutotune, mode, Figure::Gpu))});
  }
  const std::string which =
      total > shapes.size()
          ? fmt::format("the {} slowest against ours of {}; bench.csv has every route", shapes.size(), total)
          : "slowest against ours first";
  return fmt::format("\n### Where the runtime sent each shape ({} GPU time; {})\n\n{}\n{}", mode.label(), which,
                     route_counts(view), table.markdown());
}

}  // namespace

std::string runtime_section(const BenchView& view) {
  if (!view.has_runtime) return "";
  // Offline where it was measured (modes come offline first), else the first server gap.
  const BenchMode mode = view.modes.empty() ? offline_mode() : view.modes.front();
  return intro(view) + headline(view, mode) + tables(view) + routes_table(view, mode);
}

}  // namespace cl2
