#include "bench/bench_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "core/errors.hpp"

namespace cl2 {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool faster(double candidate_us, double current_us) {
  return !std::isnan(candidate_us) && (std::isnan(current_us) || candidate_us < current_us);
}

// cuBLAS-max as CUDA-L2 defines it: the faster of NN and TN, chosen per figure (NN may win the
// GPU time while TN wins the wall time). Either may be missing, not both.
ProviderTiming cublas_max(const ProviderTiming* nn, const ProviderTiming* tn) {
  ProviderTiming best = nn ? *nn : *tn;
  best.provider = Provider::CublasMax;
  if (nn && tn)
    for (const Figure figure : {Figure::Wall, Figure::Gpu})
      if (faster(figure_timing(*tn, figure).us, figure_timing(best, figure).us))
        set_figure_timing(best, figure, figure_timing(*tn, figure));
  return best;
}

std::size_t provider_rank(Provider provider) {
  const auto& order = report_providers();
  return static_cast<std::size_t>(std::find(order.begin(), order.end(), provider) - order.begin());
}

BenchMode mode_of(const ProviderTiming& timing) { return {timing.mode, timing.interval_ms}; }

}  // namespace

std::string_view to_string(Figure figure) { return figure == Figure::Wall ? "wall" : "gpu"; }

FigureTiming figure_timing(const ProviderTiming& t, Figure figure) {
  if (figure == Figure::Wall) return {t.wall_us, t.wall_spread_pct, t.wall_samples};
  return {t.gpu_us, t.gpu_spread_pct, t.gpu_samples};
}

void set_figure_timing(ProviderTiming& t, Figure figure, const FigureTiming& value) {
  if (figure == Figure::Wall) {
    t.wall_us = value.us, t.wall_spread_pct = value.spread_pct, t.wall_samples = value.samples;
  } else {
    t.gpu_us = value.us, t.gpu_spread_pct = value.spread_pct, t.gpu_samples = value.samples;
  }
}

std::string BenchMode::label() const {
  return mode == "server" ? fmt::format("server {} ms", interval_ms) : mode;
}

bool BenchMode::matches(const ProviderTiming& timing) const {
  return timing.mode == mode && timing.interval_ms == interval_ms;
}

const std::vector<Provider>& report_providers() {
  static const std::vector<Provider> providers = [] {
    std::vector<Provider> order = bench_providers();
    const auto tn = std::find(order.begin(), order.end(), Provider::CublasTn);
    order.insert(tn + 1, Provider::CublasMax);
    return order;
  }();
  return providers;
}

const std::vector<Provider>& speedup_baselines() {
  static const std::vector<Provider> providers = {Provider::Torch,     Provider::CublasNn,
                                                  Provider::CublasTn,  Provider::CublasMax,
                                                  Provider::CublasltHeuristic, Provider::CublasltAutotune};
  return providers;
}

std::string Comparison::name() const { return fmt::format("{}_vs_{}", to_string(subject), to_string(baseline)); }

std::string Comparison::title() const {
  return fmt::format("{} vs {}", provider_title(subject), provider_title(baseline));
}

const std::vector<Comparison>& runtime_comparisons() {
  static const std::vector<Comparison> comparisons = {kRuntimeVsOurs, kRuntimeVsAutotune};
  return comparisons;
}

ShapeView::ShapeView(const ShapeBench& bench) : bench_(&bench), timings_(bench.timings) {
  std::set<BenchMode> modes;
  for (const auto& timing : bench.timings) modes.insert(mode_of(timing));
  for (const auto& mode : modes) {
    const ProviderTiming* nn = find(Provider::CublasNn, mode);
    const ProviderTiming* tn = find(Provider::CublasTn, mode);
    if (nn || tn) timings_.push_back(cublas_max(nn, tn));  // may reallocate: nn, tn die here
  }
  std::stable_sort(timings_.begin(), timings_.end(), [](const auto& a, const auto& b) {
    return std::pair(mode_of(a), provider_rank(a.provider)) <
           std::pair(mode_of(b), provider_rank(b.provider));
  });
}

const ProviderTiming* ShapeView::find(Provider provider, const BenchMode& mode) const {
  for (const auto& timing : timings_)
    if (timing.provider == provider && mode.matches(timing)) return &timing;
  return nullptr;
}

double ShapeView::time_us(Provider provider, const BenchMode& mode, Figure figure) const {
  const ProviderTiming* timing = find(provider, mode);
  if (!timing) return kNaN;
  const double us = figure_timing(*timing, figure).us;
  return us > 0 ? us : kNaN;  // a zero is a figure that was never filled in
}

double ShapeView::speedup(Provider baseline, const BenchMode& mode, Figure figure) const {
  return speedup({Provider::Ours, baseline}, mode, figure);
}

double ShapeView::speedup(const Comparison& c, const BenchMode& mode, Figure figure) const {
  return time_us(c.baseline, mode, figure) / time_us(c.subject, mode, figure);  // NaN propagates
}

BenchView make_bench_view(const BenchRun& run) {
  BenchView view{&run, {}, {}};
  std::set<BenchMode> modes;
  for (const auto& shape : run.shapes) {
    view.shapes.emplace_back(shape);
    view.has_runtime = view.has_runtime || shape.runtime_route.has_value();
    for (const auto& timing : shape.timings) {
      modes.insert(mode_of(timing));
      view.has_runtime = view.has_runtime || timing.provider == Provider::Runtime;
    }
  }
  view.modes.assign(modes.begin(), modes.end());
  return view;
}

double tflops(const GemmShape& shape, double time_us) { return shape.flops() / time_us / 1e6; }

double gbps(const GemmShape& shape, double time_us) { return double(shape.operand_bytes()) / time_us / 1e3; }

void validate_bench_run(const BenchRun& run, const std::string& source) {
  if (run.shapes.empty())
    throw UserError(fmt::format("{}: no shapes to report; bench a shapes file with at least one shape",
                                source));
  const auto& providers = bench_providers();
  for (const auto& shape : run.shapes) {
    std::set<std::pair<Provider, BenchMode>> seen;
    for (const auto& timing : shape.timings) {
      const std::string where = fmt::format("{}: shape {}, provider '{}', mode '{}'", source,
                                            shape.problem.text(), to_string(timing.provider), timing.mode);
      if (std::find(providers.begin(), providers.end(), timing.provider) == providers.end())
        throw UserError(fmt::format("{}: derived from other timings, not measured; use one of {}", where,
                                    provider_names(providers)));
      const bool offline = timing.mode == "offline" && timing.interval_ms == 0;
      const bool server = timing.mode == "server" && timing.interval_ms > 0;
      if (!offline && !server)
        throw UserError(fmt::format("{}, interval {} ms: use mode offline with interval 0 or mode "
                                    "server with an interval above 0",
                                    where, timing.interval_ms));
      if (!seen.emplace(timing.provider, mode_of(timing)).second)
        throw UserError(fmt::format("{}, interval {} ms: timed twice; keep one timing per provider "
                                    "and mode",
                                    where, timing.interval_ms));
    }
  }
}

}  // namespace cl2
