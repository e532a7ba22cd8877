#pragma once
// GPU time of several calls measured side by side. Each call is captured B times into a CUDA
// graph (B chosen so one replay lasts ~`replay_target_us`, which hides the CPU submission cost of
// small kernels); every round replays each call's graph once, in a freshly shuffled order,
// between two events, so all calls see the same clocks and thermal state. Rounds go on until
// every call has `min_samples` and its noise (stdev/mean) is under `max_noise` with at least
// `min_seconds` of GPU time behind it, or until `max_seconds` of wall time (nvbench's rule).
// Given a ClockSampler (NVML), the timer reads the SM clock after each round and discards a round
// the GPU ran throttled (power or thermal), as nvbench does, while the wall-time budget lasts.
#include <cuda_runtime_api.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

namespace cl2 {

struct TimedCall {
  std::string name;
  std::function<void(cudaStream_t)> launch;  // must be capturable into a graph
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

// The named rules: a quick one to screen candidates (and cuBLASLt's algorithms), a careful one for
// a winner against the libraries.
StopRule screening_stop_rule();
StopRule final_stop_rule();

class ClockSampler;

class IntervalTimer {
 public:
  // `clocks` (optional, must outlive the timer) samples the SM clock and throttling per round.
  explicit IntervalTimer(cudaStream_t stream, const ClockSampler* clocks = nullptr);
  ~IntervalTimer();
  IntervalTimer(const IntervalTimer&) = delete;
  IntervalTimer& operator=(const IntervalTimer&) = delete;

  // One launch of `call` alone, in microseconds (events around it; includes no graph).
  double time_once(const TimedCall& call);

  std::vector<TimingStats> interleaved(const std::vector<TimedCall>& calls, const StopRule& rule);

 private:
  cudaStream_t stream_;
  const ClockSampler* clocks_;
  std::mt19937 order_rng_{12345};
};

TimingStats summarize(std::vector<double> samples_us, int calls_per_sample);

}  // namespace cl2
