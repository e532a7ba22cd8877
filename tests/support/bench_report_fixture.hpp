#pragma once
// A bench run to render (small, mid and large shapes with a winner, a mid shape without one, in
// offline and server mode) and readers of what write_bench_outputs() makes of it: Markdown tables
// by heading, CSV rows by shape and provider. For the bench report tests.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "bench/bench_records.hpp"
#include "bench/bench_report.hpp"
#include "../db_test_support.hpp"

namespace cl2::test {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Baseline time / our time, for the GPU and the wall figure.
struct Ratio {
  double gpu, wall;
};

inline ProviderTiming timing(const std::string& provider, const std::string& mode, int interval_ms,
                      double gpu_us, double wall_us) {
  return {parse_provider(provider), mode, interval_ms, gpu_us, 0.5, 12, wall_us, 1.5, 40};
}

// Ours at the given times and every baseline at ratio × ours, so each speedup in the report is
// exactly the ratio given here. No "ours" where ours_gpu_us is NaN (a shape without a winner).
inline void add_mode(ShapeBench& shape, const std::string& mode, int interval_ms, double ours_gpu_us,
              double ours_wall_us, const std::vector<std::pair<std::string, Ratio>>& ratios) {
  if (!std::isnan(ours_gpu_us))
    shape.timings.push_back(timing("ours", mode, interval_ms, ours_gpu_us, ours_wall_us));
  for (const auto& [provider, ratio] : ratios)
    shape.timings.push_back(
        timing(provider, mode, interval_ms, ours_gpu_us * ratio.gpu, ours_wall_us * ratio.wall));
}

inline std::vector<std::pair<std::string, Ratio>> all_at(double ratio, bool with_torch = true) {
  std::vector<std::pair<std::string, Ratio>> ratios;
  for (const char* provider :
       {"cublas_nn", "cublas_tn", "cublaslt_heuristic", "cublaslt_autotune", "torch"})
    if (with_torch || std::string(provider) != "torch") ratios.push_back({provider, {ratio, ratio}});
  return ratios;
}

inline ShapeBench tuned(const Problem& problem) {
  return {problem, true, "sm90", R"({"family":"sm90","params":{"BM":128}})", {}, {}, {}};
}

// Small, mid and large shapes with a winner, and a mid shape without one. Offline speedups per
// baseline (gpu; wall) over small, mid, large:
//   torch              1 4 2 (geomean 2);   2 2 2 (2)
//   cuBLAS-max         1 2 4 (2);           1 1 1 (1)   NN wins small's GPU time, TN its wall time
//   cuBLASLt-heuristic 1 1 8 (2);           1 4 16 (4)
//   cuBLASLt-autotune  2 8 4 (4);           0.5 1 2 (1)
// Server 10 ms: every speedup 3; no torch timing for the large shape.
inline BenchRun fixture_run() {
  BenchRun run;
  run.device = test_device();
  run.measured_at = "2026-12-01T03:04:05Z";
  run.peak_tflops = 800;
  run.peak_gbps = 4000;
  run.intervals_ms = {10};

  ShapeBench small = tuned(test_problem(256, 256, 256));
  add_mode(small, "offline", 0, 10, 20,
           {{"torch", {1, 2}}, {"cublas_nn", {1, 2}}, {"cublas_tn", {3, 1}},
            {"cublaslt_heuristic", {1, 1}}, {"cublaslt_autotune", {2, 0.5}}});
  add_mode(small, "server", 10, 40, 80, all_at(3));

  ShapeBench mid = tuned(test_problem(1024, 1024, 1024));
  add_mode(mid, "offline", 0, 100, 110,
           {{"torch", {4, 2}}, {"cublas_nn", {4, 1.5}}, {"cublas_tn", {2, 1}},
            {"cublaslt_heuristic", {1, 4}}, {"cublaslt_autotune", {8, 1}}});
  add_mode(mid, "server", 10, 140, 180, all_at(3));

  ShapeBench large = tuned(test_problem(8192, 8192, 8192));
  add_mode(large, "offline", 0, 2000, 2010,
           {{"torch", {2, 2}}, {"cublas_nn", {4, 1}}, {"cublas_tn", {8, 3}},
            {"cublaslt_heuristic", {8, 16}}, {"cublaslt_autotune", {4, 2}}});
  add_mode(large, "server", 10, 2040, 2080, all_at(3, /*with_torch=*/false));

  ShapeBench untuned{test_problem(2048, 2048, 1024, Layout::NN, Accum::F16), false, "", "", {}, {}, {}};
  untuned.timings = {timing("cublas_nn", "offline", 0, 50, 60),
                     timing("cublas_tn", "offline", 0, 55, 65),
                     timing("cublaslt_heuristic", "offline", 0, 45, kNaN),
                     timing("cublaslt_autotune", "offline", 0, 40, 50),
                     timing("torch", "offline", 0, 52, 70),
                     timing("cublaslt_autotune", "server", 10, 90, 120)};

  run.shapes = {small, mid, large, untuned};
  return run;
}

// Every part between separators, empty ones included ("a,b," is three fields).
inline std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts(1);
  for (const char c : text) {
    if (c == separator) parts.emplace_back();
    else parts.back() += c;
  }
  return parts;
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines = split(text, '\n');
  if (lines.back().empty()) lines.pop_back();  // the newline that ends the last line
  return lines;
}

inline std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(' ');
  return first == std::string::npos ? "" : text.substr(first, text.find_last_not_of(' ') - first + 1);
}

// The cells of the rows of the first Markdown table after the line `heading`.
inline std::vector<std::vector<std::string>> table_after(const std::string& markdown,
                                                  const std::string& heading) {
  const auto lines = lines_of(markdown);
  auto line = std::find(lines.begin(), lines.end(), heading);
  EXPECT_NE(line, lines.end()) << "no heading '" << heading << "' in\n" << markdown;
  while (line != lines.end() && line->rfind("|", 0) != 0) ++line;
  std::vector<std::vector<std::string>> rows;
  for (line += line != lines.end() ? 2 : 0; line < lines.end() && line->rfind("|", 0) == 0; ++line) {
    std::vector<std::string> cells;
    const auto parts = split(*line, '|');
    for (std::size_t i = 1; i + 1 < parts.size(); ++i) cells.push_back(trim(parts[i]));
    rows.push_back(cells);
  }
  return rows;
}

inline std::vector<std::string> row_labelled(const std::vector<std::vector<std::string>>& rows,
                                      const std::string& label) {
  for (const auto& row : rows)
    if (!row.empty() && row[0] == label) return row;
  ADD_FAILURE() << "no row '" << label << "'";
  return {};
}

// The cell the summary should show for three speedups: geomean (mean), computed here by hand.
inline std::string cell_of(double a, double b, double c) {
  return fmt::format("{:.3f} ({:.3f})", std::cbrt(a * b * c), (a + b + c) / 3);
}

inline std::map<std::string, std::string> csv_record(const std::string& header, const std::string& line) {
  const auto names = split(header, ','), values = split(line, ',');
  EXPECT_EQ(names.size(), values.size()) << line;
  std::map<std::string, std::string> record;
  for (std::size_t i = 0; i < names.size() && i < values.size(); ++i) record[names[i]] = values[i];
  return record;
}

// The bench.csv row of one shape, provider and mode, as column name -> text.
inline std::map<std::string, std::string> bench_row(const std::string& csv, const std::string& mnk_prefix,
                                             const std::string& provider, const std::string& mode) {
  const auto lines = lines_of(csv);
  for (const auto& line : lines)
    if (line.rfind(mnk_prefix, 0) == 0 && line.find("," + provider + "," + mode + ",") != std::string::npos)
      return csv_record(lines[0], line);
  ADD_FAILURE() << "no bench.csv row " << mnk_prefix << " " << provider << " " << mode;
  return {};
}

// The files write_bench_outputs() makes of the run `Make` returns, in a temporary folder.
template <BenchRun (*Make)()>
class WrittenBenchRun : public ::testing::Test {
 protected:
  void SetUp() override { write_bench_outputs(run_, dir_.file("out")); }
  std::string output(const std::string& name) const { return read_bytes(dir_.file("out/" + name)); }

  TempDir dir_;
  BenchRun run_ = Make();
};

}  // namespace cl2::test
