#include "bench/bench_steps.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_query.hpp"
#include "gpu/prepared_kernel.hpp"
#include "gpu/problem_setup.hpp"
#include "tune/rebuild.hpp"

namespace cl2 {

namespace {

StopRule wall_stop_rule() {
  return {.min_samples = 15, .max_samples = 2000, .max_noise = 0.02, .min_seconds = 0.0, .max_seconds = 0.4};
}

void add_timings(ShapeBench& shape, const std::vector<Provider>& names, const std::string& mode,
                 int interval, const std::vector<TimingStats>& gpu, const std::vector<CallTimes>& calls) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    ProviderTiming t;
    t.provider = names[i];
    t.mode = mode;
    t.interval_ms = interval;
    const TimingStats& g = gpu.empty() ? calls[i].gpu : gpu[i];
    t.gpu_us = g.median_us;
    t.gpu_spread_pct = g.spread_pct;
    t.gpu_samples = g.samples;
    t.wall_us = calls[i].wall.median_us;
    t.wall_spread_pct = calls[i].wall.spread_pct;
    t.wall_samples = calls[i].wall.samples;
    shape.timings.push_back(t);
  }
}

}  // namespace

BenchPlan make_bench_plan(const BenchOptions& options) {
  BenchPlan plan;
  if (options.mode != "offline" && options.mode != "server" && options.mode != "both")
    throw UserError(fmt::format("--mode {}: unknown mode; use offline, server or both", options.mode));
  plan.offline = options.mode != "server";
  plan.server = options.mode != "offline";
  for (int interval : options.intervals_ms)
    if (interval <= 0 || interval > 10000)
      throw UserError(fmt::format("--interval-ms {}: must be between 1 and 10000 ms", interval));
  for (const auto& name : options.providers) {
    if (name == "all") {
      plan.providers.insert(bench_providers().begin(), bench_providers().end());
      continue;
    }
    const auto provider = find_provider(name);
    if (!provider || std::find(bench_providers().begin(), bench_providers().end(), *provider) == bench_providers().end())
      throw UserError(fmt::format("--providers {}: unknown provider; choose from {} or all", name,
                                  provider_names(bench_providers())));
    plan.providers.insert(*provider);
    plan.torch_explicit = plan.torch_explicit || *provider == Provider::Torch;
  }
  if (options.server_samples < 1) throw UserError("--server-samples must be at least 1");
  return plan;
}

BenchGpu::BenchGpu(const BenchOptions& o, const DeviceInfo& d) : options(o), device(d), limits(device_limits(d)) {
  CL2_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  compiler = std::make_unique<KernelCompiler>(o.cache_dir);
  utility = std::make_unique<UtilityKernels>(*compiler, limits.nvrtc_arch());
  cublas = std::make_unique<CublasProviders>();
  if (o.cold_l2) flusher = std::make_unique<L2Flusher>(std::size_t(d.l2_bytes));
  for (const auto& path : o.space_files) extra_families.push_back(load_family_file(path));
}

BenchGpu::~BenchGpu() {
  if (stream) cudaStreamDestroy(stream);
}

void measure_peaks(BenchGpu& gpu, BenchRun& run) {
  IntervalTimer timer(gpu.stream);
  {
    const std::size_t bytes = std::size_t(1) << 30;
    DeviceBuffer src(bytes), dst(bytes);
    const TimedCall copy{"copy", [&](cudaStream_t s) {
                           CL2_CUDA(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, s));
                         }};
    const double us = timer.interleaved({copy}, final_stop_rule())[0].median_us;
    run.peak_gbps = 2.0 * double(bytes) / us / 1e3;
  }
  const Problem big{{8192, 8192, 8192}, Layout::TN, Accum::F32};
  auto buffers = make_problem_buffers(big, gpu.device, *gpu.utility, *gpu.cublas, gpu.stream);
  const double us = timer.interleaved({gpu.cublas->gemm_ex(*buffers, 0, Layout::TN)}, final_stop_rule())[0].median_us;
  run.peak_tflops = big.shape.flops() / us / 1e6;
}

ShapeBench bench_shape(BenchGpu& gpu, const TuningDb& db, std::int64_t device_id, const Problem& problem,
                       const BenchPlan& plan) {
  ShapeBench shape;
  shape.problem = problem;
  auto buffers = make_problem_buffers(problem, gpu.device, *gpu.utility, *gpu.cublas, gpu.stream);
  const OutputChecker checker(*buffers, *gpu.utility, gpu.stream);
  std::vector<TimedCall> calls;
  std::vector<Provider> names;
  std::unique_ptr<PreparedKernel> ours;
  const auto winner = db.winner(device_id, problem);
  if (winner && plan.providers.count(Provider::Ours)) {
    const auto kernel = db.kernel(winner->kernel_id);
    const BuiltCandidate built = rebuild_candidate(*kernel, problem, gpu.limits, gpu.extra_families, *gpu.compiler);
    ours = std::make_unique<PreparedKernel>(built.compiled.cubin_path, built.candidate.launch, *buffers);
    for (int set = 0; set < 2; ++set) {
      const double diff = checker.max_diff([&](cudaStream_t s) { ours->launch(s, set); }, set);
      if (!(diff <= checker.tolerance(set)))
        throw std::runtime_error(fmt::format("{}: the stored winner fails verification now (max_diff {:.4g})",
                                             problem.text(), diff));
    }
    shape.has_winner = true;
    shape.winner_family = built.candidate.family->name;
    shape.winner_config = built.candidate.config.to_json();
    calls.push_back({"ours", [&](cudaStream_t s) { ours->launch(s, 0); }});
    names.push_back(Provider::Ours);
  }
  for (Layout layout : {Layout::NN, Layout::TN}) {
    const Provider name = cublas_gemm_ex(layout);
    if (plan.providers.count(name)) {
      calls.push_back(gpu.cublas->gemm_ex(*buffers, 0, layout));
      names.push_back(name);
    }
  }
  const auto algorithms = gpu.cublas->lt_algorithms(*buffers, 64);
  if (!algorithms.empty() && plan.providers.count(Provider::CublasltHeuristic)) {
    calls.push_back(gpu.cublas->lt_matmul(*buffers, 0, algorithms.front()));
    names.push_back(Provider::CublasltHeuristic);
  }
  if (!algorithms.empty() && plan.providers.count(Provider::CublasltAutotune)) {
    std::vector<TimedCall> lt;
    for (const auto& algo : algorithms) lt.push_back(gpu.cublas->lt_matmul(*buffers, 0, algo));
    IntervalTimer screen(gpu.stream);
    const auto stats = screen.interleaved(lt, screening_stop_rule());
    std::size_t best = 0;
    for (std::size_t i = 1; i < stats.size(); ++i)
      if (stats[i].median_us < stats[best].median_us) best = i;
    calls.push_back(lt[best]);
    names.push_back(Provider::CublasltAutotune);
  }
  if (calls.empty()) return shape;
  CallTimer call_timer(gpu.stream, gpu.flusher.get());
  if (plan.offline) {
    // Warm L2: GPU time from graph replays. Cold L2: each call alone after a flush.
    std::vector<TimingStats> graph_times;
    if (!gpu.flusher) graph_times = IntervalTimer(gpu.stream).interleaved(calls, final_stop_rule());
    add_timings(shape, names, "offline", 0, graph_times, call_timer.back_to_back(calls, wall_stop_rule()));
  }
  if (plan.server)
    for (int interval : gpu.options.intervals_ms)
      add_timings(shape, names, "server", interval, {},
                  call_timer.after_idle_gaps(calls, interval, gpu.options.server_samples));
  return shape;
}

}  // namespace cl2
