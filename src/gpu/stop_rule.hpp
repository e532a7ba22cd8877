#pragma once
// When a measurement has enough samples: the summary of a call's samples, the rules that say when
// to stop sampling, and the one decision both timers (IntervalTimer's graph replays, CallTimer's
// single calls) take after each round. Plain arithmetic, no CUDA: tested on any machine.
#include <cstddef>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace cl2 {

struct TimingStats {
  double median_us = 0, mean_us = 0, min_us = 0, max_us = 0;
  double spread_pct = 0;  // 100 * stdev / mean of the samples
  int samples = 0;
  int calls_per_sample = 0;
  int throttled_rounds = 0;  // rounds discarded because the GPU was throttled
  double sm_clock_mhz = 0;   // median SM clock over the kept rounds; 0 where not sampled (no NVML)
  bool operator==(const TimingStats&) const = default;
};

TimingStats summarize(std::vector<double> samples_us, int calls_per_sample);

// How well the samples pin down the median: its standard error relative to the mean (normal
// approximation, sqrt(pi/2) * stdev / sqrt(n)). Unlike the samples' spread, which a noisy call
// keeps however long it is timed, this shrinks as samples come in, so a rule on it ends.
double median_error(const TimingStats& stats);

struct StopRule {
  int min_samples = 10;
  int max_samples = 400;
  double max_error = 0.002;    // median_error every call must reach
  double min_seconds = 0.02;   // measured time per call before the error rule may stop
  double max_seconds = 1.5;    // wall time for the whole measurement
  double replay_target_us = 300;
  // Where a measurement only ranks the calls against the first (a candidate screened beside its
  // library reference, cuBLASLt's algorithms against the heuristic's first), a call also settles
  // once the median of its round-by-round ratio to the first call is known to max_error: noise
  // the calls of a round share, such as the clock, cancels in the ratio.
  bool settle_on_ratios = false;
  // With settle_on_ratios: a call after the first that has settled is not replayed again, while
  // the first goes on as long as any other call does. Several candidates can then be timed beside
  // one library call without the slowest to settle keeping the others in every round.
  bool settled_calls_stop = false;
  bool operator==(const StopRule&) const = default;
};

// The named rules: a brief one to race many candidates (tune --strategy race), a quick one to
// screen candidates (and cuBLASLt's algorithms), a careful one for times that are results (bench),
// and for tune's final round of finalists against the libraries one settling on their ratios.
StopRule race_stop_rule();
StopRule screening_stop_rule();
StopRule final_stop_rule();
StopRule final_round_stop_rule();

// As the worker protocol and the timing log write a rule (a field left out reads as the default).
nlohmann::json to_json(const StopRule& rule);
StopRule stop_rule_from_json(const nlohmann::json& j);

// Each call's samples over the first call's, round by round (the first call's ratios are all 1).
std::vector<TimingStats> ratios_to_first(const std::vector<std::vector<double>>& samples);

enum class StopReason { GoOn, Settled, Capped, OutOfTime };

// Whether call `i` of a measurement has settled: min_samples, min_seconds and max_error (its own,
// or with settle_on_ratios that of its entry in `ratios`, ratios_to_first of the samples).
bool call_settled(const StopRule& rule, const std::vector<TimingStats>& calls,
                  const std::vector<double>& measured_seconds, const std::vector<TimingStats>& ratios,
                  std::size_t i);

// Which calls the next round replays: all of them, or under settled_calls_stop each call after the
// first until it has settled and the first while any other is replayed or it has not settled
// itself. A call that has settled stays so (its samples and ratios no longer change).
std::vector<bool> calls_still_timed(const StopRule& rule, const std::vector<TimingStats>& calls,
                                    const std::vector<double>& measured_seconds,
                                    const std::vector<TimingStats>& ratios);

// After a round: `calls` summarizes each call's samples so far and `measured_seconds` the time
// they add up to; `wall_seconds` is the measurement's time so far. Settled: every call has
// min_samples, min_seconds and max_error (own, or with settle_on_ratios that of its entry in
// `ratios`, ratios_to_first of the samples). Capped: some call has max_samples. Out of time: wall
// time reached max_seconds and every call has min_samples.
StopReason stop_reason(const StopRule& rule, const std::vector<TimingStats>& calls,
                       const std::vector<double>& measured_seconds, double wall_seconds,
                       const std::vector<TimingStats>& ratios = {});

// How long a request that verifies and times `candidates` side by side under `rule` may take
// before the watchdog ends it: `watchdog_seconds` (what one candidate may take) and, for each
// further one, its share of the measurement's wall time (the worker grants max_seconds a
// candidate) and a second to load, verify and check it again. So a candidate that hangs in a
// request of 8 costs about one watchdog period before they are tried one by one, not 8 of them.
double request_timeout_seconds(const StopRule& rule, std::size_t candidates, double watchdog_seconds);

}  // namespace cl2
