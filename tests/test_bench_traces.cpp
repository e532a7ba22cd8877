// `bench --trace-kernels` without a GPU: the comparison of each traced call's event time with its
// CUPTI kernel time per call (trace.md, trace.json, summary.md's section and the agreement line),
// traces kept in run.json (and runs written before them read back without), and the option refused
// where there is no offline GPU time to hold traces against.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "bench/bench_report.hpp"
#include "bench/bench_steps.hpp"
#include "bench/bench_traces.hpp"
#include "core/errors.hpp"
#include "db_test_support.hpp"

using namespace cl2;
using namespace cl2::test;

namespace {

constexpr std::uint32_t kGiven = 3;

ProviderTiming offline(Provider provider, double gpu_us) {
  return {provider, "offline", 0, gpu_us, 0.5, 20, gpu_us + 4, 1.0, 40};
}

// A trace of `calls` back-to-back calls, each running one kernel for `us_per_call`.
CallTrace sample_trace(const std::string& kernel, double us_per_call, int calls = 8) {
  CallTrace trace;
  trace.calls = calls;
  trace.kernels.push_back({kernel, kGiven, true, {66, 1, 1}, {384, 1, 1}, calls, us_per_call * calls});
  return trace;
}

// Two shapes. Event / CUPTI per call: 64^3 ours 1.01 (within 3%), cuBLAS TN 0.95 (outside 3%,
// inside the flag's margin), cuBLASLt-autotune 0.5 (its events saw half: flagged); 4096^3 ours 1.02,
// cuBLAS TN untraced (CUPTI refused).
BenchRun traced_run() {
  BenchRun run;
  run.device = test_device();
  run.measured_at = "2026-12-03T15:00:00Z";
  run.peak_tflops = 800;
  run.peak_gbps = 4000;
  ShapeBench small{test_problem(64, 64, 64), true, "sm90", R"({"family":"sm90"})", {}, {}, {}};
  small.timings = {offline(Provider::Ours, 2.02), offline(Provider::CublasTn, 3.8),
                   offline(Provider::CublasltAutotune, 2.5)};
  small.traces = {{Provider::Ours, sample_trace("cl2_gemm", 2.0)},
                  {Provider::CublasTn, sample_trace("nvjet_sm90_hsh_64x8_64x16_1x4_h_bz_TNN", 4.0)},
                  {Provider::CublasltAutotune, sample_trace("nvjet_sm90_hsh_64x32_64x16_1x2_h_bz_TNN", 5.0)}};
  ShapeBench large{test_problem(4096, 4096, 4096), true, "sm90", R"({"family":"sm90"})", {}, {}, {}};
  large.timings = {offline(Provider::Ours, 204.0), offline(Provider::CublasTn, 210.0)};
  large.traces = {{Provider::Ours, sample_trace("cl2_gemm", 200.0, 2)},
                  {Provider::CublasTn, absent_trace("CUPTI cuptiActivityEnable failed: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES")}};
  run.shapes = {small, large};
  return run;
}

// The trimmed cells of the first Markdown table row whose first two cells are `shape` and `provider`.
std::vector<std::string> row_cells(const std::string& markdown, const std::string& shape, const std::string& provider) {
  std::istringstream lines(markdown);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> cells;
    std::istringstream parts(line);
    for (std::string cell; std::getline(parts, cell, '|');) {
      const auto first = cell.find_first_not_of(' '), last = cell.find_last_not_of(' ');
      cells.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
    }
    if (cells.size() > 2 && cells[1] == shape && cells[2] == provider) return {cells.begin() + 1, cells.end()};
  }
  return {};
}

const TraceComparison& find(const std::vector<TraceComparison>& all, const std::string& shape, Provider provider) {
  for (const auto& c : all)
    if (c.shape->problem().shape.text() == shape && c.provider == provider) return c;
  throw std::runtime_error("no comparison for " + shape);
}

}  // namespace

TEST(BenchTraces, ComparesEventTimeWithKernelTimePerCall) {
  const BenchRun run = traced_run();
  const BenchView view = make_bench_view(run);
  const auto all = trace_comparisons(view);
  ASSERT_EQ(all.size(), 5u);
  const TraceComparison& ours = find(all, "64x64x64", Provider::Ours);
  EXPECT_DOUBLE_EQ(ours.event_us, 2.02);
  EXPECT_DOUBLE_EQ(ours.kernel_us, 2.0);  // 16 us over 8 calls
  EXPECT_NEAR(ours.ratio, 1.01, 1e-12);
  EXPECT_EQ(ours.flag, "");
  EXPECT_EQ(find(all, "64x64x64", Provider::CublasTn).flag, "");
  EXPECT_NE(find(all, "64x64x64", Provider::CublasltAutotune).flag.find("below the 5.00 us per call"),
            std::string::npos);
  EXPECT_NEAR(find(all, "4096x4096x4096", Provider::Ours).kernel_us, 200.0, 1e-9);
  EXPECT_TRUE(std::isnan(find(all, "4096x4096x4096", Provider::CublasTn).ratio));

  const TraceAgreement every = trace_agreement(all, std::nullopt);
  EXPECT_EQ(every.traced, 4);
  EXPECT_EQ(every.absent, 1);
  EXPECT_EQ(every.within, 2);
  EXPECT_EQ(every.flagged, 1);
  ASSERT_NE(every.worst, nullptr);
  EXPECT_EQ(every.worst->provider, Provider::CublasltAutotune);
  const TraceAgreement ours_only = trace_agreement(all, Provider::Ours);
  EXPECT_EQ(ours_only.traced, 2);
  EXPECT_EQ(ours_only.within, 2);
  EXPECT_EQ(agreement_line("ours", ours_only),
            "ours: 2 traced; 2 of 2 within 3%; max |ratio - 1| 2.00% (4096x4096x4096 tn f32, ratio 1.020); 0 flagged");
  EXPECT_EQ(agreement_line("cuBLAS TN", trace_agreement(all, Provider::CublasTn)),
            "cuBLAS TN: 1 traced, 1 without a trace; 0 of 1 within 3%; max |ratio - 1| 5.00% (64x64x64 tn f32, "
            "ratio 0.950); 0 flagged");
}

TEST(BenchTraces, ReportWritesTraceFilesAndASummarySection) {
  TempDir dir;
  const BenchRun run = traced_run();
  write_bench_outputs(run, dir.file("out"));
  const std::string markdown = read_bytes(dir.file("out/trace.md"));
  EXPECT_NE(markdown.find("- all calls: 4 traced, 1 without a trace; 2 of 4 within 3%; max |ratio - 1| 50.00% "
                          "(64x64x64 tn f32, ratio 0.500); 1 flagged"),
            std::string::npos)
      << markdown;
  EXPECT_EQ(row_cells(markdown, "64x64x64 tn f32", "ours"),
            (std::vector<std::string>{"64x64x64 tn f32", "ours", "2.020", "2.000", "1.010", "-", "-", "-", "-", "8", "cl2_gemm", ""}))
      << markdown;
  EXPECT_NE(markdown.find("absent: CUPTI cuptiActivityEnable failed"), std::string::npos);
  EXPECT_NE(markdown.find("flagged: event time 2.50 us per call is below"), std::string::npos);

  const auto json = nlohmann::json::parse(read_bytes(dir.file("out/trace.json")));
  EXPECT_EQ(json.at("traced"), 4);
  EXPECT_EQ(json.at("within"), 2);
  EXPECT_EQ(json.at("flagged"), 1);
  EXPECT_DOUBLE_EQ(json.at("max_abs_deviation_pct").get<double>(), 50.0);
  ASSERT_EQ(json.at("calls").size(), 5u);
  EXPECT_EQ(json.at("calls")[0].at("provider"), "ours");
  EXPECT_DOUBLE_EQ(json.at("calls")[0].at("kernel_us_per_call").get<double>(), 2.0);
  EXPECT_TRUE(json.at("calls")[4].at("ratio").is_null());

  const std::string summary = read_bytes(dir.file("out/summary.md"));
  EXPECT_NE(summary.find("## Kernel traces: CUPTI against events (offline)"), std::string::npos);
  EXPECT_NE(summary.find("- ours: 2 traced; 2 of 2 within 3%"), std::string::npos) << summary;
}

TEST(BenchTraces, AgreementIsJudgedByTheTracedSampleItselfWhereThereIsOne) {
  // At the power cap the traced pass ran 15% longer than the timed samples (timed ratio 0.85),
  // while the traced replay's own events saw 1% more than its kernels: it agrees, by its own pass.
  BenchRun run = traced_run();
  CallTrace drifted = sample_trace("cl2_gemm", 240.0, 2);
  drifted.sample_pass = PassTiming{2 * 242.4, 2 * 240.0, 2 * 242.0};
  run.shapes[1].timings[0] = offline(Provider::Ours, 204.0);
  run.shapes[1].traces[0].trace = drifted;
  const BenchView view = make_bench_view(run);
  const auto all = trace_comparisons(view);
  const TraceComparison& large = find(all, "4096x4096x4096", Provider::Ours);
  EXPECT_NEAR(large.ratio, 0.85, 1e-12);
  EXPECT_NEAR(large.pass_event_us, 242.4, 1e-9);
  EXPECT_NEAR(large.pass_kernel_us, 240.0, 1e-9);
  EXPECT_NEAR(large.agreement_ratio(), 1.01, 1e-12);
  EXPECT_EQ(large.flag, "");
  EXPECT_NEAR(find(all, "64x64x64", Provider::Ours).agreement_ratio(), 1.01, 1e-12);  // no pass: the timed ratio
  EXPECT_EQ(agreement_line("ours", trace_agreement(all, Provider::Ours)),
            "ours: 2 traced (1 by their own pass, 1 of them within 3% of CUPTI's span); 2 of 2 within 3%; max |ratio - 1| 1.00% (64x64x64 tn f32, ratio "
            "1.010); 0 flagged");

  TempDir dir;
  write_bench_outputs(run, dir.file("out"));
  EXPECT_EQ(row_cells(read_bytes(dir.file("out/trace.md")), "4096x4096x4096 tn f32", "ours"),
            (std::vector<std::string>{"4096x4096x4096 tn f32", "ours", "204.000", "240.000", "0.850", "242.400",
                                      "242.000", "240.000", "1.010", "2", "cl2_gemm", ""}));
  const auto json = nlohmann::json::parse(read_bytes(dir.file("out/trace.json")));
  EXPECT_EQ(json.at("same_pass"), 1);
  EXPECT_EQ(json.at("same_pass_span_within"), 1);
  EXPECT_NEAR(json.at("calls")[3].at("same_pass_span_us_per_call").get<double>(), 242.0, 1e-9);
  EXPECT_NEAR(json.at("calls")[3].at("same_pass_ratio").get<double>(), 1.01, 1e-12);
  EXPECT_TRUE(json.at("calls")[0].at("same_pass_ratio").is_null());
}

TEST(BenchTraces, PassWithoutASpanIsJudgedByItsEventsButNotAgainstASpan) {
  // A pass stored before spans were recorded (span 0): judged by its events against its kernels,
  // its span shown as unmeasured and within nothing.
  BenchRun run = traced_run();
  CallTrace older = sample_trace("cl2_gemm", 240.0, 2);
  older.sample_pass = PassTiming{2 * 242.4, 2 * 240.0, 0.0};
  run.shapes[1].traces[0].trace = older;
  const BenchView view = make_bench_view(run);  // the comparisons point into it
  const auto all = trace_comparisons(view);
  const TraceComparison& large = find(all, "4096x4096x4096", Provider::Ours);
  EXPECT_TRUE(std::isnan(large.pass_span_us));
  EXPECT_NEAR(large.agreement_ratio(), 1.01, 1e-12);
  const TraceAgreement ours = trace_agreement(all, Provider::Ours);
  EXPECT_EQ(ours.same_pass, 1);
  EXPECT_EQ(ours.span_within, 0);
}

TEST(BenchTraces, RunJsonKeepsTracesAndOlderRunsReadWithout) {
  TempDir dir;
  const BenchRun run = traced_run();
  write_bench_outputs(run, dir.file("out"));
  const BenchRun back = read_bench_run(dir.file("out/run.json"));
  ASSERT_EQ(back.shapes.size(), 2u);
  ASSERT_EQ(back.shapes[1].traces.size(), 2u);
  EXPECT_EQ(back.shapes[1].traces[1].provider, Provider::CublasTn);
  EXPECT_EQ(back.shapes[1].traces[1].trace, run.shapes[1].traces[1].trace);
  EXPECT_EQ(back.shapes[0].traces[2].trace, run.shapes[0].traces[2].trace);

  auto old = nlohmann::json::parse(read_bytes(dir.file("out/run.json")));
  for (auto& shape : old.at("shapes")) shape.erase("traces");
  std::ofstream(dir.file("old.json")) << old.dump();
  const BenchRun untraced = read_bench_run(dir.file("old.json"));
  EXPECT_TRUE(untraced.shapes[0].traces.empty());
  write_bench_outputs(untraced, dir.file("old-out"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("old-out/trace.md")));
  EXPECT_EQ(read_bytes(dir.file("old-out/summary.md")).find("Kernel traces"), std::string::npos);
}

TEST(BenchTraces, TracingNeedsTheOfflineMode) {
  BenchOptions options;
  options.trace_kernels = true;
  options.mode = "server";
  try {
    make_bench_plan(options);
    FAIL() << "--trace-kernels --mode server was accepted";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "--trace-kernels with --mode server: traces are held against the offline GPU time; use --mode "
                 "offline or both");
  }
  options.mode = "both";
  EXPECT_TRUE(make_bench_plan(options).trace);
  options.trace_kernels = false;
  EXPECT_FALSE(make_bench_plan(options).trace);
}
