// The CSV best-kernel table: one header row, then one row per winner (RFC 4180 quoting). Columns
// are only ever appended, so scripts reading by position keep working. Unmeasured values are empty.
#include <fmt/format.h>

#include <cmath>

#include "report/csv.hpp"
#include "report/export_formats.hpp"
#include "report/winner_summary.hpp"

namespace cl2 {
namespace {

constexpr std::string_view kCsvHeader =
    "device,cc,m,n,k,layout,accum,size_class,family,config,source_hash,arch,time_us,spread_pct,"
    "tflops,max_diff,registers,cublas_nn_us,cublas_tn_us,cublas_max_us,cublaslt_heuristic_us,"
    "cublaslt_autotune_us,speedup_vs_cublas_max,speedup_vs_cublaslt_autotune,candidates_timed,"
    "measured_at";

// Appended after kCsvHeader: per cuBLASLt provider, its algorithm's fields
// ("cublaslt_heuristic_algo_id", ..., "cublaslt_autotune_cluster").
std::string lt_algo_header() {
  std::string header;
  for (const Provider provider : kLtAlgoProviders)
    for (const auto field : kLtAlgoFieldNames) header += fmt::format(",{}_{}", to_string(provider), field);
  return header;
}

// Appended after those: per library baseline, the kernels its call ran ("cublas_nn_kernels", ...).
std::string library_kernels_header() {
  std::string header;
  for (const Provider provider : kBaselineProviders) header += fmt::format(",{}_kernels", to_string(provider));
  return header;
}

// Appended last, and only where some row is not warm (any_not_warm): each row's L2 policy.
constexpr std::string_view kL2Header = ",l2";

// Microseconds with three decimals keep nanoseconds at any size (a "%.4g" would round 5123.4 µs).
std::string micros(double value) { return std::isnan(value) ? "" : fmt::format("{:.3f}", value); }
std::string four_decimals(double value) {
  return std::isnan(value) ? "" : fmt::format("{:.4f}", value);
}
std::string general(double value) { return std::isnan(value) ? "" : fmt::format("{:.6g}", value); }

std::string csv_row(const WinnerRow& row, bool with_l2) {
  const WinnerRecord& w = row.winner;
  const KernelRecord& kernel = row.kernel;
  std::vector<std::string> fields{
      row.device.name,
      fmt::format("{}.{}", row.device.cc_major, row.device.cc_minor),
      std::to_string(w.problem.shape.m),
      std::to_string(w.problem.shape.n),
      std::to_string(w.problem.shape.k),
      std::string(to_string(w.problem.layout)),
      std::string(to_string(w.problem.accum)),
      std::string(to_string(size_class(w.problem.shape))),
      kernel.family,
      kernel.config_json,
      kernel.source_hash,
      kernel.arch,
      micros(w.time_us),
      four_decimals(w.spread_pct),
      four_decimals(tflops(w)),
      general(w.max_diff),
      std::to_string(kernel.registers),
      micros(w.cublas_nn_us),
      micros(w.cublas_tn_us),
      micros(w.cublas_max_us()),
      micros(w.cublaslt_heuristic_us),
      micros(w.cublaslt_autotune_us),
      four_decimals(w.speedup_vs_cublas_max()),
      four_decimals(w.speedup_vs_cublaslt_autotune()),
      std::to_string(w.candidates_timed),
      w.measured_at,
  };
  for (const Provider provider : kLtAlgoProviders)
    for (auto& text : lt_algo_field_texts(row.lt_algo(provider), "")) fields.push_back(std::move(text));
  for (const Provider provider : kBaselineProviders)
    fields.push_back(join_kernel_names(row.library_kernels_of(provider), "+"));
  if (with_l2) fields.emplace_back(to_string(w.problem.l2));
  return csv_line(fields);
}

}  // namespace

std::string render_export_csv(const std::vector<WinnerRow>& rows) {
  const bool with_l2 = any_not_warm(rows);
  std::string out = std::string(kCsvHeader) + lt_algo_header() + library_kernels_header() +
                    std::string(with_l2 ? kL2Header : "") + "\n";
  for (const auto& row : rows) out += csv_row(row, with_l2);
  return out;
}

}  // namespace cl2
