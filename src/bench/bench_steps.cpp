#include "bench/bench_steps.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"
#include "gpu/cuda_check.hpp"
#include "measure/problem_measurement.hpp"
#include "tune/rebuild.hpp"

namespace cl2 {

namespace {

// Host-side wall times spread 5-20% (scheduling, interrupts); a median to 0.5% takes a few hundred
// calls, and the wall-time cap bounds the noisiest.
StopRule wall_stop_rule() {
  return {.min_samples = 15, .max_samples = 2000, .max_error = 0.005, .min_seconds = 0.0, .max_seconds = 0.4};
}

// One timing per provider. `times[i]` is calls[i]'s, from CallTimer; the GPU figure comes from
// `graph_times` where the graph replays timed it, else from the call timed alone.
void add_timings(ShapeBench& shape, const std::vector<ProviderCall>& calls, const std::string& mode,
                 int interval, const ProviderTimes& graph_times, const std::vector<CallTimes>& times) {
  for (std::size_t i = 0; i < calls.size(); ++i) {
    ProviderTiming t;
    t.provider = calls[i].provider;
    t.mode = mode;
    t.interval_ms = interval;
    const auto graph = graph_times.find(t.provider);
    const TimingStats& g = graph != graph_times.end() ? graph->second : times[i].gpu;
    t.gpu_us = g.median_us;
    t.gpu_spread_pct = g.spread_pct;
    t.gpu_samples = g.samples;
    t.wall_us = times[i].wall.median_us;
    t.wall_spread_pct = times[i].wall.spread_pct;
    t.wall_samples = times[i].wall.samples;
    shape.timings.push_back(t);
  }
}

// Each call traced as one sample of its GPU timing `times` launched it, on the path tune's worker
// traces by (ProblemMeasurement::trace_kernels).
std::vector<ProviderTrace> traced_calls(ProblemMeasurement& measurement, const std::vector<ProviderCall>& calls,
                                        const ProviderTimes& times) {
  std::vector<ProviderTrace> traces;
  for (const auto& call : calls)
    traces.push_back({call.provider, measurement.trace_kernels(call.call, times.at(call.provider).calls_per_sample)});
  return traces;
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
    plan.runtime_explicit = plan.runtime_explicit || *provider == Provider::Runtime;
  }
  if (options.server_samples < 1) throw UserError("--server-samples must be at least 1");
  plan.trace = options.trace_kernels;
  if (plan.trace && !plan.offline)
    throw UserError(fmt::format("--trace-kernels with --mode {}: traces are held against the offline GPU time; "
                                "use --mode offline or both",
                                options.mode));
  if (plan.providers.count(Provider::Runtime)) {
    plan.runtime_db = options.runtime_db_path.empty() ? options.db_path : options.runtime_db_path;
    plan.runtime_explicit = plan.runtime_explicit || !options.runtime_db_path.empty();
  }
  else if (!options.runtime_db_path.empty())
    throw UserError(fmt::format("--runtime-db {}: the runtime is not among --providers; add runtime to them, or "
                                "leave --runtime-db out",
                                options.runtime_db_path));
  return plan;
}

BenchGpu::BenchGpu(const BenchOptions& o, const DeviceInfo& d) : options(o), context(d, o.cache_dir) {
  for (const auto& path : o.space_files) extra_families.push_back(load_family_file(path));
}

void measure_peaks(BenchGpu& gpu, BenchRun& run) {
  GpuContext& context = gpu.context;
  {
    const std::size_t bytes = std::size_t(1) << 30;
    DeviceBuffer src(bytes), dst(bytes);
    const TimedCall copy{"copy", [&](cudaStream_t s) {
                           CL2_CUDA(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, s));
                         }};
    const TimedCall read{"read", [&](cudaStream_t s) { context.utility.read_stream(src.get(), bytes, s); }};
    const auto times = context.timer.interleaved({copy, read}, final_stop_rule());
    run.peak_gbps = 2.0 * double(bytes) / times[0].median_us / 1e3;
    run.read_gbps = double(bytes) / times[1].median_us / 1e3;
  }
  ProblemMeasurement big(context, {{8192, 8192, 8192}, Layout::TN, Accum::F32});
  const ProviderCall cublas = big.library_call(Provider::CublasTn);
  const double us = big.time_side_by_side({cublas}, final_stop_rule()).at(cublas.provider).median_us;
  run.peak_tflops = big.problem().shape.flops() / us / 1e6;
}

ShapeBench bench_shape(BenchGpu& gpu, const TuningDb& db, std::int64_t device_id, const Problem& problem,
                       const BenchPlan& plan) {
  ShapeBench shape;
  shape.problem = problem;
  ProblemMeasurement measurement(gpu.context, problem);
  std::vector<ProviderCall> calls;
  std::unique_ptr<PreparedKernel> ours;
  const auto winner = db.winner(device_id, problem);
  if (winner && plan.providers.count(Provider::Ours)) {
    const auto kernel = db.kernel(winner->kernel_id);
    const BuiltCandidate built =
        rebuild_candidate(*kernel, problem, gpu.context.limits, gpu.extra_families, gpu.context.compiler);
    ours = measurement.prepare_kernel(built.compiled.cubin_path, built.candidate.launch);
    if (const Verification verified = measurement.verify(*ours); !verified.passed)
      throw std::runtime_error(fmt::format("{}: the stored winner fails verification now (max_diff {:.4g})",
                                           problem.text(), verified.max_diff));
    shape.has_winner = true;
    shape.winner_family = built.candidate.family->name;
    shape.winner_config = built.candidate.config.to_json();
    calls.push_back(measurement.kernel_call(*ours));
  }
  if (gpu.runtime && plan.providers.count(Provider::Runtime))
    calls.push_back(gpu.runtime->call(measurement, shape.runtime_route.emplace()));
  measurement.find_lt_algorithms(kLtAutotuneAlgorithms);
  if (plan.providers.count(Provider::CublasltAutotune)) measurement.autotune_lt(screening_stop_rule());
  for (const Provider provider : bench_providers())
    if (plan.providers.count(provider) && measurement.has_call(provider))
      calls.push_back(measurement.library_call(provider));
  if (calls.empty()) return shape;
  std::vector<TimedCall> timed;
  for (const auto& call : calls) timed.push_back(call.call);
  CallTimer call_timer(gpu.context.stream,
                       problem.l2 == L2Policy::Flush ? &gpu.context.l2_flusher() : nullptr);
  if (plan.offline) {
    // GPU time under the problem's L2 policy: graph replays (warm; rotate, cycling the operand
    // copies), or each call alone after a flush.
    const ProviderTimes gpu_times = measurement.time_side_by_side(calls, final_stop_rule());
    if (plan.trace) shape.traces = traced_calls(measurement, calls, gpu_times);
    add_timings(shape, calls, "offline", 0, gpu_times, call_timer.back_to_back(timed, wall_stop_rule()));
  }
  if (plan.server)
    for (int interval : gpu.options.intervals_ms)
      add_timings(shape, calls, "server", interval, {},
                  call_timer.after_idle_gaps(timed, interval, gpu.options.server_samples));
  return shape;
}

}  // namespace cl2
