#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "bench/bench_report.hpp"
#include "core/errors.hpp"
#include "db_test_support.hpp"
#include "support/bench_report_fixture.hpp"

using namespace cl2;
using namespace cl2::test;

namespace {

using BenchReport = WrittenBenchRun<fixture_run>;

}  // namespace

TEST_F(BenchReport, WritesEveryFileAndNoTemporaries) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir_.file("out")))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"bench.csv", "run.json", "speedups.csv", "summary.md"}));
  for (const auto& name : names) EXPECT_FALSE(output(name).empty()) << name;
}

TEST_F(BenchReport, BenchCsvHasOneRowPerTimingPlusCublasMax) {
  const auto lines = lines_of(output("bench.csv"));
  EXPECT_EQ(lines[0],
            "M,N,K,layout,accum,size_class,provider,mode,interval_ms,gpu_us,gpu_spread_pct,"
            "gpu_samples,wall_us,wall_spread_pct,wall_samples,tflops_gpu,gbps_gpu");
  // Timings given: small 6+6, mid 6+6, large 6+5, untuned 5+1 = 41; a cublas_max row for every
  // shape and mode with a cuBLAS timing: 3 shapes × 2 modes + the untuned shape's offline = 7.
  EXPECT_EQ(lines.size() - 1, 41u + 7u);

  const std::string csv = output("bench.csv");
  // cuBLAS-max of the small shape: NN's GPU time (10 µs < 30 µs), TN's wall time (20 µs < 40 µs).
  const auto max = bench_row(csv, "256,256,256,", "cublas_max", "offline");
  EXPECT_EQ(max.at("gpu_us"), "10.000");
  EXPECT_EQ(max.at("wall_us"), "20.000");
  EXPECT_EQ(max.at("size_class"), "small");
  // 2·8192³ FLOP in 2000 µs; 2·3·8192² bytes.
  const auto large = bench_row(csv, "8192,8192,8192,", "ours", "offline");
  EXPECT_EQ(large.at("tflops_gpu"), "549.7558");
  EXPECT_EQ(large.at("gbps_gpu"), "201.3266");
  EXPECT_EQ(large.at("gpu_samples"), "12");
  // A figure that was not measured is an empty field.
  EXPECT_EQ(bench_row(csv, "2048,2048,1024,nn,f16", "cublaslt_heuristic", "offline").at("wall_us"), "");
}

TEST_F(BenchReport, SpeedupsCsvHasOneRowPerShapeAndMode) {
  const auto lines = lines_of(output("speedups.csv"));
  ASSERT_EQ(lines.size(), 1u + 8u);
  EXPECT_EQ(lines[0],
            "mnk,layout,accum,mode,interval_ms,gpu_vs_torch,gpu_vs_cublas_nn,gpu_vs_cublas_tn,"
            "gpu_vs_cublas_max,gpu_vs_cublaslt_heuristic,gpu_vs_cublaslt_autotune,wall_vs_torch,"
            "wall_vs_cublas_nn,wall_vs_cublas_tn,wall_vs_cublas_max,wall_vs_cublaslt_heuristic,"
            "wall_vs_cublaslt_autotune");
  EXPECT_EQ(lines[1], "256_256_256,tn,f32,offline,0,1.0000,1.0000,3.0000,1.0000,1.0000,2.0000,"
                      "2.0000,2.0000,1.0000,1.0000,1.0000,0.5000");
  EXPECT_EQ(lines[6], "8192_8192_8192,tn,f32,server,10,,3.0000,3.0000,3.0000,3.0000,3.0000,,"
                      "3.0000,3.0000,3.0000,3.0000,3.0000");
  // No timing of ours: every speedup empty, the shape still listed.
  EXPECT_EQ(lines[7], "2048_2048_1024,nn,f16,offline,0,,,,,,,,,,,,");
}

TEST_F(BenchReport, SummaryGeomeansPerModeAndFigure) {
  const std::string md = output("summary.md");
  const auto wall = table_after(
      md, "## Per-call time (wall clock around the call and a synchronize, as CUDA-L2 measures)");
  ASSERT_EQ(wall.size(), 2u);
  EXPECT_EQ(wall[0], (std::vector<std::string>{"offline", "3", cell_of(2, 2, 2), cell_of(1, 1, 1),
                                               cell_of(1, 4, 16), cell_of(0.5, 1, 2)}));
  const auto gpu = table_after(md, "## GPU time (CUDA events; offline: around graph-captured calls)");
  EXPECT_EQ(row_labelled(gpu, "offline"),
            (std::vector<std::string>{"offline", "3", cell_of(1, 4, 2), cell_of(1, 2, 4),
                                      cell_of(1, 1, 8), cell_of(2, 8, 4)}));
  EXPECT_EQ(cell_of(2, 8, 4), "4.000 (4.667)");  // the hand computation itself
  // Torch was not timed on the large shape in server mode: two shapes, and the cell says so.
  EXPECT_EQ(row_labelled(gpu, "server 10 ms"),
            (std::vector<std::string>{"server 10 ms", "3", "3.000 (3.000) [2 shapes]",
                                      "3.000 (3.000)", "3.000 (3.000)", "3.000 (3.000)"}));
}

TEST_F(BenchReport, SummarySplitsBySizeClass) {
  const std::string md = output("summary.md");
  const auto gpu = table_after(md, "### GPU time (CUDA events; offline: around graph-captured calls)");
  ASSERT_EQ(gpu.size(), 4u);
  EXPECT_EQ(row_labelled(gpu, "small")[5], "2.000 (2.000)");
  // The untuned mid shape has no time of ours: one shape in the class.
  EXPECT_EQ(row_labelled(gpu, "mid")[1], "1");
  EXPECT_EQ(row_labelled(gpu, "mid")[5], "8.000 (8.000)");
  EXPECT_EQ(row_labelled(gpu, "large")[5], "4.000 (4.000)");
  EXPECT_EQ(row_labelled(gpu, "all")[5], cell_of(2, 8, 4));
  const auto wall = table_after(
      md, "### Per-call time (wall clock around the call and a synchronize, as CUDA-L2 measures)");
  EXPECT_EQ(row_labelled(wall, "large")[4], "16.000 (16.000)");
}

TEST_F(BenchReport, SummaryRanksShapesAgainstAutotune) {
  const std::string md = output("summary.md");
  auto shapes_of = [](const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::string> shapes;
    for (const auto& row : rows) shapes.push_back(row.at(1));
    return shapes;
  };
  const auto best = table_after(md, "### 3 best");
  EXPECT_EQ(shapes_of(best), (std::vector<std::string>{"1024x1024x1024 tn f32",
                                                       "8192x8192x8192 tn f32", "256x256x256 tn f32"}));
  EXPECT_EQ(best[0], (std::vector<std::string>{"1", "1024x1024x1024 tn f32", "mid", "sm90",
                                               "100.000", "800.000", "8.000x"}));
  EXPECT_EQ(shapes_of(table_after(md, "### 3 worst")),
            (std::vector<std::string>{"256x256x256 tn f32", "8192x8192x8192 tn f32",
                                      "1024x1024x1024 tn f32"}));
}

TEST_F(BenchReport, SummaryHeaderThroughputAndUntunedShapes) {
  const std::string md = output("summary.md");
  for (const char* expected :
       {"- GPU: NVIDIA H200, sm_90, 132 SMs, 60 MB L2", "cuBLAS 13.1.0, NVRTC 13.0",
        "- Measured at: 2026-12-01T03:04:05Z", "800.0 TFLOP/s", "4000.0 GB/s", "- L2: warm",
        "- Shapes: 4 (small 1, mid 2, large 1); tuned 3, not tuned 1",
        "- Modes: offline, server 10 ms", "on f16-accum shapes it runs with its default",
        "Not tuned (no winner; left out of every speedup above): 2048x2048x1024 nn f16\n"})
    EXPECT_NE(md.find(expected), std::string::npos) << expected << "\n" << md;
  const auto throughput = table_after(md, "## Throughput of the 4 largest shapes (offline GPU time)");
  ASSERT_EQ(throughput.size(), 4u);
  EXPECT_EQ(throughput[0], (std::vector<std::string>{"8192x8192x8192 tn f32", "549.8 (68.7%)",
                                                     "137.4 (17.2%)", "201.3 (5.0%)", "50.3 (1.3%)"}));
  EXPECT_EQ(throughput[1][1], "-");  // the untuned 2048x2048x1024 comes second, without ours
}

TEST_F(BenchReport, RunJsonRoundTrips) {
  const BenchRun back = read_bench_run(dir_.file("out/run.json"));
  EXPECT_EQ(back.device.fingerprint(), run_.device.fingerprint());
  EXPECT_EQ(back.measured_at, run_.measured_at);
  EXPECT_EQ(back.peak_tflops, run_.peak_tflops);
  EXPECT_EQ(back.peak_gbps, run_.peak_gbps);
  EXPECT_EQ(back.l2, run_.l2);
  EXPECT_EQ(back.read_gbps, run_.read_gbps);
  EXPECT_EQ(back.intervals_ms, run_.intervals_ms);
  ASSERT_EQ(back.shapes.size(), run_.shapes.size());
  for (std::size_t s = 0; s < back.shapes.size(); ++s) {
    const ShapeBench &a = back.shapes[s], &b = run_.shapes[s];
    EXPECT_EQ(a.problem, b.problem);
    EXPECT_EQ(a.has_winner, b.has_winner);
    EXPECT_EQ(a.winner_family, b.winner_family);
    EXPECT_EQ(a.winner_config, b.winner_config);
    ASSERT_EQ(a.timings.size(), b.timings.size());
    for (std::size_t t = 0; t < a.timings.size(); ++t) {
      const ProviderTiming &x = a.timings[t], &y = b.timings[t];
      EXPECT_EQ(std::tie(x.provider, x.mode, x.interval_ms, x.gpu_us, x.gpu_spread_pct,
                         x.gpu_samples, x.wall_spread_pct, x.wall_samples),
                std::tie(y.provider, y.mode, y.interval_ms, y.gpu_us, y.gpu_spread_pct,
                         y.gpu_samples, y.wall_spread_pct, y.wall_samples));
      EXPECT_TRUE(x.wall_us == y.wall_us || (std::isnan(x.wall_us) && std::isnan(y.wall_us)));
    }
  }
  // Regenerating the report from run.json gives the same files.
  write_bench_outputs(back, dir_.file("again"));
  for (const char* name : {"bench.csv", "speedups.csv", "summary.md", "run.json"})
    EXPECT_EQ(read_bytes(dir_.file(std::string("again/") + name)), output(name)) << name;
}

TEST(BenchReportL2, RotateRunShowsBandwidthPerShapeAndReadsBack) {
  TempDir dir;
  BenchRun run = fixture_run();
  run.l2 = L2Policy::Rotate;
  run.read_gbps = 4000;
  for (auto& shape : run.shapes) shape.problem.l2 = L2Policy::Rotate;
  write_bench_outputs(run, dir.file("out"));
  const std::string md = read_bytes(dir.file("out/summary.md"));
  for (const char* expected : {"- L2: rotate (calls back to back", "4000.0 GB/s (read-only streaming kernel, 1 GiB)"})
    EXPECT_NE(md.find(expected), std::string::npos) << expected << "\n" << md;
  const auto rows = table_after(md, "## Bandwidth per shape (offline GPU time, L2 rotate)");
  ASSERT_EQ(rows.size(), 4u);
  // 256^3: 2 * 3 * 256^2 bytes = 393216; ours 10 us, cuBLASLt-autotune twice that.
  EXPECT_EQ(row_labelled(rows, "256x256x256 tn f32 l2 rotate"),
            (std::vector<std::string>{"256x256x256 tn f32 l2 rotate", "0.4", "10.00", "39.3 (1.0%)", "20.00",
                                      "19.7 (0.5%)"}));
  const BenchRun back = read_bench_run(dir.file("out/run.json"));
  EXPECT_EQ(back.l2, L2Policy::Rotate);
  EXPECT_EQ(back.read_gbps, 4000);
  for (const auto& shape : back.shapes) EXPECT_EQ(shape.problem.l2, L2Policy::Rotate);
}

TEST(BenchReportL2, WarmRunHasNoBandwidthSectionAndOldRunsReadTheirFlushFlag) {
  TempDir dir;
  write_bench_outputs(fixture_run(), dir.file("out"));
  EXPECT_EQ(read_bytes(dir.file("out/summary.md")).find("## Bandwidth per shape"), std::string::npos);
  // A run.json from before the L2 policies says only "cold_l2".
  std::string text = read_bytes(dir.file("out/run.json"));
  const std::string policy = "\"l2\":\"warm\"";
  ASSERT_NE(text.find(policy), std::string::npos) << text.substr(0, 400);
  text.replace(text.find(policy), policy.size(), "\"cold_l2\":true");
  write_bytes(dir.file("old.json"), text);
  EXPECT_EQ(read_bench_run(dir.file("old.json")).l2, L2Policy::Flush);
}

TEST(BenchReportShapes, WinnerWithoutTimingOfOursIsListed) {
  TempDir dir;
  BenchRun run = fixture_run();
  std::erase_if(run.shapes[1].timings, [](const ProviderTiming& t) { return t.provider == Provider::Ours; });
  write_bench_outputs(run, dir.file("out"));
  const std::string md = read_bytes(dir.file("out/summary.md"));
  EXPECT_NE(md.find("Tuned but not timed (a winner, no timing of ours): 1024x1024x1024 tn f32\n"),
            std::string::npos)
      << md;
  EXPECT_EQ(row_labelled(table_after(md, "### 2 best"), "1")[1], "8192x8192x8192 tn f32");
}

TEST(BenchReportErrors, EmptyRunAndBadRunJsonAreUserErrors) {
  TempDir dir;
  try {
    write_bench_outputs(BenchRun{}, dir.file("out"));
    FAIL() << "an empty run was written";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("no shapes to report"), std::string::npos);
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("out")));
  EXPECT_THROW(read_bench_run(dir.file("missing.json")), UserError);
  write_bytes(dir.file("bad.json"), "{\"format\": \"cuda-l2-tune/bench-run\", \"version\": 1}");
  try {
    read_bench_run(dir.file("bad.json"));
    FAIL() << "a run without a device was read";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()).rfind(dir.file("bad.json"), 0), 0u) << error.what();
  }
  BenchRun derived_provider = fixture_run();
  derived_provider.shapes[0].timings[0].provider = Provider::CublasMax;  // derived, never measured
  EXPECT_THROW(write_bench_outputs(derived_provider, dir.file("out")), UserError);
  write_bench_outputs(fixture_run(), dir.file("out"));
  std::string text = read_bytes(dir.file("out/run.json"));
  const std::string ours = "\"provider\":\"ours\"";
  ASSERT_NE(text.find(ours), std::string::npos) << text.substr(0, 400);
  text.replace(text.find(ours), ours.size(), "\"provider\":\"cutlass\"");
  write_bytes(dir.file("unknown.json"), text);
  try {
    read_bench_run(dir.file("unknown.json"));
    FAIL() << "a run with an unknown provider was read";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("provider 'cutlass': unknown provider; use one of ours, runtime, cublas_nn"),
              std::string::npos)
        << error.what();
  }
}

TEST(BenchTorchMerge, AddsTorchRowsForShapesInTheRun) {
  TempDir dir;
  BenchRun run = fixture_run();
  for (auto& shape : run.shapes)
    std::erase_if(shape.timings, [](const ProviderTiming& t) { return t.provider == Provider::Torch; });
  write_bytes(dir.file("torch.csv"),
              "M,N,K,layout,accum,mode,interval_ms,gpu_us,gpu_spread_pct,gpu_samples,wall_us,"
              "wall_spread_pct,wall_samples,note\n"
              "256,256,256,tn,f32,offline,0,12.5,0.4,30,25.0,2.0,200,\n"
              "256,256,256,tn,f32,server,10,50,1.0,5,90,3.0,5,\n"
              "2048,2048,1024,nn,f16,offline,0,60,0.3,30,,,0,\"torch default accumulation, f32\"\n"
              "256,256,256,nn,f32,offline,0,99,0.4,30,99,2.0,200,\n"  // not in the run: ignored
              "77,77,77,tn,f32,offline,0,1,0.1,30,2,0.1,200,\n");     // not in the run: ignored
  merge_torch_results(run, dir.file("torch.csv"));
  merge_torch_results(run, dir.file("torch.csv"));  // again: replaces, adds nothing

  auto torch_timings = [](const ShapeBench& shape) {
    std::vector<ProviderTiming> found;
    for (const auto& t : shape.timings)
      if (t.provider == Provider::Torch) found.push_back(t);
    return found;
  };
  const auto small = torch_timings(run.shapes[0]);
  ASSERT_EQ(small.size(), 2u);
  EXPECT_EQ(small[0].mode, "offline");
  EXPECT_EQ(small[0].gpu_us, 12.5);
  EXPECT_EQ(small[0].wall_samples, 200);
  EXPECT_EQ(small[1].interval_ms, 10);
  EXPECT_TRUE(torch_timings(run.shapes[1]).empty());
  const auto untuned = torch_timings(run.shapes[3]);
  ASSERT_EQ(untuned.size(), 1u);
  EXPECT_TRUE(std::isnan(untuned[0].wall_us));

  write_bench_outputs(run, dir.file("out"));
  // The merged timing is what the report compares with: torch 12.5 µs / ours 10 µs.
  const auto speedups = lines_of(read_bytes(dir.file("out/speedups.csv")));
  EXPECT_EQ(speedups[1].rfind("256_256_256,tn,f32,offline,0,1.2500,", 0), 0u) << speedups[1];
}

TEST(BenchTorchMerge, RejectsMissingAndMalformedFiles) {
  TempDir dir;
  BenchRun run = fixture_run();
  const BenchRun before = run;
  auto expect_user_error = [&](const std::string& path, const std::string& needle) {
    try {
      merge_torch_results(run, path);
      ADD_FAILURE() << path << " was accepted";
    } catch (const UserError& error) {
      const std::string message = error.what();
      EXPECT_EQ(message.rfind(path, 0), 0u) << message;  // names the file first
      EXPECT_NE(message.find(needle), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  };
  expect_user_error(dir.file("missing.csv"), "cannot read");
  write_bytes(dir.file("no_column.csv"), "M,N,K,layout,accum,mode\n256,256,256,tn,f32,offline\n");
  expect_user_error(dir.file("no_column.csv"), "no column 'interval_ms'");
  const std::string header =
      "M,N,K,layout,accum,mode,interval_ms,gpu_us,gpu_spread_pct,gpu_samples,wall_us,"
      "wall_spread_pct,wall_samples\n";
  write_bytes(dir.file("not_number.csv"),
              header + "256,256,256,tn,f32,offline,0,12.5,0.4,30,25,2,200\n"
                       "256,256,256,tn,f32,offline,0,fast,0.4,30,25,2,200\n");
  expect_user_error(dir.file("not_number.csv"), ":3: gpu_us = 'fast' is not a number");
  write_bytes(dir.file("short.csv"), header + "256,256,256,tn,f32,offline,0,12.5\n");
  expect_user_error(dir.file("short.csv"), "8 fields for 13 columns");
  write_bytes(dir.file("bad_mode.csv"), header + "256,256,256,tn,f32,burst,0,1,1,1,1,1,1\n");
  expect_user_error(dir.file("bad_mode.csv"), "mode 'burst'");
  // Nothing was merged from the files that failed part-way.
  EXPECT_EQ(run.shapes[0].timings.size(), before.shapes[0].timings.size());
  EXPECT_EQ(run.shapes[0].timings[1].gpu_us, before.shapes[0].timings[1].gpu_us);
}
