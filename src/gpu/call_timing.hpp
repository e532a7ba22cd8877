#pragma once
// Timing of single calls as an application makes them, complementing IntervalTimer's graph
// replays: per-call wall time (host clock around the call and a stream synchronize, launch cost
// included), and "server" calls that each come after an idle gap. Also the L2 flush used for
// cold-cache measurements.
#include <cuda_runtime_api.h>

#include <random>
#include <vector>

#include "gpu/device_buffer.hpp"
#include "gpu/timing.hpp"

namespace cl2 {

class L2Flusher {
 public:
  explicit L2Flusher(std::size_t l2_bytes);
  void flush(cudaStream_t stream);  // overwrites twice the L2 size

 private:
  DeviceBuffer scratch_;
};

struct CallTimes {
  TimingStats gpu;   // CUDA events around the call alone
  TimingStats wall;  // host clock around the call and the synchronize
};

class CallTimer {
 public:
  CallTimer(cudaStream_t stream, L2Flusher* flusher) : stream_(stream), flusher_(flusher) {}

  // Back-to-back calls, one of each per round in shuffled order, until the rule is met.
  std::vector<CallTimes> back_to_back(const std::vector<TimedCall>& calls, const StopRule& rule);

  // `samples` rounds; before each call the GPU sits idle for `gap_ms`.
  std::vector<CallTimes> after_idle_gaps(const std::vector<TimedCall>& calls, int gap_ms, int samples);

 private:
  // One call: flush if asked, then events and host clock around it; {gpu_us, wall_us}.
  std::pair<double, double> time_call(const TimedCall& call);

  cudaStream_t stream_;
  L2Flusher* flusher_;
  long long launches_ = 0;  // so consecutive calls take a rotated call's operand copies in turn
  std::mt19937 order_rng_{4242};
};

}  // namespace cl2
