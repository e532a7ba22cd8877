#include "report/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace cl2 {

namespace {

using DeviceKey = std::tuple<std::string, int, int>;  // name, compute capability, SM count

DeviceKey device_key(const DeviceInfo& d) { return {d.name, d.cc(), d.num_sms}; }

// A shape's warm and rotated winners are two rows, each compared with its own kind.
using ProblemKey = std::tuple<std::int64_t, std::int64_t, std::int64_t, int, int, int>;

ProblemKey problem_key(const Problem& p) {
  return {p.shape.m, p.shape.n, p.shape.k, int(p.layout), int(p.accum), int(p.l2)};
}

std::vector<std::string> version_changes(const DeviceInfo& a, const DeviceInfo& b) {
  std::vector<std::string> out;
  const std::tuple<const char*, const std::string&, const std::string&> fields[] = {
      {"driver (CUDA version it supports)", a.driver_version, b.driver_version},
      {"CUDA runtime", a.cuda_runtime_version, b.cuda_runtime_version},
      {"cuBLAS", a.cublas_version, b.cublas_version},
      {"NVRTC", a.nvrtc_version, b.nvrtc_version}};
  for (const auto& [name, before, after] : fields)
    if (before != after) out.push_back(fmt::format("{} {} -> {}", name, before, after));
  return out;
}

double speedup_vs_lt(const WinnerRow& row) { return row.winner.speedup_vs_cublaslt_autotune(); }

ShapeComparison judge(const WinnerRow& before, const WinnerRow& after, const CompareOptions& options) {
  ShapeComparison c;
  c.problem = after.winner.problem;
  c.before = &before;
  c.after = &after;
  const auto spread = [](double pct) { return std::isfinite(pct) ? pct : 0.0; };
  const double noise = std::hypot(spread(before.winner.spread_pct), spread(after.winner.spread_pct));
  c.threshold_pct = std::max(options.min_change_pct, options.noise_factor * noise);
  c.ours_change_pct = 100.0 * (after.winner.time_us / before.winner.time_us - 1.0);
  const double speedup_before = speedup_vs_lt(before), speedup_after = speedup_vs_lt(after);
  c.speedup_change_pct = std::isfinite(speedup_before) && std::isfinite(speedup_after)
                             ? 100.0 * (speedup_after / speedup_before - 1.0)
                             : 0.0;
  if (before.kernel.config_json != after.kernel.config_json) c.kernel_change = "other configuration";
  else if (before.kernel.source_hash != after.kernel.source_hash) c.kernel_change = "template source changed";
  if (!std::isfinite(c.ours_change_pct)) c.verdict = Verdict::Regressed;  // a time went missing
  else if (c.ours_change_pct > c.threshold_pct) c.verdict = Verdict::Regressed;
  else if (c.speedup_change_pct < -c.threshold_pct) c.verdict = Verdict::LibraryAhead;
  else if (c.ours_change_pct < -c.threshold_pct || c.speedup_change_pct > c.threshold_pct)
    c.verdict = Verdict::Improved;
  return c;
}

}  // namespace

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::Unchanged: return "unchanged";
    case Verdict::Improved: return "improved";
    case Verdict::Regressed: return "regressed";
    case Verdict::LibraryAhead: return "library ahead";
    case Verdict::Lost: return "lost its winner";
    case Verdict::New: return "new";
  }
  return "?";
}

bool is_failure(Verdict verdict) {
  return verdict == Verdict::Regressed || verdict == Verdict::LibraryAhead || verdict == Verdict::Lost;
}

int DeviceComparison::count(Verdict verdict) const {
  return int(std::count_if(shapes.begin(), shapes.end(), [&](const auto& s) { return s.verdict == verdict; }));
}

bool Comparison::has_failures() const {
  for (const auto& device : devices)
    for (const auto& shape : device.shapes)
      if (is_failure(shape.verdict)) return true;
  return false;
}

Comparison compare_tables(const std::vector<WinnerRow>& before, const std::vector<WinnerRow>& after,
                          const CompareOptions& options) {
  // Devices in order of first appearance, before's first.
  std::vector<DeviceKey> order;
  std::map<DeviceKey, std::pair<const DeviceInfo*, const DeviceInfo*>> devices;
  std::map<DeviceKey, std::map<ProblemKey, std::pair<const WinnerRow*, const WinnerRow*>>> rows;
  std::map<DeviceKey, std::vector<ProblemKey>> problem_order;
  auto add = [&](const std::vector<WinnerRow>& table, bool is_after) {
    for (const auto& row : table) {
      const DeviceKey key = device_key(row.device);
      auto [it, fresh] = devices.try_emplace(key, nullptr, nullptr);
      if (fresh) order.push_back(key);
      (is_after ? it->second.second : it->second.first) = &row.device;
      auto& pair = rows[key][problem_key(row.winner.problem)];
      if (!pair.first && !pair.second) problem_order[key].push_back(problem_key(row.winner.problem));
      (is_after ? pair.second : pair.first) = &row;
    }
  };
  add(before, false);
  add(after, true);
  Comparison comparison;
  for (const auto& key : order) {
    const auto& [device_before, device_after] = devices[key];
    DeviceComparison device;
    device.name = std::get<0>(key);
    if (device_before && device_after) device.version_changes = version_changes(*device_before, *device_after);
    for (const auto& problem : problem_order[key]) {
      const auto& [row_before, row_after] = rows[key][problem];
      if (row_before && row_after) {
        device.shapes.push_back(judge(*row_before, *row_after, options));
        continue;
      }
      ShapeComparison lone;
      lone.problem = (row_before ? row_before : row_after)->winner.problem;
      lone.before = row_before;
      lone.after = row_after;
      lone.verdict = row_before ? Verdict::Lost : Verdict::New;
      device.shapes.push_back(lone);
    }
    comparison.devices.push_back(std::move(device));
  }
  return comparison;
}

}  // namespace cl2
