// scripts/plot_bench.py on a folder written by write_bench_outputs: the plots appear, a missing
// provider is a note rather than a crash, a folder without bench.csv is a one-line error.
#include <gtest/gtest.h>

#include "bench/bench_report.hpp"
#include "support/run_tool.hpp"

using namespace cl2;
using namespace cl2_test;

namespace {

// Why the plots cannot be made here, or "" when python3 and matplotlib are present.
std::string plotting_unavailable_reason(const ScratchDir& scratch) {
  if (run_command("python3 --version", scratch).status != 0) return "python3 is not installed";
  if (run_command("python3 -c 'import matplotlib'", scratch).status != 0)
    return "matplotlib is not installed (python3 -m pip install matplotlib; scripts/setup.sh does)";
  return "";
}

// A 2 x 2 (M, N) grid at two K, offline and server 10 ms, every provider but torch; ours is
// faster than cuBLASLt-autotune on some shapes and slower on others.
BenchRun grid_run() {
  BenchRun run;
  run.device.name = "NVIDIA H200";
  run.measured_at = "2026-12-01T03:04:05Z";
  run.intervals_ms = {10};
  double ratio = 0.5;
  for (const std::int64_t k : {128, 4096})
    for (const std::int64_t m : {64, 1024})
      for (const std::int64_t n : {64, 1024}) {
        ShapeBench shape{Problem{{m, n, k}, Layout::TN, Accum::F32}, true, "sm90", "{}", {}, {}, {}};
        const double ours_us = 5.0 + double(m) * double(n) * double(k) / 1e8;
        ratio *= 1.5;
        for (const auto& [mode, interval] : {std::pair<std::string, int>{"offline", 0}, {"server", 10}})
          for (const char* provider :
               {"ours", "cublas_nn", "cublas_tn", "cublaslt_heuristic", "cublaslt_autotune"}) {
            const double us = std::string(provider) == "ours" ? ours_us : ours_us * ratio;
            shape.timings.push_back({parse_provider(provider), mode, interval, us, 0.5, 10, us + 8, 2.0, 40});
          }
        run.shapes.push_back(shape);
      }
  return run;
}

std::string plot_command(const std::string& folder) {
  return "python3 " + source_path("scripts/plot_bench.py") + " " + folder;
}

}  // namespace

TEST(PlotBench, WritesHeatmapsAndDistribution) {
  ScratchDir scratch;
  if (const std::string reason = plotting_unavailable_reason(scratch); !reason.empty())
    GTEST_SKIP() << reason;
  const std::string folder = scratch.file("bench");
  write_bench_outputs(grid_run(), folder);

  const CommandResult result = run_command(plot_command(folder), scratch);
  ASSERT_EQ(result.status, 0) << result.err;
  for (const char* name : {"heatmap_k128.png", "heatmap_k4096.png", "speedup_distribution.png"}) {
    const std::string png = read_all(scratch.path() / "bench" / name);
    ASSERT_GT(png.size(), 1000u) << name << " missing or empty";
    EXPECT_EQ(png.substr(1, 3), "PNG") << name;
  }
  EXPECT_NE(result.err.find("no per-call times of both ours and torch.matmul"), std::string::npos)
      << result.err;
}

TEST(PlotBench, FolderWithoutBenchCsvIsAOneLineError) {
  ScratchDir scratch;
  if (const std::string reason = plotting_unavailable_reason(scratch); !reason.empty())
    GTEST_SKIP() << reason;
  const CommandResult result = run_command(plot_command(scratch.file("nothing-here")), scratch);
  EXPECT_EQ(result.status, 2);
  EXPECT_NE(result.err.find("no bench.csv"), std::string::npos) << result.err;
  EXPECT_EQ(line_count(result.err), 1) << result.err;
}
