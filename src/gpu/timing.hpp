#pragma once
// GPU time of several calls measured side by side. Each call is captured B times into a CUDA
// graph (B chosen so one replay lasts ~`replay_target_us`, which hides the CPU submission cost of
// small kernels); every round replays each call's graph once, in a freshly shuffled order,
// between two events, so all calls see the same clocks and thermal state. Rounds go on until the
// rule says stop (gpu/stop_rule.hpp: each median known well enough, or a cap).
// Given a ClockSampler (NVML), the timer reads the SM clock after each round and discards a round
// the GPU ran throttled (power or thermal), as nvbench does, while the wall-time budget lasts.
// L2 policies (core/problem.hpp): a call with a rotation cycles through its operand copies within
// each graph (rotate); given an L2Flusher, every sample is one launch alone after a flush (flush).
#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gpu/stop_rule.hpp"

namespace cl2 {

// A call's graph kept from one measurement to the next (the library call each of a problem's
// trials is timed against): built, after the call's warm-up, by the first measurement with its
// replay target, and replayed as it is by later ones with the same target, which skip both. What
// changes the call's launches must reset() it.
class KeptReplay {
 public:
  KeptReplay();
  ~KeptReplay();
  KeptReplay(const KeptReplay&) = delete;
  KeptReplay& operator=(const KeptReplay&) = delete;
  void reset();

 private:
  friend class IntervalTimer;
  struct Held;
  std::unique_ptr<Held> held_;
};

struct TimedCall {
  std::string name;
  std::function<void(cudaStream_t)> launch;  // must be capturable into a graph
  // Under the rotate policy: the same call on each copy of its operands, which consecutive
  // launches take in turn. Empty: every launch is `launch`.
  std::vector<std::function<void(cudaStream_t)>> rotation = {};
  KeptReplay* kept = nullptr;  // where its graph is kept between measurements, if anywhere
  // It has just run (a kernel verified right before it is timed): its module is loaded and the
  // GPU's clocks are up, so no launch goes before the one that sizes its graph.
  bool warm = false;

  // The i-th of a sequence of back-to-back launches.
  const std::function<void(cudaStream_t)>& launch_number(long long i) const {
    return rotation.empty() ? launch : rotation[std::size_t(i % (long long)rotation.size())];
  }
};

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

  // The calls after the first, each timed beside the first (under a rule with settled_calls_stop,
  // each until it settles): its stats, and the first call's over the rounds it ran, so that its
  // ratio to the first is taken over the same rounds however long the others ran.
  struct BesideFirst {
    TimingStats call;
    TimingStats first;
  };
  std::vector<BesideFirst> beside_first(const std::vector<TimedCall>& calls, const StopRule& rule,
                                        L2Flusher* flusher = nullptr);

 private:
  struct Rounds;
  Rounds run_rounds(const std::vector<TimedCall>& calls, const StopRule& rule, L2Flusher* flusher);

  cudaStream_t stream_;
  const ClockSampler* clocks_;
  std::mt19937 order_rng_{12345};
};

}  // namespace cl2
