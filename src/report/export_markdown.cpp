// The Markdown best-kernel report: per device, what it is, the geometric-mean speedups overall
// and per size class, then every shape with our time next to the libraries'.
#include <fmt/format.h>

#include <algorithm>

#include "report/export_formats.hpp"
#include "report/lt_algo_table.hpp"
#include "report/text_table.hpp"
#include "report/winner_summary.hpp"

namespace cl2 {
namespace {

std::string device_heading(const DeviceInfo& device) {
  return fmt::format(
      "## {} (sm_{}{}, {} SMs)\n\nDriver {} · CUDA runtime {} · cuBLAS {} · NVRTC {}\n",
      device.name, device.cc_major, device.cc_minor, device.num_sms, device.driver_version,
      device.cuda_runtime_version, device.cublas_version, device.nvrtc_version);
}

std::string summary_table(const std::vector<WinnerRow>& rows) {
  TextTable table({{"class", Align::Left},
                   {"shapes"},
                   {"geomean vs cuBLAS-max"},
                   {"geomean vs cuBLASLt-autotune"}});
  for (const auto& size_class : summarize_by_size_class(rows))
    table.add_row({std::string(size_class.name), std::to_string(size_class.shapes),
                   format_speedup(size_class.vs_cublas_max.geomean),
                   format_speedup(size_class.vs_cublaslt_autotune.geomean)});
  return table.markdown();
}

// Each table of shapes starts with the columns naming the problem: M, N, K, layout, accum, and the
// L2 policy where some row of the export is not warm (any_not_warm), so that all-warm exports
// render as they did before policies.
struct ProblemColumns {
  bool with_l2 = false;

  std::vector<TableColumn> columns() const {
    std::vector<TableColumn> columns = {{"M"}, {"N"}, {"K"}, {"layout", Align::Left}, {"accum", Align::Left}};
    if (with_l2) columns.push_back({"l2", Align::Left});
    return columns;
  }
  std::vector<std::string> cells(const Problem& p) const {
    std::vector<std::string> cells = {std::to_string(p.shape.m), std::to_string(p.shape.n),
                                      std::to_string(p.shape.k), std::string(to_string(p.layout)),
                                      std::string(to_string(p.accum))};
    if (with_l2) cells.emplace_back(to_string(p.l2));
    return cells;
  }
};

// Appends `more` to `to`.
template <typename T>
std::vector<T> followed_by(std::vector<T> to, std::vector<T> more) {
  to.insert(to.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  return to;
}

std::string shapes_table(const std::vector<WinnerRow>& rows, const ProblemColumns& problem) {
  TextTable table(followed_by(problem.columns(), {{"family", Align::Left},
                                                  {"config", Align::Left},
                                                  {"ours µs"},
                                                  {"TFLOP/s"},
                                                  {"cuBLAS-max µs"},
                                                  {"cuBLASLt-autotune µs"},
                                                  {"vs cuBLAS-max"},
                                                  {"vs cuBLASLt-autotune"}}));
  for (const auto& row : rows) {
    const WinnerRecord& w = row.winner;
    table.add_row(followed_by(problem.cells(w.problem),
                              {row.kernel.family, config_params_text(row.kernel.config_json),
                               format_fixed(w.time_us, 2), format_fixed(tflops(w), 1),
                               format_fixed(w.cublas_max_us(), 2), format_fixed(w.cublaslt_autotune_us, 2),
                               format_speedup(w.speedup_vs_cublas_max()),
                               format_speedup(w.speedup_vs_cublaslt_autotune())}));
  }
  return table.markdown();
}

// What cuBLASLt ran for its two baselines, per shape (its column-major view: tile AxB is A along
// our N, B along our M).
std::string lt_algorithms_table(const std::vector<WinnerRow>& rows, const ProblemColumns& problem) {
  std::vector<TableColumn> columns = followed_by(problem.columns(), {{"cuBLASLt", Align::Left}});
  append_lt_algo_columns(columns);
  TextTable table(std::move(columns));
  for (const auto& row : rows) {
    for (const Provider provider : kLtAlgoProviders) {
      std::vector<std::string> cells =
          followed_by(problem.cells(row.winner.problem), {std::string(provider_title(provider))});
      append_lt_algo_cells(cells, row.lt_algo(provider));
      table.add_row(std::move(cells));
    }
  }
  return table.markdown();
}

// What each library call ran, per shape, as CUPTI traced one pass of it.
std::string library_kernels_table(const std::vector<WinnerRow>& rows, const ProblemColumns& problem) {
  std::vector<TableColumn> columns = problem.columns();
  for (const Provider provider : kBaselineProviders) columns.push_back({std::string(provider_title(provider)), Align::Left});
  TextTable table(std::move(columns));
  for (const auto& row : rows) {
    std::vector<std::string> cells = problem.cells(row.winner.problem);
    for (const Provider provider : kBaselineProviders) {
      const auto names = row.library_kernels_of(provider);
      cells.push_back(names.empty() ? "-" : join_kernel_names(names, " + "));
    }
    table.add_row(std::move(cells));
  }
  return table.markdown();
}

}  // namespace

std::string render_export_markdown(const std::vector<WinnerRow>& rows) {
  std::string out = "# cuda-l2-tune best kernels\n\n";
  if (rows.empty()) return out + "The tuning database has no winners yet.\n";
  out += "Speedup = library time / our time (GPU time per call); cuBLAS-max is the faster of "
         "cuBLAS NN and TN. Size classes by 2·M·N·K: small < 2·512³, mid < 2·4096³, large "
         "above.\n";
  const ProblemColumns problem{any_not_warm(rows)};
  if (problem.with_l2)
    out += "l2 is where the operands were when each timed call started: warm (in the L2 from the call "
           "before), rotate (in DRAM: the calls cycled through copies larger than the L2) or flush (the "
           "L2 overwritten before each call).\n";
  for (const auto& group : group_by_device(rows)) {
    out += '\n';
    out += device_heading(group.device);
    out += '\n';
    out += summary_table(group.rows);
    out += '\n';
    out += shapes_table(group.rows, problem);
    // Devices whose rows were all measured before algorithms were recorded render as they did.
    if (std::any_of(group.rows.begin(), group.rows.end(), [](const WinnerRow& r) { return r.has_lt_algo(); })) {
      out += "\ncuBLASLt's algorithms (tile AxB: A along N, B along M; \"-\": not recorded)\n\n";
      out += lt_algorithms_table(group.rows, problem);
    }
    if (std::any_of(group.rows.begin(), group.rows.end(), [](const WinnerRow& r) { return !r.library_kernels.empty(); })) {
      out += "\nKernels the libraries ran (CUPTI, one traced call each; \"-\": not traced)\n\n";
      out += library_kernels_table(group.rows, problem);
    }
  }
  return out;
}

}  // namespace cl2
