// The worker's GPU side: owns the device, the problem's buffers, cuBLAS and the timers.
#include <fmt/format.h>

#include <memory>
#include <optional>

#include "compiler/kernel_compiler.hpp"
#include "core/errors.hpp"
#include "core/verification.hpp"
#include "gpu/cublas_providers.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_query.hpp"
#include "gpu/prepared_kernel.hpp"
#include "gpu/problem_setup.hpp"
#include "gpu/utility_kernels.hpp"
#include "runner/protocol.hpp"
#include "runner/worker_backend.hpp"

namespace cl2 {

namespace {

class GpuBackend final : public WorkerBackend {
 public:
  explicit GpuBackend(const WorkerOptions& options)
      : compiler_(options.cache_dir), device_(query_device(options.device)) {
    CL2_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    timer_ = std::make_unique<IntervalTimer>(stream_);
    utility_ = std::make_unique<UtilityKernels>(compiler_, device_limits(device_).nvrtc_arch());
    cublas_ = std::make_unique<CublasProviders>();
  }

  HelloReply hello() override { return {device_}; }

  ProblemReply set_problem(const ProblemRequest& request) override {
    checker_.reset();
    buffers_.reset();
    best_lt_.reset();
    heuristic_lt_.reset();
    buffers_ = make_problem_buffers(request.problem, device_, *utility_, *cublas_, stream_);
    checker_ = std::make_unique<OutputChecker>(*buffers_, *utility_, stream_);
    return {{buffers_->sets[0].max_abs_ref, buffers_->sets[1].max_abs_ref}};
  }

  BaselinesReply baselines(const BaselinesRequest& request) override {
    require_problem();
    return baselines(request.max_algorithms, request.screen, request.final_rule);
  }

  TrialReply trial(const TrialRequest& request) override {
    require_problem();
    return trial(request.kernel);
  }

  FinalReply final_round(const FinalRequest& request) override {
    require_problem();
    return final_round(request.kernel);
  }

 private:
  void require_problem() const {
    if (!buffers_) throw std::runtime_error("no problem set: send op=problem first");
  }

  double check(const std::function<void(cudaStream_t)>& launch, int set) {
    return checker_->max_diff(launch, set);
  }

  double tolerance(int set) const { return checker_->tolerance(set); }

  BaselinesReply baselines(int max_algos, const StopRule& screen, const StopRule& final_rule) {
    const Layout own = buffers_->problem.layout;
    const Layout other = own == Layout::TN ? Layout::NN : Layout::TN;
    TimedCall own_call = cublas_->gemm_ex(*buffers_, 0, own);
    TimedCall other_call = cublas_->gemm_ex(*buffers_, 0, other);
    const double own_diff = check(own_call.launch, 0);

    const auto algorithms = cublas_->lt_algorithms(*buffers_, max_algos);
    std::vector<TimedCall> lt_calls;
    for (const auto& algo : algorithms) lt_calls.push_back(cublas_->lt_matmul(*buffers_, 0, algo));
    std::vector<TimedCall> finals = {own_call, other_call};
    BaselinesReply out;
    out.tolerance = tolerance(0);
    double heuristic_diff = kNaN, best_diff = kNaN;
    std::size_t best = 0;
    if (!lt_calls.empty()) {
      heuristic_lt_ = algorithms.front();
      heuristic_diff = check(lt_calls.front().launch, 0);
      const auto screened = timer_->interleaved(lt_calls, screen);
      for (std::size_t i = 1; i < screened.size(); ++i)
        if (screened[i].median_us < screened[best].median_us) best = i;
      best_lt_ = algorithms[best];
      best_diff = check(lt_calls[best].launch, 0);
      finals.push_back(lt_calls.front());
      finals.push_back(lt_calls[best]);
    }
    const auto stats = timer_->interleaved(finals, final_rule);
    out.baselines.push_back({cublas_gemm_ex(own), stats[0], own_diff, "GemmEx"});
    out.baselines.push_back({cublas_gemm_ex(other), stats[1], kNaN,
                             "GemmEx reading B in the other layout (same cost, other product)"});
    if (!lt_calls.empty()) {
      out.baselines.push_back({Provider::CublasltHeuristic, stats[2], heuristic_diff, "heuristic top-1"});
      out.baselines.push_back({Provider::CublasltAutotune, stats[3], best_diff,
                               fmt::format("algo #{} of {} tried", best, algorithms.size())});
    }
    return out;
  }

  // The library call candidates are timed against: cuBLASLt's autotuned algorithm, or cuBLAS.
  TimedCall reference_call() {
    if (best_lt_) return cublas_->lt_matmul(*buffers_, 0, *best_lt_);
    return cublas_->gemm_ex(*buffers_, 0, buffers_->problem.layout);
  }

  static TrialReply launch_failed(const GpuError& e) {
    if (e.sticky) throw e;
    return {TrialStatus::LaunchFailed, e.what()};
  }

  static TrialReply verify_failed(double max_diff, double tolerance, std::string reason) {
    return {TrialStatus::VerifyFailed, std::move(reason), max_diff, tolerance};
  }

  TrialReply trial(const KernelRun& run) {
    std::unique_ptr<PreparedKernel> kernel;
    try {
      kernel = std::make_unique<PreparedKernel>(run.cubin_path, run.launch, *buffers_);
    } catch (const GpuError& e) {
      return launch_failed(e);
    }
    double worst = 0, worst_tol = 0;
    for (int set = 0; set < 2; ++set) {
      double diff;
      try {
        diff = check([&](cudaStream_t s) { kernel->launch(s, set); }, set);
      } catch (const GpuError& e) {
        return launch_failed(e);
      }
      if (set == 0) checker_->keep_output();
      const double tol = tolerance(set);
      if (!passes_verification(diff, tol))
        return verify_failed(diff, tol,
                             fmt::format("max_diff {:.4g} above tolerance {:.4g} on input set {} "
                                         "(uniform in [-{}, {}])",
                                         diff, tol, set + 1, buffers_->sets[std::size_t(set)].scale / 2,
                                         buffers_->sets[std::size_t(set)].scale / 2));
      if (diff / tol >= worst / std::max(worst_tol, 1e-30)) {
        worst = diff;
        worst_tol = tol;
      }
    }
    const StopRule& rule = run.stop;
    TimedCall ours{"ours", [&](cudaStream_t s) { kernel->launch(s, 0); }};
    const auto stats = timer_->interleaved({ours, reference_call()}, rule);
    // Many launches later the answer must still be right (split-K counters reset, no races).
    const double again = check(ours.launch, 0);
    if (!passes_verification(again, tolerance(0)))
      return verify_failed(again, tolerance(0),
                           fmt::format("right on the first launch, max_diff {:.4g} after {} more", again,
                                       stats[0].samples * stats[0].calls_per_sample));
    // Same inputs, same bits: a winner's results must not depend on timing (split-K order).
    if (const long long differing = checker_->differences_from_kept(); differing > 0)
      return verify_failed(again, tolerance(0),
                           fmt::format("not deterministic: {} of {} output elements differ bit for bit from "
                                       "the first launch on the same inputs",
                                       differing, buffers_->problem.shape.m * buffers_->problem.shape.n));
    return {TrialStatus::Ok, "", worst, worst_tol, stats[0], stats[1]};
  }

  FinalReply final_round(const KernelRun& run) {
    PreparedKernel kernel(run.cubin_path, run.launch, *buffers_);
    TimedCall ours{"ours", [&](cudaStream_t s) { kernel.launch(s, 0); }};
    const double diff = check(ours.launch, 0);
    if (!passes_verification(diff, tolerance(0)))
      throw std::runtime_error(fmt::format("winner failed re-verification: max_diff {:.4g}", diff));
    const Layout own = buffers_->problem.layout;
    const Layout other = own == Layout::TN ? Layout::NN : Layout::TN;
    std::vector<TimedCall> calls = {ours, cublas_->gemm_ex(*buffers_, 0, own),
                                    cublas_->gemm_ex(*buffers_, 0, other)};
    if (heuristic_lt_) calls.push_back(cublas_->lt_matmul(*buffers_, 0, *heuristic_lt_));
    if (best_lt_) calls.push_back(cublas_->lt_matmul(*buffers_, 0, *best_lt_));
    const auto stats = timer_->interleaved(calls, run.stop);
    FinalReply reply{{{Provider::Ours, stats[0]}, {cublas_gemm_ex(own), stats[1]}, {cublas_gemm_ex(other), stats[2]}},
                     diff};
    if (heuristic_lt_) reply.times[Provider::CublasltHeuristic] = stats[3];
    if (best_lt_) reply.times[Provider::CublasltAutotune] = stats[heuristic_lt_ ? 4 : 3];
    return reply;
  }

  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

  KernelCompiler compiler_;
  DeviceInfo device_;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<IntervalTimer> timer_;
  std::unique_ptr<UtilityKernels> utility_;
  std::unique_ptr<CublasProviders> cublas_;
  std::unique_ptr<ProblemBuffers> buffers_;
  std::unique_ptr<OutputChecker> checker_;
  std::optional<LtAlgorithm> best_lt_, heuristic_lt_;
};

}  // namespace

std::unique_ptr<WorkerBackend> make_gpu_backend(const WorkerOptions& options) {
  const std::string reason = gpu_unavailable_reason(options.device);
  if (!reason.empty()) throw UserError(reason);
  return std::make_unique<GpuBackend>(options);
}

}  // namespace cl2
