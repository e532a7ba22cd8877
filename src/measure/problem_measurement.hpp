#pragma once
// One problem measured on the GPU: the path tune's worker and bench share. It holds the problem's
// inputs and fp32 references, checks a kernel's output against them, makes the libraries' choice
// (cuBLASLt's heuristic top-1, and the fastest of its algorithms), gives a call per provider and
// times calls side by side. Policy stays with the callers: the worker records a failed check as a
// trial's result, bench refuses a stored winner that fails.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/call_counters.hpp"
#include "core/call_trace.hpp"
#include "core/provider.hpp"
#include "gpu/cublas_providers.hpp"
#include "gpu/prepared_kernel.hpp"
#include "gpu/problem_setup.hpp"
#include "gpu/timing.hpp"
#include "measure/gpu_context.hpp"

namespace cl2 {

// A call to time and who makes it. Every call computes from the first input set.
struct ProviderCall {
  Provider provider;
  TimedCall call;
};
using ProviderTimes = std::map<Provider, TimingStats>;

// A GEMM of the problem on one operand slot of its buffers (an input set or a rotated copy, with
// the tight leading dimensions), enqueued on a stream: how bench runs an implementation that is
// handed plain pointers at each call rather than prepared for these buffers (the runtime library).
using BufferGemm = std::function<void(const GemmOperands& operands, cudaStream_t stream)>;

// What checking a kernel's output found.
struct Verification {
  bool passed = false;
  double max_diff = 0;  // the failing check's; when passed, the worst relative to its tolerance
  double tolerance = 0;
  std::string failure;  // why it failed, for the trial's reason; empty when passed
  std::uint64_t output_hash = 0;  // of the first input set's output (OutputChecker::output_hash)
};

class ProblemMeasurement {
 public:
  // Allocates and fills the inputs and computes the references. Throws UserError when the GPU has
  // too little free memory for the problem.
  ProblemMeasurement(GpuContext& gpu, const Problem& problem);

  const Problem& problem() const { return buffers_->problem; }

  // Our kernel's call; under the rotate policy with its rotation (TimedCall::rotation).
  ProviderCall kernel_call(const PreparedKernel& kernel) const;
  // `gemm` as `provider`'s call, with the same rotation.
  ProviderCall gemm_call(Provider provider, BufferGemm gemm) const;
  // `gemm` once on every operand slot, then a synchronize: an implementation that allocates or
  // caches on first use (per stream, per operands) has done so before a CUDA graph captures it,
  // where allocating is an error.
  void warm_up(const BufferGemm& gemm) const;
  std::array<double, 2> max_abs_reference() const;  // per input set

  // A compiled kernel loaded and bound to this problem's buffers (GpuError when it cannot be).
  std::unique_ptr<PreparedKernel> prepare_kernel(const std::string& cubin_path,
                                                 const LaunchGeometry& launch) const;

  // max |C - reference| after `call` wrote C, and the tolerance it is held to (first input set).
  double max_diff(const TimedCall& call) const;
  double tolerance() const { return checker_.tolerance(0); }

  // The kernel's output on both input sets against their references, with the first set's
  // output hash for verify_again.
  Verification verify(const PreparedKernel& kernel) const;
  // The first input set only, without the hash: a race's brief check (worth one of the two
  // launches and none of the hashing), for candidates that are checked in full before they can win.
  Verification verify_first_set(const PreparedKernel& kernel) const;
  Verification verify(const BufferGemm& gemm) const;
  // After `launches` further launches: still within tolerance, and the same bits as the output
  // `verified` hashed (split-K counters reset, no races, a summation order that does not vary).
  Verification verify_again(const PreparedKernel& kernel, const Verification& verified, long long launches) const;

  // The libraries' choice. find_lt_algorithms asks cuBLASLt's heuristic for up to
  // `max_algorithms` algorithms; its first is cuBLASLt-heuristic. autotune_lt times them all side
  // by side under `screen` and keeps the fastest as cuBLASLt-autotune (nothing to do when the
  // heuristic offered none).
  void find_lt_algorithms(int max_algorithms);
  void autotune_lt(const StopRule& screen);
  // Makes the heuristic's algorithm of configuration `config` cuBLASLt-autotune without timing
  // (the choice an earlier autotune recorded); false where the heuristic no longer offers it.
  bool choose_lt_algorithm(const LtAlgoConfig& config);
  // "algo #3 of 12 tried": which of the heuristic's algorithms cuBLASLt-autotune is.
  std::string lt_autotune_detail() const;
  // The configuration of the algorithm cuBLASLt-heuristic or -autotune runs; nullopt for other
  // providers, before the choice, or where cuBLASLt did not report it.
  std::optional<LtAlgoConfig> lt_algo_config(Provider provider) const;

  // The library providers with a call now: cuBLAS reading B in the problem's layout, then in the
  // other layout (same cost, another product), then cuBLASLt-heuristic and -autotune once chosen.
  std::vector<Provider> library_providers() const;
  bool has_call(Provider provider) const;
  // The provider whose call is `provider`'s: itself, or cuBLASLt-autotune for cuBLASLt-heuristic
  // where autotuning chose the heuristic's own top-1. One call timed twice side by side would only
  // measure noise, so callers time it once and report it for both.
  Provider timed_as(Provider provider) const;
  // Throws std::logic_error for a provider without a call (see library_providers). Its graph is
  // kept from one measurement to the next (KeptReplay).
  ProviderCall library_call(Provider provider);

  // GPU time of each call, in shuffled rounds side by side until `rule` stops (IntervalTimer),
  // under the problem's L2 policy.
  ProviderTimes time_side_by_side(const std::vector<ProviderCall>& calls, const StopRule& rule);
  // The same for calls that need not be of distinct providers (several of ours), in their order.
  std::vector<TimingStats> time_interleaved(const std::vector<TimedCall>& calls, const StopRule& rule);
  // Each call after the first timed beside the first (IntervalTimer::beside_first).
  std::vector<IntervalTimer::BesideFirst> time_beside_first(const std::vector<TimedCall>& calls, const StopRule& rule);

  // The kernels `calls` back-to-back launches of `call` run, launched as one timed sample of
  // `calls` launches (TimingStats::calls_per_sample) launches them: on the measurement's stream,
  // taking a rotated call's operand copies in turn, after an L2 flush under the flush policy
  // (KernelTracer; absent, with the reason, where CUPTI is not available).
  CallTrace trace_kernels(const TimedCall& call, int calls);
  // The hardware counters of one launch of `call`, alone on the measurement's stream
  // (CounterProfiler; absent, with the reason, where CUPTI cannot profile).
  CallCounters count(const TimedCall& call);

 private:
  GpuContext& gpu_;
  std::unique_ptr<ProblemBuffers> buffers_;
  OutputChecker checker_;
  // The algorithm behind a cuBLASLt provider, or null (see library_providers).
  const LtAlgorithm* lt_algorithm(Provider provider) const;
  // The call on the first input set, with the same call on each rotated copy of the operands.
  TimedCall rotated(const std::function<TimedCall(int slot)>& call_on) const;
  // One launch on operand slot `slot` (ProblemBuffers::operands).
  using SlotLaunch = std::function<void(cudaStream_t stream, int slot)>;
  ProviderCall slot_call(Provider provider, const SlotLaunch& launch) const;
  SlotLaunch slot_launch(BufferGemm gemm) const;
  Verification verify_slots(const SlotLaunch& launch, int input_sets = 2) const;
  // The GPU's L2 flusher under the flush policy (every sample one launch after a flush), else null.
  L2Flusher* flusher();

  ProviderCall unkept_library_call(Provider provider);
  // Forgets the kept graph of each cuBLASLt provider: its algorithm is chosen anew.
  void forget_lt_replays();

  std::vector<LtAlgorithm> lt_algorithms_;
  std::optional<std::size_t> lt_fastest_;  // index into lt_algorithms_, once autotuned
  // Each library call's graph, kept for the problem's next measurements at the same replay target:
  // every trial is timed against the same library call (its nodes stay put: calls point here).
  std::map<Provider, KeptReplay> kept_replays_;
};

}  // namespace cl2
