#include "core/limiter.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <utility>
#include <vector>

namespace cl2 {

std::string_view to_string(Limiter limiter) {
  switch (limiter) {
    case Limiter::TensorPipe: return "tensor pipe";
    case Limiter::Dram: return "DRAM";
    case Limiter::L2: return "L2";
    case Limiter::Latency: return "latency";
    case Limiter::Unknown: break;
  }
  return "unknown";
}

LimiterVerdict judge_limiter(const CallCounters& counters) {
  if (!counters.measured()) return {Limiter::Unknown, "no counters: " + counters.absent};
  constexpr std::array<std::pair<Limiter, CounterMetric>, 3> kUnits = {{
      {Limiter::TensorPipe, CounterMetric::TensorActivePct},
      {Limiter::Dram, CounterMetric::DramThroughputPct},
      {Limiter::L2, CounterMetric::L2ThroughputPct},
  }};
  std::vector<std::pair<Limiter, double>> units;
  for (const auto& [unit, metric] : kUnits)
    if (const double pct = counters.value(metric); std::isfinite(pct)) units.emplace_back(unit, pct);
  if (units.empty()) return {Limiter::Unknown, "none of tensor pipe, DRAM, L2 utilization was collected"};
  std::size_t busiest = 0;
  for (std::size_t i = 1; i < units.size(); ++i)
    if (units[i].second > units[busiest].second) busiest = i;
  std::vector<std::string> others;
  for (std::size_t i = 0; i < units.size(); ++i)
    if (i != busiest) others.push_back(fmt::format("{} {:.0f}%", to_string(units[i].first), units[i].second));
  const std::string rest = others.empty() ? "" : fmt::format(" ({})", fmt::join(others, ", "));
  const auto& [unit, pct] = units[busiest];
  if (pct >= kBusyPct) return {unit, fmt::format("{} {:.0f}% of peak{}", to_string(unit), pct, rest)};
  return {Limiter::Latency, fmt::format("no unit at {:.0f}% of peak: busiest {} {:.0f}%{}", kBusyPct,
                                        to_string(unit), pct, rest)};
}

}  // namespace cl2
