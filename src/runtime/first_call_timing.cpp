#include "runtime/first_call_timing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <string_view>

#include "gpu/timing.hpp"
#include "runtime/runtime_error.hpp"

namespace cl2 {

int timed_candidates_from_env(const char* value) {
  if (!value || !*value) return kDefaultTimedCandidates;
  const std::string_view text(value);
  int count = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (error != std::errc() || end != text.data() + text.size() || count < 0 || count > kMaxTimedCandidates)
    throw RuntimeError(CL2_ERROR_INVALID_ARGUMENT,
                       fmt::format("CL2_FIRST_CALL_TIMING={}: not a count from 0 to {}; set how many of the cost "
                                   "model's first choices an untuned shape's first call times (0: none), or unset "
                                   "it for {}",
                                   text, kMaxTimedCandidates, kDefaultTimedCandidates));
  return count;
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

std::string timing_note(const FirstCallTimes& times) {
  std::vector<std::string> each;
  for (std::size_t c = 0; c < times.median_us.size(); ++c)
    each.push_back(fmt::format("{:.1f}{}", times.median_us[c], c == times.fastest ? " (chosen)" : ""));
  return fmt::format("; first-call timing of the model's first {} (median of {}): {} us", times.median_us.size(),
                     kTimingRounds, fmt::join(each, ", "));
}

std::string pending_timing_note(std::size_t candidates) {
  return fmt::format("; first-call timing of the model's first {} pending (at the first call outside a graph capture)",
                     candidates);
}

}  // namespace cl2
