// The JSON best-kernel table: {"format": "cuda-l2-tune/best-kernels", "version": 1,
// "devices": [...]}. Loaders key on "format" and "version"; a change that breaks them raises the
// version.
#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/json_numbers.hpp"
#include "report/export_formats.hpp"
#include "report/winner_summary.hpp"

namespace cl2 {
namespace {

using nlohmann::json;

constexpr int kExportJsonVersion = 1;

json summary_json(const std::vector<WinnerRow>& rows) {
  json summary = json::object();
  for (const auto& size_class : summarize_by_size_class(rows))
    summary[std::string(size_class.name)] = {
        {"count", size_class.shapes},
        {"geomean_vs_cublas_max", number_or_null(size_class.vs_cublas_max.geomean)},
        {"geomean_vs_cublaslt_autotune", number_or_null(size_class.vs_cublaslt_autotune.geomean)},
    };
  return summary;
}

// Keyed by provider name; nlohmann keeps keys sorted, so the order of this list does not show.
json baselines_json(const WinnerRecord& w) {
  const std::pair<Provider, double> times[] = {{Provider::CublasNn, w.cublas_nn_us},
                                               {Provider::CublasTn, w.cublas_tn_us},
                                               {Provider::CublasMax, w.cublas_max_us()},
                                               {Provider::CublasltHeuristic, w.cublaslt_heuristic_us},
                                               {Provider::CublasltAutotune, w.cublaslt_autotune_us}};
  json baselines = json::object();
  for (const auto& [provider, us] : times) baselines[std::string(to_string(provider))] = number_or_null(us);
  return baselines;
}

// Keyed by provider name, like baselines_us: the algorithm each cuBLASLt time came from, or null.
// Left out of rows that have neither (measured before algorithms were recorded), so exports of
// older databases keep their exact bytes.
json lt_algos_json(const WinnerRow& row) {
  json algos = json::object();
  for (const Provider provider : kLtAlgoProviders)
    algos[std::string(to_string(provider))] = lt_algo_to_json(row.lt_algo(provider));
  return algos;
}

// Keyed by provider name, like baselines_us: the kernels each library call ran, a list of names.
// Left out of rows that have none (measured before calls were traced, or without CUPTI).
json library_kernels_json(const WinnerRow& row) {
  json kernels = json::object();
  for (const auto& [provider, names] : row.library_kernels) kernels[std::string(to_string(provider))] = names;
  return kernels;
}

json kernel_json(const WinnerRow& row) {
  const WinnerRecord& w = row.winner;
  const KernelRecord& kernel = row.kernel;
  json entry = {
      {"m", w.problem.shape.m},
      {"n", w.problem.shape.n},
      {"k", w.problem.shape.k},
      {"layout", to_string(w.problem.layout)},
      {"accum", to_string(w.problem.accum)},
      {"family", kernel.family},
      {"config", json::parse(kernel.config_json)},
      {"source_hash", kernel.source_hash},
      {"arch", kernel.arch},
      {"time_us", number_or_null(w.time_us)},
      {"spread_pct", number_or_null(w.spread_pct)},
      {"tflops", number_or_null(tflops(w))},
      {"max_diff", number_or_null(w.max_diff)},
      {"registers", kernel.registers},
      {"baselines_us", baselines_json(w)},
      {"speedup",
       {{"vs_cublas_max", number_or_null(w.speedup_vs_cublas_max())},
        {"vs_cublaslt_autotune", number_or_null(w.speedup_vs_cublaslt_autotune())}}},
      {"size_class", to_string(size_class(w.problem.shape))},
      {"measured_at", w.measured_at},
  };
  // Only where not warm, so exports of all-warm databases keep their bytes; absent reads as warm.
  if (w.problem.l2 != L2Policy::Warm) entry["l2"] = to_string(w.problem.l2);
  if (row.has_lt_algo()) entry["cublaslt_algos"] = lt_algos_json(row);
  if (!row.library_kernels.empty()) entry["baseline_kernels"] = library_kernels_json(row);
  // The clocks the final round ran at, where NVML sampled them (not the rated clocks of "device").
  if (std::isfinite(w.sm_clock_mhz))
    entry["clocks_measured"] = {{"sm_mhz", w.sm_clock_mhz}, {"throttled_rounds_discarded", w.throttled_rounds}};
  return entry;
}

}  // namespace

std::string render_export_json(const std::vector<WinnerRow>& rows) {
  json devices = json::array();
  for (const auto& group : group_by_device(rows)) {
    json kernels = json::array();
    for (const auto& row : group.rows) kernels.push_back(kernel_json(row));
    devices.push_back(
        {{"device", group.device}, {"summary", summary_json(group.rows)}, {"kernels", kernels}});
  }
  const json document = {
      {"format", "cuda-l2-tune/best-kernels"},
      {"version", kExportJsonVersion},
      {"devices", devices},
  };
  return document.dump(2) + "\n";
}

}  // namespace cl2
