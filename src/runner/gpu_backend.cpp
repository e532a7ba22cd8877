// The worker's GPU side: the device's measurement context and the problem it holds, measured on
// the path bench shares (measure/); what is left here is the worker's policy: which library call
// candidates are judged against, which failures are a trial's result rather than an error, and
// that with --trace-kernels every timed call is traced as one of its timed samples runs (what the
// traces mean is the tuner's to judge).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "core/errors.hpp"
#include "core/verification.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_query.hpp"
#include "gpu/prepared_kernel.hpp"
#include "gpu/timing_log.hpp"
#include "measure/gpu_context.hpp"
#include "measure/problem_measurement.hpp"
#include "runner/worker_backend.hpp"

namespace cl2 {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Wall seconds since the last lap (or construction), for the timing log's trial steps.
class StepClock {
 public:
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    return std::chrono::duration<double>(now - std::exchange(last_, now)).count();
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

TrialReply launch_failed(const GpuError& e) {
  return {.status = TrialStatus::LaunchFailed, .reason = e.what()};
}

FinalistTiming failed_finalist(const Verification& v) {
  FinalistTiming failed;
  failed.max_diff = v.max_diff;
  failed.status = TrialStatus::VerifyFailed;
  failed.reason = v.failure;
  return failed;
}

// How many times a timing launched the call (what a check after it has seen run).
long long launches_of(const TimingStats& stats) { return stats.samples * stats.calls_per_sample; }

TrialReply verify_failed(const Verification& v) {
  return {.status = TrialStatus::VerifyFailed,
          .reason = v.failure,
          .max_diff = v.max_diff,
          .tolerance = v.tolerance};
}

// cuBLAS reading B in the other layout than the problem's: same cost, another product.
bool other_product(Provider provider, Layout layout) {
  return (provider == Provider::CublasNn || provider == Provider::CublasTn) && provider != cublas_gemm_ex(layout);
}

std::string baseline_detail(const ProblemMeasurement& problem, Provider provider) {
  if (provider == Provider::CublasltAutotune) return problem.lt_autotune_detail();
  if (provider == Provider::CublasltHeuristic)
    return problem.timed_as(provider) == provider ? "heuristic top-1"
                                                  : "heuristic top-1, which autotune chose too: one call, timed once";
  if (other_product(provider, problem.problem().layout))
    return "GemmEx reading B in the other layout (same cost, other product)";
  return "GemmEx";
}

class GpuBackend final : public WorkerBackend {
 public:
  explicit GpuBackend(const WorkerOptions& options)
      : gpu_(query_device(options.device), options.cache_dir), trace_kernels_(options.trace_kernels) {}

  HelloReply hello() override { return {gpu_.device}; }

  ProblemReply set_problem(const ProblemRequest& request) override {
    problem_.reset();  // the last problem's memory is freed before the next one is allocated
    problem_ = std::make_unique<ProblemMeasurement>(gpu_, request.problem);
    return {problem_->max_abs_reference()};
  }

  BaselinesReply baselines(const BaselinesRequest& request) override {
    ProblemMeasurement& problem = held_problem();
    problem.find_lt_algorithms(request.max_algorithms);
    problem.autotune_lt(request.screen);
    std::vector<ProviderCall> calls;
    BaselinesReply reply{{}, problem.tolerance()};
    for (const Provider provider : problem.library_providers()) {
      reply.baselines.push_back({provider, {}, kNaN, baseline_detail(problem, provider), problem.lt_algo_config(provider)});
      if (problem.timed_as(provider) != provider) continue;  // filled in from the call that is its own
      calls.push_back(problem.library_call(provider));
      // Another product has no reference to be checked against.
      if (!other_product(provider, problem.problem().layout)) reply.baselines.back().max_diff = problem.max_diff(calls.back().call);
    }
    const ProviderTimes times = problem.time_side_by_side(calls, request.timing);
    std::map<Provider, std::optional<CallTrace>> traces;
    for (const auto& call : calls) traces[call.provider] = traced(problem, call.call, times.at(call.provider));
    const auto own = [&](Provider provider) {
      return *std::find_if(reply.baselines.begin(), reply.baselines.end(),
                           [&](const auto& b) { return b.provider == provider; });
    };
    for (auto& baseline : reply.baselines) {
      const Provider timed = problem.timed_as(baseline.provider);
      if (timed != baseline.provider) baseline.max_diff = own(timed).max_diff;
      baseline.stats = times.at(timed);
      baseline.trace = traces.at(timed);
    }
    return reply;
  }

  // Each candidate is loaded and verified alone; those that pass are timed together, each beside
  // the library call until its ratio to it settles, then checked again one by one (a brief check:
  // the first input set before, nothing after; protocol.hpp says why that is enough).
  TrialsReply trials(const TrialRequest& request) override {
    ProblemMeasurement& problem = held_problem();
    TrialsReply reply{std::vector<TrialReply>(request.kernels.size())};
    struct Verified {
      std::size_t at;  // its place in the request
      std::unique_ptr<PreparedKernel> kernel;
      Verification verification;
      TrialSteps steps;
    };
    std::vector<Verified> verified;
    for (std::size_t i = 0; i < request.kernels.size(); ++i) {
      const KernelRun& run = request.kernels[i];
      TrialSteps steps;
      StepClock clock;
      try {
        auto kernel = problem.prepare_kernel(run.cubin_path, run.launch);
        steps.prepare_seconds = clock.lap();
        Verification verification = request.brief_check ? problem.verify_first_set(*kernel) : problem.verify(*kernel);
        steps.verify_seconds = clock.lap();
        if (verification.passed) verified.push_back({i, std::move(kernel), std::move(verification), steps});
        else reply.trials[i] = verify_failed(verification);
      } catch (const GpuError& e) {
        if (e.sticky) throw;                 // the context is unusable: the worker ends after its reply
        reply.trials[i] = launch_failed(e);  // the candidate's own failure, recorded as its trial
      }
    }
    if (verified.empty()) return reply;
    StepClock clock;
    std::vector<TimedCall> calls = {problem.library_call(reference_provider(problem)).call};
    for (const auto& v : verified) {
      calls.push_back(problem.kernel_call(*v.kernel).call);
      calls.back().warm = true;  // verification ran it
    }
    // The wall-time budget is each candidate's: timed together, each may take as long as alone.
    StopRule rule = request.kernels[verified.front().at].stop;
    rule.max_seconds *= double(verified.size());
    const auto times = problem.time_beside_first(calls, rule);
    const double measure_share = clock.lap() / double(verified.size());  // one measurement, shared
    for (std::size_t j = 0; j < verified.size(); ++j) {
      Verified& v = verified[j];
      const TimingStats& ours = times[j].call;
      v.steps.measure_seconds = measure_share;
      StepClock step;
      if (!request.brief_check) {
        const Verification again = problem.verify_again(*v.kernel, v.verification, launches_of(ours));
        v.steps.verify_again_seconds = step.lap();
        if (!again.passed) {
          reply.trials[v.at] = verify_failed(again);
          continue;
        }
      }
      reply.trials[v.at] = {TrialStatus::Ok, "", v.verification.max_diff, v.verification.tolerance, ours,
                            times[j].first, traced(problem, calls[j + 1], ours)};
      v.steps.trace_seconds = step.lap();
      if (const std::string& log = timing_log_path(); !log.empty()) append_trial_steps(log, v.steps);
    }
    return reply;
  }

  // Each finalist is verified in full (a raced one was checked on its first input set only), the
  // ones that pass are timed with the library calls, then checked again as a trial is.
  FinalReply final_round(const FinalRequest& request) override {
    if (request.finalists.empty()) throw std::runtime_error("final round without finalists");
    ProblemMeasurement& problem = held_problem();
    FinalReply reply{std::vector<FinalistTiming>(request.finalists.size()), {}};
    struct Checked {
      std::size_t at;  // its place in the request
      std::unique_ptr<PreparedKernel> kernel;
      Verification verification;
    };
    std::vector<Checked> checked;
    std::vector<TimedCall> calls;
    for (std::size_t i = 0; i < request.finalists.size(); ++i) {
      const KernelRun& run = request.finalists[i];
      auto kernel = problem.prepare_kernel(run.cubin_path, run.launch);
      Verification verification = problem.verify(*kernel);
      if (!verification.passed) {
        reply.finalists[i] = failed_finalist(verification);
        continue;
      }
      calls.push_back(problem.kernel_call(*kernel).call);
      calls.back().warm = true;  // by the checks
      // The first input set's, as every library call's is.
      reply.finalists[i].max_diff = problem.max_diff(calls.back());
      checked.push_back({i, std::move(kernel), std::move(verification)});
    }
    if (checked.empty()) return reply;
    std::map<Provider, std::size_t> timed_at;  // each library call's place among the timed calls
    for (const Provider provider : problem.library_providers())
      if (problem.timed_as(provider) == provider) {
        timed_at[provider] = calls.size();
        calls.push_back(problem.library_call(provider).call);
      }
    const std::vector<TimingStats> stats = problem.time_interleaved(calls, request.finalists.front().stop);
    for (std::size_t j = 0; j < checked.size(); ++j) {
      FinalistTiming& finalist = reply.finalists[checked[j].at];
      const Checked& c = checked[j];
      const Verification again = problem.verify_again(*c.kernel, c.verification, launches_of(stats[j]));
      if (again.passed) finalist.stats = stats[j];
      else finalist = failed_finalist(again);
    }
    for (const Provider provider : problem.library_providers())
      reply.times[provider] = stats[timed_at.at(problem.timed_as(provider))];
    return reply;
  }

  ProfileReply profile(const ProfileRequest& request) override {
    ProblemMeasurement& problem = held_problem();
    const auto kernel = problem.prepare_kernel(request.kernel.cubin_path, request.kernel.launch);
    if (const Verification verified = problem.verify(*kernel); !verified.passed)
      throw std::runtime_error("the kernel to profile fails verification: " + verified.failure);
    ProfileReply reply;
    problem.find_lt_algorithms(request.max_algorithms);
    if (request.library_algo && problem.choose_lt_algorithm(*request.library_algo)) {
      reply.library_detail = "the algorithm tune chose";
    } else {
      problem.autotune_lt(screening_stop_rule());
      reply.library_detail = fmt::format("{}, chosen now: {}", problem.lt_autotune_detail(),
                                         request.library_algo ? "cuBLASLt no longer offers the one tune chose"
                                                              : "tune recorded none");
    }
    reply.library = problem.has_call(Provider::CublasltAutotune) ? Provider::CublasltAutotune
                                                                 : cublas_gemm_ex(problem.problem().layout);
    reply.library_algo = problem.lt_algo_config(reply.library);
    const ProviderCall library = problem.library_call(reply.library);
    // Its output checked, which also runs it once before its counted launch, as ours ran in verify.
    if (const double diff = problem.max_diff(library.call); !passes_verification(diff, problem.tolerance()))
      throw std::runtime_error(fmt::format("{} fails verification: max_diff {:.4g}", to_string(reply.library), diff));
    reply.ours = problem.count(problem.kernel_call(*kernel).call);
    reply.library_counters = problem.count(library.call);
    return reply;
  }

 private:
  ProblemMeasurement& held_problem() {
    if (!problem_) throw std::runtime_error("no problem set: send op=problem first");
    return *problem_;
  }

  // Candidates are judged against cuBLASLt's autotuned algorithm once baselines chose it, else
  // against cuBLAS.
  static Provider reference_provider(const ProblemMeasurement& problem) {
    return problem.has_call(Provider::CublasltAutotune) ? Provider::CublasltAutotune
                                                        : cublas_gemm_ex(problem.problem().layout);
  }

  // `timed`: the call's timing, whose samples the traced pass launches as they were launched.
  std::optional<CallTrace> traced(ProblemMeasurement& problem, const TimedCall& call, const TimingStats& timed) const {
    if (!trace_kernels_) return std::nullopt;
    return problem.trace_kernels(call, timed.calls_per_sample);
  }

  GpuContext gpu_;
  const bool trace_kernels_;
  std::unique_ptr<ProblemMeasurement> problem_;
};

}  // namespace

std::unique_ptr<WorkerBackend> make_gpu_backend(const WorkerOptions& options) {
  const std::string reason = gpu_unavailable_reason(options.device);
  if (!reason.empty()) throw UserError(reason);
  return std::make_unique<GpuBackend>(options);
}

}  // namespace cl2
