#include "runtime/first_call_timing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "gpu/timing.hpp"
#include "runtime/env_count.hpp"

namespace cl2 {

int timed_candidates_from_env(const char* value) {
  return count_from_env("CL2_FIRST_CALL_TIMING", value, kDefaultTimedCandidates, kMaxTimedCandidates,
                        "how many of the cost model's first choices an untuned shape's first call times");
}

FirstCallTimes time_candidates(GemmBackend& backend, const std::vector<CandidateLaunch>& candidates, const GemmCall& call) {
  std::vector<CandidateLaunch> sequence;
  for (int round = 0; round < kTimingRounds; ++round)
    sequence.insert(sequence.end(), candidates.begin(), candidates.end());
  const std::vector<double> launches_us = backend.time_kernels(sequence, call);
  FirstCallTimes times;
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    std::vector<double> samples;
    for (std::size_t i = c; i < launches_us.size(); i += candidates.size()) samples.push_back(launches_us[i]);
    times.median_us.push_back(summarize(std::move(samples), 1).median_us);
  }
  times.fastest = std::size_t(std::min_element(times.median_us.begin(), times.median_us.end()) -
                              times.median_us.begin());
  return times;
}

namespace {

// "the model's first 3", or "the model's first 3 and 2 planned at the shape".
std::string timed_set(std::size_t candidates, std::size_t planned) {
  std::string text = fmt::format("the model's first {}", candidates - planned);
  if (planned > 0) text += fmt::format(" and {} planned at the shape", planned);
  return text;
}

}  // namespace

std::string timing_note(const FirstCallTimes& times, std::size_t planned) {
  std::vector<std::string> each;
  for (std::size_t c = 0; c < times.median_us.size(); ++c)
    each.push_back(fmt::format("{:.1f}{}", times.median_us[c], c == times.fastest ? " (chosen)" : ""));
  return fmt::format("; first-call timing of {} (median of {}): {} us", timed_set(times.median_us.size(), planned),
                     kTimingRounds, fmt::join(each, ", "));
}

std::string pending_timing_note(std::size_t candidates, std::size_t planned) {
  return fmt::format("; first-call timing of {} pending (at the first call outside a graph capture)",
                     timed_set(candidates, planned));
}

}  // namespace cl2
