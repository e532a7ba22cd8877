#pragma once
// GPU time of several calls measured side by side. Each call is captured B times into a CUDA
// graph (B chosen so one replay lasts ~`replay_target_us`, which hides the CPU submission cost of
// small kernels); every round replays each call's graph once, in a freshly shuffled order,
// between two events, so all calls see the same clocks and thermal state. Rounds go on until
// every call has `min_samples` and its noise (stdev/mean) is under `max_noise` with at least
// `min_seconds` of GPU time behind it, or until `max_seconds` of wall time (nvbench's rule).
// Given a ClockSampler (NVML), the timer reads the SM clock after each round and discards a round
// the GPU ran throttled (power or thermal), as nvbench does, while the wall-time budget lasts.
// L2 policies (core/problem.hpp): a call with a rotation cycles through its operand copies within
// each graph (rotate); given an L2Flusher, every sample is one launch alone after a flush (flush).
#include <cuda_runtime_api.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

namespace cl2 {

struct TimedCall {
  std::string name;
  std::function<void(cudaStream_t)> launch;  // must be capturable into a graph
  // Under the rotate policy: the same call on each copy of its operands, which consecutive
  // launches take in turn. Empty: every launch is `launch`.
  std::vector<std::function<void(cudaStream_t)>> rotation;

  // The i-th of a sequence of back-to-back launches.
  const std::function<void(cudaStream_t)>& launch_number(long long i) const {
    return rotation.empty() ? launch : rotation[std::size_t(i % (long long)rotation.size())];
  }
};

struct TimingStats {
  double median_us = 0, mean_us = 0, min_us = 0, max_us = 0;
  double spread_pct = 0;  // 100 * stdev / mean
  int samples = 0;
  int calls_per_sample = 0;
  int throttled_rounds = 0;  // rounds discarded because the GPU was throttled
  double sm_clock_mhz = 0;   // median SM clock over the kept rounds; 0 where not sampled (no NVML)
  bool operator==(const TimingStats&) const = default;
};

struct StopRule {
  int min_samples = 10;
  int max_samples = 400;
  double max_noise = 0.005;
  double min_seconds = 0.02;   // GPU time per call before the noise rule may stop
  double max_seconds = 1.5;    // wall time for the whole measurement
  double replay_target_us = 300;
  bool operator==(const StopRule&) const = default;
};

// The named rules: a brief one to race many candidates (tune --strategy race), a quick one to
// screen candidates (and cuBLASLt's algorithms), a careful one for a winner against the libraries.
StopRule race_stop_rule();
StopRule screening_stop_rule();
StopRule final_stop_rule();

class ClockSampler;
class L2Flusher;

class IntervalTimer {
 public:
  // `clocks` (optional, must outlive the timer) samples the SM clock and throttling per round.
  explicit IntervalTimer(cudaStream_t stream, const ClockSampler* clocks = nullptr);
  ~IntervalTimer();
  IntervalTimer(const IntervalTimer&) = delete;
  IntervalTimer& operator=(const IntervalTimer&) = delete;

  // One launch of `call` alone, in microseconds (events around it; includes no graph).
  double time_once(const TimedCall& call);

  // With `flusher`, each sample is one launch alone after the L2 was overwritten (no graph).
  std::vector<TimingStats> interleaved(const std::vector<TimedCall>& calls, const StopRule& rule,
                                       L2Flusher* flusher = nullptr);

 private:
  cudaStream_t stream_;
  const ClockSampler* clocks_;
  std::mt19937 order_rng_{12345};
};

TimingStats summarize(std::vector<double> samples_us, int calls_per_sample);

}  // namespace cl2
