#include "gpu/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <numeric>
#include <optional>

#include "gpu/call_graph.hpp"
#include "gpu/call_timing.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/cuda_event.hpp"
#include "gpu/nvml_clocks.hpp"
#include "gpu/timing_log.hpp"

namespace cl2 {

struct KeptReplay::Held {
  std::unique_ptr<CallGraph> graph;
  int copies = 1;
  double replay_target_us = 0;
};

KeptReplay::KeptReplay() = default;
KeptReplay::~KeptReplay() = default;
void KeptReplay::reset() { held_.reset(); }

IntervalTimer::IntervalTimer(cudaStream_t stream, const ClockSampler* clocks) : stream_(stream), clocks_(clocks) {}
IntervalTimer::~IntervalTimer() = default;

double IntervalTimer::time_once(const TimedCall& call) {
  Event start, stop;
  CL2_CUDA(cudaEventRecord(start.get(), stream_));
  call.launch(stream_);
  CL2_CUDA(cudaEventRecord(stop.get(), stream_));
  CL2_CUDA(cudaEventSynchronize(stop.get()));
  return 1000.0 * elapsed_ms(start, stop);
}

// What the rounds of one measurement gave: each call's samples (per launch, microseconds), how
// many launches each sample held, and the clock over the kept rounds.
struct IntervalTimer::Rounds {
  std::vector<std::vector<double>> samples;
  std::vector<int> copies;
  double clock_mhz = 0;
  int throttled_rounds = 0;

  // `samples` (some or all of one call's) summarized, with the measurement's clock and throttling.
  TimingStats stats(std::vector<double> some, int copies_per_sample) const {
    TimingStats out = summarize(std::move(some), copies_per_sample);
    out.throttled_rounds = throttled_rounds;
    out.sm_clock_mhz = clock_mhz;
    return out;
  }
};

IntervalTimer::Rounds IntervalTimer::run_rounds(const std::vector<TimedCall>& calls, const StopRule& rule,
                                                L2Flusher* flusher) {
  const auto wall_start = std::chrono::steady_clock::now();
  const auto wall_seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  };
  // Warm up each call that has not just run (module load, lazy library init, clocks) and size its
  // graph: whole turns of its rotation, so that every copy of the operands is read as often. A
  // call whose graph was kept at this replay target has done both. Each launch here is a whole
  // run of the call: on the H200's race of grid-1000-sample100 (db/results/h200-race-default-check/)
  // they and the graph's first replay were half a measurement's wall time, most of it on calls
  // of 0.1 ms and more, for which one launch says all the sizing needs (one copy a replay).
  std::vector<int> copies(calls.size(), 1);
  std::vector<const CallGraph*> graphs(calls.size(), nullptr);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    KeptReplay* kept = flusher ? nullptr : calls[i].kept;
    if (kept && kept->held_ && kept->held_->replay_target_us == rule.replay_target_us) {
      copies[i] = kept->held_->copies;
      graphs[i] = kept->held_->graph.get();
      continue;
    }
    if (!calls[i].warm) time_once(calls[i]);
    if (flusher) continue;  // each sample is one launch alone: no graph to size
    double once_us = time_once(calls[i]);
    // A short call is sized from the faster of two launches, as the first may still be slow.
    if (once_us < rule.replay_target_us) once_us = std::min(once_us, time_once(calls[i]));
    once_us = std::max(1.0, once_us);
    const int turn = std::max<int>(1, int(calls[i].rotation.size()));
    const int wanted = int(std::clamp(rule.replay_target_us / once_us, 1.0, 200.0));
    copies[i] = std::max(1, (wanted + turn - 1) / turn) * turn;
  }
  const double warm_up_seconds = wall_seconds();
  std::vector<std::unique_ptr<CallGraph>> owned;
  for (std::size_t i = 0; i < calls.size() && !flusher; ++i) {
    if (graphs[i]) continue;
    auto graph = std::make_unique<CallGraph>(calls[i], copies[i], stream_);
    graph->upload(stream_);  // or its first replay would, and run the call once more
    graphs[i] = graph.get();
    if (KeptReplay* kept = calls[i].kept) {
      kept->held_ = std::make_unique<KeptReplay::Held>();
      *kept->held_ = {std::move(graph), copies[i], rule.replay_target_us};
    } else {
      owned.push_back(std::move(graph));
    }
  }
  CL2_CUDA(cudaStreamSynchronize(stream_));
  const double setup_seconds = wall_seconds();

  std::vector<Event> starts(calls.size()), stops(calls.size());
  std::vector<std::vector<double>> samples(calls.size());
  std::vector<double> gpu_seconds(calls.size(), 0.0);
  std::vector<bool> timed(calls.size(), true);  // replayed in the next round
  std::vector<std::size_t> order(calls.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<double> clocks_mhz;
  int throttled_rounds = 0;
  StopReason reason = StopReason::GoOn;
  for (;;) {
    std::shuffle(order.begin(), order.end(), order_rng_);
    for (std::size_t i : order) {
      if (!timed[i]) continue;
      if (flusher) flusher->flush(stream_);  // before the start event: not part of the sample
      CL2_CUDA(cudaEventRecord(starts[i].get(), stream_));
      if (flusher) calls[i].launch(stream_);
      else graphs[i]->launch(stream_);
      CL2_CUDA(cudaEventRecord(stops[i].get(), stream_));
    }
    CL2_CUDA(cudaStreamSynchronize(stream_));
    // Read right after the round: a throttled GPU stays so for far longer than one round. Once
    // the budget is spent, throttled rounds are kept, so a GPU throttled throughout still ends.
    if (const auto clock = clocks_ ? clocks_->read() : std::nullopt) {
      if (clock->throttled && wall_seconds() < rule.max_seconds) {
        ++throttled_rounds;
        continue;
      }
      clocks_mhz.push_back(clock->sm_mhz);
    }
    std::vector<TimingStats> so_far;
    for (std::size_t i = 0; i < calls.size(); ++i) {
      if (timed[i]) {
        const double us = 1000.0 * elapsed_ms(starts[i], stops[i]);
        samples[i].push_back(us / copies[i]);
        gpu_seconds[i] += us * 1e-6;
      }
      so_far.push_back(summarize(samples[i], copies[i]));
    }
    const std::vector<TimingStats> ratios = rule.settle_on_ratios ? ratios_to_first(samples) : std::vector<TimingStats>{};
    reason = stop_reason(rule, so_far, gpu_seconds, wall_seconds(), ratios);
    if (reason != StopReason::GoOn) break;
    timed = calls_still_timed(rule, so_far, gpu_seconds, ratios);
  }
  if (const std::string& log = timing_log_path(); !log.empty()) {
    MeasurementRecord record{{}, rule, reason, setup_seconds, wall_seconds(), copies, samples, warm_up_seconds};
    for (const auto& call : calls) record.calls.push_back(call.name);
    append_measurement(log, record);
  }
  return {std::move(samples), std::move(copies), clocks_mhz.empty() ? 0.0 : summarize(clocks_mhz, 1).median_us,
          throttled_rounds};
}

std::vector<TimingStats> IntervalTimer::interleaved(const std::vector<TimedCall>& calls, const StopRule& rule,
                                                    L2Flusher* flusher) {
  const Rounds rounds = run_rounds(calls, rule, flusher);
  std::vector<TimingStats> stats;
  for (std::size_t i = 0; i < calls.size(); ++i) stats.push_back(rounds.stats(rounds.samples[i], rounds.copies[i]));
  return stats;
}

std::vector<IntervalTimer::BesideFirst> IntervalTimer::beside_first(const std::vector<TimedCall>& calls,
                                                                    const StopRule& rule, L2Flusher* flusher) {
  const Rounds rounds = run_rounds(calls, rule, flusher);
  std::vector<BesideFirst> out;
  const std::vector<double>& first = rounds.samples.front();
  for (std::size_t i = 1; i < calls.size(); ++i) {
    // Calls drop out of the rounds, never join late: the first n of the first call's samples are
    // the rounds this one ran.
    const std::size_t n = std::min(first.size(), rounds.samples[i].size());
    out.push_back({rounds.stats(rounds.samples[i], rounds.copies[i]),
                   rounds.stats({first.begin(), first.begin() + std::ptrdiff_t(n)}, rounds.copies.front())});
  }
  return out;
}

}  // namespace cl2
