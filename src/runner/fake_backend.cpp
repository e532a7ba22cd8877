// A worker without a GPU, for the CPU tests of the tuning loop: it answers every request with
// deterministic made-up numbers (a hash of the kernel configuration), and misbehaves on request
// so the parent's recovery paths can be tested: a config parameter FAULT = 1 makes it crash like a
// kernel with an illegal address would, FAULT = 2 makes it hang until the watchdog kills it.
// A config parameter US10 sets its time (in tenths of a microsecond); FAULT = 6 makes its trial
// screen 4% faster than the final round then times it (a lucky screening); FAULT = 7 makes it race
// 30% faster than it screens (tune --strategy race: a lucky brief timing); FAULT = 8 passes its
// trials and fails the final round's checks.
// CL2_FAKE_TRIAL_DELAY_MS slows each trial down, so a test can kill a run in the middle;
// CL2_FAKE_TRIAL_LOG names a file that gets one line per trial request (the configuration, whether
// the check was brief, and the stopping rule's max_samples), so a test can count them.
// With --trace-kernels its traces are made up too, but only where CUPTI loads (the real loader, so
// CL2_CUPTI_LIBRARY takes the no-CUPTI path here as on a GPU): FAULT = 5 launches a second kernel on another stream,
// as does the library provider CL2_FAKE_SIDE_STREAM names (e.g. cublas_nn). Its counters, likewise,
// are made up where CUPTI's profiler starts.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "core/device_info.hpp"
#include "core/hash.hpp"
#include "core/kernel_config.hpp"
#include "gpu/counter_profiler.hpp"
#include "gpu/cupti_api.hpp"
#include "runner/worker_backend.hpp"

namespace cl2 {

namespace {

// Back-to-back calls per timed sample, as a GPU's graph replays make them; a trace covers one sample.
constexpr int kFakeCallsPerSample = 4;

TimingStats fake_stats(double us) {
  TimingStats s;
  s.median_us = s.mean_us = s.min_us = s.max_us = us;
  s.spread_pct = 0.1;
  s.samples = 10;
  s.calls_per_sample = kFakeCallsPerSample;
  return s;
}

// What the H200's cuBLASLt picked for 64x64x64 (data/h200-cublaslt-choices-2026-12-01.csv), so the
// tuning loop stores and shows algorithms on machines without a GPU.
std::optional<LtAlgoConfig> fake_lt_algo(Provider provider) {
  if (provider == Provider::CublasltHeuristic) return LtAlgoConfig{66, "64x8", "64xAUTO", 1, "none", 0, 3, "1x4x1"};
  if (provider == Provider::CublasltAutotune) return LtAlgoConfig{66, "64x32", "64xAUTO", 1, "none", 0, 3, "1x2x1"};
  return std::nullopt;
}

// Counters of a call of `us` per call, made up where CUPTI's profiler starts (the real loader and
// check, so CL2_CUPTI_LIBRARY takes the no-CUPTI and no-permission paths here as on a GPU): a
// kernel that keeps the tensor pipe busy the faster it is.
CallCounters fake_counters(double us) {
  if (std::string why = profiler_unavailable(cupti_library()); !why.empty()) return absent_counters(std::move(why));
  CallCounters c;
  c.set(CounterMetric::GpuTimeUs, us);
  c.set(CounterMetric::DramThroughputPct, 20.0);
  c.set(CounterMetric::DramReadBytes, 8.0e6);
  c.set(CounterMetric::L2Bytes, 6.3e7);
  c.set(CounterMetric::L2ThroughputPct, 35.0);
  c.set(CounterMetric::TensorActivePct, 1000.0 / us);
  c.set(CounterMetric::OccupancyPct, 18.75);
  return c;
}

// CUPTI's stream id of the stream a fake call is given, and of another one.
constexpr std::uint32_t kGivenStream = 13, kSideStream = 14;

// A kernel launched once per call of a traced sample, for `us_per_call` each time.
TracedKernel fake_kernel(std::string name, double us_per_call, std::uint32_t stream = kGivenStream) {
  return {std::move(name), stream, stream == kGivenStream, {132, 1, 1}, {384, 1, 1}, kFakeCallsPerSample,
          us_per_call * kFakeCallsPerSample};
}

// What one sample of a call of `event_us` per call ran: `kernels`, their durations summing to 90%
// of it per call, and with `side_stream` a copy of the last one on another stream.
std::optional<CallTrace> fake_trace(bool on, std::vector<std::string> kernels, double event_us, bool side_stream) {
  if (!on) return std::nullopt;
  if (const CuptiLibrary& cupti = cupti_library(); !cupti.api) return absent_trace(cupti.unavailable);
  CallTrace trace;
  trace.calls = kFakeCallsPerSample;
  for (auto& name : kernels) trace.kernels.push_back(fake_kernel(std::move(name), 0.9 * event_us / double(kernels.size())));
  if (side_stream) trace.kernels.push_back(fake_kernel(trace.kernels.back().name, event_us, kSideStream));
  return trace;
}

// Library kernel names of the kind the H200 runs (nvjet names encode tile, stages, cluster and
// split-K); made up for the tests, not measured.
std::vector<std::string> fake_library_kernels(Provider provider) {
  if (provider == Provider::CublasltAutotune) return {"nvjet_sm90_hsh_64x32_64x16_1x2_h_bz_TNN"};
  if (provider == Provider::CublasltHeuristic) return {"nvjet_sm90_hsh_64x8_64x16_1x4_h_bz_TNN"};
  return {"nvjet_sm90_hsh_64x128_64x8_2x1_v_bz_splitK_TNN", "splitKreduce_kernel"};
}

bool fake_side_stream(Provider provider) {
  const char* named = std::getenv("CL2_FAKE_SIDE_STREAM");
  return named && to_string(provider) == named;
}

class FakeBackend final : public WorkerBackend {
 public:
  explicit FakeBackend(bool trace_kernels) : trace_kernels_(trace_kernels) {}

  HelloReply hello() override { return {device()}; }

  ProblemReply set_problem(const ProblemRequest&) override { return {{1.0, 4.0}}; }

  BaselinesReply baselines(const BaselinesRequest&) override {
    BaselinesReply reply{{}, 0.01};
    for (const Provider provider : {Provider::CublasTn, Provider::CublasNn, Provider::CublasltHeuristic,
                                    Provider::CublasltAutotune})
      reply.baselines.push_back({provider, fake_stats(50.0), 0.0, "fake", fake_lt_algo(provider),
                                 fake_trace(trace_kernels_, fake_library_kernels(provider), 50.0, fake_side_stream(provider))});
    return reply;
  }

  TrialsReply trials(const TrialRequest& request) override {
    TrialsReply reply;
    for (const auto& run : request.kernels) reply.trials.push_back(trial(run, request.brief_check));
    return reply;
  }

  ProfileReply profile(const ProfileRequest& request) override {
    const double ours = time_of(request.kernel.config);
    return {fake_counters(ours), Provider::CublasltAutotune,
            request.library_algo ? "the algorithm tune chose" : "algo #0 of 1 tried, chosen now: tune recorded none",
            request.library_algo ? request.library_algo : fake_lt_algo(Provider::CublasltAutotune),
            fake_counters(48.0)};
  }

  FinalReply final_round(const FinalRequest& request) override {
    FinalReply reply;
    for (const auto& run : request.finalists) {
      FinalistTiming& finalist = reply.finalists.emplace_back();
      finalist.max_diff = 0.0;
      if (fault_of(run.config) == 8) {
        finalist.status = TrialStatus::VerifyFailed;
        finalist.reason = "not deterministic (FAULT=8 fails the final round's checks)";
        continue;
      }
      // Clocks as NVML would report them on the H200 (rated 1980 MHz), two rounds throttled.
      finalist.stats = fake_stats(time_of(run.config));
      finalist.stats.sm_clock_mhz = 1980;
      finalist.stats.throttled_rounds = 2;
    }
    reply.times = {{Provider::CublasTn, fake_stats(50.0)},
                   {Provider::CublasNn, fake_stats(51.0)},
                   {Provider::CublasltHeuristic, fake_stats(49.0)},
                   {Provider::CublasltAutotune, fake_stats(48.0)}};
    return reply;
  }

 private:
  static DeviceInfo device() {
    DeviceInfo d;
    d.name = "Fake GPU (cuda-l2-tune tests)";
    d.cc_major = 9;
    d.cc_minor = 0;
    d.num_sms = 132;
    d.l2_bytes = 50 << 20;
    d.smem_optin_bytes = 227 * 1024;
    d.smem_per_sm_bytes = 228 * 1024;
    d.regs_per_sm = 65536;
    d.global_mem_bytes = d.free_mem_bytes = 140ll << 30;
    d.driver_version = d.cuda_runtime_version = "fake";
    d.cublas_version = d.nvrtc_version = "fake";
    return d;
  }

  // A made-up time per configuration, the same in every run.
  static double time_of(const KernelConfig& config) {
    if (const auto set = config.params.find("US10"); set != config.params.end()) return double(set->second) / 10;
    const std::string hash = content_hash(config.to_json());
    return 10.0 + double(std::stoul(hash.substr(0, 6), nullptr, 16) % 1000) / 10.0;
  }

  // The configuration's FAULT parameter, 0 where it has none.
  static int fault_of(const KernelConfig& config) {
    const auto fault = config.params.find("FAULT");
    return fault != config.params.end() ? int(fault->second) : 0;
  }

  // One candidate of a "trial" request; FAULT=1 (a crash) and 2 (a hang) take the whole request.
  TrialReply trial(const KernelRun& run, bool brief_check) const {
    const KernelConfig& config = run.config;
    if (const char* log = std::getenv("CL2_FAKE_TRIAL_LOG"))
      std::ofstream(log, std::ios::app) << config.to_json() << " brief_check=" << brief_check
                                        << " max_samples=" << run.stop.max_samples << "\n";
    if (const char* delay = std::getenv("CL2_FAKE_TRIAL_DELAY_MS"))
      std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(delay)));
    const int fault = fault_of(config);
    if (fault == 1) {
      std::fputs("fake worker: simulated illegal memory access\n", stderr);
      _exit(3);
    }
    if (fault == 2)
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    const bool raced = run.stop == race_stop_rule();
    const double us = time_of(config) * (fault == 6 ? 0.96 : fault == 7 && raced ? 0.7 : 1.0);
    return {TrialStatus::Ok, "", 0.0, 0.01, fake_stats(us), fake_stats(48.0),
            fake_trace(trace_kernels_, {"cl2_gemm"}, us, /*side_stream=*/fault == 5)};
  }

  const bool trace_kernels_;
};

}  // namespace

std::unique_ptr<WorkerBackend> make_fake_backend(const WorkerOptions& options) {
  return std::make_unique<FakeBackend>(options.trace_kernels);
}

}  // namespace cl2
