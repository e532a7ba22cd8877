#include "report/winner_summary.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/kernel_config.hpp"

namespace cl2 {

std::vector<DeviceWinners> group_by_device(const std::vector<WinnerRow>& rows) {
  std::vector<DeviceWinners> groups;
  for (const auto& row : rows) {
    const std::string fingerprint = row.device.fingerprint();
    auto group = std::find_if(groups.begin(), groups.end(), [&](const DeviceWinners& g) {
      return g.device.fingerprint() == fingerprint;
    });
    if (group == groups.end()) group = groups.insert(groups.end(), DeviceWinners{row.device, {}});
    group->rows.push_back(row);
  }
  return groups;
}

std::vector<ClassSummary> summarize_by_size_class(const std::vector<WinnerRow>& rows) {
  auto summarize = [&](std::string_view name, auto in_class) {
    ClassSummary summary;
    summary.name = name;
    std::vector<double> vs_cublas_max, vs_autotune;
    for (const auto& row : rows) {
      if (!in_class(row)) continue;
      ++summary.shapes;
      vs_cublas_max.push_back(row.winner.speedup_vs_cublas_max());
      vs_autotune.push_back(row.winner.speedup_vs_cublaslt_autotune());
    }
    summary.vs_cublas_max = speedup_stats(vs_cublas_max);
    summary.vs_cublaslt_autotune = speedup_stats(vs_autotune);
    return summary;
  };
  std::vector<ClassSummary> summaries{summarize("overall", [](const WinnerRow&) { return true; })};
  for (const SizeClass size : {SizeClass::Small, SizeClass::Mid, SizeClass::Large})
    summaries.push_back(summarize(to_string(size), [size](const WinnerRow& row) {
      return size_class(row.winner.problem.shape) == size;
    }));
  return summaries;
}

bool any_not_warm(const std::vector<WinnerRow>& rows) {
  return std::any_of(rows.begin(), rows.end(),
                     [](const WinnerRow& row) { return row.winner.problem.l2 != L2Policy::Warm; });
}

double tflops(const WinnerRecord& winner) {
  return winner.problem.shape.flops() / winner.time_us * 1e-6;  // FLOP per µs = 1e-6 TFLOP/s
}

std::string config_params_text(const std::string& config_json) {
  std::string text;
  for (const auto& [name, value] : KernelConfig::from_json(config_json).params)
    text += fmt::format("{}{}={}", text.empty() ? "" : " ", name, value);
  return text;
}

}  // namespace cl2
